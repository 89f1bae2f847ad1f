// Input shared by every board: a click or tap on a square (or a Gomoku intersection) becomes
// that square's name (`onPick`); a piece dragged with the mouse or a finger becomes a move from
// one square to another (`onDrag`). The boards decide what a pick or a drop means (select,
// move, drop, premove).

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
