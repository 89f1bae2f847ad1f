//! Test helpers shared by this game's test modules: building games from drawn boards,
//! moves written `b1-b3`, and a slow, obviously correct reference move generator written
//! from the rule text (array based, no bitboards) to check the real one against.

#![allow(dead_code)]

pub use serde_json::{Value, json};

pub use super::*;
pub use crate::{EndReason, Outcome, Played, RuleError, Rules, Seat, SeatSet, SettingError, SettingsReader};

// ---------------------------------------------------------------- helpers

pub const START: &str = ".bbbbbb.w......ww......ww......ww......ww......ww......w.bbbbbb. b";

pub fn sq(text: &str) -> Square {
    text.parse()
        .unwrap_or_else(|err| panic!("bad test square {text}: {err}"))
}

/// A move written `b1-b3`, or `pass`.
pub fn mv(text: &str) -> LoaMove {
    if text == "pass" {
        return LoaMove::Pass;
    }
    let (from, to) = text.split_once('-').expect("a test move is from-to");
    LoaMove::step(sq(from), sq(to))
}

/// A drawn board (row 8 first) and the side to move, as a position string.
pub fn notation(rows: [&str; 8], side: char) -> String {
    assert!(rows.iter().all(|row| row.len() == 8), "every drawn row has 8 squares");
    format!("{} {side}", rows.concat())
}

pub fn game(rows: [&str; 8], side: char) -> LinesOfAction {
    let text = notation(rows, side);
    LinesOfAction::from_position(&text).unwrap_or_else(|err| panic!("bad test position {text}: {err}"))
}

pub fn game_with(rows: [&str; 8], side: char, simultaneous: Simultaneous) -> LinesOfAction {
    let start = notation(rows, side).parse().expect("a valid test position");
    LinesOfAction::new(&LoaSettings {
        simultaneous,
        start_position: Some(start),
    })
}

pub fn start() -> LinesOfAction {
    LinesOfAction::new(&LoaSettings::default())
}

pub fn rule(result: Result<Played, RuleError>) -> &'static str {
    match result {
        Ok(played) => panic!("expected a refusal, got {played:?}"),
        Err(err) => err.rule,
    }
}

/// Plays `moves` alternately from the side to move, asserting each is legal.
pub fn play_all(game: &mut LinesOfAction, moves: &[&str]) {
    for text in moves {
        let seat = game.to_move().unwrap_or_else(|| panic!("the game ended before {text}"));
        game.play(seat, &mv(text)).unwrap_or_else(|err| panic!("{text}: {err}"));
    }
}

pub fn view_json(game: &LinesOfAction) -> Value {
    serde_json::to_value(game.view()).expect("views serialise")
}

pub fn connected(roles: &[&str]) -> Value {
    json!({ "connected": roles })
}

pub fn win(seat: Seat, roles: &[&str]) -> Outcome {
    let mut outcome = Outcome::win(vec![seat], EndReason::Connected);
    outcome.detail = connected(roles);
    outcome
}

pub fn listed(game: &LinesOfAction) -> Vec<String> {
    let mut moves: Vec<String> = game
        .to_move()
        .map(|seat| game.legal_moves(seat))
        .unwrap_or_default()
        .iter()
        .map(LoaMove::to_string)
        .collect();
    moves.sort();
    moves
}

/// Black's c3 and d4 touch only diagonally; h8-e5 (three pieces on the diagonal) adds
/// e5, again only diagonally.
pub const DIAGONAL: [&str; 8] = [
    "w......b", // 8
    "........", // 7
    ".w......", // 6
    "........", // 5
    "...b....", // 4
    "..b.....", // 3
    "........", // 2
    ".......w", // 1
];

// ------------------------------- slow, obviously-correct reference (no bitboards)

/// `grid[row][col]`, row 0 = row `1`: `b`, `w` or `.`.
pub type Grid = [[char; 8]; 8];

/// Reads the notation independently of the module's parser.
pub fn grid_of(text: &str) -> (Grid, char) {
    let chars: Vec<char> = text.chars().collect();
    assert_eq!(chars.len(), 66, "{text}");
    let mut grid = [['.'; 8]; 8];
    for (i, &c) in chars[..64].iter().enumerate() {
        grid[7 - i / 8][i % 8] = c;
    }
    (grid, chars[65])
}

pub fn text_of(grid: &Grid, side: char) -> String {
    let mut text: String = grid.iter().rev().flat_map(|row| row.iter()).collect();
    text.push(' ');
    text.push(side);
    text
}

pub fn other(side: char) -> char {
    if side == 'b' { 'w' } else { 'b' }
}

pub fn on_board(col: i32, row: i32) -> bool {
    (0..8).contains(&col) && (0..8).contains(&row)
}

pub fn cell(grid: &Grid, col: i32, row: i32) -> char {
    grid[row as usize][col as usize]
}

pub fn name(col: i32, row: i32) -> String {
    format!("{}{}", (b'a' + col as u8) as char, row + 1)
}

/// The pieces of both colours on the whole line through (col, row) along (dc, dr),
/// walking both ways, the square itself included.
pub fn line_count(grid: &Grid, col: i32, row: i32, dc: i32, dr: i32) -> u32 {
    let mut count = u32::from(cell(grid, col, row) != '.');
    for sign in [1, -1] {
        let (mut c, mut r) = (col + sign * dc, row + sign * dr);
        while on_board(c, r) {
            count += u32::from(cell(grid, c, r) != '.');
            c += sign * dc;
            r += sign * dr;
        }
    }
    count
}

/// The rule text, in the documented order, for a move of `side` from `from` to `to`.
pub fn classify(grid: &Grid, side: char, from: (i32, i32), to: (i32, i32)) -> Result<(), &'static str> {
    if cell(grid, from.0, from.1) != side {
        return Err("no_piece");
    }
    let (dc, dr) = (to.0 - from.0, to.1 - from.1);
    if (dc, dr) == (0, 0) || !(dc == 0 || dr == 0 || dc.abs() == dr.abs()) {
        return Err("not_a_line");
    }
    let (uc, ur) = (dc.signum(), dr.signum());
    let distance = dc.abs().max(dr.abs());
    if distance as u32 != line_count(grid, from.0, from.1, uc, ur) {
        return Err("wrong_distance");
    }
    if (1..distance).any(|k| cell(grid, from.0 + k * uc, from.1 + k * ur) == other(side)) {
        return Err("blocked");
    }
    if cell(grid, to.0, to.1) == side {
        return Err("own_piece");
    }
    Ok(())
}

/// Every legal move (by trying every own piece to every square), sorted, or `["pass"]`.
pub fn reference_moves(grid: &Grid, side: char) -> Vec<String> {
    let mut moves = Vec::new();
    for (fc, fr) in (0..8).flat_map(|r| (0..8).map(move |c| (c, r))) {
        if cell(grid, fc, fr) != side {
            continue;
        }
        for (tc, tr) in (0..8).flat_map(|r| (0..8).map(move |c| (c, r))) {
            if classify(grid, side, (fc, fr), (tc, tr)).is_ok() {
                moves.push(format!("{}-{}", name(fc, fr), name(tc, tr)));
            }
        }
    }
    if moves.is_empty() {
        moves.push("pass".to_owned());
    }
    moves.sort();
    moves
}

pub fn reference_play(grid: &Grid, side: char, text: &str) -> Grid {
    let mut next = *grid;
    if let Some((from, to)) = text.split_once('-') {
        let at = |s: &str| {
            let b = s.as_bytes();
            ((b[0] - b'a') as usize, (b[1] - b'1') as usize)
        };
        let (fc, fr) = at(from);
        let (tc, tr) = at(to);
        next[fr][fc] = '.';
        next[tr][tc] = side;
    }
    next
}

/// Flood fill over the 8-neighbourhood from one piece.
pub fn reference_connected(grid: &Grid, side: char) -> bool {
    let pieces: Vec<(i32, i32)> = (0..8)
        .flat_map(|r| (0..8).map(move |c| (c, r)))
        .filter(|&(c, r)| cell(grid, c, r) == side)
        .collect();
    let Some(&first) = pieces.first() else {
        return false;
    };
    let mut seen = vec![first];
    let mut todo = vec![first];
    while let Some((c, r)) = todo.pop() {
        for (dc, dr) in [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)] {
            let next = (c + dc, r + dr);
            if on_board(next.0, next.1) && cell(grid, next.0, next.1) == side && !seen.contains(&next) {
                seen.push(next);
                todo.push(next);
            }
        }
    }
    seen.len() == pieces.len()
}

/// Perft by the rule text, without repetition: exact for a fresh game up to depth 7
/// (a third occurrence needs at least eight plies).
pub fn reference_perft(grid: &Grid, side: char, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    for text in reference_moves(grid, side) {
        let next = reference_play(grid, side, &text);
        if depth == 1 {
            total += 1;
        } else if !reference_connected(&next, 'b') && !reference_connected(&next, 'w') {
            total += reference_perft(&next, other(side), depth - 1);
        }
    }
    total
}
