// The move list, the table's games and the replay (web/js/records.js), and game after game
// (web/js/series.js), in the page's language: Krux numbered by turns with the parts inside a
// turn (a person's turn part by part and a bot's whole turn alike), "1 move" / "1 drag" /
// "1 trekk", Bughouse numbered per board with each replayed move's clocks, and a series'
// countdown and standings in Swedish.
//
// The moves are sent over a second WebSocket the page opens with its own player token (the
// same player on two connections, as two tabs would be), so the scenarios depend on the
// protocol rather than on each board's buttons; the page under test shows what happened.

import { until, check, createTable, open } from "../harness.mjs";

/**
 * Opens a second connection to table `id` in `page` with the page's own token, so that what
 * it sends acts for the page's player. Returns `send(msg)`, `move(seat, move, n)`, `moved(n)`
 * (waits until `n` moves were seen in all) and `event(type, n)` (waits for the `n`th event of
 * that type); any `error` the server answers fails the scenario.
 */
async function sideSocket(page, id) {
  await until(page, () => localStorage.getItem("spelbord.token"));
  await page.evaluate(async (id) => {
    const ws = new WebSocket(`${location.origin.replace(/^http/, "ws")}/ws/tables/${id}`);
    window.__side = { ws, messages: [] };
    ws.addEventListener("message", (event) => window.__side.messages.push(JSON.parse(event.data)));
    await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
    ws.send(JSON.stringify({ type: "hello", token: localStorage.getItem("spelbord.token") }));
  }, id);
  const refused = async () => {
    const errors = await page.evaluate(() => window.__side.messages.filter((m) => m.type === "error"));
    check(errors.length === 0, `the server refused: ${JSON.stringify(errors)}`);
  };
  const side = {
    async send(msg) {
      await page.evaluate((msg) => window.__side.ws.send(JSON.stringify(msg)), msg);
    },
    /** Waits until `n` events of `type` were seen in all. */
    async event(type, n = 1) {
      await until(page, ([type, n]) => window.__side.messages.filter((m) => m.type === type).length >= n
        || window.__side.messages.some((m) => m.type === "error"), [type, n]);
      await refused();
    },
    async moved(n) {
      await until(page, (n) => window.__side.messages.filter((m) => m.type === "moved").length >= n
        || window.__side.messages.some((m) => m.type === "error"), n);
      await refused();
    },
    /** Sends a move for `seat` and waits until it is the `n`th move seen. */
    async move(seat, move, n) {
      await side.send({ type: "move", seat, move });
      await side.moved(n);
    },
  };
  await side.event("welcome");
  return side;
}

/** The lines of a move list: each item's whole text, and its move buttons' texts. */
const listLines = (page, selector) => page.$$eval(`${selector} > li`, (items) => items.map((li) => ({
  text: li.textContent.replace(/\s+/g, " ").trim(),
  buttons: [...li.querySelectorAll("button")].map((b) => b.textContent.trim()),
})));

/** The text of the table's games list once each game in it shows its count ("… 9 moves"). */
async function recordsText(page) {
  await until(page, () => {
    const lines = [...document.querySelectorAll("#records-list li span.muted")];
    return lines.length > 0 && lines.every((line) => /\d+\s+\p{L}+$/u.test(line.textContent.trim()));
  });
  return page.$$eval("#records-list li span.muted", (lines) => lines.map((line) => line.textContent.replace(/\s+/g, " ").trim()).join(" | "));
}

/** Opens the newest game of the games list in the replay view. */
async function openReplay(page) {
  await page.click("#records-list li:first-child button");
  await until(page, () => !document.getElementById("replay-bar").hidden && document.querySelector("#replay-moves li"));
}

/**
 * Krux: a person's turn sent part by part (ring, step, end) and the computer's whole turn are
 * one numbered line each, the parts inside it, in the live move list and in the replay; the
 * games list counts turns (issue 29, defect 4).
 */
async function kruxTurns(s) {
  const id = await createTable("krux", { seating: "chosen", bots: { 1: "easy" } });
  const ann = await s.player("ann");
  await open(ann, `/t/${id}`);
  const side = await sideSocket(ann, id);
  await side.send({ type: "sit", seat: 0, name: "Ann" });
  await side.event("game_started");
  await side.move(0, { part: "ring", ring: "blue" }, 1);
  await side.move(0, { part: "step", to: "c2" }, 2);
  await side.move(0, { part: "end" }, 3);
  // The computer (black, piece 2) plays its turn (which may end the game: a piece into the hole).
  await until(ann, () => window.__side.messages.some((m) => m.type === "moved" && m.seat === 1));
  await until(ann, () => document.querySelectorAll("#move-list button").length >= 4);
  const live = await listLines(ann, "#move-list");
  check(live.length === 2, `the live list has one line per turn (2 turns): ${JSON.stringify(live)}`);
  check(live[0].text.startsWith("1.") && JSON.stringify(live[0].buttons) === JSON.stringify(["ring blue", "step c2", "end"]),
    `turn 1 is Ann's three parts, numbered once: ${JSON.stringify(live[0])}`);
  check(live[1].text.startsWith("2.") && !/\b3\./.test(live[1].text), `turn 2 is the computer's, numbered 2: ${JSON.stringify(live[1])}`);

  if (!await ann.evaluate(() => window.__side.messages.some((m) => m.type === "game_over"))) {
    await side.send({ type: "resign", seat: 0 });
    await side.event("game_over");
  }
  const games = await recordsText(ann);
  check(/\b2 turns\b/.test(games) && !/moves?\b/.test(games), `the games list counts 2 turns: ${games}`);

  await openReplay(ann);
  const replayed = await listLines(ann, "#replay-moves");
  check(replayed.length === 2 && JSON.stringify(replayed[0].buttons) === JSON.stringify(["ring blue", "step c2", "end"])
    && replayed[1].text.startsWith("2."), `the replay lists the same 2 turns: ${JSON.stringify(replayed)}`);
  await ann.keyboard.press("Home");
  await ann.keyboard.press("ArrowRight");
  await ann.keyboard.press("ArrowRight");
  await until(ann, () => /turn 1 of 2 \(1\. ring blue, step c2\)/.test(document.getElementById("replay-title").textContent));
  const current = await ann.$eval("#replay-moves button[aria-current]", (b) => b.textContent);
  check(current === "step c2", `the part shown is marked: ${current}`);
  await s.shot(ann, "krux-replay");
}

/** One player on both seats (Ann X, Bo O) over `side`: X plays H8, O resigns. */
async function oneMoveThenResign(side) {
  await side.send({ type: "sit", seat: 0, name: "Ann" });
  await side.send({ type: "sit", seat: 1, name: "Bo" });
  await side.event("game_started");
  await side.move(0, { at: "H8" }, 1);
  await side.send({ type: "resign", seat: 1 });
}

/** "1 move" in English, "1 drag" in Swedish, "1 trekk" in Norwegian: the languages' plural rules (defect 7). */
async function oneMove(s) {
  const id = await createTable("gomoku", { seating: "chosen" });
  const ann = await s.player("ann");
  await open(ann, `/t/${id}`);
  const side = await sideSocket(ann, id);
  await oneMoveThenResign(side);
  await side.event("game_over");
  const en = await recordsText(ann);
  check(/\b1 move\b/.test(en) && !/\b1 moves\b/.test(en), `English: "1 move": ${en}`);
  for (const [lang, word] of [["sv", "1 drag"], ["nb", "1 trekk"]]) {
    const page = await s.player(`ann-${lang}`);
    await open(page, `/t/${id}?lang=${lang}`);
    const text = await recordsText(page);
    check(text.includes(word) && !/moves?\b/.test(text), `${lang}: "${word}": ${text}`);
  }
}

/**
 * Bughouse: the replay numbers each board's moves as the live list does ("A 1. e4", "B 1. d4",
 * "A 1… e5") and shows each seat's clock as it was after the move shown, not the final clocks
 * (defect 8).
 */
async function bughouseReplay(s) {
  const id = await createTable("bughouse", { seating: "chosen", time_control: { kind: "sudden_death", base_seconds: 60 } });
  const ann = await s.player("ann");
  await open(ann, `/t/${id}`);
  const side = await sideSocket(ann, id);
  for (const [seat, name] of [[0, "Ann"], [1, "Bo"], [2, "Cy"], [3, "Dee"]]) await side.send({ type: "sit", seat, name });
  await side.event("game_started");
  await side.move(0, { uci: "e2e4" }, 1);
  await side.move(2, { uci: "d2d4" }, 2);
  await ann.waitForTimeout(2500); // A-black and B-black think for 2.5 s
  await side.move(1, { uci: "e7e5" }, 3);
  await side.move(3, { uci: "d7d5" }, 4);
  await ann.waitForTimeout(1200);
  await side.move(0, { uci: "g1f3" }, 5);
  await ann.waitForTimeout(1200);
  await side.send({ type: "resign", seat: 0 });
  await side.event("game_over");
  const games = await recordsText(ann);
  check(/\b5 moves\b/.test(games), `the games list counts 5 moves: ${games}`);

  await openReplay(ann);
  const replayed = (await listLines(ann, "#replay-moves")).map((line) => line.text);
  // Both defects are checked and reported together.
  const problems = [];
  const expect = (ok, message) => { if (!ok) problems.push(message); };
  const expected = ["A 1. e4", "B 1. d4", "A 1… e5", "B 1… d5", "A 2. Nf3"];
  expect(JSON.stringify(replayed) === JSON.stringify(expected), `the replay numbers per board: ${JSON.stringify(replayed)}`);

  /** Every clock of `seat` on the page (strips and seats), as text. */
  const clocks = (seat) => ann.$$eval(`.clock[data-seat="${seat}"]`, (nodes) => [...new Set(nodes.map((n) => n.textContent))]);
  const seconds = (text) => { const [m, sec] = text.split(":").map(Number); return m * 60 + sec; };
  const final = await clocks(1);
  await ann.keyboard.press("Home");
  await ann.keyboard.press("ArrowRight"); // after 1. e4 on A: nobody has used time yet
  await until(ann, () => /move 1 of 5/.test(document.getElementById("replay-title").textContent));
  const title = await ann.textContent("#replay-title");
  expect(title.includes("(A 1. e4)"), `the replay's title names the move as numbered on its board: ${title}`);
  await ann.waitForTimeout(250); // two clock ticks
  for (const seat of [0, 1, 2, 3]) {
    const shown = await clocks(seat);
    expect(shown.length === 1 && shown[0] === "1:00", `after move 1 seat ${seat}'s clock shows 1:00 (the final clocks were ${final}): ${shown}`);
  }
  await ann.keyboard.press("ArrowRight");
  await ann.keyboard.press("ArrowRight"); // after A 1… e5: A-black thought 2.5 s
  await until(ann, () => /move 3 of 5/.test(document.getElementById("replay-title").textContent));
  await ann.waitForTimeout(250);
  const black = await clocks(1);
  expect(black.length === 1 && seconds(black[0]) >= 56 && seconds(black[0]) <= 58, `after A 1… e5 A-black's clock shows 0:57–0:58: ${black}`);
  expect((await clocks(0))[0] === "1:00", `after A 1… e5 A-white's clock still shows 1:00: ${await clocks(0)}`);
  check(problems.length === 0, problems.join("\n  "));
  await s.shot(ann, "bughouse-replay");
}

/** A series in Swedish: the countdown to game 2 (Intl's relative time) and the standings' headings. */
async function seriesSwedish(s) {
  const id = await createTable("gomoku", { seating: "chosen", series: "best_of_3", series_pause_seconds: 30 });
  const ann = await s.player("ann");
  await open(ann, `/t/${id}?lang=sv`);
  const side = await sideSocket(ann, id);
  await oneMoveThenResign(side);
  await side.event("next_game_in");
  await until(ann, () => /^Parti 2 i serien börjar om \d+ sekunder\.$/.test((document.getElementById("next-game") || {}).textContent || ""));
  const heads = await ann.$$eval("#series-body th", (ths) => ths.map((th) => th.textContent));
  check(JSON.stringify(heads) === JSON.stringify(["Sida", "Spelar", "V", "O", "F", "P"]), `the standings' headings in Swedish: ${heads}`);
  const head = await ann.textContent("#series-body .series-head");
  check(head === "Bäst av 3 · parti 2 av högst 3" || head === "Bäst av 3 · parti 1 av högst 3", `the series in Swedish: ${head}`);
  const ready = await ann.$eval("#between", (box) => [...box.querySelectorAll("button")].map((b) => b.textContent));
  check(ready.includes("Redo"), `the Ready button in Swedish: ${ready}`);
  await s.shot(ann, "series-sv");
}

/**
 * Requests between two people in Swedish: a take-back asked and declined, a new game asked and
 * declined, then a rematch offered and accepted (series.js's words on both pages).
 */
async function requestsSwedish(s) {
  const id = await createTable("gomoku", { seating: "chosen", undo: true });
  const ann = await s.player("ann");
  const bo = await s.player("bo");
  await open(ann, `/t/${id}?lang=sv`);
  await open(bo, `/t/${id}?lang=sv`);
  const a = await sideSocket(ann, id);
  const b = await sideSocket(bo, id);
  await a.send({ type: "sit", seat: 0, name: "Ann" });
  await a.event("seated");
  await b.send({ type: "sit", seat: 1, name: "Bo" });
  await b.event("game_started");
  await until(ann, () => document.querySelector("#seats .badge"));
  await until(bo, () => document.querySelector("#seats .badge"));
  await a.move(0, { at: "H8" }, 1);
  await b.move(1, { at: "H9" }, 2);
  const note = (page) => page.$eval("#requests", (box) => [...box.querySelectorAll("p, button")].map((x) => x.textContent.trim()).join(" | "));
  const logged = (page, text) => until(page, (text) => document.getElementById("log").textContent.includes(text), text);

  await a.send({ type: "offer_undo", seat: 0 });
  await until(bo, () => /ber om att få ta tillbaka/.test(document.getElementById("requests").textContent));
  const asked = await note(bo);
  check(asked.startsWith("Ann (X) ber om att få ta tillbaka sitt senaste drag – väntar på: dig. | Godta ångrat drag | Avböj"),
    `Bo reads Ann's take-back request: ${asked}`);
  await until(ann, () => /Du har bett om att få ta tillbaka/.test(document.getElementById("requests").textContent));
  check((await note(ann)) === "Du har bett om att få ta tillbaka ditt senaste drag – väntar på: Bo (O). | Nytt parti", `Ann reads her own request: ${await note(ann)}`);
  await bo.click('#requests button:text-is("Avböj")');
  await logged(ann, "Bo (O) avböjde att draget ångras.");
  await logged(bo, "Du avböjde att draget ångras.");

  await a.send({ type: "offer_new_game", seat: 0 });
  await until(bo, () => /nytt parti/.test(document.getElementById("requests").textContent));
  check((await note(bo)).endsWith("Ann (X) ber om ett nytt parti (det här slutar utan resultat) – väntar på: dig. | Godta nytt parti | Avböj"),
    `Bo reads Ann's request for a new game: ${await note(bo)}`);
  await bo.click('#requests button:text-is("Avböj")');
  await logged(ann, "Bo (O) avböjde ett nytt parti.");

  await a.send({ type: "resign", seat: 0 });
  await until(ann, () => [...document.querySelectorAll("#between button")].some((x) => x.textContent === "Revansch"));
  await ann.click('#between button:text-is("Revansch")');
  await until(bo, () => /Ann \(X\) föreslår revansch\./.test(document.getElementById("between").textContent));
  await until(ann, () => /Du har föreslagit revansch – väntar på: Bo \(O\)\./.test(document.getElementById("between").textContent));
  await bo.click('#between button:text-is("Godta revansch")');
  await b.event("game_started", 2);
  await until(bo, () => document.getElementById("between").hidden);
  await s.shot(bo, "rematch-accepted");
}

export default {
  "records-krux-turns": ["Krux move list and replay numbered by turns, the parts inside a turn (defect 4)", kruxTurns],
  "records-one-move": ["\"1 move\", \"1 drag\", \"1 trekk\": plurals by the language (defect 7)", oneMove],
  "records-bughouse-replay": ["Bughouse replay: per-board numbering and the clocks at the replayed move (defect 8)", bughouseReplay],
  "records-series-sv": ["a series in Swedish: countdown, standings, Ready", seriesSwedish],
  "records-requests-sv": ["take-back, new game and rematch requests in Swedish", requestsSwedish],
};
