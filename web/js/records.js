// The table's games (GET /api/tables/{id}/games): a list with each game's result, a Replay
// button and download links for each export format; and the replay view, which shows a past
// game's positions on the table's own board, stepping with buttons or the arrow keys, while
// the live table goes on underneath. See docs/records.md.

import { $, el, button } from "./dom.js";

const FORMAT_NAMES = {
  text: "Move list", psq: "Piskvork (.psq)", pgn: "PGN", bpgn: "BPGN",
  "pgn-a": "Board A (PGN)", "pgn-b": "Board B (PGN)", json: "JSON",
};

/**
 * The games panel and the replay view. `page` is the table page's shared object;
 * `rerender()` redraws the page (the board shows `view()` while a replay is open).
 */
export function recordsPanel(page, tableId, rerender) {
  let games = [];       // the table's games, as listed
  let replay = null;    // {record, index}: the game shown and the position (0 = the start)
  let loading = null;   // the list request in flight

  /** The table as the board should show it: the live table, or the replayed position. */
  function view(table) {
    if (!replay || !table) return table;
    const { record, index } = replay;
    const last = index === record.moves.length;
    return {
      ...table,
      status: "finished",
      state: index === 0 ? record.start : last ? record.end : record.moves[index - 1].state,
      to_move: [],
      moves: record.moves.slice(0, index),
      result: last ? record.result : null,
      draw_offer: null,
      draw_agreed: [],
    };
  }

  async function refresh() {
    if (loading) return loading;
    loading = (async () => {
      try {
        const answer = await fetch(`/api/tables/${encodeURIComponent(tableId)}/games`);
        if (answer.ok) games = (await answer.json()).games;
      } catch { /* offline: keep the list we have */ }
      loading = null;
      render();
    })();
    return loading;
  }

  /** Opens `game` in the replay view at move `at` (default: its end). */
  async function open(game, at) {
    try {
      const answer = await fetch(`/api/games/${game.id}`);
      const body = await answer.json();
      if (!answer.ok) return page.log(body.error ? body.error.message : "The game could not be loaded.");
      replay = { record: body, index: Math.min(at ?? body.moves.length, body.moves.length) };
      render();
      rerender();
      $("replay-bar").scrollIntoView({ block: "nearest" });
    } catch {
      page.log("The game could not be loaded; check the connection.");
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

  /** A move as the lists show it: counted from 1; a Bughouse move names its board. */
  const moveLabel = (game, mv, i) => {
    const text = mv.text || JSON.stringify(mv.move);
    return game === "bughouse" ? `${i + 1}. ${mv.seat < 2 ? "A" : "B"} ${text}` : `${i + 1}. ${text}`;
  };
  /** The mover's clock after a move, `2:59`, in timed games. */
  const clockText = (ms) => {
    if (ms == null) return "";
    const s = Math.floor(ms / 1000);
    return ` (${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")})`;
  };
  const reviewButton = (label, i) => button(label, `Look at the position after move ${i + 1}`, () => review(i + 1), "move");

  /** Bughouse: one line per board, its moves numbered as on a chess board, with clocks. */
  function boardLines(moves) {
    return [["A", [0, 1]], ["B", [2, 3]]].map(([board, seats]) => {
      const line = el("li", "board-moves");
      line.append(el("strong", "", `${board}:`));
      let number = 0;
      moves.forEach((mv, i) => {
        if (!seats.includes(mv.seat)) return;
        const white = mv.seat === seats[0];
        if (white) number += 1;
        const prefix = white ? `${number}. ` : number === 0 ? "1… " : "";
        line.append(reviewButton(`${prefix}${mv.text || JSON.stringify(mv.move)}${clockText(mv.clock_ms)}`, i));
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
    const key = `${live ? live.game_number : ""}:${moves.length}`;
    if (key === liveShown) return;
    // A new game at the table joins the games list.
    if (live && live.game_number && !games.some((g) => g.number === live.game_number)
      && !liveShown.startsWith(`${live.game_number}:`)) refresh();
    liveShown = key;
    const list = $("move-list");
    list.classList.toggle("by-board", live.game === "bughouse");
    list.replaceChildren(...(live.game === "bughouse" ? boardLines(moves) : moves.map((mv, i) => {
      const item = el("li");
      item.append(reviewButton(moveLabel(live.game, mv, i) + clockText(mv.clock_ms), i));
      return item;
    })));
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

  const rated = (p) => (p.rating && !p.rating.fixed
    ? ` ${p.rating.after}${p.rating.provisional ? "?" : ""} (${p.rating.change >= 0 ? "+" : ""}${p.rating.change})` : "");
  const who = (game) => game.players.map((p) => `${p.name} (${p.role})${rated(p)}`).join(" – ");
  function resultLine(game) {
    if (game.status === "playing") return "being played";
    const r = game.result;
    if (!r) return "";
    if (r.outcome === "draw") return `draw, ${page.reasonText(r.reason)}`;
    if (r.outcome === "aborted") return "aborted";
    const winners = game.players.filter((p) => r.winners.includes(p.seat)).map((p) => p.name).join(" & ");
    return `${winners} won, ${page.reasonText(r.reason)}`;
  }

  function formatsOf(game) {
    // The formats each game exports (docs/records.md); json is the record itself.
    return {
      gomoku: ["text", "psq"], "lines-of-action": ["pgn"], krux: ["text"], bughouse: ["bpgn", "pgn-a", "pgn-b"],
    }[game.game] || [];
  }

  function render() {
    $("records-section").hidden = games.length === 0;
    const list = $("records-list");
    list.replaceChildren();
    for (const game of [...games].reverse()) {
      const item = el("li");
      const title = game.series && game.series.format !== "single"
        ? `Game ${game.number} (series ${game.series.number}, game ${game.series.game})`
        : `Game ${game.number}`;
      // A game being played has moved on since the list was read: no count for it.
      const count = game.status === "playing" ? "" : `, ${game.move_count} moves`;
      item.append(el("strong", "", title), el("span", "muted", ` ${who(game)} — ${resultLine(game)}${count}`));
      const row = el("div", "row");
      const shown = replay && replay.record.id === game.id;
      row.append(button(shown ? "Shown" : "Replay", `Replay game ${game.number}`, () => open(game), "secondary"));
      for (const format of formatsOf(game)) {
        const link = el("a", "download", FORMAT_NAMES[format] || format);
        link.href = `/api/games/${game.id}?format=${format}`;
        link.setAttribute("download", "");
        row.append(link);
      }
      item.append(row);
      list.append(item);
    }
    const bar = $("replay-bar");
    bar.hidden = !replay;
    if (replay) {
      const { record, index } = replay;
      const total = record.moves.length;
      $("replay-title").textContent = `Replay of game ${record.number}: ${index === 0 ? "start" : `move ${index} of ${total}`}`
        + (index === total && record.result ? ` — ${resultLine(record)}` : "");
      $("replay-first").disabled = $("replay-back").disabled = index === 0;
      $("replay-next").disabled = $("replay-last").disabled = index === total;
      renderMoves(record, index);
    }
  }

  /** The replayed game's moves in its notation; the one shown is marked, any is a click away. */
  let listedFor = null;
  function renderMoves(record, index) {
    const list = $("replay-moves");
    if (listedFor !== record) {
      listedFor = record;
      list.replaceChildren(...record.moves.map((mv, i) => {
        const item = el("li");
        item.append(button(moveLabel(record.game, mv, i), `Show the position after move ${i + 1}`, () => step(i + 1), "move"));
        return item;
      }));
    }
    [...list.children].forEach((item, i) => item.classList.toggle("current", i + 1 === index));
    const current = list.children[index - 1];
    if (current) current.scrollIntoView({ block: "nearest" });
  }

  $("replay-first").addEventListener("click", () => step(0));
  $("replay-back").addEventListener("click", () => replay && step(replay.index - 1));
  $("replay-next").addEventListener("click", () => replay && step(replay.index + 1));
  $("replay-last").addEventListener("click", () => replay && step(Infinity));
  $("replay-close").addEventListener("click", close);
  document.addEventListener("keydown", (event) => {
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
    const moves = { ArrowLeft: -1, ArrowRight: 1 };
    if (event.key in moves) {
      event.preventDefault();
      step(replay.index + moves[event.key]);
    } else if (event.key === "Home") step(0);
    else if (event.key === "End") step(Infinity);
    else if (event.key === "Escape") close();
  });

  return {
    view,
    refresh,
    renderLive,
    /** Whether a replay is shown (the board takes no moves then). */
    get replaying() { return replay !== null; },
  };
}
