//! A tuning bench (test builds only): two styles, given in environment variables, play
//! pairs of games from random two-ply openings, each opening once with either colour.
//!
//! ```text
//! TUNE_A='hard:w=120,3,6,10,20,24,2,12,12' TUNE_B=medium TUNE_PAIRS=20 TUNE_MS=50 \
//!   cargo test --release --lib bots::lines_of_action::tune -- --ignored --nocapture
//! ```
//! A style is `easy`, `medium` or `hard`, then optionally `:w=` nine weights (as in
//! [`Knowledge`]), `:d=` the deepest iteration, `:lw=0|1` the horizon's win check,
//! `:ext=` threat extensions, `:k=0|1` killers, `:pvs=0|1`, `:null=0|1` null moves,
//! `:lmr=0|1` late-move reductions, `:share=` the time share (%) after which no iteration
//! starts, `:noise=`.

use std::time::Duration;

use rand::Rng;
use rand::SeedableRng;
use rand::rngs::SmallRng;

use super::eval::Knowledge;
use super::{Style, choose};
use crate::{Context, Strength};
use spelbord_games::lines_of_action::{LinesOfAction, LoaSettings};
use spelbord_games::{GameResult, Rules, Seat};

fn parse(text: &str) -> Style {
    let mut parts = text.split(':');
    let base = parts.next().and_then(Strength::from_id).unwrap_or(Strength::Hard);
    let mut style = Style::of(base);
    for part in parts {
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        let number = value.parse::<i32>().unwrap_or(0);
        match &mut style {
            Style::OnePly { knowledge, noise } => match key {
                "w" => *knowledge = weights(value),
                "noise" => *noise = number,
                _ => panic!("unknown key {key} for a one-ply style"),
            },
            Style::Search(profile) => match key {
                "w" => profile.knowledge = weights(value),
                "d" => profile.max_depth = number,
                "lw" => profile.leaf_wins = number != 0,
                "ext" => profile.threat_extensions = number,
                "k" => profile.killers = number != 0,
                "pvs" => profile.pvs = number != 0,
                "noise" => profile.noise = number,
                "null" => profile.null_move = number != 0,
                "lmr" => profile.lmr = number != 0,
                "share" => profile.start_share = number.unsigned_abs(),
                _ => panic!("unknown key {key}"),
            },
        }
    }
    style
}

fn weights(text: &str) -> Knowledge {
    let w: Vec<i32> = text.split(',').map(|n| n.parse().expect("a weight")).collect();
    assert_eq!(w.len(), 9, "nine weights");
    Knowledge {
        concentration: w[0],
        centre: w[1],
        mass: w[2],
        quads: w[3],
        groups: w[4],
        pairs: w[5],
        mobility: w[6],
        immobile: w[7],
        tempo: w[8],
    }
}

/// Plays one game; the score of the style on seat 0 (black).
fn play(opening: &LinesOfAction, black: Style, white: Style, ms: u64, seed: u64) -> (f64, u32) {
    let mut g = opening.clone();
    let mut plies = 0;
    while let Some(seat) = g.to_move() {
        if plies >= 300 {
            return (0.5, plies);
        }
        let style = if seat == 0 { black } else { white };
        let ctx = Context::with_budget(Duration::from_millis(ms), seed ^ u64::from(plies));
        let mv = choose(&g, style, &ctx);
        if g.play(seat, &mv).is_err() {
            panic!("illegal {mv} in {}", g.position());
        }
        plies += 1;
    }
    let score = match g.outcome().map(|o| &o.result) {
        Some(GameResult::Win { winners }) if winners.contains(&(0 as Seat)) => 1.0,
        Some(GameResult::Win { .. }) => 0.0,
        _ => 0.5,
    };
    (score, plies)
}

#[test]
#[ignore]
fn tune() {
    let env = |key: &str, default: &str| std::env::var(key).unwrap_or_else(|_| default.to_owned());
    let a = parse(&env("TUNE_A", "hard"));
    let b = parse(&env("TUNE_B", "medium"));
    let pairs: u64 = env("TUNE_PAIRS", "10").parse().expect("a number");
    let ms: u64 = env("TUNE_MS", "50").parse().expect("a number");
    let mut rng = SmallRng::seed_from_u64(env("TUNE_SEED", "1").parse().expect("a number"));
    let (mut points, mut games, mut plies) = (0.0, 0, 0);
    for pair in 0..pairs {
        let mut opening = LinesOfAction::new(&LoaSettings::default());
        for _ in 0..2 {
            let seat = opening.to_move().expect("the opening runs");
            let moves = opening.legal_moves(seat);
            let mv = moves[rng.random_range(0..moves.len())];
            opening.play(seat, &mv).expect("a legal move");
        }
        let (black, n1) = play(&opening, a, b, ms, pair);
        let (white, n2) = play(&opening, b, a, ms, pair);
        points += black + (1.0 - white);
        games += 2;
        plies += n1 + n2;
        println!("pair {pair}: a as black {black}, a as white {}", 1.0 - white);
    }
    println!(
        "a scored {points} of {games} ({:.1} %), {:.1} plies a game",
        100.0 * points / f64::from(games),
        f64::from(plies) / f64::from(games)
    );
}
