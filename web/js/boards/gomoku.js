// Gomoku: a grid of buttons on the intersections, coordinates on all four sides; the last move,
// winning lines and our premove marked; the arrow keys move between cells.

import { el } from "../dom.js";
import { onPick } from "../input.js";

/** The Gomoku board; `page` is what the table page shares with every board (see table.js). */
export function gomoku(page) {
  const { playing, myTurnSeat, roleOf, colour, moveOrPremove } = page;
  let grid = null;     // the board element (#board)
  let cells = [];      // the board's buttons, top row first
  let size = 0;
  let focusIndex = -1; // the one board cell in the tab order (arrow keys move it)

  function setFocusIndex(index, focus) {
    if (cells[focusIndex]) cells[focusIndex].tabIndex = -1;
    focusIndex = index;
    cells[index].tabIndex = 0;
    if (focus) cells[index].focus();
  }

  /** Builds the grid of buttons for a board of `size`, coordinates on all four sides. */
  function build(area) {
    size = page.table.state.size;
    const board = el("div");
    grid = board;
    board.id = "board";
    board.setAttribute("role", "group");
    board.style.setProperty("--n", size);
    board.setAttribute("aria-label", `Board, ${size} by ${size}`);
    cells = [];
    focusIndex = -1;
    const letters = Array.from({ length: size }, (_, c) => String.fromCharCode(65 + c));
    const stars = size === 19 ? [3, 9, 15] : [3, 7, 11];
    const label = (text) => board.appendChild(el("div", "coord", text)).setAttribute("aria-hidden", "true");
    const letterRow = () => { label(""); letters.forEach(label); label(""); };
    letterRow();
    for (let r = 0; r < size; r += 1) {
      const rowNumber = size - r; // board[0] is the top row
      label(rowNumber);
      for (let c = 0; c < size; c += 1) {
        const cell = el("button", "cell");
        cell.type = "button";
        cell.tabIndex = -1;
        cell.dataset.at = letters[c] + rowNumber;
        // Edge cells draw half lines; star points get a dot (5 on 15 × 15, 9 on 19 × 19).
        const star = stars.includes(r) && stars.includes(c) && (size === 19 || r === c || r + c === size - 1);
        const flags = { top: r === 0, bottom: r === size - 1, left: c === 0, right: c === size - 1, star };
        for (const [name, on] of Object.entries(flags)) cell.classList.toggle(name, on);
        cell.append(el("span", "stone"));
        board.append(cell);
        cells.push(cell);
      }
      label(rowNumber);
    }
    letterRow();
    area.append(board);
    setFocusIndex(Math.floor(cells.length / 2), false);

    // Click a cell to play there; when it is not our turn, to queue (or cancel) a premove.
    onPick(board, ".cell", "at", (at, cell) => {
      setFocusIndex(cells.indexOf(cell), false);
      if (playing() && page.mySeats.length > 0 && cell.dataset.stone !== ".") {
        // A taken point: refused here at once, for a premove too (the server would refuse it).
        page.log(`${at} is taken: ${myTurnSeat() === undefined ? "a premove" : "a stone"} goes on an empty point.`);
        cell.classList.remove("refused");
        void cell.offsetWidth; // restart the animation
        cell.classList.add("refused");
        return;
      }
      moveOrPremove({ at });
    });
    // Arrow keys move between cells; Enter or Space plays (the cells are buttons).
    board.addEventListener("keydown", (event) => {
      const steps = { ArrowUp: -size, ArrowDown: size, ArrowLeft: -1, ArrowRight: 1 };
      if (!(event.key in steps) || focusIndex < 0) return;
      event.preventDefault();
      const col = focusIndex % size;
      if ((event.key === "ArrowLeft" && col === 0) || (event.key === "ArrowRight" && col === size - 1)) return;
      const next = focusIndex + steps[event.key];
      if (next >= 0 && next < cells.length) setFocusIndex(next, true);
    });
  }

  /** Stones, last move, winning lines and our premove from `page.table.state`; also the labels. */
  function update() {
    const state = page.table.state;
    const lines = (page.table.result && page.table.result.detail && page.table.result.detail.lines) || state.lines || [];
    const winning = new Set(lines.flat());
    const pre = page.premove && playing() ? page.premove.move.at : null;
    cells.forEach((cell, i) => {
      const mark = state.board[Math.floor(i / size)][i % size];
      const at = cell.dataset.at;
      const last = at === state.last_move;
      cell.dataset.stone = mark;
      cell.classList.toggle("last", last);
      cell.classList.toggle("win", winning.has(at));
      if (at === pre) cell.dataset.premove = roleOf(page.premove.seat);
      else delete cell.dataset.premove;
      cell.setAttribute("aria-label", `${at}, ${mark === "." ? "empty" : `${mark} (${colour(mark)})`}` +
        (last ? ", last move" : "") + (winning.has(at) ? ", winning line" : "") + (at === pre ? ", your premove" : ""));
    });
    // A faint stone follows the pointer when it is our turn.
    const turn = myTurnSeat();
    grid.className = turn === undefined ? "" : `turn-${roleOf(turn)}`;
  }

  return {
    name: "Gomoku",
    boardKey: () => page.table.state.size,
    settingsText: (s) => `${s.board_size}×${s.board_size} · ${s.variant === "exact5" ? "exactly five" : "five or more"}` +
      ` · ${s.opening === "center" ? "centre opening" : "free opening"}`,
    statusHint(mine) {
      if (page.table.state.move_count === 0 && page.table.settings.opening === "center") {
        const mid = Math.floor(size / 2);
        return ` The first stone goes in the centre, ${String.fromCharCode(65 + mid)}${mid + 1}.`;
      }
      if (mine === undefined && page.mySeats.length) return " Click to queue a premove.";
      return "";
    },
    moveText: (move) => move.at,
    build,
    update,
  };
}
