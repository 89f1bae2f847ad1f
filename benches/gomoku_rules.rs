//! Criterion benchmarks of the pure Gomoku rules (no I/O): whole games replayed through
//! `Gomoku::play`, a single move on a crowded board (winning and not), `legal_moves`, the
//! public view and its JSON, and the CPU part of what the table actor does for every move.
//!
//! Run with `cargo bench --bench gomoku_rules` (figures and reading notes in
//! `docs/benchmarks.md`). Every position is built deterministically, so runs compare.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use serde::Serialize;
use serde_json::{Value, json};
use spelbord::games::gomoku::{Gomoku, GomokuMove, GomokuSettings, Opening, Square, Variant};
use spelbord::games::{AnyGame, AnySettings, EndReason, Rules, Seat};
use spelbord::protocol::{ClientMsg, parse_client_msg};

/// A replayed game must last at least this many plies before its winning move.
const MIN_PLIES: usize = 120;

/// A 64-bit linear congruential generator (Knuth's MMIX constants): deterministic and
/// dependency-free, good enough to pick moves.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next()).expect("a 31-bit number fits in usize") % n
    }
}

fn settings(opening: Opening) -> GomokuSettings {
    GomokuSettings {
        variant: Variant::Free,
        board_size: 15,
        opening,
    }
}

fn square(col: u8, row: u8) -> Square {
    Square::new(col, row).expect("a square on the 15 × 15 board")
}

/// The seat whose turn it is in a game that is not over.
fn to_move(game: &Gomoku) -> Seat {
    game.to_move().expect("the game is not over")
}

/// The first game (seeds 1, 2, …) in which uniformly random legal moves, drawn by the
/// LCG, give no five-in-a-row before ply `MIN_PLIES` and then end in one: a long game
/// whose last move wins. Centre opening, so the first move is H8.
fn long_random_game() -> Vec<GomokuMove> {
    for seed in 1..=10_000u64 {
        let mut rng = Lcg(seed);
        let mut game = Gomoku::new(&settings(Opening::Center));
        let mut moves = Vec::new();
        while let Some(seat) = game.to_move() {
            let legal = game.legal_moves(seat);
            let mv = legal[rng.below(legal.len())];
            game.play(seat, &mv).expect("a move from legal_moves is legal");
            moves.push(mv);
        }
        let won = game.outcome().is_some_and(|o| o.reason == EndReason::FiveInARow);
        if won && moves.len() > MIN_PLIES {
            return moves;
        }
    }
    panic!("no seed up to 10 000 gives a random game longer than {MIN_PLIES} plies");
}

/// The line-free fill of the whole board in play order (X, O, X, …): X where
/// `(col + 2 * row) % 4 < 2` (0-based, row 0 at the bottom), which has no three in a row
/// on any axis, so the game ends after 225 plies as a draw by a full board.
fn no_line_fill() -> Vec<GomokuMove> {
    let (mut xs, mut os) = (Vec::new(), Vec::new());
    for row in 0..15u8 {
        for col in 0..15u8 {
            let at = square(col, row);
            if (usize::from(col) + 2 * usize::from(row)) % 4 < 2 {
                xs.push(GomokuMove { at });
            } else {
                os.push(GomokuMove { at });
            }
        }
    }
    let mut order = Vec::with_capacity(225);
    for ply in 0..225 {
        order.push(if ply % 2 == 0 { xs[ply / 2] } else { os[ply / 2] });
    }
    order
}

/// Plays `moves` from the start with `opening`; every move must be legal.
fn replay(opening: Opening, moves: &[GomokuMove]) -> Gomoku {
    let mut game = Gomoku::new(&settings(opening));
    for mv in moves {
        game.play(to_move(&game), mv).expect("a replayed move is legal");
    }
    game
}

fn whole_games(c: &mut Criterion) {
    let random = long_random_game();
    let fill = no_line_fill();
    let check = replay(Opening::Center, &random);
    assert_eq!(check.outcome().map(|o| o.reason), Some(EndReason::FiveInARow));
    let check = replay(Opening::Free, &fill);
    assert_eq!(check.outcome().map(|o| o.reason), Some(EndReason::BoardFull));
    eprintln!(
        "gomoku_rules: the random game (LCG) has {} plies, won by {} on the last one",
        random.len(),
        if random.len() % 2 == 1 { "X" } else { "O" },
    );

    let mut group = c.benchmark_group("whole_game");
    group.throughput(Throughput::Elements(random.len() as u64));
    group.bench_function(format!("random_{}_plies_to_a_win", random.len()), |b| {
        b.iter(|| replay(Opening::Center, black_box(&random)))
    });
    group.throughput(Throughput::Elements(fill.len() as u64));
    group.bench_function("no_line_fill_225_plies_to_a_draw", |b| {
        b.iter(|| replay(Opening::Free, black_box(&fill)))
    });
    group.finish();
}

fn single_move(c: &mut Criterion) {
    let random = long_random_game();
    let (before, last) = random.split_at(random.len() - 1);
    let crowded = replay(Opening::Center, before);
    let winning = last[0];
    let seat = to_move(&crowded);
    // A legal move for the same seat that does not end the game, for comparison.
    let quiet = crowded
        .legal_moves(seat)
        .into_iter()
        .find(|mv| {
            let mut probe = crowded.clone();
            probe.play(seat, mv).expect("a listed move is legal");
            probe.outcome().is_none()
        })
        .expect("some move on the crowded board does not win");

    let mut group = c.benchmark_group("single_move");
    // The game is cloned in the (untimed) setup; the routine is the one `play` call with
    // its legality checks, the four-axis line scan and, for the win, the outcome.
    group.bench_function(format!("winning_move_on_{}_stones", before.len()), |b| {
        b.iter_batched_ref(
            || crowded.clone(),
            |game| game.play(seat, black_box(&winning)).expect("the winning move is legal"),
            BatchSize::SmallInput,
        )
    });
    group.bench_function(format!("quiet_move_on_{}_stones", before.len()), |b| {
        b.iter_batched_ref(
            || crowded.clone(),
            |game| game.play(seat, black_box(&quiet)).expect("the quiet move is legal"),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

/// 112 plies of the line-free fill: half the board taken, X to move, 113 squares free.
fn half_full() -> Gomoku {
    replay(Opening::Free, &no_line_fill()[..112])
}

fn legal_moves(c: &mut Criterion) {
    let empty = Gomoku::new(&settings(Opening::Free));
    let half = half_full();
    assert_eq!(empty.legal_moves(0).len(), 225);
    assert_eq!(half.legal_moves(0).len(), 113);

    let mut group = c.benchmark_group("legal_moves");
    group.bench_function("empty_board_225", |b| b.iter(|| black_box(&empty).legal_moves(0)));
    group.bench_function("half_full_board_113", |b| b.iter(|| black_box(&half).legal_moves(0)));
    group.finish();
}

fn view(c: &mut Criterion) {
    let half = half_full();

    let mut group = c.benchmark_group("view");
    group.bench_function("view_half_full", |b| b.iter(|| black_box(&half).view()));
    group.bench_function("view_and_json_half_full", |b| {
        b.iter(|| serde_json::to_string(&black_box(&half).view()).expect("a view serialises"))
    });
    // What a `moved` event carries: the view built and serialised, against the text the
    // game writes from its cells (`Rules::view_text`).
    group.bench_function("view_as_json_text_half_full", |b| {
        b.iter(|| spelbord::games::json_text(&black_box(&half).view()))
    });
    group.bench_function("view_text_half_full", |b| b.iter(|| black_box(&half).view_text()));
    group.finish();
}

/// The `moved` event as the server writes it (`docs/protocol.md`, 3.8). A local mirror of
/// the server's message type, serialised the same way (a derived `Serialize` on a struct
/// holding the view as a JSON value), so that this benchmark does not change whenever a
/// field is added to the protocol.
#[derive(Serialize)]
struct MovedFrame<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    version: u64,
    ply: u32,
    seat: Seat,
    #[serde(rename = "move")]
    payload: &'a Value,
    state: &'a Value,
    to_move: Vec<Seat>,
}

/// The CPU work of the table actor for one move, without the database write and the
/// socket writes: parse the client's frame, clone the game and play the move on the copy
/// (`AnyGame::play_json`), take the view as JSON, and serialise the `moved` event that is
/// broadcast to every connection.
fn server_move_path(c: &mut Criterion) {
    let fill = no_line_fill();
    let game_settings = AnySettings::Gomoku(settings(Opening::Free));
    let mut game: AnyGame = game_settings.new_game();
    for (ply, mv) in fill[..112].iter().enumerate() {
        let seat = if ply % 2 == 0 { 0 } else { 1 };
        game.play_json(seat, &json!({ "at": mv.at.to_string() }))
            .expect("a fill move is legal");
    }
    let frame = json!({"type": "move", "move": {"at": fill[112].at.to_string()}, "ref": 113}).to_string();

    let mut group = c.benchmark_group("server_move_path");
    group.bench_function("parse_play_view_moved_json_half_full", |b| {
        b.iter(|| {
            let envelope = parse_client_msg(black_box(&frame)).expect("the frame parses");
            let ClientMsg::Move { payload, .. } = envelope.msg else {
                panic!("the frame is a move");
            };
            let mut next = game.clone();
            let (_, normalised) = next.play_json(0, &payload).expect("the move is legal");
            let state = next.view();
            let moved = MovedFrame {
                kind: "moved",
                version: 120,
                ply: 113,
                seat: 0,
                payload: &normalised,
                state: &state,
                to_move: next.active_seats().iter().collect(),
            };
            serde_json::to_string(&moved).expect("the event serialises")
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(30);
    targets = whole_games, single_move, legal_moves, view, server_move_path
}
criterion_main!(benches);
