// The full form for a new table (web/new.html, at `/new`; `?game=krux` chooses the game): only
// the chosen game's settings and time control shown; playing the computer; series, rated,
// take-backs and "Show in the lobby" (`listed`); Bughouse's "Taking turns" (`rotation`, with
// `partners`), which turns Rated and the series off while chosen; refusals next to the field
// they concern. See web/README.md ("The full form").

import { $ } from "./dom.js";
import { t, formatNumber } from "./i18n.js";

const form = document.getElementById("create");
const createButton = document.getElementById("create-button");
const createError = document.getElementById("create-error");

/** The checked value of a radio group in the create form. */
function choice(name) {
  return form.querySelector(`input[name="${name}"]:checked`).value;
}

/** A number field's value; an empty or unreadable field is sent as null for the server to explain. */
function number(id, factor = 1) {
  const value = $(id).valueAsNumber;
  return Number.isFinite(value) ? Math.round(value * factor) : null;
}

// Games that are always timed, and the clock they get by default (minutes of sudden death).
const ALWAYS_TIMED = { bughouse: 3 };
// Seats per game (every other game has two).
const SEATS = { bughouse: 4 };
let lastGame = null;
// Whether the host ticked take-backs, kept while the box is disabled (rated, a series, Bughouse).
let undoWanted = false;
$("undo").addEventListener("change", () => { undoWanted = $("undo").checked; });

// Whether the host ticked Rated, kept while the box is disabled (against the computer, taking turns).
let ratedWanted = false;
$("rated").addEventListener("change", () => { ratedWanted = $("rated").checked; });

// The series the host chose, kept while only one game is possible (taking turns).
let seriesWanted = "single";
for (const input of form.querySelectorAll('input[name="series"]')) {
  input.addEventListener("change", () => { seriesWanted = choice("series"); });
}

/**
 * Whether people take turns at the table (Bughouse, "Taking turns" other than "the same four
 * play on"). The server refuses it at a rated table and with a series other than one game.
 */
const rotating = () => choice("game") === "bughouse" && choice("rotation") !== "fixed";

// The game asked for in the address (`/new?game=krux`, from the home page's "More options").
const asked = new URLSearchParams(location.search).get("game");
const askedInput = asked && form.querySelector(`input[name="game"][value="${CSS.escape(asked)}"]`);
if (askedInput) askedInput.checked = true;

/**
 * Games against the computer are never rated (docs/ratings.md), nor are those of a table where
 * people take turns: Rated is disabled then, saying why, and ticked again when the host goes back.
 */
function showRated() {
  const computer = choice("opponent") === "computer";
  const why = computer ? "new.rated_note_computer" : rotating() ? "new.rated_note_rotation" : "";
  $("rated").disabled = Boolean(why);
  $("rated").checked = !why && ratedWanted;
  $("rated-note").textContent = `— ${t(why || "new.rated_note")}`;
}

/**
 * Taking turns (Bughouse): the partners' choice while people take turns; then each game stands
 * alone, so only "one game" is offered among the series (the host's choice comes back after).
 */
function showRotation() {
  const turns = rotating();
  $("partners-fields").hidden = !turns;
  $("rotation-note").hidden = !turns;
  $("series-rotation-note").hidden = !turns;
  for (const input of form.querySelectorAll('input[name="series"]')) input.disabled = turns && input.value !== "single";
  form.querySelector(`input[name="series"][value="${turns ? "single" : seriesWanted}"]`).checked = true;
}

/**
 * Take-backs are refused at rated tables, in a series and in Bughouse: the box is disabled
 * there, saying why, and ticked again when the host goes back.
 */
function showUndo(game) {
  const why = $("rated").checked ? "new.undo_note_rated"
    : choice("series") !== "single" ? "new.undo_note_series"
    : game === "bughouse" ? "new.undo_note_bughouse"
    : "";
  $("undo").disabled = Boolean(why);
  $("undo").checked = !why && undoWanted;
  $("undo-note").textContent = `— ${t(why || "new.undo_note")}`;
}

// Show only the chosen game's settings and the chosen time control's fields.
function showChoices() {
  const game = choice("game");
  for (const box of form.querySelectorAll(".game-settings")) box.hidden = box.dataset.game !== game;
  // Bughouse is always timed: "none" is not offered, and choosing it switches to its default clock.
  const timed = game in ALWAYS_TIMED;
  $("tc-none").hidden = timed;
  if (timed && game !== lastGame && choice("tc") === "none") {
    form.querySelector('input[name="tc"][value="sudden_death"]').checked = true;
    $("sd-minutes").value = ALWAYS_TIMED[game];
  }
  if (!timed && lastGame in ALWAYS_TIMED && choice("tc") === "sudden_death" && $("sd-minutes").valueAsNumber === ALWAYS_TIMED[lastGame]) {
    // Back from Bughouse with its untouched default clock: back to no clock.
    form.querySelector('input[name="tc"][value="none"]').checked = true;
    $("sd-minutes").value = 5;
  }
  lastGame = game;
  const tc = choice("tc");
  for (const box of form.querySelectorAll(".tc-fields")) box.hidden = box.dataset.tc !== tc;
  // Playing the computer: its strength, and what it takes.
  const computer = choice("opponent") === "computer";
  $("strength-fields").hidden = !computer;
  $("computer-note").textContent = `— ${t(game === "bughouse" ? "new.opponents.computer_note_bughouse" : "new.opponents.computer_note")}`;
  createButton.textContent = t(computer ? "home.play_computer" : "new.create");
  showRotation();
  // The pause before the next game: between the games of a series, or of people taking turns.
  $("pause-fields").hidden = choice("series") === "single" && !rotating();
  showRated();
  showUndo(game);
}
form.addEventListener("change", showChoices);
showChoices();

// The external engines the server offers (`GET /api/bots`), as more strengths for their game.
let engines = [];
function showEngines() {
  const box = $("strength-fields");
  const game = choice("game");
  for (const label of box.querySelectorAll(".engine-choice")) {
    if (label.querySelector("input").checked) form.querySelector('input[name="strength"][value="medium"]').checked = true;
    label.remove();
  }
  for (const engine of engines.filter((e) => e.game === game)) {
    const label = document.createElement("label");
    label.className = "choice engine-choice";
    const input = document.createElement("input");
    input.type = "radio";
    input.name = "strength";
    input.value = engine.id;
    const note = document.createElement("small");
    note.textContent = `— ${t("new.strength.engine_note")}`;
    label.append(input, ` ${t("common.strength.engine", { name: engine.name, ms: formatNumber(engine.move_ms) })} `, note);
    box.append(label);
  }
}
form.addEventListener("change", (event) => {
  if (event.target.name === "game") showEngines();
});
fetch("/api/bots")
  .then((response) => (response.ok ? response.json() : null))
  .then((offered) => {
    engines = (offered && offered.engines) || [];
    showEngines();
  })
  .catch(() => { /* our strengths only */ });
createButton.disabled = false;

/** The request body: the game, its own settings, and the table settings every game has. */
function requestBody() {
  const game = choice("game");
  const settings = {};
  if (game === "gomoku") {
    Object.assign(settings, { board_size: Number(choice("board_size")), variant: choice("variant"), opening: choice("opening") });
  } else if (game === "lines-of-action") {
    settings.simultaneous = choice("simultaneous");
  } else if (game === "bughouse") {
    // Sent only where they differ from the rule page's, as the server stores them.
    if (choice("bughouse_start") === "chess960") settings.chess960 = true;
    if (choice("pawn_drops_on_seventh") === "false") settings.pawn_drops_on_seventh = false;
    if (choice("drop_checks") !== "allowed") settings.drop_checks = choice("drop_checks");
    if (choice("captured_promoted") !== "pawn") settings.captured_promoted = choice("captured_promoted");
    // Taking turns: only when not "the same four play on" (the server's default).
    if (rotating()) Object.assign(settings, { rotation: choice("rotation"), partners: choice("partners") });
  }
  settings.seating = choice("seating");
  const kind = choice("tc");
  settings.time_control = {
    none: { kind },
    sudden_death: { kind, base_seconds: number("sd-minutes", 60) },
    fischer: { kind, base_seconds: number("fi-minutes", 60), increment_seconds: number("fi-increment") },
    per_move: { kind, seconds: number("pm-seconds") },
    correspondence: { kind, days: number("co-days") },
  }[kind];
  settings.grace_seconds = number("grace");
  // Play the computer: a bot in every seat but seat 0, which the page takes on arrival.
  if (choice("opponent") === "computer") {
    settings.bots = {};
    for (let seat = 1; seat < (SEATS[game] || 2); seat += 1) settings.bots[seat] = choice("strength");
  }
  settings.series = choice("series");
  if (settings.series !== "single" || settings.rotation) settings.series_pause_seconds = number("pause");
  settings.next_first = choice("next_first");
  settings.rated = $("rated").checked;
  settings.undo = $("undo").checked;
  // Shown in the home page's lobby (open tables, then its games to watch); private otherwise.
  if ($("listed").checked) settings.listed = true;
  return { game, settings };
}

/** Clears every error line and every marked input. */
function clearErrors() {
  for (const p of form.querySelectorAll(".error")) p.textContent = "";
  for (const input of form.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
}

/**
 * A refusal in the page's language (the server's own message is for developers): what the
 * field asks for, e.g. the range of its number box.
 */
function refusalText(error, input) {
  if (error.field === "settings.rated") return t("new.error.rated_computer");
  if (error.field === "settings.undo") return t("new.error.undo");
  if (error.field === "settings.rotation" || error.field === "settings.partners") return t("new.error.rotation");
  if (error.field === "settings.time_control" && choice("game") === "bughouse") return t("new.error.bughouse_clock");
  if (input && input.type === "number" && input.min !== "" && input.max !== "") {
    return t("new.error.range", { min: formatNumber(Number(input.min)), max: formatNumber(Number(input.max)) });
  }
  return t("new.error.setting");
}

/**
 * Shows a refusal next to the field the server names (e.g. `settings.time_control.base_seconds`),
 * or, failing that, next to its nearest named parent, or under the button.
 */
function showError(error) {
  const visible = [...form.querySelectorAll(".error[data-field]")].filter((p) => !p.closest("[hidden]"));
  const fields = (p) => p.dataset.field.split(" ");
  let target = visible.find((p) => fields(p).includes(error.field));
  for (let field = error.field; !target && field && field.includes("."); field = field.slice(0, field.lastIndexOf("."))) {
    target = visible.find((p) => fields(p).includes(field));
  }
  const box = target && target.parentElement;
  const input = box && (box.querySelector(`input[data-field="${error.field}"]`) || box.querySelector("input[type=number]") || box.querySelector("input:checked"));
  if (target) {
    target.textContent = refusalText(error, input);
  } else {
    // A field this page does not know: its name, for whoever reports it.
    createError.textContent = t("new.error.unknown_field", { field: error.field || "?" });
  }
  if (input) { input.setAttribute("aria-invalid", "true"); input.focus(); }
}

// Create the table, then navigate to the path of the link the server returns
// (the path only, so the page stays on the scheme and host it was loaded from).
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  clearErrors();
  const body = requestBody();
  createButton.disabled = true;
  createButton.textContent = t("home.creating");
  try {
    const response = await fetch("/api/tables", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const data = await response.json().catch(() => null);
    if (response.ok && data && data.url) {
      // Against the computer, `#play` asks the table page to take the free seat at once.
      location.assign(new URL(data.url, location.href).pathname + (body.settings.bots ? "#play" : ""));
      return;
    }
    // Refused: a setting's refusal next to the field it names, anything else under the button.
    const error = data && data.error;
    if (error && error.field) showError(error);
    else if (error && error.code === "rate_limited") createError.textContent = t("home.error.rate_limited");
    else if (response.status === 503) createError.textContent = t("home.error.unavailable");
    else createError.textContent = t("home.error.refused", { status: response.status });
  } catch {
    createError.textContent = t("home.error.network");
  }
  createButton.disabled = false;
  showChoices(); // the button's label
});
