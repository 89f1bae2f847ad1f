// The home page (web/index.html): each game one click from a table. **Play a friend** creates a
// casual table and opens it at `#invite` (the table page shows the link to send); **Play the
// computer** creates one with the computer in every other seat, at the strength chosen above
// the games (remembered as `spelbord.botStrength`, as the table page does), and opens it at
// `#play` (the table page takes the free seat). Every other setting is on `/new`. The defaults
// are written down in web/README.md ("The home page"). Also the join box.

// The catalogue is loaded alongside, not awaited before the buttons work: a click right after
// the page appears already creates the table (the words it may need come a moment later).
const i18n = import("./i18n.js");

// One click's table per game: one unrated game, seats drawn by lot, take-backs where the
// server allows them (not in Bughouse), no clock except Bughouse's 3 minutes each.
const GAME_SETTINGS = {
  gomoku: { board_size: 15, variant: "free", opening: "center", time_control: { kind: "none" }, undo: true },
  "lines-of-action": { simultaneous: "draw", time_control: { kind: "none" }, undo: true },
  krux: { time_control: { kind: "none" }, undo: true },
  bughouse: { time_control: { kind: "sudden_death", base_seconds: 180 }, undo: false },
};
const SEATS = { bughouse: 4 };
const STRENGTHS = ["easy", "medium", "hard"];
const STRENGTH_KEY = "spelbord.botStrength";

/** The strength chosen above the games. */
function strength() {
  const checked = document.querySelector('input[name="home-strength"]:checked');
  return checked && STRENGTHS.includes(checked.value) ? checked.value : "medium";
}

// The remembered strength (the table page may have stored `random`, which is not offered here).
try {
  const stored = localStorage.getItem(STRENGTH_KEY);
  if (STRENGTHS.includes(stored)) document.querySelector(`input[name="home-strength"][value="${stored}"]`).checked = true;
} catch { /* no storage: medium */ }
for (const input of document.querySelectorAll('input[name="home-strength"]')) {
  input.addEventListener("change", () => {
    try { localStorage.setItem(STRENGTH_KEY, strength()); } catch { /* not remembered */ }
  });
}

/** The request body of a one-click table: with the computer in every seat but 0, or not. */
function requestBody(game, computer, level = strength()) {
  const settings = { ...GAME_SETTINGS[game], seating: "random", series: "single", rated: false };
  if (computer) {
    settings.bots = {};
    for (let seat = 1; seat < (SEATS[game] || 2); seat += 1) settings.bots[seat] = level;
  }
  return { game, settings };
}

/** The refusal in words: by the answer's code where we know it. */
function refusalText(t, status, error) {
  if (error && error.code === "rate_limited") return t("home.error.rate_limited");
  if (status === 503) return t("home.error.unavailable");
  return t("home.error.refused", { status });
}

/** Creates the table and goes to it; on failure says why in the game's card. */
async function play(card, computer) {
  const game = card.dataset.game;
  const buttons = card.querySelectorAll(".play button");
  const pressed = card.querySelector(computer ? ".computer" : ".friend");
  const errorLine = card.querySelector(".error");
  pressed.dataset.label = pressed.textContent;
  errorLine.textContent = "";
  for (const b of buttons) b.disabled = true;
  card.setAttribute("aria-busy", "true");
  i18n.then(({ t }) => { if (pressed.disabled) pressed.textContent = t("home.creating"); }, () => {});
  try {
    const response = await fetch("/api/tables", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(requestBody(game, computer)),
    });
    const data = await response.json().catch(() => null);
    if (response.ok && data && data.url) {
      // The path only, so the page stays on the scheme and host it was loaded from.
      location.assign(new URL(data.url, location.href).pathname + (computer ? "#play" : "#invite"));
      return;
    }
    const { t } = await i18n;
    errorLine.textContent = refusalText(t, response.status, data && data.error);
  } catch {
    const { t } = await i18n;
    errorLine.textContent = t("home.error.network");
  }
  ready(card);
}

/** A card's buttons usable again, with their own labels. */
function ready(card) {
  for (const b of card.querySelectorAll(".play button")) {
    if (b.dataset.label) b.textContent = b.dataset.label;
    b.disabled = false;
  }
  card.removeAttribute("aria-busy");
}

for (const card of document.querySelectorAll(".game[data-game]")) {
  card.querySelector(".friend").addEventListener("click", () => play(card, false));
  card.querySelector(".computer").addEventListener("click", () => play(card, true));
}

// A page restored from the back/forward cache after going to a table: buttons usable again.
window.addEventListener("pageshow", (event) => {
  if (event.persisted) for (const card of document.querySelectorAll(".game[data-game]")) ready(card);
});

// Join: take the id from "/t/{id}" in a pasted link, or the text itself.
document.getElementById("join").addEventListener("submit", async (event) => {
  event.preventDefault();
  const text = document.getElementById("join-input").value.trim();
  const match = text.match(/\/t\/([A-Za-z0-9]+)/) || text.match(/^([A-Za-z0-9]+)$/);
  const joinError = document.getElementById("join-error");
  if (!match) {
    const { t } = await i18n;
    joinError.textContent = t("home.join.bad");
    return;
  }
  joinError.textContent = "";
  location.assign("/t/" + match[1]);
});

// The lobby below the games (js/lobby.js): quick pairing, open challenges, open tables, games to
// watch. Loaded after the buttons above work; its "Play the computer instead" creates the table
// as the game's own button does.
import("./lobby.js").then(({ startLobby }) => startLobby({
  playComputer: (game) => play(document.querySelector(`.game[data-game="${game}"]`), true),
  strength,
}));
