// The lobby on the home page (web/index.html, the section `#lobby`): meeting an opponent over
// `/ws/lobby` (docs/protocol.md section 7). **Quick pairing**: one button per pool (from the
// first `lobby` frame's `pools`), casual or rated for the whole section; while a seek waits, the
// seconds waited, **Cancel**, and after 20 s **Play the computer instead**. **Open challenges**:
// everyone's waiting seeks, each joinable with one click (`accept`), ours with **Cancel**, and a
// form to post one with a rating range. **Open tables** (listed tables with a free seat, or
// full but taking turns with room in their queue) and
// **Watch** (games in play), each a link to the table. On `paired` the page goes to the table,
// where the seat is already ours (the same token, `spelbord.token`, as the table page's).
//
// home.js starts it with `startLobby({ playComputer, strength })`: how "Play the computer" creates
// a table (the same as the game card's button) and the computer's strength chosen on the page.

import { t, has } from "./i18n.js";
import { el, button } from "./dom.js";
import { announce } from "./a11y.js";
import { connectLobby } from "./net.js";

const TOKEN_KEY = "spelbord.token";
const NAME_KEY = "spelbord.name";
const GAMES = ["gomoku", "lines-of-action", "krux", "bughouse"];
/** After this long waiting, the computer is offered instead. */
const OFFER_AFTER_MS = 20_000;
/** How long "Play the computer instead" waits for the server to confirm the cancel. */
const CANCEL_WAIT_MS = 3000;

const $ = (id) => document.getElementById(id);

let connection = null;
let pools = [];          // the pools, from the first `lobby` frame
let seeks = [];          // everyone's open seeks, as the last `seeks` section listed them
let tables = [];         // open tables
let games = [];          // games to watch
let ratings = {};        // our rating per game, from `welcome`
let welcomed = false;    // `welcome` arrived on this connection
let reconnected = false; // the next whole lobby frame follows a lost connection
let everConnected = false;
let refs = 0;
const pending = new Map(); // ref → where its answer's error goes: {error: element, seek?: id}
/**
 * Our seeks, by id: `{seek, since (Date.now() when it started waiting here), quick, ended
 * (null, or why it ended: "gone"), offered, leaving}`.
 */
const mine = new Map();
let leaving = false;     // on our way to a table: nothing more to send
let options = { playComputer: () => {}, strength: () => "medium" };

// ---------------------------------------------------------------- words

const gameName = (game) => (has(`common.game.${game}`) ? t(`common.game.${game}`) : game);
/** A pool's clock in words: `untimed` translated, `5+3` as it is. */
const clockLabel = (tc) => (tc === "untimed" ? t("lobby.tc.untimed") : String(tc));
const poolOf = (id) => pools.find((p) => p.id === id);
/** "Gomoku 5+3". */
function poolLabel(pool) {
  const p = typeof pool === "string" ? poolOf(pool) : pool;
  if (!p) return String(pool);
  return t("lobby.pool_label", { game: gameName(p.game), clock: clockLabel(p.time_control) });
}
/** "casual" or "rated", inside a line (the switch above says "Casual", "Rated"). */
const modeLabel = (rated) => t(rated ? "lobby.kind.rated" : "lobby.kind.casual");
const personName = (name) => (name && String(name).trim() ? String(name) : t("lobby.anonymous"));

/** An error from the server in words (section 7.5 and the common codes). */
function errorText(msg) {
  const code = msg && msg.code;
  if (code && has(`lobby.error.${code}`)) return t(`lobby.error.${code}`);
  return t("lobby.error.other", { code: String(code || "?") });
}

// ---------------------------------------------------------------- the connection

function rememberedName() {
  try { return (localStorage.getItem(NAME_KEY) || "").trim(); } catch { return ""; }
}

function storedToken() {
  try { return localStorage.getItem(TOKEN_KEY); } catch { return null; }
}

function hello() {
  const token = storedToken();
  connection.send(token ? { type: "hello", token, ref: "hello" } : { type: "hello", ref: "hello" });
}

/** Sends `msg` with a fresh `ref`; an error answering it is shown in `errorLine`. */
function request(msg, errorLine, extra = {}) {
  refs += 1;
  const ref = refs;
  pending.set(ref, { error: errorLine, ...extra });
  if (errorLine) errorLine.textContent = "";
  if (!connection.send({ ...msg, ref })) {
    pending.delete(ref);
    if (errorLine) errorLine.textContent = t("lobby.error.offline");
    return null;
  }
  return ref;
}

function handle(msg) {
  const about = msg.ref !== undefined ? pending.get(msg.ref) : undefined;
  if (msg.ref !== undefined && msg.type !== "pong") pending.delete(msg.ref);
  switch (msg.type) {
    case "lobby": return applyLobby(msg);
    case "welcome":
      welcomed = true;
      ratings = msg.ratings || {};
      try { if (msg.token) localStorage.setItem(TOKEN_KEY, msg.token); } catch { /* not remembered */ }
      // Our open seeks on this server (after a reload): shown as ours, with Cancel.
      for (const id of msg.seeks || []) {
        const seek = seeks.find((s) => s.id === id);
        if (seek && !mine.has(id)) {
          mine.set(id, { seek, since: Date.parse(seek.created_at) || Date.now(), quick: false, ended: null, offered: false });
        }
      }
      return render();
    case "seeking": return seeking(msg.seek, about);
    case "paired": return paired(msg);
    case "cancelled": return cancelled(msg);
    case "error":
      if (msg.ref === "hello" && msg.code === "bad_token") {
        // A stored token the server does not accept: start afresh with a new one.
        try { localStorage.removeItem(TOKEN_KEY); } catch { /* nothing stored */ }
        return hello();
      }
      if (about && about.seek && msg.code === "seek_gone" && mine.has(about.seek)) {
        // Our own seek is gone (paired or ended elsewhere).
        mine.get(about.seek).ended = "gone";
        render();
      }
      if (about && about.accepted && msg.code === "own_seek" && !mine.has(about.accepted.id)) {
        // Ours from before a reload: shown as ours again, with Cancel.
        mine.set(about.accepted.id, { seek: about.accepted, since: Date.parse(about.accepted.created_at) || Date.now(), quick: false, ended: null, offered: false });
        render();
      }
      if (about && about.onError) about.onError(msg);
      {
        const line = (about && about.error) || $("quick-error");
        line.textContent = errorText(msg);
      }
      return;
    default: return; // pong, and anything newer than this page
  }
}

function applyLobby(msg) {
  if (Array.isArray(msg.pools)) {
    const changed = JSON.stringify(msg.pools) !== JSON.stringify(pools);
    pools = msg.pools;
    if (changed) buildPools();
  }
  if (Array.isArray(msg.seeks)) {
    seeks = msg.seeks;
    // After a lost connection the first frame is the whole lobby: a seek of ours it does not
    // list ended while we were away (the server ends seeks 10 s after the last connection).
    if (reconnected) {
      const listed = new Set(seeks.map((s) => s.id));
      for (const entry of mine.values()) {
        if (!entry.ended && !listed.has(entry.seek.id)) {
          entry.ended = "gone";
          announce(t("lobby.announce.ended", { pool: poolLabel(entry.seek.pool) }));
        }
      }
    }
  }
  if (Array.isArray(msg.tables)) tables = msg.tables;
  if (Array.isArray(msg.games)) games = msg.games;
  if (msg.pools) reconnected = false;
  render();
}

function seeking(seek, about) {
  if (!seek || !seek.id) return;
  const known = mine.get(seek.id);
  if (known && !known.ended) {
    known.seek = seek;
  } else {
    mine.set(seek.id, { seek, since: Date.now(), quick: Boolean(about && about.quick), ended: null, offered: false });
    announce(t("lobby.announce.seeking", { pool: poolLabel(seek.pool) }));
  }
  // Ended seeks of the same pool give way to the new one.
  for (const [id, entry] of mine) if (entry.ended && entry.seek.pool === seek.pool) mine.delete(id);
  render();
}

function paired(msg) {
  if (leaving) return;
  leaving = true;
  // Our other seeks would pair us twice: cancelled before we go.
  for (const [id, entry] of mine) if (id !== msg.seek && !entry.ended) connection.send({ type: "cancel", seek: id });
  announce(t("lobby.announce.paired"));
  const line = $("lobby-conn");
  line.textContent = t("lobby.paired");
  line.hidden = false;
  // The path only, so the page stays on the scheme and host it was loaded from.
  location.assign(new URL(msg.url || `/t/${encodeURIComponent(msg.table)}`, location.href).pathname);
}

function cancelled(msg) {
  const entry = mine.get(msg.seek);
  if (!entry) return;
  if (entry.onCancelled) entry.onCancelled();
  if (msg.reason === "gone") {
    entry.ended = "gone";
    announce(t("lobby.announce.ended", { pool: poolLabel(entry.seek.pool) }));
  } else {
    mine.delete(msg.seek);
    announce(t("lobby.announce.cancelled", { pool: poolLabel(entry.seek.pool) }));
  }
  render();
}

// ---------------------------------------------------------------- actions

const rated = () => {
  const checked = document.querySelector('input[name="lobby-rated"]:checked');
  return Boolean(checked && checked.value === "rated");
};

/** A `seek` in `pool`: quick pairing (no range) or a challenge with a range. */
function seek(pool, range, errorLine, quick) {
  const msg = { type: "seek", pool, rated: rated() };
  const name = rememberedName();
  if (name) msg.name = name;
  if (range) msg.range = range;
  const p = poolOf(pool);
  if (p && p.game === "bughouse" && $("bots-ok").checked) msg.bots_ok = true;
  request(msg, errorLine, { quick });
}

function accept(entry, errorLine) {
  const msg = { type: "accept", seek: entry.id };
  const name = rememberedName();
  if (name) msg.name = name;
  request(msg, errorLine, { quick: true, accepted: entry });
}

function cancel(id) {
  request({ type: "cancel", seek: id }, $("quick-error"), { seek: id });
}

/**
 * "Play the computer instead": in Bughouse `play_bots` for the seek (the server seats us, and
 * any seeker of the pool who agreed, with the computer); in the other games the seek is
 * cancelled first, then a table with the computer is created as the game's card does.
 */
function computerInstead(id) {
  const entry = mine.get(id);
  if (!entry || entry.leaving) return;
  const game = (poolOf(entry.seek.pool) || entry.seek).game;
  if (game === "bughouse") {
    request({ type: "play_bots", seek: id, strength: options.strength() }, $("quick-error"), { seek: id });
    return;
  }
  entry.leaving = true;
  render();
  let done = false;
  const go = () => {
    if (done || leaving) return;
    done = true;
    mine.delete(id);
    // Our other seeks would seat us at a second table: cancelled before we go.
    for (const [other, e] of mine) if (!e.ended) connection.send({ type: "cancel", seek: other });
    render();
    options.playComputer(game);
  };
  entry.onCancelled = go;
  // Already gone (say it paired meanwhile, then `paired` takes us there), or no answer: go.
  request({ type: "cancel", seek: id }, $("quick-error"), { seek: id, onError: go });
  setTimeout(go, CANCEL_WAIT_MS);
}

/** A range of ±`spread` around our rating in the pool's game, within 0–4000. */
function rangeAround(pool, spread) {
  if (!spread) return null;
  const p = poolOf(pool);
  const own = (p && Number(ratings[p.game])) || 1500;
  return { min: Math.max(0, Math.round(own - spread)), max: Math.min(4000, Math.round(own + spread)) };
}

// ---------------------------------------------------------------- drawing

/** The quick-pairing buttons, one row per game, and the challenge form's pools. */
function buildPools() {
  const box = $("quick");
  box.replaceChildren();
  for (const game of GAMES.concat([...new Set(pools.map((p) => p.game))].filter((g) => !GAMES.includes(g)))) {
    const own = pools.filter((p) => p.game === game);
    if (own.length === 0) continue;
    const row = el("div", "quick-row");
    row.dataset.game = game;
    const nameId = `quick-name-${game}`;
    const name = el("span", "quick-game", gameName(game));
    name.id = nameId;
    row.append(name);
    const buttons = el("span", "quick-pools");
    for (const pool of own) {
      const b = button(clockLabel(pool.time_control), t("lobby.quick.button_label", { pool: poolLabel(pool) }), () => seek(pool.id, null, $("quick-error"), true), "pool");
      b.dataset.pool = pool.id;
      buttons.append(b);
    }
    row.append(buttons);
    if (game === "bughouse") row.append($("bots-ok").closest("label"));
    box.append(row);
  }
  const select = $("challenge-pool");
  const chosen = select.value;
  select.replaceChildren(...pools.map((pool) => {
    const option = el("option", null, poolLabel(pool));
    option.value = pool.id;
    return option;
  }));
  if (pools.some((p) => p.id === chosen)) select.value = chosen;
}

function formatWaited(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return `${m}:${String(s).padStart(2, "0")}`;
}

/** What a waiting seek of ours says: "Waiting for an opponent" or, in Bughouse, for N more. */
function waitingText(entry) {
  const players = Number(entry.seek.players || (poolOf(entry.seek.pool) || {}).players || 2);
  if (players <= 2) return t("lobby.waiting.opponent");
  // Everyone waiting in the same pool and mode (ours included) would sit at the same table.
  const together = seeks.filter((s) => s.pool === entry.seek.pool && Boolean(s.rated) === Boolean(entry.seek.rated)).length;
  const more = players - Math.max(1, together);
  return more > 0 ? t("lobby.waiting.more", { count: more }) : t("lobby.waiting.players");
}

/** Our seeks: waiting (seconds, Cancel, the computer after 20 s) or ended. */
function renderWaiting() {
  const list = $("lobby-waiting");
  const rows = [];
  for (const [id, entry] of mine) {
    const li = el("li", entry.ended ? "mine ended" : "mine");
    li.dataset.seek = id;
    const what = el("span", "what", t("lobby.waiting.what", { pool: poolLabel(entry.seek.pool), mode: modeLabel(entry.seek.rated) }));
    li.append(what);
    if (entry.ended) {
      li.append(el("span", "status", t("lobby.ended")));
      li.append(button(t("lobby.seek_again"), t("lobby.seek_again_label", { pool: poolLabel(entry.seek.pool) }), () => {
        mine.delete(id);
        seek(entry.seek.pool, entry.seek.range || null, $("quick-error"), entry.quick);
        render();
      }, "again"));
      li.append(button(t("lobby.dismiss"), t("lobby.dismiss_label", { pool: poolLabel(entry.seek.pool) }), () => { mine.delete(id); render(); }, "dismiss secondary"));
    } else {
      li.append(el("span", "status", waitingText(entry)));
      const waited = el("span", "waited", formatWaited(Date.now() - entry.since));
      waited.setAttribute("role", "timer");
      waited.title = t("lobby.waited_label");
      li.append(waited);
      const cancelButton = button(t("lobby.cancel"), t("lobby.cancel_label", { pool: poolLabel(entry.seek.pool) }), () => cancel(id), "cancel secondary");
      cancelButton.disabled = Boolean(entry.leaving);
      li.append(cancelButton);
      if (Date.now() - entry.since >= OFFER_AFTER_MS) {
        const offer = button(t("lobby.computer_instead"), t("lobby.computer_instead_label", { pool: poolLabel(entry.seek.pool) }), () => computerInstead(id), "computer");
        offer.disabled = Boolean(entry.leaving);
        li.append(offer);
      }
    }
    rows.push(li);
  }
  keepFocus(list, () => list.replaceChildren(...rows));
  for (const b of document.querySelectorAll("#quick button.pool")) {
    const waiting = [...mine.values()].some((e) => !e.ended && e.seek.pool === b.dataset.pool);
    b.classList.toggle("seeking", waiting);
    b.setAttribute("aria-pressed", String(waiting));
  }
}

/** Redraws a list without losing the keyboard focus on a button it held (by its class and row). */
function keepFocus(list, redraw) {
  const focused = document.activeElement;
  let again = null;
  if (focused && list.contains(focused) && focused.tagName === "BUTTON") {
    const row = focused.closest("li");
    again = row && [row.dataset.seek || row.dataset.id, focused.className];
  }
  redraw();
  if (again) {
    const row = [...list.children].find((li) => (li.dataset.seek || li.dataset.id) === again[0]);
    const target = row && [...row.querySelectorAll("button")].find((b) => b.className === again[1]);
    if (target) target.focus();
  }
}

function ratingText(value) {
  // Written as ratings are everywhere, without a thousands separator.
  return value == null ? t("lobby.no_rating") : String(Math.round(Number(value)));
}

function renderSeeks() {
  const list = $("seeks");
  const rows = seeks.map((entry) => {
    const li = el("li", "seek");
    li.dataset.seek = entry.id;
    const pool = poolOf(entry.pool) || { game: entry.game, time_control: entry.time_control, players: entry.players };
    const words = [
      poolLabel(pool),
      modeLabel(entry.rated),
      t("lobby.seek.who", { name: personName(entry.name), rating: ratingText(entry.rating) }),
    ];
    if (entry.range) words.push(t("lobby.seek.range", { min: ratingText(entry.range.min), max: ratingText(entry.range.max) }));
    li.append(el("span", "what", words.join(" · ")));
    const ours = mine.has(entry.id);
    if (ours) {
      li.classList.add("ours");
      li.append(el("span", "badge", t("lobby.seek.yours")));
      li.append(button(t("lobby.cancel"), t("lobby.cancel_label", { pool: poolLabel(pool) }), () => cancel(entry.id), "cancel secondary"));
    } else {
      const join = Number(pool.players || 2) > 2;
      li.append(button(t(join ? "lobby.seek.join" : "lobby.seek.play"),
        t(join ? "lobby.seek.join_label" : "lobby.seek.play_label", { name: personName(entry.name), pool: poolLabel(pool) }),
        () => accept(entry, $("seeks-error")), "accept"));
    }
    return li;
  });
  keepFocus(list, () => list.replaceChildren(...rows));
  $("seeks-empty").hidden = rows.length > 0;
}

function renderTables() {
  const rows = tables.map((entry) => {
    const li = el("li", "open-table");
    li.dataset.id = entry.id;
    const a = el("a", null, t("lobby.table.what", { pool: poolLabel({ game: entry.game, time_control: entry.time_control }), mode: modeLabel(entry.rated) }));
    a.href = `/t/${encodeURIComponent(entry.id)}`;
    li.append(a);
    const seated = (entry.seats || []).filter((s) => s.name || s.bot).map((s) => (s.bot ? t("lobby.table.computer") : s.name));
    if (seated.length) li.append(el("span", "who", seated.join(", ")));
    const free = entry.free ?? (entry.seats || []).filter((s) => !s.name && !s.bot).length;
    // A full table that takes turns is listed while its queue has room: join the queue there.
    if (free === 0 && entry.queue != null) li.append(el("span", "free", t("lobby.table.queue", { count: entry.queue })));
    else li.append(el("span", "free", t("lobby.table.free", { count: free })));
    return li;
  });
  $("open-tables").replaceChildren(...rows);
  $("tables-empty").hidden = rows.length > 0;
}

function renderGames() {
  const rows = games.map((entry) => {
    const li = el("li", "watch-game");
    li.dataset.id = entry.id;
    const a = el("a", null, t("lobby.watch.what", { pool: poolLabel({ game: entry.game, time_control: entry.time_control }), mode: modeLabel(entry.rated) }));
    a.href = `/t/${encodeURIComponent(entry.id)}`;
    li.append(a);
    li.append(el("span", "who", (entry.players || []).map(personName).join(", ")));
    if (entry.rating != null) li.append(el("span", "rating", t("lobby.watch.rating", { rating: ratingText(entry.rating) })));
    li.append(el("span", "spectators", t("lobby.watch.spectators", { count: Number(entry.spectators || 0) })));
    return li;
  });
  $("watch").replaceChildren(...rows);
  $("watch-empty").hidden = rows.length > 0;
}

function render() {
  renderWaiting();
  renderSeeks();
  renderTables();
  renderGames();
  const bughouse = pools.some((p) => p.game === "bughouse");
  $("bots-ok").closest("label").hidden = !bughouse;
}

/** The connection's state in words: hidden while connected. */
function status(kind) {
  const line = $("lobby-conn");
  if (leaving) return;
  if (kind === "") {
    line.hidden = true;
    line.textContent = "";
    return;
  }
  line.hidden = false;
  line.textContent = t(everConnected ? "lobby.reconnecting" : "lobby.connecting");
  if (everConnected) reconnected = true;
  welcomed = false;
}

// ---------------------------------------------------------------- start

/** Connects the lobby and wires its controls; `opts` from home.js (above). */
export function startLobby(opts = {}) {
  options = { ...options, ...opts };
  $("challenge-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const pool = $("challenge-pool").value;
    if (!pool) return;
    const spread = Number($("challenge-range").value) || 0;
    seek(pool, rangeAround(pool, spread), $("challenge-error"), false);
  });
  connection = connectLobby({
    open() {
      everConnected = true;
      hello();
    },
    message: handle,
    status,
  });
  // The seconds waited, and the offer of the computer after 20 s.
  setInterval(() => {
    for (const li of document.querySelectorAll("#lobby-waiting li[data-seek]")) {
      const entry = mine.get(li.dataset.seek);
      if (!entry || entry.ended) continue;
      const waited = li.querySelector(".waited");
      if (waited) waited.textContent = formatWaited(Date.now() - entry.since);
      if (!entry.offered && Date.now() - entry.since >= OFFER_AFTER_MS) {
        entry.offered = true;
        renderWaiting();
        announce(t("lobby.announce.offer", { pool: poolLabel(entry.seek.pool) }));
      }
    }
  }, 1000);
  render();
}
