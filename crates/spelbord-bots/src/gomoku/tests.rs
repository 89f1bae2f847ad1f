//! The bot's behaviour through [`Bot::decide`] and [`Bot::accepts_draw`]: whole games,
//! the tactics every strength obeys, Hard's VCF and defence, the variants, the clock.

use std::time::{Duration, Instant};

use super::board::Board;
use super::vcf::{self, Cache, Limits};
use crate::{Bot, Context, Decision, Strength};
use spelbord_games::gomoku::{Gomoku, GomokuMove, GomokuSettings, Opening, Square, Variant};
use spelbord_games::{Rules, Seat};

const THINKERS: [Strength; 3] = [Strength::Easy, Strength::Medium, Strength::Hard];

fn sq(text: &str) -> Square {
    text.parse()
        .unwrap_or_else(|err| panic!("bad test square {text}: {err}"))
}

fn game_with(variant: Variant, x: &[&str], o: &[&str]) -> Gomoku {
    assert!(x.len() == o.len() || x.len() == o.len() + 1, "X moves first");
    let mut game = Gomoku::new(&GomokuSettings {
        variant,
        board_size: 15,
        opening: Opening::Free,
    });
    for (i, at) in x.iter().enumerate() {
        game.play(0, &GomokuMove { at: sq(at) }).expect("X's setup move");
        if let Some(at) = o.get(i) {
            game.play(1, &GomokuMove { at: sq(at) }).expect("O's setup move");
        }
    }
    assert!(game.outcome().is_none(), "the setup must not end the game");
    game
}

fn game(x: &[&str], o: &[&str]) -> Gomoku {
    game_with(Variant::Free, x, o)
}

/// A budget for positions where the answer does not depend on how deep the search gets.
fn ctx(seed: u64) -> Context {
    Context::with_budget(Duration::from_millis(300), seed)
}

/// A generous budget, for answers a search must find.
fn long_ctx(seed: u64) -> Context {
    Context::with_budget(Duration::from_secs(20), seed)
}

fn decide(game: &Gomoku, strength: Strength, ctx: &Context) -> Square {
    let seat = game.to_move().expect("a seat to move");
    match game.decide(seat, strength, ctx) {
        Decision::Play(mv) => mv.at,
        other => panic!("{strength:?} did not play: {other:?}"),
    }
}

/// Plays a whole game between two strengths, checking every move is accepted.
fn play_out(settings: &GomokuSettings, strengths: [Strength; 2], seed: u64) -> Gomoku {
    let mut game = Gomoku::new(settings);
    let mut ply = 0u64;
    while let Some(seat) = game.to_move() {
        let ctx = Context::with_budget(Duration::from_millis(5), seed ^ (ply << 8));
        let Decision::Play(mv) = game.decide(seat, strengths[usize::from(seat)], &ctx) else {
            panic!("{:?} did not play", strengths[usize::from(seat)]);
        };
        game.play(seat, &mv)
            .unwrap_or_else(|err| panic!("{:?} played {}: {err}", strengths[usize::from(seat)], mv.at));
        ply += 1;
    }
    game
}

fn winner(game: &Gomoku) -> Option<Seat> {
    game.outcome().and_then(|o| o.winners().first().copied())
}

#[test]
fn every_strength_plays_whole_games_against_random() {
    let boards = [
        GomokuSettings::default(),
        GomokuSettings {
            variant: Variant::Exact5,
            board_size: 19,
            opening: Opening::Free,
        },
    ];
    for strength in THINKERS {
        for (i, settings) in boards.iter().enumerate() {
            for seed in 0..2u64 {
                let sides = if seed % 2 == 0 {
                    [strength, Strength::Random]
                } else {
                    [Strength::Random, strength]
                };
                let game = play_out(settings, sides, seed + 10 * i as u64);
                let bot_seat = if seed % 2 == 0 { 0 } else { 1 };
                assert_eq!(
                    winner(&game),
                    Some(bot_seat),
                    "{strength:?} on {settings:?}, seed {seed}"
                );
            }
        }
    }
}

#[test]
fn random_stays_random_and_legal() {
    let game = play_out(&GomokuSettings::default(), [Strength::Random, Strength::Random], 3);
    assert!(game.outcome().is_some());
}

#[test]
fn every_strength_completes_its_five() {
    // X: an open four D8..G8 (and O threatens nothing).
    let g = game(&["D8", "E8", "F8", "G8"], &["D10", "F11", "K3"]);
    for strength in THINKERS {
        let at = decide(&g, strength, &ctx(1));
        assert!(at == sq("C8") || at == sq("H8"), "{strength:?} played {at}");
    }
    // O to move with a closed four on column J.
    let g = game(&["A1", "J5", "C3", "M12", "N2"], &["J6", "J7", "J8", "J9"]);
    for strength in THINKERS {
        assert_eq!(decide(&g, strength, &ctx(2)), sq("J10"), "{strength:?}");
    }
}

#[test]
fn every_strength_blocks_a_four() {
    // O has a closed four F10..I10 (E10 is X's); X has nothing better than to block J10.
    let g = game(&["H8", "E10", "B2", "M3"], &["F10", "G10", "H10", "I10"]);
    for strength in THINKERS {
        for seed in 0..3 {
            assert_eq!(decide(&g, strength, &ctx(seed)), sq("J10"), "{strength:?}, seed {seed}");
        }
    }
}

#[test]
fn a_five_comes_before_a_block() {
    // Both sides have a four; X to move wins rather than blocks.
    let g = game(&["C3", "D3", "E3", "F3"], &["C5", "D5", "E5", "F5"]);
    for strength in THINKERS {
        let at = decide(&g, strength, &ctx(4));
        assert!(at == sq("B3") || at == sq("G3"), "{strength:?} played {at}");
    }
}

#[test]
fn every_strength_blocks_an_open_three() {
    // O threatens an open four with G7 H7 I7; X (to move) has no four or three. The only
    // squares that stop it are F7 and J7.
    let g = game(&["H8", "C12", "M12"], &["G7", "H7", "I7"]);
    for strength in THINKERS {
        for seed in 0..3 {
            let at = decide(&g, strength, &ctx(seed));
            assert!(at == sq("F7") || at == sq("J7"), "{strength:?}, seed {seed}: {at}");
        }
    }
}

/// X to move has a VCF of three fours (G8, K5, then the double four H8) and no shorter one:
/// row 8 E8 F8 is closed by O on D8, the diagonal D5 E6 F7 by C4, the anti-diagonal I7 J6
/// by L4 and row 5 L5 M5 N5 by O5.
fn vcf_position() -> Gomoku {
    game(
        &["E8", "F8", "F7", "E6", "D5", "I7", "J6", "L5", "M5", "N5"],
        &["D8", "C4", "L4", "O5", "A15", "D14", "A11", "O15", "L14", "O11"],
    )
}

#[test]
fn the_vcf_position_needs_three_fours() {
    let mut board = Board::from_game(&vcf_position());
    let later = Instant::now() + Duration::from_secs(60);
    let limits = |fours| Limits {
        fours,
        nodes: 1_000_000,
    };
    assert_eq!(vcf::find(&mut board, &mut Cache::new(), limits(1), later), None);
    let win = vcf::find(&mut board, &mut Cache::new(), limits(2), later).expect("a VCF");
    assert_eq!(win.plies, 7, "three fours and the five");
}

#[test]
fn hard_wins_by_continuous_fours() {
    let mut g = vcf_position();
    for x_move in 0..4 {
        let at = decide(&g, Strength::Hard, &long_ctx(x_move));
        let before = Board::from_game(&g);
        assert!(
            before.threat(before.cell(at), 0).is_four(),
            "X move {x_move}: {at} is not a four"
        );
        g.play(0, &GomokuMove { at }).expect("legal");
        if g.outcome().is_some() {
            assert_eq!(winner(&g), Some(0));
            assert!(x_move >= 3, "the five comes after three fours");
            return;
        }
        // O's only answer: block the five.
        let board = Board::from_game(&g);
        let block = board.five_cell(0).expect("a four to block");
        g.play(
            1,
            &GomokuMove {
                at: board.square(block),
            },
        )
        .expect("legal");
    }
    panic!("Hard did not win by its fours: {:?}", g.moves());
}

#[test]
fn exact5_does_not_count_an_overline() {
    // X: D8 E8 F8 G8 and I8. H8 would make six (D8..I8): a win in free, not in exact5,
    // where only C8 completes exactly five.
    let x = ["D8", "E8", "F8", "G8", "I8"];
    let o = ["D10", "F11", "K3", "M13", "A14"];
    for strength in THINKERS {
        let g = game_with(Variant::Exact5, &x, &o);
        let at = decide(&g, strength, &ctx(5));
        assert_eq!(at, sq("C8"), "{strength:?}");
        let mut g = g;
        g.play(0, &GomokuMove { at }).expect("legal");
        assert_eq!(winner(&g), Some(0));
    }
    let g = game_with(Variant::Free, &x, &o);
    let at = decide(&g, Strength::Hard, &ctx(5));
    assert!(at == sq("C8") || at == sq("H8"), "{at}");
}

#[test]
fn exact5_blocks_only_real_fives() {
    // O has J6 K6 L6 M6 and O6: N6 would make six (J6..O6), no threat in exact5, but I6
    // makes exactly five, so X must block I6.
    let g = game_with(
        Variant::Exact5,
        &["H8", "A1", "C1", "E1", "G1"],
        &["J6", "K6", "L6", "M6", "O6"],
    );
    for strength in THINKERS {
        assert_eq!(decide(&g, strength, &ctx(6)), sq("I6"), "{strength:?}");
    }
}

#[test]
fn a_late_call_still_answers_soundly() {
    let late = Context {
        deadline: Instant::now() - Duration::from_secs(1),
        ..ctx(7)
    };
    let g = game(&["D8", "E8", "F8", "G8"], &["D10", "F11", "K3"]);
    for strength in THINKERS {
        let at = decide(&g, strength, &late);
        assert!(at == sq("C8") || at == sq("H8"), "{strength:?} played {at}");
    }
    let g = game(&["H8", "I9"], &["H9"]);
    for strength in Strength::ALL {
        let at = decide(&g, strength, &late);
        assert!(
            g.legal_moves(1).contains(&GomokuMove { at }),
            "{strength:?} played {at}"
        );
    }
}

#[test]
fn the_centre_opening_is_respected() {
    let g = Gomoku::new(&GomokuSettings::default());
    for strength in Strength::ALL {
        assert_eq!(decide(&g, strength, &ctx(8)), sq("H8"), "{strength:?}");
    }
}

#[test]
fn on_an_empty_free_board_the_searching_strengths_start_in_the_centre() {
    // The free opening allows any first square; Medium and Hard take the centre (they
    // once played a random square there, having no stone to play next to).
    let g = game(&[], &[]);
    for strength in [Strength::Medium, Strength::Hard] {
        for seed in 0..4 {
            assert_eq!(decide(&g, strength, &ctx(seed)), sq("H8"), "{strength:?}");
        }
    }
}

#[test]
fn draws_are_refused_in_a_live_game() {
    let g = game(&["H8", "I9", "J7"], &["H9", "G7"]);
    for strength in THINKERS {
        assert!(!g.accepts_draw(0, strength));
        assert!(!g.accepts_draw(1, strength));
    }
}

#[test]
fn a_clearly_lost_seat_accepts_a_draw() {
    // X has an open four D8..G8 and O (to move) has no five: O is lost, X is not.
    let g = game(&["D8", "E8", "F8", "G8"], &["D10", "F11", "K3", "M13"]);
    assert!(g.accepts_draw(1, Strength::Hard));
    assert!(!g.accepts_draw(0, Strength::Hard));
    // X (not to move) faces O's open three with no four of its own and O to move: lost.
    let g = game(&["H8", "C12", "M12", "A1"], &["G7", "H7", "I7"]);
    assert!(g.accepts_draw(0, Strength::Medium));
    assert!(!g.accepts_draw(1, Strength::Medium));
}

#[test]
fn a_nearly_full_quiet_board_accepts_a_draw() {
    // Colour by pairs, shifted two columns per row: no run longer than two in any
    // direction. Leave the top two rows' last squares empty (20 squares, under a tenth).
    let colour = |col: usize, row: usize| ((col + 2 * row) / 2) % 2;
    let mut xs = Vec::new();
    let mut os = Vec::new();
    for row in 0..15u8 {
        for col in 0..15u8 {
            let at = Square::new(col, row).expect("on the board").to_string();
            match colour(usize::from(col), usize::from(row)) {
                0 => xs.push(at),
                _ => os.push(at),
            }
        }
    }
    // Empty 20 squares from the top, keeping X one stone ahead or level.
    let target_x = (225 - 20) / 2 + 1;
    let target_o = 225 - 20 - target_x;
    xs.truncate(target_x);
    os.truncate(target_o);
    let x: Vec<&str> = xs.iter().map(String::as_str).collect();
    let o: Vec<&str> = os.iter().map(String::as_str).collect();
    let g = game(&x, &o);
    for seat in 0..2 {
        assert!(g.accepts_draw(seat, Strength::Hard), "seat {seat}");
    }
}

#[test]
fn odd_board_sizes_do_not_trouble_it() {
    // The rules clamp sizes to 1–26; the engine must cope with any of them.
    for board_size in [1, 2, 5, 7, 26] {
        let settings = GomokuSettings {
            variant: Variant::Free,
            board_size,
            opening: Opening::Center,
        };
        for strength in THINKERS {
            let game = play_out(&settings, [strength, Strength::Random], u64::from(board_size));
            assert!(game.outcome().is_some(), "{strength:?} on {board_size}");
        }
    }
}
