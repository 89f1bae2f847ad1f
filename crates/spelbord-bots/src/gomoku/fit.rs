//! Fitting the learned evaluation (tests only): reads positions labelled with an outside
//! engine's evaluation, fits the weights of [`learned::features`] so that the logistic of
//! the score predicts the label's, and writes `learned/weights.rs`.
//!
//! Ignored by default; `benches/outside-gomoku/fit-eval.sh` makes the positions and runs
//!
//! ```sh
//! GOMOKU_FIT="positions.txt ..." GOMOKU_FIT_OUT=$PWD/crates/spelbord-bots/src/gomoku/learned/weights.rs \
//!     cargo test -p spelbord-bots --release -- --ignored --nocapture gomoku::fit
//! ```
//!
//! (Absolute paths: the test runs in the crate's directory. Without `GOMOKU_FIT_OUT` it
//! only prints the errors; `GOMOKU_FIT_EPOCHS` changes the 60 epochs.)
//!
//! A line of a positions file is the label and the moves that lead to the position (the
//! side to move follows from their number): `123 H8 I9 …`, the label in the engine's
//! units for the side to move, or `+M7` / `-M4` for a win or a loss it found. A label of
//! `v` counts as a chance `1 / (1 + e^(-v / SCALE))` for the side to move; wins as 1 and
//! losses as 0. Positions the search never evaluates (a five to make or to block, an open
//! four against no five) are left out. Every tenth game is held out to measure the fit.

use std::fmt::Write as _;

use rand::seq::SliceRandom;
use rand::{SeedableRng, rngs::StdRng};

use super::board::Board;
use super::eval;
use super::learned::{self, BEST_PAIR, FEATURES, OWN_BEST, OWN_DOUBLES, SHAPES, THEIR_BEST, THEIR_DOUBLES};
use super::measure::env_number;
use super::pattern::Threat;
use super::search;
use spelbord_games::gomoku::Variant;

/// The engine's units per unit of log-odds (its evaluation of `SCALE` is a chance of
/// about 73 %); the learned score is in the same units.
const SCALE: f64 = 200.0;

/// One position: its features and the chance its label gives the side to move.
struct Sample {
    features: Vec<(usize, f32)>,
    chance: f64,
    /// The hand-set evaluation, to compare with.
    hand: i32,
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The chance a label gives, or `None` for a line that is no label.
fn chance(label: &str) -> Option<f64> {
    match label.as_bytes() {
        [b'+', b'M', ..] => Some(1.0),
        [b'-', b'M', ..] => Some(0.0),
        _ => label.parse::<f64>().ok().map(|v| logistic(v / SCALE)),
    }
}

/// Whether the search evaluates positions like this one statically: the threats do not
/// decide it ([`search::decided_in`]) and no opponent five is to be stopped.
fn evaluated(board: &Board) -> bool {
    let them = 1 - board.to_move();
    search::decided_in(board).is_none() && board.count(them, Threat::Five) == 0
}

/// The samples of one file, split into (fitting, held out).
fn read(path: &str) -> (Vec<Sample>, Vec<Sample>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (mut fit, mut held) = (Vec::new(), Vec::new());
    let (mut game, mut last_len) = (0usize, usize::MAX);
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let Some(chance) = words.next().and_then(chance) else {
            continue;
        };
        let moves: Vec<&str> = words.collect();
        if moves.len() <= last_len {
            game += 1;
        }
        last_len = moves.len();
        let mut board = Board::new(15, Variant::Free);
        let mut legal = true;
        for m in &moves {
            match m.parse() {
                Ok(square) if board.is_empty(board.cell(square)) => board.play(board.cell(square)),
                _ => legal = false,
            }
        }
        if !legal || !evaluated(&board) {
            continue;
        }
        let sample = Sample {
            features: learned::features(&board),
            chance,
            hand: eval::evaluate_with(&board, true),
        };
        if game % 10 == 0 {
            held.push(sample)
        } else {
            fit.push(sample)
        }
    }
    (fit, held)
}

fn score(weights: &[f64], sample: &Sample) -> f64 {
    sample.features.iter().map(|&(f, n)| weights[f] * f64::from(n)).sum()
}

/// The mean squared error of the predicted chances.
fn error(samples: &[Sample], predict: impl Fn(&Sample) -> f64) -> f64 {
    samples.iter().map(|s| (predict(s) - s.chance).powi(2)).sum::<f64>() / samples.len().max(1) as f64
}

/// Adam on the squared error of the predicted chances, in minibatches.
fn fit(samples: &mut [Sample], held: &[Sample], epochs: usize) -> Vec<f64> {
    let (beta1, beta2) = (0.9, 0.999);
    let mut w = vec![0.0; FEATURES];
    let (mut m, mut v) = (vec![0.0; FEATURES], vec![0.0; FEATURES]);
    let mut grad = vec![0.0; FEATURES];
    let mut rng = StdRng::seed_from_u64(1);
    let mut step = 0;
    for epoch in 0..epochs {
        // The step falls from 0.5 to 0.025 of the engine's units over the epochs.
        let rate = 0.5 * (1.0 - 0.95 * epoch as f64 / epochs.max(1) as f64);
        samples.shuffle(&mut rng);
        for batch in samples.chunks(256) {
            grad.iter_mut().for_each(|g| *g = 0.0);
            for s in batch {
                let p = logistic(score(&w, s) / SCALE);
                let d = 2.0 * (p - s.chance) * p * (1.0 - p) / SCALE;
                for &(f, n) in &s.features {
                    grad[f] += d * f64::from(n);
                }
            }
            step += 1;
            let (c1, c2) = (1.0 - f64::powi(beta1, step), 1.0 - f64::powi(beta2, step));
            for f in 0..FEATURES {
                if grad[f] == 0.0 && m[f] == 0.0 {
                    continue;
                }
                let g = grad[f] / batch.len() as f64;
                m[f] = beta1 * m[f] + (1.0 - beta1) * g;
                v[f] = beta2 * v[f] + (1.0 - beta2) * g * g;
                w[f] -= rate * (m[f] / c1) / ((v[f] / c2).sqrt() + 1e-12);
            }
        }
        if epoch % 10 == 9 {
            let predict = |s: &Sample| logistic(score(&w, s) / SCALE);
            println!(
                "epoch {}: error {:.5}, held out {:.5}",
                epoch + 1,
                error(samples, predict),
                error(held, predict)
            );
        }
    }
    w
}

/// The Rust source of `learned/weights.rs` for `w`.
fn source(w: &[f64], positions: usize, files: &str) -> String {
    let int = |x: f64| x.round().clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16;
    // An array's numbers, sixteen a line, each line indented by `indent`.
    let list = |range: std::ops::Range<usize>, indent: &str| {
        let numbers: Vec<String> = range.map(|f| int(w[f]).to_string()).collect();
        let lines: Vec<String> = numbers
            .chunks(16)
            .map(|c| format!("{indent}{},", c.join(", ")))
            .collect();
        lines.join("\n")
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "//! The learned evaluation's weights, written by `fit.rs` from {positions} positions of\n\
         //! {files}.\n\
         //! Do not edit by hand. Units: the engine's, {SCALE} to a unit of log-odds.\n"
    );
    let _ = writeln!(out, "#[rustfmt::skip]");
    let _ = writeln!(
        out,
        "pub const SQUARE: [[i16; {SHAPES}]; 2] = [\n    [\n{}\n    ],\n    [\n{}\n    ],\n];",
        list(0..SHAPES, "        "),
        list(SHAPES..2 * SHAPES, "        ")
    );
    let groups = [
        ("OWN_BEST", OWN_BEST..THEIR_BEST),
        ("THEIR_BEST", THEIR_BEST..OWN_DOUBLES),
        ("OWN_DOUBLES", OWN_DOUBLES..THEIR_DOUBLES),
        ("THEIR_DOUBLES", THEIR_DOUBLES..BEST_PAIR),
        ("BEST_PAIR", BEST_PAIR..FEATURES),
    ];
    for (name, range) in groups {
        let _ = writeln!(out, "#[rustfmt::skip]");
        let _ = writeln!(
            out,
            "pub const {name}: [i16; {}] = [\n{}\n];",
            range.len(),
            list(range, "    ")
        );
    }
    out
}

#[test]
#[ignore = "fits the learned evaluation from GOMOKU_FIT's files"]
fn fit_eval() {
    let files = std::env::var("GOMOKU_FIT").expect("GOMOKU_FIT names the positions files");
    let epochs = env_number("GOMOKU_FIT_EPOCHS", 60);
    let (mut fitting, mut held) = (Vec::new(), Vec::new());
    for path in files.split_whitespace() {
        let (f, h) = read(path);
        fitting.extend(f);
        held.extend(h);
    }
    println!("{} positions to fit, {} held out", fitting.len(), held.len());
    let best_scale = (1..=60)
        .map(|k| f64::from(k) * 25.0)
        .min_by(|&a, &b| {
            let ea = error(&fitting, |s| logistic(f64::from(s.hand) / a));
            let eb = error(&fitting, |s| logistic(f64::from(s.hand) / b));
            ea.total_cmp(&eb)
        })
        .unwrap_or(SCALE);
    let w = fit(&mut fitting, &held, epochs);
    println!(
        "held out: learned error {:.5}; hand-set evaluation error {:.5} (at its best scale, {best_scale}); \
         a constant 0.5: {:.5}",
        error(&held, |s| logistic(score(&w, s) / SCALE)),
        error(&held, |s| logistic(f64::from(s.hand) / best_scale)),
        error(&held, |_| 0.5),
    );
    if let Ok(out) = std::env::var("GOMOKU_FIT_OUT") {
        let names: Vec<&str> = files
            .split_whitespace()
            .map(|p| p.rsplit('/').next().unwrap_or(p))
            .collect();
        std::fs::write(&out, source(&w, fitting.len() + held.len(), &names.join(", "))).expect("write the weights");
        println!("weights written to {out}");
    }
}
