// "Flip board": turns the board of a two-player game (Gomoku, Lines of Action, Krux) half a
// turn, for a spectator who wants the other side's view or a player who prefers it; the
// coordinates and piece numbers stay upright. Remembered per table for this browser tab.
// Bughouse boards are drawn from a viewpoint (bughouse.js): flipping swaps the colour at
// the bottom of both boards, which the board redraws on the `spelbord:flip` event.
// A CSS-turned board's arrow keys still move as it is seen (input.js `keyboardGrid`, told by
// `shownFlipped` in boards/square.js), and its stones and pieces are turned back upright
// (table.css), so their light still falls from the top left.

import { $ } from "./dom.js";

const area = $("board-area");
const toggle = $("flip");
const key = `spelbord.flip.${location.pathname}`;

/** Whether the viewer chose to see the boards from the other side. */
export const flipped = () => sessionStorage.getItem(key) === "1";

function apply() {
  if (!area || !toggle) return; // a page without a board to flip
  const bughouse = area.querySelector(".bh-boards") !== null;
  const twoPlayerBoard = area.querySelector("#board, .sqboard") !== null && !bughouse;
  toggle.hidden = !twoPlayerBoard && !bughouse;
  area.classList.toggle("flipped", twoPlayerBoard && flipped());
  toggle.setAttribute("aria-pressed", String(flipped()));
}

if (area && toggle) {
  toggle.addEventListener("click", () => {
    sessionStorage.setItem(key, flipped() ? "0" : "1");
    apply();
    window.dispatchEvent(new Event("spelbord:flip"));
  });
  // The board is rebuilt when the game or its size changes: apply the choice again.
  new MutationObserver(apply).observe(area, { childList: true });
  apply();
}
