//! Helpers shared by the Krux rules' tests: drawn positions, playing parts from JSON,
//! and the reference lists and random play the enumeration and property tests use.

use crate::krux::square::*;
use crate::krux::*;
use crate::*;
use proptest::prelude::*;
use serde_json::{Value, json};

pub(super) fn sq(text: &str) -> Square {
    text.parse()
        .unwrap_or_else(|err| panic!("bad test square {text}: {err}"))
}

/// A position from a drawn board, top row (7) first, one cell per character after
/// spaces are removed: `.` empty, `o` the hole (d4, must be drawn), `1`–`6` pieces.
/// `rings` lists the ringed pieces like `"1b 2g 3p"`; `in_turn` is the piece in turn.
pub(super) fn position(diagram: &str, rings: &str, in_turn: u8) -> KruxPosition {
    let rows: Vec<Vec<char>> = diagram
        .lines()
        .map(|line| line.chars().filter(|c| !c.is_whitespace()).collect::<Vec<char>>())
        .filter(|row| !row.is_empty())
        .collect();
    assert_eq!(rows.len(), 7, "a diagram has 7 rows");
    let mut squares = [
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
    ];
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), 7, "row {} of the diagram has 7 cells", 7 - i);
        for (col, &cell) in row.iter().enumerate() {
            let square = format!("{}{}", char::from(b'a' + col as u8), 7 - i);
            match cell {
                '.' => {}
                'o' => assert_eq!(square, "d4", "the hole is d4"),
                '1'..='6' => squares[usize::from(cell as u8 - b'1')] = square,
                other => panic!("unknown cell {other:?}"),
            }
        }
    }
    assert_eq!(rows[3][3], 'o', "the hole d4 must be drawn");
    let mut text = String::new();
    for (i, square) in squares.iter().enumerate() {
        assert!(!square.is_empty(), "piece {} is missing from the diagram", i + 1);
        text.push_str(&format!("{}{square}", i + 1));
        for ring in rings.split_whitespace() {
            if ring.starts_with(char::from(b'1' + i as u8)) {
                text.push_str(&ring[1..]);
            }
        }
        text.push(' ');
    }
    text.push_str(&format!("/ {in_turn}"));
    text.parse().unwrap_or_else(|err| panic!("bad test position: {err}"))
}

pub(super) fn game(diagram: &str, rings: &str, in_turn: u8) -> Krux {
    Krux::with_position(position(diagram, rings, in_turn))
}

/// The seat of the piece in turn.
pub(super) fn mover(g: &Krux) -> Seat {
    g.to_move().expect("the game is running")
}

pub(super) fn part(json: Value) -> Part {
    serde_json::from_value(json.clone()).unwrap_or_else(|err| panic!("bad test part {json}: {err}"))
}

/// Plays one part (JSON) for the seat in turn; panics if refused.
pub(super) fn ok(g: &mut Krux, json: Value) -> Played {
    let p = part(json);
    let seat = mover(g);
    g.play(seat, &KruxMove::Part(p))
        .unwrap_or_else(|err| panic!("{p:?} refused: {} ({})", err.message, err.rule))
}

/// Plays one part (JSON) for the seat in turn, expecting a refusal that changes
/// nothing; returns the rule.
pub(super) fn refused(g: &mut Krux, json: Value) -> &'static str {
    let p = part(json);
    let before = g.clone();
    let view = view_json(g);
    let seat = mover(g);
    match g.play(seat, &KruxMove::Part(p)) {
        Ok(played) => panic!("{p:?} was accepted: {played:?}"),
        Err(err) => {
            assert_eq!(g, &before, "a refused part changed the game");
            assert_eq!(view_json(g), view, "a refused part changed the view");
            assert!(!err.message.is_empty());
            err.rule
        }
    }
}

pub(super) fn view_json(g: &Krux) -> Value {
    serde_json::to_value(g.view()).expect("views serialise")
}

/// The board rows of the view, top first, joined by `/` for compact asserts.
pub(super) fn board(g: &Krux) -> String {
    g.view().board.join("/")
}

pub(super) fn won_by(g: &Krux, seat: Seat, fallen: u8) {
    let mut expected = Outcome::win(vec![seat], EndReason::Hole);
    expected.detail = json!({ "fallen": fallen });
    assert_eq!(g.outcome(), Some(&expected));
    assert!(g.active_seats().is_empty());
    let piece = &g.view().pieces[usize::from(fallen - 1)];
    assert_eq!(piece.square, "hole");
}

/// The game is over: any part by anyone is refused as `game_over`.
pub(super) fn refused_after_end(g: &mut Krux) -> &'static str {
    let before = g.clone();
    for seat in [0, 1] {
        let err = g.play(seat, &KruxMove::Part(Part::End {})).unwrap_err();
        assert_eq!(err.rule, "game_over");
        let err = g.play(seat, &KruxMove::Turn(vec![Part::End {}])).unwrap_err();
        assert_eq!(err.rule, "game_over");
        assert!(g.legal_moves(seat).is_empty());
    }
    assert_eq!(g, &before);
    assert_eq!(perft1(g), 0);
    assert!(turn_outcomes(g).is_empty());
    let view = g.view();
    assert_eq!(view.to_move, None);
    assert!(view.turn.available.is_empty());
    assert!(!view.turn.can_end);
    "game_over"
}

/// What a finished turn came to: the boundary position, or the won board.
pub(super) fn end_key(g: &Krux) -> String {
    match g.outcome() {
        Some(outcome) if outcome.reason == EndReason::Hole => {
            format!("won {}", serde_json::to_string(&g.view().pieces).unwrap())
        }
        _ => g.position(),
    }
}

/// Every part the wire can carry on this board (plus one off-board square per kind):
/// an enumeration independent of the rules' own candidate list.
pub(super) fn every_part() -> Vec<Part> {
    let mut squares: Vec<Square> = (0..CELLS).map(name).collect();
    squares.push(Square::new(7, 0).unwrap());
    let mut all: Vec<Part> = Ring::ALL.iter().map(|&ring| Part::Ring { ring }).collect();
    for &s in &squares {
        all.extend([
            Part::Step { to: s },
            Part::Push { target: s },
            Part::Pull { target: s },
            Part::PickUp { target: s },
            Part::SetDown { to: s },
            Part::Jump { to: s },
            Part::Swap { target: s },
        ]);
    }
    all.push(Part::End {});
    all
}

pub(super) const POSITIONS: [(&str, u64); 6] = [
    ("1c1 2e7 3b2 4f6 5a3 6g5 / 1", 2132),
    ("1c1b 2e7g 3b2p 4f6 5a3 6g5 / 4", 90),
    ("1c1g 2e7b 3b2p 4f6 5a3 6g5 / 2", 374),
    ("1c1g 2e7p 3b2 4f6 5a3 6g5 / 3", 578),
    ("1d3p 2e5b 3c4g 4e3 5b5 6f4 / 3", 1810),
    ("1a3b 2b1g 3c1p 4a1 5e5 6a2 / 4", 1),
];

pub(super) fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// A random legal part for the seat in turn.
pub(super) fn random_part(g: &Krux, state: &mut u64) -> Option<Part> {
    let seat = g.to_move()?;
    let legal = g.legal_moves(seat);
    match legal.get((xorshift(state) % legal.len().max(1) as u64) as usize)? {
        KruxMove::Part(p) => Some(*p),
        KruxMove::Turn(_) => None,
    }
}

/// A random complete turn from the current state, played on a clone.
pub(super) fn random_turn(g: &Krux, state: &mut u64) -> Vec<Part> {
    let mut scratch = g.clone();
    let mut parts = Vec::new();
    while let Some(p) = random_part(&scratch, state) {
        let seat = mover(&scratch);
        parts.push(p);
        if scratch
            .play(seat, &KruxMove::Part(p))
            .map(|played| played.turn_over)
            .unwrap_or(true)
        {
            break;
        }
    }
    parts
}

pub(super) fn any_start() -> impl Strategy<Value = KruxPosition> {
    prop_oneof![
        Just(KruxPosition::start()),
        prop::sample::select(
            POSITIONS
                .iter()
                .map(|(text, _)| text.parse::<KruxPosition>().unwrap())
                .collect::<Vec<_>>()
        ),
    ]
}

/// A random valid position: six pieces on distinct squares off the hole, rings on pieces
/// 1…k in a random order, and the piece in turn the rules allow.
pub(super) fn random_position(state: &mut u64) -> KruxPosition {
    let mut loc = [0u8; 6];
    for piece in 0..6 {
        loc[piece] = loop {
            let square = (xorshift(state) % u64::from(CELLS)) as u8;
            if square != HOLE_INDEX && !loc[..piece].contains(&square) {
                break square;
            }
        };
    }
    let handed_out = (xorshift(state) % 4) as usize;
    let mut rings = [None; 6];
    let mut free = Ring::ALL.to_vec();
    for ring in rings.iter_mut().take(handed_out) {
        *ring = Some(free.remove((xorshift(state) % free.len() as u64) as usize));
    }
    let in_turn = if handed_out < 3 {
        handed_out as u8
    } else {
        (xorshift(state) % 6) as u8
    };
    KruxPosition(Board { loc, rings, in_turn })
}
