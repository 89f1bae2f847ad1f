// "Flip board": turns the board of a two-player game (Gomoku, Lines of Action, Krux) half a
// turn, for a spectator who wants the other side's view or a player who prefers it; the
// coordinates and piece numbers stay upright. Remembered per table for this browser tab.
// Bughouse boards are turned by the seat already (your colour at the bottom) and have no flip.

import { $ } from "./dom.js";

const area = $("board-area");
const toggle = $("flip");
const key = `spelbord.flip.${location.pathname}`;

function apply() {
  const twoPlayerBoard = area.querySelector("#board, .sqboard") !== null && area.querySelector(".bh-boards") === null;
  toggle.hidden = !twoPlayerBoard;
  const flipped = twoPlayerBoard && sessionStorage.getItem(key) === "1";
  area.classList.toggle("flipped", flipped);
  toggle.setAttribute("aria-pressed", String(flipped));
}

toggle.addEventListener("click", () => {
  sessionStorage.setItem(key, sessionStorage.getItem(key) === "1" ? "0" : "1");
  apply();
});
// The board is rebuilt when the game or its size changes: apply the choice again.
new MutationObserver(apply).observe(area, { childList: true });
apply();
