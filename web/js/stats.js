// The statistics page (web/stats.html): for every game, GET /api/stats/{game} (optionally
// ?humans=true) and one table per variant: games, wins by the first and the second player (or
// team), draws, and the same split per result reason. See docs/protocol.md.

import { $, el } from "./dom.js";
import { t, has, formatNumber } from "./i18n.js";

const GAMES = ["gomoku", "lines-of-action", "krux", "bughouse"];

/** The first or second side of `game` in words ("X", "Black", "Team 1"). */
const sideName = (game, which) => t(`stats.side.${game}.${which}`);

/** A percentage as the page's language writes it ("12.5 %", "12,5 %"). */
const percent = (value) => formatNumber(value / 100, { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** A variant's settings in words: "15 × 15, Free". */
function variantName(settings) {
  const parts = [];
  if (settings.board_size !== undefined) parts.push(`${settings.board_size}\u00a0×\u00a0${settings.board_size}`);
  if (settings.variant !== undefined) parts.push(has(`new.variant.${settings.variant}`) ? t(`new.variant.${settings.variant}`) : String(settings.variant));
  if (settings.simultaneous !== undefined) {
    const key = `stats.simultaneous.${settings.simultaneous}`;
    parts.push(has(key) ? t(key) : String(settings.simultaneous));
  }
  return parts.length ? parts.join(", ") : t("stats.all_games");
}

/** A result reason in words ("Resignation"); an unknown one as it is sent. */
const reasonName = (reason) => (has(`stats.reason.${reason}`) ? t(`stats.reason.${reason}`) : reason.replaceAll("_", " "));

const share = (part) => t("stats.share", { count: formatNumber(part.count), percent: percent(part.percent) });

/** One table: the totals of a variant, then one row per result reason. */
function countsTable(game, counts, caption) {
  const table = el("table", "stats");
  table.append(el("caption", "visually-hidden", caption));
  const head = el("thead");
  const headRow = el("tr");
  const titles = ["", t("stats.col.games"), t("stats.col.won", { side: sideName(game, "first") }),
    t("stats.col.won", { side: sideName(game, "second") }), t("stats.col.draws")];
  titles.forEach((title, i) => {
    const th = el("th", null, title);
    th.setAttribute("scope", "col");
    if (i === 0) th.append(el("span", "visually-hidden", t("stats.col.result")));
    headRow.append(th);
  });
  head.append(headRow);
  const body = el("tbody");
  const row = (cells) => {
    const tr = el("tr");
    cells.forEach((text, i) => {
      const cell = el(i === 0 ? "th" : "td", null, String(text));
      if (i === 0) cell.setAttribute("scope", "row");
      tr.append(cell);
    });
    body.append(tr);
  };
  row([t("stats.row.all"), formatNumber(counts.games), share(counts.first_wins), share(counts.second_wins), share(counts.draws)]);
  for (const reason of counts.by_reason) {
    row([t("stats.row.reason", { reason: reasonName(reason.reason), percent: percent(reason.percent) }),
      formatNumber(reason.games), formatNumber(reason.first_wins), formatNumber(reason.second_wins), formatNumber(reason.draws)]);
  }
  table.append(head, body);
  return table;
}

/** The coloured bar of a variant's shares. */
function bar(counts) {
  const box = el("div", "bar");
  box.setAttribute("aria-hidden", "true");
  for (const [cls, part] of [["first", counts.first_wins], ["second", counts.second_wins], ["draw", counts.draws]]) {
    const span = el("span", cls);
    span.style.setProperty("width", `${part.percent}%`);
    box.append(span);
  }
  return box;
}

async function showGame(game, humans, into) {
  const section = el("section");
  const name = t(`common.game.${game}`);
  section.append(el("h2", null, name));
  into.append(section);
  try {
    const response = await fetch(`/api/stats/${game}${humans ? "?humans=true" : ""}`);
    const body = await response.json();
    if (!response.ok) throw new Error(String(response.status));
    const teams = body.sides.first.roles.length > 1;
    const who = teams ? t("stats.teams") : t("stats.first_moves", { first: sideName(game, "first") });
    section.append(el("p", "muted", `${who} ${t("stats.counted", { count: body.total.games })}`));
    if (body.variants.length === 0) {
      section.append(el("p", "muted", t("stats.no_games")));
      return;
    }
    for (const variant of body.variants) {
      const variantTitle = variantName(variant.settings);
      if (body.variants.length > 1 || body.variant_settings.length > 0) section.append(el("h3", null, variantTitle));
      section.append(bar(variant), countsTable(game, variant, `${name}: ${variantTitle}`));
    }
  } catch {
    section.append(el("p", "error", t("stats.error")));
  }
}

async function showAll() {
  const into = $("games");
  into.setAttribute("aria-busy", "true");
  into.replaceChildren();
  const humans = $("humans").checked;
  for (const game of GAMES) await showGame(game, humans, into);
  into.setAttribute("aria-busy", "false");
}

$("humans").addEventListener("change", showAll);
showAll();
