// The statistics page (web/stats.html): for every game, GET /api/stats/{game} (optionally
// ?humans=true) and one table per variant: games, wins by the first and the second player (or
// team), draws, and the same split per result reason. See docs/protocol.md.

import { $, el } from "./dom.js";

const GAMES = [
  ["gomoku", "Gomoku"],
  ["lines-of-action", "Lines of Action"],
  ["krux", "Krux"],
  ["bughouse", "Bughouse"],
];

/** "X", or "A-white & B-black" for a team. */
const sideName = (side) => side.roles.join(" & ");

/** A variant's settings as words: "variant free, board_size 15". */
function variantName(settings) {
  const parts = Object.entries(settings).map(([key, value]) => `${key.replace("_", " ")} ${value}`);
  return parts.length ? parts.join(", ") : "all games";
}

const pct = (share) => `${share.count} (${share.percent.toFixed(1)} %)`;

/** One table: the totals of a variant, then one row per result reason. */
function countsTable(counts, sides) {
  const table = el("table", "stats");
  const head = el("thead");
  const headRow = el("tr");
  for (const title of ["", "games", `${sideName(sides.first)} won`, `${sideName(sides.second)} won`, "draws"]) {
    headRow.append(el("th", null, title));
  }
  head.append(headRow);
  const body = el("tbody");
  const row = (cells, strong) => {
    const tr = el("tr");
    cells.forEach((text, i) => tr.append(el(i === 0 && strong ? "th" : "td", null, String(text))));
    body.append(tr);
  };
  row(["all", counts.games, pct(counts.first_wins), pct(counts.second_wins), pct(counts.draws)], true);
  for (const reason of counts.by_reason) {
    row([`by ${reason.reason.replaceAll("_", " ")} (${reason.percent.toFixed(1)} %)`, reason.games,
      reason.first_wins, reason.second_wins, reason.draws]);
  }
  table.append(head, body);
  return table;
}

/** The coloured bar of a variant's shares. */
function bar(counts) {
  const box = el("div", "bar");
  box.setAttribute("aria-hidden", "true");
  for (const [cls, share] of [["first", counts.first_wins], ["second", counts.second_wins], ["draw", counts.draws]]) {
    const part = el("span", cls);
    part.style.setProperty("width", `${share.percent}%`);
    box.append(part);
  }
  return box;
}

async function showGame(id, name, humans, into) {
  const section = el("section");
  section.append(el("h2", null, name));
  into.append(section);
  try {
    const response = await fetch(`/api/stats/${id}${humans ? "?humans=true" : ""}`);
    const body = await response.json();
    if (!response.ok) throw new Error(body.error?.message ?? response.statusText);
    const teams = body.sides.first.roles.length > 1;
    section.append(el("p", "muted", teams
      ? `Team 1: ${sideName(body.sides.first)} (white on board A). Team 2: ${sideName(body.sides.second)}. ${body.total.games} games counted.`
      : `First: ${sideName(body.sides.first)} (moves first). Second: ${sideName(body.sides.second)}. ${body.total.games} games counted.`));
    if (body.variants.length === 0) {
      section.append(el("p", "muted", "No finished games yet."));
      return;
    }
    for (const variant of body.variants) {
      if (body.variants.length > 1 || body.variant_settings.length > 0) section.append(el("h3", null, variantName(variant.settings)));
      section.append(bar(variant), countsTable(variant, body.sides));
    }
  } catch (err) {
    section.append(el("p", "error", `The statistics could not be loaded: ${err.message}`));
  }
}

async function showAll() {
  const into = $("games");
  into.replaceChildren();
  const humans = $("humans").checked;
  for (const [id, name] of GAMES) await showGame(id, name, humans, into);
}

$("humans").addEventListener("change", showAll);
showAll();
