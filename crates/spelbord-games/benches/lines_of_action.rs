//! Criterion benchmarks of the pure Lines of Action rules (no I/O): move generation into a
//! reused buffer and through `legal_moves`, from the start and from a midgame position;
//! one `play` call; and perft from the start at depths 3 and 4 (bulk-counted leaves).
//!
//! Run with `cargo bench --bench lines_of_action`. Every position is fixed, so runs compare.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use spelbord_games::Rules;
use spelbord_games::lines_of_action::{LinesOfAction, LoaMove, LoaSettings, perft};

/// A midgame position, 24 plies of random play from the start: 11 pieces each, black to
/// move with 39 legal moves.
const MIDGAME: &str = "..b.b.b.w...w.w.wb...b...b.w.w.w...b...ww...b...w......w.bb...b. b";

fn start() -> LinesOfAction {
    LinesOfAction::new(&LoaSettings::default())
}

fn midgame() -> LinesOfAction {
    LinesOfAction::from_position(MIDGAME).expect("the midgame position is valid")
}

fn move_generation(c: &mut Criterion) {
    let start = start();
    let midgame = midgame();
    assert_eq!(start.legal_moves(0).len(), 36);
    assert_eq!(midgame.legal_moves(0).len(), 39);

    let mut group = c.benchmark_group("movegen");
    let mut buffer: Vec<LoaMove> = Vec::with_capacity(128);
    group.throughput(Throughput::Elements(36));
    group.bench_function("start_36_into_buffer", |b| {
        b.iter(|| {
            black_box(&start).moves_into(&mut buffer);
            buffer.len()
        })
    });
    group.bench_function("start_36_legal_moves_vec", |b| {
        b.iter(|| black_box(&start).legal_moves(0))
    });
    group.bench_function("start_36_count_only", |b| {
        b.iter(|| black_box(&start).board().legal_move_count())
    });
    group.throughput(Throughput::Elements(39));
    group.bench_function("midgame_39_into_buffer", |b| {
        b.iter(|| {
            black_box(&midgame).moves_into(&mut buffer);
            buffer.len()
        })
    });
    group.bench_function("midgame_39_legal_moves_vec", |b| {
        b.iter(|| black_box(&midgame).legal_moves(0))
    });
    group.finish();
}

fn play(c: &mut Criterion) {
    let midgame = midgame();
    let quiet = midgame
        .legal_moves(0)
        .into_iter()
        .find(|mv| {
            let mut probe = midgame.clone();
            probe.play(0, mv).expect("a listed move is legal");
            probe.outcome().is_none()
        })
        .expect("some midgame move does not end the game");

    let mut group = c.benchmark_group("play");
    // The game is cloned in the (untimed) setup; the routine is the one `play` call with its
    // checks, the two connectivity checks and the repetition scan.
    group.bench_function("midgame_quiet_move", |b| {
        b.iter_batched_ref(
            || midgame.clone(),
            |game| game.play(0, black_box(&quiet)).expect("the move is legal"),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn perft_from_start(c: &mut Criterion) {
    let start = start();
    assert_eq!(perft(&start, 3), 44_952);
    assert_eq!(perft(&start, 4), 1_563_208);

    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.throughput(Throughput::Elements(44_952));
    group.bench_function("start_depth_3", |b| b.iter(|| perft(black_box(&start), 3)));
    group.throughput(Throughput::Elements(1_563_208));
    group.bench_function("start_depth_4", |b| b.iter(|| perft(black_box(&start), 4)));
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(30);
    targets = move_generation, play, perft_from_start
}
criterion_main!(benches);
