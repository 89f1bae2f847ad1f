// Tests of the boardgame.io Gomoku peer (gomoku.js) with boardgame.io's own local
// client: five or more in a row wins, an overline wins, lines never wrap, a full
// board is a draw, bad moves are refused without consuming the turn.
// Run with `node --test gomoku.test.js` where boardgame.io is installed (run.sh test).

const test = require('node:test');
const assert = require('node:assert/strict');
const { Client } = require('boardgame.io/client');
const { Gomoku } = require('./gomoku');

/** A local two-player client; `opening` is `center` (the default) or `free`. */
function newGame(opening) {
  // The local client passes no setupData (the lobby does): give it through setup.
  const game = opening ? { ...Gomoku, setup: (context) => Gomoku.setup(context, { opening }) } : Gomoku;
  const client = Client({ game, numPlayers: 2 });
  client.start();
  return client;
}

/** Plays the moves in order, alternately X and O; each must be accepted. */
function playAll(client, moves) {
  for (const [x, y] of moves) {
    const before = client.getState().G.moveCount;
    client.moves.play({ x, y });
    assert.equal(client.getState().G.moveCount, before + 1, `move ${x},${y} refused`);
  }
}

/** X's stones at `xs` interleaved with O's at `os` (O's list may be one shorter). */
function interleave(xs, os) {
  const moves = [];
  xs.forEach((m, i) => {
    moves.push(m);
    if (i < os.length) moves.push(os[i]);
  });
  return moves;
}

test('the first stone must be the centre in the default opening', () => {
  const client = newGame();
  client.moves.play({ x: 0, y: 0 });
  assert.equal(client.getState().G.moveCount, 0);
  assert.equal(client.getState().ctx.currentPlayer, '0');
  client.moves.play({ x: 7, y: 7 });
  const { G, ctx } = client.getState();
  assert.equal(G.lastMove, 'H8');
  assert.equal(G.board[7], '.......X.......');
  assert.equal(ctx.currentPlayer, '1');
});

test('five in a row wins and reports the line', () => {
  const client = newGame();
  playAll(client, interleave(
    [[7, 7], [8, 7], [9, 7], [10, 7], [11, 7]],
    [[7, 8], [8, 8], [9, 8], [10, 8]],
  ));
  const { G, ctx } = client.getState();
  assert.deepEqual(ctx.gameover, { winner: '0', lines: [['H8', 'I8', 'J8', 'K8', 'L8']] });
  assert.deepEqual(G.lines, [['H8', 'I8', 'J8', 'K8', 'L8']]);
});

test('four in a row does not win', () => {
  const client = newGame();
  playAll(client, interleave([[7, 7], [8, 7], [9, 7], [10, 7]], [[0, 0], [2, 0], [4, 0]]));
  assert.equal(client.getState().ctx.gameover, undefined);
});

test('an overline (six) wins, with all its squares', () => {
  const client = newGame();
  // X: H8 I8 J8 L8 M8 (two gaps filled by K8 last makes six); O far away.
  playAll(client, interleave(
    [[7, 7], [8, 7], [9, 7], [11, 7], [12, 7], [10, 7]],
    [[0, 0], [0, 2], [0, 4], [0, 6], [0, 8]],
  ));
  assert.deepEqual(client.getState().ctx.gameover, {
    winner: '0',
    lines: [['H8', 'I8', 'J8', 'K8', 'L8', 'M8']],
  });
});

test('O wins on a falling diagonal; two lines at once are both reported', () => {
  const client = newGame('free');
  // O builds a vertical and a falling diagonal through C3 (x 2, y 2).
  const os = [[2, 3], [2, 4], [2, 5], [2, 6], [3, 1], [4, 0], [1, 3], [0, 4], [2, 2]];
  const xs = [[14, 14], [14, 12], [14, 10], [14, 8], [12, 14], [12, 12], [12, 10], [12, 8], [10, 14]];
  playAll(client, interleave(xs, os));
  const { ctx } = client.getState();
  assert.equal(ctx.gameover.winner, '1');
  assert.deepEqual(ctx.gameover.lines, [
    ['C3', 'C4', 'C5', 'C6', 'C7'],
    ['A5', 'B4', 'C3', 'D2', 'E1'],
  ]);
});

test('lines do not wrap around the edge', () => {
  const client = newGame('free');
  // X: M15 N15 O15 on the top row and A14 B14 on the next: five in reading order, no line.
  playAll(client, interleave(
    [[12, 14], [13, 14], [14, 14], [0, 13], [1, 13]],
    [[5, 5], [5, 7], [5, 9], [5, 11]],
  ));
  assert.equal(client.getState().ctx.gameover, undefined);
});

test('bad moves are refused and do not consume the turn', () => {
  const client = newGame();
  playAll(client, [[7, 7]]);
  const before = client.getState();
  for (const bad of [
    { x: 7, y: 7 }, // occupied
    { x: 15, y: 0 }, // off the board
    { x: -1, y: 3 },
    { x: 1.5, y: 3 },
    { x: '3', y: 3 },
    { x: 3 },
    { x: 3, y: 3, z: 1 },
    null,
    'H9',
  ]) {
    client.moves.play(bad);
    const after = client.getState();
    assert.deepEqual(after.G, before.G, `${JSON.stringify(bad)} changed the board`);
    assert.equal(after.ctx.currentPlayer, '1');
    assert.equal(after._stateID, before._stateID);
  }
});

test('no move after the game is over', () => {
  const client = newGame();
  playAll(client, interleave(
    [[7, 7], [8, 7], [9, 7], [10, 7], [11, 7]],
    [[7, 8], [8, 8], [9, 8], [10, 8]],
  ));
  const over = client.getState();
  client.moves.play({ x: 0, y: 0 });
  assert.deepEqual(client.getState().G, over.G);
});

test('a full board without a line is a draw', () => {
  const client = newGame('free');
  // Up each column the stones go in pairs (XXOOXXOO...), shifted by one square from
  // one column to the next: no five of a kind on any axis, 113 X and 112 O.
  const moves = { X: [], O: [] };
  for (let x = 0; x < 15; x += 1) {
    for (let y = 0; y < 15; y += 1) {
      moves[(x + Math.floor(y / 2)) % 2 === 0 ? 'X' : 'O'].push([x, y]);
    }
  }
  assert.equal(moves.X.length, 113);
  assert.equal(moves.O.length, 112);
  playAll(client, interleave(moves.X, moves.O));
  const { G, ctx } = client.getState();
  assert.equal(G.moveCount, 225);
  assert.deepEqual(ctx.gameover, { draw: true });
});
