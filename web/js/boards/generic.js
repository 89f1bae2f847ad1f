// Any other game: the state as formatted JSON, and a box to send a raw move as JSON.

import { el, button } from "../dom.js";

/** The board for a game this page does not know; `page` is what the table page shares with every board. */
export function generic(page) {
  const { playing, actingSeat, play, log } = page;
  let pre = null;
  let box = null;

  function build(area, panel) {
    pre = el("pre");
    pre.id = "generic-state";
    area.append(pre);
    panel.append(el("p", "muted", "This page has no board for this game: the state is shown as JSON. Send a move as JSON (see docs/protocol.md):"));
    box = el("textarea");
    box.id = "raw-move";
    box.setAttribute("aria-label", "Move as JSON");
    box.placeholder = '{"at": "H8"}';
    const row = el("div", "buttons");
    row.append(button("Send move", "Send the move", () => {
      let move;
      try { move = JSON.parse(box.value); } catch (err) { return log(`Not JSON: ${err.message}`); }
      play(actingSeat(), move);
    }));
    panel.append(box, row);
  }

  function update() {
    pre.textContent = JSON.stringify(page.table.state, null, 2);
    box.disabled = !playing() || page.mySeats.length === 0;
  }

  return { get name() { return page.table ? page.table.game : "Game"; }, build, update };
}
