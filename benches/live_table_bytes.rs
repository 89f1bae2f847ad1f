//! The memory of a live table's parts that grow with its game, for every game (issue 12's
//! "≤ 16 KB per live table"): random legal games of each kind are played through the
//! rules, each move kept in a [`MoveList`] as the table keeps it (packed, its notation and,
//! as in a timed game, every seat's clock after it), and a counting allocator reads the
//! heap the move list and the game's state hold at 50, 100, 200, 300 and 400 plies and
//! when the game ends.
//!
//!     cargo bench --bench live_table_bytes [-- GAMES_PER_KIND]     (default 40)
//!
//! What a table holds besides these (its actor, task, seats, the resume history at its
//! 4 KiB bound) does not depend on the game and was measured by massif for Gomoku
//! (`benches/massif-live-tables.sh`, docs/benchmarks.md "A live table's memory").
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use serde_json::Value;
use spelbord::games::settings::SettingsReader;
use spelbord::games::{AnyGame, AnySettings, GameKind};
use spelbord::table::move_list::MoveList;

/// The system allocator, counting the bytes live on the heap.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

/// The heap `make` leaves allocated in what it returns.
fn heap_of<T>(make: impl FnOnce() -> T) -> (T, usize) {
    let before = live();
    let value = make();
    (value, usize::try_from(live() - before).unwrap_or(0))
}

/// splitmix64: a seeded sequence of random numbers, the same on every machine.
struct Random(u64);

impl Random {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z % n as u64) as usize
    }
}

const CHECKPOINTS: [usize; 5] = [50, 100, 200, 300, 400];
/// Random games can wander: no game is played past this many plies.
const MAX_PLIES: usize = 600;

/// One sample: plies played, the move list's heap, the game state's heap.
#[derive(Clone, Copy)]
struct Sample {
    plies: usize,
    move_list: usize,
    game: usize,
}

/// Plays one random legal game, sampling at the checkpoints and at its end.
fn play_one(settings: &AnySettings, seed: u64) -> (Vec<Sample>, Sample) {
    let mut random = Random(seed);
    let mut game = settings.new_game();
    let seat_count = settings.seat_count();
    let (mut moves, _) = heap_of(|| MoveList::new(settings.kind()));
    let mut list_heap = 0usize;
    let mut samples = Vec::new();
    let clocks: Vec<u64> = (0..seat_count as u64).map(|seat| 300_000 - seat * 1_234).collect();
    let mut plies = 0;
    while game.outcome().is_none() && plies < MAX_PLIES {
        let active: Vec<u8> = game.active_seats().iter().collect();
        let Some(&seat) = active.get(random.below(active.len().max(1))) else {
            break;
        };
        let legal = game.legal_moves_json(seat);
        if legal.is_empty() {
            break;
        }
        let choice: Value = legal[random.below(legal.len())].clone();
        let Ok((_, _, written)) = game.play_json_written(seat, &choice) else {
            panic!("a legal move was refused: {choice}");
        };
        let before = live();
        moves.push(seat, &written.packed, &written.text, Some(&clocks));
        list_heap = list_heap.saturating_add_signed(live() - before);
        plies += 1;
        if CHECKPOINTS.contains(&plies) {
            samples.push(Sample {
                plies,
                move_list: list_heap,
                game: game_heap(&game),
            });
        }
    }
    // The table trims its move list when the game ends.
    if game.outcome().is_some() {
        let before = live();
        moves.shrink_to_fit();
        list_heap = list_heap.saturating_add_signed(live() - before);
    }
    let end = Sample {
        plies,
        move_list: list_heap,
        game: game_heap(&game),
    };
    (samples, end)
}

/// The heap a copy of the game's state holds.
fn game_heap(game: &AnyGame) -> usize {
    heap_of(|| game.clone()).1
}

fn settings_of(kind: GameKind) -> AnySettings {
    let mut reader = SettingsReader::new(serde_json::Map::new());
    AnySettings::read(kind, &mut reader).expect("default settings are valid")
}

fn percentile(values: &mut [usize], p: f64) -> usize {
    values.sort_unstable();
    let place = ((values.len() as f64 - 1.0) * p).round() as usize;
    values.get(place).copied().unwrap_or(0)
}

fn main() {
    let games: u64 = std::env::args()
        .skip(1)
        .find(|arg| !arg.starts_with('-'))
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(40);
    println!("live_table_bytes: {games} random legal games a kind, default settings, every seat's clock kept a move");
    println!(
        "inline: AnyGame {} B, MoveList {} B (counted in the table's own size, not below)",
        std::mem::size_of::<AnyGame>(),
        std::mem::size_of::<MoveList>()
    );
    for &kind in GameKind::ALL {
        let settings = settings_of(kind);
        let mut at: Vec<Vec<Sample>> = vec![Vec::new(); CHECKPOINTS.len()];
        let mut ends = Vec::new();
        for seed in 0..games {
            let (samples, end) = play_one(&settings, seed + 1);
            for sample in samples {
                if let Some(place) = CHECKPOINTS.iter().position(|&plies| plies == sample.plies) {
                    at[place].push(sample);
                }
            }
            ends.push(end);
        }
        let mut end_plies: Vec<usize> = ends.iter().map(|s| s.plies).collect();
        println!(
            "\n{} ({} seats): plies at the end, median {} / max {}",
            kind.id(),
            settings.seat_count(),
            percentile(&mut end_plies, 0.5),
            percentile(&mut end_plies, 1.0)
        );
        println!("  plies  games  move list median / max   game state median / max   bytes a move (median)");
        for (place, samples) in at.iter().enumerate() {
            if samples.is_empty() {
                continue;
            }
            let plies = CHECKPOINTS[place];
            let mut lists: Vec<usize> = samples.iter().map(|s| s.move_list).collect();
            let mut states: Vec<usize> = samples.iter().map(|s| s.game).collect();
            let list_median = percentile(&mut lists, 0.5);
            println!(
                "  {plies:>5}  {:>5}  {:>8} / {:>8} B      {:>8} / {:>8} B     {:>6.1}",
                samples.len(),
                list_median,
                percentile(&mut lists, 1.0),
                percentile(&mut states, 0.5),
                percentile(&mut states, 1.0),
                list_median as f64 / plies as f64
            );
        }
        let mut lists: Vec<usize> = ends.iter().map(|s| s.move_list).collect();
        let mut states: Vec<usize> = ends.iter().map(|s| s.game).collect();
        println!(
            "    end  {:>5}  {:>8} / {:>8} B      {:>8} / {:>8} B",
            ends.len(),
            percentile(&mut lists, 0.5),
            percentile(&mut lists, 1.0),
            percentile(&mut states, 0.5),
            percentile(&mut states, 1.0)
        );
    }
}
