//! The bot's behaviour on hand-made positions and in whole games.

use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::*;
use spelbord_games::bughouse::parse_board;
use spelbord_games::{EndReason, Rules};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1";

const THINKING: [Strength; 3] = [Strength::Easy, Strength::Medium, Strength::Hard];

fn game(a: &str, b: &str) -> Bughouse {
    let board = |fen: &str| parse_board(fen).unwrap_or_else(|err| panic!("bad test FEN {fen}: {err}"));
    Bughouse::from_positions(board(a), board(b))
}

fn ctx(ms: u64) -> Context {
    Context::with_budget(Duration::from_millis(ms), 11)
}

/// The move `seat` plays, in UCI; panics on a wait or a resignation.
fn uci(g: &Bughouse, seat: Seat, strength: Strength, ms: u64) -> String {
    match g.decide(seat, strength, &ctx(ms)) {
        Decision::Play(m) => m.uci.to_string(),
        other => panic!("{strength:?} did not move: {other:?}"),
    }
}

fn play(g: &mut Bughouse, seat: Seat, text: &str) {
    let m = BughouseMove::parse(text).unwrap_or_else(|| panic!("bad test move {text}"));
    if let Err(err) = g.play(seat, &m) {
        panic!("seat {seat} {text} refused: {} ({})", err.rule, err.message);
    }
}

#[test]
fn every_strength_mates_with_a_drop() {
    // N@f7 is a smothered mate; Rxd3 wins a queen instead.
    let g = game("6rk/6pp/8/8/8/3q4/8/K2R4[N] w - - 0 1", START);
    for strength in THINKING {
        let chosen = uci(&g, 0, strength, 2_000);
        assert_eq!(chosen, "N@f7", "{strength:?}");
        let mut after = g.clone();
        play(&mut after, 0, &chosen);
        assert_eq!(after.outcome().map(|o| o.reason), Some(EndReason::Checkmate));
    }
}

#[test]
fn every_strength_stops_a_drop_mate_against_it() {
    // Black threatens N@f2 mate; Qxd5 wins a rook but allows it.
    let g = game("k7/8/8/3r4/8/8/6PP/3Q2RK[n] w - - 0 1", START);
    for strength in THINKING {
        let chosen = uci(&g, 0, strength, 400);
        let mut after = g.clone();
        play(&mut after, 0, &chosen);
        let black = Node::from_position(after.position(0)).expect("a position");
        assert!(
            tactics::mate_in_one(&black, &partner::flat(0)).is_none(),
            "{strength:?} played {chosen} and allows a mate"
        );
    }
}

#[test]
fn a_blockable_check_is_not_scored_as_mate() {
    // Ra8+ leaves black without a move, but a dropped piece could block: no mate.
    let g = game("6k1/5ppp/8/8/8/8/8/R5K1[] w - - 0 1", START);
    let root = Node::from_position(g.position(0)).expect("a position");
    let cfg = config(&g, 0, Strength::Hard, clock::Plan::FULL);
    let quick = tactics::quick_move(&root, &cfg.eval, &cfg.travel).expect("a move");
    let soon = Instant::now() + Duration::from_millis(300);
    let found = search::think(&root, &cfg, soon, soon, quick);
    assert!(found.score < MATE_BOUND, "{found:?}");
    // With a queen to take instead, no strength goes for the blockable "mate".
    let g = game("6k1/5ppp/8/8/8/8/q7/R5K1[] w - - 0 1", START);
    for strength in THINKING {
        assert_eq!(uci(&g, 0, strength, 400), "a1a2", "{strength:?}");
    }
}

#[test]
fn a_seat_that_cannot_move_waits() {
    // Black is in a blockable check with nothing to drop: it waits for a piece.
    let g = game("R5k1/5ppp/8/8/8/8/8/6K1[] b - - 0 1", START);
    for strength in Strength::ALL {
        assert_eq!(g.decide(1, strength, &ctx(50)), Decision::Wait, "{strength:?}");
    }
}

#[test]
fn a_decision_stays_legal_when_the_pocket_grows() {
    let mut g = Bughouse::new(&Default::default());
    play(&mut g, 0, "e2e4");
    play(&mut g, 1, "e7e5");
    play(&mut g, 2, "e2e4");
    play(&mut g, 3, "d7d5");
    play(&mut g, 2, "g1f3");
    for strength in Strength::ALL {
        let Decision::Play(m) = g.decide(0, strength, &ctx(100)) else {
            panic!("{strength:?} did not move");
        };
        // Meanwhile the partner takes on board B: a white pawn lands in A-white's pocket.
        let mut later = g.clone();
        play(&mut later, 3, "d5e4");
        assert_eq!(later.view().a.pockets.white, "P");
        assert!(later.play(0, &m).is_ok(), "{strength:?}: {}", m.uci);
    }
}

#[test]
fn a_passed_deadline_still_gives_a_legal_move() {
    let mut g = Bughouse::new(&Default::default());
    for (seat, text) in [(0, "e2e4"), (1, "d7d5"), (0, "e4d5"), (2, "d2d4"), (3, "g8f6")] {
        play(&mut g, seat, text);
    }
    let late = Context {
        deadline: Instant::now(),
        ..ctx(0)
    };
    for seat in [1, 2] {
        for strength in Strength::ALL {
            let Decision::Play(m) = g.decide(seat, strength, &late) else {
                panic!("{strength:?} did not move");
            };
            assert!(g.clone().play(seat, &m).is_ok(), "{strength:?}: {}", m.uci);
        }
    }
}

#[test]
fn hard_does_not_give_away_a_piece_that_mates_the_partner() {
    // Nxd6+ wins the queen for the knight, but on board B white (our colour, the
    // partner's opponent) mates at once with a knight drop (N@f7).
    let a = "4k3/2p5/3q4/8/4N3/3P1P2/8/4K3[] w - - 0 1";
    let safe = game(a, START);
    assert_eq!(uci(&safe, 0, Strength::Hard, 600), "e4d6");
    let dangerous = game(a, "6rk/6pp/8/8/8/8/8/K7[] w - - 0 1");
    assert!(partner::drop_mates(
        &dangerous,
        1,
        shakmaty::Color::White,
        shakmaty::Role::Knight
    ));
    assert_ne!(uci(&dangerous, 0, Strength::Hard, 600), "e4d6");
}

/// Plays a whole game with `strengths` per seat and tiny budgets, checking every answer:
/// a move must be legal, a wait only when there is no move. Returns the finished game.
fn play_out(strengths: [Strength; 4], seed: u64) -> Bughouse {
    play_out_from(Bughouse::new(&Default::default()), strengths, seed)
}

/// [`play_out`] from the start `g`.
fn play_out_from(mut g: Bughouse, strengths: [Strength; 4], seed: u64) -> Bughouse {
    let mut rng = SmallRng::seed_from_u64(seed);
    while g.outcome().is_none() {
        let active: Vec<Seat> = g.active_seats().iter().collect();
        let mut waiting = 0;
        let first = rng.random_range(0..active.len());
        for offset in 0..active.len() {
            let seat = active[(first + offset) % active.len()];
            if g.outcome().is_some() || !g.active_seats().contains(seat) {
                continue;
            }
            let context = Context::with_budget(Duration::from_millis(3), rng.random());
            match g.decide(seat, strengths[usize::from(seat)], &context) {
                Decision::Play(m) => {
                    if let Err(err) = g.play(seat, &m) {
                        panic!("seat {seat} played the illegal {} ({})", m.uci, err.message);
                    }
                }
                Decision::Wait => {
                    assert!(g.legal_moves(seat).is_empty(), "seat {seat} waited with moves");
                    waiting += 1;
                }
                Decision::Resign => panic!("seat {seat} resigned"),
            }
        }
        // The rules end a game where both players to move are stuck.
        assert!(waiting < active.len(), "everyone waits and the game runs");
    }
    g
}

#[test]
fn whole_games_against_random_have_no_illegal_move() {
    for (index, strength) in THINKING.into_iter().enumerate() {
        let r = Strength::Random;
        for (seed, seats) in [(1, [strength, r, r, strength]), (2, [r, strength, strength, r])] {
            let g = play_out(seats, seed + 10 * index as u64);
            let outcome = g.outcome().expect("the game ended");
            assert!(g.total_moves() > 0 && outcome.reason != EndReason::Aborted);
        }
    }
}

#[test]
fn bughouse_960_and_house_rules_games_have_no_illegal_move() {
    use spelbord_games::bughouse::{DropChecks, HouseRules};
    let r = Strength::Random;
    let strict = HouseRules {
        pawn_drops_on_seventh: false,
        drop_checks: DropChecks::NoMate,
        ..HouseRules::default()
    };
    for (index, strength) in THINKING.into_iter().enumerate() {
        let number = u16::try_from(100 * index + 7).expect("a position");
        let start = Bughouse::chess960(number).with_rules(strict);
        let g = play_out_from(start, [strength, r, r, strength], 40 + index as u64);
        assert!(g.outcome().is_some() && g.total_moves() > 0, "position {number}");
    }
}

#[test]
fn accepts_no_draw() {
    let g = Bughouse::new(&Default::default());
    assert!(!g.accepts_draw(0, Strength::Hard));
}

/// Prints Hard's depth and speed on a few positions (a measurement, not a check):
/// `cargo test --release --lib bots::bughouse::tests::hard_depth_report -- --ignored --nocapture`.
#[test]
#[ignore]
fn hard_depth_report() {
    let positions = [
        START,
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R[] w KQkq - 0 1",
        "r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1[NPbp] w - - 0 1",
        "r2q1rk1/ppp2ppp/2n5/3pp3/8/2PP1N2/PP3PPP/R2QR1K1[BNPPbnpp] w - - 0 1",
        "r4rk1/ppp2ppp/2n5/3p4/8/2P2N2/PP3PPP/R3R1K1[QRBNNPPPqbbnpp] w - - 0 1",
    ];
    for fen in positions {
        let g = game(fen, START);
        let root = Node::from_position(g.position(0)).expect("a position");
        let cfg = config(&g, 0, Strength::Hard, clock::Plan::FULL);
        let started = Instant::now();
        let quick = tactics::quick_move(&root, &cfg.eval, &cfg.travel).expect("a move");
        eprintln!("quick move in {:?}", started.elapsed());
        let started = Instant::now();
        let end = started + Duration::from_millis(1_000);
        let found = search::think(&root, &cfg, end, end, quick);
        let seconds = started.elapsed().as_secs_f64();
        eprintln!(
            "{fen}: {} depth {} score {} nodes {} ({:.0} kn/s)",
            found.best.to_uci(shakmaty::CastlingMode::Standard),
            found.depth,
            found.score,
            found.nodes,
            found.nodes as f64 / seconds / 1e3
        );
    }
}
