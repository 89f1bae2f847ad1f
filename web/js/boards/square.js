// Square boards (Lines of Action, Krux): n × n square buttons with coordinates on all four sides.

import { el } from "../dom.js";
import { onPick } from "../input.js";

/** A file letter: 0 is "a". */
export const letter = (c) => String.fromCharCode(97 + c);

/**
 * A board of n × n square buttons with coordinates on all four sides; `rows[0]` is the top
 * row. Returns the squares by name ("a1"). `onClick(square)` gets the clicked square's name.
 */
export function buildSquareBoard(container, id, n, checkered, onClick) {
  const board = el("div", "sqboard");
  board.id = id;
  board.style.setProperty("--n", n);
  board.setAttribute("role", "group");
  const label = (text) => board.appendChild(el("div", "coord", text)).setAttribute("aria-hidden", "true");
  const letterRow = () => { label(""); for (let c = 0; c < n; c += 1) label(letter(c)); label(""); };
  const squares = {};
  letterRow();
  for (let r = n; r >= 1; r -= 1) {
    label(r);
    for (let c = 0; c < n; c += 1) {
      const name = letter(c) + r;
      const sq = el("button", "sq");
      sq.type = "button";
      sq.dataset.sq = name;
      if (checkered && (c + r) % 2 === 1) sq.classList.add("dark");
      squares[name] = sq;
      board.append(sq);
    }
    label(r);
  }
  letterRow();
  onPick(board, ".sq", "sq", onClick);
  container.append(board);
  return squares;
}
