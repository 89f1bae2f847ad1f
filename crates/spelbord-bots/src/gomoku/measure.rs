//! Measuring Hard against the Hard of commit `ce8d8fe` (before VCT, [`think::BASELINE`]),
//! in the arena, in-process, with the same clock and alternation as `spelbord arena`.
//!
//! Ignored by default (a match takes minutes); run one with, for example,
//!
//! ```sh
//! GOMOKU_MATCH="hard baseline 40 200 1" cargo test -p spelbord-bots --release -- \
//!     --ignored --nocapture gomoku::measure
//! ```
//!
//! The five words are `a`, `b` (each `random`, `easy`, `medium`, `hard` or `baseline`),
//! the number of games, milliseconds per move and the seed.

use serde_json::Value;

use super::{decide_as, think};
use crate::arena::{self, Decide, MatchSpec};
use crate::{Budgets, Context, Decision, Strength, decide};
use spelbord_games::settings::SettingsReader;
use spelbord_games::{AnyGame, AnySettings, GameKind, Seat};

/// Hard as it was: every other strength and game as today.
fn baseline(game: &AnyGame, seat: Seat, strength: Strength, ctx: &Context) -> Decision<Value> {
    match game {
        AnyGame::Gomoku(game) => decide_as(game, seat, strength, &think::BASELINE, ctx)
            .map(|mv| serde_json::to_value(mv).unwrap_or(Value::Null)),
        other => decide(other, seat, strength, ctx),
    }
}

/// A side's strength and whether it plays the baseline.
fn side(word: &str) -> (Strength, bool) {
    match word {
        "baseline" => (Strength::Hard, true),
        other => (
            Strength::from_id(other).unwrap_or_else(|| panic!("no strength {other}")),
            false,
        ),
    }
}

#[test]
#[ignore = "a measurement of minutes: see the module's documentation"]
fn gomoku_match() {
    let text = std::env::var("GOMOKU_MATCH").unwrap_or_else(|_| "hard baseline 2 50 1".to_owned());
    let words: Vec<&str> = text.split_whitespace().collect();
    let [a, b, games, ms, seed] = words[..] else {
        panic!("GOMOKU_MATCH needs five words, not {text:?}");
    };
    let ((a, a_old), (b, b_old)) = (side(a), side(b));
    let settings = AnySettings::read(GameKind::Gomoku, &mut SettingsReader::new(Default::default()))
        .expect("default gomoku settings");
    let spec = MatchSpec {
        settings,
        a,
        b,
        games: games.parse().expect("a number of games"),
        ms_per_move: Some(ms.parse().expect("milliseconds per move")),
        budgets: Budgets::default(),
        clock: None,
        seed: seed.parse().expect("a seed"),
    };
    let pick = |old: bool| -> Decide<'static> { if old { &baseline } else { &decide } };
    let report = arena::play_match_with(&spec, [pick(a_old), pick(b_old)], |number, record| {
        let result = match record.a_score() {
            1.0 => "a wins",
            0.0 => "b wins",
            _ => "draw",
        };
        println!(
            "game {number}/{}: a as {}: {result} ({} moves)",
            spec.games,
            if record.a_seats.contains(&0) { "X" } else { "O" },
            record.plies
        );
    });
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    let (mean_a, p99_a) = arena::mean_and_p99(&report.think_a);
    let (mean_b, p99_b) = arena::mean_and_p99(&report.think_b);
    println!(
        "{text}: a won {}, drew {}, lost {}: {:.1} % of the points for a; think a mean {:.1} ms, p99 {:.1} ms; b mean {:.1} ms, p99 {:.1} ms",
        report.wins(),
        report.draws(),
        report.losses(),
        100.0 * report.a_share(),
        ms(mean_a),
        ms(p99_a),
        ms(mean_b),
        ms(p99_b)
    );
    assert_eq!(report.illegal, 0, "illegal answers");
    assert_eq!(report.games.len(), spec.games as usize);
}
