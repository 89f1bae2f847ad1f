// The page's language and its catalogue: every sentence the client shows comes from here.
//
// The server chose the language (`?lang=`, the remembered cookie, then `Accept-Language`;
// English as the fallback) and wrote it into `<html lang>`; this module loads that language's
// catalogue (`/static/i18n/{lang}.json`, with any missing key already filled from English by the
// server; only the key groups the page names in `<html data-catalogue>`, when it names them)
// before any module that imports it runs (top-level await).
//
// `t(key, params)` gives the text with `{name}` parameters filled in. A key whose value is a
// plural object (`{"one": "…", "other": "…"}`) is chosen by `Intl.PluralRules` from
// `params.count`, which is written with `Intl.NumberFormat`. A key the catalogue lacks shows
// itself, so a missing text is visible (and the catalogue test catches it first).

/** The page's language code: `en`, `sv` or `nb`. */
export const lang = ["en", "sv", "nb"].includes(document.documentElement.lang) ? document.documentElement.lang : "en";

// The key groups this page shows (`<html data-catalogue="common home">`), or every key.
const groups = (document.documentElement.dataset.catalogue || "").trim().split(/\s+/).filter(Boolean);
const address = `/static/i18n/${lang}.json${groups.length ? `?only=${groups.join(",")}` : ""}`;

const catalogue = await fetch(address)
  .then((response) => (response.ok ? response.json() : {}))
  .catch(() => ({}));

const plurals = new Intl.PluralRules(lang);
const numbers = new Intl.NumberFormat(lang);
const relative = new Intl.RelativeTimeFormat(lang, { numeric: "auto" });

/** The text of `key` in the page's language with `{param}`s filled from `params`. */
export function t(key, params = {}) {
  let text = catalogue[key];
  if (text === undefined) return key;
  if (typeof text === "object") text = text[plurals.select(Number(params.count ?? 0))] ?? text.other;
  return String(text).replace(/\{(\w+)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    const value = params[name];
    return typeof value === "number" ? numbers.format(value) : String(value);
  });
}

/** Whether the catalogue has `key` (for texts chosen by a server code that may be new). */
export function has(key) {
  return key in catalogue;
}

/** A number in the page's language (`options` as for `Intl.NumberFormat`). */
export function formatNumber(value, options) {
  return options ? new Intl.NumberFormat(lang, options).format(value) : numbers.format(value);
}

/** "in 3 minutes", "2 days ago", … in the page's language (`unit` as for `Intl.RelativeTimeFormat`). */
export function formatRelative(value, unit) {
  return relative.format(value, unit);
}
