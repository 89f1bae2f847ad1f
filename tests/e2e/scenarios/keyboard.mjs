// Keyboard play and the boards' screen-reader labels (issue 29, item 4), and two Gomoku defects
// found while trying it: stones played blind during a replay (defect 1) and the flipped board's
// upside-down stones and board-order arrow keys (defect 10).
//
// The boards are one tab stop each (input.js `keyboardGrid`): Tab reaches the board, the arrow
// keys move the focus as the board is seen, Enter or Space is a click on the focused point or
// square. Every move here is made with the keyboard alone; only sitting down uses the mouse.

/** "H8" → [column 0.., row number 1..] on a Gomoku board. */
const point = (at) => [at.charCodeAt(0) - 65, Number(at.slice(1))];
/** "e4" → [column 0.., row number 1..] on a square board. */
const square = (sq) => [sq.charCodeAt(0) - 97, Number(sq.slice(1))];

/** The focused element's square name (`data-at` or `data-sq`), or null. */
const focusedName = (page) => page.evaluate(() => {
  const node = document.activeElement;
  return node && node.dataset ? node.dataset.at || node.dataset.sq || null : null;
});

/**
 * Presses Tab (from wherever the focus is) until a cell of `board` has the focus, and checks
 * that the board is one tab stop: one of its cells has tabindex 0, and Tab from it leaves it.
 */
async function tabToBoard(h, page, board) {
  for (let i = 0; i < 120; i += 1) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((board) => document.activeElement && document.activeElement.closest(board) !== null &&
      document.activeElement.matches("[data-at], [data-sq]"), board)) {
      const stops = await page.$$eval(`${board} [tabindex="0"]`, (cells) => cells.length);
      h.check(stops === 1, `${page.label}: the board is one tab stop (${stops} cells have tabindex 0)`);
      return focusedName(page);
    }
  }
  throw new Error(`${page.label}: Tab never reached ${board}`);
}

/**
 * Moves the focus with the arrow keys from the focused cell to `target`: `coords` turns a name
 * into [column, row number]; `flipped` means the board is seen half a turn round, so that
 * "up on the screen" is towards row 1.
 */
async function arrowTo(h, page, target, coords, flipped = false) {
  const [tc, tr] = coords(target);
  for (let i = 0; i < 40; i += 1) {
    const at = await focusedName(page);
    h.check(at, `${page.label}: the focus is on the board`);
    if (at === target) return;
    const [c, r] = coords(at);
    let key = tc > c ? "ArrowRight" : tc < c ? "ArrowLeft" : tr > r ? "ArrowUp" : "ArrowDown";
    if (flipped) key = { ArrowRight: "ArrowLeft", ArrowLeft: "ArrowRight", ArrowUp: "ArrowDown", ArrowDown: "ArrowUp" }[key];
    await page.keyboard.press(key);
  }
  throw new Error(`${page.label}: the arrow keys did not reach ${target} (at ${await focusedName(page)})`);
}

/** The messages box's text. */
const messages = (page) => page.evaluate(() => document.getElementById("log").textContent);

/** The screen-reader label of the Gomoku point `at`. */
const pointLabel = (page, at) => page.getAttribute(`#board .cell[data-at="${at}"]`, "aria-label");

/**
 * The stone's total rotation on the screen, in degrees (0–359): the sum of the rotations of the
 * stone and every element around it (the flipped board is turned with a CSS transform).
 */
const stoneTurn = (page, at) => page.$eval(`#board .cell[data-at="${at}"] .stone`, (stone) => {
  let degrees = 0;
  for (let node = stone; node && node !== document.documentElement; node = node.parentElement) {
    const transform = getComputedStyle(node).transform;
    if (transform && transform !== "none") {
      const m = new DOMMatrixReadOnly(transform);
      degrees += Math.atan2(m.b, m.a) * 180 / Math.PI;
    }
  }
  return Math.round(((degrees % 360) + 360) % 360);
});

/** Whether it is `page`'s turn now, as the status line says. */
const isMyTurn = (page) => page.evaluate(() => document.getElementById("turn").classList.contains("mine"));

export default {
  /**
   * A whole Gomoku game with the keyboard alone, by both players: Tab to the board, the arrow
   * keys, Enter (X) or Space (O), to five in a row (the `gomoku` scenario's 29 plies). The board
   * and its points are labelled; a key on a taken point is refused as a click is (O's page
   * prefers reduced motion: its red flash does not fade).
   */
  "keyboard-gomoku": ["Gomoku played to five with the keyboard alone by both players; the board and its points labelled", async (s, h) => {
    const id = await h.createTable("gomoku", { seating: "chosen" });
    const x = await s.player("x");
    const o = await s.player("o", { reducedMotion: "reduce" });
    await h.open(x, `/t/${id}`);
    await h.open(o, `/t/${id}`);
    await h.sit(x, "Ann", "X");
    await h.sit(o, "Bo", "O");
    const boardLabel = await x.getAttribute("#board", "aria-label");
    h.check(boardLabel === "Gomoku board, 15 by 15", `the board is labelled: ${boardLabel}`);

    const xs = ["H8", "B2", "D2", "F2", "K2", "M2", "B14", "D14", "F14", "K14", "M14", "I8", "J8", "K8", "L8"];
    const os = ["B4", "D4", "F4", "K4", "M4", "B12", "D12", "F12", "K12", "M12", "O1", "O15", "A15", "A1"];
    await h.myTurn(x);
    const first = await tabToBoard(h, x, "#board");
    h.check(first === "H8", `the board's tab stop is its centre at first: ${first}`);
    let tabbedO = false;
    for (let ply = 0; ply < xs.length + os.length; ply += 1) {
      const [mover, other, at, stone, key] = ply % 2 === 0 ? [x, o, xs[ply / 2], "X", "Enter"] : [o, x, os[(ply - 1) / 2], "O", " "];
      await h.myTurn(mover);
      if (mover === o && !tabbedO) {
        tabbedO = true;
        await tabToBoard(h, o, "#board");
      }
      await arrowTo(h, mover, at, point);
      await mover.keyboard.press(key);
      await h.stoneOn([other, mover], at, stone);
      // The focus stays on the point just played (the next move starts from there).
      h.check(await focusedName(mover) === at, `${mover.label}: the focus stays on ${at}`);
      if (ply === 0) {
        const label = await pointLabel(o, "H8");
        h.check(label === "H8, black stone (X), last move", `the point is labelled with its stone: ${label}`);
        h.check(await pointLabel(o, "G8") === "G8, empty", "an empty point is labelled empty");
      }
      if (ply === 1) {
        // O presses Space on a taken point (H8; X is to move, so it would be a premove):
        // refused on the spot, as a click is.
        await arrowTo(h, o, "H8", point);
        await o.keyboard.press(" ");
        await h.until(o, () => /H8 is taken/.test(document.getElementById("log").textContent));
        const timing = await o.$eval('#board .cell[data-at="H8"]', (cell) => cell.classList.contains("refused") && getComputedStyle(cell).animationTimingFunction);
        h.check(timing === "steps(1, end)" || timing === "steps(1)", `with reduced motion the refusal does not fade: ${timing}`);
        await arrowTo(h, o, os[0], point);
      }
    }
    const five = ["H8", "I8", "J8", "K8", "L8"];
    for (const page of [x, o]) {
      await h.until(page, () => /Game over/.test(document.getElementById("turn").textContent));
      const marked = await page.$$eval("#board .cell.win", (cells) => cells.map((c) => c.dataset.at).sort());
      h.check(JSON.stringify(marked) === JSON.stringify(five), `${page.label} marks the winning line: ${marked}`);
    }
    const label = await pointLabel(o, "L8");
    h.check(label === "L8, black stone (X), last move, winning line", `the winning stone's label: ${label}`);
    // Enter and Space each played exactly one stone: no key was taken twice.
    for (const page of [x, o]) {
      const stones = await page.$$eval('#board .cell:not([data-stone="."])', (cells) => cells.length);
      h.check(stones === xs.length + os.length, `${page.label}: ${stones} stones, one per key`);
    }
    // A key taken twice would also have been refused as "taken": X never was, O only on purpose.
    const refusals = async (page) => ((await messages(page)).match(/is taken/g) || []).length;
    h.check(await refusals(x) === 0, `X's keys were never taken twice: ${await messages(x)}`);
    h.check(await refusals(o) === 1, `O's keys were never taken twice: ${await messages(o)}`);
    await s.shot(o, "five");
  }],

  /**
   * Lines of Action with the keyboard alone: Black chooses b1 with Enter (it is labelled
   * selected, its destinations labelled and announced), moves the focus to b3 with the arrow
   * keys and plays it with Enter; White chooses a piece, drops the choice with Escape, chooses
   * a2 again with Space and plays it to c2.
   */
  "keyboard-lines-of-action": ["Lines of Action: two moves with the keyboard alone (Enter, arrows, Escape, Space); squares labelled", async (s, h) => {
    const [black, white] = await h.twoSeated(s, "lines-of-action", ["black", "white"]);
    const boardLabel = await black.getAttribute("#loa-board", "aria-label");
    h.check(boardLabel === "Lines of Action board, 8 by 8", `the board is labelled: ${boardLabel}`);
    await h.myTurn(black);
    await tabToBoard(h, black, "#loa-board");
    await arrowTo(h, black, "b1", square);
    const b1 = '#loa-board .sq[data-sq="b1"]';
    h.check(await black.getAttribute(b1, "aria-label") === "b1, black piece", `b1 is labelled: ${await black.getAttribute(b1, "aria-label")}`);
    await black.keyboard.press("Enter");
    await h.until(black, (b1) => document.querySelector(b1).classList.contains("selected"), b1);
    const selected = await black.getAttribute(b1, "aria-label");
    h.check(selected === "b1, black piece, selected", `the chosen piece is labelled selected: ${selected}`);
    const b3 = await black.getAttribute('#loa-board .sq[data-sq="b3"]', "aria-label");
    h.check(b3 === "b3, empty, legal destination", `a destination is labelled: ${b3}`);
    await h.until(black, () => /b1 selected: \d+ legal moves?\./.test(document.getElementById("announcer")?.textContent || ""));
    await arrowTo(h, black, "b3", square);
    await black.keyboard.press("Enter");
    await h.until(white, () => {
      const at = (sq) => document.querySelector(`#loa-board .sq[data-sq="${sq}"]`).dataset.piece;
      return at("b3") === "b" && at("b1") === undefined;
    });
    h.check(await focusedName(black) === "b3", "Black's focus stays on b3");

    await h.myTurn(white);
    await tabToBoard(h, white, "#loa-board");
    await arrowTo(h, white, "a3", square);
    await white.keyboard.press("Enter");
    await h.until(white, () => document.querySelector('#loa-board .sq[data-sq="a3"]').classList.contains("selected"));
    await white.keyboard.press("Escape");
    await h.until(white, () => !document.querySelector("#loa-board .sq.selected"));
    await arrowTo(h, white, "a2", square);
    await white.keyboard.press(" ");
    await h.until(white, () => document.querySelector('#loa-board .sq[data-sq="a2"]').classList.contains("selected"));
    const hints = await white.$$eval("#loa-board .sq.hint", (sqs) => sqs.map((q) => q.dataset.sq).sort());
    h.check(JSON.stringify(hints) === JSON.stringify(["a8", "b1", "c2"]), `a2's destinations: ${hints}`);
    await arrowTo(h, white, "c2", square);
    await white.keyboard.press("Enter");
    await h.until(black, () => document.querySelector('#loa-board .sq[data-sq="c2"]').dataset.piece === "w" &&
      document.querySelector('#loa-board .sq[data-sq="a2"]').dataset.piece === undefined);
    await h.myTurn(black);
    const last = await black.getAttribute('#loa-board .sq[data-sq="c2"]', "aria-label");
    h.check(last === "c2, white piece, last move to here", `the last move is labelled: ${last}`);
    await s.shot(black, "after-two-moves");
  }],

  /**
   * Defect 1: during a replay (← on the page opens the game so far one move back) a click or
   * Enter on an empty point plays nothing in the live game; the page says why. Back at the
   * table the same point is played.
   */
  "defect-1-gomoku-replay": ["defect 1: during a replay a click or Enter on the Gomoku board plays no stone in the live game", async (s, h) => {
    const [x, o] = await h.twoSeated(s, "gomoku", ["X", "O"]);
    for (const [page, other, at, stone] of [[x, o, "H8", "X"], [o, x, "H9", "O"]]) {
      await h.myTurn(page);
      await page.click(`#board .cell[data-at="${at}"]`);
      await h.stoneOn([other], at, stone);
    }
    await h.myTurn(x);
    // ← (the focus not on the board) reviews the game being played, one move back.
    await x.evaluate(() => document.activeElement && document.activeElement.blur());
    await x.keyboard.press("ArrowLeft");
    await h.until(x, () => !document.getElementById("replay-bar").hidden &&
      document.querySelector('#board .cell[data-at="H9"]').dataset.stone === ".");
    // A click on an empty point, and Enter on another, during the replay.
    await x.click('#board .cell[data-at="G8"]');
    await x.focus('#board .cell[data-at="J8"]');
    await x.keyboard.press("Enter");
    await x.waitForTimeout(700); // time for a stone that was sent to come back
    for (const at of ["G8", "J8"]) {
      const stone = await o.getAttribute(`#board .cell[data-at="${at}"]`, "data-stone");
      h.check(stone === ".", `no stone was played on ${at} in the live game during the replay (the opponent sees ${stone})`);
    }
    const said = await messages(x);
    h.check(/replay/i.test(said), `the page says why nothing was played: ${said}`);
    const game = await (await fetch(`${h.BASE}/api/tables/${(new URL(x.url())).pathname.split("/")[2]}`)).json();
    h.check(game.state.move_count === 2, `the live game still has 2 moves: ${game.state.move_count}`);
    h.check(await isMyTurn(o) === false, "it is still X's turn");
    // Back at the table, G8 is played.
    await x.click("#replay-close");
    await h.until(x, () => document.getElementById("replay-bar").hidden);
    await x.click('#board .cell[data-at="G8"]');
    await h.stoneOn([o, x], "G8", "X");
  }],

  /**
   * Defect 10: on the flipped Gomoku board the arrow keys move the focus as the board is seen
   * (ArrowUp up the screen, ArrowRight to the right), and the stones are not turned upside
   * down (their shading's light stays at the top left: no rotation in total).
   */
  "defect-10-flipped-gomoku": ["defect 10: the flipped Gomoku board's arrow keys move as seen; its stones are not turned upside down", async (s, h) => {
    const [x, o] = await h.twoSeated(s, "gomoku", ["X", "O"]);
    await h.myTurn(x);
    await x.click('#board .cell[data-at="H8"]');
    await h.stoneOn([o, x], "H8", "X");
    h.check(await stoneTurn(o, "H8") === 0, "unflipped, the stone is upright");
    await o.click("#flip");
    await h.until(o, () => document.getElementById("board-area").classList.contains("flipped"));
    const turn = await stoneTurn(o, "H8");
    h.check(turn === 0, `flipped, the stone's shading is not turned round (total rotation ${turn}°)`);
    await o.focus('#board .cell[data-at="E5"]');
    const where = async () => {
      const box = await o.locator(`#board .cell[data-at="${await focusedName(o)}"]`).boundingBox();
      return [box.x, box.y];
    };
    const moves = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
    for (const [key, [dx, dy]] of Object.entries(moves)) {
      const before = await where();
      const name = await focusedName(o);
      await o.keyboard.press(key);
      const after = await where();
      const seen = [Math.sign(Math.round(after[0] - before[0])), Math.sign(Math.round(after[1] - before[1]))];
      h.check(seen[0] === dx && seen[1] === dy, `flipped, ${key} from ${name} moves the focus ${JSON.stringify([dx, dy])} on the screen, not ${JSON.stringify(seen)} (to ${await focusedName(o)})`);
    }
    // Home and End go to the ends of the row as seen: the left end of row 5 is O5 when flipped.
    await o.keyboard.press("Home");
    h.check(await focusedName(o) === "O5", `flipped, Home goes to the row's left end as seen: ${await focusedName(o)}`);
    await o.keyboard.press("End");
    h.check(await focusedName(o) === "A5", `flipped, End goes to the row's right end as seen: ${await focusedName(o)}`);
    // O plays by keyboard on the flipped board: from A5, up the screen is towards row 1.
    await h.myTurn(o);
    await arrowTo(h, o, "B3", point, true);
    await o.keyboard.press("Enter");
    await h.stoneOn([x, o], "B3", "O");
    h.check(await stoneTurn(o, "B3") === 0, "flipped, a new stone is upright too");
    await s.shot(o, "flipped");
  }],
};
