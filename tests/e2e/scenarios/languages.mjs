// Every page in every language, and usable by everyone: the language chosen from `?lang=`, then
// the remembered choice, then the browser's languages; the switcher on every page; no English
// left on a Swedish or Norwegian page (but names and notation); and axe-core's accessibility
// rules with no serious or critical violation, on a desktop and on a phone, in every language.

import { join } from "node:path";
import { BASE, DOCS_SHOTS, until, check, createTable, open } from "../harness.mjs";
import { axeProblems, englishLeft, ENGLISH } from "../checks.mjs";

const LANGS = ["en", "sv", "nb"];
const DESKTOP = { viewport: { width: 1280, height: 800 } };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

/** The pages a visitor can reach, each a path (a table's made fresh; `ready` waits for its script). */
async function pages() {
  const gomoku = await createTable("gomoku", { bots: { 1: "easy" } });
  const bughouse = await createTable("bughouse", { bots: { 1: "easy", 2: "easy", 3: "easy" } });
  const krux = await createTable("krux", {});
  const loa = await createTable("lines-of-action", {});
  return [
    { path: "/", name: "home" },
    { path: "/new", name: "new" },
    { path: "/stats", name: "stats", ready: (p) => until(p, () => document.querySelector("main table, main .empty, main section")) },
    ...["gomoku", "lines-of-action", "krux", "bughouse"].map((game) => ({ path: `/rules/${game}`, name: `rules-${game}` })),
    { path: `/t/${gomoku}`, name: "table-gomoku", table: true },
    { path: `/t/${loa}`, name: "table-loa", table: true },
    { path: `/t/${krux}`, name: "table-krux", table: true },
    { path: `/t/${bughouse}`, name: "table-bughouse", table: true },
  ];
}

/** Opens `path` in `lang` and waits for the page to be ready. */
async function visit(page, entry, lang) {
  const url = `${entry.path}${entry.path.includes("?") ? "&" : "?"}lang=${lang}`;
  if (entry.table) await open(page, url);
  // Its own requests (the statistics, the catalogue) done, so none is cut off by the next visit.
  else await page.goto(`${BASE}${url}`, { waitUntil: "networkidle" });
  if (entry.ready) await entry.ready(page);
}

async function catalogue(lang) {
  const response = await fetch(`${BASE}/static/i18n/${lang}.json`);
  check(response.ok, `GET /static/i18n/${lang}.json answered ${response.status}`);
  return response.json();
}

/** Each page in each language on a desktop and a phone: lang, title, switcher, no English left, axe. */
async function everyPageEveryLanguage(s, viewportName, viewport) {
  const english = await catalogue("en");
  const problems = [];
  const entries = await pages();
  const page = await s.player(`${viewportName}`, viewport);
  for (const lang of LANGS) {
    const local = await catalogue(lang);
    for (const entry of entries) {
      await visit(page, entry, lang);
      const where = `${entry.name} (${lang}, ${viewportName})`;
      const htmlLang = await page.evaluate(() => document.documentElement.lang);
      if (htmlLang !== lang) problems.push(`${where}: <html lang="${htmlLang}">`);
      const switcher = await page.locator(".lang-switch a").count();
      if (switcher !== 3) problems.push(`${where}: the language switcher has ${switcher} links`);
      if (!(await page.locator(".skip-link").count())) problems.push(`${where}: no skip link`);
      if (lang !== "en") {
        for (const text of await englishLeft(page, { english, local })) problems.push(`${where}: English left: "${text}"`);
      }
      for (const violation of await axeProblems(page)) problems.push(`${where}: axe: ${violation}`);
      if (lang === "sv" && viewportName === "desktop") await s.shot(page, `${entry.name}-${lang}`);
    }
  }
  check(problems.length === 0, `${problems.length} problems:\n  ${problems.map((p) => p.slice(0, 240)).join("\n  ")}`);
}

/** The language comes from ?lang=, then the remembered choice, then the browser's languages. */
async function choosing(s) {
  // The browser's languages (Accept-Language, navigator.languages).
  const swede = await s.player("swede", { locale: "sv-SE" });
  await swede.goto(`${BASE}/`, { waitUntil: "networkidle" }); // its scripts loaded before the switcher leaves the page
  check(await swede.evaluate(() => document.documentElement.lang) === "sv", "a sv-SE browser gets the Swedish home page");
  const norwegian = await s.player("norwegian", { locale: "nb-NO" });
  await norwegian.goto(`${BASE}/stats`, { waitUntil: "networkidle" }); // its requests done before we move on
  check(await norwegian.evaluate(() => document.documentElement.lang) === "nb", "a nb-NO browser gets the Norwegian stats page");
  const other = await s.player("finn", { locale: "fi-FI" });
  await other.goto(`${BASE}/`);
  check(await other.evaluate(() => document.documentElement.lang) === "en", "a Finnish browser gets English (the fallback)");

  // The switcher: a click changes the page's language and is remembered on the next page.
  await swede.click('.lang-switch a[hreflang="en"]');
  await until(swede, () => document.documentElement.lang === "en");
  check(await swede.locator('.lang-switch a[aria-current="true"]').getAttribute("hreflang") === "en", "the switcher marks English");
  await swede.goto(`${BASE}/stats`, { waitUntil: "networkidle" }); // its requests done before we move on
  check(await swede.evaluate(() => document.documentElement.lang) === "en", "the chosen English is remembered over the browser's Swedish");

  // A table page follows the remembered choice too, and its script speaks the language.
  const id = await createTable("gomoku", { bots: { 1: "easy" } });
  await swede.click('.lang-switch a[hreflang="nb"]');
  await until(swede, () => document.documentElement.lang === "nb");
  await swede.waitForLoadState("networkidle"); // the statistics' requests done before we leave
  await open(swede, `/t/${id}`);
  check(await swede.evaluate(() => document.documentElement.lang) === "nb", "the table page follows the remembered Norwegian");
  const title = await swede.title();
  check(!ENGLISH.test(title), `the Norwegian table page's title is not English: ${title}`);
}

export default {
  "languages-chosen": ["the language from ?lang=, the remembered choice, the browser's languages; the switcher", choosing],
  "languages-desktop": ["every page in every language at 1280×800: lang, switcher, skip link, no English left, axe-core", (s) => everyPageEveryLanguage(s, "desktop", DESKTOP)],
  "front-door-pictures": ["the home page and a table against the computer in Swedish and English (the README's pictures)", frontDoorPictures],
  "languages-phone": ["every page in every language at 390×844: lang, switcher, skip link, no English left, axe-core", (s) => everyPageEveryLanguage(s, "phone", PHONE)],
};

/**
 * The README's pictures of the front door: the home page and a table against the computer
 * (one move each) in Swedish and English, at 1280 × 800. Saved as artifacts always, and to
 * docs/screenshots/ with E2E_DOCS_SCREENSHOTS=1.
 */
async function frontDoorPictures(s) {
  for (const lang of ["sv", "en"]) {
    const page = await s.player(`pictures-${lang}`, DESKTOP);
    await page.goto(`${BASE}/?lang=${lang}`);
    await shoot(s, page, `home-${lang}`);
    const id = await createTable("gomoku", { seating: "chosen", bots: { 1: "easy" } });
    await open(page, `/t/${id}?lang=${lang}#play`);
    await until(page, () => document.querySelector("#seats .badge"));
    await page.click('#board .cell[data-at="H8"]');
    await until(page, () => document.querySelectorAll('#board .cell:not([data-stone="."])').length >= 2);
    await until(page, () => document.getElementById("turn").classList.contains("mine"));
    // Nobody watches: the count of our own arrival before we sat is gone (within a second).
    await until(page, () => !/\d/.test(document.getElementById("spectators").textContent));
    await page.mouse.move(0, 0); // no point under the pointer
    await shoot(s, page, `table-${lang}`);
  }
}

/** A picture of the viewport: an artifact, and with E2E_DOCS_SCREENSHOTS=1 the README's. */
async function shoot(s, page, name) {
  await s.shot(page, name);
  if (DOCS_SHOTS) await page.screenshot({ path: join(DOCS_SHOTS, `${name}.png`) });
}
