// Lines of Action: an 8 × 8 board; click a piece, then where it goes, or drag it there. The
// legal destinations are computed here as hints; the server decides. A pass button for a side
// with no move.

import { el, button } from "../dom.js";
import { onDrag, markDraggable } from "../input.js";
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

  function click(sq) {
    if (!playing() || page.mySeats.length === 0) return;
    const me = mySide();
    if (from === null) {
      if (at(sq) === me) from = sq;
      else if (page.premove && (page.premove.move.from === sq || page.premove.move.to === sq)) send({ type: "cancel_premove", seat: page.premove.seat });
      return update();
    }
    if (sq === from) from = null;                 // click again: deselect
    else if (at(sq) === me) from = sq;            // another of ours: select that one instead
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
    squares = buildSquareBoard(area, "loa-board", 8, true, click);
    from = null;
    // Drag a piece to where it goes: the same move as two clicks; a drop off the board cancels.
    onDrag(area.querySelector("#loa-board"), ".sq", "sq", {
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
    passButton = button("Pass", "Pass (only when you have no move)", () => moveOrPremove({ pass: true }), "secondary");
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
      sq.setAttribute("aria-label", `${name}, ${piece === "b" ? "black" : piece === "w" ? "white" : "empty"}` +
        (name === from ? ", selected" : "") + (hints.has(name) ? ", legal destination" : "") + (name === last.to ? ", last move" : ""));
    }
    markDraggable(squares, canDrag);
    // The pass button: for players in a game; marked when we have no move (then it is the only one).
    const mine = myTurnSeat() !== undefined;
    passButton.hidden = !canAct;
    const stuck = canAct && !hasMove(me);
    passButton.className = stuck ? "" : "secondary";
    passButton.nextSibling.textContent = stuck ? (mine ? "You have no move: you must pass." : "You will have no move: pass.")
      : `Pieces: black ${state.pieces.black}, white ${state.pieces.white}` + (state.last_move && state.last_move.pass ? " · the last move was a pass" : "");
  }

  return {
    name: "Lines of Action",
    settingsText: (s) => (s.simultaneous === "mover-wins" ? "connecting both sides wins for the mover" : "connecting both sides draws") +
      (s.start_position ? " · custom start" : ""),
    statusHint(mine) {
      if (mine !== undefined) return from ? ` Now click where ${from} goes.` : " Drag a piece, or click it and then where it goes.";
      if (playing() && page.mySeats.length) return " Drag a piece (or click it, then a square) to queue a premove.";
      return "";
    },
    moveText: (move) => (move.pass ? "pass" : `${move.from}-${move.to}`),
    build,
    update,
  };
}
