// Square boards (Lines of Action, Krux): n × n square buttons with coordinates on all four sides,
// operable by keyboard (one tab stop; the arrow keys move as the board is seen; Enter or Space
// is a click).

import { el } from "../dom.js";
import { onPick, keyboardGrid } from "../input.js";
import { t } from "../i18n.js";

/** A file letter: 0 is "a". */
export const letter = (c) => String.fromCharCode(97 + c);

/** Whether `element` is shown half a turn round ("Flip board", flip.js turns the board area). */
export const shownFlipped = (element) => element.closest(".flipped") !== null;

/**
 * A board of n × n square buttons with coordinates on all four sides; `rows[0]` is the top
 * row. Returns the squares by name ("a1"). `onClick(square)` gets the clicked square's name,
 * from a click, a tap, or Enter / Space on the focused square (input.js `keyboardGrid`; its
 * controller is `keyboardOf(board)`). `options.label` names the board for screen readers
 * (default "Board, n by n" in the page's language); `options.initial` is the square that is the
 * board's tab stop at first (default: the middle).
 */
export function buildSquareBoard(container, id, n, checkered, onClick, options = {}) {
  const board = el("div", "sqboard");
  board.id = id;
  board.style.setProperty("--n", n);
  board.setAttribute("role", "group");
  board.setAttribute("aria-label", options.label || t("board.label", { size: n }));
  const label = (text) => board.appendChild(el("div", "coord", text)).setAttribute("aria-hidden", "true");
  const letterRow = () => { label(""); for (let c = 0; c < n; c += 1) label(letter(c)); label(""); };
  const squares = {};
  const rows = [];
  letterRow();
  for (let r = n; r >= 1; r -= 1) {
    label(r);
    const row = [];
    for (let c = 0; c < n; c += 1) {
      const name = letter(c) + r;
      const sq = el("button", "sq");
      sq.type = "button";
      sq.tabIndex = -1;
      sq.dataset.sq = name;
      if (checkered && (c + r) % 2 === 1) sq.classList.add("dark");
      squares[name] = sq;
      row.push(sq);
      board.append(sq);
    }
    rows.push(row);
    label(r);
  }
  letterRow();
  onPick(board, ".sq", "sq", onClick);
  container.append(board);
  keyboardGrid(board, { cells: () => rows, flipped: () => shownFlipped(board), initial: options.initial || null });
  return squares;
}
