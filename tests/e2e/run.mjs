// End-to-end tests of spelbord's browser client in real headless Chromium (Debian's `chromium`,
// driven by playwright-core; never a browser download). Each scenario opens fresh browser
// contexts (each its own localStorage, so its own player) against a running server, plays as
// people would, and fails on any console error, page error, failed request or HTTP error.
//
//   node tests/e2e/run.mjs http://127.0.0.1:8080 [scenario ...]
//
// `cargo test --test browser` starts a server with its own database and runs this (see
// README.md beside this file). Environment:
//   CHROMIUM             the browser binary (default: /usr/bin/chromium, else `chromium` on PATH)
//   E2E_ARTIFACTS        where screenshots and the summary go (default: target/e2e)
//   E2E_DOCS_SCREENSHOTS set to 1 to also write the README's pictures to docs/screenshots/
//
// The last line is "e2e: N passed, N failed"; the exit code is 0 only when all passed.

import { chromium } from "playwright-core";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const [base, ...only] = process.argv.slice(2);
if (!base || !/^https?:\/\/[^/]+$/.test(base.replace(/\/$/, ""))) {
  console.error("usage: node tests/e2e/run.mjs <base-url, e.g. http://127.0.0.1:8080> [scenario ...]");
  process.exit(2);
}
const BASE = base.replace(/\/$/, "");
const ARTIFACTS = resolve(process.env.E2E_ARTIFACTS || join(REPO, "target", "e2e"));
const DOCS_SHOTS = process.env.E2E_DOCS_SCREENSHOTS === "1" ? join(REPO, "docs", "screenshots") : null;
/** Longest any single wait may take (a guard against hangs, not a measure of speed). */
const WAIT_MS = 15_000;
/** Longest the whole suite may take before it gives up. */
const SUITE_MS = 10 * 60_000;

function findChromium() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  if (existsSync("/usr/bin/chromium")) return "/usr/bin/chromium";
  try {
    return execFileSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], { encoding: "utf8" }).trim();
  } catch {
    return "";
  }
}

// ------------------------------------------------------------------ the harness

/**
 * Runs in every page before its own scripts: notes the time of each click or tap on a board
 * square, and the time each Gomoku point gets a stone in the DOM, so that the latency from a
 * click on one page to the stone on the opponent's can be measured (both pages' clocks are the
 * same machine's: `performance.timeOrigin + performance.now()`).
 */
function instrument() {
  const now = () => performance.timeOrigin + performance.now();
  window.__e2e = { clicks: [], seen: [], arrived: [] };
  // Each `moved` event's arrival, before the page handles it (a listener added in the
  // constructor runs before the page's own `onmessage`).
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        const t = now();
        if (typeof event.data === "string" && event.data.includes('"moved"')) {
          try {
            const message = JSON.parse(event.data);
            if (message.type === "moved" && message.move && message.move.at) window.__e2e.arrived.push({ at: message.move.at, t });
          } catch { /* not ours to judge */ }
        }
      });
    }
  };
  document.addEventListener("click", (event) => {
    const square = event.target.closest && event.target.closest("[data-at], [data-sq]");
    if (square) window.__e2e.clicks.push({ at: square.dataset.at || square.dataset.sq, t: now() });
  }, true);
  new MutationObserver((records) => {
    const t = now();
    for (const record of records) {
      const stone = record.target.dataset.stone;
      if (stone && stone !== ".") window.__e2e.seen.push({ at: record.target.dataset.at, stone, t });
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-stone"] });
}

/** One scenario's browser contexts, watched for errors, and its screenshots. */
class Session {
  constructor(browser, name) {
    this.browser = browser;
    this.name = name;
    this.pages = [];
    this.problems = [];
    this.closing = false;
  }

  /** A fresh browser profile (its own player) with one page; `options` as for newContext. */
  async player(label, options = {}) {
    const context = await this.browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
    await context.addInitScript(instrument);
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    const problem = (text) => { if (!this.closing) this.problems.push(`${label}: ${text}`); };
    page.on("console", (msg) => { if (msg.type() === "error") problem(`console error: ${msg.text()}`); });
    page.on("pageerror", (err) => problem(`page error: ${err.message}`));
    page.on("requestfailed", (req) => problem(`request failed: ${req.url()} ${req.failure() ? req.failure().errorText : ""}`));
    page.on("response", (res) => { if (res.status() >= 400) problem(`HTTP ${res.status()}: ${res.url()}`); });
    page.on("dialog", (dialog) => dialog.accept());
    page.label = label;
    this.pages.push(page);
    return page;
  }

  /** Saves a screenshot of `page` as an artifact: `{scenario}-{label}-{what}.png`. */
  async shot(page, what) {
    const file = join(ARTIFACTS, `${this.name}-${page.label}-${what}.png`.replace(/[^a-zA-Z0-9.-]+/g, "-"));
    await page.screenshot({ path: file, fullPage: true });
  }

  /** With E2E_DOCS_SCREENSHOTS=1, saves the README's picture of a game: its board and status. */
  async docShot(page, name) {
    if (DOCS_SHOTS) await page.locator("main.play").screenshot({ path: join(DOCS_SHOTS, `${name}.png`) });
  }

  async close() {
    this.closing = true;
    for (const page of this.pages) await page.context().close().catch(() => {});
  }
}

const until = (page, fn, arg) => page.waitForFunction(fn, arg, { timeout: WAIT_MS });

/** Fails the scenario with `message` unless `ok`. */
function check(ok, message) {
  if (!ok) throw new Error(message);
}

/** Creates a table over the API and returns its id. */
async function createTable(game, settings) {
  const response = await fetch(`${BASE}/api/tables`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ game, settings }),
  });
  const body = await response.text();
  check(response.status === 201, `POST /api/tables answered ${response.status}: ${body}`);
  return JSON.parse(body).id;
}

/** Opens a table's page and waits until it is connected and shows the seats. */
async function open(page, path) {
  await page.goto(`${BASE}${path}`);
  await until(page, () => document.getElementById("conn").hidden && document.querySelector("#seats li"));
}

/** Sits down as `name` in the seat of `role` (X, O, white, A-black, …). */
async function sit(page, name, role) {
  await page.fill("#name", name);
  await page.click(`#seats button[aria-label="Sit here as ${role}"]`);
  await until(page, () => document.querySelector("#seats .badge"));
}

/** Waits until it is this page's turn. */
const myTurn = (page) => until(page, () => document.getElementById("turn").classList.contains("mine"));

/** The middle of the element `selector` on `page`, in page pixels. */
async function centre(page, selector) {
  const box = await page.locator(selector).boundingBox();
  check(box, `${selector} is shown`);
  return [box.x + box.width / 2, box.y + box.height / 2];
}

/**
 * Drags with the mouse from the element `from` to the element `to` (a selector, or a function
 * called once the drag has begun, which returns it); `during(page)` runs mid-drag.
 */
async function drag(page, from, to, during = async () => {}) {
  const [x, y] = await centre(page, from);
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + 12, y + 12, { steps: 3 }); // past the 6 px that tell a drag from a click
  await during(page);
  const target = typeof to === "function" ? await to(page) : to;
  const [tx, ty] = await centre(page, target);
  await page.mouse.move(tx, ty, { steps: 8 });
  await page.mouse.up();
}

/**
 * A new `game` table (seats chosen) with two players on pages of their own, Ann in the seat of
 * `first` and Bo in that of `second`; waits until the game has started for Ann.
 */
async function twoSeated(s, game, [first, second], settings = {}) {
  const id = await createTable(game, { seating: "chosen", ...settings });
  const ann = await s.player(first);
  const bo = await s.player(second);
  await open(ann, `/t/${id}`);
  await open(bo, `/t/${id}`);
  await sit(ann, "Ann", first);
  await sit(bo, "Bo", second);
  await until(ann, () => document.getElementById("turn").textContent && !/Waiting/.test(document.getElementById("turn").textContent));
  return [ann, bo];
}

/** Waits until the Gomoku point `at` shows `stone` on every page given. */
async function stoneOn(pages, at, stone) {
  for (const page of pages) {
    await until(page, ([at, stone]) => {
      const cell = document.querySelector(`#board .cell[data-at="${at}"]`);
      return cell && cell.dataset.stone === stone;
    }, [at, stone]);
  }
}

/**
 * For each click on `mover`: the time to the stone appearing on `watcher` (`total`), split
 * into the time until `watcher` received the `moved` event (`arrived`) and the time it took
 * to show it (`shown`), in ms.
 */
async function clickToSeen(mover, watcher) {
  const { clicks } = await mover.evaluate(() => window.__e2e);
  const { seen, arrived } = await watcher.evaluate(() => window.__e2e);
  return clicks.flatMap((click) => {
    const shown = seen.find((s) => s.at === click.at && s.t >= click.t);
    const came = arrived.find((s) => s.at === click.at && s.t >= click.t);
    return shown && came ? [{ total: shown.t - click.t, arrived: came.t - click.t, shown: shown.t - came.t }] : [];
  });
}

/** Nearest-rank percentile of `values` (0 < p ≤ 100). */
function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

// ------------------------------------------------------------------ the scenarios

const summary = { base: BASE, scenarios: [], latency: null };

/**
 * Gomoku: one player creates a table on the home page; a second opens its share link and a
 * third watches. They sit and play to five in a row (29 plies, X wins with H8–L8); the winning
 * line is marked on all three pages. Measures click-to-opponent-sees over the game.
 */
async function gomoku(s) {
  const a = await s.player("ann");
  const b = await s.player("bo");
  const watcher = await s.player("spectator");
  await a.goto(`${BASE}/`);
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
  await p.goto(`${BASE}/`);
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

const SCENARIOS = {
  gomoku: ["Gomoku: two players and a spectator on one link, five in a row", gomoku],
  "lines-of-action": ["Lines of Action: a move by two clicks, one by drag and drop", linesOfAction],
  krux: ["Krux: a turn part by part", krux],
  bughouse: ["Bughouse: a capture on board A is dragged by the partner from the pocket onto board B", bughouse],
  reload: ["a reload mid-game keeps the seat", reload],
  phone: ["a 390×844 touch screen plays the computer: clocks in view, tap and tap again", phone],
};

// ------------------------------------------------------------------ main

for (const name of only) {
  if (!(name in SCENARIOS)) {
    console.error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(", ")}`);
    process.exit(2);
  }
}
mkdirSync(ARTIFACTS, { recursive: true });
if (DOCS_SHOTS) mkdirSync(DOCS_SHOTS, { recursive: true });
const executablePath = findChromium();
if (!executablePath) {
  console.error("e2e: no Chromium found: apt-get install chromium, or set CHROMIUM");
  process.exit(2);
}
const guard = setTimeout(() => {
  console.error(`e2e: the suite took longer than ${SUITE_MS / 1000} s; giving up`);
  process.exit(1);
}, SUITE_MS);

const started = performance.now();
const browser = await chromium.launch({
  executablePath,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run"],
});
console.log(`e2e: ${executablePath} (${browser.version()}) against ${BASE}; artifacts in ${ARTIFACTS}`);
let passed = 0;
let failed = 0;
for (const [name, [title, scenario]] of Object.entries(SCENARIOS)) {
  if (only.length && !only.includes(name)) continue;
  const session = new Session(browser, name);
  const t0 = performance.now();
  let error = null;
  try {
    await scenario(session);
  } catch (err) {
    error = err;
  }
  if (error) {
    // What every page showed when it failed.
    for (const page of session.pages) await session.shot(page, "failed").catch(() => {});
  }
  const problems = [...session.problems];
  await session.close();
  const seconds = (performance.now() - t0) / 1000;
  const ok = !error && problems.length === 0;
  if (ok) passed += 1;
  else failed += 1;
  summary.scenarios.push({ name, ok, seconds: Number(seconds.toFixed(2)) });
  console.log(`e2e: ${ok ? "ok  " : "FAIL"} ${name} — ${title} (${seconds.toFixed(1)} s)`);
  if (error) console.log(`  ${String(error.stack || error).split("\n").slice(0, 6).join("\n  ")}`);
  for (const problem of problems) console.log(`  ${problem}`);
}
await browser.close();
clearTimeout(guard);
summary.seconds = Number(((performance.now() - started) / 1000).toFixed(1));
writeFileSync(join(ARTIFACTS, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
console.log(`e2e: ${summary.seconds} s in all; summary in ${join(ARTIFACTS, "summary.json")}`);
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
