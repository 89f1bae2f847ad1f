// DOM helpers shared by the page and the boards: text is always set as text, never parsed as HTML.

/** The element with this id. */
export const $ = (id) => document.getElementById(id);

/** A new element; `text` is set as text, never parsed as HTML. */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A `type="button"` button with an optional accessible label and class. */
export function button(text, label, onClick, kind) {
  const b = el("button", kind, text);
  b.type = "button";
  if (label) b.setAttribute("aria-label", label);
  b.addEventListener("click", onClick);
  return b;
}
