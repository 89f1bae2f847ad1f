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
//! The five words are `a`, `b` (each `random`, `easy`, `medium`, `hard`, `baseline`, or
//! Hard without one of its new parts: `no-vct`, `no-moves`, `no-doubles`), the number of
//! games, milliseconds per move and the seed.

use serde_json::Value;

use super::{decide_as, search, think};
use crate::arena::{self, Decide, MatchSpec};
use crate::{Budgets, Context, Decision, Strength, decide};
use spelbord_games::settings::SettingsReader;
use spelbord_games::{AnyGame, AnySettings, GameKind, Seat};

/// [`decide`] with `hard` as Hard (every other strength and game as today).
fn decide_with(hard: &think::Level, game: &AnyGame, seat: Seat, strength: Strength, ctx: &Context) -> Decision<Value> {
    match game {
        AnyGame::Gomoku(game) => {
            decide_as(game, seat, strength, hard, ctx).map(|mv| serde_json::to_value(mv).unwrap_or(Value::Null))
        }
        other => decide(other, seat, strength, ctx),
    }
}

/// A side's strength, and the Hard it plays: `baseline` is Hard before VCT; `no-vct`,
/// `no-moves` and `no-doubles` are today's Hard without one of its new parts.
fn side(word: &str) -> (Strength, think::Level) {
    let hard = think::HARD;
    let level = match word {
        "baseline" => think::BASELINE,
        "no-vct" => think::Level { vct: None, ..hard },
        "no-moves" => think::Level {
            search: search::Config {
                threat_moves: false,
                ..hard.search
            },
            ..hard
        },
        "no-doubles" => think::Level {
            search: search::Config {
                double_threats: false,
                ..hard.search
            },
            ..hard
        },
        other => {
            let strength = Strength::from_id(other).unwrap_or_else(|| panic!("no strength {other}"));
            return (strength, hard);
        }
    };
    (Strength::Hard, level)
}

#[test]
#[ignore = "a measurement of minutes: see the module's documentation"]
fn gomoku_match() {
    let text = std::env::var("GOMOKU_MATCH").unwrap_or_else(|_| "hard baseline 2 50 1".to_owned());
    let words: Vec<&str> = text.split_whitespace().collect();
    let [a, b, games, ms, seed] = words[..] else {
        panic!("GOMOKU_MATCH needs five words, not {text:?}");
    };
    let ((a, a_hard), (b, b_hard)) = (side(a), side(b));
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
    let decide_a = |game: &AnyGame, seat, strength, ctx: &Context| decide_with(&a_hard, game, seat, strength, ctx);
    let decide_b = |game: &AnyGame, seat, strength, ctx: &Context| decide_with(&b_hard, game, seat, strength, ctx);
    let deciders: [Decide<'_>; 2] = [&decide_a, &decide_b];
    let report = arena::play_match_with(&spec, deciders, |number, record| {
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
