//! Gomoku's rules tested directly: the notation, the lines, the variants, the openings,
//! the view, and properties of the win check.

use super::*;
use proptest::prelude::*;
use serde_json::json;

// ---------------------------------------------------------------- helpers

fn sq(text: &str) -> Square {
    text.parse()
        .unwrap_or_else(|err| panic!("bad test square {text}: {err}"))
}

fn mv(text: &str) -> GomokuMove {
    GomokuMove { at: sq(text) }
}

fn game(variant: Variant, board_size: u8, opening: Opening) -> Gomoku {
    Gomoku::new(&GomokuSettings {
        variant,
        board_size,
        opening,
    })
}

fn free15() -> Gomoku {
    game(Variant::Free, 15, Opening::Free)
}

fn exact15() -> Gomoku {
    game(Variant::Exact5, 15, Opening::Free)
}

fn rule(result: Result<Played, RuleError>) -> &'static str {
    match result {
        Ok(played) => panic!("expected a refusal, got {played:?}"),
        Err(err) => err.rule,
    }
}

/// Plays X's and O's stones alternately (X first), asserting that the game is still
/// running afterwards.
fn setup(game: &mut Gomoku, xs: &[&str], os: &[&str]) {
    assert!(xs.len() == os.len() || xs.len() == os.len() + 1, "X moves first");
    for (i, x) in xs.iter().enumerate() {
        game.play(0, &mv(x)).unwrap_or_else(|err| panic!("X {x}: {err}"));
        if let Some(o) = os.get(i) {
            game.play(1, &mv(o)).unwrap_or_else(|err| panic!("O {o}: {err}"));
        }
    }
    assert_eq!(game.outcome(), None, "the setup must not end the game");
}

fn win(seat: Seat, lines: &[&[&str]]) -> Outcome {
    let mut outcome = Outcome::win(vec![seat], EndReason::FiveInARow);
    outcome.detail = json!({ "lines": lines });
    outcome
}

fn view_json(game: &Gomoku) -> Value {
    serde_json::to_value(game.view()).expect("views serialise")
}

/// Filler stones for the side not under test: the odd columns of row 1 and row 3, far
/// from everything and never five in a row.
const FILLER: [&str; 16] = [
    "A1", "C1", "E1", "G1", "I1", "K1", "M1", "O1", "A3", "C3", "E3", "G3", "I3", "K3", "M3", "O3",
];

// ------------------------------------------- independent brute-force line finder

/// A board as rows of characters, `grid[row][col]`, row 0 at the bottom.
type Grid = Vec<Vec<char>>;

fn grid_of(game: &Gomoku) -> Grid {
    // Built from the view, top row first, so the finder shares no code with the rules.
    game.view()
        .board
        .iter()
        .rev()
        .map(|row| row.chars().collect())
        .collect()
}

/// Every straight line of the board as lists of (col, row): rows, columns, rising and
/// falling diagonals, each by increasing column (columns by increasing row).
fn all_board_lines(n: usize) -> Vec<Vec<(usize, usize)>> {
    let mut lines = Vec::new();
    for r in 0..n {
        lines.push((0..n).map(|c| (c, r)).collect());
    }
    for c in 0..n {
        lines.push((0..n).map(|r| (c, r)).collect());
    }
    let n = n as isize;
    for d in -(n - 1)..n {
        // rising: row = col - d
        lines.push(
            (0..n)
                .filter(|c| (0..n).contains(&(c - d)))
                .map(|c| (c as usize, (c - d) as usize))
                .collect(),
        );
    }
    for s in 0..(2 * n - 1) {
        // falling: row = s - col
        lines.push(
            (0..n)
                .filter(|c| (0..n).contains(&(s - c)))
                .map(|c| (c as usize, (s - c) as usize))
                .collect(),
        );
    }
    lines
}

/// Every maximal run of one symbol whose length satisfies `wins`, as square names.
fn brute_force_runs(grid: &Grid, wins: impl Fn(usize) -> bool) -> Vec<(char, Vec<String>)> {
    let name = |(c, r): (usize, usize)| format!("{}{}", (b'A' + c as u8) as char, r + 1);
    let mut found = Vec::new();
    for line in all_board_lines(grid.len()) {
        let mut i = 0;
        while i < line.len() {
            let (c, r) = line[i];
            let symbol = grid[r][c];
            let mut j = i;
            while j < line.len() && grid[line[j].1][line[j].0] == symbol {
                j += 1;
            }
            if symbol != '.' && wins(j - i) {
                found.push((symbol, line[i..j].iter().copied().map(name).collect()));
            }
            i = j;
        }
    }
    found
}

fn five_or_more(len: usize) -> bool {
    len >= 5
}

fn criterion(variant: Variant) -> fn(usize) -> bool {
    match variant {
        Variant::Free => five_or_more,
        Variant::Exact5 => |len| len == 5,
    }
}

/// A full 15 × 15 board without any run of three: `X` where `(col + 2 row) mod 4 < 2`.
/// Along a row the pattern is XXOO…, along a column XOXO…, and along both diagonals
/// XXOO… again, so no run is longer than two.
fn no_line_fill(n: usize) -> Grid {
    (0..n)
        .map(|r| (0..n).map(|c| if (c + 2 * r) % 4 < 2 { 'X' } else { 'O' }).collect())
        .collect()
}

fn squares_of(grid: &Grid, symbol: char) -> Vec<String> {
    let mut out = Vec::new();
    for (r, row) in grid.iter().enumerate() {
        for (c, &cell) in row.iter().enumerate() {
            if cell == symbol {
                out.push(format!("{}{}", (b'A' + c as u8) as char, r + 1));
            }
        }
    }
    out
}

fn count(grid: &Grid, symbol: char) -> usize {
    grid.iter().flatten().filter(|&&cell| cell == symbol).count()
}

/// Plays a whole board: X's squares and O's squares alternately, `last` (an X square)
/// as the very last move. Asserts that no move before the last ends the game.
fn play_out(game: &mut Gomoku, grid: &Grid, first: &str, last: &str) {
    let mut xs: Vec<String> = squares_of(grid, 'X');
    let os = squares_of(grid, 'O');
    assert_eq!(xs.len(), os.len() + 1, "X must have one stone more than O");
    assert!(xs.iter().any(|s| s == first) && xs.iter().any(|s| s == last));
    xs.retain(|s| s != first && s != last);
    xs.insert(0, first.to_owned());
    xs.push(last.to_owned());
    for (i, x) in xs.iter().enumerate() {
        assert_eq!(game.outcome(), None, "the game ended before move {}", 2 * i + 1);
        game.play(0, &mv(x)).unwrap_or_else(|err| panic!("X {x}: {err}"));
        if let Some(o) = os.get(i) {
            assert_eq!(game.outcome(), None, "the game ended before move {}", 2 * i + 2);
            game.play(1, &mv(o)).unwrap_or_else(|err| panic!("O {o}: {err}"));
        }
    }
}

#[test]
fn brute_force_finder_finds_what_it_should() {
    let mut grid = vec![vec!['.'; 15]; 15];
    grid[7][3..8].fill('X'); // D8..H8
    for i in 0..6 {
        grid[14 - i][i] = 'O'; // A15..F10, falling, six long
    }
    let runs = brute_force_runs(&grid, five_or_more);
    assert_eq!(
        runs,
        vec![
            ('X', ["D8", "E8", "F8", "G8", "H8"].map(String::from).to_vec()),
            (
                'O',
                ["A15", "B14", "C13", "D12", "E11", "F10"].map(String::from).to_vec()
            ),
        ]
    );
    assert_eq!(brute_force_runs(&grid, |len| len == 5).len(), 1);
    // Lines of the 15 board: 15 rows, 15 columns, 29 + 29 diagonals.
    assert_eq!(all_board_lines(15).len(), 88);
}

// ---------------------------------------------------------------- settings

#[test]
fn settings_default_and_wire_form() {
    let settings = GomokuSettings::default();
    assert_eq!(
        serde_json::to_value(&settings).unwrap(),
        json!({"variant": "free", "board_size": 15, "opening": "center"})
    );
    let mut empty = SettingsReader::of(json!({}));
    assert_eq!(Gomoku::read_settings(&mut empty), Ok(settings));
    assert_eq!(Gomoku::seat_roles(&GomokuSettings::default()), &["X", "O"]);
    assert_eq!(Gomoku::team_of(1), 1);
}

#[test]
fn settings_read_every_choice_and_refuse_others() {
    let mut r = SettingsReader::of(json!({"variant": "exact5", "board_size": 19, "opening": "free", "x": 1}));
    let settings = Gomoku::read_settings(&mut r).unwrap();
    assert_eq!(
        settings,
        GomokuSettings {
            variant: Variant::Exact5,
            board_size: 19,
            opening: Opening::Free
        }
    );
    assert_eq!(
        serde_json::to_value(&settings).unwrap(),
        json!({"variant": "exact5", "board_size": 19, "opening": "free"})
    );
    assert_eq!(r.finish().unwrap_err().field, "settings.x");

    for (bad, field) in [
        (json!({"variant": "renju"}), "settings.variant"),
        (json!({"board_size": 17}), "settings.board_size"),
        (json!({"opening": "centre"}), "settings.opening"),
    ] {
        let err = Gomoku::read_settings(&mut SettingsReader::of(bad)).unwrap_err();
        assert_eq!(err.field, field);
    }
}

// ---------------------------------------------------------------- notation

#[test]
fn squares_parse_and_print() {
    assert_eq!(sq("A1"), Square::new(0, 0).unwrap());
    assert_eq!(sq("H8"), Square::new(7, 7).unwrap());
    assert_eq!(sq("o15"), Square::new(14, 14).unwrap());
    assert_eq!(sq("Z99"), Square::new(25, 98).unwrap());
    assert_eq!(sq("s19").to_string(), "S19");
    assert_eq!(Square::new(26, 0), None);
    assert_eq!(Square::new(0, 99), None);
    assert_eq!(Square::centre(15).to_string(), "H8");
    assert_eq!(Square::centre(19).to_string(), "J10");
}

#[test]
fn moves_decode_and_encode() {
    let decoded: GomokuMove = serde_json::from_value(json!({"at": "h8"})).unwrap();
    assert_eq!(decoded, mv("H8"));
    assert_eq!(serde_json::to_value(decoded).unwrap(), json!({"at": "H8"}));
    let far: GomokuMove = serde_json::from_value(json!({"at": "Z99"})).unwrap();
    assert_eq!(far.at.to_string(), "Z99");
}

#[test]
fn malformed_coordinate_refused_at_decode() {
    for bad in [
        "", "H0", "8H", "HH8", "H08", "H", "H100", "H-1", "H+8", " H8", "H8 ", "H 8", "Ä8", "H8.0", "8", "@1",
    ] {
        let err =
            serde_json::from_value::<GomokuMove>(json!({ "at": bad })).expect_err(&format!("{bad:?} must be refused"));
        let message = err.to_string();
        assert!(message.contains("invalid square"), "{bad:?}: {message}");
        assert!(message.contains("like \"H8\""), "{bad:?}: {message}");
    }
    for bad in [
        json!({"at": 8}),
        json!({"at": null}),
        json!({"at": ["H", 8]}),
        json!({}),
        json!({"at": "H8", "mark": "X"}),
        json!("H8"),
    ] {
        assert!(serde_json::from_value::<GomokuMove>(bad.clone()).is_err(), "{bad}");
    }
    let long = "H".repeat(1000);
    let message = long.parse::<Square>().unwrap_err().to_string();
    assert!(message.len() < 200, "long input is not echoed whole: {message}");
}

// ---------------------------------------------------------------- refusals

#[test]
fn centre_opening_enforced() {
    let mut g = Gomoku::new(&GomokuSettings::default());
    assert_eq!(g.legal_moves(0), vec![mv("H8")]);
    let before = g.clone();
    assert_eq!(rule(g.play(0, &mv("A1"))), "centre_opening");
    assert_eq!(rule(g.play(0, &mv("H9"))), "centre_opening");
    assert_eq!(g, before);
    g.play(0, &mv("H8")).unwrap();
    // Only the first move is constrained.
    g.play(1, &mv("A1")).unwrap();
    g.play(0, &mv("O15")).unwrap();

    let mut big = game(Variant::Free, 19, Opening::Center);
    assert_eq!(big.legal_moves(0), vec![mv("J10")]);
    assert_eq!(rule(big.play(0, &mv("K10"))), "centre_opening");
    big.play(0, &mv("J10")).unwrap();
}

#[test]
fn free_opening_allows_any_square() {
    for first in ["A1", "O15", "H8", "C12"] {
        let mut g = free15();
        g.play(0, &mv(first)).unwrap();
        assert_eq!(g.moves(), &[sq(first)]);
    }
    assert_eq!(free15().legal_moves(0).len(), 225);
}

#[test]
fn occupied_refused_without_consuming_turn() {
    let mut g = free15();
    g.play(0, &mv("H8")).unwrap();
    let before = g.clone();
    let err = g.play(1, &mv("H8")).unwrap_err();
    assert_eq!(err.rule, "occupied");
    assert!(err.message.contains("H8"), "{}", err.message);
    assert_eq!(g, before);
    assert_eq!(g.active_seats(), SeatSet::only(1));
    // O still has the turn and may play elsewhere.
    g.play(1, &mv("H9")).unwrap();
    assert_eq!(rule(g.play(0, &mv("h9"))), "occupied");
}

#[test]
fn off_board_refused() {
    let mut g = free15();
    let before = g.clone();
    for off in ["P8", "H16", "Z1", "A99", "P16"] {
        assert_eq!(rule(g.play(0, &mv(off))), "off_board", "{off}");
    }
    assert_eq!(g, before);
    g.play(0, &mv("O15")).unwrap();

    let mut big = game(Variant::Free, 19, Opening::Free);
    assert_eq!(rule(big.play(0, &mv("T1"))), "off_board");
    assert_eq!(rule(big.play(0, &mv("A20"))), "off_board");
    big.play(0, &mv("S19")).unwrap();
    // The centre opening does not hide an off-board square.
    let mut centre = Gomoku::new(&GomokuSettings::default());
    assert_eq!(rule(centre.play(0, &mv("P8"))), "off_board");
}

#[test]
fn not_your_turn() {
    let mut g = free15();
    let before = g.clone();
    assert_eq!(rule(g.play(1, &mv("H8"))), "not_your_turn");
    assert_eq!(rule(g.play(2, &mv("H8"))), "not_your_turn");
    assert_eq!(rule(g.play(255, &mv("H8"))), "not_your_turn");
    assert_eq!(g, before);
    g.play(0, &mv("H8")).unwrap();
    assert_eq!(rule(g.play(0, &mv("H9"))), "not_your_turn");
    assert!(g.legal_moves(0).is_empty());
    assert_eq!(g.legal_moves(1).len(), 224);
}

#[test]
fn game_over_refused() {
    let mut g = free15();
    setup(&mut g, &["D8", "E8", "F8", "G8"], &["D1", "E1", "F1", "G1"]);
    g.play(0, &mv("H8")).unwrap();
    let before = g.clone();
    assert_eq!(rule(g.play(1, &mv("H1"))), "game_over");
    assert_eq!(rule(g.play(0, &mv("H1"))), "game_over");
    assert_eq!(g, before);
    assert!(g.active_seats().is_empty());
    assert!(g.legal_moves(0).is_empty() && g.legal_moves(1).is_empty());
    assert_eq!(g.view().to_move, None);
}

#[test]
fn refusals_are_checked_in_order() {
    // not_your_turn before off_board and centre_opening.
    let mut g = Gomoku::new(&GomokuSettings::default());
    assert_eq!(rule(g.play(1, &mv("Z99"))), "not_your_turn");
    // off_board before centre_opening.
    assert_eq!(rule(g.play(0, &mv("Z99"))), "off_board");
    g.play(0, &mv("H8")).unwrap();
    // not_your_turn before occupied.
    assert_eq!(rule(g.play(0, &mv("H8"))), "not_your_turn");
    // game_over before everything.
    g.finish(Outcome::win(vec![0], EndReason::Resignation));
    assert_eq!(rule(g.play(0, &mv("Z99"))), "game_over");
    assert_eq!(rule(g.play(1, &mv("H8"))), "game_over");
}

// ---------------------------------------------------------------- wins

#[test]
fn horizontal_win() {
    let mut g = free15();
    setup(&mut g, &["D8", "E8", "G8", "H8"], &FILLER[..4]);
    let played = g.play(0, &mv("F8")).unwrap();
    assert!(played.turn_over);
    assert_eq!(g.outcome(), Some(&win(0, &[&["D8", "E8", "F8", "G8", "H8"]])));
    assert_eq!(g.outcome().unwrap().reason.as_str(), "five_in_a_row");
}

#[test]
fn vertical_win() {
    let mut g = free15();
    setup(&mut g, &["C2", "A2", "C4", "E2", "C6"], &["B11", "B12", "B13", "B14"]);
    g.play(1, &mv("B15")).unwrap();
    assert_eq!(g.outcome(), Some(&win(1, &[&["B11", "B12", "B13", "B14", "B15"]])));
}

#[test]
fn rising_diagonal_win() {
    let mut g = free15();
    setup(&mut g, &["K11", "L12", "N14", "O15"], &FILLER[..4]);
    g.play(0, &mv("M13")).unwrap();
    assert_eq!(g.outcome(), Some(&win(0, &[&["K11", "L12", "M13", "N14", "O15"]])));
}

#[test]
fn falling_diagonal_win() {
    let mut g = free15();
    setup(&mut g, &["A1", "C1", "E1", "G1", "I1"], &["K15", "L14", "N12", "O11"]);
    g.play(1, &mv("M13")).unwrap();
    assert_eq!(g.outcome(), Some(&win(1, &[&["K15", "L14", "M13", "N12", "O11"]])));
}

#[test]
fn overline_wins_in_free() {
    let mut g = free15();
    setup(&mut g, &["D8", "E8", "F8", "H8", "I8"], &FILLER[..5]);
    g.play(0, &mv("G8")).unwrap();
    assert_eq!(g.outcome(), Some(&win(0, &[&["D8", "E8", "F8", "G8", "H8", "I8"]])));
    assert_eq!(
        g.view().lines,
        vec![["D8", "E8", "F8", "G8", "H8", "I8"].map(sq).to_vec()]
    );
}

#[test]
fn exact5_overline_is_no_win_and_the_game_continues() {
    let mut g = exact15();
    setup(&mut g, &["D8", "E8", "F8", "H8", "I8"], &FILLER[..5]);
    g.play(0, &mv("G8")).unwrap();
    assert_eq!(g.outcome(), None);
    assert_eq!(g.active_seats(), SeatSet::only(1));
    assert!(g.view().lines.is_empty());
    g.play(1, &mv("A15")).unwrap();
    g.play(0, &mv("A14")).unwrap();
    // A seven is no win either.
    let mut g = exact15();
    setup(&mut g, &["A5", "B5", "C5", "E5", "F5", "G5"], &FILLER[..6]);
    g.play(0, &mv("D5")).unwrap();
    assert_eq!(g.outcome(), None);
}

#[test]
fn exact5_plain_five_wins() {
    let mut g = exact15();
    setup(&mut g, &["K4", "K5", "K7", "K8"], &["A8", "B8", "C8", "D8"]);
    g.play(0, &mv("K6")).unwrap();
    assert_eq!(g.outcome(), Some(&win(0, &[&["K4", "K5", "K6", "K7", "K8"]])));
}

#[test]
fn exact5_six_on_one_axis_and_exact_five_on_another_wins() {
    let mut g = exact15();
    // Horizontal: D8 E8 F8 _ H8 I8 makes six with G8; vertical G4 G5 G6 G7 _ makes five.
    setup(
        &mut g,
        &["D8", "E8", "F8", "H8", "I8", "G4", "G5", "G6", "G7"],
        &FILLER[..9],
    );
    g.play(0, &mv("G8")).unwrap();
    assert_eq!(g.outcome(), Some(&win(0, &[&["G4", "G5", "G6", "G7", "G8"]])));
    assert_eq!(g.view().lines, vec![["G4", "G5", "G6", "G7", "G8"].map(sq).to_vec()]);
}

#[test]
fn several_lines_at_once_all_reported() {
    // Two lines: a horizontal and a vertical meeting at H8.
    let mut g = free15();
    setup(&mut g, &["D8", "E8", "F8", "G8", "H4", "H5", "H6", "H7"], &FILLER[..8]);
    g.play(0, &mv("H8")).unwrap();
    assert_eq!(
        g.outcome(),
        Some(&win(
            0,
            &[&["D8", "E8", "F8", "G8", "H8"], &["H4", "H5", "H6", "H7", "H8"]]
        ))
    );

    // All four axes through H8 at once.
    let xs = [
        "F8", "G8", "I8", "J8", "H6", "H7", "H9", "H10", "F6", "G7", "I9", "J10", "F10", "G9", "I7", "J6",
    ];
    for variant in [Variant::Free, Variant::Exact5] {
        let mut g = game(variant, 15, Opening::Free);
        setup(&mut g, &xs, &FILLER);
        g.play(0, &mv("H8")).unwrap();
        let expected = win(
            0,
            &[
                &["F8", "G8", "H8", "I8", "J8"],
                &["H6", "H7", "H8", "H9", "H10"],
                &["F6", "G7", "H8", "I9", "J10"],
                &["F10", "G9", "H8", "I7", "J6"],
            ],
        );
        assert_eq!(g.outcome(), Some(&expected), "{variant:?}");
        assert_eq!(g.view().lines.len(), 4);
    }
}

#[test]
fn gap_breaks_a_line() {
    let mut g = free15();
    // Five X stones on row 8 with a hole at H8: no line.
    setup(&mut g, &["D8", "E8", "F8", "G8", "I8"], &FILLER[..5]);
    assert_eq!(g.outcome(), None);
    // Filling the hole joins them into six.
    let mut g = free15();
    setup(&mut g, &["D8", "E8", "F8", "G8", "I8"], &FILLER[..5]);
    g.play(0, &mv("H8")).unwrap();
    assert_eq!(g.outcome(), Some(&win(0, &[&["D8", "E8", "F8", "G8", "H8", "I8"]])));
    // A diagonal with a hole is no line either.
    let mut g = free15();
    setup(&mut g, &["J10", "K11", "L12", "N14", "O15"], &FILLER[..5]);
    g.play(0, &mv("A15")).unwrap();
    assert_eq!(g.outcome(), None);
}

#[test]
fn opponent_stone_breaks_a_line() {
    let mut g = free15();
    setup(&mut g, &["D8", "E8", "F8", "G8"], &["H8", "A1", "A3", "A5"]);
    setup(&mut g, &["I8", "J8", "K8"], &["A7", "A9", "A11"]);
    g.play(0, &mv("L8")).unwrap();
    assert_eq!(g.outcome(), None);
    assert_eq!(g.active_seats(), SeatSet::only(1));
}

#[test]
fn no_wrap_at_the_edge_15() {
    // L8..O8 and A9 are consecutive in row-major order but not a line.
    for last in ["O8", "A9"] {
        let mut g = free15();
        let xs: Vec<&str> = ["L8", "M8", "N8", "O8", "A9"]
            .into_iter()
            .filter(|&s| s != last)
            .collect();
        setup(&mut g, &xs, &FILLER[..4]);
        g.play(0, &mv(last)).unwrap();
        assert_eq!(g.outcome(), None, "last {last}");
    }
    // Rising diagonal off the right edge: one step up-right of O13 is A15 in row-major
    // order (index + 16), but L10 M11 N12 O13 A15 is no line.
    let mut g = free15();
    setup(&mut g, &["L10", "M11", "N12", "O13"], &FILLER[..4]);
    g.play(0, &mv("A15")).unwrap();
    assert_eq!(g.outcome(), None);
    // Falling diagonal off the right edge: one step down-right of O9 is A9 in
    // row-major order (index - 14), but L12 M11 N10 O9 A9 is no line.
    for last in ["O9", "A9"] {
        let mut g = free15();
        let xs: Vec<&str> = ["L12", "M11", "N10", "O9", "A9"]
            .into_iter()
            .filter(|&s| s != last)
            .collect();
        setup(&mut g, &xs, &FILLER[..4]);
        g.play(0, &mv(last)).unwrap();
        assert_eq!(g.outcome(), None, "last {last}");
    }
    // The edges themselves still hold lines: A11..A15 and K15..O15.
    let mut g = free15();
    setup(
        &mut g,
        &["A11", "A12", "A13", "A14", "K15", "L15", "N15", "O15"],
        &FILLER[..8],
    );
    g.play(0, &mv("M15")).unwrap();
    assert_eq!(g.outcome(), Some(&win(0, &[&["K15", "L15", "M15", "N15", "O15"]])));
}

#[test]
fn no_wrap_at_the_edge_19() {
    for last in ["S10", "A11"] {
        let mut g = game(Variant::Free, 19, Opening::Free);
        let xs: Vec<&str> = ["P10", "Q10", "R10", "S10", "A11"]
            .into_iter()
            .filter(|&s| s != last)
            .collect();
        setup(&mut g, &xs, &FILLER[..4]);
        g.play(0, &mv(last)).unwrap();
        assert_eq!(g.outcome(), None, "last {last}");
    }
    // Rising: one step up-right of S15 is A17 in row-major order (index + 20).
    let mut g = game(Variant::Free, 19, Opening::Free);
    setup(&mut g, &["P12", "Q13", "R14", "S15"], &FILLER[..4]);
    g.play(0, &mv("A17")).unwrap();
    assert_eq!(g.outcome(), None);
    // Falling: one step down-right of S10 is A10 in row-major order (index - 18).
    let mut g = game(Variant::Free, 19, Opening::Free);
    setup(&mut g, &["P13", "Q12", "R11", "S10"], &FILLER[..4]);
    g.play(0, &mv("A10")).unwrap();
    assert_eq!(g.outcome(), None);
    // …while a real line along the far edge does win.
    let mut g = game(Variant::Free, 19, Opening::Free);
    setup(&mut g, &["S15", "S16", "S17", "S18"], &FILLER[..4]);
    g.play(0, &mv("S19")).unwrap();
    assert_eq!(g.outcome(), Some(&win(0, &[&["S15", "S16", "S17", "S18", "S19"]])));
}

// ---------------------------------------------------------------- full board

#[test]
fn the_no_line_fill_is_verified_by_brute_force() {
    let grid = no_line_fill(15);
    assert_eq!(count(&grid, 'X'), 113);
    assert_eq!(count(&grid, 'O'), 112);
    assert!(brute_force_runs(&grid, |len| len >= 3).is_empty());
    assert_eq!(grid[7][7], 'X', "H8 is X's, so the centre opening can be used");
}

#[test]
fn full_board_with_no_line_is_a_draw() {
    let grid = no_line_fill(15);
    assert!(brute_force_runs(&grid, five_or_more).is_empty());
    for variant in [Variant::Free, Variant::Exact5] {
        let mut g = game(variant, 15, Opening::Center);
        play_out(&mut g, &grid, "H8", "O14");
        assert_eq!(g.outcome(), Some(&Outcome::draw(EndReason::BoardFull)), "{variant:?}");
        assert!(g.active_seats().is_empty());
        assert!(g.view().lines.is_empty());
        assert_eq!(g.view().move_count, 225);
        assert_eq!(grid_of(&g), grid);
    }
}

#[test]
fn last_square_win_beats_the_draw() {
    // Start from the no-line fill and make C8..G8 an X five with E8 played last.
    let mut grid = no_line_fill(15);
    // Row 8 is OOXXOOXXOOXXOOX: set C8..G8 to X and H8 (X) to O so it is exactly five.
    grid[7][2..7].fill('X');
    grid[7][7] = 'O';
    // That gave X one stone too many: hand A1 to O.
    assert_eq!(grid[0][0], 'X');
    grid[0][0] = 'O';
    assert_eq!((count(&grid, 'X'), count(&grid, 'O')), (113, 112));
    let line: Vec<String> = ["C8", "D8", "E8", "F8", "G8"].map(String::from).to_vec();
    assert_eq!(brute_force_runs(&grid, five_or_more), vec![('X', line)]);
    let mut before = grid.clone();
    before[7][4] = '.';
    assert!(brute_force_runs(&before, |len| len >= 5).is_empty());

    for variant in [Variant::Free, Variant::Exact5] {
        let mut g = game(variant, 15, Opening::Free);
        play_out(&mut g, &grid, "B1", "E8");
        assert_eq!(g.view().move_count, 225);
        assert_eq!(
            g.outcome(),
            Some(&win(0, &[&["C8", "D8", "E8", "F8", "G8"]])),
            "{variant:?}"
        );
    }
}

// ---------------------------------------------------------------- finish and view

#[test]
fn finish_after_the_end_is_ignored() {
    let mut g = free15();
    setup(&mut g, &["D8", "E8", "F8", "G8"], &FILLER[..4]);
    g.play(0, &mv("H8")).unwrap();
    let won = g.outcome().cloned();
    g.finish(Outcome::win(vec![0], EndReason::Resignation));
    g.finish(Outcome::draw(EndReason::DrawAgreed));
    assert_eq!(g.outcome().cloned(), won);
}

#[test]
fn finish_before_the_end_ends_the_game() {
    let mut g = Gomoku::new(&GomokuSettings::default());
    g.play(0, &mv("H8")).unwrap();
    let resigned = Outcome::win(vec![0], EndReason::Resignation);
    g.finish(resigned.clone());
    g.finish(Outcome::draw(EndReason::DrawAgreed));
    assert_eq!(g.outcome(), Some(&resigned));
    assert!(g.active_seats().is_empty());
    assert!(g.legal_moves(1).is_empty());
    assert_eq!(rule(g.play(1, &mv("A1"))), "game_over");
    let view = g.view();
    assert_eq!(view.to_move, None);
    assert!(view.lines.is_empty());
}

#[test]
fn view_orientation_top_row_first() {
    let mut g = Gomoku::new(&GomokuSettings::default());
    assert_eq!(
        view_json(&g),
        json!({
            "size": 15,
            "board": vec![".".repeat(15); 15],
            "to_move": "X",
            "last_move": null,
            "move_count": 0,
            "lines": [],
        })
    );
    g.play(0, &mv("H8")).unwrap();
    g.play(1, &mv("A1")).unwrap();
    g.play(0, &mv("O15")).unwrap();
    g.play(1, &mv("B15")).unwrap();
    let view = g.view();
    assert_eq!(view.board[0], ".O............X", "board[0] is row 15, the top");
    assert_eq!(view.board[7], ".......X.......", "row 8 holds H8");
    assert_eq!(view.board[14], "O..............", "board[14] is row 1, the bottom");
    assert_eq!(view.board.len(), 15);
    assert!(view.board.iter().all(|row| row.len() == 15));
    let json = view_json(&g);
    assert_eq!(json["to_move"], "X");
    assert_eq!(json["last_move"], "B15");
    assert_eq!(json["move_count"], 4);
    assert_eq!(g.moves(), ["H8", "A1", "O15", "B15"].map(sq).as_slice());
    assert_eq!(g.active_seats(), SeatSet::only(0));
}

#[test]
fn view_of_a_won_game_lists_the_lines() {
    let mut g = free15();
    setup(&mut g, &["D8", "E8", "F8", "G8"], &FILLER[..4]);
    g.play(0, &mv("H8")).unwrap();
    let json = view_json(&g);
    assert_eq!(json["lines"], json!([["D8", "E8", "F8", "G8", "H8"]]));
    assert_eq!(json["to_move"], Value::Null);
    assert_eq!(json["last_move"], "H8");
    assert_eq!(json["board"][7], "...XXXXX.......");
    assert_eq!(g.outcome().unwrap().detail, json!({"lines": json["lines"]}));
}

#[test]
fn odd_sizes_are_clamped() {
    let tiny = game(Variant::Free, 0, Opening::Center);
    assert_eq!(tiny.size(), 1);
    let huge = game(Variant::Free, 200, Opening::Free);
    assert_eq!(huge.size(), 26);
    assert_eq!(huge.legal_moves(0).len(), 26 * 26);
    let mut one = tiny;
    one.play(0, &mv("A1")).unwrap();
    assert_eq!(one.outcome(), Some(&Outcome::draw(EndReason::BoardFull)));
}

#[test]
fn through_any_game_json_edges() {
    use crate::{AnySettings, GameKind, MoveError};
    let mut r = SettingsReader::of(json!({"board_size": 19}));
    let settings = AnySettings::read(GameKind::Gomoku, &mut r).unwrap();
    assert_eq!(settings.seat_count(), 2);
    let mut table = settings.new_game();
    let (played, normalised) = table.play_json(0, &json!({"at": "j10"})).unwrap();
    assert!(played.turn_over);
    assert_eq!(normalised, json!({"at": "J10"}));
    match table.play_json(1, &json!({"at": "J010"})) {
        Err(MoveError::Malformed(bad)) => assert!(bad.detail.contains("invalid square")),
        other => panic!("expected a malformed move, got {other:?}"),
    }
    match table.play_json(1, &json!({"at": "J10"})) {
        Err(MoveError::Illegal(err)) => assert_eq!(err.rule, "occupied"),
        other => panic!("expected an illegal move, got {other:?}"),
    }
    assert_eq!(table.view()["size"], 19);
    assert_eq!(table.view()["board"][9], ".........X.........");
    assert_eq!(table.legal_moves_json(1).len(), 360);
}

// ---------------------------------------------------------------- properties

fn any_settings() -> impl Strategy<Value = GomokuSettings> {
    (
        prop_oneof![Just(Variant::Free), Just(Variant::Exact5)],
        prop_oneof![Just(15u8), Just(19u8)],
        prop_oneof![Just(Opening::Center), Just(Opening::Free)],
    )
        .prop_map(|(variant, board_size, opening)| GomokuSettings {
            variant,
            board_size,
            opening,
        })
}

/// One step of a random game: a legal move (`near` keeps it within three squares of
/// the centre when possible, so lines actually happen), or an attempt by any seat on
/// any square, legal or not.
#[derive(Debug, Clone)]
enum Step {
    Legal { pick: usize, near: bool },
    Attempt { seat: Seat, col: u8, row: u8 },
}

fn any_step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (any::<usize>(), any::<bool>()).prop_map(|(pick, near)| Step::Legal { pick, near }),
        1 => (0u8..3, 0u8..22, 0u8..22).prop_map(|(seat, col, row)| Step::Attempt { seat, col, row }),
    ]
}

fn pick_legal(g: &Gomoku, pick: usize, near: bool) -> Option<(Seat, GomokuMove)> {
    let seat = g.to_move()?;
    let all = g.legal_moves(seat);
    let centre = g.centre();
    let close: Vec<GomokuMove> = all
        .iter()
        .copied()
        .filter(|m| m.at.col().abs_diff(centre.col()) <= 3 && m.at.row().abs_diff(centre.row()) <= 3)
        .collect();
    let from = if near && !close.is_empty() { close } else { all };
    (!from.is_empty()).then(|| (seat, from[pick % from.len()]))
}

/// Checks the state after a legal move against the brute-force finder.
fn check_after_move(g: &Gomoku, variant: Variant) -> Result<(), TestCaseError> {
    let grid = grid_of(g);
    let runs = brute_force_runs(&grid, criterion(variant));
    let won = matches!(g.outcome(), Some(o) if o.reason == EndReason::FiveInARow);
    prop_assert_eq!(won, !runs.is_empty(), "won {} but brute force found {:?}", won, runs);

    let last = g.moves().last().copied().map(|s| s.to_string());
    let mut through_last: Vec<Vec<String>> = runs
        .iter()
        .filter(|(_, squares)| last.as_ref().is_some_and(|l| squares.contains(l)))
        .map(|(_, squares)| squares.clone())
        .collect();
    // Since the game stops at the first win, every qualifying run goes through the
    // last stone.
    prop_assert_eq!(through_last.len(), runs.len());
    let mut reported: Vec<Vec<String>> = g
        .lines()
        .iter()
        .map(|line| line.iter().map(Square::to_string).collect())
        .collect();
    through_last.sort();
    reported.sort();
    prop_assert_eq!(&reported, &through_last);

    if let Some(outcome) = g.outcome() {
        match outcome.reason {
            EndReason::FiveInARow => {
                let mover = u8::try_from((g.moves().len() + 1) % 2).unwrap();
                prop_assert_eq!(outcome.winners(), &[mover]);
                let detail = json!({ "lines": serde_json::to_value(g.lines()).unwrap() });
                prop_assert_eq!(&outcome.detail, &detail);
            }
            EndReason::BoardFull => {
                prop_assert_eq!(g.moves().len(), usize::from(g.size()).pow(2));
                prop_assert_eq!(outcome.kind(), "draw");
            }
            other => prop_assert!(false, "unexpected end {:?}", other),
        }
    } else {
        prop_assert!(g.moves().len() < usize::from(g.size()).pow(2));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Random play never panics, a move is accepted exactly when `legal_moves` lists it,
    /// and a refused move changes nothing (the view's JSON included).
    #[test]
    fn refused_moves_change_nothing(
        settings in any_settings(),
        steps in prop::collection::vec(any_step(), 0..400),
    ) {
        let mut g = Gomoku::new(&settings);
        for step in steps {
            let (seat, attempt) = match step {
                Step::Legal { pick, near } => match pick_legal(&g, pick, near) {
                    Some(found) => found,
                    None => (0, GomokuMove { at: g.centre() }),
                },
                Step::Attempt { seat, col, row } => {
                    let Some(at) = Square::new(col, row) else { continue };
                    (seat, GomokuMove { at })
                }
            };
            let listed = g.legal_moves(seat).contains(&attempt);
            let before = g.clone();
            let view_before = view_json(&g);
            match g.play(seat, &attempt) {
                Ok(played) => {
                    prop_assert!(listed, "{:?} by {} was accepted but not listed", attempt, seat);
                    prop_assert!(played.turn_over);
                    prop_assert_eq!(g.moves().last(), Some(&attempt.at));
                }
                Err(err) => {
                    prop_assert!(!listed, "{:?} by {} was listed but refused: {}", attempt, seat, err);
                    prop_assert_eq!(&g, &before);
                    prop_assert_eq!(view_json(&g), view_before);
                }
            }
        }
    }

    /// After every move: the game is won by a line exactly when a brute-force scan of
    /// the whole board finds a qualifying run, and the reported lines are exactly the
    /// qualifying runs through the last stone. And the view's text, written from the
    /// cells, is the view's JSON.
    #[test]
    fn wins_match_brute_force(
        settings in any_settings(),
        picks in prop::collection::vec((any::<usize>(), any::<bool>()), 1..361),
    ) {
        let mut g = Gomoku::new(&settings);
        prop_assert_eq!(g.view_text().to_string(), crate::json_text(&g.view()).to_string());
        for (pick, near) in picks {
            let Some((seat, next)) = pick_legal(&g, pick, near) else { break };
            g.play(seat, &next).map_err(|err| TestCaseError::fail(err.to_string()))?;
            check_after_move(&g, settings.variant)?;
            prop_assert_eq!(g.view_text().to_string(), crate::json_text(&g.view()).to_string());
        }
    }

    /// Whole games to the end on a crowded 15 × 15 board: every game ends, by a line or
    /// by a full board, in agreement with the brute-force scan.
    #[test]
    fn games_played_to_the_end_agree_with_brute_force(
        variant in prop_oneof![Just(Variant::Free), Just(Variant::Exact5)],
        seed in any::<u64>(),
    ) {
        let mut g = game(variant, 15, Opening::Center);
        let mut state = seed | 1;
        while let Some(seat) = g.to_move() {
            // xorshift: cheap deterministic picks from the proptest seed.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let pick = usize::try_from(state % 1_000_003).unwrap();
            let Some((_, next)) = pick_legal(&g, pick, state & 2 == 0) else { break };
            g.play(seat, &next).map_err(|err| TestCaseError::fail(err.to_string()))?;
            check_after_move(&g, variant)?;
        }
        prop_assert!(g.outcome().is_some());
    }

    /// Any string either parses to a square that prints back the same (upper-cased),
    /// or is refused with the notation's message.
    #[test]
    fn square_notation_round_trips(text in "[A-Za-z0-9@ ]{0,4}") {
        match text.parse::<Square>() {
            Ok(square) => prop_assert_eq!(square.to_string(), text.to_ascii_uppercase()),
            Err(err) => prop_assert!(err.to_string().contains("like \"H8\"")),
        }
    }
}
