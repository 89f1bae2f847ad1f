// Lines of Action: an 8 × 8 board; click a piece, then where it goes, or drag it there; from the
// keyboard, the arrow keys move across the board as it is seen and Enter or Space is a click
// (square.js, input.js `keyboardGrid`), Escape drops the choice. The legal destinations are
// computed here as hints; the server decides. A pass button for a side with no move.

import { el, button } from "../dom.js";
import { onDrag, markDraggable, refusedInReplay } from "../input.js";
import { t } from "../i18n.js";
import { announce } from "../a11y.js";
import { buildSquareBoard, letter } from "./square.js";

/** The Lines of Action board; `page` is what the table page shares with every board (see table.js). */
export function linesOfAction(page) {
  const { playing, myTurnSeat, roleOf, send, moveOrPremove } = page;
  let squares = {};
  let from = null;    // the selected piece's square
  let passButton = null;

  /** The piece on a square: "b", "w" or "." (`board[0]` is row 8). */
  const at = (sq) => page.table.state.board[8 - Number(sq.slice(1))][sq.charCodeAt(0) - 97];
  /** Our side's letter: the seat to move if ours, else our seat. */
  const mySide = () => (page.mySeats.length ? roleOf(myTurnSeat() ?? page.mySeats.find((s) => !page.table.to_move.includes(s)) ?? page.mySeats[0]).charAt(0) : null);

  /**
   * Where the piece on `sq` may go: along each line it moves exactly as many squares as
   * there are pieces on that whole line, never over an opponent's piece, never onto its own.
   */
  function destinations(sq, me) {
    const board = page.table.state.board;
    const col = sq.charCodeAt(0) - 97;
    const row = Number(sq.slice(1));
    const inside = (c, r) => c >= 0 && c < 8 && r >= 1 && r <= 8;
    const piece = (c, r) => board[8 - r][c];
    const opponent = me === "b" ? "w" : "b";
    const out = [];
    for (const [dc, dr] of [[1, 0], [0, 1], [1, 1], [1, -1]]) {
      let count = 0;
      for (let k = -7; k <= 7; k += 1) if (inside(col + k * dc, row + k * dr) && piece(col + k * dc, row + k * dr) !== ".") count += 1;
      for (const sign of [1, -1]) {
        const [tc, tr] = [col + sign * dc * count, row + sign * dr * count];
        if (!inside(tc, tr) || piece(tc, tr) === me) continue;
        let blocked = false;
        for (let k = 1; k < count; k += 1) if (piece(col + sign * dc * k, row + sign * dr * k) === opponent) blocked = true;
        if (!blocked) out.push(letter(tc) + tr);
      }
    }
    return out;
  }

  /** Whether our side has any move at all (if not, the only legal move is a pass). */
  function hasMove(me) {
    return Object.keys(squares).some((sq) => at(sq) === me && destinations(sq, me).length > 0);
  }

  /** Chooses the piece on `sq` (null: none), and says so to screen readers. */
  function choose(sq, me) {
    from = sq;
    if (sq !== null) announce(t("loa.selected_announce", { square: sq, count: destinations(sq, me).length }));
  }

  function click(sq) {
    if (!playing() || page.mySeats.length === 0) {
      refusedInReplay(page);
      return;
    }
    const me = mySide();
    if (from === null) {
      if (at(sq) === me) choose(sq, me);
      else if (page.premove && (page.premove.move.from === sq || page.premove.move.to === sq)) send({ type: "cancel_premove", seat: page.premove.seat });
      return update();
    }
    if (sq === from) from = null;                 // click again: deselect
    else if (at(sq) === me) choose(sq, me);       // another of ours: select that one instead
    else {
      // Any other square: send it; the server explains an illegal move.
      const move = { from, to: sq };
      from = null;
      moveOrPremove(move);
    }
    update();
  }

  /** Whether the piece on `sq` may be dragged: one of ours, while we play (a premove too). */
  const canDrag = (sq) => playing() && page.mySeats.length > 0 && at(sq) === mySide();

  function build(area, panel) {
    squares = buildSquareBoard(area, "loa-board", 8, true, click, { label: t("loa.board_label", { size: 8 }) });
    from = null;
    const board = area.querySelector("#loa-board");
    // Escape drops the chosen piece (a drag's own Escape is input.js's).
    board.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && from !== null && !board.classList.contains("dragging")) {
        from = null;
        update();
      }
    });
    // Drag a piece to where it goes: the same move as two clicks; a drop off the board cancels.
    onDrag(board, ".sq", "sq", {
      canDrag,
      start(sq) { from = sq; update(); },
      drop(sq, to) {
        if (to === sq || !canDrag(sq)) return update(); // back where it was: stays selected
        from = null;
        moveOrPremove({ from: sq, to });
        update();
      },
      cancel() { from = null; update(); },
    });
    const row = el("div", "buttons");
    passButton = button(t("loa.pass"), t("loa.pass_label"), () => moveOrPremove({ pass: true }), "secondary");
    row.append(passButton, el("span", "muted", ""));
    panel.append(row);
  }

  function update() {
    const state = page.table.state;
    const me = mySide();
    const canAct = playing() && me !== null;
    if (!canAct) from = null;
    if (from !== null && at(from) !== me) from = null; // the piece was captured meanwhile
    const hints = new Set(from ? destinations(from, me) : []);
    const last = state.last_move && !state.last_move.pass ? state.last_move : {};
    const pre = page.premove && playing() ? page.premove.move : {};
    for (const [name, sq] of Object.entries(squares)) {
      const piece = at(name);
      if (piece === ".") delete sq.dataset.piece;
      else sq.dataset.piece = piece;
      if (!sq.firstChild) sq.append(el("span", "piece"));
      sq.classList.toggle("occupied", piece !== ".");
      sq.classList.toggle("last-from", name === last.from);
      sq.classList.toggle("last-to", name === last.to);
      sq.classList.toggle("selected", name === from);
      sq.classList.toggle("hint", hints.has(name));
      sq.classList.toggle("pm-from", name === pre.from);
      sq.classList.toggle("pm-to", name === pre.to);
      if (name === pre.to && piece === "." && me) sq.dataset.ghost = me; // our piece, faintly, where the premove goes
      else delete sq.dataset.ghost;
      const states = [];
      if (name === from) states.push("loa.state_selected");
      if (hints.has(name)) states.push(piece === "." ? "loa.state_destination" : "loa.state_capture");
      if (name === last.to) states.push("loa.state_last_to");
      if (name === last.from) states.push("loa.state_last_from");
      if (name === pre.from) states.push("loa.state_premove_from");
      if (name === pre.to) states.push("loa.state_premove_to");
      const what = piece === "b" ? "loa.square_black" : piece === "w" ? "loa.square_white" : "loa.square_empty";
      sq.setAttribute("aria-label", [t(what, { square: name }), ...states.map((state) => t(state))].join(", "));
    }
    markDraggable(squares, canDrag);
    // The pass button: for players in a game; marked when we have no move (then it is the only one).
    const mine = myTurnSeat() !== undefined;
    passButton.hidden = !canAct;
    const stuck = canAct && !hasMove(me);
    passButton.className = stuck ? "" : "secondary";
    const pieces = t("loa.pieces", { black: state.pieces.black, white: state.pieces.white });
    passButton.nextSibling.textContent = stuck ? t(mine ? "loa.no_move" : "loa.no_move_next")
      : state.last_move && state.last_move.pass ? `${pieces} · ${t("loa.last_was_pass")}` : pieces;
  }

  return {
    get name() { return t("common.game.lines-of-action"); },
    settingsText: (s) => [t(s.simultaneous === "mover-wins" ? "loa.simultaneous_mover_wins" : "loa.simultaneous_draw"),
      ...(s.start_position ? [t("loa.custom_start")] : [])].join(" · "),
    statusHint(mine) {
      if (mine !== undefined) return ` ${from ? t("loa.hint_destination", { square: from }) : t("loa.hint_move")}`;
      if (playing() && page.mySeats.length) return ` ${t("loa.hint_premove")}`;
      return "";
    },
    moveText: (move) => (move.pass ? t("loa.pass_move") : `${move.from}-${move.to}`),
    build,
    update,
  };
}
