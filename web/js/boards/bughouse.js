// Bughouse: two chess boards side by side, each with a strip above and below for its players
// (name, team, presence, clock, pocket); moves, drops, promotions and premoves by clicks, taps,
// drag and drop or the keyboard (each board one tab stop: arrow keys and Enter; pocket pieces
// are buttons). The page knows no chess rules: on each of its turns it asks the server for
// the seat's legal moves (`legal_moves`) and marks the selected piece's targets from the answer.
// Under the player's own board a row of quick team-chat signals; on narrow screens the
// partner's board is drawn small above the player's own (CSS).

import { flipped } from "../flip.js";
import { el, button } from "../dom.js";
import { onPick, keyboardGrid } from "../input.js";
import { t, lang } from "../i18n.js";
import { announce } from "../a11y.js";
import { letter } from "./square.js";

/** The Bughouse boards; `page` is what the table page shares with every board (see table.js). */
export function bughouse(page) {
  const { playing, myTurnSeat, isMine, roleOf, playerName, send, play, roleBadge, reasonText, timed, awayCounting } = page;
  const BOARDS = ["A", "B"];
  const GLYPH = { k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" }; // drawn white or black by CSS
  /** A piece's name without colour ("knight"), from its letter in either case. */
  const pieceName = (p) => t(`bughouse.piece.${p.toLowerCase()}`);
  /** A FEN letter as a coloured piece ("white knight"): one key each, for the languages' agreement. */
  const colouredPiece = (p) => t(`bughouse.piece.${p === p.toUpperCase() ? "white" : "black"}.${p.toLowerCase()}`);
  /** A role id ("A-white", the data) in the page's language ("A-vit"): the table's words. */
  const roleName = (role) => (page.roleName ? page.roleName(role) : String(role));
  /** "A, B and C" in the page's language. */
  const list = (items) => new Intl.ListFormat(lang, { type: "conjunction" }).format(items);
  /**
   * Quick team-chat signals: each one's id (its text is `chat.signal.{id}`) and the fixed words
   * sent, which every reader's page shows in its own language (table.js, as its team chat's).
   */
  const SIGNALS = { need_q: "need Q", need_r: "need R", need_b: "need B", need_n: "need N", need_p: "need P",
    dont_trade: "don't trade", sit: "sit", go: "go", trade_ok: "trade ok" };
  let area = null;
  let layout = "";        // the viewpoint the boards were built for (rebuilt when our seat changes)
  let parts = {};         // per board: {title, top, bottom, squares, bottomColour}
  let sel = null;         // a selection on one board: {board, seat, colour, from} or {…, drop: "N"}
  let promo = null;       // a pawn move to the last rank waiting for its piece: {board, seat, uci}
  let ui = {};            // the panel's elements
  // Legal moves per seat of ours, from the server: {key, moves: [uci…]} for the position `key`
  // (the game and its board's FEN, pockets included), and the request under way {key, at}.
  let legal = {};
  let asked = {};
  let drag = null;        // a piece being dragged (see dragging below)
  let grids = {};         // per board: the keyboard grid (`keyboardGrid`), rebuilt with the boards
  let lastFocus = {};     // per board: the square the keyboard was last on

  const other = (c) => (c === "white" ? "black" : "white");
  const otherBoard = (b) => (b === "A" ? "B" : "A");
  /** The seat playing `colour` on `board` (seats 0–3 are A-white, A-black, B-white, B-black). */
  const seatOf = (board, colour) => { const s = page.table.seats.find((x) => x.role === `${board}-${colour}`); return s ? s.seat : -1; };
  const boardOf = (seat) => roleOf(seat).charAt(0);
  /** Team 1 is A-white with B-black, team 2 A-black with B-white. */
  const teamOf = (seat) => (["A-white", "B-black"].includes(roleOf(seat)) ? 1 : 2);
  const teamSeats = (team) => (team === 1 ? [seatOf("A", "white"), seatOf("B", "black")] : [seatOf("A", "black"), seatOf("B", "white")]);
  const partnerOf = (seat) => teamSeats(teamOf(seat)).find((s) => s !== seat);
  const pieceAt = (board, sq) => page.table.state[board].board[8 - Number(sq[1])][sq.charCodeAt(0) - 97];
  const pieceColour = (p) => (p === "." ? null : p === p.toUpperCase() ? "white" : "black");

  /** A move in UCI as its parts: {from, to, promo} or {drop, to}. */
  function parseUci(uci) {
    if (!uci) return null;
    if (uci[1] === "@") return { drop: uci[0].toUpperCase(), to: uci.slice(2, 4) };
    return { from: uci.slice(0, 2), to: uci.slice(2, 4), promo: uci[4] || null };
  }
  const uciText = (uci) => { const m = parseUci(uci); return !m ? "" : m.drop ? uci : `${m.from}-${m.to}${m.promo ? `=${m.promo.toUpperCase()}` : ""}`; };

  // ---- legal moves (asked of the server once per position of each of our turns)

  /** The position `seat` moves in: changes with every move on its board and every pocket change. */
  const positionKey = (seat) => `${page.table.game_number}:${page.table.state[boardOf(seat)].fen}`;

  /** Asks for the legal moves of each seat of ours that is to move, unless known or asked lately. */
  function askLegalMoves() {
    if (!playing()) return;
    for (const seat of page.mySeats) {
      if (!page.table.to_move.includes(seat)) continue;
      const key = positionKey(seat);
      if ((legal[seat] && legal[seat].key === key) || (asked[seat] && asked[seat].key === key && Date.now() - asked[seat].at < 1500)) continue;
      // The answer echoes the key as `ref`; a request lost with its connection is asked again.
      if (send({ type: "legal_moves", seat, ref: key }, true)) asked[seat] = { key, at: Date.now() };
    }
  }

  /** The server's answer to `legal_moves` (table.js passes it on). */
  function legalMoves(msg) {
    if (typeof msg.ref !== "string" || !Array.isArray(msg.moves)) return;
    legal[msg.seat] = { key: msg.ref, moves: msg.moves.map((m) => m.uci) };
    if (asked[msg.seat] && asked[msg.seat].key === msg.ref) delete asked[msg.seat];
    update();
  }

  /** The legal moves of the selection `s` now (UCI), or null when unknown (not our turn, not yet answered). */
  function movesOf(s) {
    if (!s || !playing() || !page.table.to_move.includes(s.seat)) return null;
    const known = legal[s.seat];
    if (!known || known.key !== positionKey(s.seat)) return null;
    return known.moves.filter((uci) => (s.drop ? uci.startsWith(`${s.drop}@`) : uci.startsWith(s.from)));
  }

  /** The squares the selection may go to now, or null when unknown. */
  function targetsOf(s) {
    const moves = movesOf(s);
    return moves && new Set(moves.map((uci) => parseUci(uci).to));
  }

  /** A piece glyph; `letter` is a FEN letter (upper case white). */
  function glyph(letter, extra) {
    return el("span", `cp ${pieceColour(letter)}${extra ? ` ${extra}` : ""}`, `${GLYPH[letter.toLowerCase()]}\uFE0E`);
  }

  /**
   * Where the viewer sits: a player sees their own board from their side and the other board
   * from their partner's side (the opposite colour at the bottom), their own board first.
   * Spectators see A from white and B from black. "Flip board" (flip.js) turns both round.
   */
  function viewpoint() {
    const me = page.mySeats.length ? roleOf(page.mySeats[0]) : "";
    const seated = me === "A-black" || me === "B-white" ? "black" : "white";
    const aBottom = flipped() ? other(seated) : seated;
    const first = me.startsWith("B") ? "B" : "A";
    return { bottom: { A: aBottom, B: other(aBottom) }, first, own: me ? me.charAt(0) : "" };
  }

  /** An 8 × 8 board of square buttons seen from `bottom`'s side, coordinates around it. */
  function buildChessBoard(board, bottom) {
    const grid = el("div", "chessboard");
    grid.setAttribute("role", "group");
    grid.setAttribute("aria-label", t(`bughouse.board_label.${bottom}`, { board }));
    const files = bottom === "white" ? [0, 1, 2, 3, 4, 5, 6, 7] : [7, 6, 5, 4, 3, 2, 1, 0];
    const ranks = bottom === "white" ? [8, 7, 6, 5, 4, 3, 2, 1] : [1, 2, 3, 4, 5, 6, 7, 8];
    const label = (text) => grid.appendChild(el("div", "coord", text)).setAttribute("aria-hidden", "true");
    const fileRow = () => { label(""); for (const f of files) label(letter(f)); label(""); };
    const squares = {};
    const rows = []; // the squares as seen, top row first (the grid is drawn from the viewpoint)
    fileRow();
    for (const r of ranks) {
      label(r);
      rows.push([]);
      for (const f of files) {
        const name = letter(f) + r;
        const sq = el("button", "sq");
        sq.type = "button";
        sq.dataset.sq = name;
        if ((f + r) % 2 === 1) sq.classList.add("dark"); // a1 is dark
        squares[name] = sq;
        rows[rows.length - 1].push(sq);
        grid.append(sq);
      }
      label(r);
    }
    fileRow();
    onPick(grid, ".sq", "sq", (sq, _element, event) => click(board, sq, event));
    // The keyboard: one tab stop, arrows as seen (the grid is already drawn from the
    // viewpoint, so never "flipped"), Enter or Space as a click; Escape drops the selection.
    grids[board] = keyboardGrid(grid, { cells: () => rows, flipped: () => false, onActivate: (sq) => click(board, sq) });
    grid.addEventListener("focusin", (event) => {
      const sq = event.target.closest(".sq");
      if (sq) lastFocus[board] = sq.dataset.sq;
    });
    grid.addEventListener("keydown", (event) => {
      if (event.key !== "Escape" || !(sel || promo) || (drag && drag.started)) return;
      sel = promo = null;
      announce(t("bughouse.announce.cleared"));
      update();
    });
    return { grid, squares };
  }

  /** Moves the keyboard focus to board `b`: the square last visited there, else `fallback`. */
  function focusBoard(b, fallback) {
    if (grids[b]) grids[b].focus(lastFocus[b] || fallback || "e4");
  }

  function buildBoards() {
    const view = viewpoint();
    layout = JSON.stringify(view);
    area.replaceChildren();
    grids = {};
    ui.quick = ui.you = null;
    const row = el("div", "bh-boards");
    for (const b of [view.first, otherBoard(view.first)]) {
      const col = el("div", "bh-col");
      col.classList.toggle("own", view.own === b);
      // The partner's board: on narrow screens drawn small, above the player's own (CSS).
      col.classList.toggle("partner", Boolean(view.own) && view.own !== b);
      col.dataset.board = b;
      const title = el("div", "bh-title");
      const top = el("div", "bh-strip");
      const bottom = el("div", "bh-strip");
      const { grid, squares } = buildChessBoard(b, view.bottom[b]);
      grid.id = `board-${b}`;
      col.append(title, top, grid, bottom);
      if (view.own === b) {
        // Under our own board: the quick signals, and whom we play with (on phones for screen
        // readers only: the strips show it).
        ui.you = el("p", "bh-you");
        col.append(buildQuick(), ui.you);
      }
      row.append(col);
      parts[b] = { title, top, bottom, squares, bottomColour: view.bottom[b] };
    }
    row.addEventListener("pointerdown", press);
    // The click the browser sends after a drag belongs to the drag, not to a pick.
    row.addEventListener("click", (event) => {
      if (!swallowClick) return;
      swallowClick = false;
      event.stopPropagation();
      event.preventDefault();
    }, true);
    row.addEventListener("dragstart", (event) => event.preventDefault()); // no native drag of glyphs
    area.append(row);
  }

  /**
   * The quick team-chat signals under the player's own board (the team chat's box itself is
   * far down the page on a phone): "need" a piece, shown as its glyph, and the usual words,
   * sent as the team chat's own buttons send them. Below them, the team's latest line.
   */
  function buildQuick() {
    const box = el("div", "bh-quick");
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", t("bughouse.quick.label"));
    box.hidden = true;
    const row = el("div", "bh-quick-row");
    row.append(el("span", "bh-quick-need", t("bughouse.quick.need")));
    for (const [signal, wire] of Object.entries(SIGNALS)) {
      const text = t(`chat.signal.${signal}`);
      const b = button("", t("chat.signal_label", { signal: text }), () => teamSay(wire), "secondary");
      b.dataset.signal = signal;
      if (signal.startsWith("need_")) {
        b.classList.add("need");
        b.append(glyph(signal.slice(5)));
      } else {
        b.textContent = text;
      }
      row.append(b);
    }
    const last = el("p", "bh-quick-last");
    box.append(row, last);
    ui.quick = { box, last };
    return box;
  }

  /** Sends a team-chat line for our seat (the first, when we hold more than one). */
  function teamSay(text) {
    const seat = page.mySeats[0];
    send({ type: "team_chat", text, ...(page.mySeats.length > 1 ? { seat } : {}) });
  }

  /** The team's latest line (as the team chat box shows it), under the quick buttons. */
  function showLastTeamLine() {
    if (!ui.quick) return;
    const log = document.getElementById("team-log");
    const line = log && log.lastElementChild;
    ui.quick.last.textContent = line ? line.textContent : "";
    ui.quick.last.hidden = !line;
  }

  function build(boardArea, panel) {
    area = boardArea;
    layout = "";
    sel = promo = null;
    legal = {};
    asked = {};
    buildBoards();
    ui.panel = panel;
    ui.help = el("p", "muted");
    ui.promo = el("div", "promo");
    ui.promo.setAttribute("role", "group");
    ui.promo.hidden = true;
    // Escape in the promotion choice cancels it, back to the board.
    ui.promo.addEventListener("keydown", (event) => {
      if (event.key !== "Escape" || !promo) return;
      const { board, uci } = promo;
      promo = null;
      update();
      focusBoard(board, uci.slice(2, 4));
    });
    panel.append(ui.promo, ui.help);
    // The team chat box (table.js) is far down on a phone: its latest line is shown under
    // the quick buttons too. Its placeholder is the catalogue's (CSS shows `data-empty`).
    const log = document.getElementById("team-log");
    if (log) {
      log.dataset.empty = t("bughouse.team_chat.empty");
      if (!teamObserver) {
        teamObserver = new MutationObserver(showLastTeamLine);
        teamObserver.observe(log, { childList: true });
      }
    }
  }
  let teamObserver = null;

  // ---- actions

  /** A move or drop for `seat`: played at once on its turn, otherwise queued as a premove. */
  function submit(seat, uci) {
    sel = promo = null;
    justSubmitted = true;
    if (!playing() || !isMine(seat)) return;
    const move = { uci };
    if (page.table.to_move.includes(seat)) play(seat, move);
    else if (page.premove && page.premove.seat === seat && page.premove.move.uci === uci) send({ type: "cancel_premove", seat });
    else send({ type: "premove", seat, move });
    update();
  }

  function click(board, sq, event) {
    if (!playing() || page.mySeats.length === 0) return;
    const before = sel;
    justSubmitted = false;
    pick(board, sq);
    // Said to screen readers (the focused square's label changes, which is not read again).
    if (sel && sel !== before && sel.from) announce(t("bughouse.announce.selected", { piece: colouredPiece(pieceAt(board, sel.from)), square: sel.from }));
    else if (!sel && before && !promo && !justSubmitted) announce(t("bughouse.announce.cleared"));
    if (promo) {
      announce(t("bughouse.announce.promote", { move: uciText(promo.uci) }));
      // From the keyboard, straight on to the choice (a queen first).
      if (!event || event.detail === 0) {
        const first = ui.promo.querySelector("button");
        if (first) first.focus();
      }
    }
  }
  let justSubmitted = false; // the last pick sent a move (nothing to say: the move is announced)

  function pick(board, sq) {
    promo = null;
    const piece = pieceAt(board, sq);
    const colour = pieceColour(piece);
    const ownPiece = colour !== null && isMine(seatOf(board, colour));
    const select = () => { sel = { board, seat: seatOf(board, colour), colour, from: sq }; };
    // On our turn the server's list says where the selection may go: another square only
    // deselects. Out of turn (a premove) or before the list arrives, the server judges.
    const targets = targetsOf(sel);
    if (sel && sel.board === board && sel.drop) {
      // A pocket piece is chosen: an empty square drops it; one of ours selects that piece instead.
      if (piece === "." && (!targets || targets.has(sq))) return submit(sel.seat, `${sel.drop}@${sq}`);
      if (ownPiece) select();
      else sel = null;
    } else if (sel && sel.board === board) {
      if (sq === sel.from) sel = null;             // click again: deselect
      // Bughouse 960 castles king takes rook: the king onto its own rook is the castling.
      else if (colour === sel.colour && targets && targets.has(sq)) return submit(sel.seat, sel.from + sq);
      else if (colour === sel.colour) select();    // another of ours: select that one instead
      else if (targets && !targets.has(sq)) sel = null;
      else {
        // Any other square: send it (the server explains an illegal move); a pawn reaching
        // the last rank first asks for its piece.
        const uci = sel.from + sq;
        if (pieceAt(board, sel.from).toLowerCase() === "p" && sq[1] === (sel.colour === "white" ? "8" : "1")) {
          promo = { board, seat: sel.seat, uci };
          sel = null;
          return update();
        }
        return submit(sel.seat, uci);
      }
    } else if (ownPiece) {
      select();
    } else {
      sel = null;
      // A click on a square of our premove cancels it.
      const m = page.premove && boardOf(page.premove.seat) === board ? parseUci(page.premove.move.uci) : null;
      if (m && (m.from === sq || m.to === sq)) send({ type: "cancel_premove", seat: page.premove.seat });
    }
    update();
  }

  function pickDrop(board, seat, colour, letterUpper, event) {
    if (!playing() || !isMine(seat)) return;
    promo = null;
    sel = sel && sel.board === board && sel.drop === letterUpper ? null : { board, seat, colour, drop: letterUpper };
    update();
    if (!sel) return announce(t("bughouse.announce.cleared"));
    announce(t("bughouse.announce.drop", { piece: pieceName(letterUpper), board }));
    // Chosen from the keyboard (a click without a pointer): on to the board to choose its square.
    if (event && event.detail === 0) {
      const targets = targetsOf(sel);
      focusBoard(board, targets && targets.size ? [...targets][0] : "e4");
    }
  }

  // ---- dragging: a piece, or a pocket piece, follows the pointer (mouse, finger or pen)

  const DRAG_START = 6;    // CSS pixels the pointer moves, pressed, before a press becomes a drag
  let swallowClick = false;

  /**
   * What a press on `target` picks up: one of our pieces on its square, or one of our pocket
   * pieces, as a selection with its element; null for anything else.
   */
  function grabbed(target) {
    if (!playing()) return null;
    const sq = target.closest(".chessboard .sq");
    if (sq) {
      const board = sq.closest(".bh-col").dataset.board;
      const piece = pieceAt(board, sq.dataset.sq);
      const colour = pieceColour(piece);
      const seat = colour ? seatOf(board, colour) : -1;
      return colour && isMine(seat) ? { board, seat, colour, from: sq.dataset.sq, piece } : null;
    }
    const pk = target.closest(".pk.usable");
    if (!pk) return null;
    const { board, colour, piece } = pk.dataset;
    const seat = seatOf(board, colour);
    return isMine(seat) ? { board, seat, colour, drop: piece, piece: colour === "white" ? piece : piece.toLowerCase() } : null;
  }

  /** A press on a piece of ours: a drag if the pointer moves far enough, otherwise a click. */
  function press(event) {
    if (drag || !event.isPrimary || (event.pointerType === "mouse" && event.button !== 0)) return;
    const grab = grabbed(event.target);
    if (!grab) return;
    if (event.pointerType === "mouse") event.preventDefault(); // no text selection while dragging
    drag = { ...grab, id: event.pointerId, x: event.clientX, y: event.clientY, started: false, ghost: null, over: null };
    // A finger's pointer is captured by what it touched: release it, so the square under
    // the finger can be found.
    if (event.target.hasPointerCapture && event.target.hasPointerCapture(event.pointerId)) event.target.releasePointerCapture(event.pointerId);
    window.addEventListener("pointermove", dragMove, { passive: false });
    window.addEventListener("pointerup", dragEnd);
    window.addEventListener("pointercancel", dragCancel);
    window.addEventListener("keydown", dragEscape);
  }

  /** The square of the dragged piece's board under the point, or null. */
  function squareAt(x, y) {
    const hit = document.elementFromPoint(x, y);
    const sq = hit && hit.closest(".sq");
    return sq && sq.closest(`#board-${drag.board}`) ? sq : null;
  }

  function dragMove(event) {
    if (!drag || event.pointerId !== drag.id) return;
    if (!drag.started) {
      if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < DRAG_START) return;
      // The drag begins: the piece is selected (its legal targets show) and a copy follows.
      drag.started = true;
      promo = null;
      sel = drag.drop ? { board: drag.board, seat: drag.seat, colour: drag.colour, drop: drag.drop }
        : { board: drag.board, seat: drag.seat, colour: drag.colour, from: drag.from };
      drag.ghost = el("div", "bh-ghost");
      drag.ghost.setAttribute("aria-hidden", "true");
      drag.ghost.style.setProperty("--cell", `${parts[drag.board].squares.a1.getBoundingClientRect().width}px`);
      drag.ghost.append(glyph(drag.piece));
      document.body.append(drag.ghost);
      document.body.classList.add("bh-dragging");
      update();
    }
    event.preventDefault();
    drag.ghost.style.setProperty("left", `${event.clientX}px`);
    drag.ghost.style.setProperty("top", `${event.clientY}px`);
    const over = squareAt(event.clientX, event.clientY);
    if (over !== drag.over) {
      if (drag.over) drag.over.classList.remove("bh-drag-over");
      if (over) over.classList.add("bh-drag-over");
      drag.over = over;
    }
  }

  /** Ends the press or drag (listeners, copy, marks) and returns it. */
  function endDrag() {
    const ended = drag;
    drag = null;
    window.removeEventListener("pointermove", dragMove);
    window.removeEventListener("pointerup", dragEnd);
    window.removeEventListener("pointercancel", dragCancel);
    window.removeEventListener("keydown", dragEscape);
    if (ended && ended.started) {
      ended.ghost.remove();
      if (ended.over) ended.over.classList.remove("bh-drag-over");
      document.body.classList.remove("bh-dragging");
      swallowClick = true;
      setTimeout(() => { swallowClick = false; }, 0);
    }
    return ended;
  }

  /** Released: over a square of its board the piece goes there (as a click would send it); elsewhere the drag is cancelled. */
  function dragEnd(event) {
    if (!drag || event.pointerId !== drag.id) return;
    const target = drag.started ? squareAt(event.clientX, event.clientY) : null;
    const ended = endDrag();
    if (!ended.started) return; // a press without a drag: the click that follows is a pick
    const sq = target && target.dataset.sq;
    if (!sq || !sel) sel = null;                                       // off the board (or the piece was taken)
    else if (sq === ended.from) { /* back on its square: it stays selected, a click then moves it */ }
    // Onto one of ours: nothing, unless it is Bughouse 960 castling (the king onto its rook).
    else if (pieceColour(pieceAt(ended.board, sq)) === ended.colour && !targetsOf(sel)?.has(sq)) sel = null;
    else return click(ended.board, sq, { detail: 1 });
    update();
  }

  function dragCancel(event) {
    if (!drag || event.pointerId !== drag.id) return;
    if (endDrag().started) sel = null;
    update();
  }

  function dragEscape(event) {
    if (event.key !== "Escape" || !drag || !drag.started) return;
    endDrag();
    sel = null;
    update();
  }

  // ---- drawing

  function renderTitle(b) {
    const st = page.table.state[b];
    const view = viewpoint();
    const node = parts[b].title;
    node.replaceChildren(el("span", "", t("bughouse.board", { board: b })));
    const note = view.own === b ? t("bughouse.your_board") : view.own ? t("bughouse.partner_board") : "";
    // Bughouse 960: the number of the start both boards share.
    const number = page.table.state.chess960;
    const start = number === undefined || number === null ? "" : t("bughouse.position960", { number });
    node.append(el("small", "", [note, start, t("bughouse.moves", { count: st.move_count })].filter(Boolean).join(" · ")));
  }

  function renderStrip(node, b, colour) {
    const st = page.table.state[b];
    const seat = seatOf(b, colour);
    const info = page.table.seats[seat] || {};
    const toMove = playing() && page.table.to_move.includes(seat);
    node.className = `bh-strip${toMove ? " to-move" : ""}${isMine(seat) ? " you" : ""}`;
    // One line that never wraps (the name and the away label give way, the clock never), so
    // that a player going away does not make the strip taller and the board jump.
    const line = el("div", "bh-line");
    node.replaceChildren(line);
    line.append(roleBadge(`${b}-${colour}`));
    line.append(el("span", info.player ? "name" : "name muted", info.player ? playerName(seat) : t("bughouse.free_seat")));
    if (isMine(seat)) line.append(el("span", "badge", t("bughouse.you")));
    line.append(el("span", `team-tag t${teamOf(seat)}`, t("bughouse.team_tag", { team: teamOf(seat) })));
    if (info.player && !info.player.connected) {
      const presence = el("span", "presence off compact", t("bughouse.away"));
      if (awayCounting(seat)) presence.dataset.away = seat; // counted down by tick(), as "away 0:42"
      line.append(presence);
    }
    if (playing() && st.waiting && st.turn === colour) line.append(el("span", "bh-wait", t("bughouse.waiting_no_move")));
    if (timed()) {
      const clock = el("span", "clock", "");
      clock.dataset.seat = seat;
      clock.setAttribute("aria-label", t("bughouse.clock_of", { role: roleName(`${b}-${colour}`) }));
      line.append(clock);
    }
    // The pocket: one button per kind of piece, with its count; ours are clickable.
    const pocket = el("div", "pocket");
    pocket.setAttribute("role", "group");
    pocket.setAttribute("aria-label", t("bughouse.pocket.of", { role: roleName(`${b}-${colour}`) }));
    const held = st.pockets[colour] || "";
    const usable = playing() && isMine(seat);
    for (const kind of ["q", "r", "b", "n", "p"]) {
      const fen = colour === "white" ? kind.toUpperCase() : kind;
      const count = [...held].filter((ch) => ch === fen).length;
      if (count === 0) continue;
      const pk = el("button", `pk${usable ? " usable bh-grab" : ""}`);
      pk.type = "button";
      pk.dataset.piece = kind.toUpperCase();
      pk.dataset.board = b;
      pk.dataset.colour = colour;
      pk.append(glyph(fen), el("span", "n", `×${count}`));
      pk.disabled = !usable;
      pk.setAttribute("aria-pressed", String(Boolean(sel && sel.board === b && sel.drop === kind.toUpperCase())));
      const pieces = t(`bughouse.pocket.count.${kind}`, { count });
      pk.setAttribute("aria-label", usable ? t("bughouse.pocket.usable", { pieces }) : pieces);
      pk.addEventListener("click", (event) => pickDrop(b, seat, colour, kind.toUpperCase(), event));
      pocket.append(pk);
    }
    if (!pocket.children.length) pocket.append(el("span", "pocket-empty", t("bughouse.pocket.empty")));
    node.append(pocket);
  }

  function renderBoard(b) {
    const st = page.table.state[b];
    const last = parseUci(st.last_move) || {};
    const pm = page.premove && playing() && boardOf(page.premove.seat) === b ? parseUci(page.premove.move.uci) || {} : {};
    const king = st.check ? (st.turn === "white" ? "K" : "k") : null;
    const chosen = sel && sel.board === b ? sel : {};
    const targets = (sel && sel.board === b && targetsOf(sel)) || new Set();
    const grabbable = playing() && page.mySeats.some((s) => boardOf(s) === b);
    for (const [name, sq] of Object.entries(parts[b].squares)) {
      const piece = pieceAt(b, name);
      sq.replaceChildren();
      if (piece !== ".") sq.append(glyph(piece));
      // Our premove, faintly: the dropped piece, or the moving piece on its empty target.
      else if (pm.drop && pm.to === name) sq.append(glyph(roleOf(page.premove.seat).endsWith("white") ? pm.drop : pm.drop.toLowerCase(), "ghost"));
      else if (pm.from && pm.to === name && pieceAt(b, pm.from) !== ".") sq.append(glyph(pieceAt(b, pm.from), "ghost"));
      const inCheck = piece === king;
      sq.classList.toggle("occupied", piece !== ".");
      sq.classList.toggle("last-from", name === last.from);
      sq.classList.toggle("last-to", name === last.to);
      sq.classList.toggle("selected", name === chosen.from);
      sq.classList.toggle("check", inCheck);
      sq.classList.toggle("pm-from", name === pm.from);
      sq.classList.toggle("pm-to", name === pm.to);
      sq.classList.toggle("hint", targets.has(name));
      sq.classList.toggle("bh-grab", grabbable && piece !== "." && isMine(seatOf(b, pieceColour(piece))));
      sq.classList.toggle("bh-drag-from", Boolean(drag && drag.started && drag.board === b && drag.from === name));
      // "e4, white knight, selected" in the page's language.
      const label = [piece === "." ? t("bughouse.sq.empty", { square: name }) : t("bughouse.sq.piece", { square: name, piece: colouredPiece(piece) })];
      if (name === chosen.from) label.push(t("bughouse.sq.selected"));
      if (targets.has(name)) label.push(t("bughouse.sq.target"));
      if (name === last.from) label.push(t("bughouse.sq.last_from"));
      if (name === last.to) label.push(t("bughouse.sq.last_to"));
      if (inCheck) label.push(t("bughouse.sq.check"));
      if (name === pm.from || name === pm.to) label.push(t("bughouse.sq.premove"));
      sq.setAttribute("aria-label", label.join(", "));
    }
  }

  function renderPanel() {
    // The promotion choice, rebuilt on every update (a move on the other board, say):
    // the button that had the focus gets it back, so the keyboard does not lose its place.
    const focused = ui.promo.contains(document.activeElement) ? document.activeElement.dataset.promo || "cancel" : null;
    ui.promo.replaceChildren();
    ui.promo.hidden = !(promo && playing());
    if (!ui.promo.hidden) {
      const white = roleOf(promo.seat).endsWith("white");
      const prompt = el("span", "", t("bughouse.promo.prompt", { move: uciText(promo.uci) }));
      prompt.id = "bh-promo-prompt";
      ui.promo.setAttribute("aria-labelledby", prompt.id);
      ui.promo.append(prompt);
      for (const kind of ["q", "r", "b", "n"]) {
        const { board, uci } = promo;
        const b = button("", t(`bughouse.promo.to.${kind}`), () => {
          submit(promo.seat, promo.uci + kind);
          focusBoard(board, uci.slice(2, 4)); // the keyboard goes back to the board
        });
        b.dataset.promo = kind;
        b.append(glyph(white ? kind.toUpperCase() : kind), ` ${pieceName(kind)}`);
        ui.promo.append(b);
      }
      const cancel = button(t("bughouse.promo.cancel"), t("bughouse.promo.cancel_label"), () => {
        const { board, uci } = promo;
        promo = null;
        update();
        focusBoard(board, uci.slice(2, 4));
      }, "secondary");
      cancel.dataset.promo = "cancel";
      ui.promo.append(cancel);
      const again = focused && ui.promo.querySelector(`[data-promo="${focused}"]`);
      if (again) again.focus();
    }
    // What a click does now.
    let help = "";
    if (playing() && page.mySeats.length) {
      const mine = myTurnSeat() !== undefined;
      const none = mine && sel && targetsOf(sel) && targetsOf(sel).size === 0 ? ` ${t("bughouse.help.no_move")}` : "";
      if (sel && sel.drop) help = t(mine ? "bughouse.help.drop" : "bughouse.help.drop_premove", { piece: pieceName(sel.drop), board: sel.board }) + none;
      else if (sel) help = t(mine ? "bughouse.help.selected" : "bughouse.help.selected_premove", { square: sel.from }) + none;
      else help = t(mine ? "bughouse.help.your_move" : "bughouse.help.not_your_turn");
    }
    ui.help.textContent = help;
    ui.help.hidden = !help;
    ui.panel.hidden = ui.help.hidden && ui.promo.hidden;
  }

  function update() {
    // A focused pocket button is redrawn below: its focus is given to its successor.
    const focused = document.activeElement && document.activeElement.closest && document.activeElement.closest(".pk");
    const refocus = focused && area.contains(focused) ? `.pk[data-board="${focused.dataset.board}"][data-colour="${focused.dataset.colour}"][data-piece="${focused.dataset.piece}"]` : null;
    if (JSON.stringify(viewpoint()) !== layout) {
      if (drag) endDrag();
      buildBoards();
    }
    if (!playing()) {
      sel = promo = null;
      if (drag) endDrag();
    }
    // A selection that no longer fits (the piece was taken, the pocket emptied) is dropped.
    if (sel && sel.from && pieceColour(pieceAt(sel.board, sel.from)) !== sel.colour) sel = null;
    if (sel && sel.drop) {
      const fen = sel.colour === "white" ? sel.drop : sel.drop.toLowerCase();
      if (!(page.table.state[sel.board].pockets[sel.colour] || "").includes(fen)) sel = null;
    }
    for (const b of BOARDS) {
      const p = parts[b];
      renderTitle(b);
      renderStrip(p.top, b, other(p.bottomColour));
      renderStrip(p.bottom, b, p.bottomColour);
      renderBoard(b);
    }
    renderPanel();
    renderQuick();
    askLegalMoves();
    if (refocus) {
      const again = area.querySelector(refocus);
      if (again) again.focus();
      else focusBoard(focused.dataset.board); // the last of its kind was dropped
    }
  }

  /** The quick signals: for seated players while a game is played. */
  function renderQuick() {
    if (ui.you) ui.you.textContent = page.mySeats.length ? youPlay() : "";
    if (!ui.quick) return;
    ui.quick.box.hidden = !(playing() && page.mySeats.length);
    showLastTeamLine();
  }

  /** Both boards' turns, e.g. "Board A: your move · Board B: Dee (B-black) to move." */
  function statusText() {
    const boards = BOARDS.map((b) => {
      const st = page.table.state[b];
      const seat = page.table.to_move.find((s) => boardOf(s) === b);
      const parts = [seat === undefined ? t("bughouse.status.board_none", { board: b })
        : isMine(seat) ? t("bughouse.status.board_yours", { board: b })
          : t("bughouse.status.board_other", { board: b, name: playerName(seat), role: roleName(roleOf(seat)) })];
      if (st.check) parts.push(t("bughouse.status.check"));
      if (st.waiting) parts.push(t("bughouse.status.waiting"));
      return parts.join(", ");
    });
    const both = t("bughouse.status.boards", { boards: boards.join(" · ") });
    // Who we play and with whom is said above our board (its title), not here: the status line
    // is short enough for a phone, and read out at every change.
    return page.mySeats.length ? both : `${both} ${t("bughouse.status.watching")}`;
  }

  /** "You play A-white (team 1, with Dee as B-black)." */
  function youPlay() {
    const me = page.mySeats[0];
    const partner = partnerOf(me);
    return t("bughouse.status.you_play", { roles: list(page.mySeats.map((s) => roleName(roleOf(s)))), team: teamOf(me),
      partner: playerName(partner), partner_role: roleName(roleOf(partner)) });
  }

  /** The result in words: the reason first, then the winning team. */
  function resultText(result) {
    const d = result.detail || {};
    const named = (seat) => (isMine(seat) ? t("bughouse.named_you", { role: roleName(roleOf(seat)) })
      : t("bughouse.named", { role: roleName(roleOf(seat)), name: playerName(seat) }));
    if (result.outcome === "win") {
      const team = teamOf(result.winners[0]);
      const losing = team === 1 ? 2 : 1;
      let reason;
      switch (result.reason) {
        case "checkmate": reason = t("bughouse.reason.checkmate", { board: d.board, who: named(d.mated) }); break;
        case "time": reason = t("bughouse.reason.time", { who: named(d.seat) }); break;
        case "resignation": reason = t("bughouse.reason.resignation", { team: losing }); break;
        case "abandoned": reason = t("bughouse.reason.abandoned", { who: named(d.seat) }); break;
        default: reason = t("bughouse.reason.other", { reason: reasonText(result.reason).replace(/^./, (c) => c.toUpperCase()) });
      }
      const winners = list(result.winners.map(named));
      return `${reason} ${result.winners.some(isMine) ? t("bughouse.winners.yours", { winners }) : t("bughouse.winners.team", { team, winners })}`;
    }
    if (result.outcome === "draw") {
      switch (result.reason) {
        case "move_limit": return t("bughouse.draw.move_limit", { count: d.moves || page.table.state.move_limit || 800 });
        case "no_player_can_move": return t("bughouse.draw.no_player_can_move");
        case "draw_agreed": return t("bughouse.draw.agreed");
      }
      return t("bughouse.draw.other", { reason: reasonText(result.reason) });
    }
    return null; // aborted: the table's own wording
  }

  const teamLabel = (team, first, second) => t("bughouse.team_group", { team, first: roleName(first), second: roleName(second) });

  return {
    name: t("common.game.bughouse"),
    wide: true,
    settingsText: (s) => [
      s.chess960 ? t("bughouse.settings.chess960") : "",
      s.start_position ? t("bughouse.settings.custom_start") : "",
      s.pawn_drops_on_seventh === false ? t("bughouse.settings.no_seventh") : "",
      s.drop_checks === "no_mate" ? t("bughouse.settings.no_drop_mate") : "",
      s.drop_checks === "never" ? t("bughouse.settings.no_drop_check") : "",
      s.captured_promoted === "piece" ? t("bughouse.settings.promoted_as_piece") : "",
    ].filter(Boolean).join(" · "),
    statusText,
    resultText,
    seatGroups: () => [
      { label: teamLabel(1, "A-white", "B-black"), seats: teamSeats(1) },
      { label: teamLabel(2, "A-black", "B-white"), seats: teamSeats(2) },
    ],
    teamChat() {
      const partner = partnerOf(page.mySeats[0]);
      return t("bughouse.team_chat.partner", { name: playerName(partner), role: roleName(roleOf(partner)) });
    },
    moveText: (move) => (page.premove ? t("bughouse.move_on_board", { board: boardOf(page.premove.seat), move: uciText(move.uci) }) : uciText(move.uci)),
    build,
    update,
    legalMoves,
  };
}
