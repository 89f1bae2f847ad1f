// The home page (web/index.html): the create form (only the chosen game's settings and time
// control shown; playing the computer; series, rated and take-backs; refusals next to the field
// the server names) and the join form. See web/README.md.

import { $ } from "./dom.js";

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

/**
 * Take-backs are refused at rated tables, in a series and in Bughouse: the box is disabled
 * there, saying why, and ticked again when the host goes back.
 */
function showUndo(game) {
  const why = $("rated").checked ? "not at a rated table"
    : choice("series") !== "single" ? "not in a series: each game counts"
    : game === "bughouse" ? "not in Bughouse: the other board has moved on"
    : "";
  $("undo").disabled = Boolean(why);
  $("undo").checked = !why && undoWanted;
  $("undo-note").textContent = `— ${why || "a player may ask to take back their last move (against the computer at once)"}`;
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
  $("computer-note").textContent = game === "bughouse"
    ? "— it plays your partner and both opponents; you sit down at once"
    : "— it takes the other seat and you sit down at once";
  createButton.textContent = computer ? "Play the computer" : "Create table";
  $("pause-fields").hidden = choice("series") === "single";
  showUndo(game);
}
form.addEventListener("change", showChoices);
showChoices();

/** The request body: the game, its own settings, and the table settings every game has. */
function requestBody() {
  const game = choice("game");
  const settings = {};
  if (game === "gomoku") {
    Object.assign(settings, { board_size: Number(choice("board_size")), variant: choice("variant"), opening: choice("opening") });
  } else if (game === "lines-of-action") {
    settings.simultaneous = choice("simultaneous");
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
  if (settings.series !== "single") settings.series_pause_seconds = number("pause");
  settings.next_first = choice("next_first");
  settings.rated = $("rated").checked;
  settings.undo = $("undo").checked;
  return { game, settings };
}

/** Clears every error line and every marked input. */
function clearErrors() {
  for (const p of form.querySelectorAll(".error")) p.textContent = "";
  for (const input of form.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
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
  const message = error.message || "refused";
  // The server's messages are sentences that name the setting.
  (target || createError).textContent = message;
  if (target) {
    const box = target.parentElement;
    const input = box.querySelector(`input[data-field="${error.field}"]`) || box.querySelector("input[type=number]") || box.querySelector("input:checked");
    if (input) { input.setAttribute("aria-invalid", "true"); input.focus(); }
  }
}

// Create the table, then navigate to the path of the link the server returns
// (the path only, so the page stays on the scheme and host it was loaded from).
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  clearErrors();
  const body = requestBody();
  createButton.disabled = true;
  createButton.textContent = "Creating…";
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
    // Refused: show the server's own explanation next to the field it names.
    const error = data && data.error;
    if (error) showError(error);
    else createError.textContent = `The server refused the table (HTTP ${response.status}).`;
  } catch (err) {
    createError.textContent = "Could not reach the server: " + err.message;
  }
  createButton.disabled = false;
  showChoices(); // the button's label
});

// Join: take the id from "/t/{id}" in a pasted link, or the text itself.
document.getElementById("join").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = document.getElementById("join-input").value.trim();
  const match = text.match(/\/t\/([A-Za-z0-9]+)/) || text.match(/^([A-Za-z0-9]+)$/);
  const joinError = document.getElementById("join-error");
  if (!match) {
    joinError.textContent = "Paste a table link (…/t/abcd1234) or its id.";
    return;
  }
  joinError.textContent = "";
  location.assign("/t/" + match[1]);
});
