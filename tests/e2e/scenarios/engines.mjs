// External engines in the browser (docs/bots.md, "Engines"): the server's engines are listed
// among the strengths for their game only (from GET /api/bots), on the new-table page and in a
// free seat's "Add computer" list; an engine seat shows its configured name and time, and it
// answers a move. `cargo test --test browser` configures a Gomocup random mover for Gomoku as
// `engine:fake`, named "Fake", 200 ms a move.

import { BASE, check, until, createTable, open, sit, myTurn } from "../harness.mjs";

const SHOWN = "Fake (200 ms a move)";

/** The new-table page offers the engine for Gomoku only; a table created with it plays. */
async function newTable(s) {
  const p = await s.player("engine-new");
  await p.goto(`${BASE}/new`);
  await p.check('input[name="game"][value="gomoku"]');
  await p.check('input[name="opponent"][value="computer"]');
  const engine = 'input[name="strength"][value="engine:fake"]';
  await until(p, (selector) => document.querySelector(selector), engine);
  const label = await p.$eval(engine, (input) => input.closest("label").textContent);
  check(label.includes(SHOWN), `the engine is offered as "${SHOWN}": ${label}`);
  await p.check('input[name="game"][value="krux"]');
  await until(p, (selector) => !document.querySelector(selector), engine);
  await p.check('input[name="game"][value="gomoku"]');
  await until(p, (selector) => document.querySelector(selector), engine);
  await p.check(engine);
  await Promise.all([p.waitForURL(/\/t\//), p.click("#create-button")]);
  await until(p, (shown) => document.querySelector("#board .cell") &&
    [...document.querySelectorAll("#seats .name")].some((name) => name.textContent === shown), SHOWN);
  // Whoever starts, the engine answers our stone with one of its own.
  await myTurn(p);
  const stones = () => p.$$eval('#board .cell:not([data-stone="."])', (cells) => cells.length);
  const before = await stones();
  const at = await p.evaluate(() => ["H8", "H9", "I8", "G8", "H7", "I9", "G7"].find((c) =>
    document.querySelector(`#board .cell[data-at="${c}"]`).dataset.stone === "."));
  await p.click(`#board .cell[data-at="${at}"]`);
  await until(p, (n) => document.querySelectorAll('#board .cell:not([data-stone="."])').length >= n + 2, before);
  await s.shot(p, "engine-answered");
}

/** A free seat's "Add computer" list names the engine at a Gomoku table, not at a Krux one. */
async function addToSeat(s) {
  const p = await s.player("engine-seat");
  for (const [game, role, offered] of [["gomoku", "X", true], ["krux", "white", false]]) {
    const id = await createTable(game, { seating: "chosen" });
    await open(p, `/t/${id}`);
    await sit(p, "Host", role);
    await until(p, () => document.querySelector("#seats li.add-bot select"));
    // The list is completed once GET /api/bots has answered.
    if (offered) await until(p, () => document.querySelector('#seats li.add-bot option[value="engine:fake"]'));
    const options = await p.$$eval("#seats li.add-bot option", (all) => all.map((o) => [o.value, o.textContent]));
    const engine = options.find(([value]) => value === "engine:fake");
    check(offered ? engine && engine[1] === SHOWN : !engine, `${game}: the engine is ${offered ? "" : "not "}offered: ${JSON.stringify(options)}`);
  }
}

export default {
  "engine-new-table": ["an engine among the strengths of a new Gomoku table, which it then plays", newTable],
  "engine-add-to-seat": ["a free seat's computer list names the engine at its game's tables only", addToSeat],
};
