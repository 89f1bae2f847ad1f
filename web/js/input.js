// Input shared by every board: a click or tap on a square (or a Gomoku intersection) becomes
// that square's name. The boards decide what a pick means (select, move, drop, premove); drag
// and drop belongs here too when it comes.

/**
 * Calls `handler(name, element)` when an element of `board` matching `selector` is clicked or
 * tapped; `name` is that element's `data-{key}` (e.g. `data-sq="e4"`). One listener per board.
 */
export function onPick(board, selector, key, handler) {
  board.addEventListener("click", (event) => {
    const target = event.target.closest(selector);
    if (target) handler(target.dataset[key], target);
  });
}
