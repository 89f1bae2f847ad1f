//! The Krux bot's tests: whole games against the random mover, wins in one, never leaving
//! a win in one, late calls, draw offers. None depends on the clock: every answer tested
//! here is the same however long the bot may think.

use std::time::{Duration, Instant};

use super::*;
use spelbord_games::krux::winning_turn;
use spelbord_games::{EndReason, Rules};

const STRENGTHS: [Strength; 3] = [Strength::Easy, Strength::Medium, Strength::Hard];

fn ctx(ms: u64, seed: u64) -> Context {
    Context::with_budget(Duration::from_millis(ms), seed)
}

/// Plays the bot's answer; panics if there is none or it is refused.
fn answer(game: &mut Krux, strength: Strength, ctx: &Context) {
    let seat = game.to_move().expect("the game is running");
    match game.decide(seat, strength, ctx) {
        Decision::Play(mv) => {
            let played = game
                .play(seat, &mv)
                .unwrap_or_else(|err| panic!("{strength:?} played an illegal turn {mv:?}: {err}"));
            assert!(played.turn_over, "{strength:?} played half a turn");
        }
        other => panic!("{strength:?} did not play: {other:?}"),
    }
}

#[test]
fn every_strength_finishes_games_against_random() {
    for (n, strength) in [Strength::Random, Strength::Easy, Strength::Medium, Strength::Hard]
        .into_iter()
        .enumerate()
    {
        for seat in [0u8, 1] {
            let mut game = Krux::new(&Default::default());
            let mut turns = 0;
            while let Some(to_move) = game.to_move() {
                let who = if to_move == seat { strength } else { Strength::Random };
                answer(&mut game, who, &ctx(5, 1000 * n as u64 + u64::from(seat) * 100 + turns));
                turns += 1;
            }
            assert!(game.outcome().is_some());
        }
    }
}

#[test]
fn each_strength_takes_a_win_in_one() {
    // Piece 3 (green) on c4 pulls black 6 from f4 over e4 into the hole.
    for strength in STRENGTHS {
        let mut game = Krux::from_position("1d3p 2e5b 3c4g 4e3 5b5 6f4 / 3").unwrap();
        answer(&mut game, strength, &ctx(1_000, 7));
        let outcome = game.outcome().expect("won");
        assert_eq!(
            (outcome.reason, outcome.winners()),
            (EndReason::Hole, &[0][..]),
            "{strength:?}"
        );
    }
}

#[test]
fn each_strength_never_leaves_a_win_in_one_when_it_can_avoid_it() {
    // From the start, black can win at once after 1,636 of white's 2,132 first turns.
    for strength in STRENGTHS {
        for seed in [1, 2] {
            let mut game = Krux::new(&Default::default());
            answer(&mut game, strength, &ctx(5, seed));
            assert_eq!(
                winning_turn(&game),
                None,
                "{strength:?} let black win: {}",
                game.position()
            );
        }
    }
    // Piece 4 stands next to the hole's row with white's pieces around; most of its turns
    // leave white a win.
    let position = "1c5b 2e5g 3d2p 4d5 5c3 6f6 / 4";
    let game = Krux::from_position(position).unwrap();
    let turns = root::turns(&game);
    let losing = turns.iter().filter(|turn| turn.lets_opponent_win()).count();
    assert!(
        losing > 0 && losing < turns.len(),
        "{losing} of {} turns lose",
        turns.len()
    );
    for strength in STRENGTHS {
        let mut game = game.clone();
        answer(&mut game, strength, &ctx(5, 3));
        assert_eq!(
            winning_turn(&game),
            None,
            "{strength:?} let white win: {}",
            game.position()
        );
    }
}

#[test]
fn a_call_past_its_deadline_still_plays_a_safe_turn() {
    for strength in [Strength::Random, Strength::Easy, Strength::Medium, Strength::Hard] {
        let mut game = Krux::new(&Default::default());
        let late = Context {
            deadline: Instant::now(),
            ..ctx(0, 5)
        };
        answer(&mut game, strength, &late);
        if strength != Strength::Random {
            assert_eq!(winning_turn(&game), None, "{strength:?}");
        }
    }
}

#[test]
fn accepts_a_draw_when_lost_not_when_winning() {
    // Piece 3 (white) can win now: black is lost, white is not.
    let game = Krux::from_position("1d3p 2e5b 3c4g 4e3 5b5 6f4 / 3").unwrap();
    for strength in STRENGTHS {
        assert!(game.accepts_draw(1, strength));
        assert!(!game.accepts_draw(0, strength));
    }
}
