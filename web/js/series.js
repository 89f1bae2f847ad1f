// Game after game at one table (docs/protocol.md, "Series"): the standings, the pause before a
// series' next game with its countdown and Ready, the series result, rematches, "new game" at
// casual tables and take-backs. table.js applies the table's events and hands this module the
// ones about series and agreements; it draws three places: #series-section (the standings),
// #between (between games) and #requests (during a game). See web/README.md.

import { $, el, button } from "./dom.js";

const FORMATS = {
  single: "One game", best_of_3: "Best of 3", best_of_5: "Best of 5", first_to_3: "First to 3 wins", ten_games: "Ten games on points",
};
/** A series format in words, e.g. "Best of 3". */
export const formatText = (format) => FORMATS[format] || String(format).replace(/_/g, " ");

/** The most games a format plays (first to 3 has no limit). */
const MAX_GAMES = { best_of_3: 3, best_of_5: 5, ten_games: 10 };

const cap = (text) => text.charAt(0).toUpperCase() + text.slice(1);
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

  const t = () => page.liveTable;
  /** "you", or "Anna (X)". */
  const name = (seat) => (isMine(seat) ? "you" : `${playerName(seat)} (${roleOf(seat)})`);
  const names = (seats) => seats.map(name).join(", ");
  const seated = () => page.mySeats.length > 0;
  const mine = (seats) => page.mySeats.some((s) => seats.includes(s));
  /** Seats held by people: bots agree at once and are never waited for. */
  const people = () => t().seats.filter((s) => s.player && !s.player.bot).map((s) => s.seat);
  /** Agrees (ready, rematch, new game, take-back) for every seat of ours not yet in `agreed`. */
  function agree(type, agreed) {
    for (const seat of page.mySeats) if (!agreed.includes(seat)) send({ type, seat });
  }

  // ============================================================== events
  function apply(msg) {
    const table = t();
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
        log(`${cap(name(msg.seat))} declined the rematch.`, "info");
        return true;
      case "new_game_offered":
        table.new_game_agreed = msg.agreed;
        return true;
      case "new_game_declined":
        table.new_game_agreed = [];
        log(`${cap(name(msg.seat))} declined a new game.`, "info");
        return true;
      case "undo_offered":
        table.undo_agreed = [msg.seat];
        return true;
      case "undo_declined":
        table.undo_agreed = [];
        log(`${cap(name(msg.seat))} declined the take-back.`, "info");
        return true;
    }
    return false;
  }

  /** The pause before the series' next game: `ms` from now, or none (null). */
  function setPause(ms) {
    t().next_game_in_ms = ms ?? null;
    nextGameAt = ms == null ? null : now() + ms;
  }

  // ============================================================== words
  /** The side holding one of our seats, if any. */
  const ourSide = (series) => series.standings.find((side) => mine(side.seats));

  /** "Anna won the series 2–1.", "You won …", "The series is a tie, 1–1." (points for ten games). */
  function resultText(series) {
    const [a, b] = series.standings;
    const onPoints = series.format === "ten_games";
    const score = (x, y) => (onPoints ? `${x.points}–${y.points} on points` : `${x.wins}–${y.wins}`);
    if (series.result === "win") {
      const winner = series.standings.find((side) => side.side === series.winner) || a;
      const loser = winner === a ? b : a;
      return `${ourSide(series) === winner ? "You" : winner.players} won the series ${score(winner, loser)}.`;
    }
    return `The series is a tie, ${score(a, b)}.`;
  }

  /** "Best of 3 · game 2 of at most 3", with the series' number from the second on. */
  function headText(series) {
    const max = MAX_GAMES[series.format];
    const of = max ? ` of ${series.format.startsWith("best_of") ? "at most " : ""}${max}` : "";
    return `${formatText(series.format)}${series.number > 1 ? ` (series ${series.number})` : ""} · game ${series.game}${of}`;
  }

  // ============================================================== drawing
  function render() {
    renderStandings();
    renderBetween();
    renderRequests();
  }

  /** The standings: each side's players, the seats it holds, W/D/L and points. */
  function renderStandings() {
    const series = t().series;
    const section = $("series-section");
    section.hidden = !series || series.format === "single";
    if (section.hidden) return;
    const body = $("series-body");
    body.replaceChildren(el("p", "series-head", headText(series)));
    const grid = el("table", "standings");
    const head = el("tr");
    for (const [text, title] of [["Side", ""], ["Plays", "the seats this side holds in this game"], ["W", "wins"], ["D", "draws"], ["L", "losses"], ["Pts", "points: win 3, draw 1"]]) {
      const th = el("th", "", text);
      if (title) th.title = title;
      head.append(th);
    }
    grid.append(el("thead"), el("tbody"));
    grid.tHead.append(head);
    for (const side of series.standings) {
      const row = el("tr");
      row.classList.toggle("you", mine(side.seats));
      row.classList.toggle("winner", series.decided && series.result === "win" && side.side === series.winner);
      const who = el("td", "side-name", side.players);
      if (mine(side.seats)) who.append(" ", el("span", "badge", "you"));
      row.append(who, el("td", "muted", side.seats.map(roleOf).join(", ")));
      for (const n of [side.wins, side.draws, side.losses, side.points]) row.append(el("td", "num", String(n)));
      grid.tBodies[0].append(row);
    }
    body.append(grid);
    if (series.decided) body.append(el("p", "series-result", resultText(series)));
  }

  /** Between games: the countdown and Ready during a series' pause; the result and rematches after it. */
  function renderBetween() {
    const table = t();
    const series = table.series;
    const box = $("between");
    box.replaceChildren();
    if (table.status === "finished" && nextGameAt != null) {
      const line = el("p", "countdown");
      line.id = "next-game";
      box.append(line);
      const ready = table.ready || [];
      const row = el("div", "buttons");
      if (seated() && !mine(ready)) row.append(button("Ready", "Ready: start the next game sooner", () => agree("ready", ready)));
      const waiting = people().filter((s) => !ready.includes(s));
      row.append(el("span", "muted", ready.length
        ? `Ready: ${names(ready)}.${waiting.length ? ` Waiting for: ${names(waiting)}.` : ""}`
        : "It starts sooner when every player presses Ready."));
      box.append(row);
    } else if (series && series.decided && table.status !== "playing") {
      if (series.format !== "single") box.append(el("p", "series-result", `Series over: ${resultText(series)}`));
      if (table.status === "finished") renderRematch(box);
    }
    box.hidden = box.children.length === 0;
    tick();
  }

  /** After a decided series: Rematch, or the standing offer with Accept and Decline. */
  function renderRematch(box) {
    const agreed = t().rematch_agreed || [];
    const format = t().series.format;
    const row = el("div", "buttons");
    if (agreed.length === 0) {
      if (seated()) {
        row.append(button("Rematch", `Offer a rematch: ${format === "single" ? "another game" : `a new ${formatText(format).toLowerCase()} series`} with the same players`,
          () => agree("offer_rematch", agreed)));
      }
    } else {
      const pending = people().filter((s) => !agreed.includes(s));
      const others = agreed.filter((s) => !isMine(s));
      const text = mine(agreed)
        ? `You offered a rematch${pending.length ? ` — waiting for: ${names(pending)}` : ""}.`
        : `${cap(names(others))} ${others.length === 1 ? "offers" : "offer"} a rematch${pending.length > 1 ? ` — waiting for: ${names(pending)}` : ""}.`;
      row.append(el("span", "note", text));
      if (seated() && !mine(agreed)) {
        row.append(button("Accept rematch", "Accept the rematch", () => agree("accept_rematch", agreed)),
          button("Decline", "Decline the rematch", () => send({ type: "decline_rematch", seat: page.mySeats[0] }), "secondary"));
      }
    }
    if (row.children.length) box.append(row);
  }

  /** During a game: take-backs (tables with undo) and "new game" (casual tables). */
  function renderRequests() {
    const box = $("requests");
    box.replaceChildren();
    const table = t();
    if (playing() && table.settings.undo) {
      request(box, table.undo_agreed || [], {
        ask: () => {
          // The game goes back to just before the asker's most recent move.
          const last = [...table.moves].reverse().find((m) => isMine(m.seat));
          if (last) send({ type: "offer_undo", seat: last.seat });
        },
        askLabel: "Take back", askTitle: "Take back your last move (and the replies since)",
        canAsk: table.moves.some((m) => isMine(m.seat)),
        asked: (seat) => `${cap(name(seat))} ${isMine(seat) ? "asked" : "asks"} to take back ${isMine(seat) ? "your" : "their"} last move`,
        accept: "accept_undo", acceptLabel: "Accept take-back", decline: "decline_undo",
      });
    }
    if (playing() && !table.settings.rated && (table.settings.series || "single") === "single") {
      request(box, table.new_game_agreed || [], {
        ask: () => {
          const alone = people().every(isMine); // the computer agrees at once: this game ends now
          if (!alone || confirm("Abandon this game (no result) and start a new one?")) agree("offer_new_game", []);
        },
        askLabel: "New game", askTitle: "Ask to end this game without a result and start a new one",
        canAsk: true,
        asked: (seat) => `${cap(name(seat))} ${isMine(seat) ? "asked" : "asks"} for a new game (this one ends without a result)`,
        accept: "accept_new_game", acceptLabel: "Accept new game", decline: "decline_new_game",
      });
    }
    box.hidden = box.children.length === 0;
  }

  /** One kind of request: the button to ask, or the standing request with Accept and Decline. */
  function request(box, agreed, r) {
    if (agreed.length === 0) {
      if (!seated()) return;
      const b = button(r.askLabel, r.askTitle, r.ask, "secondary");
      b.disabled = !r.canAsk;
      box.append(b);
      return;
    }
    const pending = people().filter((s) => !agreed.includes(s));
    box.append(el("p", "note", `${r.asked(agreed[0])}${pending.length ? ` — waiting for: ${names(pending)}` : ""}.`));
    if (seated() && !mine(agreed)) {
      box.append(button(r.acceptLabel, r.acceptLabel, () => agree(r.accept, agreed)),
        button("Decline", `Decline: ${r.askLabel.toLowerCase()}`, () => send({ type: r.decline, seat: page.mySeats[0] }), "secondary"));
    }
  }

  /** The countdown to the series' next game. */
  function tick() {
    const line = document.getElementById("next-game");
    if (!line || nextGameAt == null || !t().series) return;
    const secs = Math.ceil(Math.max(0, nextGameAt - now()) / 1000);
    // A single game's series goes on only after an aborted game: "the next game".
    const game = t().series.format === "single" ? "The next game" : `Game ${t().series.game + 1} of the series`;
    line.textContent = secs > 0 ? `${game} starts in ${secs} s.` : `${game} is starting…`;
  }

  return { apply, setPause, render, tick };
}
