// Input shared by every board: a click or tap on a square (or a Gomoku intersection) becomes
// that square's name (`onPick`); a piece dragged with the mouse or a finger becomes a move from
// one square to another (`onDrag`); the keyboard moves across a board and activates a square as
// a click would (`keyboardGrid`). The boards decide what a pick or a drop means (select, move,
// drop, premove).

import { t } from "./i18n.js";

// The word a square of a queued premove shows (CSS `.sq.pm-to::before`), in the page's language.
document.documentElement.style.setProperty("--premove-mark", JSON.stringify(t("board.premove_mark")));

/**
 * Calls `handler(name, element, event)` when an element of `board` matching `selector` is
 * clicked or tapped; `name` is that element's `data-{key}` (e.g. `data-sq="e4"`). One listener
 * per board.
 */
export function onPick(board, selector, key, handler) {
  board.addEventListener("click", (event) => {
    const target = event.target.closest(selector);
    if (target && board.contains(target)) handler(target.dataset[key], target, event);
  });
}

/** How far (in CSS pixels) a pointer must move with the button down before a press is a drag. */
const DRAG_START = 6;

/**
 * Drag and drop with pointer events (mouse, touch, pen) on the squares of `board` matching
 * `selector` (named by their `data-{key}`):
 * - `canDrag(name)`: whether the piece on that square may be picked up now;
 * - `start(name)`: the drag began (show the piece's legal destinations);
 * - `drop(from, to)`: released over the board's square `to` (which may be `from` itself);
 * - `cancel(from)`: released outside the board, or cancelled (Escape, the browser took over).
 * While dragging, a copy of the square's content follows the pointer, the square it came from
 * is marked `drag-from` and the square under the pointer `drag-over`. A press that does not
 * move stays a click (so click-click and tap-tap keep working); the click that follows a drag
 * is swallowed. Squares where a drag may start are marked `draggable`, which also stops the
 * browser from scrolling when a finger drags from them (CSS `touch-action: none`).
 */
export function onDrag(board, selector, key, { canDrag, start, drop, cancel }) {
  let press = null; // {id, name, from: element, x, y, ghost, over, offsetX, offsetY} while the button is down
  let swallowClick = false;

  const squareAt = (x, y) => {
    const hit = document.elementFromPoint(x, y);
    const sq = hit && hit.closest(selector);
    return sq && board.contains(sq) ? sq : null;
  };

  function finish(event, dropped) {
    const p = press;
    press = null;
    window.removeEventListener("pointermove", move);
    window.removeEventListener("pointerup", up);
    window.removeEventListener("pointercancel", abort);
    window.removeEventListener("keydown", escape);
    if (!p || !p.ghost) return;
    p.ghost.remove();
    p.from.classList.remove("drag-from");
    if (p.over) p.over.classList.remove("drag-over");
    board.classList.remove("dragging");
    // The click the browser sends after the release belongs to the drag, not to a pick.
    swallowClick = true;
    setTimeout(() => { swallowClick = false; }, 0);
    const target = dropped && event ? squareAt(event.clientX, event.clientY) : null;
    if (target) drop(p.name, target.dataset[key]);
    else cancel(p.name);
  }

  function place(event) {
    press.ghost.style.setProperty("left", `${event.clientX - press.offsetX}px`);
    press.ghost.style.setProperty("top", `${event.clientY - press.offsetY}px`);
    const over = squareAt(event.clientX, event.clientY);
    if (over !== press.over) {
      if (press.over) press.over.classList.remove("drag-over");
      if (over) over.classList.add("drag-over");
      press.over = over;
    }
  }

  function move(event) {
    if (!press || event.pointerId !== press.id) return;
    if (!press.ghost) {
      if (Math.hypot(event.clientX - press.x, event.clientY - press.y) < DRAG_START) return;
      // The drag begins: a copy of the piece follows the pointer, above everything.
      const rect = press.from.getBoundingClientRect();
      const ghost = press.from.cloneNode(true);
      for (const name of Object.keys(ghost.dataset)) if (name !== "piece") delete ghost.dataset[name];
      ghost.removeAttribute("aria-label");
      ghost.setAttribute("aria-hidden", "true");
      ghost.tabIndex = -1;
      ghost.className = `${press.from.className.replace(/\b(selected|hint|last-from|last-to|pm-from|pm-to|dark|draggable)\b/g, "")} drag-ghost`;
      ghost.style.setProperty("width", `${rect.width}px`);
      ghost.style.setProperty("height", `${rect.height}px`);
      ghost.style.setProperty("--cell", `${rect.width}px`);
      press.offsetX = rect.width / 2;
      press.offsetY = rect.height / 2;
      if (event.pointerType !== "mouse") ghost.classList.add("touch"); // larger: a finger hides it
      press.ghost = ghost;
      document.body.append(ghost);
      press.from.classList.add("drag-from");
      board.classList.add("dragging");
      start(press.name);
    }
    event.preventDefault();
    place(event);
  }

  function up(event) {
    if (press && event.pointerId === press.id) finish(event, true);
  }
  function abort(event) {
    if (press && event.pointerId === press.id) finish(event, false);
  }
  function escape(event) {
    if (event.key === "Escape" && press && press.ghost) finish(null, false);
  }

  board.addEventListener("pointerdown", (event) => {
    if (press || !event.isPrimary || (event.pointerType === "mouse" && event.button !== 0)) return;
    const sq = event.target.closest(selector);
    if (!sq || !board.contains(sq) || !canDrag(sq.dataset[key])) return;
    if (event.pointerType === "mouse") event.preventDefault(); // no text selection while dragging
    press = { id: event.pointerId, name: sq.dataset[key], from: sq, x: event.clientX, y: event.clientY, ghost: null, over: null };
    // A finger's pointer is captured by the square it touched: release it, so that the
    // square under the finger can be found (and pointer events reach the window).
    if (sq.hasPointerCapture && sq.hasPointerCapture(event.pointerId)) sq.releasePointerCapture(event.pointerId);
    window.addEventListener("pointermove", move, { passive: false });
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", abort);
    window.addEventListener("keydown", escape);
  });
  board.addEventListener("click", (event) => {
    if (swallowClick) {
      event.stopImmediatePropagation();
      event.preventDefault();
      swallowClick = false;
    }
  }, true);
  // Native drag of the buttons' content (images, text) would fight with ours.
  board.addEventListener("dragstart", (event) => event.preventDefault());
}

/** Marks the squares of `squares` (name → element) where a drag may start now. */
export function markDraggable(squares, canDrag) {
  for (const [name, sq] of Object.entries(squares)) sq.classList.toggle("draggable", canDrag(name));
}

/** The keyboard controller of each board grid made operable by `keyboardGrid`. */
const keyboards = new WeakMap();

/**
 * Makes a board grid operable by keyboard: one tab stop (roving tabindex on the cells),
 * arrow keys move the focus as the board is SEEN (options.flipped() true = the board is shown
 * half a turn round), Home/End to the row's ends, Enter/Space activates the focused cell.
 * `cells()` returns the cell elements as rows, top row first, in unflipped board order; each cell
 * has data-sq (or data-at) naming its square. Returns { focus(name), refresh() } (refresh after a
 * redraw keeps the focused square).
 *
 * Also: Ctrl+Home / Ctrl+End go to the top left / bottom right corner as seen; PageUp /
 * PageDown to the top / bottom of the column as seen. Activating calls `onActivate(name, cell,
 * event)` when given, else clicks the cell (`cell.click()`), so the key takes the very path a
 * click takes (`onPick`), as a click with `detail` 0; a held key does not repeat it. A cell that
 * gets the focus otherwise (a click, a tap) becomes the tab stop. `initial` (optional) names the
 * first tab stop (else the middle of the board). The keys it handles go no further (the page's
 * own ←/→/Home/End, the replay's, are not also taken). Calling it again for the same grid
 * replaces the options and returns the same controller, so a board is never handled twice.
 * The controller also has `stop(name)` (the tab stop moves there, the focus stays) and
 * `current()` (the name of the square that is the tab stop).
 */
export function keyboardGrid(grid, { cells, flipped = () => false, onActivate = null, initial = null }) {
  const known = keyboards.get(grid);
  if (known) {
    known.options = { cells, flipped, onActivate, initial };
    known.controller.refresh();
    return known.controller;
  }
  const entry = { options: { cells, flipped, onActivate, initial } };
  let current = null; // the name of the square that is the tab stop
  let focused = null; // the cell element last focused, to follow it across a redraw

  const nameOf = (cell) => cell.dataset.sq ?? cell.dataset.at;
  const rows = () => entry.options.cells();
  /** The cell containing `node` and its place: {cell, r, c}, or null. */
  function locate(node, table = rows()) {
    for (let r = 0; r < table.length; r += 1) {
      for (let c = 0; c < table[r].length; c += 1) if (table[r][c] === node || table[r][c].contains(node)) return { cell: table[r][c], r, c };
    }
    return null;
  }
  function named(name, table = rows()) {
    for (let r = 0; r < table.length; r += 1) {
      for (let c = 0; c < table[r].length; c += 1) if (nameOf(table[r][c]) === name) return { cell: table[r][c], r, c };
    }
    return null;
  }
  /** Makes `cell` the one tab stop (and focuses it when `focus`). */
  function stop(cell, table, focus) {
    for (const row of table) for (const other of row) if (other !== cell) other.tabIndex = -1;
    cell.tabIndex = 0;
    current = nameOf(cell);
    if (focus) {
      cell.focus();
      focused = cell;
    }
  }

  function refresh() {
    const table = rows();
    if (!table.length || !table[0].length) return;
    const start = entry.options.initial && named(entry.options.initial, table);
    const middle = table[Math.floor(table.length / 2)][Math.floor(table[0].length / 2)];
    const found = (current && named(current, table)) || start || { cell: middle };
    // The focused cell was replaced by the redraw: the focus goes to the new cell of that square.
    const lost = focused && !focused.isConnected && (document.activeElement === null || document.activeElement === document.body);
    stop(found.cell, table, lost);
    if (!lost && focused && !focused.isConnected) focused = null;
  }

  grid.addEventListener("focusin", (event) => {
    const table = rows();
    const place = locate(event.target, table);
    if (!place) return;
    focused = place.cell;
    if (nameOf(place.cell) !== current || place.cell.tabIndex !== 0) stop(place.cell, table, false);
  });

  grid.addEventListener("keydown", (event) => {
    if (event.altKey || event.metaKey || event.defaultPrevented) return;
    const table = rows();
    const place = locate(event.target, table);
    if (!place) return;
    const { cell } = place;
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault(); // a button would click on its own too: once is enough
      event.stopPropagation();
      if (event.repeat) return;
      if (entry.options.onActivate) entry.options.onActivate(nameOf(cell), cell, event);
      else cell.click();
      return;
    }
    const height = table.length;
    const width = table[place.r].length;
    // Work in the board as seen: flipped, the seen row r is the board's row height-1-r.
    const turned = Boolean(entry.options.flipped());
    let r = turned ? height - 1 - place.r : place.r;
    let c = turned ? width - 1 - place.c : place.c;
    const ctrl = event.ctrlKey;
    switch (event.key) {
      case "ArrowUp": r -= 1; break;
      case "ArrowDown": r += 1; break;
      case "ArrowLeft": c -= 1; break;
      case "ArrowRight": c += 1; break;
      case "Home": c = 0; if (ctrl) r = 0; break;
      case "End": c = width - 1; if (ctrl) r = height - 1; break;
      case "PageUp": r = 0; break;
      case "PageDown": r = height - 1; break;
      default: return;
    }
    event.preventDefault();
    event.stopPropagation();
    r = Math.max(0, Math.min(height - 1, r));
    c = Math.max(0, Math.min(table[turned ? height - 1 - r : r].length - 1, c));
    const [br, bc] = turned ? [height - 1 - r, table[height - 1 - r].length - 1 - c] : [r, c];
    stop(table[br][bc], table, true);
  });

  entry.controller = {
    /** Moves the tab stop to the square `name` and focuses it. */
    focus(name) {
      const table = rows();
      const found = named(name, table);
      if (found) stop(found.cell, table, true);
    },
    /** Moves the tab stop to the square `name` without moving the focus. */
    stop(name) {
      const table = rows();
      const found = named(name, table);
      if (found) stop(found.cell, table, false);
    },
    refresh,
    current: () => current,
  };
  keyboards.set(grid, entry);
  refresh();
  return entry.controller;
}

/** The controller `keyboardGrid` made for `grid`, or undefined. */
export function keyboardOf(grid) {
  const known = keyboards.get(grid);
  return known && known.controller;
}

/**
 * For a board's pick while `page.playing()` is false: when that is because a past position is
 * replayed (records.js) while our live game goes on, says so in the messages and returns true.
 * The board then ignores the pick, as during any replay.
 */
export function refusedInReplay(page) {
  const live = page.liveTable;
  if (!live || live.status !== "playing" || page.mySeats.length === 0 || live === page.table) return false;
  page.log(t("board.replay_no_move"));
  return true;
}
