// Gomoku: a grid of buttons on the intersections, coordinates on all four sides; the last move,
// winning lines and our premove marked. From the keyboard the board is one tab stop: the arrow
// keys move across it as it is seen (flipped too), Enter or Space plays (input.js
// `keyboardGrid`). On a touch screen a tap chooses a point (marked, and shown magnified in a
// loupe) and a second tap on it places the stone, so that a player can review the choice first
// (shared/rules: points are 17 px wide on a phone's 19 × 19 board); a mouse click or a key plays
// at once. While a past position is replayed (records.js) the board takes no stones.

import { el } from "../dom.js";
import { onPick, keyboardGrid, refusedInReplay } from "../input.js";
import { t } from "../i18n.js";
import { shownFlipped } from "./square.js";

/** The Gomoku board; `page` is what the table page shares with every board (see table.js). */
export function gomoku(page) {
  const { playing, myTurnSeat, roleOf, moveOrPremove } = page;
  let grid = null;     // the board element (#board)
  let cells = [];      // the board's buttons, top row first
  let rows = [];       // the same, row by row
  let size = 0;
  let keys = null;     // the keyboard controller (one tab stop, arrow keys)
  let pending = null;  // a point chosen by a tap, waiting for the confirming tap ("H8")
  let loupe = null;    // the magnified neighbourhood of the pending point

  /** A finger's or a pen's tap asks for review; a mouse click or a key (detail 0) plays at once. */
  const coarse = matchMedia("(pointer: coarse)");
  const reviewed = (event) => Boolean(event) && event.detail !== 0 && (event.pointerType === "touch" || event.pointerType === "pen" ||
    (event.pointerType === undefined && coarse.matches));

  /** Whether this page may put a stone (or a premove) on the board now: seated, in the live game, not replaying. */
  const canPlay = () => playing() && page.mySeats.length > 0;

  /** Builds the grid of buttons for a board of `size`, coordinates on all four sides. */
  function build(area) {
    size = page.table.state.size;
    const board = el("div");
    grid = board;
    board.id = "board";
    board.setAttribute("role", "group");
    board.style.setProperty("--n", size);
    board.setAttribute("aria-label", t("gomoku.board_label", { size }));
    cells = [];
    rows = [];
    pending = null;
    const letters = Array.from({ length: size }, (_, c) => String.fromCharCode(65 + c));
    const stars = size === 19 ? [3, 9, 15] : [3, 7, 11];
    const label = (text) => board.appendChild(el("div", "coord", text)).setAttribute("aria-hidden", "true");
    const letterRow = () => { label(""); letters.forEach(label); label(""); };
    letterRow();
    for (let r = 0; r < size; r += 1) {
      const rowNumber = size - r; // board[0] is the top row
      label(rowNumber);
      const row = [];
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
        row.push(cell);
      }
      rows.push(row);
      label(rowNumber);
    }
    letterRow();
    area.append(board);

    // Click a cell to play there; when it is not our turn, to queue (or cancel) a premove.
    // A tap (touch, pen) first chooses the point; a second tap on it plays. Enter or Space on
    // the focused cell clicks it (keyboardGrid), so the keyboard takes this same path.
    onPick(board, ".cell", "at", (at, cell, event) => pick(at, cell, reviewed(event)));
    keys = keyboardGrid(board, { cells: () => rows, flipped: () => shownFlipped(board) });
    loupe = el("div", "loupe");
    loupe.hidden = true;
    loupe.setAttribute("aria-hidden", "true"); // the status line says the same in words
    // In the loupe a tap on the middle point confirms, a tap on another moves the choice there.
    onPick(loupe, ".cell", "loupeAt", (at) => pick(at, cells.find((c) => c.dataset.at === at), true));
    area.append(loupe);
    // Escape drops a point chosen by a tap.
    board.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && pending) {
        pending = null;
        page.refreshStatus();
        update();
      }
    });
  }

  /** A click, tap or key on the point `at`: play there, or (`review`) choose it first. */
  function pick(at, cell, review) {
    if (!cell) return;
    keys.stop(at);
    // A replayed position, a finished game, a spectator: the board takes no stones. (The
    // live game goes on during a replay; a stone played there now would be played blind.)
    if (!canPlay()) {
      refusedInReplay(page);
      return;
    }
    if (cell.dataset.stone !== ".") {
      // A taken point: refused here at once, for a premove too (the server would refuse it).
      page.log(t(myTurnSeat() === undefined ? "gomoku.taken_premove" : "gomoku.taken_stone", { at }));
      cell.classList.remove("refused");
      void cell.offsetWidth; // restart the animation
      cell.classList.add("refused");
      return;
    }
    if (review && pending !== at) {
      pending = at;
      page.refreshStatus();
      return update();
    }
    pending = null;
    moveOrPremove({ at });
    page.refreshStatus();
    update();
  }

  /** The pending point's 5 × 5 neighbourhood, magnified, in the quarter of the board away from it. */
  function showLoupe(stoneOf, seatRole) {
    if (!pending) {
      loupe.hidden = true;
      return;
    }
    const index = cells.findIndex((c) => c.dataset.at === pending);
    const [row, col] = [Math.floor(index / size), index % size];
    const mini = el("div", "loupe-grid");
    for (let r = row - 2; r <= row + 2; r += 1) {
      for (let c = col - 2; c <= col + 2; c += 1) {
        if (r < 0 || r >= size || c < 0 || c >= size) {
          mini.append(el("span", "loupe-off"));
          continue;
        }
        const source = cells[r * size + c];
        const cell = el("button", source.className.replace(/\b(last|win|refused)\b/g, ""));
        cell.type = "button";
        cell.tabIndex = -1;
        cell.dataset.loupeAt = source.dataset.at;
        cell.dataset.stone = stoneOf(r, c);
        cell.classList.toggle("last", source.classList.contains("last"));
        if (source.dataset.at === pending) cell.dataset.pending = seatRole;
        cell.append(el("span", "stone"));
        mini.append(cell);
      }
    }
    loupe.replaceChildren(el("p", "loupe-caption", t("gomoku.loupe_caption", { at: pending })), mini);
    loupe.hidden = false;
    // In the quarter of the board opposite the point (as seen), so that the point stays in sight.
    const area = loupe.parentElement.getBoundingClientRect();
    const b = grid.getBoundingClientRect();
    const p = cells[index].getBoundingClientRect();
    const [px, py] = [p.left + p.width / 2, p.top + p.height / 2];
    const x = px < b.left + b.width / 2 ? b.right - loupe.offsetWidth - 6 : b.left + 6;
    const y = py < b.top + b.height / 2 ? b.bottom - loupe.offsetHeight - 6 : b.top + 6;
    loupe.style.setProperty("left", `${x - area.left}px`);
    loupe.style.setProperty("top", `${y - area.top}px`);
  }

  /** A point's label for screen readers: "H8, black stone (X), last move". */
  function pointLabel(at, mark, states) {
    const what = mark === "X" ? "gomoku.point_x" : mark === "O" ? "gomoku.point_o" : "gomoku.point_empty";
    return [t(what, { at }), ...states.map((state) => t(state))].join(", ");
  }

  /** Stones, last move, winning lines and our premove from `page.table.state`; also the labels. */
  function update() {
    const state = page.table.state;
    const lines = (page.table.result && page.table.result.detail && page.table.result.detail.lines) || state.lines || [];
    const winning = new Set(lines.flat());
    const pre = page.premove && playing() ? page.premove.move.at : null;
    // The chosen point lapses when the game ends, a replay opens or a stone lands on it.
    const seat = myTurnSeat() ?? page.mySeats[0];
    if (pending && (!canPlay() || seat === undefined || cells.some((c, i) => c.dataset.at === pending && state.board[Math.floor(i / size)][i % size] !== "."))) pending = null;
    cells.forEach((cell, i) => {
      const mark = state.board[Math.floor(i / size)][i % size];
      const at = cell.dataset.at;
      const last = at === state.last_move;
      cell.dataset.stone = mark;
      cell.classList.toggle("last", last);
      cell.classList.toggle("win", winning.has(at));
      if (at === pre) cell.dataset.premove = roleOf(page.premove.seat);
      else delete cell.dataset.premove;
      if (at === pending) cell.dataset.pending = roleOf(seat);
      else delete cell.dataset.pending;
      const states = [];
      if (last) states.push("gomoku.state_last");
      if (winning.has(at)) states.push("gomoku.state_win");
      if (at === pre) states.push("gomoku.state_premove");
      if (at === pending) states.push("gomoku.state_pending");
      cell.setAttribute("aria-label", pointLabel(at, mark, states));
    });
    showLoupe((r, c) => state.board[r][c], seat === undefined ? "" : roleOf(seat));
    // A faint stone follows the pointer when it is our turn.
    const turn = myTurnSeat();
    grid.className = turn === undefined ? "" : `turn-${roleOf(turn)}`;
    keys.refresh();
  }

  return {
    get name() { return t("common.game.gomoku"); },
    boardKey: () => page.table.state.size,
    settingsText: (s) => [`${s.board_size}×${s.board_size}`, t(s.variant === "exact5" ? "gomoku.variant_exact5" : "gomoku.variant_free"),
      t(s.opening === "center" ? "gomoku.opening_center" : "gomoku.opening_free")].join(" · "),
    statusHint(mine) {
      if (pending) return ` ${t(mine === undefined ? "gomoku.hint_pending_premove" : "gomoku.hint_pending", { at: pending })}`;
      if (page.table.state.move_count === 0 && page.table.settings.opening === "center") {
        const mid = Math.floor(size / 2);
        return ` ${t("gomoku.hint_centre", { at: `${String.fromCharCode(65 + mid)}${mid + 1}` })}`;
      }
      const touch = coarse.matches;
      if (mine === undefined && page.mySeats.length && playing()) return ` ${t(touch ? "gomoku.hint_premove_touch" : "gomoku.hint_premove")}`;
      if (mine !== undefined && touch) return ` ${t("gomoku.hint_touch")}`;
      return "";
    },
    moveText: (move) => move.at,
    build,
    update,
  };
}
