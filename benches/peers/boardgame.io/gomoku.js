// Free-style Gomoku on 15 x 15 as a boardgame.io 0.50 game: the peer that spelbord's
// load is compared with (issue 12, docs/benchmarks.md "boardgame.io side by side").
//
// The rules are spelbord's `gomoku` with its default settings (docs/rules/gomoku.md):
// variant `free` (five OR MORE in a row wins, an overline too), board 15 x 15,
// opening `center` (X's first stone on H8; `setupData: {opening: "free"}` lifts it),
// a full board without a line is a draw. Player "0" is X and moves first, "1" is O.
//
// A move is `play({x, y})`: `x` the column from 0 (A) to 14 (O), `y` the row from
// 0 (row 1, the bottom) to 14 (row 15). Anything else, an occupied square or an
// off-centre opening returns INVALID_MOVE, which boardgame.io refuses without
// consuming the turn. Moving out of turn and moving after the end are refused by
// boardgame.io itself (the player is not active / the game is over).
//
// G mirrors spelbord's view, so both servers send a board of the same shape:
// `board` is one string per row, top row (15) first, one character per column,
// `X`, `O` or `.`; `lastMove` is the latest square (`"H8"`), `moveCount` the stones
// played, `lines` every winning run through the last stone (all its squares), and
// `winner` the winning player's id once there is one.

const { INVALID_MOVE } = require('boardgame.io/core');

const SIZE = 15;
const CENTRE = (SIZE - 1) / 2;
const SYMBOLS = ['X', 'O'];
/** The four axes through a stone: horizontal, vertical, rising and falling diagonal. */
const AXES = [
  [1, 0],
  [0, 1],
  [1, 1],
  [1, -1],
];

/** The square's name in spelbord's notation: column letter and row number (`H8`). */
function squareName(x, y) {
  return String.fromCharCode(65 + x) + String(y + 1);
}

/** The stone at column `x`, row `y` (both from 0, row 0 at the bottom), or `.`. */
function stoneAt(board, x, y) {
  return board[SIZE - 1 - y][x];
}

function onBoard(x, y) {
  return x >= 0 && x < SIZE && y >= 0 && y < SIZE;
}

/**
 * Every run of five or more `symbol`s through (x, y) on the four axes, each as the list
 * of its squares ordered from its lower column (a vertical run from its lower row).
 */
function winningLines(board, x, y, symbol) {
  const lines = [];
  for (const [dx, dy] of AXES) {
    // Walk back to the start of the run, then forward to its end.
    let sx = x;
    let sy = y;
    while (onBoard(sx - dx, sy - dy) && stoneAt(board, sx - dx, sy - dy) === symbol) {
      sx -= dx;
      sy -= dy;
    }
    const run = [];
    for (let cx = sx, cy = sy; onBoard(cx, cy) && stoneAt(board, cx, cy) === symbol; cx += dx, cy += dy) {
      run.push(squareName(cx, cy));
    }
    if (run.length >= 5) {
      lines.push(run);
    }
  }
  return lines;
}

/** True when `v` is a whole number of a square's column or row. */
function isCoordinate(v) {
  return Number.isInteger(v) && v >= 0 && v < SIZE;
}

const Gomoku = {
  name: 'gomoku',
  minPlayers: 2,
  maxPlayers: 2,

  setup: (_context, setupData) => ({
    board: Array.from({ length: SIZE }, () => '.'.repeat(SIZE)),
    opening: setupData && setupData.opening === 'free' ? 'free' : 'center',
    lastMove: null,
    moveCount: 0,
    lines: [],
    winner: null,
  }),

  // One stone per turn: the turn passes as soon as the move is made.
  turn: { minMoves: 1, maxMoves: 1 },

  moves: {
    play: ({ G, ctx }, move) => {
      if (move === null || typeof move !== 'object' || Object.keys(move).length !== 2) {
        return INVALID_MOVE;
      }
      const { x, y } = move;
      if (!isCoordinate(x) || !isCoordinate(y)) {
        return INVALID_MOVE;
      }
      if (stoneAt(G.board, x, y) !== '.') {
        return INVALID_MOVE;
      }
      if (G.moveCount === 0 && G.opening === 'center' && (x !== CENTRE || y !== CENTRE)) {
        return INVALID_MOVE;
      }
      // Only the current player is active, so the mover is ctx.currentPlayer.
      const symbol = SYMBOLS[Number(ctx.currentPlayer)];
      const row = SIZE - 1 - y;
      G.board[row] = G.board[row].slice(0, x) + symbol + G.board[row].slice(x + 1);
      G.lastMove = squareName(x, y);
      G.moveCount += 1;
      G.lines = winningLines(G.board, x, y, symbol);
      if (G.lines.length > 0) {
        G.winner = ctx.currentPlayer;
      }
    },
  },

  endIf: ({ G }) => {
    if (G.winner !== null) {
      return { winner: G.winner, lines: G.lines };
    }
    if (G.moveCount === SIZE * SIZE) {
      return { draw: true };
    }
    return undefined;
  },
};

module.exports = { Gomoku, SIZE, squareName };
