// The lobby on the home page (web/js/lobby.js, docs/protocol.md section 7): two people click
// the same quick-pairing button and meet at one table, seated, the game started; a third watches
// that game from the Watch list; a table made on the full form with "Show in the lobby" is an
// open table until it is full (one that takes turns stays open for its queue); a seek is cancelled; an open challenge with a rating range is
// accepted with one click.
// A scenario module of tests/e2e (see ../README.md): `s` is the scenario's Session, `h` the
// harness's exports.

const DESKTOP = { viewport: { width: 1280, height: 900 } };

/** The table id of the page's address (`/t/{id}`). */
const tableId = (page) => new URL(page.url()).pathname.split("/")[2];

/**
 * A new person (a browser context of its own) on the home page, the lobby connected and its
 * pools shown; `name` is remembered as the table page remembers it (`spelbord.name`).
 */
async function lobbyPage(s, h, label, name) {
  const page = await s.player(label, DESKTOP);
  await page.goto(`${h.BASE}/`);
  if (name) await page.evaluate((name) => localStorage.setItem("spelbord.name", name), name);
  await h.until(page, () => document.querySelector("#quick button[data-pool]") && document.getElementById("lobby-conn").hidden);
  return page;
}

/** Waits until the table page is connected and shows that we hold a seat and the game has started. */
async function seatedAndStarted(h, page) {
  await h.until(page, () => document.getElementById("conn").hidden && document.querySelector("#seats .badge"));
  await h.until(page, () => {
    const turn = document.getElementById("turn").textContent;
    return turn && !/Waiting/.test(turn);
  });
}

/** Waits until `page`'s list `list` (`#seeks`, `#open-tables`, `#watch`) has an entry matching `selector`, or none. */
async function listed(h, page, selector, present = true) {
  await h.until(page, ([selector, present]) => Boolean(document.querySelector(selector)) === present, [selector, present]);
}

/**
 * (a) Ann and Bo click the same quick-pairing button (Gomoku, no clock): Ann waits (the seconds
 * counting up, her seek in Bo's open challenges, said in the live region); Bo's click pairs
 * them and both pages open the same table, each seated, the game started. (b) Cy sees that game
 * under Watch and opens it as a spectator.
 */
async function quickPairing(s, h) {
  const ann = await lobbyPage(s, h, "ann", "Ann");
  const bo = await lobbyPage(s, h, "bo", "Bo");
  const pool = "gomoku/untimed";
  await ann.click(`#quick button[data-pool="${pool}"]`);
  await h.until(ann, () => document.querySelector("#lobby-waiting li[data-seek] .waited"));
  const seekId = await ann.getAttribute("#lobby-waiting li[data-seek]", "data-seek");
  // The count-up moves on by itself.
  await h.until(ann, () => { const w = document.querySelector("#lobby-waiting .waited"); return w && w.textContent !== "0:00"; });
  await h.until(ann, () => /Waiting for an opponent/.test(document.getElementById("announcer").textContent));
  h.check(await ann.getAttribute(`#quick button[data-pool="${pool}"]`, "aria-pressed") === "true", "the pool's button is shown pressed while Ann waits");
  // Ann's own seek is listed as hers (with Cancel); Bo sees it with her name and a Play button.
  await listed(h, ann, `#seeks li[data-seek="${seekId}"].ours button.cancel`);
  await listed(h, bo, `#seeks li[data-seek="${seekId}"] button.accept`);
  const seen = await bo.textContent(`#seeks li[data-seek="${seekId}"]`);
  h.check(/Ann/.test(seen) && /1500/.test(seen), `Bo sees Ann's seek with her name and rating: ${seen}`);
  await s.shot(ann, "waiting");

  await Promise.all([
    ann.waitForURL(/\/t\/[A-Za-z0-9]+$/),
    bo.waitForURL(/\/t\/[A-Za-z0-9]+$/),
    bo.click(`#quick button[data-pool="${pool}"]`),
  ]);
  const id = tableId(ann);
  h.check(tableId(bo) === id, `both at one table: ${ann.url()} and ${bo.url()}`);
  await seatedAndStarted(h, ann);
  await seatedAndStarted(h, bo);
  const names = await ann.evaluate(() => [...document.querySelectorAll("#seats li")].map((li) => li.textContent).join(" | "));
  h.check(/Ann/.test(names) && /Bo/.test(names), `the seats carry the names sent with the seeks: ${names}`);
  await s.shot(ann, "paired");
  await s.shot(bo, "paired");

  // (b) A third person watches it from the lobby.
  const cy = await lobbyPage(s, h, "cy", "Cy");
  const link = `#watch a[href="/t/${id}"]`;
  await listed(h, cy, link);
  const entry = await cy.textContent(`#watch li[data-id="${id}"]`);
  h.check(/Ann/.test(entry) && /Bo/.test(entry), `the Watch entry names the players: ${entry}`);
  await s.shot(cy, "watch-list");
  await Promise.all([cy.waitForURL(new RegExp(`/t/${id}$`)), cy.click(link)]);
  await h.until(cy, () => document.getElementById("conn").hidden && document.querySelectorAll("#seats li").length === 2);
  h.check(await cy.locator("#seats .badge").count() === 0, "Cy watches: no seat is hers");
  await h.until(cy, () => { const turn = document.getElementById("turn").textContent; return turn && !/Waiting/.test(turn); });
  await s.shot(cy, "spectator");
}

/**
 * (c) A table made on the full form with "Show in the lobby" (off by default) is listed under
 * Open tables on another person's home page with its free seats; one seat taken, one free seat;
 * a guest comes by that link and sits, and the full table leaves Open tables (its game is then
 * under Watch).
 */
async function listedTable(s, h) {
  const host = await s.player("host", DESKTOP);
  await host.goto(`${h.BASE}/new?game=gomoku`);
  await h.until(host, () => !document.getElementById("create-button").disabled);
  h.check(!(await host.isChecked("#listed")), "Show in the lobby is off by default");
  await host.check('input[name="seating"][value="chosen"]');
  await host.check("#listed");
  await Promise.all([host.waitForURL(/\/t\/[A-Za-z0-9]+$/), host.click("#create-button")]);
  const id = tableId(host);
  const table = await (await fetch(`${h.BASE}/api/tables/${id}`)).json();
  h.check(table.settings && table.settings.listed === true, `the table was created listed: ${JSON.stringify(table.settings)}`);

  const viewer = await lobbyPage(s, h, "viewer", "Vi");
  const entry = `#open-tables li[data-id="${id}"]`;
  await listed(h, viewer, `${entry} a[href="/t/${id}"]`);
  await h.until(viewer, (entry) => /2 free seats/.test(document.querySelector(entry).textContent), entry);

  await h.open(host, `/t/${id}`);
  await h.sit(host, "Hal", "X");
  await h.until(viewer, (entry) => { const li = document.querySelector(entry); return li && /1 free seat\b/.test(li.textContent) && /Hal/.test(li.textContent); }, entry);
  await s.shot(viewer, "open-table");

  const guest = await lobbyPage(s, h, "guest", "Gus");
  await listed(h, guest, `${entry} a`);
  await Promise.all([guest.waitForURL(new RegExp(`/t/${id}$`)), guest.click(`${entry} a`)]);
  await h.until(guest, () => document.getElementById("conn").hidden && document.querySelector("#seats li"));
  await h.sit(guest, "Gus", "O");
  await listed(h, viewer, entry, false);
  await listed(h, viewer, `#watch a[href="/t/${id}"]`);
  await s.shot(viewer, "table-full");
}

/**
 * (c2) A listed table that takes turns stays under Open tables once every seat is held, saying
 * how many wait for a turn: Rae plays with three computer players; Ivy, from the lobby, sees
 * "full: 0 waiting", follows the link and joins the queue; the lobby then says 1 waiting.
 */
async function rotatingTable(s, h) {
  const id = await h.createTable("bughouse", {
    listed: true, seating: "chosen", rotation: "rotate", bots: { 1: "easy", 2: "easy", 3: "easy" },
  });
  const rae = await s.player("rae", DESKTOP);
  await h.open(rae, `/t/${id}`);
  await h.sit(rae, "Rae", "A-white");
  const ivy = await lobbyPage(s, h, "ivy", "Ivy");
  const entry = `#open-tables li[data-id="${id}"]`;
  await listed(h, ivy, `${entry} a[href="/t/${id}"]`);
  await h.until(ivy, (entry) => /full: 0 waiting for a turn/.test(document.querySelector(entry).textContent), entry);
  const viewer = await lobbyPage(s, h, "viewer-2", "Vic");
  await listed(h, viewer, entry);
  await Promise.all([ivy.waitForURL(new RegExp(`/t/${id}$`)), ivy.click(`${entry} a`)]);
  await h.until(ivy, () => document.getElementById("conn").hidden && !document.getElementById("queue-form").hidden);
  await ivy.fill("#queue-name", "Ivy");
  await ivy.click("#queue-join");
  await h.until(ivy, () => !document.getElementById("queue-leave").hidden);
  await h.until(viewer, (entry) => { const li = document.querySelector(entry); return li && /full: 1 waiting for a turn/.test(li.textContent); }, entry);
  await s.shot(viewer, "rotating-table-open");
}

/**
 * (d) Dan seeks (Krux, 10 min) and cancels: the waiting line goes, his button is no longer
 * pressed, and Eve's open challenges no longer list the seek.
 */
async function cancelSeek(s, h) {
  const dan = await lobbyPage(s, h, "dan", "Dan");
  const eve = await lobbyPage(s, h, "eve", "Eve");
  const pool = "krux/10+0";
  await dan.click(`#quick button[data-pool="${pool}"]`);
  await h.until(dan, () => document.querySelector("#lobby-waiting li[data-seek] button.cancel"));
  const seekId = await dan.getAttribute("#lobby-waiting li[data-seek]", "data-seek");
  await listed(h, eve, `#seeks li[data-seek="${seekId}"]`);
  // Keyboard: the Cancel button takes the focus and Enter presses it.
  await dan.focus(`#lobby-waiting li[data-seek="${seekId}"] button.cancel`);
  await dan.keyboard.press("Enter");
  await h.until(dan, () => document.querySelectorAll("#lobby-waiting li").length === 0);
  await h.until(dan, () => /cancelled/i.test(document.getElementById("announcer").textContent));
  h.check(await dan.getAttribute(`#quick button[data-pool="${pool}"]`, "aria-pressed") === "false", "the pool's button is no longer pressed");
  await listed(h, eve, `#seeks li[data-seek="${seekId}"]`, false);
  await listed(h, dan, `#seeks li[data-seek="${seekId}"]`, false);
}

/**
 * An open challenge with a rating range: Fay posts Lines of Action 10+5 for opponents within
 * ±200 of her rating; Gil sees it with its range and plays it with one click; both land at one
 * table, seated.
 */
async function challenge(s, h) {
  const fay = await lobbyPage(s, h, "fay", "Fay");
  const gil = await lobbyPage(s, h, "gil", "Gil");
  const pool = "lines-of-action/10+5";
  await fay.selectOption("#challenge-pool", pool);
  await fay.selectOption("#challenge-range", "200");
  await fay.click("#challenge-post");
  await h.until(fay, () => document.querySelector("#lobby-waiting li[data-seek]"));
  const seekId = await fay.getAttribute("#lobby-waiting li[data-seek]", "data-seek");
  const entry = `#seeks li[data-seek="${seekId}"]`;
  await listed(h, gil, `${entry} button.accept`);
  const text = await gil.textContent(entry);
  h.check(/Fay/.test(text) && /1300–1700/.test(text), `Gil sees Fay's challenge with its range: ${text}`);
  await Promise.all([
    fay.waitForURL(/\/t\/[A-Za-z0-9]+$/),
    gil.waitForURL(/\/t\/[A-Za-z0-9]+$/),
    gil.click(`${entry} button.accept`),
  ]);
  h.check(tableId(fay) === tableId(gil), `both at one table: ${fay.url()} and ${gil.url()}`);
  await seatedAndStarted(h, fay);
  await seatedAndStarted(h, gil);
}

/**
 * "Play the computer instead", offered after 20 s of waiting: Hal (Gomoku, 10 min) gets a table
 * with the computer as the card's "Play the computer" makes it, seated; Ida (Bughouse, 2 min,
 * agreeing to fill the seats with the computer) gets one from the server (`play_bots`), seated
 * with the computer in the three other seats. Both wait at once, so the scenario waits 20 s once.
 */
async function computerInstead(s, h) {
  const hal = await lobbyPage(s, h, "hal", "Hal");
  const ida = await lobbyPage(s, h, "ida", "Ida");
  await hal.click('#quick button[data-pool="gomoku/10+0"]');
  await ida.check("#bots-ok");
  await ida.click('#quick button[data-pool="bughouse/2+0"]');
  await h.until(ida, () => /waiting for 3 more players/.test(document.getElementById("lobby-waiting").textContent));
  for (const page of [hal, ida]) {
    await page.waitForSelector("#lobby-waiting li[data-seek] button.computer", { timeout: 30_000 });
  }
  await h.until(hal, () => /play the computer instead/i.test(document.getElementById("announcer").textContent));
  for (const [page, game] of [[hal, "gomoku"], [ida, "bughouse"]]) {
    await Promise.all([page.waitForURL(/\/t\/[A-Za-z0-9]+/), page.click("#lobby-waiting li[data-seek] button.computer")]);
    await h.until(page, () => document.getElementById("conn").hidden && document.querySelector("#seats .badge"));
    const table = await (await fetch(`${h.BASE}/api/tables/${tableId(page)}`)).json();
    const bots = table.seats.filter((seat) => seat.player && seat.player.bot).length;
    h.check(table.game === game && bots === (game === "bughouse" ? 3 : 1), `${game}: the computer in the other seats: ${JSON.stringify(table.seats)}`);
  }
}

/** The parts in order, each named in a failure (one scenario, so `run.mjs <server> lobby` runs them all). */
async function lobby(s, h) {
  for (const [part, run] of [["quick pairing and watching", quickPairing], ["listed table", listedTable],
    ["listed table taking turns", rotatingTable], ["cancel", cancelSeek], ["challenge with a range", challenge], ["the computer instead", computerInstead]]) {
    try {
      await run(s, h);
    } catch (error) {
      error.message = `${part}: ${error.message}`;
      throw error;
    }
  }
}

export default {
  lobby: ["the lobby: (a) two people click one quick-pairing button and meet at one table, seated; (b) a third watches it from Watch; (c) a table made with Show in the lobby is an open table until full, one taking turns while its queue has room; (d) a seek cancelled by keyboard; an open challenge with a range accepted; the computer offered after 20 s", lobby],
};
