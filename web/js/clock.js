// The page's timers: the clocks and the away countdowns, counted down locally between events,
// and each seat's thinking time as measured here, sent as `think_ms` (docs/clocks.md). A clock
// reads m:ss in every language; days and hours, and the away labels, come from the catalogue.

import { t } from "./i18n.js";

const now = () => performance.now();

// ================================================================ clocks and away countdowns
// Clocks: the last `clocks` object and when it arrived; running clocks count down from there.
let clockBase = null; // {kind, remaining_ms, running, at}
// Away players: seat -> {ms, at}, the reconnect grace left when we last heard, counted down.
let awayBase = {};

/** Takes a `clocks` object (from the snapshot, `game_started`, `moved`, `game_over`), or null. */
export function setClocks(clocks) {
  clockBase = clocks ? { ...clocks, at: now() } : null;
}

/** Notes a seat's presence: its grace is counted down while its player is away. */
export function setAway(seat, player) {
  if (player && !player.connected && player.away_ms != null) awayBase[seat] = { ms: player.away_ms, at: now() };
  else delete awayBase[seat];
}

/** Forgets every away countdown (a snapshot or a new game lists the presences afresh). */
export function clearAway() {
  awayBase = {};
}

/** Whether a seat's reconnect grace is being counted down (by `tick`). */
export const awayCounting = (seat) => Boolean(awayBase[seat]);

/** Whether the seats show clocks: the game has clocks, or the time control gives them. */
export const timed = (table) => clockBase != null || initialClock(table) != null;

/** A seat's time left now, counting its clock down locally if it runs; null if untimed. */
function clockLeft(seat) {
  if (!clockBase) return null;
  const left = clockBase.remaining_ms[seat];
  if (left == null) return null;
  return Math.max(0, left - (clockBase.running.includes(seat) ? now() - clockBase.at : 0));
}

/** A seat's time left now if its clock is running, else null (for the low-time sound). */
export const runningLeft = (seat) => (clockBase && clockBase.running.includes(seat) ? clockLeft(seat) : null);

/** The time control's starting time, shown before the game starts. */
function initialClock(table) {
  const tc = table.settings.time_control;
  if (!tc || tc.kind === "none") return null;
  if (tc.kind === "per_move") return tc.seconds * 1000;
  if (tc.kind === "correspondence") return tc.days ? tc.days * 86400000 : tc.hours * 3600000;
  return tc.base_seconds * 1000;
}

const clockKind = (table) => (clockBase ? clockBase.kind : (table.settings.time_control || {}).kind);

/** m:ss (h:mm:ss from an hour, tenths under 10 s); days and hours for correspondence. */
function formatClock(ms, kind) {
  if (kind === "correspondence" && ms > 3600000) {
    const minutes = Math.ceil(ms / 60000); // whole minutes, rounded up like the seconds below
    const hours = Math.floor(minutes / 60);
    return hours >= 24
      ? t("clock.days_hours", { days: Math.floor(hours / 24), hours: hours % 24 })
      : t("clock.hours_minutes", { hours, minutes: minutes % 60 });
  }
  if (ms < 10000) return `0:0${(Math.floor(ms / 100) / 10).toFixed(1)}`;
  const total = Math.ceil(ms / 1000);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const pad = (n) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/** Low time: under 10 s (a minute on longer clocks), under an hour for correspondence. */
function isLow(table, ms, kind) {
  if (kind === "correspondence") return ms < 3600000;
  const start = initialClock(table) || 0;
  return ms < (start >= 180000 ? 30000 : 10000);
}

/**
 * Redraws the clocks (`.clock[data-seat]`) and away countdowns (`.presence[data-away]`) only;
 * runs every 100 ms and after each render.
 */
export function tick(table) {
  if (!table) return;
  // A replayed position (records.js) brings its own clocks, stopped: `replay_clocks` (null at
  // the start: the starting time). Without it, the live clocks.
  const replayed = "replay_clocks" in table;
  const base = replayed ? table.replay_clocks : clockBase;
  const kind = replayed && base ? base.kind : clockKind(table);
  const playing = table.status === "playing";
  for (const node of document.querySelectorAll(".clock[data-seat]")) {
    const seat = Number(node.dataset.seat);
    const left = !base ? initialClock(table) : replayed ? base.remaining_ms[seat] ?? null : clockLeft(seat);
    if (left == null) continue;
    const running = Boolean(base && playing && base.running.includes(seat));
    node.textContent = formatClock(left, kind);
    node.classList.toggle("running", running);
    node.classList.toggle("low", Boolean(base) && playing && isLow(table, left, kind));
    node.classList.toggle("flagged", table.result != null && table.result.reason === "time" && table.result.detail && table.result.detail.seat === seat);
  }
  for (const node of document.querySelectorAll(".presence[data-away]")) {
    const base = awayBase[node.dataset.away];
    if (!base) continue;
    const left = Math.max(0, base.ms - (now() - base.at));
    const secs = Math.ceil(left / 1000);
    const back = `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, "0")}`;
    // A compact label (Bughouse strips, next to a clock) says the same in fewer words.
    node.textContent = node.classList.contains("compact") ? t("clock.away_short", { time: back }) : t("clock.away_long", { time: back });
    node.title = t("clock.away_title", { time: back });
  }
}

// ================================================================ thinking time (think_ms)
// The turn: which seats are to move, and for each of them when its turn began as seen here
// (null: unknown, e.g. after a reload or a resume; then no `think_ms` is sent, which claims no
// lag). Bughouse has two seats to move at once, each with its own turn.
let turnKey = "";
let seatSince = {}; // seat -> performance.now() when it became a seat to move, or null

const currentTurnKey = (table) => (table && table.status === "playing" ? `${table.game_number}:${table.to_move.join(",")}` : "");

/** Which seats are to move now, as a key that changes with every new turn ("" between games). */
export const turnNow = () => turnKey;

/**
 * Notes when the seats to move changed: that instant is when the position arrived for the
 * player now to move. (A Krux turn is several parts by the same seat: the turn, and the
 * server's clock, run from its first part's position to its end.) While `replaying` missed
 * events, the instant is unknown.
 */
export function noteTurn(table, replaying) {
  const key = currentTurnKey(table);
  if (key === turnKey) return;
  turnKey = key;
  const active = key ? table.to_move : [];
  for (const s of Object.keys(seatSince).map(Number)) if (!active.includes(s)) delete seatSince[s];
  for (const s of active) if (!(s in seatSince)) seatSince[s] = replaying ? null : now();
}

/** After a snapshot: we do not know when the current turn began, so send no `think_ms` for it. */
export function unknownTurn(table) {
  turnKey = currentTurnKey(table);
  seatSince = {};
  if (table.status === "playing") for (const s of table.to_move) seatSince[s] = null;
}

/** Our own measure of a seat's thinking time, for the server's lag compensation (docs/clocks.md). */
export const thinkMs = (seat) => (seatSince[seat] == null ? undefined : Math.max(0, Math.round(now() - seatSince[seat])));

/** After a take-back: the seats to move decide again from now. */
export function restartTurn(table) {
  turnKey = currentTurnKey(table);
  seatSince = {};
  if (table.status === "playing") for (const s of table.to_move) seatSince[s] = now();
}
