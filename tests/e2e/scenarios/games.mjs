// The games played through their pages: every game by two to four browser contexts, a
// reload, a phone. Each entry is [title, scenario(session)].

import {
  BASE, Session, until, check, createTable, open, sit, myTurn, centre, drag, twoSeated, stoneOn,
  clickToSeen, percentile, summary,
} from "../harness.mjs";


/**
 * Gomoku: one player creates a table on the home page; a second opens its share link and a
 * third watches. They sit and play to five in a row (29 plies, X wins with H8–L8); the winning
 * line is marked on all three pages. Measures click-to-opponent-sees over the game.
 */
async function gomoku(s) {
  const a = await s.player("ann");
  const b = await s.player("bo");
  const watcher = await s.player("spectator");
  await a.goto(`${BASE}/new`);
  await a.check('input[name="game"][value="gomoku"]');
  await a.check('input[name="seating"][value="chosen"]');
  await Promise.all([a.waitForURL(/\/t\//), a.click("#create-button")]);
  await until(a, () => document.getElementById("conn").hidden && document.querySelector("#seats li"));
  const link = new URL(await a.inputValue("#share-link"));
  check(link.pathname === new URL(a.url()).pathname, `the share link ${link} is the table's address ${a.url()}`);
  await open(b, link.pathname);
  await open(watcher, link.pathname);
  await sit(a, "Ann", "X");
  await sit(b, "Bo", "O");
  await myTurn(a);

  // X: the centre, ten scattered stones, then I8–L8 for five with H8. O: fourteen scattered.
  const x = ["H8", "B2", "D2", "F2", "K2", "M2", "B14", "D14", "F14", "K14", "M14", "I8", "J8", "K8", "L8"];
  const o = ["B4", "D4", "F4", "K4", "M4", "B12", "D12", "F12", "K12", "M12", "O1", "O15", "A15", "A1"];
  for (let ply = 0; ply < x.length + o.length; ply += 1) {
    const [mover, other, at, stone] = ply % 2 === 0 ? [a, b, x[ply / 2], "X"] : [b, a, o[(ply - 1) / 2], "O"];
    await myTurn(mover);
    await mover.click(`#board .cell[data-at="${at}"]`);
    await stoneOn([other, mover], at, stone);
  }
  const five = ["H8", "I8", "J8", "K8", "L8"];
  for (const page of [a, b, watcher]) {
    await until(page, () => /Game over/.test(document.getElementById("turn").textContent));
    const marked = await page.$$eval("#board .cell.win", (cells) => cells.map((c) => c.dataset.at).sort());
    check(JSON.stringify(marked) === JSON.stringify(five), `${page.label} marks the winning line: ${marked}`);
  }
  const turn = await watcher.textContent("#turn");
  check(/won|wins/i.test(turn), `the spectator reads the result: ${turn}`);

  const moves = [...await clickToSeen(a, b), ...await clickToSeen(b, a)];
  check(moves.length === x.length + o.length, `a latency for every move (${moves.length})`);
  const figures = (key) => {
    const values = moves.map((m) => m[key]);
    return { median_ms: Number(percentile(values, 50).toFixed(1)), p95_ms: Number(percentile(values, 95).toFixed(1)),
      max_ms: Number(Math.max(...values).toFixed(1)) };
  };
  summary.latency = { moves: moves.length, ...figures("total"), arrived: figures("arrived"), shown: figures("shown") };
  const line = (f) => `median ${f.median_ms} ms, p95 ${f.p95_ms} ms, max ${f.max_ms} ms`;
  console.log(`  click to opponent sees: ${line(summary.latency)} over ${moves.length} moves` +
    ` (event arrives: ${line(summary.latency.arrived)}; page shows it: ${line(summary.latency.shown)})`);
  await s.shot(a, "five");
  await s.shot(b, "five");
  await s.shot(watcher, "five");
  await s.docShot(a, "gomoku");
}

/**
 * Lines of Action: a move by two clicks (a piece, then one of the destinations the page
 * dots), answered by the opponent with drag and drop (the destinations dotted mid-drag).
 */
async function linesOfAction(s) {
  const [black, white] = await twoSeated(s, "lines-of-action", ["black", "white"]);
  await myTurn(black);
  await black.click('#loa-board .sq[data-sq="b1"]');
  const hints = await black.$$eval("#loa-board .sq.hint", (sqs) => sqs.map((q) => q.dataset.sq).sort());
  check(await black.$eval('#loa-board .sq[data-sq="b1"]', (q) => q.classList.contains("selected")), "b1 is selected");
  check(hints.includes("b3"), `the legal destinations of b1 are dotted: ${hints}`);
  await black.click('#loa-board .sq[data-sq="b3"]');
  await until(white, () => {
    const at = (sq) => document.querySelector(`#loa-board .sq[data-sq="${sq}"]`).dataset.piece;
    return at("b3") === "b" && at("b1") === undefined;
  });
  await myTurn(white);
  let to = null;
  await drag(white, '#loa-board .sq[data-sq="a2"]', async () => `#loa-board .sq[data-sq="${to}"]`, async () => {
    await until(white, () => document.querySelector("#loa-board .sq.drag-from") && document.querySelector("#loa-board .sq.hint"));
    to = await white.$eval("#loa-board .sq.hint", (q) => q.dataset.sq);
  });
  await until(black, (to) => document.querySelector(`#loa-board .sq[data-sq="${to}"]`).dataset.piece === "w", to);
  await until(black, () => document.querySelector('#loa-board .sq[data-sq="a2"]').dataset.piece === undefined);
  await myTurn(black);
  await s.shot(black, "after-two-moves");
  await s.docShot(black, "lines-of-action");
}

/**
 * Krux: white's first turn part by part (choose the blue ring, step c1–c2, step c2–c3, end
 * the turn); the opponent sees each part and then piece 2 in turn.
 */
async function krux(s) {
  const [white, black] = await twoSeated(s, "krux", ["white", "black"]);
  await myTurn(white);
  const pieceOn = (page, sq, number) => until(page, ([sq, number]) => {
    const disc = document.querySelector(`#krux-board .sq[data-sq="${sq}"] .kpiece`);
    return disc && disc.textContent === number;
  }, [sq, number]);
  await white.click('#game-panel button[aria-label="Choose the blue ring (carrier)"]');
  await until(black, () => document.querySelector('#krux-board .sq[data-sq="c1"] .kpiece.ring-blue'));
  for (const sq of ["c2", "c3"]) {
    await until(white, (sq) => document.querySelector(`#krux-board .sq[data-sq="${sq}"]`).classList.contains("hint"), sq);
    await white.click(`#krux-board .sq[data-sq="${sq}"]`);
    await pieceOn(black, sq, "1");
  }
  await s.shot(white, "two-steps");
  await white.click('#game-panel button[aria-label="End the turn"]');
  await myTurn(black);
  await until(black, () => /Piece 2 \(black\) is in turn/.test(document.getElementById("turn").textContent));
  const parts = await black.$eval("#game-panel", (panel) => panel.innerText);
  check(/blue ring, step to c2, step to c3, end/.test(parts), `the opponent reads the turn's parts: ${parts}`);
  await s.shot(black, "piece-2-in-turn");
  await s.docShot(black, "krux");
}

/**
 * Bughouse with four players: A-white takes a pawn on board A (by drag and drop); it appears
 * in the partner's (B-black's) pocket on board B; chosen there, its legal drops are dotted
 * (the server's answer), and B-black drags it onto d5.
 */
async function bughouse(s) {
  const id = await createTable("bughouse", { seating: "chosen", time_control: { kind: "sudden_death", base_seconds: 300 } });
  const ann = await s.player("ann-A-white");
  const bo = await s.player("bo-A-black");
  const cy = await s.player("cy-B-white");
  const dee = await s.player("dee-B-black");
  for (const page of [ann, bo, cy, dee]) await open(page, `/t/${id}`);
  await sit(ann, "Ann", "A-white");
  await sit(bo, "Bo", "A-black");
  await sit(cy, "Cy", "B-white");
  await sit(dee, "Dee", "B-black");
  await until(ann, () => /Board A: your move/.test(document.getElementById("turn").textContent));
  const move = async (page, board, from, to) => {
    await page.click(`#board-${board} .sq[data-sq="${from}"]`);
    await page.click(`#board-${board} .sq[data-sq="${to}"]`);
  };
  const pieceOn = (page, board, sq, colour) => until(page, ([board, sq, colour]) =>
    document.querySelector(`#board-${board} .sq[data-sq="${sq}"] .cp.${colour}`), [board, sq, colour]);
  await move(ann, "A", "e2", "e4");
  await pieceOn(bo, "A", "e4", "white");
  await move(bo, "A", "d7", "d5");
  await pieceOn(ann, "A", "d5", "black");
  await drag(ann, '#board-A .sq[data-sq="e4"]', '#board-A .sq[data-sq="d5"]'); // takes the pawn: it goes to Dee, Ann's partner
  await pieceOn(dee, "A", "d5", "white");
  const pawn = '.pocket[aria-label="B-black\'s pocket"] button.pk[data-piece="P"]';
  await until(dee, (pawn) => { const pk = document.querySelector(pawn); return pk && !pk.disabled; }, pawn);
  await until(cy, (pawn) => document.querySelector(pawn), pawn); // the opponents see it too
  // Board B: Cy (white) moves first, then Dee drops the pawn on d5.
  await move(cy, "B", "e2", "e4");
  await pieceOn(dee, "B", "e4", "white");
  await until(dee, () => /Board B: your move/.test(document.getElementById("turn").textContent));
  await dee.click(pawn);
  await until(dee, (pawn) => document.querySelector(pawn).getAttribute("aria-pressed") === "true", pawn);
  await until(dee, () => document.querySelector('#board-B .sq.hint[data-sq="d5"]'));
  const drops = await dee.$$eval("#board-B .sq.hint", (sqs) => sqs.map((q) => q.dataset.sq));
  // Every empty square but those of ranks 1 and 8: e2 and ranks 3–6 less e4, after 1. e4.
  check(drops.length === 32 && drops.every((sq) => /[2-7]$/.test(sq)), `a pawn may drop on the 32 empty squares of ranks 2–7: ${drops}`);
  await s.docShot(dee, "bughouse"); // the pawn from board A chosen in Dee's pocket, its drops dotted
  await drag(dee, pawn, '#board-B .sq[data-sq="d5"]');
  for (const page of [ann, bo, cy, dee]) await pieceOn(page, "B", "d5", "black");
  await until(dee, (pawn) => !document.querySelector(pawn), pawn);
  await until(cy, () => /Board B: your move/.test(document.getElementById("turn").textContent));
  for (const page of [ann, dee]) await s.shot(page, "after-the-drop");
}

/** A reload mid-game keeps the seat: the page says hello with the stored token. */
async function reload(s) {
  const [a, b] = await twoSeated(s, "gomoku", ["X", "O"]);
  await myTurn(a);
  await a.click('#board .cell[data-at="H8"]');
  await stoneOn([b], "H8", "X");
  await b.reload();
  await until(b, () => document.getElementById("conn").hidden && document.querySelector("#seats .badge"));
  await myTurn(b);
  const seats = await b.innerText("#seats");
  check(/Bo[\s\S]*you/.test(seats), `after the reload the seat is still ours: ${seats}`);
  await stoneOn([b], "H8", "X");
  await b.click('#board .cell[data-at="H9"]');
  await stoneOn([a, b], "H9", "O");
  await myTurn(a);
  await s.shot(b, "after-reload");
}

/**
 * A phone (390 × 844, touch): play the computer with a clock from the home page; the board
 * and both players' clocks are in view; a tap chooses a point (shown in a loupe) and a second
 * tap places the stone; the board fits the screen's width.
 */
async function phone(s) {
  const p = await s.player("phone", { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  await p.goto(`${BASE}/new`);
  await p.check('input[name="opponent"][value="computer"]');
  await p.check('input[name="strength"][value="random"]');
  await p.check('input[name="tc"][value="sudden_death"]');
  await Promise.all([p.waitForURL(/\/t\//), p.tap("#create-button")]);
  await until(p, () => document.querySelector("#seats .badge") && document.querySelector("#board .cell"));
  await myTurn(p);
  const stones = () => p.$$eval('#board .cell:not([data-stone="."])', (cells) => cells.length);
  const before = await stones();
  // The centre, or the first free point around it.
  const at = await p.evaluate(() => ["H8", "H9", "I8", "G8", "H7", "I9", "G7"].find((c) =>
    document.querySelector(`#board .cell[data-at="${c}"]`).dataset.stone === "."));
  // The status line, the board and both clocks are on the screen together.
  const inView = () => p.evaluate(() => ({
    scrollY: Math.round(scrollY), innerHeight,
    ...Object.fromEntries(["turn", "board", "bar-top", "bar-bottom"].map((id) => {
      const box = document.getElementById(id).getBoundingClientRect();
      return [id, [Math.round(box.top), Math.round(box.bottom)]];
    })),
    clocks: document.querySelectorAll("#bar-top .clock, #bar-bottom .clock").length,
  }));
  const allInView = (v) => v.clocks === 2 &&
    ["turn", "board", "bar-top", "bar-bottom"].every((id) => v[id][1] > v[id][0] && v[id][0] >= 0 && v[id][1] <= v.innerHeight);
  /** Waits (a while: the page may be scrolling smoothly) for all of them to be in view. */
  async function checkInView(when) {
    let view = await inView();
    for (const deadline = Date.now() + 3000; !allInView(view) && Date.now() < deadline; view = await inView()) await p.waitForTimeout(100);
    check(allInView(view), `${when}, the status line, the board and both clocks are in view: ${JSON.stringify(view)}`);
  }
  await checkInView("at the start");
  await s.shot(p, "clocks-in-view");
  // The first tap only chooses the point: a loupe shows it and the status line asks again.
  await p.tap(`#board .cell[data-at="${at}"]`);
  await until(p, (at) => !document.querySelector(".loupe").hidden &&
    document.getElementById("turn").textContent.includes(`Tap ${at} again`), at);
  check(await p.$eval(`#board .cell[data-at="${at}"]`, (c) => c.dataset.stone === "."), "one tap places no stone");
  await p.tap(`#board .cell[data-at="${at}"]`);
  await until(p, (at) => document.querySelector(`#board .cell[data-at="${at}"]`).dataset.stone !== ".", at);
  await until(p, (n) => document.querySelectorAll('#board .cell:not([data-stone="."])').length >= n + 2, before);
  await myTurn(p);
  await checkInView("after a move each"); // nothing else (e.g. the move list) scrolls the page away
  const width = await p.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: innerWidth,
    board: Math.round(document.getElementById("board").getBoundingClientRect().right) }));
  check(width.board <= width.screen, `the board fits the phone's width: ${JSON.stringify(width)}`);
  await s.shot(p, "after-a-tap");
}

export default {
  gomoku: ["Gomoku: two players and a spectator on one link, five in a row", gomoku],
  "lines-of-action": ["Lines of Action: a move by two clicks, one by drag and drop", linesOfAction],
  krux: ["Krux: a turn part by part", krux],
  bughouse: ["Bughouse: a capture on board A is dragged by the partner from the pocket onto board B", bughouse],
  reload: ["a reload mid-game keeps the seat", reload],
  phone: ["a 390×844 touch screen plays the computer: clocks in view, tap and tap again", phone],
};

