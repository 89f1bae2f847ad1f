// The table page (web/table.html): state, connection, events, seats (and the computer's),
// clocks, status, chat and actions. Each game's board is a module of its own under boards/;
// series, rematches, "new game" and take-backs are series.js; a rotating table's queue and
// standings are rotation.js; what the page shares with them is the `page` object below. Every sentence it shows comes from the page's catalogue (`t`, i18n.js);
// moves, a game's start and its end are said in the page's live region (`announce`, a11y.js).
// See web/README.md.

import { $, el, button } from "./dom.js";
import { t, has, lang } from "./i18n.js";
import { announce } from "./a11y.js";
import { connectTable } from "./net.js";
import { setClocks, setAway, clearAway, awayCounting, timed, tick, noteTurn, unknownTurn, restartTurn, turnNow, thinkMs, runningLeft } from "./clock.js";
import { sound, moveSound, lowTimeCheck } from "./sound.js";
import { seriesPanel, formatText } from "./series.js";
import { rotationPanel } from "./rotation.js";
import { recordsPanel } from "./records.js";
import "./flip.js";
import { generic } from "./boards/generic.js";

// Each game's board, loaded for the table's game only (the server writes it in
// `<html data-game>`): a page carries one board's code, not four.
const BOARDS = {
  gomoku: () => import("./boards/gomoku.js").then((m) => m.gomoku),
  "lines-of-action": () => import("./boards/loa.js").then((m) => m.linesOfAction),
  krux: () => import("./boards/krux.js").then((m) => m.krux),
  bughouse: () => import("./boards/bughouse.js").then((m) => m.bughouse),
};
const boardGame = document.documentElement.dataset.game;
const makeBoard = BOARDS[boardGame] ? await BOARDS[boardGame]() : null;

// ================================================================ state
const TOKEN_KEY = "spelbord.token";
const NAME_KEY = "spelbord.name";
const STRENGTH_KEY = "spelbord.botStrength";
const tableId = decodeURIComponent(location.pathname.split("/")[2] || "");
// "Play the computer" (the home page) opens `/t/{id}#play`: take the one free seat on arrival.
// "Play a friend" opens `/t/{id}#invite`: take a free seat and show the link to send at the top
// until the table fills. The fragment is dropped at once, so the address stays the table's
// shareable link.
let inviting = location.hash === "#invite";
let autoSit = location.hash === "#play" || inviting;
if (location.hash) history.replaceState(null, "", location.pathname + location.search);
const STRENGTHS = ["easy", "medium", "hard", "random"];
// The external engines the server offers (`GET /api/bots`): {id: "engine:NAME", game, name, move_ms}.
// Seated as a strength; shown by their configured name and time.
let engines = [];
const isEngine = (strength) => String(strength).startsWith("engine:");
function strengthName(strength) {
  if (isEngine(strength)) {
    const engine = engines.find((e) => e.id === strength);
    return engine ? t("common.strength.engine", { name: engine.name, ms: engine.move_ms }) : String(strength).slice("engine:".length);
  }
  return has(`common.strength.${strength}`) ? t(`common.strength.${strength}`) : String(strength);
}
const storedStrength = localStorage.getItem(STRENGTH_KEY);
let botStrength = STRENGTHS.includes(storedStrength) || isEngine(storedStrength) ? storedStrength : "easy";
fetch("/api/bots")
  .then((response) => (response.ok ? response.json() : null))
  .then((offered) => {
    engines = (offered && offered.engines) || [];
    // Only the seats name engines (the "Add computer" lists, an engine's name).
    if (table && !awaitingSeats && engines.length) renderSeats();
  })
  .catch(() => { /* no engines listed: our strengths only */ });

let token = localStorage.getItem(TOKEN_KEY); // this browser's secret player token
let table = null;    // the table as last known: the snapshot, kept up to date by events
let version = 0;     // version of the last event applied (sent back as `?since=` on reconnecting)
let mySeats = [];    // seats this browser's token holds (from `welcome`)
let replaying = false; // between reconnecting with `?since=` and `resumed`: missed events arrive late
let helloTimer = null; // after `game_started`: say hello ourselves if no `welcome` follows
let helloPending = false; // a `hello` is on its way: the `welcome` answering it will list our seats
let premove = null;  // our queued premove as the server confirmed it: {seat, move}
let builtFor = "";   // what the board area holds now (game id and board size)
let connection = null; // the WebSocket, kept open (net.js): `send`, `resync`
let scrollToBoard = false; // a game just started: bring the board into view if we play in it
// Between `game_started` and the `welcome` that lists our (maybe redrawn) seats, `mySeats` is
// the last game's: nothing seat-dependent (whose turn is ours, "you") is drawn from it. The page
// keeps showing what it showed and draws the new game once the seats are known.
let awaitingSeats = false;
let awaitingFull = false; // a full redraw (the board rebuilt) is due once the seats are known
let awaitingGuard = null; // draws anyway should no `welcome` come at all
let announceStart = false; // say that the game started once our seats are known
let endingMove = ""; // a move that ended the game, as said: the game's end is said after it
// The snapshot counted this very connection as a spectator (it is sent before our `hello`):
// once a `welcome` says we hold a seat, and no count was announced meanwhile, we count one less.
let countedUs = false;
let renaming = false; // the rename form is open
let renameInGame = true; // the server takes `rename` (an older one answers `unknown_type`: then only before the game)
// A rotating table's last result in words, fixed when `rotated` changed the seats after it
// (the result names seats, and their new players did not play that game); until the next game.
let resultSaid = "";

/** A seat role in the page's language: X and O stay, colours are words ("svart", "A-vit"). */
function roleName(role) {
  const key = `table.role.${String(role).toLowerCase().replace("-", "_")}`;
  return has(key) ? t(key) : String(role);
}

/** A result's reason in words, e.g. "five in a row". */
const reasonText = (reason) => (has(`table.reason.${reason}`) ? t(`table.reason.${reason}`) : String(reason).replace(/_/g, " "));

/** A list of names in the page's language: "Ann, Bo and Cy" / "Ann, Bo och Cy". */
const listOf = (items) => new Intl.ListFormat(lang, { style: "long", type: "conjunction" }).format(items);

/**
 * The server's refusal (`error`, `premove_discarded`) in the page's language: by its `code`, and
 * for an illegal move by its `rule` (this game's own sentence first, then the rule's, then a
 * generic one saying the move was refused). The server's own `message` is for developers.
 */
function refusalText(msg) {
  if (msg.code === "illegal_move") {
    const game = table ? table.game : "";
    for (const key of [`error.rule.${game}.${msg.rule}`, `error.rule.${msg.rule}`]) if (msg.rule && has(key)) return t(key);
    return t("error.illegal_move");
  }
  return has(`error.${msg.code}`) ? t(`error.${msg.code}`) : t("error.generic");
}

// ================================================================ connection
function send(msg, quiet) {
  if (connection && connection.send(msg)) return true;
  if (!quiet) log(t("table.not_connected"));
  return false;
}

/** Presents our token (or asks for one); the answer, `welcome`, lists the seats we hold. */
function hello() {
  if (send(token ? { type: "hello", token, ref: "hello" } : { type: "hello", ref: "hello" }, true)) helloPending = true;
}

/** The connection line: `kind` "" (connected: hidden), "reconnecting", "gone" or "closed" (by a moderator). */
function showConnection(kind) {
  const ended = kind === "gone" || kind === "closed";
  const text = kind === "gone" ? t("table.conn.gone") : kind === "closed" ? t("table.conn.closed") : kind ? t("table.conn.reconnecting") : "";
  document.body.classList.toggle("offline", Boolean(text));
  $("conn").hidden = !text;
  $("conn").textContent = text;
  $("conn").classList.toggle("gone", ended);
  if (ended) $("conn").append(" ", Object.assign(el("a", "", t("table.conn.create_new")), { href: "/" }));
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
      helloPending = false;
      if (countedUs && table && mySeats.length > 0) {
        countedUs = false;
        table.spectators = Math.max(0, table.spectators - 1);
      }
      clearTimeout(helloTimer);
      localStorage.setItem(TOKEN_KEY, token);
      rotationUi.welcome(msg); // our place in a rotating table's queue, if we wait
      // The team chat we may read, all of it: it replaces what the box showed (nothing twice).
      if (table && game().teamChat) showChat($("team-log"), msg.team_chat || [], true);
      if (autoSit) sitInTheFreeSeat();
      if (awaitingSeats) return seatsKnown();
      return render();
    case "error":
      if (msg.ref === "hello" && msg.code === "bad_token") {
        // A stored token the server does not accept: start afresh with a new one.
        token = null;
        localStorage.removeItem(TOKEN_KEY);
        return hello();
      }
      if (msg.ref === "rename" && msg.code === "unknown_type") return renameBySittingAgain();
      if (msg.ref === "join_queue") rotationUi.refused();
      return log(refusalText(msg));
    case "pong": return;
    case "legal_moves": return table && game().legalMoves && game().legalMoves(msg); // a board's question (Bughouse)
    case "team_chat": return addChat(msg, true);
    // Moderation (docs/protocol.md 3.11c), to this connection only.
    case "reported": return log(t(msg.again ? "chat.report.again" : "chat.report.done"), "info");
    case "muted":
      return log(msg.until ? t("chat.muted_until", { reason: msg.reason, until: new Date(msg.until).toLocaleString(lang) }) : t("chat.muted", { reason: msg.reason }));
    case "unmuted": return log(t("chat.unmuted"), "info");
    case "removed": return log(t(msg.barred ? "table.removed_barred" : "table.removed", { role: roleName(roleOf(msg.seat)) }));
    case "premove_set":
      premove = { seat: msg.seat, move: msg.move };
      return render();
    case "premove_cancelled":
      premove = null;
      return render();
    case "premove_discarded":
      premove = null;
      log(t("table.premove.discarded", { reason: refusalText(msg) }));
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
    case "renamed":
      // A seated player chose another name before their first move (see renameTo).
      if (seat && seat.player) seat.player.name = msg.name;
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
    case "spectators":
      table.spectators = msg.count;
      countedUs = false; // in step with what everyone else was told
      break;
    case "game_started":
      Object.assign(table, {
        status: "playing", game_number: msg.game_number, seats: msg.seats, state: msg.state,
        to_move: msg.to_move, moves: [], draw_offer: null, draw_agreed: [], result: null, clocks: msg.clocks,
        series: msg.series ?? null, ready: [], rematch_agreed: [], new_game_agreed: [], undo_agreed: [],
      });
      seriesUi.setPause(null);
      resultSaid = "";
      setClocks(msg.clocks);
      clearAway();
      for (const s of msg.seats) setAway(s.seat, s.player);
      premove = null;
      // The server sends every identified connection a `welcome` with its (maybe redrawn)
      // seats right after this; should none come, ask ourselves. Until it comes, our seats are
      // the last game's: the new game is drawn once they are known (seatsKnown).
      clearTimeout(helloTimer);
      helloTimer = setTimeout(hello, 1500);
      // (We may also have just sat down, the `welcome` saying so still to come.)
      if (mySeats.length > 0 || helloPending) awaitSeats();
      noteTurn(table, replaying);
      if (!replaying) {
        sound("start");
        scrollToBoard = true; // once our seats are known (welcome), the board comes into view
        announceStart = true;
        if (!awaitingSeats) sayStarted();
      }
      return renderAll();
    case "moved": {
      if (!replaying && hearsMove(msg.seat)) sound(moveSound(table.game, table.state, msg.state));
      const wasMine = myTurnSeat() !== undefined;
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
      if (!replaying && !awaitingSeats) sayMove(msg, !wasMine && myTurnSeat() !== undefined);
      break;
    }
    case "undone":
      // Back to the position after the first `plies` moves, with the clocks as they were then.
      table.moves = table.moves.slice(0, msg.plies);
      Object.assign(table, { state: msg.state, to_move: msg.to_move, draw_offer: null, draw_agreed: [], undo_agreed: [], new_game_agreed: [] });
      if ("clocks" in msg) setClocks(msg.clocks);
      premove = null;
      if (!replaying) restartTurn(table); // the seat to move decides again from now
      log(isMine(msg.seat) ? t("table.undone.you") : t("table.undone.other", { name: playerName(msg.seat) }), "info");
      break;
    case "draw_offered":
      if (table.draw_offer == null) table.draw_offer = msg.seat;
      table.draw_agreed = [...new Set([...(table.draw_agreed || []), msg.seat])];
      break;
    case "draw_declined":
      table.draw_offer = null;
      table.draw_agreed = [];
      log(t("table.draw.declined", { name: playerName(msg.seat) }), "info");
      break;
    case "game_over":
      Object.assign(table, { status: "finished", result: msg.result, to_move: [], draw_offer: null, draw_agreed: [], undo_agreed: [], new_game_agreed: [] });
      if (msg.series) table.series = msg.series;
      if ("clocks" in msg) setClocks(msg.clocks);
      premove = null;
      recordsUi.refresh(); // the finished game joins the list, ready to replay
      applyRatings(msg.ratings);
      if (!replaying) sayOver();
      if (msg.unrated && !replaying) {
        log(t("table.ratings.unrated_pair_limit", { limit: String(msg.unrated.limit), hours: String(msg.unrated.hours) }), "info");
      }
      break;
    case "rotated":
      // A rotating table seated its next game: every seat as it is now; the `welcome` that
      // follows says which seats are ours (rotation.js: the queue, standings and who came in).
      // The game just ended is said with the players who played it, not those who come in.
      if (table.result && !resultSaid) resultSaid = resultText(table.result);
      table.seats = msg.seats;
      clearAway();
      for (const s of msg.seats) setAway(s.seat, s.player);
      Object.assign(table, { ready: [], rematch_agreed: [] });
      // With every seat held again after someone stood up, the table is between games.
      if (table.status === "waiting" && table.result && table.seats.every((s) => s.player)) table.status = "finished";
      rotationUi.apply(msg);
      break;
    case "chat": addChat(msg); break;
    case "table_closed": log(t("table.closed")); break; // the socket closes next (4000)
    // Series, rematches, new game, take-back requests; a rotating table's queue.
    default: if (!seriesUi.apply(msg)) rotationUi.apply(msg);
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
    // Ratings are written as the seats show them (1520, "1520?"), not as grouped numbers.
    words.push(t("table.ratings.item", {
      name: playerName(c.seat), before: String(c.before), after: `${c.after}${c.provisional ? "?" : ""}`, change: `${sign}${Math.abs(c.change)}`,
    }));
  }
  if (!replaying) log(t("table.ratings.line", { list: listOf(words) }), "info");
}

/** A rating next to a name: "1520", or "1520?" while provisional. */
function ratingBadge(rating) {
  const badge = el("span", "rating", `${rating.value}${rating.provisional ? "?" : ""}`);
  const params = { value: String(rating.value), deviation: String(rating.deviation) };
  badge.title = rating.provisional ? t("table.rating.title_provisional", params) : t("table.rating.title", params);
  return badge;
}

function applySnapshot(msg) {
  [table, version, replaying] = [msg.table, msg.version, false];
  resultSaid = "";
  // A rotating table between games: its last result names seats whose players may have
  // changed since (the snapshot keeps the seats as that game ended).
  const played = table.rotation && table.rotation.result_seats;
  if (played && table.result && table.status !== "playing") resultSaid = resultTextAt(table.result, played);
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
  countedUs = true;
  renderAll();
}

/** We missed something: reconnect, resuming from the last version we applied. */
function outOfStep() {
  log(t("table.out_of_step"), "info");
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

// ================================================================ a new game's seats
/** A game started and we held seats: wait for the `welcome` that says which we hold now. */
function awaitSeats() {
  awaitingSeats = true;
  clearTimeout(awaitingGuard);
  // Should no `welcome` come (the connection dropped), draw with what we have after a while.
  awaitingGuard = setTimeout(() => { if (awaitingSeats) seatsKnown(); }, 4000);
}

/** Our seats in the new game are known: draw it. */
function seatsKnown() {
  awaitingSeats = false;
  clearTimeout(awaitingGuard);
  if (announceStart) sayStarted();
  if (awaitingFull) renderAll();
  else render();
}

// ================================================================ said to screen readers
/** "The game has started: you play X and move first." (once our seats are known). */
function sayStarted() {
  announceStart = false;
  if (!table || table.status !== "playing") return;
  const mine = myTurnSeat();
  if (mySeats.length === 0) return announce(t("table.announce.started"));
  const role = mySeats.map((s) => roleName(roleOf(s))).join(", ");
  announce(t(mine !== undefined ? "table.announce.started_your_turn" : "table.announce.started_you", { role }));
}

/** One sentence per move: "Ann (X) played H8." — and "Your turn." when it now is. */
function sayMove(msg, nowMine) {
  const params = { name: playerName(msg.seat), role: roleName(roleOf(msg.seat)), move: msg.text };
  const key = isMine(msg.seat) ? "table.announce.moved_you" : nowMine ? "table.announce.moved_your_turn" : "table.announce.moved";
  const text = t(key, params);
  // A move that ends the game leaves nobody to move; its `game_over` follows at once.
  endingMove = msg.to_move.length === 0 ? text : "";
  announce(text);
}

/**
 * The game's end; when a move ended it, after that move (one announcement, so that the end
 * does not replace the move before it is read).
 */
function sayOver() {
  if (!table.result) return;
  const over = t("table.announce.game_over", { result: resultText(table.result) });
  announce(endingMove ? `${endingMove} ${over}` : over);
  endingMove = "";
}

// ================================================================ helpers
const isMine = (seat) => mySeats.includes(seat);
const roleOf = (seat) => (table.seats[seat] ? table.seats[seat].role : "?");
/**
 * A player's name as shown: their own; the computer's in the page's language ("Dator (svår)";
 * the server names it in English, "Computer (hard)"); and the server's name for a player who
 * gave none ("Player 1", by the seat first taken) as "Spelare 1".
 */
function nameOf(player) {
  if (player.bot && isEngine(player.bot)) return strengthName(player.bot);
  if (player.bot) return t("table.seat.bot_name", { strength: strengthName(player.bot).toLocaleLowerCase(lang) });
  return displayName(player.name);
}
/** A name as the server gives it, in the page's language when it is the server's own "Player 2". */
function displayName(name) {
  const numbered = /^Player (\d+)$/.exec(name);
  return numbered ? t("table.seat.default_name", { number: Number(numbered[1]) }) : name;
}
const playerName = (seat) => (table.seats[seat] && table.seats[seat].player ? nameOf(table.seats[seat].player) : t("table.seat.numbered", { number: seat + 1 }));
/** A seat's player within a sentence: "you (X)" for ours, "Anna (O)" for another's. */
const whoInSentence = (seat) => (isMine(seat)
  ? t("table.who.you", { role: roleName(roleOf(seat)) })
  : t("table.who.other", { name: playerName(seat), role: roleName(roleOf(seat)) }));
const playing = () => table && table.status === "playing";
/** Whether seats may change: before a game, or once a series is decided (not during a series' pause). */
const seatsOpen = () => table.status === "waiting" || (table.status === "finished" && (!table.series || table.series.decided));
const isBot = (seat) => Boolean(table.seats[seat] && table.seats[seat].player && table.seats[seat].player.bot);
/** The seat of ours that is to move, if any. */
const myTurnSeat = () => (playing() ? mySeats.find((s) => table.to_move.includes(s)) : undefined);
/** The seat we act for: the one to move, else our first. */
const actingSeat = () => myTurnSeat() ?? mySeats[0];
/** The stone colour a Gomoku role plays ("black" for X), else the role itself: an identifier, see roleName. */
const colour = (role) => (role === "X" ? "black" : role === "O" ? "white" : role);
/** Whether a move's sound is played: always, except for the other Bughouse board when we play on one. */
function hearsMove(seat) {
  const boardOf = (s) => String(roleOf(s)).split("-")[0];
  return table.game !== "bughouse" || mySeats.length === 0 || mySeats.some((s) => boardOf(s) === boardOf(seat));
}

function log(text, kind) {
  $("log").append(el("li", kind, `${new Date().toLocaleTimeString(lang)} — ${text}`));
  while ($("log").children.length > 20) $("log").firstChild.remove();
  $("log").scrollTop = $("log").scrollHeight;
}

/** How many lines a chat box keeps (the server's history is as long). */
const CHAT_LINES = 100;

/**
 * Team chat's quick signals (Bughouse). They are sent as these fixed words, and every reader
 * sees them in their own page's language.
 */
const SIGNALS = {
  "need N": "chat.signal.need_n", "need P": "chat.signal.need_p", "need B": "chat.signal.need_b",
  "need R": "chat.signal.need_r", "need Q": "chat.signal.need_q", "don't trade": "chat.signal.dont_trade",
  sit: "chat.signal.sit", go: "chat.signal.go", "trade ok": "chat.signal.trade_ok",
};
const lineText = (text) => (Object.hasOwn(SIGNALS, text) ? t(SIGNALS[text]) : text);

/** Where the names this browser muted in chat are kept: `{tableId: [name, …]}`. */
const MUTED_KEY = "spelbord.chat_muted";

/**
 * The names muted in this table's chat, for this browser only (the protocol never shows a
 * player's key, so a mute is by name, at this table).
 */
function mutedNames() {
  try {
    const all = JSON.parse(localStorage.getItem(MUTED_KEY) || "{}");
    return Array.isArray(all[tableId]) ? all[tableId] : [];
  } catch {
    return [];
  }
}

/** The mute toggle's accessible name: it begins with the words it shows ("Mute Anna: …"). */
const muteLabel = (name, muted) => t(muted ? "chat.mute.label_off" : "chat.mute.label", { name: displayName(name) });

/** Mutes or unmutes `name` in this table's chat, and hides or shows their lines. */
function toggleMuted(name) {
  let all;
  try { all = JSON.parse(localStorage.getItem(MUTED_KEY) || "{}"); } catch { all = {}; }
  const names = mutedNames();
  all[tableId] = names.includes(name) ? names.filter((n) => n !== name) : [...names, name];
  if (all[tableId].length === 0) delete all[tableId];
  localStorage.setItem(MUTED_KEY, JSON.stringify(all));
  const muted = all[tableId] || [];
  log(t(muted.includes(name) ? "chat.mute.done" : "chat.mute.undone", { name: displayName(name) }), "info");
  for (const box of [$("chat-log"), $("team-log")]) {
    for (const item of box.children) {
      if (item.dataset.name === name) item.hidden = muted.includes(name);
      const toggle = item.querySelector("button.mute");
      if (toggle && item.dataset.name === name) {
        toggle.textContent = t(muted.includes(name) ? "chat.mute.off" : "chat.mute.on");
        toggle.setAttribute("aria-label", muteLabel(name, muted.includes(name)));
      }
    }
  }
}

/** One chat line: the speaker's name (or "You", in the team box) and role, then the text; on
 * another person's line, "report" and a mute toggle (hidden while muted in this browser). */
function chatLine(msg, team, teamBox) {
  const item = el("li", team && !teamBox ? "team" : "");
  const name = teamBox && isMine(msg.seat) ? t("chat.you") : displayName(msg.name);
  // At a rotating table the people waiting in the queue chat too, with no seat (`null`).
  const speaker = msg.seat == null ? t("chat.speaker_waiting", { name })
    : t(team && !teamBox ? "chat.speaker_team" : "chat.speaker", { name, role: roleName(roleOf(msg.seat)) });
  item.append(el("strong", "", `${speaker} `), team ? lineText(msg.text) : msg.text);
  item.dataset.name = msg.name;
  const own = msg.seat == null ? rotationUi.myName() === msg.name : isMine(msg.seat);
  if (!own && msg.id !== undefined) {
    const muted = mutedNames().includes(msg.name);
    item.hidden = muted;
    const actions = el("span", "chat-actions");
    actions.append(
      button(t("chat.report.action"), t("chat.report.label", { name }), () => send({ type: "report", line: msg.id }), "report"),
      button(t(muted ? "chat.mute.off" : "chat.mute.on"), muteLabel(msg.name, muted), () => toggleMuted(msg.name), "mute"),
    );
    item.append(" ", actions);
  }
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

/**
 * `result` in words with the seats as that game ended, each named (never "you": the seats we
 * hold now were maybe someone else's then).
 */
function resultTextAt(result, seats) {
  const [now, ours] = [table.seats, mySeats];
  [table.seats, mySeats] = [seats, []];
  try {
    return resultText(result);
  } finally {
    [table.seats, mySeats] = [now, ours];
  }
}

/** The finished game's result in words, e.g. "Anna (X) wins — five in a row." */
function resultText(result) {
  const own = game().resultText ? game().resultText(result) : null;
  if (own) return own;
  const detail = result.detail || {};
  if (result.outcome === "win") {
    const losers = table.seats.map((s) => s.seat).filter((s) => !result.winners.includes(s));
    // Sentence case, "you" inside a sentence: "You (X) win — Bo (O) resigned.", "Anna (X) wins — you (O) resigned."
    const you = result.winners.every(isMine);
    const params = {
      winners: listOf(result.winners.map(whoInSentence)),
      role: listOf(result.winners.map((s) => roleName(roleOf(s)))),
      losers: listOf(losers.map(whoInSentence)),
      reason: reasonText(result.reason),
    };
    const keyed = (kind, extra = {}) => t(`table.result.${you ? "you_win" : "wins"}.${kind}`, { ...params, ...extra });
    if (result.reason === "resignation") return keyed("resigned");
    if (result.reason === "time" && detail.seat != null) return keyed("time", { who: whoInSentence(detail.seat) });
    if (result.reason === "abandoned" && detail.seat != null) return keyed("abandoned", { who: whoInSentence(detail.seat) });
    if (result.reason === "hole" && detail.fallen != null) return keyed("hole", { piece: detail.fallen });
    return keyed("reason");
  }
  if (result.outcome === "draw" && result.reason === "draw_agreed") {
    const n = table.seats.length;
    return n === 2 ? t("table.result.draw_agreed_two") : t("table.result.draw_agreed_all", { count: n });
  }
  if (result.outcome === "draw") return t("table.result.draw", { reason: reasonText(result.reason) });
  if (detail.rule === "new_game") return t("table.result.new_game");
  if (detail.rule === "aborted_before_everyone_moved" && detail.seat != null) {
    return t("table.result.aborted_left", { who: whoInSentence(detail.seat) });
  }
  if (detail.rule === "everyone_away") return t("table.result.aborted_away");
  if (detail.rule === "aborted_before_two_moves_each") return t("table.result.aborted_too_few_moves");
  return t("table.result.aborted");
}

function timeControlText(tc) {
  if (!tc || tc.kind === "none") return t("table.tc.none");
  const time = (s) => (s % 60 === 0 ? t("table.tc.minutes", { count: s / 60 }) : t("table.tc.seconds", { count: s }));
  switch (tc.kind) {
    case "sudden_death": return t("table.tc.sudden_death", { time: time(tc.base_seconds) });
    case "fischer": return t("table.tc.fischer", { time: time(tc.base_seconds), increment: tc.increment_seconds });
    case "per_move": return t("table.tc.per_move", { count: tc.seconds });
    case "correspondence": return tc.days ? t("table.tc.days", { count: tc.days }) : t("table.tc.hours", { count: tc.hours });
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
  myTurnSeat: () => (recordsUi.replaying || awaitingSeats ? undefined : myTurnSeat()),
  actingSeat, isMine, roleOf, roleName, playerName, nameOf, displayName, whoInSentence, colour, reasonText, refusalText, roleBadge, awayCounting,
  timed: () => timed(table),
  send, play, moveOrPremove, log,
  /** Redraws the status line (a board's `statusHint` changed without a server event). */
  refreshStatus: () => table && !awaitingSeats && renderStatus(),
};
const GAMES = makeBoard ? { [boardGame]: makeBoard(page) } : {};
const GENERIC = generic(page);
const seriesUi = seriesPanel(page);
const rotationUi = rotationPanel(page);
const recordsUi = recordsPanel(page, tableId, () => renderAll());

// ================================================================ rendering: the table
const game = () => GAMES[table.game] || GENERIC;

/** Rebuilds the board when the game or its size changed, then redraws everything. */
function renderAll() {
  if (awaitingSeats) {
    awaitingFull = true; // drawn once our seats in the new game are known
    return;
  }
  awaitingFull = false;
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
  if (!table || awaitingSeats) return;
  const g = game();
  const s = table.settings;
  $("title").textContent = t("table.title", { game: g.name, id: table.id });
  $("settings").textContent = [
    g.settingsText ? g.settingsText(s) : "",
    timeControlText(s.time_control),
    s.series && s.series !== "single" ? formatText(s.series).toLowerCase() : "",
    rotationUi.settingsText(s).toLowerCase(),
    s.seating === "random" ? t("table.settings.seats_lot") : t("table.settings.seats_chosen"),
    s.undo ? t("table.settings.undo") : "",
    s.grace_seconds ? t("table.settings.grace", { count: s.grace_seconds }) : "",
  ].filter(Boolean).join(" · ");
  $("rated").hidden = !(table.rated ?? s.rated);
  // The game's rules page, in the page's language, in a new tab so the table stays open.
  $("rules-link").href = `/rules/${encodeURIComponent(table.game)}?lang=${lang}`;
  $("rules-link").hidden = false;
  renderInvite();
  renderSeats();
  renderStatus();
  renderControls();
  seriesUi.render();
  rotationUi.render();
  recordsUi.renderLive();
  g.update();
  tick(page.table); // a replay shows its own clocks (records.js)
  const seated = mySeats.length > 0;
  document.querySelector(".play").classList.toggle("wide", Boolean(g.wide));
  $("team-section").hidden = !(g.teamChat && seated);
  if (g.teamChat && seated) $("team-partner").textContent = g.teamChat();
  // Seated players chat, and at a rotating table those waiting in its queue.
  const speaks = seated || rotationUi.waiting();
  $("chat-text").disabled = $("chat-send").disabled = !speaks;
  $("chat-text").placeholder = speaks ? t("chat.placeholder") : t(table.rotation ? "chat.placeholder_rotation" : "chat.placeholder_spectator");
  renderBars();
  if (scrollToBoard) showBoard();
}

// ================================================================ "Play a friend": the link at the top
/** The invitation box (`#invite`): shown while the table waits for players, then gone for good. */
function renderInvite() {
  if (inviting && table.status !== "waiting") inviting = false;
  $("invite-box").hidden = !inviting;
  if (!inviting) return;
  $("invite-text").textContent = table.seats.length > 2 ? t("table.invite.text_many") : t("table.invite.text");
  $("invite-share").hidden = typeof navigator.share !== "function";
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
    bar.replaceChildren(roleBadge(seat.role), el("span", p ? "name" : "name muted", p ? nameOf(p) : t("table.seat.free")));
    if (isMine(seat.seat)) bar.append(el("span", "badge", t("table.seat.you")));
    if (p && !p.connected) {
      const away = el("span", "presence off compact", t("table.presence.away"));
      if (awayCounting(seat.seat)) away.dataset.away = seat.seat; // counted down by tick()
      bar.append(away);
    }
    bar.classList.toggle("to-move", playing() && table.to_move.includes(seat.seat));
    bar.classList.toggle("you", isMine(seat.seat));
    if (withClocks) bar.append(clockOf(seat));
  }
}

/** A seat's clock, counted down by tick(): a timer, named for screen readers. */
function clockOf(seat) {
  const clock = el("span", "clock", "");
  clock.dataset.seat = seat.seat;
  clock.setAttribute("role", "timer");
  clock.setAttribute("aria-label", t("clock.label", { role: roleName(seat.role) }));
  return clock;
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
    badge.title = t("table.role.title_board", { colour: roleName(board[2]), board: board[1] });
    return badge;
  }
  const mark = { X: "X", O: "O", black: "B", white: "W" }[role];
  const letter = has(`table.role.letter_${role}`) ? t(`table.role.letter_${role}`) : mark;
  const badge = el("span", `role ${mark ? `role-${role}` : "role-other"}`, letter || String(role).charAt(0).toUpperCase());
  badge.title = role === "X" || role === "O" ? t("table.role.title_stone", { role, colour: roleName(colour(role)) }) : roleName(role);
  return badge;
}

/** What a control in the seat list is, to find it again after the list is redrawn. */
const controlKey = (node) => `${node.tagName}|${node.getAttribute("aria-label") || node.textContent}`;

function renderSeats() {
  const list = $("seats");
  // The list is redrawn on every event: a keyboard user's focus stays on the same control.
  const focused = list.contains(document.activeElement) ? controlKey(document.activeElement) : null;
  list.replaceChildren();
  const waiting = table.status === "waiting";
  const open = seatsOpen(); // seats may change (before a game, or after a decided series)
  const withClocks = timed(table);
  const renameable = canRename();
  // Team games list the seats team by team, each under its heading.
  const groups = game().seatGroups ? game().seatGroups() : [{ label: null, seats: table.seats.map((s) => s.seat) }];
  for (const group of groups) {
    if (group.label) list.append(el("li", "team-head", group.label));
    for (const seat of group.seats.map((n) => table.seats[n])) {
      const role = roleName(seat.role);
      const item = el("li", "seat");
      item.classList.toggle("you", isMine(seat.seat));
      item.classList.toggle("to-move", playing() && table.to_move.includes(seat.seat));
      // Who: the name (and "you") on one line, their presence below.
      const whoBox = el("div", "who");
      const nameLine = el("div", "name-line");
      nameLine.append(el("span", seat.player ? "name" : "name muted", seat.player ? nameOf(seat.player) : t("table.seat.free")));
      if (seat.player && seat.player.rating) nameLine.append(ratingBadge(seat.player.rating));
      if (isMine(seat.seat)) nameLine.append(el("span", "badge", t("table.seat.you")));
      if (isBot(seat.seat)) {
        // The computer's mark: a small screen drawn by CSS, and the word for screen readers.
        const mark = el("span", "bot-mark", t("table.seat.computer"));
        mark.title = t("table.seat.computer_title", { strength: strengthName(seat.player.bot) });
        nameLine.append(mark);
      }
      if (/^[AB]-/.test(seat.role)) nameLine.append(el("span", "muted", role)); // Bughouse: the role in words
      whoBox.append(nameLine);
      if (seat.player) {
        const p = seat.player;
        // Beside a clock the countdown is compact ("away 0:42"), so that it fits without wrapping.
        const presence = el("span", `presence ${p.connected ? "on" : "off"}${withClocks ? " compact" : ""}`, p.connected ? t("table.presence.connected") : t("table.presence.away"));
        if (!p.connected && awayCounting(seat.seat)) presence.dataset.away = seat.seat; // counted down by tick()
        else if (!p.connected && playing() && table.settings.on_absence === "wait") presence.textContent = t("table.presence.away_waits");
        whoBox.append(presence);
      }
      item.append(roleBadge(seat.role), whoBox);
      if (withClocks) item.append(clockOf(seat));
      if (waiting && !seat.player && mySeats.length === 0) {
        item.append(button(t("table.seat.sit"), t("table.seat.sit_label", { role }), () => sit(seat.seat)));
      }
      if (renameable && isMine(seat.seat) && !isBot(seat.seat)) {
        const rename = button(t("table.rename.button"), t("table.rename.button_label", { role }), () => openRename(seat.seat), "secondary rename");
        rename.setAttribute("aria-expanded", String(renaming));
        rename.setAttribute("aria-controls", "rename-form");
        item.append(rename);
      }
      if (open && isMine(seat.seat)) {
        item.append(button(waiting ? t("table.seat.stand") : t("table.seat.leave"), t(waiting ? "table.seat.stand_label" : "table.seat.leave_label", { role }), () => send({ type: "stand", seat: seat.seat }), "secondary"));
      }
      if (open && isBot(seat.seat) && mySeats.length > 0) {
        item.append(button(t("table.seat.remove_bot"), t("table.seat.remove_bot_label", { role }), () => send({ type: "remove_bot", seat: seat.seat }), "secondary"));
      }
      list.append(item);
      if (open && !seat.player && mySeats.length > 0) list.append(addBotRow(seat));
    }
  }
  if (focused) {
    const again = [...list.querySelectorAll("button, select")].find((node) => controlKey(node) === focused);
    if (again) again.focus();
  }
  $("name-row").hidden = !waiting || mySeats.length > 0; // a name is only needed to sit down
  if (renaming && !renameable) closeRename();
  renderSpectators();
}

function renderSpectators() {
  $("spectators").textContent = table.spectators > 0 ? t("table.spectators", { count: table.spectators }) : t("table.spectators_none");
}

/** A free seat's "Add computer" control: the strength (remembered) and the button. */
function addBotRow(seat) {
  const role = roleName(seat.role);
  const row = el("li", "add-bot");
  const select = el("select");
  select.setAttribute("aria-label", t("table.seat.strength_label", { role }));
  const offered = STRENGTHS.concat(engines.filter((e) => e.game === table.game).map((e) => e.id));
  for (const value of offered) {
    const option = el("option", "", strengthName(value));
    option.value = value;
    select.append(option);
  }
  select.value = offered.includes(botStrength) ? botStrength : "easy";
  select.addEventListener("change", () => {
    botStrength = select.value;
    localStorage.setItem(STRENGTH_KEY, botStrength);
  });
  row.append(select, button(t("table.seat.add_bot"), t("table.seat.add_bot_label", { role }), () => send({ type: "add_bot", seat: seat.seat, strength: select.value }), "secondary"));
  return row;
}

/** The line above the board: waiting, whose turn, or the result. */
function renderStatus() {
  const turnEl = $("turn");
  const mine = myTurnSeat();
  const g = game();
  const sentences = [];
  if (table.status === "waiting") {
    const taken = table.seats.filter((s) => s.player).length;
    sentences.push(t("table.status.waiting", { taken, count: table.seats.length }));
    if (mySeats.length) sentences.push(t("table.status.send_link"));
    if (table.settings.seating === "random") sentences.push(t("table.status.by_lot"));
  } else if (playing() && g.statusText) {
    sentences.push(g.statusText());
  } else if (playing()) {
    if (mine !== undefined) {
      const role = roleOf(mine);
      sentences.push(colour(role) !== role
        ? t("table.status.your_turn_colour", { role: roleName(role), colour: roleName(colour(role)) })
        : t("table.status.your_turn", { role: roleName(role) }));
    } else {
      const seat = table.to_move[0];
      sentences.push(t("table.status.to_move", { name: playerName(seat), role: roleName(roleOf(seat)) }));
      sentences.push(mySeats.length ? t("table.status.you_play", { roles: listOf(mySeats.map((s) => roleName(roleOf(s)))) }) : t("table.status.watching"));
    }
  } else {
    sentences.push(table.result ? t("table.status.game_over", { result: resultSaid || resultText(table.result) }) : t("table.status.game_over_plain"));
  }
  let text = sentences.join(" ");
  if (playing() && !g.statusText && g.statusHint) text += g.statusHint(mine);
  turnEl.textContent = text;
  turnEl.classList.toggle("mine", mine !== undefined);
  const params = { game: g.name, id: table.id };
  document.title = mine !== undefined ? t("table.doc_title_your_turn", params) : t("table.doc_title", params);
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
  $("offer-draw").textContent = iAgreed ? t("table.draw.offered_button") : t("table.draw.offer");
  $("accept-draw").hidden = $("decline-draw").hidden = !(seated && offer != null && !iAgreed);
  const note = $("draw-note");
  note.hidden = !playing() || offer == null;
  if (!note.hidden) {
    const others = agreed.filter((s) => !isMine(s));
    note.textContent = iAgreed && others.length === 0 ? t("table.draw.you_offered")
      : t("table.draw.offers", { count: others.length, names: listOf(others.map((s) => t("table.who.other", { name: playerName(s), role: roleName(roleOf(s)) }))) });
    if (table.seats.length > 2) {
      // Every seat must agree: say who has, and who has not yet.
      const name = (s) => (isMine(s) ? t("table.draw.you") : t("table.who.other", { name: playerName(s), role: roleName(roleOf(s)) }));
      const pending = table.seats.map((s) => s.seat).filter((s) => !agreed.includes(s));
      note.textContent = t("table.draw.status", { agreed: listOf(agreed.map(name)), pending: listOf(pending.map(name)) });
    }
  }
  const g = game();
  $("premove-note").hidden = $("cancel-premove").hidden = !(premove && playing());
  if (premove) $("premove-note").textContent = t("table.premove.note", { move: g.moveText ? g.moveText(premove.move) : JSON.stringify(premove.move) });
}

// ================================================================ actions
/** "Play the computer", "Play a friend": once we know we hold no seat, take a free one. */
function sitInTheFreeSeat() {
  autoSit = false;
  if (!table || mySeats.length > 0 || !seatsOpen()) return;
  const free = table.seats.filter((s) => !s.player);
  // Against the computer the one free seat; with friends to come, the first.
  if (free.length === 1 || (inviting && free.length > 0)) sit(free[0].seat);
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
  if (!playing() || mySeats.length === 0 || awaitingSeats) return;
  const seat = myTurnSeat();
  if (seat !== undefined) return play(seat, move);
  const waiting = mySeats.find((s) => !table.to_move.includes(s)) ?? mySeats[0];
  if (premove && JSON.stringify(premove.move) === JSON.stringify(move)) return send({ type: "cancel_premove", seat: premove.seat });
  send({ type: "premove", seat: waiting, move });
}

$("cancel-premove").addEventListener("click", () => premove && send({ type: "cancel_premove", seat: premove.seat }));

/**
 * What resigning ends, in the words of the situation: the game at a one-game table, this game
 * of a series (the series goes on), the game for the whole team in Bughouse.
 */
function resignQuestion() {
  const series = table.series;
  const inSeries = series && series.format && series.format !== "single";
  const team = table.seats.length > 2;
  if (inSeries) return t(team ? "table.resign.confirm_series_team" : "table.resign.confirm_series", { game: series.game });
  return t(team ? "table.resign.confirm_team" : "table.resign.confirm_game");
}
$("resign").addEventListener("click", () => {
  if (confirm(resignQuestion())) send({ type: "resign", seat: actingSeat() });
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
for (const [signal, key] of Object.entries(SIGNALS)) {
  $("team-quick").append(button(t(key), t("chat.signal_label", { signal: t(key) }), () => teamSay(signal), "secondary"));
}
$("team-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("team-text").value.trim();
  if (teamSay(text)) $("team-text").value = "";
});

$("name").value = localStorage.getItem(NAME_KEY) || "";
$("name").addEventListener("change", () => localStorage.setItem(NAME_KEY, $("name").value.trim()));

// ================================================================ renaming a seated player
/**
 * Whether we may rename now: we hold a seat and have not moved in this game (before the game,
 * or during it until our first move: "Play the computer" seats us as "Player 1" at once).
 */
function canRename() {
  if (!table || mySeats.length === 0 || mySeats.some(isBot)) return false;
  if (table.status === "waiting") return true;
  return renameInGame && playing() && !table.moves.some((m) => isMine(m.seat));
}

let renameSeat = null;
let renameName = "";

function openRename(seat) {
  renaming = true;
  renameSeat = seat;
  $("rename-form").hidden = false;
  // The server's "Player 1" is no name to edit: start from an empty field.
  const current = table.seats[seat].player ? table.seats[seat].player.name : "";
  $("rename-name").value = /^Player \d+$/.test(current) ? "" : current;
  $("rename-name").focus();
  $("rename-name").select();
  for (const b of document.querySelectorAll("#seats button.rename")) b.setAttribute("aria-expanded", "true");
}

function closeRename(focusButton) {
  renaming = false;
  $("rename-form").hidden = true;
  for (const b of document.querySelectorAll("#seats button.rename")) b.setAttribute("aria-expanded", "false");
  if (focusButton) {
    const again = document.querySelector("#seats button.rename");
    if (again) again.focus();
  }
}

/**
 * Renames our seat's player: `rename`, which the server answers with `renamed` for everyone.
 * A server without it (`unknown_type`) still lets a player who has not started a game stand
 * up and sit down again under the new name (renameBySittingAgain).
 */
function renameTo(name) {
  renameName = name;
  localStorage.setItem(NAME_KEY, name); // remembered for the next table
  $("name").value = name;
  if (renameSeat == null || !isMine(renameSeat)) renameSeat = mySeats[0];
  send({ type: "rename", seat: renameSeat, name, ref: "rename" });
}

function renameBySittingAgain() {
  renameInGame = false;
  if (table && table.status === "waiting" && renameSeat != null && isMine(renameSeat)) {
    send({ type: "stand", seat: renameSeat });
    send({ type: "sit", seat: renameSeat, name: renameName });
    return;
  }
  log(t("table.rename.not_now"));
  render();
}

$("rename-form").addEventListener("submit", (event) => {
  event.preventDefault();
  renameTo($("rename-name").value.trim());
  closeRename(true);
});
$("rename-cancel").addEventListener("click", () => closeRename(true));
$("rename-form").addEventListener("keydown", (event) => {
  if (event.key === "Escape") closeRename(true);
});

// ================================================================ the link to send
// The share link is this page's own address (the server's `url` may name plain http).
const shareLink = `${location.origin}/t/${tableId}`;
$("share-link").value = shareLink;
$("invite-link").value = shareLink;

/** Copies the table's link; the button says so for a moment. */
async function copyLink(copyButton, field) {
  try {
    await navigator.clipboard.writeText(shareLink);
  } catch {
    field.select(); // insecure pages have no clipboard API: the old way
    document.execCommand("copy");
  }
  const label = copyButton.dataset.label || copyButton.textContent;
  copyButton.dataset.label = label;
  copyButton.textContent = t("table.share.copied");
  announce(t("table.share.copied_said"));
  setTimeout(() => { copyButton.textContent = label; }, 1500);
}
$("copy").addEventListener("click", () => copyLink($("copy"), $("share-link")));
$("invite-copy").addEventListener("click", () => copyLink($("invite-copy"), $("invite-link")));
// Phones: the system's share sheet (Web Share API), where the browser has one.
$("invite-share").hidden = typeof navigator.share !== "function";
$("invite-share").addEventListener("click", async () => {
  try {
    await navigator.share({
      title: document.title,
      text: t("table.invite.share_text", { game: table ? game().name : "" }),
      url: shareLink,
    });
  } catch { /* dismissed, or not allowed: the link is there to copy */ }
});
for (const field of [$("share-link"), $("invite-link")]) field.addEventListener("focus", () => field.select());

// Bughouse draws its boards from a viewpoint: a flip redraws them (flip.js).
window.addEventListener("spelbord:flip", () => { if (table) render(); });
setInterval(() => {
  tick(page.table); // a replay shows its own clocks (records.js)
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
