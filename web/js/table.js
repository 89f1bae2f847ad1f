// The table page (web/table.html): state, connection, events, seats (and the computer's),
// clocks, status, chat and actions. Each game's board is a module of its own under boards/;
// series, rematches, "new game" and take-backs are series.js; what the page shares with them is
// the `page` object below. See web/README.md.

import { $, el, button } from "./dom.js";
import { connectTable } from "./net.js";
import { setClocks, setAway, clearAway, awayCounting, timed, tick, noteTurn, unknownTurn, restartTurn, turnNow, thinkMs, runningLeft } from "./clock.js";
import { sound, moveSound, lowTimeCheck } from "./sound.js";
import { seriesPanel, formatText } from "./series.js";
import { recordsPanel } from "./records.js";
import "./flip.js";
import { gomoku } from "./boards/gomoku.js";
import { linesOfAction } from "./boards/loa.js";
import { krux } from "./boards/krux.js";
import { bughouse } from "./boards/bughouse.js";
import { generic } from "./boards/generic.js";

// ================================================================ state
const TOKEN_KEY = "spelbord.token";
const NAME_KEY = "spelbord.name";
const STRENGTH_KEY = "spelbord.botStrength";
const tableId = decodeURIComponent(location.pathname.split("/")[2] || "");
// "Play the computer" (the home page) opens `/t/{id}#play`: take the one free seat on arrival.
// The fragment is dropped at once, so the address stays the table's shareable link.
let autoSit = location.hash === "#play";
if (location.hash) history.replaceState(null, "", location.pathname + location.search);
const STRENGTHS = { easy: "Easy", medium: "Medium", hard: "Hard", random: "Beginner baseline" };
let botStrength = localStorage.getItem(STRENGTH_KEY) in STRENGTHS ? localStorage.getItem(STRENGTH_KEY) : "easy";

let token = localStorage.getItem(TOKEN_KEY); // this browser's secret player token
let table = null;    // the table as last known: the snapshot, kept up to date by events
let version = 0;     // version of the last event applied (sent back as `?since=` on reconnecting)
let mySeats = [];    // seats this browser's token holds (from `welcome`)
let replaying = false; // between reconnecting with `?since=` and `resumed`: missed events arrive late
let helloTimer = null; // after `game_started`: say hello ourselves if no `welcome` follows
let premove = null;  // our queued premove as the server confirmed it: {seat, move}
let builtFor = "";   // what the board area holds now (game id and board size)
let connection = null; // the WebSocket, kept open (net.js): `send`, `resync`
let scrollToBoard = false; // a game just started: bring the board into view if we play in it

const REASONS = {
  five_in_a_row: "five in a row", board_full: "the board is full", resignation: "resignation",
  draw_agreed: "agreed by all players", time: "on time", abandoned: "a player left", aborted: "aborted",
  connected: "all pieces connected", both_connected: "both sides connected at once",
  repetition: "the same position for the third time", hole: "a piece fell into the hole",
  move_limit: "300 turns without a winner",
};
/** A result's reason in words, e.g. "five in a row". */
const reasonText = (reason) => REASONS[reason] || reason.replace(/_/g, " ");

// ================================================================ connection
function send(msg, quiet) {
  if (connection && connection.send(msg)) return true;
  if (!quiet) log("Not connected — try again in a moment.");
  return false;
}

/** Presents our token (or asks for one); the answer, `welcome`, lists the seats we hold. */
function hello() {
  send(token ? { type: "hello", token, ref: "hello" } : { type: "hello", ref: "hello" }, true);
}

function showConnection(text, isGone) {
  document.body.classList.toggle("offline", Boolean(text));
  $("conn").hidden = !text;
  $("conn").textContent = text;
  $("conn").classList.toggle("gone", Boolean(isGone));
  if (isGone) $("conn").append(" ", Object.assign(el("a", "", "Create a new table."), { href: "/" }));
}

// ================================================================ server messages
function handle(msg) {
  // Replies to this connection only: they carry the current version without raising it.
  switch (msg.type) {
    case "snapshot": return applySnapshot(msg);
    case "resumed":
      replaying = false;
      if (msg.version !== version) return outOfStep();
      refreshTimers();
      return render();
    case "welcome":
      [token, mySeats] = [msg.token, msg.seats];
      clearTimeout(helloTimer);
      localStorage.setItem(TOKEN_KEY, token);
      // The team chat we may read, all of it: it replaces what the box showed (nothing twice).
      if (table && game().teamChat) showChat($("team-log"), msg.team_chat || [], true);
      if (autoSit) sitInTheFreeSeat();
      return render();
    case "error":
      if (msg.ref === "hello" && msg.code === "bad_token") {
        // A stored token the server does not accept: start afresh with a new one.
        token = null;
        localStorage.removeItem(TOKEN_KEY);
        return hello();
      }
      return log(msg.message + (msg.rule ? ` (${msg.rule.replace(/_/g, " ")})` : ""));
    case "pong": return;
    case "legal_moves": return table && game().legalMoves && game().legalMoves(msg); // a board's question (Bughouse)
    case "team_chat": return addChat(msg, true);
    case "premove_set":
      premove = { seat: msg.seat, move: msg.move };
      return render();
    case "premove_cancelled":
      premove = null;
      return render();
    case "premove_discarded":
      premove = null;
      log(`Your premove was discarded: ${msg.message}` + (msg.rule ? ` (${msg.rule.replace(/_/g, " ")})` : ""));
      return render();
  }
  if (!table) return;
  // Every event raises the version by one; a gap means we missed one: resume from our version.
  if (msg.version !== version + 1) return outOfStep();
  version = msg.version;
  const seat = table.seats[msg.seat];
  switch (msg.type) {
    case "seated":
      seat.player = { name: msg.name, connected: true, away_ms: null, ...(msg.bot ? { bot: msg.bot } : {}), ...(msg.rating ? { rating: msg.rating } : {}) };
      if (!msg.bot) hello(); // learn whether the seat is ours
      break;
    case "stood":
      seat.player = null;
      mySeats = mySeats.filter((s) => s !== msg.seat);
      // After a decided series a seat was left: the table waits for players again.
      if (table.status === "finished") table.status = "waiting";
      table.rematch_agreed = [];
      break;
    case "presence":
      if (seat && seat.player) {
        Object.assign(seat.player, { connected: msg.connected, away_ms: msg.away_ms ?? null });
        setAway(msg.seat, seat.player);
      }
      break;
    case "spectators": table.spectators = msg.count; break;
    case "game_started":
      Object.assign(table, {
        status: "playing", game_number: msg.game_number, seats: msg.seats, state: msg.state,
        to_move: msg.to_move, moves: [], draw_offer: null, draw_agreed: [], result: null, clocks: msg.clocks,
        series: msg.series ?? null, ready: [], rematch_agreed: [], new_game_agreed: [], undo_agreed: [],
      });
      seriesUi.setPause(null);
      setClocks(msg.clocks);
      clearAway();
      for (const s of msg.seats) setAway(s.seat, s.player);
      premove = null;
      // The server sends every identified connection a `welcome` with its (maybe redrawn)
      // seats right after this; should none come, ask ourselves.
      clearTimeout(helloTimer);
      helloTimer = setTimeout(hello, 1500);
      noteTurn(table, replaying);
      if (!replaying) {
        sound("start");
        scrollToBoard = true; // once our seats are known (welcome), the board comes into view
      }
      return renderAll();
    case "moved":
      if (!replaying && hearsMove(msg.seat)) sound(moveSound(table.game, table.state, msg.state));
      table.state = msg.state;
      table.to_move = msg.to_move;
      table.moves.push({
        ply: msg.ply, seat: msg.seat, move: msg.move, text: msg.text,
        clock_ms: msg.clocks ? msg.clocks.remaining_ms[msg.seat] : undefined,
      });
      if ("clocks" in msg) setClocks(msg.clocks);
      // A standing draw offer lapses when a player who has not agreed moves.
      if (table.draw_offer != null && !(table.draw_agreed || []).includes(msg.seat)) {
        table.draw_offer = null;
        table.draw_agreed = [];
      }
      if (premove && premove.seat === msg.seat) premove = null; // our premove was played
      // A move ends a standing take-back or new-game request.
      table.undo_agreed = [];
      table.new_game_agreed = [];
      break;
    case "undone":
      // Back to the position after the first `plies` moves, with the clocks as they were then.
      table.moves = table.moves.slice(0, msg.plies);
      Object.assign(table, { state: msg.state, to_move: msg.to_move, draw_offer: null, draw_agreed: [], undo_agreed: [], new_game_agreed: [] });
      if ("clocks" in msg) setClocks(msg.clocks);
      premove = null;
      if (!replaying) restartTurn(table); // the seat to move decides again from now
      log(`${isMine(msg.seat) ? "You" : playerName(msg.seat)} took back ${isMine(msg.seat) ? "your" : "their"} last move.`, "info");
      break;
    case "draw_offered":
      if (table.draw_offer == null) table.draw_offer = msg.seat;
      table.draw_agreed = [...new Set([...(table.draw_agreed || []), msg.seat])];
      break;
    case "draw_declined":
      table.draw_offer = null;
      table.draw_agreed = [];
      log(`${playerName(msg.seat)} declined the draw.`, "info");
      break;
    case "game_over":
      Object.assign(table, { status: "finished", result: msg.result, to_move: [], draw_offer: null, draw_agreed: [], undo_agreed: [], new_game_agreed: [] });
      if (msg.series) table.series = msg.series;
      if ("clocks" in msg) setClocks(msg.clocks);
      premove = null;
      recordsUi.refresh(); // the finished game joins the list, ready to replay
      applyRatings(msg.ratings);
      break;
    case "chat": addChat(msg); break;
    default: seriesUi.apply(msg); // series, rematches, new game, take-back requests
  }
  noteTurn(table, replaying);
  render();
}

/** A rated game's rating changes: the new ratings next to the names, and one line saying them. */
function applyRatings(changes) {
  if (!changes || changes.length === 0) return;
  const words = [];
  for (const c of changes) {
    const player = table.seats[c.seat] && table.seats[c.seat].player;
    if (player) player.rating = { value: c.after, deviation: c.deviation, provisional: c.provisional };
    const sign = c.change > 0 ? "+" : c.change < 0 ? "−" : "±";
    words.push(`${playerName(c.seat)} ${c.before} → ${c.after}${c.provisional ? "?" : ""} (${sign}${Math.abs(c.change)})`);
  }
  if (!replaying) log(`Ratings: ${words.join(", ")}.`, "info");
}

/** A rating next to a name: "1520", or "1520?" while provisional. */
function ratingBadge(rating) {
  const badge = el("span", "rating", `${rating.value}${rating.provisional ? "?" : ""}`);
  badge.title = rating.provisional
    ? `Rating ${rating.value} ± ${rating.deviation}, provisional: too few rated games to be sure yet`
    : `Rating ${rating.value} ± ${rating.deviation}`;
  return badge;
}

function applySnapshot(msg) {
  [table, version, replaying] = [msg.table, msg.version, false];
  table.draw_agreed = table.draw_agreed || [];
  for (const key of ["ready", "rematch_agreed", "new_game_agreed", "undo_agreed"]) table[key] = table[key] || [];
  seriesUi.setPause(table.next_game_in_ms);
  setClocks(table.clocks);
  clearAway();
  for (const s of table.seats) setAway(s.seat, s.player);
  unknownTurn(table); // we do not know when the current turn began: send no `think_ms` for it
  if (table.status !== "playing") premove = null;
  showChat($("chat-log"), table.chat || []);
  recordsUi.refresh();
  renderAll();
}

/** We missed something: reconnect, resuming from the last version we applied. */
function outOfStep() {
  log("Out of step with the table; catching up.", "info");
  connection.resync();
}

/**
 * After a resume the replayed events' clocks and grace times are as old as the events, so
 * ask for the table's current snapshot over HTTP to set the timers right.
 */
async function refreshTimers() {
  if (!table || (table.status !== "playing" && table.next_game_in_ms == null)) return;
  try {
    const response = await fetch(`/api/tables/${encodeURIComponent(tableId)}`);
    if (!response.ok) return;
    const snap = await response.json();
    if (!table || snap.version !== version) return; // newer events are on their way with fresh clocks
    setClocks(snap.clocks);
    seriesUi.setPause(snap.next_game_in_ms);
    for (const s of snap.seats) {
      if (table.seats[s.seat]) table.seats[s.seat].player = s.player;
      setAway(s.seat, s.player);
    }
    render();
  } catch { /* the next event brings fresh clocks anyway */ }
}

// ================================================================ helpers
const isMine = (seat) => mySeats.includes(seat);
const roleOf = (seat) => (table.seats[seat] ? table.seats[seat].role : "?");
const playerName = (seat) => (table.seats[seat] && table.seats[seat].player ? table.seats[seat].player.name : `seat ${seat}`);
/** A seat's player within a sentence: "you (X)" for ours, "Anna (O)" for another's. */
const whoInSentence = (seat) => (isMine(seat) ? "you" : playerName(seat)) + ` (${roleOf(seat)})`;
/** The text with its first letter a capital: the start of a sentence. */
const capitalised = (text) => text.charAt(0).toUpperCase() + text.slice(1);
const playing = () => table && table.status === "playing";
/** Whether seats may change: before a game, or once a series is decided (not during a series' pause). */
const seatsOpen = () => table.status === "waiting" || (table.status === "finished" && (!table.series || table.series.decided));
const isBot = (seat) => Boolean(table.seats[seat] && table.seats[seat].player && table.seats[seat].player.bot);
/** The seat of ours that is to move, if any. */
const myTurnSeat = () => (playing() ? mySeats.find((s) => table.to_move.includes(s)) : undefined);
/** The seat we act for: the one to move, else our first. */
const actingSeat = () => myTurnSeat() ?? mySeats[0];
const colour = (role) => (role === "X" ? "black" : role === "O" ? "white" : role);
/** Whether a move's sound is played: always, except for the other Bughouse board when we play on one. */
function hearsMove(seat) {
  const boardOf = (s) => String(roleOf(s)).split("-")[0];
  return table.game !== "bughouse" || mySeats.length === 0 || mySeats.some((s) => boardOf(s) === boardOf(seat));
}

function log(text, kind) {
  $("log").append(el("li", kind, `${new Date().toLocaleTimeString()} — ${text}`));
  while ($("log").children.length > 20) $("log").firstChild.remove();
  $("log").scrollTop = $("log").scrollHeight;
}

/** How many lines a chat box keeps (the server's history is as long). */
const CHAT_LINES = 100;

/** One chat line: the speaker's name (or "You", in the team box) and role, then the text. */
function chatLine(msg, team, teamBox) {
  const item = el("li", team && !teamBox ? "team" : "");
  const name = teamBox && isMine(msg.seat) ? "You" : msg.name;
  item.append(el("strong", "", `${team && !teamBox ? "[team] " : ""}${name} (${roleOf(msg.seat)}): `), msg.text);
  return item;
}

/** Appends lines to a chat box, keeping its last lines, scrolled to the newest. */
function appendChat(box, lines) {
  box.append(...lines);
  while (box.children.length > CHAT_LINES) box.firstChild.remove();
  box.scrollTop = box.scrollHeight;
}

/**
 * A chat box from the server's history (the snapshot's `chat`, `welcome`'s `team_chat`): it
 * replaces what the box held, so a reconnection never shows a line twice.
 */
function showChat(box, history, team) {
  box.replaceChildren();
  appendChat(box, history.map((msg) => chatLine(msg, team, box === $("team-log"))));
}

function addChat(msg, team) {
  // Bughouse: team lines go to the team box, where only partners ever read them.
  const teamBox = Boolean(team && table && game().teamChat);
  appendChat(teamBox ? $("team-log") : $("chat-log"), [chatLine(msg, team, teamBox)]);
}

/** The finished game's result in words, e.g. "Anna (X) wins — five in a row." */
function resultText(result) {
  const own = game().resultText ? game().resultText(result) : null;
  if (own) return own;
  const reason = reasonText(result.reason);
  const detail = result.detail || {};
  if (result.outcome === "win") {
    const losers = table.seats.map((s) => s.seat).filter((s) => !result.winners.includes(s));
    // Sentence case: "You win — Bo (O) resigned.", "Anna (X) wins — you resigned."
    const winners = capitalised(result.winners.map(whoInSentence).join(" and "));
    const verb = result.winners.every(isMine) ? "win" : "wins";
    if (result.reason === "resignation") return `${winners} ${verb} — ${losers.map(whoInSentence).join(" and ")} resigned.`;
    if (result.reason === "time" && detail.seat != null) return `${winners} ${verb} — ${whoInSentence(detail.seat)} ran out of time.`;
    if (result.reason === "abandoned" && detail.seat != null) return `${winners} ${verb} — ${whoInSentence(detail.seat)} left and did not come back.`;
    if (result.reason === "hole" && detail.fallen != null) return `${winners} ${verb} — piece ${detail.fallen} fell into the hole.`;
    return `${winners} ${verb} — ${reason}.`;
  }
  if (result.outcome === "draw" && result.reason === "draw_agreed") {
    const n = table.seats.length;
    return n === 2 ? "Both players agreed to a draw." : `All ${n} players agreed to a draw.`;
  }
  if (result.outcome === "draw") return `Draw — ${reason}.`;
  if (detail.rule === "new_game") return "The game was ended without a result for a new one.";
  if (detail.rule === "aborted_before_everyone_moved" && detail.seat != null) {
    return `The game was aborted — ${whoInSentence(detail.seat)} left before everyone had moved.`;
  }
  return "The game was aborted.";
}

function timeControlText(tc) {
  if (!tc || tc.kind === "none") return "no clock";
  const min = (s) => (s % 60 === 0 ? `${s / 60} min` : `${s} s`);
  switch (tc.kind) {
    case "sudden_death": return `${min(tc.base_seconds)} each`;
    case "fischer": return `${min(tc.base_seconds)} + ${tc.increment_seconds} s`;
    case "per_move": return `${tc.seconds} s a move`;
    case "correspondence": return tc.days ? `${tc.days} day${tc.days === 1 ? "" : "s"} a move` : `${tc.hours} h a move`;
  }
  return tc.kind;
}

// ================================================================ the boards
/**
 * What the page shares with a board: the table as last known, our seats and premove, the
 * helpers above and the actions below. A board reads these when it builds and updates; it
 * owns only its area and its panel. The optional hooks a board may supply are listed in
 * web/README.md.
 */
const page = {
  /** The table as the board shows it: the live table, or a past game's position in a replay. */
  get table() { return recordsUi ? recordsUi.view(table) : table; },
  /** The live table, always (for what changes it: series and agreement events). */
  get liveTable() { return table; },
  get mySeats() { return mySeats; },
  get premove() { return premove; },
  /** Which seats are to move, as a key that changes with every new turn. */
  get turnKey() { return turnNow(); },
  // While a replay is shown the board takes no moves.
  playing: () => playing() && !recordsUi.replaying,
  myTurnSeat: () => (recordsUi.replaying ? undefined : myTurnSeat()),
  actingSeat, isMine, roleOf, playerName, colour, reasonText, roleBadge, awayCounting,
  timed: () => timed(table),
  send, play, moveOrPremove, log,
  /** Redraws the status line (a board's `statusHint` changed without a server event). */
  refreshStatus: () => table && renderStatus(),
};
const GAMES = { gomoku: gomoku(page), "lines-of-action": linesOfAction(page), krux: krux(page), bughouse: bughouse(page) };
const GENERIC = generic(page);
const seriesUi = seriesPanel(page);
const recordsUi = recordsPanel(page, tableId, () => renderAll());

// ================================================================ rendering: the table
const game = () => GAMES[table.game] || GENERIC;

/** Rebuilds the board when the game or its size changed, then redraws everything. */
function renderAll() {
  const g = game();
  const key = `${table.game}:${g.boardKey ? g.boardKey() : ""}`;
  if (key !== builtFor) {
    builtFor = key;
    $("board-area").replaceChildren();
    $("game-panel").replaceChildren();
    g.build($("board-area"), $("game-panel"));
  }
  render();
}

function render() {
  if (!table) return;
  const g = game();
  const s = table.settings;
  $("title").textContent = `${g.name} table ${table.id}`;
  $("settings").textContent = [
    g.settingsText ? g.settingsText(s) : "",
    timeControlText(s.time_control),
    s.series && s.series !== "single" ? formatText(s.series).toLowerCase() : "",
    s.seating === "random" ? "seats by lot" : "chosen seats",
    s.undo ? "take-backs allowed" : "",
    s.grace_seconds ? `${s.grace_seconds} s to reconnect` : "",
  ].filter(Boolean).join(" · ");
  $("rated").hidden = !(table.rated ?? s.rated);
  // The game's rules page (src/http/rules.rs), in a new tab so the table stays open.
  $("rules-link").href = `/rules/${encodeURIComponent(table.game)}`;
  $("rules-link").hidden = false;
  renderSeats();
  renderStatus();
  renderControls();
  seriesUi.render();
  recordsUi.renderLive();
  g.update();
  tick(table);
  const seated = mySeats.length > 0;
  document.querySelector(".play").classList.toggle("wide", Boolean(g.wide));
  $("team-section").hidden = !(g.teamChat && seated);
  if (g.teamChat && seated) $("team-partner").textContent = g.teamChat();
  $("chat-text").disabled = $("chat-send").disabled = !seated;
  $("chat-text").placeholder = seated ? "Say something…" : "Take a seat to chat";
  renderBars();
  if (scrollToBoard) showBoard();
}

// ================================================================ phones: the players beside the board
/**
 * Two-player games: a bar above the board for the opponent and one below it for you (for a
 * spectator: the first seat below), each with the name, whose move it is and the clock. The
 * CSS shows them on narrow screens only, where the seat list is far below the board: so both
 * clocks stay in view next to the board, as in chess apps.
 */
function renderBars() {
  const two = table.seats.length === 2 && !game().wide;
  $("bar-top").hidden = $("bar-bottom").hidden = !two;
  if (!two) return;
  const bottom = mySeats.length ? mySeats[0] : 0;
  const withClocks = timed(table);
  for (const [id, seat] of [["bar-bottom", table.seats[bottom]], ["bar-top", table.seats[1 - bottom]]]) {
    const bar = $(id);
    const p = seat.player;
    bar.replaceChildren(roleBadge(seat.role), el("span", p ? "name" : "name muted", p ? p.name : "Free seat"));
    if (isMine(seat.seat)) bar.append(el("span", "badge", "you"));
    if (p && !p.connected) {
      const away = el("span", "presence off compact", "away");
      if (awayCounting(seat.seat)) away.dataset.away = seat.seat; // counted down by tick()
      bar.append(away);
    }
    bar.classList.toggle("to-move", playing() && table.to_move.includes(seat.seat));
    bar.classList.toggle("you", isMine(seat.seat));
    if (withClocks) {
      const clock = el("span", "clock", "");
      clock.dataset.seat = seat.seat;
      clock.setAttribute("aria-label", `clock of ${seat.role}`);
      bar.append(clock);
    }
  }
}

/** A game we play in has started: scroll the status line, board and clocks into view if they are not. */
function showBoard() {
  // Our seats may be known only from the `welcome` that follows `game_started`: wait for it.
  if (!playing()) scrollToBoard = false;
  if (!scrollToBoard || mySeats.length === 0) return;
  scrollToBoard = false;
  requestAnimationFrame(() => {
    const top = $("turn").getBoundingClientRect().top;
    const bar = $("bar-bottom").offsetParent !== null; // shown (on narrow screens, two-player games)
    const bottom = (bar ? $("bar-bottom") : $("board-area")).getBoundingClientRect().bottom;
    if (top >= 0 && bottom <= innerHeight) return;
    const smooth = !matchMedia("(prefers-reduced-motion: reduce)").matches;
    $("turn").scrollIntoView({ block: "start", behavior: smooth ? "smooth" : "auto" });
  });
}

function roleBadge(role) {
  const board = /^([AB])-(white|black)$/.exec(role); // Bughouse: the board letter on the colour played
  if (board) {
    const badge = el("span", `role role-${board[2]}`, board[1]);
    badge.title = `plays ${board[2]} on board ${board[1]}`;
    return badge;
  }
  const mark = { X: "X", O: "O", black: "B", white: "W" }[role];
  const badge = el("span", `role ${mark ? `role-${role}` : "role-other"}`, mark || String(role).charAt(0).toUpperCase());
  badge.title = role === "X" || role === "O" ? `${role} plays ${colour(role)}` : String(role);
  return badge;
}

function renderSeats() {
  const list = $("seats");
  list.replaceChildren();
  const waiting = table.status === "waiting";
  const open = seatsOpen(); // seats may change (before a game, or after a decided series)
  const withClocks = timed(table);
  // Team games list the seats team by team, each under its heading.
  const groups = game().seatGroups ? game().seatGroups() : [{ label: null, seats: table.seats.map((s) => s.seat) }];
  for (const group of groups) {
    if (group.label) list.append(el("li", "team-head", group.label));
    for (const seat of group.seats.map((n) => table.seats[n])) {
      const item = el("li", "seat");
      item.classList.toggle("you", isMine(seat.seat));
      item.classList.toggle("to-move", playing() && table.to_move.includes(seat.seat));
      // Who: the name (and "you") on one line, their presence below.
      const whoBox = el("div", "who");
      const nameLine = el("div", "name-line");
      nameLine.append(el("span", seat.player ? "name" : "name muted", seat.player ? seat.player.name : "Free seat"));
      if (seat.player && seat.player.rating) nameLine.append(ratingBadge(seat.player.rating));
      if (isMine(seat.seat)) nameLine.append(el("span", "badge", "you"));
      if (isBot(seat.seat)) {
        // The computer's mark: a small screen drawn by CSS, and the word for screen readers.
        const mark = el("span", "bot-mark", "computer");
        mark.title = `The computer plays this seat (${STRENGTHS[seat.player.bot] || seat.player.bot})`;
        nameLine.append(mark);
      }
      if (/^[AB]-/.test(seat.role)) nameLine.append(el("span", "muted", seat.role)); // Bughouse: the role in words
      whoBox.append(nameLine);
      if (seat.player) {
        const p = seat.player;
        // Beside a clock the countdown is compact ("away 0:42"), so that it fits without wrapping.
        const presence = el("span", `presence ${p.connected ? "on" : "off"}${withClocks ? " compact" : ""}`, p.connected ? "connected" : "away");
        if (!p.connected && awayCounting(seat.seat)) presence.dataset.away = seat.seat; // counted down by tick()
        else if (!p.connected && playing() && table.settings.on_absence === "wait") presence.textContent = "away — the game waits";
        whoBox.append(presence);
      }
      item.append(roleBadge(seat.role), whoBox);
      if (withClocks) {
        const clock = el("span", "clock", "");
        clock.dataset.seat = seat.seat;
        clock.setAttribute("aria-label", `clock of ${seat.role}`);
        item.append(clock);
      }
      if (waiting && !seat.player && mySeats.length === 0) {
        item.append(button("Sit here", `Sit here as ${seat.role}`, () => sit(seat.seat)));
      }
      if (open && isMine(seat.seat)) {
        item.append(button(waiting ? "Stand up" : "Leave seat", `Leave seat ${seat.role}`, () => send({ type: "stand", seat: seat.seat }), "secondary"));
      }
      if (open && isBot(seat.seat) && mySeats.length > 0) {
        item.append(button("Remove", `Take the computer out of seat ${seat.role}`, () => send({ type: "remove_bot", seat: seat.seat }), "secondary"));
      }
      list.append(item);
      if (open && !seat.player && mySeats.length > 0) list.append(addBotRow(seat));
    }
  }
  $("name-row").hidden = !waiting || mySeats.length > 0; // a name is only needed to sit down
  const n = table.spectators;
  $("spectators").textContent = `${n} spectator${n === 1 ? "" : "s"} watching.`;
}

/** A free seat's "Add computer" control: the strength (remembered) and the button. */
function addBotRow(seat) {
  const row = el("li", "add-bot");
  const select = el("select");
  select.setAttribute("aria-label", `Strength of the computer for seat ${seat.role}`);
  for (const [value, label] of Object.entries(STRENGTHS)) {
    const option = el("option", "", label);
    option.value = value;
    select.append(option);
  }
  select.value = botStrength;
  select.addEventListener("change", () => {
    botStrength = select.value;
    localStorage.setItem(STRENGTH_KEY, botStrength);
  });
  row.append(select, button("Add computer", `Add the computer in seat ${seat.role}`, () => send({ type: "add_bot", seat: seat.seat, strength: select.value }), "secondary"));
  return row;
}

/** The line above the board: waiting, whose turn, or the result. */
function renderStatus() {
  const turnEl = $("turn");
  const mine = myTurnSeat();
  const g = game();
  let text = table.result ? `Game over: ${resultText(table.result)}` : "Game over.";
  if (table.status === "waiting") {
    const taken = table.seats.filter((s) => s.player).length;
    text = `Waiting for players — ${taken} of ${table.seats.length} seats taken.`;
    if (mySeats.length) text += " Send the link to your opponent, or add the computer.";
    if (table.settings.seating === "random") text += " Who moves first is drawn by lot at the start.";
  } else if (playing() && g.statusText) {
    text = g.statusText();
  } else if (playing()) {
    if (mine !== undefined) {
      text = `Your turn — you play ${roleOf(mine)}${colour(roleOf(mine)) !== roleOf(mine) ? ` (${colour(roleOf(mine))})` : ""}.`;
    } else {
      text = `${playerName(table.to_move[0])} (${roleOf(table.to_move[0])}) to move.`;
      text += mySeats.length ? ` You play ${mySeats.map(roleOf).join(", ")}.` : " You are watching.";
    }
    if (g.statusHint) text += g.statusHint(mine);
  }
  turnEl.textContent = text;
  turnEl.classList.toggle("mine", mine !== undefined);
  document.title = `${mine !== undefined ? "● Your turn — " : ""}${g.name} ${table.id} — spelbord`;
}

/** Resign, draw and premove buttons for seated players; the draw offer for everyone to see. */
function renderControls() {
  const seated = playing() && mySeats.length > 0;
  const offer = table.draw_offer; // the first seat of a standing offer, or null
  const agreed = table.draw_agreed || [];
  const iAgreed = mySeats.some((s) => agreed.includes(s));
  $("resign").hidden = !seated;
  $("offer-draw").hidden = !seated || (offer != null && !iAgreed);
  $("offer-draw").disabled = iAgreed;
  $("offer-draw").textContent = iAgreed ? "Draw offered" : "Offer draw";
  $("accept-draw").hidden = $("decline-draw").hidden = !(seated && offer != null && !iAgreed);
  const note = $("draw-note");
  note.hidden = !playing() || offer == null;
  if (!note.hidden) {
    const others = agreed.filter((s) => !isMine(s));
    note.textContent = iAgreed && others.length === 0 ? "You offered a draw."
      : `${others.map((s) => `${playerName(s)} (${roleOf(s)})`).join(", ")} ${others.length === 1 ? "offers" : "offer"} a draw${iAgreed ? "; you agree" : ""}.`;
    if (table.seats.length > 2) {
      // Every seat must agree: say who has, and who has not yet.
      const name = (s) => (isMine(s) ? "you" : `${playerName(s)} (${roleOf(s)})`);
      const pending = table.seats.map((s) => s.seat).filter((s) => !agreed.includes(s));
      note.textContent = `Draw offered — agreed: ${agreed.map(name).join(", ")}; waiting for: ${pending.map(name).join(", ")}.`;
    }
  }
  const g = game();
  $("premove-note").hidden = $("cancel-premove").hidden = !(premove && playing());
  if (premove) $("premove-note").textContent = `Premove: ${g.moveText ? g.moveText(premove.move) : JSON.stringify(premove.move)}`;
}

// ================================================================ actions
/** "Play the computer": once we know we hold no seat, take the one free seat. */
function sitInTheFreeSeat() {
  autoSit = false;
  if (!table || mySeats.length > 0 || !seatsOpen()) return;
  const free = table.seats.filter((s) => !s.player);
  if (free.length === 1) sit(free[0].seat);
}

function sit(seat) {
  const name = $("name").value.trim();
  localStorage.setItem(NAME_KEY, name);
  send({ type: "sit", seat, name });
}

/** Sends a move for `seat`, with our measure of the thinking time. */
function play(seat, move) {
  send({ type: "move", seat, move, think_ms: thinkMs(seat) });
}

/** Gomoku and Lines of Action: a move on our turn, otherwise a premove (or its cancellation). */
function moveOrPremove(move) {
  if (!playing() || mySeats.length === 0) return;
  const seat = myTurnSeat();
  if (seat !== undefined) return play(seat, move);
  const waiting = mySeats.find((s) => !table.to_move.includes(s)) ?? mySeats[0];
  if (premove && JSON.stringify(premove.move) === JSON.stringify(move)) return send({ type: "cancel_premove", seat: premove.seat });
  send({ type: "premove", seat: waiting, move });
}

$("cancel-premove").addEventListener("click", () => premove && send({ type: "cancel_premove", seat: premove.seat }));
$("resign").addEventListener("click", () => {
  if (confirm("Do you want to resign the match?")) send({ type: "resign", seat: actingSeat() });
});
$("offer-draw").addEventListener("click", () => send({ type: "offer_draw", seat: actingSeat() }));
$("accept-draw").addEventListener("click", () => send({ type: "accept_draw", seat: actingSeat() }));
$("decline-draw").addEventListener("click", () => send({ type: "decline_draw", seat: actingSeat() }));

$("chat-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("chat-text").value.trim();
  if (text && send({ type: "chat", text })) $("chat-text").value = "";
});

// Team chat (Bughouse): quick signals and free text, to the sender's team only.
function teamSay(text) {
  const seat = mySeats[0];
  return text && send({ type: "team_chat", text, ...(mySeats.length > 1 ? { seat } : {}) });
}
for (const signal of ["need N", "need P", "need B", "need R", "need Q", "don't trade", "sit", "go", "trade ok"]) {
  $("team-quick").append(button(signal, `Tell your partner: ${signal}`, () => teamSay(signal), "secondary"));
}
$("team-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("team-text").value.trim();
  if (teamSay(text)) $("team-text").value = "";
});

$("name").value = localStorage.getItem(NAME_KEY) || "";
$("name").addEventListener("change", () => localStorage.setItem(NAME_KEY, $("name").value.trim()));

// The share link is this page's own address (the server's `url` may name plain http).
$("share-link").value = `${location.origin}/t/${tableId}`;
$("copy").addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText($("share-link").value);
  } catch {
    $("share-link").select(); // insecure pages have no clipboard API: the old way
    document.execCommand("copy");
  }
  $("copy").textContent = "Copied!";
  setTimeout(() => { $("copy").textContent = "Copy link"; }, 1500);
});

// Bughouse draws its boards from a viewpoint: a flip redraws them (flip.js).
window.addEventListener("spelbord:flip", () => { if (table) render(); });
setInterval(() => {
  tick(table);
  if (!table) return;
  seriesUi.tick();
  if (playing()) lowTimeCheck(`${table.id}:${table.game_number}`, mySeats, runningLeft);
}, 100);
connection = connectTable(tableId, {
  resumeFrom: () => (table !== null ? { version, epoch: table.epoch } : null),
  connecting: (resuming) => { replaying = resuming; },
  open: hello, // say hello again on every connection: the server knows us by our token
  message: handle,
  status: showConnection,
});
