// Taking turns at a rotating Bughouse table (docs/protocol.md, "Rotation"): more people than
// seats. This module owns #rotation-section (the queue in order, each person here or away;
// joining it with a name, leaving it; each person's standings) and #rotation-status under the
// status line (our place — "You are 3rd in the queue", "You play next" — and who stepped out
// and came in after the last game). table.js applies `rotated`'s seats and hands this module
// the snapshot's `rotation`, the `queue` and `rotated` events and our `welcome` (its
// `queue_place`). Nothing here is drawn at a table that does not rotate. See web/README.md.

import { $, el } from "./dom.js";
import { t, lang, formatNumber } from "./i18n.js";

const NAME_KEY = "spelbord.name";
const MODES = ["winners_stay", "rotate"];
const ordinals = new Intl.PluralRules(lang, { type: "ordinal" });
const list = (items) => new Intl.ListFormat(lang, { style: "long", type: "conjunction" }).format(items);

/**
 * The rotation part of the table page; `page` is what the table page shares (see table.js).
 * Returns `apply(msg)` (a `queue` or `rotated` event's queue, standings and notice; false for
 * any other), `welcome(msg)` (our place in the queue), `refused()` (an `error` answering our
 * `join_queue`), `render()`, `settingsText(settings)`, `waiting()` and `myName()` (whether we
 * wait, and under which name: people waiting may chat).
 */
export function rotationPanel(page) {
  let place = null; // our place in the queue (1 first), from the last `welcome`; null when we do not wait
  let notice = null; // after a rotation: {game, text} — who stepped out and came in, until the next game
  let placeAtRotation = null; // our place when the last rotation was announced: did we just come in?
  let joining = false; // a `join_queue` is on its way: its button waits for the answer
  let focusNext = null; // after Join or Leave, the control that replaces the one pressed (by id)

  const live = () => page.liveTable;
  const rotation = () => (live() && live().rotation) || null;
  const seated = () => page.mySeats.length > 0;

  /** A name as the server gives it: the computer's and "Player 5" in the page's language. */
  function shown(name) {
    const bot = /^Computer \((\w+)\)$/.exec(name);
    return bot ? page.nameOf({ name, bot: bot[1] }) : page.displayName(name);
  }

  /** "3rd" (en), "3" (sv, nb: their sentence says "nummer 3"). */
  const ordinal = (n) => t(`rotation.ordinal.${ordinals.select(n)}`, { n: formatNumber(n) });

  /**
   * How many people waiting come in after a game: the computer's seats step out first, then two
   * people by the table's rule (never more than the seats).
   */
  function comingIn() {
    const bots = live().seats.filter((s) => s.player && s.player.bot).length;
    return Math.min(live().seats.length, bots + 2);
  }

  /** Whether we come in at the next rotation: fewer people here wait before us than come in. */
  function playsNext() {
    const queue = rotation().queue;
    const ahead = queue.slice(0, place - 1).filter((w) => w.connected).length;
    return place <= 2 || ahead < comingIn();
  }

  // ============================================================== events
  function welcome(msg) {
    place = Number.isInteger(msg.queue_place) ? msg.queue_place : null;
    joining = false;
  }

  /** The server refused our `join_queue` (table.js shows why): the button may be pressed again. */
  function refused() {
    joining = false;
    focusNext = null;
    render();
  }

  function apply(msg) {
    const r = rotation();
    if (!r || (msg.type !== "queue" && msg.type !== "rotated")) return false;
    r.queue = msg.queue;
    if (msg.type === "rotated") {
      r.standings = msg.standings;
      placeAtRotation = place;
      const out = msg.stepped_out.map(shown);
      const came = msg.came_in.map(shown);
      const text = out.length && came.length ? t("rotation.notice.swap", { out: list(out), in: list(came) })
        : came.length ? t("rotation.notice.came_in", { in: list(came) })
          : out.length ? t("rotation.notice.stepped_out", { out: list(out) }) : "";
      notice = text ? { game: live().game_number, text } : null;
      if (text) page.log(text, "info");
    }
    return true;
  }

  // ============================================================== words
  /** "Winners stay, losers queue · partners kept" for the header's settings. */
  function settingsText(settings) {
    if (!MODES.includes(settings.rotation)) return "";
    const partners = settings.partners === "draw" ? t("rotation.partners.draw") : t("rotation.partners.keep");
    return `${t(`rotation.mode.${settings.rotation}`)} · ${partners}`;
  }

  /** Our own line: where we stand in the queue, or that we just came in. */
  function placeText() {
    if (place != null) {
      const where = t("rotation.place", { place: ordinal(place) });
      if (!playsNext()) return where;
      // During a game the next game is ours; between games the next one is seated already.
      const next = live().status === "playing" ? t("rotation.play_next") : t("rotation.play_after_next");
      return `${next} ${where}`;
    }
    if (seated() && placeAtRotation != null && notice) return t("rotation.you_came_in");
    return "";
  }

  // ============================================================== drawing
  function render() {
    const r = rotation();
    $("rotation-section").hidden = !r;
    $("rotation-status").hidden = true;
    if (!r) return;
    if (notice && notice.game !== live().game_number) notice = null; // the next game has started
    renderStatus();
    renderQueue(r);
    renderStandings(r);
    // A keyboard user's focus follows the pressed button to the one that replaced it.
    if (focusNext && $(focusNext).offsetParent !== null) {
      $(focusNext).focus();
      focusNext = null;
    }
  }

  /** Under the status line (a live region): the last rotation, and our place. */
  function renderStatus() {
    const text = [notice ? notice.text : "", placeText()].filter(Boolean).join(" ");
    const line = $("rotation-status");
    line.hidden = !text;
    line.classList.toggle("next", place != null && playsNext());
    if (line.textContent !== text) line.textContent = text; // unchanged: not read again
  }

  /** The queue, first first, and what we may do: join (with a name) or leave. */
  function renderQueue(r) {
    $("rotation-mode").textContent = settingsText(live().settings);
    const queue = $("queue-list");
    queue.replaceChildren();
    r.queue.forEach((waiting, index) => {
      const item = el("li", "waiting");
      const mine = place === index + 1;
      item.classList.toggle("you", mine);
      item.append(el("span", "name", shown(waiting.name)));
      if (mine) item.append(" ", el("span", "badge", t("table.seat.you")));
      item.append(" ", el("span", `presence ${waiting.connected ? "on" : "off"}`,
        waiting.connected ? t("table.presence.connected") : t("table.presence.away")));
      queue.append(item);
    });
    $("queue-empty").hidden = r.queue.length > 0;
    const full = live().seats.every((s) => s.player);
    const canJoin = !seated() && place == null && full;
    const form = $("queue-form");
    if (form.hidden && canJoin && !$("queue-name").value) $("queue-name").value = localStorage.getItem(NAME_KEY) || "";
    form.hidden = !canJoin;
    $("queue-join").disabled = joining;
    $("queue-leave").hidden = place == null;
    const hint = seated() ? t("rotation.hint.seated")
      : place != null ? t("rotation.hint.waiting")
        : !full ? t("rotation.hint.seat_free") : "";
    $("queue-hint").textContent = hint;
    $("queue-hint").hidden = !hint;
  }

  /** Each person's games here, best first (as the server ranks them). */
  function renderStandings(r) {
    const body = $("person-standings-body");
    body.replaceChildren();
    $("person-standings").hidden = r.standings.length === 0;
    $("person-standings-empty").hidden = r.standings.length > 0;
    for (const person of r.standings) {
      const row = el("tr");
      const who = el("th", "side-name", shown(person.name));
      who.scope = "row";
      row.append(who);
      for (const n of [person.played, person.won, person.drawn, person.lost, person.points]) row.append(el("td", "num", formatNumber(n)));
      body.append(row);
    }
  }

  // ============================================================== actions
  $("queue-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = $("queue-name").value.trim();
    localStorage.setItem(NAME_KEY, name);
    if (page.send({ type: "join_queue", ...(name ? { name } : {}), ref: "join_queue" })) {
      joining = true;
      focusNext = "queue-leave";
      $("queue-join").disabled = true;
      setTimeout(() => { if (joining) refused(); }, 5000); // no answer (a refusal may lose its `ref`)
    }
  });
  $("queue-leave").addEventListener("click", () => {
    // The button goes once the server's `welcome` says we no longer wait; Join comes back.
    if (page.send({ type: "leave_queue" })) focusNext = "queue-join";
  });

  /** Whether we wait in the queue (people waiting may chat). */
  const waiting = () => place != null && Boolean(rotation());
  /** Our name in the queue while we wait (our chat lines carry no seat: they are ours by it). */
  const myName = () => (waiting() && rotation().queue[place - 1] ? rotation().queue[place - 1].name : null);

  return { apply, welcome, refused, render, settingsText, waiting, myName };
}
