// Krux: a 7 × 7 board with the hole on d4, numbered pieces with ring colours, and a panel for
// the turn: the ring choice, the modes (step, push, pull, the ring's powers), end turn.
// A click, a tap or Enter on a square plays one part in the chosen mode; the board is one tab
// stop (arrow keys as seen, Enter or Space). The piece in turn may also be dragged onto a
// square: a step, or a jump with the green ring. The danger marks show which of your pieces
// the opponent's next piece could put into the hole (`threats`, below).

import { el, button } from "../dom.js";
import { onDrag, markDraggable, keyboardGrid } from "../input.js";
import { t } from "../i18n.js";
import { announce } from "../a11y.js";
import { buildSquareBoard, letter } from "./square.js";

/** Whether the danger marks are shown (a choice remembered for this browser). */
const DANGER_KEY = "spelbord.kruxDanger";

// ---------------------------------------------------------------- the danger search
//
// Squares are numbered 0–48, row 1 first (a1 = 0, g1 = 6, a2 = 7 …); the hole d4 is 24.
// Pieces are indexed 0–5 (piece number − 1): even indices white, odd black. A piece's square
// is -1 while it is carried.

const HOLE = 24;
const DIRS = [[1, 0], [-1, 0], [0, 1], [0, -1]];
const at = (c, r) => r * 7 + c;
const colOf = (i) => i % 7;
const rowOf = (i) => Math.floor(i / 7);
const step = (i, [dc, dr]) => {
  const c = colOf(i) + dc;
  const r = rowOf(i) + dr;
  return c >= 0 && c < 7 && r >= 0 && r < 7 ? at(c, r) : -1;
};
const distance = (a, b) => Math.abs(colOf(a) - colOf(b)) + Math.abs(rowOf(a) - rowOf(b));
/** The squares one or two from the hole in its row or column. */
const NEAR_HOLE = new Set([at(3, 1), at(3, 2), at(3, 4), at(3, 5), at(1, 3), at(2, 3), at(4, 3), at(5, 3)]);
/** The index of a square's name ("c3"), or -1 for "carried", "hole" and the like. */
export const squareIndex = (name) => (/^[a-g][1-7]$/.test(name) ? at(name.charCodeAt(0) - 97, Number(name[1]) - 1) : -1);

/**
 * Which pieces the piece `mover` (0–5) can put into the hole in the rest of its turn, from
 * `loc` (the six pieces' squares, -1 carried), with `steps` and `actions` already used, the
 * piece it is `carrying` (-1 none) and its `ring` ("blue", "green", "pink" or null).
 * An exact search of every sequence of parts the server would accept (the rules of
 * src/games/krux/turn.rs: pinning, pushes and pulls along a free line, ending exactly on the
 * hole, the carrier's pick-up and set-down, the jumper's simultaneous shoves, the swapper's
 * trade within 5; never one's own piece into the hole; the turn over at the first fall).
 * Returns the set of fallen piece indices (always opponents of the mover).
 */
export function threats(loc0, mover, ring, steps0 = 0, actions0 = 0, carrying0 = -1) {
  const fallen = new Set();
  // Each state (squares, actions used, piece carried) with the fewest steps that reached it:
  // between two actions only the piece in turn moves, and fewer steps used is never worse.
  const best = new Map();
  const own = (p) => p % 2 === mover % 2;
  // How many pieces could fall at all (the search stops when every one has): the opponents'
  // pieces on the board, and one the mover carries.
  const opponents = [0, 1, 2, 3, 4, 5].filter((p) => !own(p) && ((loc0[p] >= 0 && loc0[p] !== HOLE) || p === carrying0)).length;
  const pieceOn = (loc, sq) => {
    for (let p = 0; p < 6; p += 1) if (loc[p] === sq) return p;
    return -1;
  };
  const pinned = (loc) => DIRS.some((d) => {
    const n = step(loc[mover], d);
    const p = n < 0 ? -1 : pieceOn(loc, n);
    return p >= 0 && !own(p);
  });
  /** A piece moved to `to`: a fall (recorded, and the turn over) or a new state to explore. */
  function moved(loc, piece, to, steps, actions, carrying) {
    if (to === HOLE) {
      if (!own(piece)) fallen.add(piece); // one's own piece into the hole is refused
      return;
    }
    const next = loc.slice();
    next[piece] = to;
    visit(next, steps, actions, carrying);
  }
  function visit(loc, steps, actions, carrying) {
    // Nothing falls without an action: with none left (and nothing carried) the turn is done.
    if (fallen.size === opponents || (actions >= 2 && carrying < 0)) return;
    // With one action left, only a push, pull or jump's shove can still drop a piece, and it
    // moves that piece along its row or column by two squares at most: unless an opponent's
    // piece stands that close to the hole, nothing can fall (the carrier is searched in full).
    if (actions === 1 && carrying < 0 && ring !== "blue" && !loc.some((sq, p) => !own(p) && NEAR_HOLE.has(sq))) return;
    let key = actions * 8 + carrying + 1;
    for (let p = 0; p < 6; p += 1) key = key * 64 + loc[p] + 1;
    const known = best.get(key);
    if (known !== undefined && known <= steps) return;
    best.set(key, steps);
    const from = loc[mover];
    // Steps: one square orthogonally to an empty square, never into the hole, not while pinned.
    if (steps < 3 && !pinned(loc)) {
      for (const d of DIRS) {
        const to = step(from, d);
        if (to >= 0 && to !== HOLE && pieceOn(loc, to) < 0) moved(loc, mover, to, steps + 1, actions, carrying);
      }
    }
    if (carrying >= 0) {
      // Carrying: only steps (above) and the set-down on an adjacent empty square or the hole.
      for (const d of DIRS) {
        const to = step(from, d);
        if (to >= 0 && pieceOn(loc, to) < 0) moved(loc, carrying, to, steps, actions, -1);
      }
      return;
    }
    for (const d of DIRS) {
      // Push and pull: the first piece along the line (the hole is not a piece).
      let target = -1;
      let sq = from;
      let gap = 0;
      for (sq = step(from, d); sq >= 0; sq = step(sq, d)) {
        gap += 1;
        target = pieceOn(loc, sq);
        if (target >= 0) break;
      }
      if (target < 0) continue;
      // Push: two squares away, stopped by the edge or a piece.
      let end = sq;
      for (let k = 0; k < 2; k += 1) {
        const next = step(end, d);
        if (next >= 0 && pieceOn(loc, next) < 0) end = next;
        else break;
      }
      if (end !== sq) moved(loc, target, end, steps, actions + 1, -1);
      // Pull: two squares back, or until next to the puller.
      const back = [-d[0], -d[1]];
      end = sq;
      for (let k = 0; k < Math.min(gap - 1, 2); k += 1) end = step(end, back);
      if (end !== sq) moved(loc, target, end, steps, actions + 1, -1);
    }
    if (ring === "blue") {
      // Pick up an adjacent piece (it leaves the board; the action is used at once).
      for (const d of DIRS) {
        const n = step(from, d);
        const p = n < 0 ? -1 : pieceOn(loc, n);
        if (p >= 0) {
          const next = loc.slice();
          next[p] = -1;
          visit(next, steps, actions + 1, p);
        }
      }
    } else if (ring === "green") {
      // Jump within 3 (its own square too) to an empty square, not the hole; every neighbour
      // is shoved one square away where that square is on the board and empty (the square
      // left counts as empty) or the hole, all at once.
      for (let to = 0; to < 49; to += 1) {
        if (to === HOLE || distance(from, to) > 3) continue;
        const there = pieceOn(loc, to);
        if (there >= 0 && there !== mover) continue;
        const shoves = [];
        for (const d of DIRS) {
          const near = step(to, d);
          const p = near < 0 ? -1 : pieceOn(loc, near);
          if (p < 0 || p === mover) continue;
          const beyond = step(near, d);
          if (beyond < 0) continue;
          const blocker = pieceOn(loc, beyond);
          if (blocker < 0 || blocker === mover) shoves.push([p, beyond]);
        }
        if (to === from && shoves.length === 0) continue;
        if (shoves.some(([p, b]) => b === HOLE && own(p))) continue;
        const falls = shoves.filter(([, b]) => b === HOLE);
        if (falls.length) {
          for (const [p] of falls) fallen.add(p);
          continue;
        }
        const next = loc.slice();
        next[mover] = to;
        for (const [p, b] of shoves) next[p] = b;
        visit(next, steps, actions + 1, -1);
      }
    } else if (ring === "pink" && actions === 0) {
      // (A swap never drops a piece: as the last action it is pointless.)
      // Swap with any piece within 5 (never the hole: no piece stands on it).
      for (let p = 0; p < 6; p += 1) {
        if (p === mover || loc[p] < 0 || distance(from, loc[p]) > 5) continue;
        const next = loc.slice();
        [next[p], next[mover]] = [from, loc[p]];
        visit(next, steps, actions + 1, -1);
      }
    }
  }
  visit(loc0.slice(), steps0, actions0, carrying0);
  return fallen;
}

/** The Krux board; `page` is what the table page shares with every board (see table.js). */
export function krux(page) {
  const { playing, myTurnSeat, actingSeat, play, roleOf } = page;
  let area = null;
  let squares = {};
  let grid = null;     // the keyboard grid (`keyboardGrid`)
  let mode = "step";   // what a click on the board does: one of the part kinds below
  let modeTurn = "";   // the turn the mode was chosen in (a new turn starts with the default)
  let ui = {};         // the panel's elements
  let dragging = false; // the piece in turn is being dragged: its steps and jumps are the hints
  let danger = { key: "", threat: null }; // the last danger search: for which position, its answer

  const RINGS = ["blue", "green", "pink"];
  /** The part kinds a click can be, and the field naming the square. */
  const MODES = { step: "to", push: "target", pull: "target", pick_up: "target", set_down: "to", jump: "to", swap: "target" };
  const POWERS = { blue: ["pick_up", "set_down"], green: ["jump"], pink: ["swap"] };

  const cellAt = (c, r) => page.table.state.board[7 - r][c]; // "." empty, "o" hole, "1"–"6" a piece
  const coords = (sq) => [sq.charCodeAt(0) - 97, Number(sq.slice(1))];
  const inside = (c, r) => c >= 0 && c < 7 && r >= 1 && r <= 7;
  const colourName = (colour) => t(`krux.colour.${colour}`);
  const dangerOn = () => localStorage.getItem(DANGER_KEY) !== "off";

  /** A part in words, e.g. "step to c2". */
  function partText(part) {
    switch (part.part) {
      case "ring": return RINGS.includes(part.ring) ? t(`krux.ring.${part.ring}`) : part.ring;
      case "step": case "set_down": case "jump": return t(`krux.part.${part.part}`, { to: part.to });
      case "push": case "pull": case "pick_up": case "swap": return t(`krux.part.${part.part}`, { target: part.target });
      case "end": return t("krux.part.end");
    }
    return JSON.stringify(part);
  }
  const partsText = (parts) => parts.map(partText).join(", ");

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
    // The hole takes only a set-down (of an opponent's piece: the win); anything else there is pointless.
    if (sq === "d4" && mode !== "set_down") return;
    play(actingSeat(), { part: mode, [MODES[mode]]: sq });
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

  /** Keyboard focus to the board: the piece in turn's square, or where it was. */
  function focusBoard() {
    const piece = page.table.state.pieces[page.table.state.turn.piece - 1];
    if (grid) grid.focus(piece && /^[a-g][1-7]$/.test(piece.square) ? piece.square : "c3");
  }
  /** Whether the focus is in `node` (it is about to be hidden or disabled). */
  const holdsFocus = (node) => node.contains(document.activeElement);

  function build(boardArea, panel) {
    area = boardArea;
    squares = buildSquareBoard(area, "krux-board", 7, false, click);
    const board = area.querySelector("#krux-board");
    board.setAttribute("aria-label", t("krux.board_label"));
    squares.d4.classList.add("hole");
    // Not disabled: the keyboard walks over it, and a set-down may go there.
    grid = keyboardGrid(board, {
      cells: () => [7, 6, 5, 4, 3, 2, 1].map((r) => [0, 1, 2, 3, 4, 5, 6].map((c) => squares[letter(c) + r])),
      flipped: () => area.classList.contains("flipped"),
      onActivate: (sq) => click(sq),
    });
    onDrag(board, ".sq", "sq", {
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
    // The ring choice: a button per ring, shown while the piece in turn must choose.
    ui.rings = el("div", "buttons");
    ui.rings.setAttribute("role", "group");
    ui.ringsLabel = el("span", "");
    ui.ringsLabel.id = "krux-rings-label";
    ui.rings.setAttribute("aria-labelledby", ui.ringsLabel.id);
    ui.rings.append(ui.ringsLabel);
    ui.ringButtons = {};
    for (const ring of RINGS) {
      const b = button("", t(`krux.choose_ring.${ring}`), () => {
        part({ part: "ring", ring });
        focusBoard(); // the choice disappears: the keyboard goes on on the board
      }, "secondary");
      b.append(el("span", `ring-swatch ${ring}`), t(`krux.ring_button.${ring}`));
      ui.rings.append(b);
      ui.ringButtons[ring] = b;
    }
    // The modes: what a click (or Enter) on a square does.
    ui.modes = el("div", "buttons");
    ui.modes.setAttribute("role", "group");
    ui.modes.setAttribute("aria-label", t("krux.modes_label"));
    ui.modeButtons = {};
    for (const m of Object.keys(MODES)) {
      const b = button(t(`krux.mode.${m}`), "", (event) => {
        mode = m;
        update();
        // From the keyboard: on to the board, where Enter plays the part.
        if (event.detail === 0) {
          announce(t(`krux.help.${m}`));
          focusBoard();
        }
      }, "secondary");
      b.setAttribute("aria-describedby", "krux-help");
      ui.modes.append(b);
      ui.modeButtons[m] = b;
    }
    ui.help = el("p", "muted");
    ui.help.id = "krux-help";
    ui.end = button(t("krux.end_turn"), t("krux.end_turn_label"), () => {
      if (holdsFocus(ui.end)) focusBoard();
      part({ part: "end" });
    });
    const endRow = el("div", "buttons");
    endRow.append(ui.end, el("span", "muted", t("krux.pass_note")));
    // The danger marks: which of your pieces the opponent's next piece could drop into the hole.
    ui.danger = el("div", "krux-danger");
    const label = el("label", "krux-danger-toggle");
    ui.dangerBox = el("input");
    ui.dangerBox.type = "checkbox";
    ui.dangerBox.checked = dangerOn();
    ui.dangerBox.addEventListener("change", () => {
      localStorage.setItem(DANGER_KEY, ui.dangerBox.checked ? "on" : "off");
      update();
    });
    label.append(ui.dangerBox, ` ${t("krux.danger.toggle")}`);
    ui.dangerLegend = el("p", "krux-danger-legend");
    ui.danger.append(label, ui.dangerLegend);
    panel.append(ui.facts, ui.rings, ui.modes, ui.help, endRow, ui.danger, ui.parts);
  }

  /**
   * The danger: which of our pieces the opponent can put into the hole on its next turn.
   * While the opponent's piece is in turn: that piece, in the rest of its turn (as it stands,
   * mid-turn included). While ours is: the next piece (always the opponent's), with a whole
   * turn, on the board as it stands now, as if we ended the turn here; if it has no ring yet
   * and rings are free, each free ring is tried (it may choose any of them). A piece we are
   * carrying is left out (off the board). Null when there is nothing to show: not playing,
   * watching, or holding both seats.
   */
  function dangerNow() {
    const state = page.table.state;
    if (!playing() || page.mySeats.length !== 1) return null;
    const mine = roleOf(page.mySeats[0]);
    if (mine !== "white" && mine !== "black") return null;
    const turn = state.turn;
    const key = `${page.table.game_number}:${state.turn_number}:${turn.parts.length}:${state.board.join("/")}:${mine}`;
    if (danger.key === key) return danger.threat;
    const loc = state.pieces.map((p) => squareIndex(p.square));
    const inTurn = turn.piece - 1;
    const theirsInTurn = state.pieces[inTurn].colour !== mine;
    const mover = theirsInTurn ? inTurn : (inTurn + 1) % 6;
    const ring = state.pieces[mover].ring;
    const fallen = new Set();
    if (theirsInTurn) {
      const rings = turn.must_choose_ring ? turn.free_rings : [ring];
      const carrying = turn.carrying ? turn.carrying - 1 : -1;
      for (const r of rings) for (const p of threats(loc, mover, r, 3 - turn.steps_left, 2 - turn.actions_left, carrying)) fallen.add(p);
    } else {
      if (turn.carrying) loc[turn.carrying - 1] = -1;
      const rings = ring ? [ring] : turn.free_rings.length ? turn.free_rings : [null];
      for (const r of rings) for (const p of threats(loc, mover, r)) fallen.add(p);
    }
    const threat = { piece: mover + 1, colour: state.pieces[mover].colour, now: theirsInTurn,
      squares: new Set([...fallen].map((p) => state.pieces[p].square)) };
    danger = { key, threat };
    return threat;
  }

  function update() {
    const state = page.table.state;
    const turn = state.turn;
    const mine = myTurnSeat() !== undefined;
    const seated = playing() && page.mySeats.length > 0;
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
    const threat = ui.dangerBox.checked ? dangerNow() : null;
    const endangered = threat ? threat.squares : new Set();
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
      sq.classList.toggle("danger", endangered.has(name));
      // "c3, white 1 with blue ring, in turn" in the page's language.
      const label = [name === "d4" ? t("krux.sq.hole", { square: name })
        : !p ? t("krux.sq.empty", { square: name })
          : p.ring ? t(`krux.sq.piece_ring.${p.colour}`, { square: name, number: p.number, ring: t(`krux.ring.${p.ring}`) })
            : t(`krux.sq.piece.${p.colour}`, { square: name, number: p.number })];
      if (p && p.number === turn.piece && playing()) label.push(t("krux.sq.in_turn"));
      if (endangered.has(name)) label.push(t("krux.sq.danger"));
      if (hints.has(name)) label.push(t("krux.sq.target"));
      if (wentTo.has(name) || actedOn.has(name)) label.push(t("krux.sq.last_turn"));
      sq.setAttribute("aria-label", label.join(", "));
    }

    markDraggable(squares, canDrag);

    // The turn: what the piece in turn may still do.
    ui.facts.replaceChildren();
    const fact = (label, value) => { const s = el("span", "", `${label} `); s.append(el("b", "", String(value))); ui.facts.append(s); };
    fact(t("krux.fact.turn"), state.turn_number);
    const ringName = turn.ring ? t(`krux.ring_power.${turn.ring}`) : t("krux.no_ring");
    fact(t("krux.fact.piece"), t("krux.fact.piece_value", { number: turn.piece, colour: colourName(inTurn.colour || "white"), ring: ringName }));
    if (playing()) {
      fact(t("krux.fact.steps_left"), turn.steps_left);
      fact(t("krux.fact.actions_left"), turn.actions_left);
      if (turn.carrying) fact(t("krux.fact.carrying"), t("krux.fact.carrying_value", { number: turn.carrying }));
      if (turn.pinned) fact(t("krux.fact.pinned"), t("krux.fact.pinned_value"));
    }
    ui.parts.textContent = turn.parts.length ? t("krux.parts.this_turn", { parts: partsText(turn.parts) })
      : state.last_turn.length ? t("krux.parts.last_turn", { parts: partsText(state.last_turn) }) : "";

    // Ring choice (the piece's first turn while rings are free).
    const choosing = playing() && turn.must_choose_ring;
    if (!choosing && holdsFocus(ui.rings)) focusBoard();
    ui.rings.hidden = !choosing;
    ui.ringsLabel.textContent = mine ? t("krux.choose_a_ring") : t("krux.choosing_a_ring");
    for (const ring of RINGS) {
      ui.ringButtons[ring].hidden = !(choosing && turn.free_rings.includes(ring));
      ui.ringButtons[ring].disabled = !mine;
    }

    // What a click on the board does: step, push, pull, and the ring's powers.
    const modes = ["step", "push", "pull", ...(POWERS[turn.ring] || [])];
    ui.modes.hidden = !playing() || turn.must_choose_ring;
    for (const [m, b] of Object.entries(ui.modeButtons)) {
      b.hidden = !modes.includes(m);
      b.setAttribute("aria-pressed", String(m === mode && mine));
      b.disabled = !mine || !turn.available.includes(m);
    }
    if (holdsFocus(ui.modes) && (ui.modes.hidden || document.activeElement.disabled || document.activeElement.hidden)) focusBoard();
    ui.help.hidden = !mine || turn.must_choose_ring;
    ui.help.textContent = turn.available.includes(mode) ? t(`krux.help.${mode}`) : t("krux.help.nothing_left");
    ui.end.hidden = !seated;
    ui.end.disabled = !mine || !turn.can_end;
    ui.end.parentElement.hidden = ui.end.hidden;

    // The danger marks and their legend.
    ui.danger.hidden = !(playing() && page.mySeats.length === 1);
    ui.dangerLegend.hidden = !threat;
    if (threat) {
      const who = { number: threat.piece, colour: colourName(threat.colour) };
      const some = threat.squares.size > 0;
      ui.dangerLegend.classList.toggle("some", some);
      ui.dangerLegend.replaceChildren(t(`krux.danger.${some ? "some" : "none"}_${threat.now ? "now" : "next"}`, who));
      if (some) {
        const swatch = el("span", "danger-swatch");
        swatch.setAttribute("aria-hidden", "true");
        ui.dangerLegend.prepend(swatch);
      }
    }
  }

  return {
    name: t("common.game.krux"),
    settingsText: (s) => (s.start_position ? t("krux.settings.start", { position: s.start_position }) : t("krux.settings.house_start")),
    statusHint(mine) {
      const turn = page.table.state.turn;
      const p = page.table.state.pieces[turn.piece - 1];
      return ` ${t("krux.status.in_turn", { number: turn.piece, colour: colourName(p ? p.colour : "white") })}` +
        (mine !== undefined && turn.must_choose_ring ? ` ${t("krux.status.choose_ring")}` : "");
    },
    moveText: (move) => (move.turn ? partsText(move.turn) : partText(move)),
    build,
    update,
  };
}
