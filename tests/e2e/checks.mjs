// What the language and accessibility scenarios check on a page: axe-core's serious and
// critical violations, and visible text or accessible names left in English on a Swedish or
// Norwegian page (names and notation aside).

import AxeBuilder from "@axe-core/playwright";

/** axe-core's serious and critical violations on the page, as lines of text. */
export async function axeProblems(page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
}

/** Words that show a text is English (none is also a Swedish or Norwegian word). */
export const ENGLISH = /\b(the|your|you|with|waiting|play|player|players|seat|seats|table|move|moves|game|games|turn|resign|draw|offer|rules|link|copy|share|computer|friend|options|here|when|which|what|this|that|there|of|sound|flip|connected|away|spectators?|watching|name|save|cancel|invite|chat|messages)\b/i;
/** What may stay as it is in every language: names and notation (a coordinate, a square, a move). */
const NAMES = /^(spelbord\.?|Lines of Action|Gomoku|Krux|Bughouse|English|Svenska|Norsk|Glicko-2|Ann|Bo|[A-Za-z]|[A-Za-z]?[0-9]+|[a-h][1-8]|[A-O][0-9]{1,2}|[×·—–:.,!?()\s0-9+«»‹›-]+)$/;
/** Proper names that may stand inside a sentence of any language. */
const PROPER_NAMES = /Lines of Action|Computer Olympiad|A Gamut of Games/g;

/**
 * Every visible text and accessible name (`aria-label`, `title`, `placeholder`, `alt`,
 * `data-empty`, button values) on the page that reads as English: a text of the English
 * catalogue `english` that the page's catalogue `local` words otherwise, or one with an English
 * word. Elements matching `skip` (a selector) are left to other scenarios.
 */
export async function englishLeft(page, { english = {}, local = {}, skip = "" } = {}) {
  const found = await page.evaluate((skip) => {
    const out = [];
    const visible = (el) => {
      if (!el || el.closest("[hidden], .lang-switch, script, style, noscript, code, .notation, [translate=no]")) return false;
      if (skip && el.closest(skip)) return false;
      const style = getComputedStyle(el);
      return style.display !== "none" && style.visibility !== "hidden";
    };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent.trim();
      if (text && visible(node.parentElement)) out.push(text);
    }
    const named = "[aria-label], [title], [placeholder], [alt], [data-empty], input[type=button], input[type=submit]";
    for (const el of document.querySelectorAll(named)) {
      if (!visible(el)) continue;
      for (const name of ["aria-label", "title", "placeholder", "alt", "data-empty"]) {
        const value = el.getAttribute(name);
        if (value) out.push(value.trim());
      }
      if (el.type === "button" || el.type === "submit") out.push(el.value.trim());
    }
    out.push(document.title);
    return out;
  }, skip);
  const englishTexts = new Set(Object.entries(english)
    .filter(([key, value]) => typeof value === "string" && local[key] !== value)
    .map(([, value]) => value));
  return [...new Set(found.map((text) => text.replace(/\s+/g, " ")))]
    .filter((text) => text && !NAMES.test(text) && (englishTexts.has(text) || ENGLISH.test(text.replace(PROPER_NAMES, ""))));
}
