//! Measuring Hard against the Hard of commit `ce8d8fe` (before VCT, [`think::BASELINE`]),
//! in the arena, in-process, with the same clock and alternation as `spelbord arena`;
//! each side searches on a thread of its own (its own transposition table).
//!
//! Ignored by default (a match takes minutes); run one with, for example,
//!
//! ```sh
//! GOMOKU_MATCH="hard baseline 40 200 1" cargo test -p spelbord-bots --release -- \
//!     --ignored --nocapture gomoku::measure
//! ```
//!
//! The five words are `a`, `b` (each `random`, `easy`, `medium`, `hard`, `baseline`, or
//! Hard without one of its new parts: `no-vct`, `no-moves`, `no-doubles`, or the baseline
//! with VCT only, `vct-only`, or Hard with other limits: `hard+` and words joined by `+`,
//! see [`tuned`]), the number of games, milliseconds per move and the seed. With
//! `GOMOKU_MOVES` set, every game's moves are printed too; each side's mean search depth
//! and positions are printed at the end.
//!
//! `gomoku_diagnose` replays one game (`GOMOKU_POSITION`) and tells, position by
//! position, who has a VCF or a VCT with large budgets (the VCT's: `GOMOKU_VCT_DEPTH`
//! threats, default 12, and `GOMOKU_VCT_NODES` positions, default 400,000), and (with
//! `GOMOKU_SAVES`) which moves of a threatened side leave the opponent none: where a lost
//! game was lost.

use std::sync::mpsc;

use serde_json::Value;

use super::{decide_as, search, think, vcf, vct};
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

/// The number in the environment variable `name`, or `default` when it is unset or no
/// number (the measurements' optional settings; `fit.rs` reads its own with it too).
pub fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// One side's own search thread: each side keeps its own transposition table (the table
/// is per thread), so that neither reads scores the other's evaluation wrote. The arena
/// still asks one side at a time and times each answer.
struct Worker {
    /// The positions to answer, one at a time.
    jobs: mpsc::Sender<(AnyGame, Seat, Strength, Context)>,
    /// The answers, in order.
    answers: mpsc::Receiver<Decision<Value>>,
    /// Asks the thread for its search statistics (sent when the jobs end).
    stats: mpsc::Receiver<(u64, f64, f64)>,
}

impl Worker {
    fn new(hard: think::Level) -> Worker {
        let (jobs, inbox) = mpsc::channel::<(AnyGame, Seat, Strength, Context)>();
        let (outbox, answers) = mpsc::channel();
        let (stats_out, stats) = mpsc::channel();
        std::thread::spawn(move || {
            for (game, seat, strength, ctx) in inbox {
                if outbox.send(decide_with(&hard, &game, seat, strength, &ctx)).is_err() {
                    break;
                }
            }
            let _ = stats_out.send(think::stats::summary());
        });
        Worker { jobs, answers, stats }
    }

    /// Ends the thread; its searches: how many, mean depth, mean positions.
    fn finish(self) -> (u64, f64, f64) {
        drop(self.jobs);
        self.stats.recv().unwrap_or_default()
    }

    fn decide(&self, game: &AnyGame, seat: Seat, strength: Strength, ctx: &Context) -> Decision<Value> {
        self.jobs
            .send((game.clone(), seat, strength, ctx.clone()))
            .expect("the side's thread is alive");
        self.answers.recv().expect("the side's thread answers")
    }
}

/// A side's strength, and the Hard it plays: `baseline` is Hard before VCT; `no-vct` and
/// `no-moves` are today's Hard without one of its new parts; `no-doubles` is today's Hard
/// with the hand-set evaluation without its double-threat term (`hand` keeps the term).
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
        "vct-only" => think::Level {
            vct: hard.vct,
            ..think::BASELINE
        },
        "no-doubles" => think::Level {
            search: search::Config {
                double_threats: false,
                learned_eval: false,
                ..hard.search
            },
            ..hard
        },
        other if other.starts_with("hard+") => tuned(hard, &other["hard+".len()..]),
        other => {
            let strength = Strength::from_id(other).unwrap_or_else(|| panic!("no strength {other}"));
            return (strength, hard);
        }
    };
    (Strength::Hard, level)
}

/// Hard with tuning words after `hard+`, joined by `+`: `novct`, `nolv` (no leaf VCF),
/// `wN` (width N), `lvN` (leaf VCF of N positions), `vctN` (root VCT of N positions),
/// `nullR` (null-move pruning with reduction R), `extN` (answers to a three, when at most
/// N, cost no depth), `softP` (no new iteration after P % of the search's time), `hand`
/// (the hand-set evaluation rather than the learned one), `learned` (the learned one),
/// `rfpN` (reverse futility pruning with a margin of N a ply; 0: none).
fn tuned(mut level: think::Level, words: &str) -> think::Level {
    for word in words.split('+') {
        let number = |prefix: &str| -> u64 {
            word[prefix.len()..]
                .parse()
                .unwrap_or_else(|_| panic!("a number in {word}"))
        };
        match word {
            "novct" => level.vct = None,
            "learned" => level.search.learned_eval = true,
            "hand" => level.search.learned_eval = false,
            w if w.starts_with("rfp") => level.search.futility_margin = number("rfp") as i32,
            "nolv" => level.search.leaf_vcf = None,
            w if w.starts_with("null") => level.search.null_reduction = number("null") as i32,
            w if w.starts_with("ext") => level.search.three_extension = number("ext") as usize,
            w if w.starts_with("soft") => level.soft_share = number("soft") as f64 / 100.0,
            w if w.starts_with("lv") => {
                level.search.leaf_vcf = Some(vcf::Limits {
                    fours: 8,
                    nodes: number("lv"),
                })
            }
            w if w.starts_with("vct") => {
                level.vct = Some(vct::Limits {
                    depth: 8,
                    nodes: number("vct"),
                })
            }
            w if w.starts_with('w') => level.search.width = number("w") as usize,
            other => panic!("no tuning word {other}"),
        }
    }
    level
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
        a: a.into(),
        b: b.into(),
        engines: crate::engine::Engines::default(),
        // Measured as the search plays: nobody resigns.
        resign: false,
        games: games.parse().expect("a number of games"),
        ms_per_move: Some(ms.parse().expect("milliseconds per move")),
        budgets: Budgets::default(),
        clock: None,
        seed: seed.parse().expect("a seed"),
    };
    let (worker_a, worker_b) = (Worker::new(a_hard), Worker::new(b_hard));
    let decide_a = |game: &AnyGame, seat, strength, ctx: &Context| worker_a.decide(game, seat, strength, ctx);
    let decide_b = |game: &AnyGame, seat, strength, ctx: &Context| worker_b.decide(game, seat, strength, ctx);
    let deciders: [Option<Decide<'_>>; 2] = [Some(&decide_a), Some(&decide_b)];
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
        if std::env::var_os("GOMOKU_MOVES").is_some() {
            let moves: Vec<&str> = record
                .moves
                .iter()
                .map(|(_, mv)| mv["at"].as_str().unwrap_or("?"))
                .collect();
            println!("  moves: {}", moves.join(" "));
        }
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
    for (name, worker) in [("a", worker_a), ("b", worker_b)] {
        let (n, depth, nodes) = worker.finish();
        println!("{name}: {n} searches, mean depth {depth:.2}, mean positions {nodes:.0}");
    }
    assert_eq!(report.illegal, 0, "illegal answers");
    assert_eq!(report.games.len(), spec.games as usize);
}

/// How fast the main search visits positions: Hard's search to a fixed depth on game-like
/// middle games (`GOMOKU_SPEED="depth positions"`, default `7 30`; a third word `hand`
/// evaluates with the hand-set evaluation), with the thread's CPU time per position and a
/// checksum of the moves and scores found (the same before and after a change that only
/// makes the search faster). Printed, not checked.
#[test]
#[ignore = "a measurement: prints the main search's speed"]
fn search_speed() {
    use super::board::Board;
    use super::tt::Table;
    use rand::{Rng, SeedableRng};
    use spelbord_games::gomoku::Variant;
    use std::time::{Duration, Instant};
    let text = std::env::var("GOMOKU_SPEED").unwrap_or_else(|_| "7 30".to_owned());
    let words: Vec<u64> = text.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    let (depth, count) = match words[..] {
        [d, n] => (d as i32, n),
        _ => panic!("GOMOKU_SPEED needs two numbers (and maybe `hand`), not {text:?}"),
    };
    let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
    let config = search::Config {
        max_depth: depth,
        learned_eval: !text.contains("hand"),
        ..think::HARD.search
    };
    let far = Instant::now() + Duration::from_secs(3600);
    let (mut nodes, mut cpu, mut checksum) = (0u64, Duration::ZERO, 0u64);
    for _ in 0..count {
        // A middle game of 12 to 30 stones, each side playing one of its three best-ordered
        // squares, stopping before anyone has a four to play.
        let mut board = Board::new(15, Variant::Free);
        let stones = rng.random_range(12..30);
        while board.stone_count() < stones {
            let mut moves = search::candidates(&board);
            moves.sort_unstable_by(search::best_first);
            let pick = moves[rng.random_range(0..moves.len().min(3))].0;
            board.play(pick);
            if board.count_from(board.to_move(), super::pattern::Threat::Block4) > 0 {
                break;
            }
        }
        let mut roots = search::threat_candidates(&mut board);
        roots.sort_unstable_by(search::best_first);
        let roots: Vec<_> = roots.into_iter().take(think::HARD.root_width).map(|(c, _)| c).collect();
        let mut table = Table::new(20, u16::MAX, crate::tt::Earlier::Used);
        let mut cache = vcf::Cache::new();
        let before = thread_cpu();
        let found = search::Search::new(&mut board, &mut table, &mut cache, config, far)
            .run(&roots, far)
            .expect("a move");
        cpu += thread_cpu() - before;
        nodes += found.nodes;
        checksum = checksum
            .wrapping_mul(31)
            .wrapping_add(found.best as u64 * 65_536 + found.score as u64);
    }
    println!(
        "search to depth {depth} on {count} positions: {nodes} positions in {:.1} ms of CPU ({:.3} µs a position); checksum {checksum:x}",
        cpu.as_secs_f64() * 1000.0,
        cpu.as_secs_f64() * 1e6 / nodes.max(1) as f64
    );
}

/// This thread's CPU time so far.
fn thread_cpu() -> std::time::Duration {
    let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `time` is a valid timespec for the call to fill.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) } == 0;
    assert!(ok, "the thread's CPU clock");
    std::time::Duration::new(time.tv_sec as u64, time.tv_nsec as u32)
}

/// How fast the VCT search visits positions, on random middle games (a number for the
/// budgets in `think.rs`, printed, not checked).
#[test]
#[ignore = "a measurement: prints the VCT search's speed"]
fn vct_speed() {
    use super::board::Board;
    use super::vct;
    use rand::{Rng, SeedableRng};
    use spelbord_games::gomoku::{Square, Variant};
    use std::time::{Duration, Instant};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(9);
    let (mut nodes, mut spent, mut found) = (0u64, Duration::ZERO, 0);
    for _ in 0..40 {
        let mut board = Board::new(15, Variant::Free);
        for _ in 0..24 {
            let square = Square::new(rng.random_range(3..12), rng.random_range(3..12)).expect("on the board");
            let cell = board.cell(square);
            if board.is_empty(cell) && board.count_from(board.to_move(), super::pattern::Threat::Block4) == 0 {
                board.play(cell);
            }
        }
        let limits = vct::Limits {
            depth: 10,
            nodes: 40_000,
        };
        let start = Instant::now();
        let (win, n) = vct::find_counted(
            &mut board,
            &mut vct::Table::new(),
            limits,
            start + Duration::from_secs(10),
        );
        spent += start.elapsed();
        nodes += n;
        found += usize::from(win.is_some());
    }
    println!(
        "VCT: {nodes} nodes in {:.1} ms ({:.2} µs a node); {found} of 40 positions won",
        spent.as_secs_f64() * 1000.0,
        spent.as_secs_f64() * 1e6 / nodes.max(1) as f64
    );
}

/// What Hard and the baseline play in one position (`GOMOKU_POSITION`: the moves from
/// the start, like `H8 I9 G9`), each asked five times at 200 ms.
#[test]
#[ignore = "a diagnosis: prints the moves chosen in a position"]
fn gomoku_position() {
    use spelbord_games::Rules;
    use spelbord_games::gomoku::{Gomoku, GomokuMove, GomokuSettings, Opening};
    let text = std::env::var("GOMOKU_POSITION").unwrap_or_default();
    let mut game = Gomoku::new(&GomokuSettings {
        opening: Opening::Free,
        ..GomokuSettings::default()
    });
    for word in text.split_whitespace() {
        let seat = game.to_move().expect("a seat to move");
        game.play(
            seat,
            &GomokuMove {
                at: word.parse().expect("a square"),
            },
        )
        .expect("a legal move");
    }
    let seat = game.to_move().expect("a seat to move");
    for (name, level) in [("hard", think::HARD), ("baseline", think::BASELINE)] {
        let moves: Vec<String> = (0..5)
            .map(|seed| {
                let ctx = Context::with_budget(std::time::Duration::from_millis(200), seed);
                match decide_as(&game, seat, Strength::Hard, &level, &ctx) {
                    Decision::Play(mv) => mv.at.to_string(),
                    other => format!("{other:?}"),
                }
            })
            .collect();
        println!("{name}: {}", moves.join(" "));
    }
}

/// For every position of a game (`GOMOKU_POSITION`: the moves from the start), whether
/// the side to move has a VCF or a VCT, and whether the other side would have one were it
/// their move, with large budgets: where a lost game was lost.
#[test]
#[ignore = "a diagnosis: prints the threat sequences of a game's positions"]
fn gomoku_diagnose() {
    use super::board::Board;
    use spelbord_games::gomoku::Variant;
    use std::time::{Duration, Instant};
    let text = std::env::var("GOMOKU_POSITION").unwrap_or_default();
    let mut board = Board::new(15, Variant::Free);
    let limits = vct::Limits {
        depth: env_number("GOMOKU_VCT_DEPTH", 12),
        nodes: env_number("GOMOKU_VCT_NODES", 400_000),
    };
    let vcf_limits = vcf::Limits {
        fours: 30,
        nodes: 300_000,
    };
    for (ply, word) in text.split_whitespace().enumerate() {
        let far = Instant::now() + Duration::from_secs(60);
        let side = if board.to_move() == 0 { "X" } else { "O" };
        let mut cache = vcf::Cache::new();
        let own_vcf = vcf::find(&mut board, &mut cache, vcf_limits, far).map(|w| board.square(w.first).to_string());
        let own_vct =
            vct::find(&mut board, &mut vct::Table::new(), limits, far).map(|w| board.square(w.first).to_string());
        let their = vcf::threatened(&mut board, &mut cache, vcf_limits, far)
            || vct::threatened(&mut board, &mut vct::Table::new(), limits, far);
        let mut saves = Vec::new();
        if their && own_vcf.is_none() && own_vct.is_none() && std::env::var_os("GOMOKU_SAVES").is_some() {
            let mut defence = think::Defence {
                cache: &mut cache,
                table: &mut vct::Table::new(),
                vcf: vcf_limits,
                vct: vct::Limits {
                    nodes: 4 * 100_000,
                    ..limits
                },
                deadline: far,
            };
            for (cell, _) in search::candidates(&board) {
                if !defence.leaves_win(&mut board, cell) {
                    saves.push(board.square(cell).to_string());
                }
            }
        }
        println!(
            "{:>3} {side} to move, plays {word}: own VCF {own_vcf:?}, own VCT {own_vct:?}, opponent threatens {their} {}",
            ply + 1,
            if their {
                format!("saves {saves:?}")
            } else {
                String::new()
            }
        );
        board.play(board.cell(word.parse().expect("a square")));
    }
}
