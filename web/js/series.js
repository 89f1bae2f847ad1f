// Game after game at one table (docs/protocol.md, "Series"): the standings, the pause before a
// series' next game with its countdown and Ready, the series result, rematches, "new game" at
// casual tables and take-backs. table.js applies the table's events and hands this module the
// ones about series and agreements; it draws three places: #series-section (the standings),
// #between (between games) and #requests (during a game). See web/README.md.

import { $, el, button } from "./dom.js";
import { t, lang, formatNumber, formatRelative } from "./i18n.js";

const FORMATS = ["single", "best_of_3", "best_of_5", "first_to_3", "ten_games"];
/** A series format in words, e.g. "Best of 3" ("Bäst av 3"). */
export const formatText = (format) => (FORMATS.includes(format) ? t(`series.format.${format}`) : String(format).replace(/_/g, " "));

/** The most games a format plays (first to 3 has no limit). */
const MAX_GAMES = { best_of_3: 3, best_of_5: 5, ten_games: 10 };

/** "you and Anna (X)" in the page's language. */
const list = (items) => new Intl.ListFormat(lang, { style: "long", type: "conjunction" }).format(items);
const now = () => performance.now();

/**
 * The series part of the table page; `page` is what the table page shares (see table.js).
 * Returns `apply(msg)` (applies a series or agreement event to `page.table`; false if it is
 * not one), `setPause(ms)` (the pause before the next game, from a snapshot; null when none),
 * `render()` and `tick()` (the countdown, every 100 ms).
 */
export function seriesPanel(page) {
  const { isMine, roleOf, playerName, send, log, playing } = page;
  let nextGameAt = null; // performance.now() when the series' next game starts, during the pause

  const live = () => page.liveTable;
  /** A seat's role in the page's language ("vit" for `white`; table.js's `roleName`). */
  const role = (seat) => (page.roleName ? page.roleName(roleOf(seat)) : roleOf(seat));
  /** Another player within a sentence: "Anna (X)". */
  const other = (seat) => t("series.player", { name: playerName(seat), role: role(seat) });
  /**
   * A side's players: from the seats it holds in this game, so a computer is named in the
   * page's language ("Dator (lätt)"); the server's names ("Anna & Bo") when a seat is empty.
   */
  const sideName = (side) => {
    const seats = live().seats;
    return side.seats.every((s) => seats[s] && seats[s].player) ? list(side.seats.map(playerName)) : side.players;
  };
  /** Seats in a list, ours as "you": `object` for the object form ("waiting for: you" — sv "dig"). */
  const names = (seats, object = false) => list(seats.map((s) => (isMine(s) ? t(object ? "series.you_object" : "series.you") : other(s))));
  const seated = () => page.mySeats.length > 0;
  const mine = (seats) => page.mySeats.some((s) => seats.includes(s));
  /** Seats held by people: bots agree at once and are never waited for. */
  const people = () => live().seats.filter((s) => s.player && !s.player.bot).map((s) => s.seat);
  /** Agrees (ready, rematch, new game, take-back) for every seat of ours not yet in `agreed`. */
  function agree(type, agreed) {
    for (const seat of page.mySeats) if (!agreed.includes(seat)) send({ type, seat });
  }
  /** "You declined …" or "Anna (X) declined …": `key` + "_you" for our own seat. */
  const said = (key, seat) => (isMine(seat) ? t(`${key}_you`) : t(key, { name: other(seat) }));

  // ============================================================== events
  function apply(msg) {
    const table = live();
    switch (msg.type) {
      case "series_over":
        table.series = msg.series;
        if (msg.series.format !== "single") log(resultText(msg.series), "info");
        return true;
      case "next_game_in":
        setPause(msg.ms);
        table.ready = [];
        return true;
      case "ready":
        table.ready = [...new Set([...(table.ready || []), msg.seat])];
        return true;
      case "rematch_offered":
        table.rematch_agreed = msg.agreed;
        return true;
      case "rematch_declined":
        table.rematch_agreed = [];
        log(said("series.rematch.declined", msg.seat), "info");
        return true;
      case "new_game_offered":
        table.new_game_agreed = msg.agreed;
        return true;
      case "new_game_declined":
        table.new_game_agreed = [];
        log(said("series.new_game.declined", msg.seat), "info");
        return true;
      case "undo_offered":
        table.undo_agreed = [msg.seat];
        return true;
      case "undo_declined":
        table.undo_agreed = [];
        log(said("series.undo.declined", msg.seat), "info");
        return true;
    }
    return false;
  }

  /** The pause before the series' next game: `ms` from now, or none (null). */
  function setPause(ms) {
    live().next_game_in_ms = ms ?? null;
    nextGameAt = ms == null ? null : now() + ms;
  }

  // ============================================================== words
  /** The side holding one of our seats, if any. */
  const ourSide = (series) => series.standings.find((side) => mine(side.seats));

  /** "Anna won the series 2–1.", "You won …", "The series is a tie, 1–1." (points for ten games). */
  function resultText(series) {
    const [a, b] = series.standings;
    const points = series.format === "ten_games" ? "_points" : "";
    const score = (x) => formatNumber(points ? x.points : x.wins);
    if (series.result === "win") {
      const winner = series.standings.find((side) => side.side === series.winner) || a;
      const loser = winner === a ? b : a;
      const params = { players: sideName(winner), a: score(winner), b: score(loser) };
      return t(`series.result.${ourSide(series) === winner ? "you_won" : "won"}${points}`, params);
    }
    return t(`series.result.tie${points}`, { a: score(a), b: score(b) });
  }

  /** "Best of 3 · game 2 of at most 3", with the series' number from the second on. */
  function headText(series) {
    const max = MAX_GAMES[series.format];
    const format = series.number > 1
      ? t("series.head.numbered", { format: formatText(series.format), number: series.number })
      : formatText(series.format);
    const game = !max ? t("series.head.game", { game: series.game })
      : t(series.format.startsWith("best_of") ? "series.head.game_of_at_most" : "series.head.game_of", { game: series.game, max });
    return `${format} · ${game}`;
  }

  // ============================================================== drawing
  function render() {
    renderStandings();
    renderBetween();
    renderRequests();
  }

  /** The standings: each side's players, the seats it holds, W/D/L and points. */
  function renderStandings() {
    const series = live().series;
    const section = $("series-section");
    section.hidden = !series || series.format === "single";
    if (section.hidden) return;
    const body = $("series-body");
    body.replaceChildren(el("p", "series-head", headText(series)));
    const grid = el("table", "standings");
    grid.setAttribute("aria-label", t("series.standings"));
    const head = el("tr");
    for (const [key, abbreviated] of [["side", false], ["plays", false], ["wins", true], ["draws", true], ["losses", true], ["points", true]]) {
      const th = el("th");
      th.scope = "col";
      if (abbreviated) {
        // A short heading ("W"), its word for screen readers and as a tooltip.
        const abbr = el("abbr", "", t(`series.col.${key}`));
        abbr.title = t(`series.col.${key}_title`);
        th.append(abbr);
        th.setAttribute("aria-label", t(`series.col.${key}_title`));
      } else {
        th.textContent = t(`series.col.${key}`);
        th.title = t(`series.col.${key}_title`);
      }
      head.append(th);
    }
    grid.append(el("thead"), el("tbody"));
    grid.tHead.append(head);
    for (const side of series.standings) {
      const row = el("tr");
      row.classList.toggle("you", mine(side.seats));
      const won = series.decided && series.result === "win" && side.side === series.winner;
      row.classList.toggle("winner", won);
      const who = el("td", "side-name", sideName(side));
      if (mine(side.seats)) who.append(" ", el("span", "badge", t("series.you_badge")));
      if (won) who.append(el("span", "visually-hidden", ` (${t("series.winner")})`));
      row.append(who, el("td", "muted", list(side.seats.map(role))));
      for (const n of [side.wins, side.draws, side.losses, side.points]) row.append(el("td", "num", formatNumber(n)));
      grid.tBodies[0].append(row);
    }
    body.append(grid);
    if (series.decided) body.append(el("p", "series-result", resultText(series)));
  }

  /** Between games: the countdown and Ready during a series' pause; the result and rematches after it. */
  function renderBetween() {
    const table = live();
    const series = table.series;
    const box = $("between");
    box.replaceChildren();
    if (table.status === "finished" && nextGameAt != null) {
      const line = el("p", "countdown");
      line.id = "next-game";
      line.setAttribute("role", "timer"); // counted down every second: not read out at each change
      box.append(line);
      const ready = table.ready || [];
      const row = el("div", "buttons");
      if (seated() && !mine(ready)) row.append(button(t("series.ready"), t("series.ready_label"), () => agree("ready", ready)));
      const waiting = people().filter((s) => !ready.includes(s));
      const words = ready.length === 0 ? t("series.ready_hint")
        : waiting.length ? t("series.ready_waiting", { ready: names(ready), waiting: names(waiting, true) })
          : t("series.ready_all", { ready: names(ready) });
      row.append(el("span", "muted", words));
      box.append(row);
    } else if (series && series.decided && table.status !== "playing") {
      if (series.format !== "single") box.append(el("p", "series-result", t("series.over", { result: resultText(series) })));
      if (table.status === "finished") renderRematch(box);
    }
    box.hidden = box.children.length === 0;
    tick();
  }

  /** After a decided series: Rematch, or the standing offer with Accept and Decline. */
  function renderRematch(box) {
    const agreed = live().rematch_agreed || [];
    const format = live().series.format;
    const row = el("div", "buttons");
    if (agreed.length === 0) {
      if (seated()) {
        const label = format === "single" ? t("series.rematch.offer_label_single")
          : t("series.rematch.offer_label_series", { format: formatText(format) });
        row.append(button(t("series.rematch.offer"), label, () => agree("offer_rematch", agreed)));
      }
    } else {
      const pending = people().filter((s) => !agreed.includes(s));
      const others = agreed.filter((s) => !isMine(s));
      let text;
      if (mine(agreed)) {
        text = pending.length ? t("series.rematch.you_offered_waiting", { waiting: names(pending, true) }) : t("series.rematch.you_offered");
      } else {
        const params = { names: names(others), count: others.length, waiting: names(pending, true) };
        text = pending.length > 1 ? t("series.rematch.offered_waiting", params) : t("series.rematch.offered", params);
      }
      row.append(el("span", "note", text));
      if (seated() && !mine(agreed)) {
        row.append(button(t("series.rematch.accept"), "", () => agree("accept_rematch", agreed)),
          button(t("series.decline"), t("series.rematch.decline_label"), () => send({ type: "decline_rematch", seat: page.mySeats[0] }), "secondary"));
      }
    }
    if (row.children.length) box.append(row);
  }

  /** During a game: take-backs (tables with undo) and "new game" (casual tables). */
  function renderRequests() {
    const box = $("requests");
    box.replaceChildren();
    const table = live();
    if (playing() && table.settings.undo) {
      request(box, table.undo_agreed || [], "series.undo", {
        ask: () => {
          // The game goes back to just before the asker's most recent move.
          const last = [...table.moves].reverse().find((m) => isMine(m.seat));
          if (last) send({ type: "offer_undo", seat: last.seat });
        },
        canAsk: table.moves.some((m) => isMine(m.seat)),
        accept: "accept_undo", decline: "decline_undo",
      });
    }
    if (playing() && !table.settings.rated && (table.settings.series || "single") === "single") {
      request(box, table.new_game_agreed || [], "series.new_game", {
        ask: () => {
          const alone = people().every(isMine); // the computer agrees at once: this game ends now
          if (!alone || confirm(t("series.new_game.confirm"))) agree("offer_new_game", []);
        },
        canAsk: true,
        accept: "accept_new_game", decline: "decline_new_game",
      });
    }
    box.hidden = box.children.length === 0;
  }

  /**
   * One kind of request (`keys`: "series.undo" or "series.new_game"): the button to ask, or the
   * standing request with Accept and Decline.
   */
  function request(box, agreed, keys, r) {
    if (agreed.length === 0) {
      if (!seated()) return;
      const b = button(t(`${keys}.ask`), t(`${keys}.ask_label`), r.ask, "secondary");
      b.disabled = !r.canAsk;
      box.append(b);
      return;
    }
    const pending = people().filter((s) => !agreed.includes(s));
    const asker = agreed[0];
    const key = `${keys}.${isMine(asker) ? "you_asked" : "asks"}${pending.length ? "_waiting" : ""}`;
    box.append(el("p", "note", t(key, { name: other(asker), waiting: names(pending, true) })));
    if (seated() && !mine(agreed)) {
      box.append(button(t(`${keys}.accept`), "", () => agree(r.accept, agreed)),
        button(t("series.decline"), t(`${keys}.decline_label`), () => send({ type: r.decline, seat: page.mySeats[0] }), "secondary"));
    }
  }

  /** The countdown to the series' next game: "Game 2 of the series starts in 7 seconds." */
  function tick() {
    const line = document.getElementById("next-game");
    if (!line || nextGameAt == null || !live().series) return;
    const secs = Math.ceil(Math.max(0, nextGameAt - now()) / 1000);
    // A single game's series goes on only after an aborted game: "the next game".
    const single = live().series.format === "single";
    const game = live().series.game + 1;
    const text = secs > 0
      ? t(single ? "series.next.in_single" : "series.next.in", { game, when: formatRelative(secs, "second") })
      : t(single ? "series.next.starting_single" : "series.next.starting", { game });
    if (line.textContent !== text) line.textContent = text;
  }

  return { apply, setPause, render, tick };
}
