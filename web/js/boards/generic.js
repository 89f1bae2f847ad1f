// Any other game: the state as formatted JSON, and a box to send a raw move as JSON.

import { el, button } from "../dom.js";
import { t } from "../i18n.js";

/** The board for a game this page does not know; `page` is what the table page shares with every board. */
export function generic(page) {
  const { playing, actingSeat, play, log } = page;
  let pre = null;
  let box = null;

  function build(area, panel) {
    pre = el("pre");
    pre.id = "generic-state";
    pre.tabIndex = 0; // it may scroll: reachable by keyboard
    pre.setAttribute("aria-label", t("board.generic_state"));
    area.append(pre);
    panel.append(el("p", "muted", t("board.generic_intro")));
    box = el("textarea");
    box.id = "raw-move";
    box.setAttribute("aria-label", t("board.generic_move_label"));
    box.placeholder = '{"at": "H8"}';
    const row = el("div", "buttons");
    row.append(button(t("board.generic_send"), t("board.generic_send_label"), () => {
      let move;
      try { move = JSON.parse(box.value); } catch (err) { return log(t("board.generic_not_json", { error: err.message })); }
      play(actingSeat(), move);
    }));
    panel.append(box, row);
  }

  function update() {
    pre.textContent = JSON.stringify(page.table.state, null, 2);
    box.disabled = !playing() || page.mySeats.length === 0;
  }

  return { get name() { return page.table ? page.table.game : t("board.generic_name"); }, build, update };
}
