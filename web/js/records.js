// The game being played move by move, the table's games (GET /api/tables/{id}/games): a list
// with each game's result, a Replay button and download links for each export format; and the
// replay view, which shows a past game's positions on the table's own board, stepping with
// buttons or the arrow keys, while the live table goes on underneath. See docs/records.md.
//
// Numbering: Gomoku and Lines of Action number each move; Krux numbers turns, the parts of a
// turn (one `moved` each when a person plays part by part, one for a whole turn a bot sends)
// listed inside it; Bughouse numbers each board's moves as on a chess board ("A 1. e4",
// "A 1… e5", "B 1. d4"), in the live list and in the replay alike.

import { $, el, button } from "./dom.js";
import { t, lang, formatNumber } from "./i18n.js";

/** The export formats' names (docs/records.md); `json` is the record itself. */
const FORMAT_KEYS = {
  text: "records.format.text", psq: "records.format.psq", pgn: "records.format.pgn", bpgn: "records.format.bpgn",
  "pgn-a": "records.format.pgn_a", "pgn-b": "records.format.pgn_b", json: "records.format.json",
};
/** The formats each game exports, as the games list offers them. */
const FORMATS = {
  gomoku: ["text", "psq"], "lines-of-action": ["pgn"], krux: ["text"], bughouse: ["bpgn", "pgn-a", "pgn-b"],
};

/** "Ann, Bo and Cy" in the page's language. */
const list = (items) => new Intl.ListFormat(lang, { style: "long", type: "conjunction" }).format(items);
/** A rating as the seats show it: "1520", "1520?" while provisional (no grouping: 1 520 reads as two numbers). */
const ratingText = (value, provisional) => `${formatNumber(value, { useGrouping: false })}${provisional ? "?" : ""}`;
/** A rating change, signed: "+12", "−12", "0". */
const changeText = (change) => formatNumber(change, { signDisplay: "exceptZero", useGrouping: false });

// ================================================================ numbering
/** A move's own text: its notation, or the payload as JSON for a game without one. */
const moveText = (mv) => mv.text || JSON.stringify(mv.move);

/** Whether a Krux move closes its turn: the `end` part, or a whole turn sent as one move. */
const endsTurn = (move) => Boolean(move) && (move.part === "end" || Array.isArray(move.turn));

/**
 * Krux: the moves grouped by turn, `[{number, parts: [{mv, i}]}]`. A turn is one seat's run of
 * moves: the seat changes with every turn (the pieces move in order 1–6, the colours
 * alternating), and an `end` part or a whole turn closes it.
 */
export function kruxTurns(moves) {
  const turns = [];
  moves.forEach((mv, i) => {
    const prev = moves[i - 1];
    if (!prev || prev.seat !== mv.seat || endsTurn(prev.move)) turns.push({ number: turns.length + 1, parts: [] });
    turns[turns.length - 1].parts.push({ mv, i });
  });
  return turns;
}

/** Bughouse: the board a seat plays on, and whether it plays white there (0 A-white, 1 A-black, 2 B-white, 3 B-black). */
const boardOf = (seat) => (seat < 2 ? "A" : "B");
const whiteSeat = (seat) => seat === 0 || seat === 2;

/**
 * Each move's name as the lists show it, by index: "3. H8"; Krux "2. step c2" (the turn's
 * number); Bughouse "A 1. e4", "A 1… e5" (numbered per board as on a chess board).
 */
export function moveNames(game, moves) {
  if (game === "krux") {
    const names = [];
    for (const turn of kruxTurns(moves)) for (const { mv, i } of turn.parts) names[i] = `${turn.number}. ${moveText(mv)}`;
    return names;
  }
  if (game === "bughouse") {
    const whites = { A: 0, B: 0 };
    return moves.map((mv) => {
      const board = boardOf(mv.seat);
      if (whiteSeat(mv.seat)) {
        whites[board] += 1;
        return `${board} ${whites[board]}. ${moveText(mv)}`;
      }
      return `${board} ${Math.max(1, whites[board])}… ${moveText(mv)}`;
    });
  }
  return moves.map((mv, i) => `${i + 1}. ${moveText(mv)}`);
}

/** The mover's clock after a move, " (2:59)", in timed games (whole seconds rounded up, as the clocks show them). */
function clockText(ms) {
  if (ms == null) return "";
  const s = Math.ceil(ms / 1000);
  return ` (${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")})`;
}

/**
 * The games panel and the replay view. `page` is the table page's shared object;
 * `rerender()` redraws the page (the board shows `view()` while a replay is open).
 * Puts `page.replaying()` on `page`: whether a past position is shown (boards take no moves
 * then).
 */
export function recordsPanel(page, tableId, rerender) {
  let games = [];       // the table's games, as listed (the latest page and any earlier ones asked for)
  let earlier = null;   // the `before` that lists the games before these; null: none before
  let replay = null;    // {record, index}: the game shown and the position (0 = the start)
  let loading = null;   // the list request in flight
  const turnCounts = new Map(); // Krux: a finished game's id -> its number of turns (null while asked)

  /** Whether a past position is shown on the board (the board takes no moves then). */
  page.replaying = () => replay !== null;

  /**
   * The clocks at the replayed position, stopped: each seat's time after the move shown
   * (`clocks_ms`), null at the start (the time control's starting time), or undefined when the
   * live clocks are the ones to show (the end of the game the table has just finished).
   */
  function clocksAt(record, index, table) {
    if (index === 0) return null;
    const last = index === record.moves.length;
    if (last && record.status === "finished" && table.game_number === record.number && table.status !== "playing") return undefined;
    const ms = record.moves[index - 1].clocks_ms;
    if (!ms) return null;
    const remaining = [...ms];
    const r = last ? record.result : null;
    if (r && r.reason === "time" && r.detail && r.detail.seat != null) remaining[r.detail.seat] = 0; // the flag that fell
    return { kind: (table.settings.time_control || {}).kind, remaining_ms: remaining, running: [] };
  }

  /**
   * The table as the board should show it: the live table, or the replayed position (with
   * `replay_clocks`, the clocks at that position, for clock.js).
   */
  function view(table) {
    if (!replay || !table) return table;
    const { record, index } = replay;
    const last = index === record.moves.length;
    const shown = {
      ...table,
      status: "finished",
      state: index === 0 ? record.start : last ? record.end : record.moves[index - 1].state,
      to_move: [],
      moves: record.moves.slice(0, index),
      result: last ? record.result : null,
      draw_offer: null,
      draw_agreed: [],
    };
    const clocks = clocksAt(record, index, table);
    if (clocks !== undefined) shown.replay_clocks = clocks;
    return shown;
  }

  async function refresh() {
    if (loading) return loading;
    loading = (async () => {
      try {
        const answer = await fetch(`/api/tables/${encodeURIComponent(tableId)}/games`);
        if (answer.ok) {
          const listed = await answer.json();
          // Earlier pages asked for stay; the latest page replaces what it covers.
          const from = listed.games.length ? listed.games[0].number : Infinity;
          const kept = games.filter((g) => g.number < from);
          if (!kept.length) earlier = listed.earlier;
          games = [...kept, ...listed.games];
        }
      } catch { /* offline: keep the list we have */ }
      loading = null;
      render();
    })();
    return loading;
  }

  /** Adds the page of games before those listed. */
  async function loadEarlier() {
    if (earlier == null) return;
    try {
      const answer = await fetch(`/api/tables/${encodeURIComponent(tableId)}/games?before=${earlier}`);
      if (!answer.ok) return page.log(t("records.load_failed"));
      const older = await answer.json();
      games = [...older.games, ...games.filter((g) => g.number >= earlier)];
      earlier = older.earlier;
      render();
    } catch {
      page.log(t("records.load_failed_offline"));
    }
  }

  /** Opens `game` in the replay view at move `at` (default: its end). */
  async function open(game, at) {
    try {
      const answer = await fetch(`/api/games/${game.id}`);
      const body = await answer.json();
      if (!answer.ok) return page.log(t("records.load_failed"));
      replay = { record: body, index: Math.min(at ?? body.moves.length, body.moves.length) };
      render();
      rerender();
      $("replay-bar").scrollIntoView({ block: "nearest" });
    } catch {
      page.log(t("records.load_failed_offline"));
    }
  }

  /** Reviews the game being played at move `at`: its record as stored so far. */
  async function review(at) {
    const live = page.liveTable;
    if (!live || !live.game_number) return;
    await refresh();
    const game = games.find((g) => g.number === live.game_number);
    if (game) await open(game, at);
  }

  /** A move's button: its text shown, its full name (with the number) said; `index` the position after it. */
  function moveButton(text, name, index, onClick) {
    const b = button(text, t("records.show_position", { move: name }), onClick, "move");
    b.dataset.index = index;
    return b;
  }
  const reviewButton = (text, name, i) => moveButton(text, name, i + 1, () => review(i + 1));

  /** Krux: one line per turn, its number then its parts, each a button (`onPart(i)`). */
  function turnLines(moves, names, onPart) {
    return kruxTurns(moves).map((turn) => {
      const line = el("li", "board-moves turn-moves");
      line.append(el("span", "turn-number", `${turn.number}.`));
      for (const { mv, i } of turn.parts) line.append(onPart(moveText(mv), names[i], i));
      return line;
    });
  }

  /** Bughouse: one line per board, its moves numbered as on a chess board, with clocks. */
  function boardLines(moves, names) {
    return ["A", "B"].map((board) => {
      const line = el("li", "board-moves");
      line.append(el("strong", "", `${board}:`));
      let number = 0;
      moves.forEach((mv, i) => {
        if (boardOf(mv.seat) !== board) return;
        const white = whiteSeat(mv.seat);
        if (white) number += 1;
        const prefix = white ? `${number}. ` : number === 0 ? "1… " : "";
        line.append(reviewButton(`${prefix}${moveText(mv)}${clockText(mv.clock_ms)}`, names[i], i));
      });
      return line;
    });
  }

  /** The live game's moves (`page.liveTable.moves`, kept by table.js from `moved` events). */
  let liveShown = "";
  function renderLive() {
    const live = page.liveTable;
    const moves = (live && live.moves) || [];
    $("moves-section").hidden = !live || live.status === "waiting" || moves.length === 0;
    if (!live) return;
    // (The last move's text too: after a take-back another move may bring the count back.)
    const key = `${live.game_number}:${moves.length}:${moves.length ? moveText(moves[moves.length - 1]) : ""}`;
    if (key === liveShown) return;
    // A new game at the table joins the games list.
    if (live.game_number && !games.some((g) => g.number === live.game_number)
      && !liveShown.startsWith(`${live.game_number}:`)) refresh();
    liveShown = key;
    const list = $("move-list");
    const names = moveNames(live.game, moves);
    // One line per board (Bughouse) or per turn (Krux, styled as the boards' lines); else one item per move.
    list.classList.toggle("by-board", live.game === "bughouse" || live.game === "krux");
    list.classList.toggle("by-turn", live.game === "krux");
    if (live.game === "bughouse") list.replaceChildren(...boardLines(moves, names));
    else if (live.game === "krux") list.replaceChildren(...turnLines(moves, names, (text, name, i) => reviewButton(text, name, i)));
    else {
      list.replaceChildren(...moves.map((mv, i) => {
        const item = el("li");
        item.append(reviewButton(names[i] + clockText(mv.clock_ms), names[i], i));
        return item;
      }));
    }
    // The newest move in view inside the list's own box: scrolling the page to it would take the
    // board and the clocks out of view on a phone after every move.
    list.scrollTop = list.scrollHeight;
  }

  function close() {
    replay = null;
    render();
    rerender();
  }

  function step(to) {
    if (!replay) return;
    replay.index = Math.max(0, Math.min(replay.record.moves.length, to));
    render();
    rerender();
  }

  // ============================================================== the games list
  /** A player's name as the seats show it (a computer's in the page's language, by table.js's `nameOf`). */
  const nameOf = (p) => (page.nameOf ? page.nameOf(p) : p.name);

  /** "Ann (X)", with the rating at rated tables: "Ann (X) 1662? (+162)". */
  function playerText(p) {
    const role = page.roleName ? page.roleName(p.role) : p.role;
    const name = nameOf(p);
    if (!p.rating || p.rating.fixed) return t("records.player", { name, role });
    return t("records.player_rated", {
      name, role, rating: ratingText(p.rating.after, p.rating.provisional), change: changeText(p.rating.change),
    });
  }

  /** The result in words: "Ann won (five in a row)", "draw (agreed by all players)", "being played". */
  function resultText(game) {
    if (game.status === "playing") return t("records.result.playing");
    const r = game.result;
    if (!r) return "";
    if (r.outcome === "draw") return t("records.result.draw", { reason: page.reasonText(r.reason) });
    if (r.outcome === "aborted") return t("records.result.aborted");
    const winners = game.players.filter((p) => r.winners.includes(p.seat)).map(nameOf);
    return t("records.result.won", { winners: list(winners), reason: page.reasonText(r.reason) });
  }

  /**
   * "9 moves" ("1 move"); Krux "4 turns", counted from the game's text export (one line per
   * turn) unless the list says (`turn_count`). A game being played has moved on since the list
   * was read: no count for it.
   */
  function countText(game) {
    if (game.status === "playing") return "";
    if (game.game !== "krux") return t("records.moves", { count: game.move_count });
    const turns = game.turn_count ?? turnCounts.get(game.id);
    if (turns != null) return t("records.turns", { count: turns });
    if (!turnCounts.has(game.id)) countTurns(game);
    return "";
  }

  async function countTurns(game) {
    turnCounts.set(game.id, null);
    try {
      const answer = await fetch(`/api/games/${game.id}?format=text`);
      if (!answer.ok) return;
      const text = await answer.text();
      turnCounts.set(game.id, (text.match(/^\d+\. /gm) || []).length);
      render();
    } catch { /* offline: the count stays out */ }
  }

  function render() {
    $("records-section").hidden = games.length === 0;
    const records = $("records-list");
    records.replaceChildren();
    for (const game of [...games].reverse()) {
      const item = el("li");
      item.dataset.game = game.number;
      const title = game.series && game.series.format !== "single"
        ? t("records.game_in_series", { number: game.number, series: game.series.number, game: game.series.game })
        : t("records.game", { number: game.number });
      const players = game.players.map(playerText).join(" – ");
      const count = countText(game);
      const summary = count
        ? t("records.summary", { players, result: resultText(game), count })
        : t("records.summary_uncounted", { players, result: resultText(game) });
      item.append(el("strong", "", title), " ", el("span", "muted", summary));
      const row = el("div", "row");
      const shown = replay && replay.record.id === game.id;
      const replayButton = button(shown ? t("records.shown") : t("records.replay"),
        t(shown ? "records.shown_label" : "records.replay_label", { number: game.number }), () => open(game), "secondary");
      replayButton.dataset.replay = game.number;
      row.append(replayButton);
      for (const format of FORMATS[game.game] || []) {
        const name = FORMAT_KEYS[format] ? t(FORMAT_KEYS[format]) : format;
        const link = el("a", "download", name);
        link.href = `/api/games/${game.id}?format=${format}`;
        link.setAttribute("download", "");
        link.setAttribute("aria-label", t("records.download_label", { number: game.number, format: name }));
        row.append(link);
      }
      item.append(row);
      records.append(item);
    }
    if (earlier != null) {
      const more = el("li");
      more.append(button(t("records.earlier"), null, loadEarlier, "secondary"));
      records.append(more);
    }
    const bar = $("replay-bar");
    bar.hidden = !replay;
    if (replay) {
      const { record, index } = replay;
      const total = record.moves.length;
      $("replay-title").textContent = replayTitle(record, index);
      $("replay-first").disabled = $("replay-back").disabled = index === 0;
      $("replay-next").disabled = $("replay-last").disabled = index === total;
      renderMoves(record, index);
    }
  }

  /** "Replay of game 2: move 5 of 9 (A 3. Qh5)"; Krux "turn 2 of 4 (2. ring green, step c2)"; the result at the end. */
  function replayTitle(record, index) {
    const total = record.moves.length;
    let title;
    if (index === 0) title = t("records.replay.start", { number: record.number });
    else if (record.game === "krux") {
      const turns = kruxTurns(record.moves);
      const turn = turns.find((tn) => tn.parts.some((p) => p.i === index - 1));
      const parts = turn.parts.filter((p) => p.i < index).map((p) => moveText(p.mv));
      title = t("records.replay.turn", {
        number: record.number, turn: turn.number, turns: turns.length, move: `${turn.number}. ${parts.join(", ")}`,
      });
    } else {
      title = t("records.replay.move", { number: record.number, index, total, move: moveNames(record.game, record.moves)[index - 1] });
    }
    return index === total && record.result ? t("records.replay.with_result", { position: title, result: resultText(record) }) : title;
  }

  /** The replayed game's moves in its notation; the one shown is marked, any is a click away. */
  let listedFor = null;
  function renderMoves(record, index) {
    const moves = $("replay-moves");
    if (listedFor !== record) {
      listedFor = record;
      const names = moveNames(record.game, record.moves);
      const stepTo = (text, name, i) => moveButton(text, name, i + 1, () => step(i + 1));
      moves.classList.toggle("by-turn", record.game === "krux");
      moves.replaceChildren(...(record.game === "krux" ? turnLines(record.moves, names, stepTo) : record.moves.map((mv, i) => {
        const item = el("li");
        item.append(stepTo(names[i], names[i], i));
        return item;
      })));
    }
    let current = null;
    for (const b of moves.querySelectorAll("button.move")) {
      const on = Number(b.dataset.index) === index;
      b.classList.toggle("current", on);
      if (on) {
        b.setAttribute("aria-current", "step");
        current = b;
      } else b.removeAttribute("aria-current");
    }
    for (const item of moves.children) item.classList.toggle("current", Boolean(current) && item.contains(current));
    if (current) current.scrollIntoView({ block: "nearest" });
  }

  $("replay-first").addEventListener("click", () => step(0));
  $("replay-back").addEventListener("click", () => replay && step(replay.index - 1));
  $("replay-next").addEventListener("click", () => replay && step(replay.index + 1));
  $("replay-last").addEventListener("click", () => replay && step(Infinity));
  $("replay-close").addEventListener("click", close);
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.altKey || event.metaKey) return;
    if (event.target.closest("input, textarea, select")) return;
    // ← with nothing open reviews the game being played (not while a board cell has the
    // focus: the arrow keys move across the board then).
    if (!replay) {
      const live = page.liveTable;
      if (event.key === "ArrowLeft" && live && (live.moves || []).length && !event.target.closest("#board-area")) {
        event.preventDefault();
        review(live.moves.length - 1);
      }
      return;
    }
    const to = { ArrowLeft: replay.index - 1, ArrowRight: replay.index + 1, Home: 0, End: Infinity }[event.key];
    if (to !== undefined) {
      event.preventDefault();
      step(to);
    } else if (event.key === "Escape") close();
  });

  return {
    view,
    refresh,
    renderLive,
    /** Whether a replay is shown (the board takes no moves then); also `page.replaying()`. */
    get replaying() { return replay !== null; },
  };
}
