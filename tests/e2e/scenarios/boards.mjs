// Krux and Bughouse (issue 29): every Krux part and a Bughouse move, drop and promotion with
// the keyboard alone, the squares labelled in the page's language, the Krux danger marks
// (defect 5) and Bughouse on a phone (defect 9). A scenario module of tests/e2e (README.md):
// `s` is the scenario's Session, `h` the harness (harness.mjs).
//
// The boards are one tab stop each (input.js `keyboardGrid`): Tab reaches a board, the arrow
// keys move as the board is seen, Enter or Space is a click on the focused square. Only sitting
// down uses the mouse (and, in Bughouse, the moves of the players who are not under test).

/** A phone: 390 × 844, touch. */
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

/** "e4" → [column 0.., row number 1..]. */
const square = (sq) => [sq.charCodeAt(0) - 97, Number(sq.slice(1))];

/** The focused element's square name (`data-sq`), or null. */
const focusedSquare = (page) => page.evaluate(() => {
  const node = document.activeElement;
  return node && node.dataset && node.dataset.sq ? node.dataset.sq : null;
});

/** Presses Tab until the focused element matches `selector`; returns its description. */
async function tabTo(h, page, selector, what) {
  for (let i = 0; i < 80; i += 1) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((selector) => document.activeElement && document.activeElement.matches(selector), selector)) return;
  }
  throw new Error(`${page.label}: Tab never reached ${what || selector}`);
}

/**
 * Moves the focus with the arrow keys from the focused square to `target`. `fromBlack`: the
 * board is seen from black's side (rank 1 at the top), so "up" on the screen is towards rank 1.
 */
async function arrowTo(h, page, target, fromBlack = false) {
  const [tc, tr] = square(target);
  for (let i = 0; i < 30; i += 1) {
    const at = await focusedSquare(page);
    h.check(at, `${page.label}: the focus is on a board square`);
    if (at === target) return;
    const [c, r] = square(at);
    let key = tc > c ? "ArrowRight" : tc < c ? "ArrowLeft" : tr > r ? "ArrowUp" : "ArrowDown";
    if (fromBlack) key = { ArrowRight: "ArrowLeft", ArrowLeft: "ArrowRight", ArrowUp: "ArrowDown", ArrowDown: "ArrowUp" }[key];
    await page.keyboard.press(key);
  }
  throw new Error(`${page.label}: the arrow keys did not reach ${target} (at ${await focusedSquare(page)})`);
}

/** The screen-reader label of a square. */
const label = (page, selector) => page.getAttribute(selector, "aria-label");

/**
 * Opens table `id` in `lang` and sits down as `name` in the seat of `role`, pressing the seat's
 * button by its label in that language (from the catalogue the page uses).
 */
async function seatIn(h, page, id, name, role, lang = "en") {
  await h.open(page, `/t/${id}?lang=${lang}`);
  const catalogue = await (await fetch(`${h.BASE}/static/i18n/${lang}.json`)).json();
  const roleWord = catalogue[`table.role.${role.toLowerCase().replace("-", "_")}`] ?? role;
  await page.fill("#name", name);
  await page.click(`#seats button[aria-label="${catalogue["table.seat.sit_label"].replace("{role}", roleWord)}"]`);
  await h.until(page, () => document.querySelector("#seats .badge"));
}

// ------------------------------------------------------------------ Krux

/** Waits until piece `number` stands on `sq` of the Krux board on `page`. */
const kruxPiece = (h, page, sq, number) => h.until(page, ([sq, number]) => {
  const disc = document.querySelector(`#krux-board .sq[data-sq="${sq}"] .kpiece`);
  return disc && disc.textContent === number;
}, [sq, number]);

/** Presses a button of the game panel from the keyboard: Tab until it has the focus, Enter. */
async function kruxButton(h, page, name) {
  for (let i = 0; i < 60; i += 1) {
    await page.keyboard.press("Tab");
    const found = await page.evaluate((name) => {
      const node = document.activeElement;
      return Boolean(node && node.tagName === "BUTTON" && node.closest("#game-panel") &&
        (node.textContent.trim() === name || node.getAttribute("aria-label") === name));
    }, name);
    if (found) return page.keyboard.press("Enter");
  }
  throw new Error(`${page.label}: Tab never reached the button ${name}`);
}

/**
 * Krux with the keyboard alone, every kind of part: white's piece 1 chooses the blue ring,
 * steps, pushes, steps, picks up, steps while carrying and sets down (its turn then ends by
 * itself); black's piece 2 chooses the green ring, jumps, pulls and ends its turn; white's
 * piece 3 chooses the pink ring, swaps and ends. The board is one tab stop; squares are
 * labelled ("c1, white 1 with blue ring, in turn"; in Swedish "d4, hålet").
 */
async function keyboardKrux(s, h) {
  const { until, check } = h;
  const id = await h.createTable("krux", { seating: "chosen" });
  const white = await s.player("white");
  const black = await s.player("black-sv");
  await seatIn(h, white, id, "Ann", "white");
  await seatIn(h, black, id, "Bo", "black", "sv");
  await h.myTurn(white);
  check(await label(white, '#krux-board .sq[data-sq="d4"]') === "d4, hole", "the hole is labelled");
  check(await label(black, '#krux-board .sq[data-sq="d4"]') === "d4, hålet", "the hole is labelled in Swedish");
  check(await label(black, '#krux-board .sq[data-sq="e7"]') === "e7, svart 2", `e7 is labelled in Swedish: ${await label(black, '#krux-board .sq[data-sq="e7"]')}`);

  // White: the ring first (Tab to its button, Enter); the focus then goes to the board.
  await tabTo(h, white, '#game-panel button[aria-label="Choose the blue ring (carrier)"]', "the blue ring");
  await white.keyboard.press("Enter");
  await until(black, () => document.querySelector('#krux-board .sq[data-sq="c1"] .kpiece.ring-blue'));
  await until(white, () => document.activeElement && document.activeElement.dataset.sq === "c1");
  const c1 = await label(white, '#krux-board .sq[data-sq="c1"]');
  check(c1 === "c1, white 1 with blue ring, in turn", `c1 is labelled: ${c1}`);
  const stops = await white.$$eval('#krux-board [tabindex="0"]', (cells) => cells.length);
  check(stops === 1, `the Krux board is one tab stop (${stops})`);
  // A step (the default mode): c1 → c2.
  await arrowTo(h, white, "c2");
  await white.keyboard.press("Enter");
  await kruxPiece(h, black, "c2", "1");
  // A push: b2 (own piece 3) to a2.
  await kruxButton(h, white, "Push");
  check(await focusedSquare(white) === "c2", "after choosing a mode the focus is back on the piece in turn");
  await arrowTo(h, white, "b2");
  await white.keyboard.press("Enter");
  await kruxPiece(h, black, "a2", "3");
  // Step c2 → b2, pick up a2 (piece 3), step b2 → b3 carrying it, set it down on c3: the third
  // step and second action end the turn.
  await kruxButton(h, white, "Step");
  await arrowTo(h, white, "b2");
  await white.keyboard.press("Enter");
  await kruxPiece(h, black, "b2", "1");
  await kruxButton(h, white, "Pick up");
  await arrowTo(h, white, "a2");
  await white.keyboard.press("Enter");
  await until(white, () => /Carrying/.test(document.querySelector(".krux-facts").textContent));
  await kruxButton(h, white, "Step"); // while carrying the mode is "Set down": a step needs its button
  await arrowTo(h, white, "b3");
  await white.keyboard.press("Enter");
  await kruxPiece(h, black, "b3", "1");
  await arrowTo(h, white, "c3"); // the mode is "Set down" now (the default while carrying)
  await white.keyboard.press("Enter");
  await kruxPiece(h, black, "c3", "3");
  await h.myTurn(black);
  const last = await black.$eval("#game-panel", (panel) => panel.innerText);
  check(/Förra draget: blå ring, steg till c2, putta b2, steg till b2, ta upp a2, steg till b3, släpp av på c3/.test(last),
    `black reads white's turn in Swedish: ${last}`);

  // Black (in Swedish): the green ring, a jump e7 → e5, a pull of g5 (its own 6) to f5, end.
  await tabTo(h, black, '#game-panel button[aria-label="Välj grön ring (hoppare)"]', "the green ring");
  await black.keyboard.press("Enter");
  await until(black, () => document.activeElement && document.activeElement.dataset.sq === "e7");
  await kruxButton(h, black, "Hoppa");
  await arrowTo(h, black, "e5");
  await black.keyboard.press("Enter");
  await kruxPiece(h, white, "e5", "2");
  await kruxButton(h, black, "Dra");
  await arrowTo(h, black, "g5");
  await black.keyboard.press("Enter");
  await kruxPiece(h, white, "f5", "6");
  await kruxButton(h, black, "Avsluta draget");
  await h.myTurn(white);

  // White's piece 3 (on c3): the pink ring, a swap with piece 1 on b3, end.
  await tabTo(h, white, '#game-panel button[aria-label="Choose the pink ring (swapper)"]', "the pink ring");
  await white.keyboard.press("Enter");
  await until(white, () => document.activeElement && document.activeElement.dataset.sq === "c3");
  await kruxButton(h, white, "Swap");
  await arrowTo(h, white, "b3");
  await white.keyboard.press("Enter");
  await kruxPiece(h, black, "b3", "3");
  await kruxPiece(h, black, "c3", "1");
  await kruxButton(h, white, "End the turn");
  await h.myTurn(black);
  await until(black, () => /Pjäs 4 \(svart\) är i tur/.test(document.getElementById("turn").textContent));
  await s.shot(white, "after-three-turns");
}

/**
 * Defect 5: the danger marks. From `1c1 2d7 3d6 4f6 5a3 6g5 / 1` black's piece 2 could push
 * white's 3 (d6) into the hole on its turn (d6 → d5 → d4): on white's page d6 is ringed and
 * labelled, with a legend naming piece 2; nothing else is marked (the engine's own search says
 * the same). Black's page says piece 1 cannot drop any of its pieces this turn. Switched off,
 * the marks go, and stay off on the next page of that browser; switched on, they are back.
 */
async function kruxDanger(s, h) {
  const { until, check } = h;
  const [white, black] = await h.twoSeated(s, "krux", ["white", "black"], { start_position: "1c1 2d7 3d6 4f6 5a3 6g5 / 1" });
  await h.myTurn(white);
  const marked = (page) => page.$$eval("#krux-board .sq.danger", (sqs) => sqs.map((q) => q.dataset.sq).sort());
  const legend = (page) => page.evaluate(() => { const l = document.querySelector(".krux-danger-legend"); return l && !l.hidden ? l.textContent : ""; });
  await until(white, () => document.querySelector("#krux-board .sq.danger"));
  check(JSON.stringify(await marked(white)) === '["d6"]', `white's d6 (piece 3) is marked, and only it: ${await marked(white)}`);
  const d6 = await label(white, '#krux-board .sq[data-sq="d6"]');
  check(/in danger/.test(d6), `d6's label says it is in danger: ${d6}`);
  check(/piece 2 \(black\) could put into the hole/.test(await legend(white)), `the legend names piece 2: ${await legend(white)}`);
  check((await marked(black)).length === 0 && /Piece 1 \(white\) cannot put any of your pieces into the hole this turn/.test(await legend(black)),
    `black's pieces are safe this turn: ${await marked(black)} ${await legend(black)}`);
  await s.shot(white, "danger-marked");
  // Switched off (with the keyboard): the marks and the legend go, and stay off after a reload.
  await tabTo(h, white, ".krux-danger-toggle input", "the danger switch");
  await white.keyboard.press("Space");
  await until(white, () => !document.querySelector("#krux-board .sq.danger") && document.querySelector(".krux-danger-legend").hidden);
  // The choice is remembered: the table opened again in this browser (a second tab, so that
  // no request of the first is cut off by a reload) shows no marks; switched on there, they are back.
  const again = await white.context().newPage();
  await again.goto(white.url());
  await until(again, () => document.getElementById("conn").hidden && document.querySelector("#krux-board .kpiece") &&
    document.getElementById("turn").classList.contains("mine"));
  check(!(await again.isChecked(".krux-danger-toggle input")) && (await marked(again)).length === 0, "the marks stay off in the next page");
  await again.click(".krux-danger-toggle input");
  await until(again, () => document.querySelector('#krux-board .sq.danger[data-sq="d6"]'));
}

// ------------------------------------------------------------------ Bughouse

/** Waits until a piece of `colour` stands on `sq` of board `board` on `page`. */
const bhPiece = (h, page, board, sq, colour) => h.until(page, ([board, sq, colour]) =>
  document.querySelector(`#board-${board} .sq[data-sq="${sq}"] .cp.${colour}`), [board, sq, colour]);

/** Four players in their seats of a new Bughouse table; returns their pages. */
async function fourSeated(s, h, settings = {}, langs = {}) {
  const id = await h.createTable("bughouse", { seating: "chosen", time_control: { kind: "sudden_death", base_seconds: 300 }, ...settings });
  const pages = {};
  for (const [name, role] of [["Ann", "A-white"], ["Bo", "A-black"], ["Cy", "B-white"], ["Dee", "B-black"]]) {
    pages[role] = await s.player(`${name.toLowerCase()}-${role}${langs[role] ? `-${langs[role]}` : ""}`);
    await seatIn(h, pages[role], id, name, role, langs[role]);
  }
  await h.until(pages["A-white"], () => /Board A: your move/.test(document.getElementById("turn").textContent));
  return pages;
}

/**
 * Bughouse with the keyboard: A-white plays e2–e4 and, after d7–d5, takes on d5 (Tab to the
 * board, arrows, Enter on the piece and on its square); the pawn goes to B-black's pocket.
 * There, after B-white's e4, B-black (in Norwegian) chooses the pawn with Tab and Enter, the
 * focus goes to board B, and the arrows and Enter drop it on d5. Squares are labelled
 * ("e2, white pawn", nb "e4, hvit bonde").
 */
async function keyboardBughouse(s, h) {
  const { until, check } = h;
  const p = await fourSeated(s, h, {}, { "B-black": "nb" });
  const [ann, bo, cy, dee] = [p["A-white"], p["A-black"], p["B-white"], p["B-black"]];
  const click = async (page, board, from, to) => {
    await page.click(`#board-${board} .sq[data-sq="${from}"]`);
    await page.click(`#board-${board} .sq[data-sq="${to}"]`);
  };
  // Ann: Tab to her board (A, one tab stop), e2, Enter, e4, Enter.
  await tabTo(h, ann, "#board-A .sq", "board A");
  const stops = await ann.$$eval('#board-A [tabindex="0"]', (cells) => cells.length);
  check(stops === 1, `board A is one tab stop (${stops})`);
  await arrowTo(h, ann, "e2");
  check(await label(ann, '#board-A .sq[data-sq="e2"]') === "e2, white pawn", `e2 is labelled: ${await label(ann, '#board-A .sq[data-sq="e2"]')}`);
  await ann.keyboard.press("Enter");
  await until(ann, () => /selected/.test(document.querySelector('#board-A .sq[data-sq="e2"]').getAttribute("aria-label")));
  await arrowTo(h, ann, "e4");
  await ann.keyboard.press("Enter");
  await bhPiece(h, bo, "A", "e4", "white");
  await click(bo, "A", "d7", "d5");
  await bhPiece(h, ann, "A", "d5", "black");
  // exd5 from the keyboard: Escape first drops a selection made by mistake.
  await arrowTo(h, ann, "e4");
  await ann.keyboard.press("Enter");
  await until(ann, () => document.querySelector('#board-A .sq[data-sq="e4"]').classList.contains("selected"));
  await ann.keyboard.press("Escape");
  await until(ann, () => !document.querySelector("#board-A .sq.selected"));
  await ann.keyboard.press("Enter");
  await until(ann, () => document.querySelector('#board-A .sq.hint[data-sq="d5"]')); // the server's legal moves
  await arrowTo(h, ann, "d5");
  await ann.keyboard.press("Enter");
  await bhPiece(h, dee, "A", "d5", "white");
  // Board B: Cy e2–e4 (mouse); Dee, in Norwegian, drops the pawn on d5 from the keyboard.
  const pawn = '#board-B ~ .bh-strip .pk[data-piece="P"]';
  await until(dee, (pawn) => { const pk = document.querySelector(pawn); return pk && !pk.disabled; }, pawn);
  await click(cy, "B", "e2", "e4");
  await bhPiece(h, dee, "B", "e4", "white");
  await until(dee, () => /Brett B: ditt trekk/.test(document.getElementById("turn").textContent));
  check(await label(dee, '#board-B .sq[data-sq="e4"]') === "e4, hvit bonde, siste trekk hit", `e4 is labelled in Norwegian: ${await label(dee, '#board-B .sq[data-sq="e4"]')}`);
  await tabTo(h, dee, pawn, "the pocket pawn");
  const pawnLabel = await dee.evaluate(() => document.activeElement.getAttribute("aria-label"));
  check(/^1 bonde på hånden/.test(pawnLabel), `the pocket pawn is labelled: ${pawnLabel}`);
  await dee.keyboard.press("Enter");
  await until(dee, () => document.activeElement && document.activeElement.closest("#board-B") && document.activeElement.dataset.sq);
  await until(dee, (pawn) => document.querySelector(pawn).getAttribute("aria-pressed") === "true", pawn);
  await until(dee, () => document.querySelectorAll("#board-B .sq.hint").length === 32);
  await arrowTo(h, dee, "d5", true);
  await dee.keyboard.press("Enter");
  for (const page of [ann, bo, cy, dee]) await bhPiece(h, page, "B", "d5", "black");
  await until(dee, (pawn) => !document.querySelector(pawn), pawn);
  await until(cy, () => /Board B: your move/.test(document.getElementById("turn").textContent));
  await s.shot(dee, "after-the-drop");
}

/**
 * Promotion from the keyboard: from a set-up position (white pawn on a7) A-white selects a7,
 * Enter on a8 opens the choice with the focus on the queen, which stays there while a move
 * on board B redraws the page; Escape cancels it (the focus back on a8); again, then Tab to
 * the knight, Enter: a8=N, and the focus is back on the board.
 */
async function keyboardPromotion(s, h) {
  const { until, check } = h;
  const p = await fourSeated(s, h, { start_position: { A: "4k3/P7/8/8/8/8/8/4K3[] w - - 0 1", B: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1" } });
  const ann = p["A-white"];
  await tabTo(h, ann, "#board-A .sq", "board A");
  await arrowTo(h, ann, "a7");
  await ann.keyboard.press("Enter");
  await arrowTo(h, ann, "a8");
  await ann.keyboard.press("Enter");
  await until(ann, () => document.activeElement && document.activeElement.dataset.promo === "q");
  // A move on the other board redraws Ann's page while she chooses: the focus stays on the
  // choice (it used to fall to the page, so the keyboard lost its place).
  const cy = p["B-white"];
  await cy.click('#board-B .sq[data-sq="e2"]');
  await cy.click('#board-B .sq[data-sq="e4"]');
  await until(ann, () => document.querySelector('#board-B .sq[data-sq="e4"] .cp.white'));
  check(await ann.evaluate(() => document.activeElement && document.activeElement.dataset.promo) === "q",
    "the promotion choice keeps the focus when the other board moves");
  // Escape cancels the choice, back on the board; then again, for a knight.
  await ann.keyboard.press("Escape");
  await until(ann, () => document.querySelector(".promo").hidden && document.activeElement && document.activeElement.dataset.sq === "a8");
  await arrowTo(h, ann, "a7");
  await ann.keyboard.press("Enter");
  await arrowTo(h, ann, "a8");
  await ann.keyboard.press("Enter");
  await until(ann, () => document.activeElement && document.activeElement.dataset.promo === "q");
  await ann.keyboard.press("Tab");
  await ann.keyboard.press("Tab");
  await ann.keyboard.press("Tab");
  check(await ann.evaluate(() => document.activeElement.dataset.promo) === "n", "Tab reaches the knight");
  await ann.keyboard.press("Enter");
  for (const page of [ann, p["A-black"]]) {
    await until(page, () => { const cp = document.querySelector('#board-A .sq[data-sq="a8"] .cp.white'); return cp && cp.textContent.startsWith("♞"); });
  }
  check(await focusedSquare(ann) === "a8", "after the choice the focus is back on the board");
}

/**
 * Defect 9: Bughouse on a phone against the computer (you A-white, bots in the other seats):
 * both boards (the partner's small, above yours) and the quick team-chat buttons are on the
 * first screen. A quick button sends its signal to the partner, in the page's language.
 */
async function bughousePhone(s, h) {
  const { until, check, createTable, BASE } = h;
  const id = await createTable("bughouse", { seating: "chosen", bots: { 1: "easy", 2: "easy", 3: "easy" },
    time_control: { kind: "sudden_death", base_seconds: 600 } });
  const p = await s.player("phone", PHONE);
  await p.goto(`${BASE}/t/${id}#play`);
  await until(p, () => document.querySelector("#seats .badge") && document.querySelector("#board-A .sq") &&
    /Board A/.test(document.getElementById("turn").textContent));
  await p.waitForTimeout(1500); // the page's own scrolling after the start, if any
  const view = await p.evaluate(() => {
    const box = (node) => { if (!node) return null; const r = node.getBoundingClientRect(); return [Math.round(r.left), Math.round(r.top), Math.round(r.right), Math.round(r.bottom)]; };
    // The quick team-chat buttons (the row under the board, or the team chat's own): the
    // highest shown "need a knight" button.
    const quick = [...document.querySelectorAll('button[data-signal="need_n"], #team-quick button')]
      .filter((b) => b.offsetParent !== null && (b.dataset.signal || b.textContent === "need N")).map(box).sort((a, b) => a[1] - b[1])[0] || null;
    return { scrollY: Math.round(scrollY), innerWidth, innerHeight, own: box(document.getElementById("board-A")),
      partner: box(document.getElementById("board-B")), quick, turn: box(document.getElementById("turn")) };
  });
  await s.shot(p, "first-screen");
  const inView = (b) => b && b[1] >= 0 && b[3] <= view.innerHeight && b[0] >= 0 && b[2] <= view.innerWidth;
  check(inView(view.own) && inView(view.partner) && inView(view.quick) && inView(view.turn),
    `on a phone the status, both boards and the quick team-chat buttons are on the first screen: ${JSON.stringify(view)}`);
  check(view.partner[3] <= view.own[1], `the partner's board is above your own: ${JSON.stringify(view)}`);
  // A quick button sends the signal: it shows in the team chat (and under the quick buttons).
  await p.tap('button[data-signal="need_n"]');
  await until(p, () => /need N/.test(document.getElementById("team-log").textContent) && /need N/.test(document.querySelector(".bh-quick-last").textContent));
}

/**
 * Bughouse 960 (issue 35) from the chosen position 96, BBQNRNKR: the title shows the
 * position; once the f1 knight has left, A-white castles short by clicking the king, then
 * the rook it castles with (Chess960 castling is king takes rook): the king stays on g1 and
 * the h1 rook goes to f1, as both A players see.
 */
async function bughouse960Castling(s, h) {
  const { until } = h;
  const p = await fourSeated(s, h, { chess960: true, chess960_position: 96 });
  const [ann, bo] = [p["A-white"], p["A-black"]];
  await until(ann, () => /position 96/.test(document.querySelector(".bh-title").textContent));
  await bhPiece(h, ann, "A", "h1", "white");
  await ann.click('#board-A .sq[data-sq="f1"]');
  await ann.click('#board-A .sq[data-sq="e3"]');
  await bhPiece(h, bo, "A", "e3", "white");
  await bo.click('#board-A .sq[data-sq="a7"]');
  await bo.click('#board-A .sq[data-sq="a6"]');
  await bhPiece(h, ann, "A", "a6", "black");
  // The king, then its rook: castling.
  await ann.click('#board-A .sq[data-sq="g1"]');
  await ann.click('#board-A .sq[data-sq="h1"]');
  for (const page of [ann, bo]) {
    await until(page, () => {
      const at = (sq) => document.querySelector(`#board-A .sq[data-sq="${sq}"] .cp.white`);
      return at("g1") && at("f1") && !at("h1");
    });
  }
}

export default {
  "keyboard-krux": ["Krux: every kind of part with the keyboard alone; squares labelled (en, sv)", keyboardKrux],
  "defect-5-krux-danger": ["defect 5: Krux marks your pieces the opponent's next piece could drop into the hole; switchable, remembered", kruxDanger],
  "keyboard-bughouse": ["Bughouse: a move, a capture and a drop from the pocket with the keyboard alone; squares labelled (en, nb)", keyboardBughouse],
  "keyboard-bughouse-promotion": ["Bughouse: a promotion chosen with the keyboard", keyboardPromotion],
  "defect-9-bughouse-phone": ["defect 9: Bughouse on a phone shows both boards and the quick team-chat buttons on the first screen", bughousePhone],
  "bughouse-960-castling": ["Bughouse 960: the position on the board's title; castling by clicking the king, then its rook", bughouse960Castling],
};
