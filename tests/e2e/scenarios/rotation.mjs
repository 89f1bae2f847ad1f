// Rotating Bughouse tables (docs/protocol.md, "Rotation"): more people than seats take turns.
// Two people and two computer players hold the seats; a third person, on a phone, joins the
// queue (with the keyboard the second time), sees their place and "You play next", and chats
// from the queue; a game ends; the computer steps out for them and their page shows them
// seated; everyone sees who stepped out and came in, and each person's standings. Also: three
// people waiting in order, and the full form's "Taking turns".

import { BASE, until, check, createTable, open, sit } from "../harness.mjs";
import { axeProblems, englishLeft } from "../checks.mjs";

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

/** The text of `selector` on `page` ("" when it is hidden or missing). */
const shownText = (page, selector) => page.evaluate((selector) => {
  const node = document.querySelector(selector);
  return node && node.offsetParent !== null ? node.textContent.replace(/\s+/g, " ").trim() : "";
}, selector);

/** The catalogue of `lang`, as the pages load it. */
async function catalogue(lang) {
  const response = await fetch(`${BASE}/static/i18n/${lang}.json`);
  check(response.ok, `GET /static/i18n/${lang}.json answered ${response.status}`);
  return response.json();
}

/** No English left on a Swedish or Norwegian table page, and no serious axe-core violation. */
async function speaksAndPasses(page, lang, where) {
  const problems = [
    ...(await englishLeft(page, { english: await catalogue("en"), local: await catalogue(lang) })).map((text) => `English left: "${text}"`),
    ...(await axeProblems(page)).map((violation) => `axe: ${violation}`),
  ];
  check(problems.length === 0, `${where} (${lang}): ${problems.length} problems:\n  ${problems.join("\n  ")}`);
}

/** Waits until `selector` on `page` is shown and its text matches `pattern`. */
const textMatches = (page, selector, pattern) => until(page, ([selector, source, flags]) => {
  const node = document.querySelector(selector);
  return node && node.offsetParent !== null && new RegExp(source, flags).test(node.textContent);
}, [selector, pattern.source, pattern.flags]);

async function bughouseRotation(s) {
  // Team 1 (A-white, B-black) are people; team 2 the computer, so every board waits on a person.
  const id = await createTable("bughouse", {
    seating: "chosen", rotation: "winners_stay", partners: "keep", series_pause_seconds: 3,
    bots: { 1: "easy", 2: "easy" }, time_control: { kind: "sudden_death", base_seconds: 300 },
  });
  const ann = await s.player("ann-A-white");
  const dee = await s.player("dee-B-black");
  const eve = await s.player("eve-phone", PHONE);
  await open(ann, `/t/${id}`);
  await sit(ann, "Ann", "A-white");
  await open(dee, `/t/${id}`);
  await sit(dee, "Dee", "B-black");
  await until(ann, () => /Board A: your move/.test(document.getElementById("turn").textContent));
  // The table says how it rotates; nobody waits and nobody has finished a game yet.
  await textMatches(ann, "#rotation-mode", /Winners stay, losers queue · partners kept/);
  await textMatches(ann, "#queue-empty", /Nobody is waiting/);
  await textMatches(ann, "#person-standings-empty", /No game has ended here yet/);
  check(await ann.locator("#queue-form").isHidden(), "a seated player is not offered the queue");

  // Eve comes while the game is played: every seat is held, so she may join the queue.
  await open(eve, `/t/${id}`);
  await until(eve, () => !document.getElementById("queue-form").hidden);
  await eve.fill("#queue-name", "Eve");
  await eve.tap("#queue-join");
  await textMatches(eve, "#rotation-status", /You play next\. You are 1st in the queue\./);
  await until(eve, () => !document.getElementById("queue-leave").hidden && document.getElementById("queue-form").hidden);
  await textMatches(eve, "#queue-list li.you", /Eve\s*you\s*connected/);
  await textMatches(ann, "#queue-list", /Eve\s*connected/);
  await s.shot(eve, "queued");

  // She leaves the queue, then joins again with the keyboard alone.
  await eve.tap("#queue-leave");
  await until(eve, () => !document.getElementById("queue-form").hidden && document.getElementById("rotation-status").hidden);
  await textMatches(ann, "#queue-empty", /Nobody is waiting/);
  check(await eve.evaluate(() => document.activeElement && document.activeElement.id) === "queue-join",
    "after Leave the queue the focus is on Join the queue");
  await eve.keyboard.press("Enter");
  await textMatches(eve, "#rotation-status", /You play next\. You are 1st in the queue\./);
  check(await eve.evaluate(() => document.activeElement && document.activeElement.id) === "queue-leave",
    "after Join the queue the focus is on Leave the queue");
  await textMatches(dee, "#queue-list", /Eve/);

  // Waiting, Eve may chat: her line says she is in the queue; it is hers, so it has no Report.
  await until(eve, () => !document.getElementById("chat-text").disabled);
  await eve.fill("#chat-text", "hej hej");
  await eve.tap("#chat-send");
  await textMatches(ann, "#chat-log li:last-child", /Eve \(in the queue\): hej hej/);
  await textMatches(eve, "#chat-log li:last-child", /Eve \(in the queue\): hej hej/);
  check(await eve.locator("#chat-log li:last-child button.report").count() === 0, "no Report on our own line from the queue");
  check(await ann.locator("#chat-log li:last-child button.report").count() === 1, "Report on another's line from the queue");

  // A Swedish visitor sees the queue with Eve and may join it too: all in Swedish, axe-clean.
  const swede = await s.player("swede");
  await open(swede, `/t/${id}?lang=sv`);
  await textMatches(swede, "#queue-list", /Eve\s*ansluten/);
  await textMatches(swede, "#rotation-mode", /Vinnarna sitter kvar · partner behålls/);
  await until(swede, () => !document.getElementById("queue-form").hidden);
  await textMatches(swede, "#queue-join", /Ställ dig i kön/);
  await speaksAndPasses(swede, "sv", "a rotating table with someone waiting");

  // Nothing is wider than the phone's screen.
  const [width, inner] = await eve.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  check(width <= inner, `the phone's page is ${width} px wide in a ${inner} px window`);

  // Ann resigns for her team: the computer steps out first (seat 1, A-black) and Eve comes in.
  await ann.click("#resign");
  await textMatches(ann, "#rotation-status", /Computer \(easy\) stepped out; Eve came in\./);
  await textMatches(dee, "#rotation-status", /Eve came in/);
  // The game that ended is said with those who played it, not with who came in.
  const over = await ann.textContent("#turn");
  check(!/Eve/.test(over), `the last game's result names its own players: ${over}`);
  await until(eve, () => document.querySelector("#seats .seat.you") && /Eve/.test(document.querySelector("#seats .seat.you").textContent));
  await textMatches(eve, "#seats .seat.you", /A-black/);
  await textMatches(eve, "#rotation-status", /You are in: you play the next game\./);
  await textMatches(ann, "#queue-empty", /Nobody is waiting/);
  check(await eve.locator("#queue-leave").isHidden() && await eve.locator("#queue-form").isHidden(), "a seated person is offered neither Join nor Leave");

  // The standings: Ann and Dee played one game and lost it; the computer is not counted.
  const rows = () => ann.$$eval("#person-standings-body tr", (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent.trim())));
  await until(ann, () => document.querySelectorAll("#person-standings-body tr").length === 2);
  const standings = await rows();
  check(JSON.stringify(standings.map((r) => r[0]).sort()) === JSON.stringify(["Ann", "Dee"]), `the standings list Ann and Dee: ${JSON.stringify(standings)}`);
  check(standings.every((r) => r.slice(1).join(",") === "1,0,0,1,0"), `each played 1, won 0, drew 0, lost 1, 0 points: ${JSON.stringify(standings)}`);
  await s.shot(ann, "after-the-rotation");

  // After the pause the next game starts with Eve on board A against Ann.
  await until(ann, () => /Board A: your move/.test(document.getElementById("turn").textContent));
  await until(eve, () => /Board A:/.test(document.getElementById("turn").textContent)
    && !/watching/.test(document.getElementById("turn").textContent) && document.getElementById("rotation-status").hidden);
  await textMatches(eve, "#seats .seat.you", /Eve/);
  await s.shot(eve, "seated");

  // The standings in Swedish and Norwegian (a Norwegian phone), still no English, axe-clean.
  await until(swede, () => document.querySelectorAll("#person-standings-body tr").length === 2);
  await speaksAndPasses(swede, "sv", "a rotating table's standings");
  await s.shot(swede, "standings-sv");
  const norwegian = await s.player("norwegian-phone", PHONE);
  await open(norwegian, `/t/${id}?lang=nb`);
  await until(norwegian, () => document.querySelectorAll("#person-standings-body tr").length === 2);
  await textMatches(norwegian, "#queue-join", /Still deg i køen/);
  await speaksAndPasses(norwegian, "nb", "a rotating table's standings on a phone");
}

/**
 * The queue in order with three waiting: a place in words ("3rd"), "You play next" while the
 * computer holds seats (it steps out first, so four come in), a place moving up when someone
 * ahead leaves, and someone who closed their page marked away.
 */
async function rotationQueue(s) {
  const id = await createTable("bughouse", {
    seating: "chosen", rotation: "rotate", bots: { 1: "easy", 2: "easy" },
    time_control: { kind: "sudden_death", base_seconds: 300 },
  });
  const ann = await s.player("ann");
  const dee = await s.player("dee");
  await open(ann, `/t/${id}`);
  await sit(ann, "Ann", "A-white");
  await open(dee, `/t/${id}`);
  await sit(dee, "Dee", "B-black");
  const join = async (label, name) => {
    const page = await s.player(label);
    await open(page, `/t/${id}`);
    await until(page, () => !document.getElementById("queue-form").hidden);
    await page.fill("#queue-name", name);
    await page.click("#queue-join");
    await until(page, () => !document.getElementById("queue-leave").hidden);
    return page;
  };
  const fay = await join("fay", "Fay");
  await textMatches(fay, "#rotation-status", /You play next\. You are 1st in the queue\./);
  const gus = await join("gus", "Gus");
  await textMatches(gus, "#rotation-status", /You play next\. You are 2nd in the queue\./);
  const eve = await join("eve", "Eve");
  // Two computer seats and two people step out after a game: the third waiting plays next too.
  await textMatches(eve, "#rotation-status", /You play next\. You are 3rd in the queue\./);
  const names = (page) => page.$$eval("#queue-list li .name", (items) => items.map((item) => item.textContent));
  check(JSON.stringify(await names(ann)) === JSON.stringify(["Fay", "Gus", "Eve"]), `the queue in order of arrival: ${await names(ann)}`);
  // Fay leaves: Eve moves up.
  await fay.click("#queue-leave");
  await textMatches(eve, "#rotation-status", /You are 2nd in the queue\./);
  await until(ann, () => document.querySelectorAll("#queue-list li").length === 2);
  // Gus closes his page: he keeps his place, marked away.
  await gus.close();
  await textMatches(ann, "#queue-list li:first-child", /Gus\s*away/);
  await textMatches(eve, "#queue-list li:first-child", /Gus\s*away/);
  await textMatches(eve, "#rotation-status", /You play next\. You are 2nd in the queue\./);
  await s.shot(eve, "queue");
}

/**
 * The full form: Taking turns (Bughouse) turns Rated off and offers only one game, says why, and
 * gives both back when the same four play on again; the partners' choice shows only while
 * people take turns; the table made says how it rotates.
 */
async function rotationForm(s) {
  const page = await s.player("host");
  await page.goto(`${BASE}/new?game=bughouse`);
  await until(page, () => !document.getElementById("create-button").disabled);
  check(await page.locator("#partners-fields").isHidden(), "no partners' choice while the same four play on");
  await page.check("#rated");
  await page.check('input[name="series"][value="best_of_3"]');
  await page.check('input[name="rotation"][value="winners_stay"]');
  check(await page.locator("#partners-fields").isVisible(), "the partners' choice shows while people take turns");
  check(await page.locator("#rated").isDisabled() && !(await page.isChecked("#rated")), "Rated is off while people take turns");
  check(/take turns/.test(await page.textContent("#rated-note")), "Rated says why it is off");
  check(await page.isChecked('input[name="series"][value="single"]') && await page.locator('input[name="series"][value="best_of_3"]').isDisabled(),
    "only one game is offered while people take turns");
  check(await page.locator("#series-rotation-note").isVisible() && await page.locator("#pause").isVisible(), "the series say why, and the pause is offered");
  // Back to the same four: the host's choices come back.
  await page.check('input[name="rotation"][value="fixed"]');
  check(await page.isChecked("#rated") && await page.isChecked('input[name="series"][value="best_of_3"]'), "Rated and best of 3 come back");
  check(await page.locator("#partners-fields").isHidden(), "the partners' choice goes again");
  // Everyone in turn, partners by lot: the table says so.
  await page.check('input[name="rotation"][value="rotate"]');
  await page.check('input[name="partners"][value="draw"]');
  await s.shot(page, "form");
  await Promise.all([page.waitForURL(/\/t\//), page.click("#create-button")]);
  await until(page, () => document.getElementById("conn").hidden && document.querySelector("#seats li"));
  await textMatches(page, "header .settings", /everyone plays in turn · partners drawn by lot/);
  await textMatches(page, "#rotation-mode", /Everyone plays in turn · partners drawn by lot/);
  // Seats are free: no queue yet, a hint to sit down instead.
  check(await page.locator("#queue-form").isHidden(), "no queue while seats are free");
  await textMatches(page, "#queue-hint", /A seat is free/);
}

/**
 * A page loaded between games, after the computer stepped out for Eve: the last game's result
 * is told with those who played it (the computer on A-black), not with Eve who sits there now.
 */
async function rotationReload(s) {
  const id = await createTable("bughouse", {
    seating: "chosen", rotation: "winners_stay", series_pause_seconds: 120,
    bots: { 1: "easy", 2: "easy", 3: "easy" }, time_control: { kind: "sudden_death", base_seconds: 300 },
  });
  const ann = await s.player("ann");
  await open(ann, `/t/${id}`);
  await sit(ann, "Ann", "A-white");
  await until(ann, () => /Board A: your move/.test(document.getElementById("turn").textContent));
  const eve = await s.player("eve");
  await open(eve, `/t/${id}`);
  await until(eve, () => !document.getElementById("queue-form").hidden);
  await eve.fill("#queue-name", "Eve");
  await eve.click("#queue-join");
  await textMatches(ann, "#queue-list", /Eve/);
  await ann.click("#resign");
  await textMatches(ann, "#rotation-status", /Eve came in/);
  const live = await ann.textContent("#turn");
  const visitor = await s.player("visitor");
  await open(visitor, `/t/${id}`);
  await textMatches(visitor, "#seats", /Eve/);
  const loaded = await visitor.textContent("#turn");
  check(/Computer \(easy\)/.test(loaded) && !/Eve/.test(loaded), `the loaded page names the last game's players: ${loaded}`);
  check(loaded === live, `the loaded page says what Ann's page says: ${loaded} / ${live}`);
  await s.shot(visitor, "loaded-between-games");
}

export default {
  "bughouse-rotation-reload": ["Taking turns: a page loaded between games tells the last result with those who played it, not those who came in", rotationReload],
  "bughouse-rotation-form": ["Taking turns on the full form: Rated and series off while chosen, and back; partners; the table says how it rotates", rotationForm],
  "bughouse-rotation-queue": ["Taking turns: three waiting in order (1st, 2nd, 3rd, You play next), one leaves and the last moves up, one who closed the page is marked away", rotationQueue],
  "bughouse-rotation": ["Bughouse taking turns: a phone joins the queue (place, You play next, leave, join by keyboard, chat), a game ends, the computer steps out for them, their page seats them; standings", bughouseRotation],
};
