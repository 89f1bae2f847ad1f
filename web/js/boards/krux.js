// Krux: a 7 × 7 board with the hole on d4, numbered pieces with ring colours, and a panel for
// the turn: the ring choice, the click modes (step, push, pull, the ring's powers), end turn.
// The piece in turn may also be dragged onto a square: a step, or a jump with the green ring.

import { el, button } from "../dom.js";
import { onDrag, markDraggable } from "../input.js";
import { buildSquareBoard, letter } from "./square.js";

/** The Krux board; `page` is what the table page shares with every board (see table.js). */
export function krux(page) {
  const { playing, myTurnSeat, actingSeat, play } = page;
  let squares = {};
  let mode = "step";   // what a click on the board does: one of the part kinds below
  let modeTurn = "";   // the turn the mode was chosen in (a new turn starts with the default)
  let ui = {};         // the panel's elements
  let dragging = false; // the piece in turn is being dragged: its steps and jumps are the hints

  const RINGS = { blue: "carrier", green: "jumper", pink: "swapper" };
  const MODES = {
    step: { label: "Step", field: "to", help: "click an adjacent empty square to step there, or drag the piece there" },
    push: { label: "Push", field: "target", help: "click a piece in the same row or column to push it away" },
    pull: { label: "Pull", field: "target", help: "click a piece in the same row or column to pull it closer" },
    pick_up: { label: "Pick up", field: "target", help: "click an adjacent piece to pick it up" },
    set_down: { label: "Set down", field: "to", help: "click an adjacent empty square (or the hole) to set the piece down" },
    jump: { label: "Jump", field: "to", help: "click an empty square within 3 steps to jump there, or drag the piece there" },
    swap: { label: "Swap", field: "target", help: "click a piece within 5 steps to swap places with it" },
  };
  const POWERS = { blue: ["pick_up", "set_down"], green: ["jump"], pink: ["swap"] };

  const cellAt = (c, r) => page.table.state.board[7 - r][c]; // "." empty, "o" hole, "1"–"6" a piece
  const coords = (sq) => [sq.charCodeAt(0) - 97, Number(sq.slice(1))];
  const inside = (c, r) => c >= 0 && c < 7 && r >= 1 && r <= 7;

  /** A part in words, e.g. "step to c2". */
  function partText(part) {
    switch (part.part) {
      case "ring": return `${part.ring} ring`;
      case "step": return `step to ${part.to}`;
      case "push": return `push ${part.target}`;
      case "pull": return `pull ${part.target}`;
      case "pick_up": return `pick up ${part.target}`;
      case "set_down": return `set down on ${part.to}`;
      case "jump": return `jump to ${part.to}`;
      case "swap": return `swap with ${part.target}`;
      case "end": return "end";
    }
    return JSON.stringify(part);
  }

  /** The squares a click may usefully name in `mode` (a hint; the server decides). */
  function targets(mode) {
    const turn = page.table.state.turn;
    if (!turn.available.includes(mode)) return [];
    const piece = page.table.state.pieces[turn.piece - 1];
    if (!piece || !/^[a-g][1-7]$/.test(piece.square)) return [];
    const [pc, pr] = coords(piece.square);
    const out = [];
    for (let c = 0; c < 7; c += 1) {
      for (let r = 1; r <= 7; r += 1) {
        const here = cellAt(c, r);
        const distance = Math.abs(c - pc) + Math.abs(r - pr);
        const isPiece = /[1-6]/.test(here);
        let ok = false;
        if (mode === "step") ok = distance === 1 && here === ".";
        else if (mode === "pick_up") ok = distance === 1 && isPiece;
        else if (mode === "set_down") ok = distance === 1 && (here === "." || here === "o");
        else if (mode === "jump") ok = distance >= 1 && distance <= 3 && here === ".";
        else if (mode === "swap") ok = distance >= 1 && distance <= 5 && isPiece;
        else if (mode === "push" || mode === "pull") {
          if (isPiece && distance > 0 && (c === pc || r === pr)) {
            // nothing between (the hole is not a piece)
            const [dc, dr] = [Math.sign(c - pc), Math.sign(r - pr)];
            ok = true;
            for (let k = 1; k < distance; k += 1) if (/[1-6]/.test(cellAt(pc + dc * k, pr + dr * k))) ok = false;
          }
        }
        if (ok) out.push(letter(c) + r);
      }
    }
    return out;
  }

  function click(sq) {
    if (!playing() || page.mySeats.length === 0) return;
    const [c, r] = coords(sq);
    if (!inside(c, r)) return;
    play(actingSeat(), { part: mode, [MODES[mode].field]: sq });
  }

  /** The kinds of part a drag of the piece in turn may be: a step, or a jump. */
  const DRAG_MODES = ["step", "jump"];

  /** Whether the piece on `sq` may be dragged: the piece in turn, on our turn, able to step or jump. */
  function canDrag(sq) {
    if (!playing() || myTurnSeat() === undefined) return false;
    const state = page.table.state;
    const turn = state.turn;
    const piece = state.pieces[turn.piece - 1];
    return Boolean(piece) && piece.square === sq && !turn.must_choose_ring && DRAG_MODES.some((m) => turn.available.includes(m));
  }

  /** A drop of the piece in turn on `to`: a step when it is one, else a jump (the server decides). */
  function dropOn(to) {
    const available = DRAG_MODES.filter((m) => page.table.state.turn.available.includes(m));
    const kind = available.find((m) => targets(m).includes(to)) || available[0];
    if (kind) play(actingSeat(), { part: kind, to });
  }

  function part(move) {
    if (playing() && page.mySeats.length) play(actingSeat(), move);
  }

  function build(area, panel) {
    squares = buildSquareBoard(area, "krux-board", 7, false, click);
    squares.d4.classList.add("hole");
    squares.d4.disabled = true;
    onDrag(area.querySelector("#krux-board"), ".sq", "sq", {
      canDrag,
      start() { dragging = true; update(); },
      drop(sq, to) {
        dragging = false;
        if (to !== sq && canDrag(sq)) dropOn(to);
        update();
      },
      cancel() { dragging = false; update(); },
    });
    ui.facts = el("p", "krux-facts");
    ui.parts = el("p", "muted");
    ui.rings = el("div", "buttons");
    ui.modes = el("div", "buttons");
    ui.help = el("p", "muted");
    ui.end = button("End turn", "End the turn", () => part({ part: "end" }));
    const endRow = el("div", "buttons");
    endRow.append(ui.end, el("span", "muted", "Ending with nothing done is a pass."));
    panel.append(ui.facts, ui.rings, ui.modes, ui.help, endRow, ui.parts);
  }

  function update() {
    const state = page.table.state;
    const turn = state.turn;
    const mine = myTurnSeat() !== undefined;
    const inTurn = state.pieces[turn.piece - 1] || {};
    // The click mode: the default at the start of each turn and whenever the mode is not possible.
    const key = `${page.turnKey}:${state.turn_number}`;
    const defaultMode = turn.carrying ? "set_down" : ["step", "push", "pull", "jump", "swap", "pick_up"].find((m) => turn.available.includes(m)) || "step";
    if (key !== modeTurn || !turn.available.includes(mode)) [mode, modeTurn] = [defaultMode, key];

    // The board: pieces with their ring colours, the piece in turn, the hint squares, and
    // the squares the turn being played (or else the last turn) touched: where a piece went
    // (`to`) more strongly than a piece acted on (`target`).
    const hints = new Set(!mine ? [] : dragging ? DRAG_MODES.flatMap(targets) : targets(mode));
    const marked = turn.parts.length ? turn.parts : state.last_turn;
    const wentTo = new Set(marked.map((p) => p.to).filter(Boolean));
    const actedOn = new Set(marked.map((p) => p.target).filter(Boolean));
    const pieceAt = {};
    for (const p of state.pieces) pieceAt[p.square] = p;
    for (const [name, sq] of Object.entries(squares)) {
      const p = pieceAt[name];
      sq.replaceChildren();
      if (p) {
        const disc = el("span", `kpiece ${p.colour} ring-${p.ring || "none"}`, String(p.number));
        disc.classList.toggle("in-turn", p.number === turn.piece && playing());
        sq.append(disc);
      }
      sq.classList.toggle("occupied", Boolean(p));
      sq.classList.toggle("hint", hints.has(name));
      sq.classList.toggle("last-to", wentTo.has(name));
      sq.classList.toggle("last-from", actedOn.has(name) && !wentTo.has(name));
      sq.setAttribute("aria-label", name === "d4" ? "d4, the hole" : `${name}, ` +
        (p ? `piece ${p.number} (${p.colour}${p.ring ? `, ${p.ring} ring` : ""})` : "empty") + (hints.has(name) ? ", possible target" : "")
        + (wentTo.has(name) || actedOn.has(name) ? ", part of the last turn" : ""));
    }

    markDraggable(squares, canDrag);

    // The turn: what the piece in turn may still do.
    ui.facts.replaceChildren();
    const fact = (label, value) => { const s = el("span", "", `${label} `); s.append(el("b", "", String(value))); ui.facts.append(s); };
    fact("Turn", state.turn_number);
    const ringName = turn.ring ? `${turn.ring} ring (${RINGS[turn.ring]})` : "no ring";
    fact("Piece", `${turn.piece} (${inTurn.colour || "?"}, ${ringName})`);
    if (playing()) {
      fact("Steps left", turn.steps_left);
      fact("Actions left", turn.actions_left);
      if (turn.carrying) fact("Carrying", `piece ${turn.carrying}`);
      if (turn.pinned) fact("Pinned:", "no steps while next to an opponent");
    }
    ui.parts.textContent = turn.parts.length ? `This turn: ${turn.parts.map(partText).join(", ")}.`
      : state.last_turn.length ? `Last turn: ${state.last_turn.map(partText).join(", ")}.` : "";

    // Ring choice (the piece's first turn while rings are free).
    ui.rings.replaceChildren();
    ui.rings.hidden = !(playing() && turn.must_choose_ring);
    if (!ui.rings.hidden) {
      ui.rings.append(el("span", "", mine ? "Choose a ring:" : "Choosing a ring:"));
      for (const ring of turn.free_rings) {
        const b = button("", `Choose the ${ring} ring (${RINGS[ring]})`, () => part({ part: "ring", ring }), "secondary");
        b.append(el("span", `ring-swatch ${ring}`), `${ring[0].toUpperCase()}${ring.slice(1)} — ${RINGS[ring]}`);
        b.disabled = !mine;
        ui.rings.append(b);
      }
    }

    // What a click on the board does: step, push, pull, and the ring's powers.
    ui.modes.replaceChildren();
    const modes = ["step", "push", "pull", ...(POWERS[turn.ring] || [])];
    ui.modes.hidden = !playing() || turn.must_choose_ring;
    for (const m of modes) {
      const b = button(MODES[m].label, `${MODES[m].label}: ${MODES[m].help}`, () => { mode = m; update(); }, "secondary");
      b.setAttribute("aria-pressed", String(m === mode && mine));
      b.disabled = !mine || !turn.available.includes(m);
      ui.modes.append(b);
    }
    ui.help.hidden = !mine || turn.must_choose_ring;
    ui.help.textContent = turn.available.includes(mode) ? `${MODES[mode].label}: ${MODES[mode].help}.` : "Nothing more to do: end the turn.";
    ui.end.hidden = !playing() || page.mySeats.length === 0;
    ui.end.disabled = !mine || !turn.can_end;
    ui.end.parentElement.hidden = ui.end.hidden;
  }

  return {
    name: "Krux",
    settingsText: (s) => (s.start_position ? `start ${s.start_position}` : "house start"),
    statusHint(mine) {
      const turn = page.table.state.turn;
      const p = page.table.state.pieces[turn.piece - 1];
      return ` Piece ${turn.piece}${p ? ` (${p.colour})` : ""} is in turn.` +
        (mine !== undefined && turn.must_choose_ring ? " First choose its ring." : "");
    },
    moveText: (move) => (move.turn ? move.turn.map(partText).join(", ") : partText(move)),
    build,
    update,
  };
}
