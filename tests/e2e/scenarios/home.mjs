// The home page: the four games and their one-click buttons on the first screen (a desktop and
// a phone, in each language), one click to a table with a friend or against the computer in
// every game, and "More options" to the full form with the game chosen.
// A scenario module of tests/e2e (see ../README.md): `s` is the scenario's Session, `h` the
// harness's exports.

/** A phone: 390 × 844, touch. */
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
const DESKTOP = { viewport: { width: 1280, height: 800 } };
const GAMES = ["gomoku", "lines-of-action", "krux", "bughouse"];
const SEATS = { bughouse: 4 };

/** The table's public snapshot. */
async function snapshot(h, id) {
  const response = await fetch(`${h.BASE}/api/tables/${id}`);
  h.check(response.ok, `GET /api/tables/${id} answered ${response.status}`);
  return response.json();
}

/** The table id of the page's address (`/t/{id}`). */
const tableId = (page) => new URL(page.url()).pathname.split("/")[2];

/**
 * Opens the home page on `page` and checks that every game's name and both its buttons are
 * within the first screen (no scrolling), with the computer's strength and the "not rated"
 * note, and that the page does not scroll sideways.
 */
async function firstScreen(s, h, page, path) {
  await page.goto(`${h.BASE}${path}`);
  await h.until(page, () => document.querySelectorAll(".game .play button").length === 8);
  const { width, height } = page.viewportSize();
  const outside = [];
  const inView = async (selector) => {
    const box = await page.locator(selector).boundingBox();
    const ok = box && box.x >= 0 && box.y >= 0 && box.x + box.width <= width && box.y + box.height <= height;
    if (!ok) outside.push(`${selector} ${JSON.stringify(box)}`);
  };
  for (const game of GAMES) {
    for (const part of ["h2", ".friend", ".computer", ".desc", "a.more"]) await inView(`.game[data-game="${game}"] ${part}`);
  }
  await inView("#strength .segmented");
  await inView("#unrated-note");
  const facts = await page.evaluate(() => ({
    scrollY, sideways: document.documentElement.scrollWidth - innerWidth, lang: document.documentElement.lang,
    links: [...document.querySelectorAll(".game")].map((card) => [card.dataset.game,
      card.querySelector(".links a:not(.more)").getAttribute("href"), card.querySelector("a.more").getAttribute("href")]),
    skip: document.querySelector("a.skip-link").getAttribute("href"),
    switcher: Boolean(document.querySelector(".lang-switch")),
    medium: document.querySelector('input[name="home-strength"]:checked').value,
  }));
  await s.shot(page, `first-screen-${width}x${height}-${facts.lang}`);
  h.check(outside.length === 0, `at ${width}×${height} (${facts.lang}) on the first screen: ${outside.join("; ")}`);
  h.check(facts.scrollY === 0 && facts.sideways <= 0, `the home page neither scrolled nor overflows sideways: ${JSON.stringify(facts)}`);
  for (const [game, rules, more] of facts.links) {
    h.check(rules === `/rules/${game}` && more === `/new?game=${game}`, `${game}'s links: ${rules}, ${more}`);
  }
  h.check(facts.skip === "#main" && facts.switcher, `a skip link to #main and the language switcher: ${JSON.stringify(facts)}`);
  h.check(facts.medium === "medium", `the computer's strength is medium by default: ${facts.medium}`);
}

/** Home at 1280 × 800: every game's name, description and both buttons without scrolling. */
async function homeDesktop(s, h) {
  const page = await s.player("desktop", DESKTOP);
  await firstScreen(s, h, page, "/");
}

/** Home on a 390 × 844 phone, in English, Swedish and Norwegian (the longest labels). */
async function homePhone(s, h) {
  for (const lang of ["en", "sv", "nb"]) {
    const page = await s.player(`phone-${lang}`, PHONE);
    await firstScreen(s, h, page, `/?lang=${lang}`);
    h.check(await page.evaluate(() => document.documentElement.lang) === lang, `the page is in ${lang}`);
  }
}

/**
 * "Play a friend" in each game: one click opens the new table at `#invite`, seated, with the
 * link to send shown; the table is the casual one-click table (web/README.md); a friend who
 * opens the link finds the table.
 */
async function homePlayFriend(s, h) {
  for (const game of GAMES) {
    const host = await s.player(`host-${game}`, DESKTOP);
    // The page's own requests done (the catalogue, the lobby's modules), so the click's
    // navigation cuts none of them off (a failed request fails the scenario).
    await host.goto(`${h.BASE}/`, { waitUntil: "networkidle" });
    await Promise.all([host.waitForURL(/\/t\/[A-Za-z0-9]+/), host.click(`.game[data-game="${game}"] .friend`)]);
    const id = tableId(host);
    await h.until(host, () => document.getElementById("conn").hidden && document.querySelector("#seats .badge"));
    await h.until(host, () => { const link = document.getElementById("invite-link"); return link && link.offsetParent !== null && link.value; });
    const link = await host.inputValue("#invite-link");
    h.check(new URL(link).pathname === `/t/${id}`, `${game}: the invitation shows the table's link: ${link}`);
    const table = await snapshot(h, id);
    const settings = table.settings;
    const expected = {
      game, rated: false, series: "single", seating: "random", bots: 0,
      clock: game === "bughouse" ? "sudden_death/180" : "none", undo: game !== "bughouse",
    };
    const seen = {
      game: table.game, rated: table.rated, series: settings.series, seating: settings.seating,
      bots: Object.keys(settings.bots).length,
      clock: settings.time_control.kind === "none" ? "none" : `${settings.time_control.kind}/${settings.time_control.base_seconds}`,
      undo: settings.undo,
    };
    h.check(JSON.stringify(seen) === JSON.stringify(expected), `${game}: the one-click table ${JSON.stringify(seen)}, expected ${JSON.stringify(expected)}`);
    if (game === "gomoku") {
      h.check(settings.board_size === 15 && settings.variant === "free" && settings.opening === "center", `gomoku's defaults: ${JSON.stringify(settings)}`);
    }
    const people = table.seats.filter((seat) => seat.player).length;
    h.check(people === 1, `${game}: the host sits at once (${people} seated)`);
    const friend = await s.player(`friend-${game}`, DESKTOP);
    await h.open(friend, new URL(link).pathname);
  }
}

/**
 * The human's move when the computer waits for it: the centre in Gomoku, b1–b3 in Lines of
 * Action, in Krux the blue ring and the end of the turn.
 */
async function playFirst(h, page, game) {
  if (game === "gomoku") {
    await page.click('#board .cell[data-at="H8"]');
  } else if (game === "lines-of-action") {
    await page.click('#loa-board .sq[data-sq="b1"]');
    await page.click('#loa-board .sq[data-sq="b3"]');
  } else if (game === "krux") {
    // The End turn button's label as the page's t() gives it (the catalogue's text, or the key).
    const endLabel = await page.evaluate(async () => {
      const catalogue = await (await fetch(`/static/i18n/${document.documentElement.lang}.json`)).json();
      return catalogue["krux.end_turn_label"] ?? "krux.end_turn_label";
    });
    await page.click("#game-panel button:has(.ring-swatch.blue)");
    const end = `#game-panel button[aria-label="${endLabel}"]`;
    await h.until(page, (end) => { const b = document.querySelector(end); return b && !b.disabled; }, end);
    await page.click(end);
  }
}

/**
 * "Play the computer" in each game: one click (at the strength chosen above the games, easy
 * for Gomoku and remembered, medium for the rest) lands in the seat; the computer holds every
 * other seat of an unrated table; its first move arrives (the human moves first when the lot
 * says so).
 */
async function homePlayComputer(s, h) {
  for (const game of GAMES) {
    const page = await s.player(`computer-${game}`, DESKTOP);
    await page.goto(`${h.BASE}/`, { waitUntil: "networkidle" });
    const strength = game === "gomoku" ? "easy" : "medium";
    if (strength !== "medium") {
      await page.click(`#strength label:has(input[value="${strength}"])`);
      const stored = await page.evaluate(() => localStorage.getItem("spelbord.botStrength"));
      h.check(stored === strength, `the chosen strength is remembered: ${stored}`);
    }
    await Promise.all([page.waitForURL(/\/t\/[A-Za-z0-9]+/), page.click(`.game[data-game="${game}"] .computer`)]);
    const id = tableId(page);
    await h.until(page, () => document.getElementById("conn").hidden && document.querySelector("#seats .badge"));
    let table = await snapshot(h, id);
    const bots = table.seats.filter((seat) => seat.player && seat.player.bot);
    h.check(bots.length === (SEATS[game] || 2) - 1 && bots.every((seat) => seat.player.bot === strength),
      `${game}: the computer at ${strength} in every other seat: ${JSON.stringify(table.seats)}`);
    h.check(table.rated === false && table.settings.series === "single", `${game}: unrated, one game`);
    const botSeats = new Set(bots.map((seat) => seat.seat));
    const deadline = Date.now() + 30_000;
    let played = false;
    for (;;) {
      table = await snapshot(h, id);
      if (table.status === "playing" && table.moves.some((move) => botSeats.has(move.seat))) break;
      h.check(Date.now() < deadline, `${game}: no move by the computer within 30 s: ${JSON.stringify(table.moves)}`);
      const mine = await page.evaluate(() => document.getElementById("turn").classList.contains("mine"));
      if (mine && !played && game !== "bughouse" && table.moves.length === 0) {
        await playFirst(h, page, game);
        played = true;
      }
      await page.waitForTimeout(200);
    }
    if (played) console.log(`  ${game}: the lot gave the person the first move; the computer answered`);
    await s.shot(page, `${game}-computer-moved`);
  }
}

/** "More options" opens the full form at `/new?game=…` with that game chosen and its settings shown. */
async function homeMoreOptions(s, h) {
  const page = await s.player("options", DESKTOP);
  for (const game of GAMES) {
    await page.goto(`${h.BASE}/`, { waitUntil: "networkidle" });
    await Promise.all([page.waitForURL(/\/new\?game=/), page.click(`.game[data-game="${game}"] a.more`)]);
    await h.until(page, (game) => {
      const chosen = document.querySelector('input[name="game"]:checked');
      const own = document.querySelector(`.game-settings[data-game="${game}"]`);
      return chosen && chosen.value === game && own && !own.hidden && document.getElementById("create-button").textContent;
    }, game);
    // The form still asks for the engines (`/api/bots`): leaving before it answers would
    // abort that request, which the harness counts as a failed one.
    await page.waitForLoadState("networkidle");
  }
  // Against the computer the full form offers no rated game.
  await page.check('input[name="opponent"][value="computer"]');
  h.check(await page.isDisabled("#rated"), "Rated is disabled against the computer");
}

export default {
  "home-desktop": ["home at 1280 × 800: the four games and their buttons without scrolling", homeDesktop],
  "home-phone": ["home on a 390 × 844 phone in en, sv, nb: the four games and their buttons without scrolling", homePhone],
  "home-play-friend": ["one click to a table for a friend in each game, the link shown", homePlayFriend],
  "home-play-computer": ["one click to a table against the computer in each game, its first move arriving", homePlayComputer],
  "home-more-options": ["More options opens the full form with the game chosen", homeMoreOptions],
};
