//! Bots: computer players for every game, at four strengths.
//!
//! A bot reads the rules; the rules never know about bots. Each game's bot lives in a
//! module of its own ([`gomoku`], [`lines_of_action`], [`krux`], [`bughouse`]) and
//! implements [`Bot`] for the game's type. Everything here is pure and synchronous: a
//! search gets a position and a [`Context`] (a deadline, a seed, the clocks) and returns a
//! [`Decision`]. Searches never run on the async runtime: the table hands them to the
//! bounded pool of OS threads in [`pool`], and [`budget`] decides how long one may take.
//!
//! - [`budget`]: how long a bot may think, from its strength and its clock.
//! - [`pool`]: the search threads and the answers' way back to the table.
//! - [`arena`]: plays bots against each other (the `spelbord arena` command).
//! - [`metrics`]: the search threads' gauges.
//! - [`tt`]: the transposition table the engines' searches share (one per thread and engine).
//! - [`resign`]: when a bot gives up a hopeless game (each engine's [`Outlook`], counted
//!   per seat).
//! - [`choice`]: who holds a bot seat, one of our strengths or a configured engine
//!   (`engine:NAME`); [`engine`]: external engines, their processes and protocols.
//! - [`brain`]: the other way round, our Gomoku bot as a Gomocup engine (`spelbord gomocup`).

// Module headers link the private modules they describe: they are read with
// `cargo doc --document-private-items`, where those links resolve.
#![allow(rustdoc::private_intra_doc_links)]

pub mod arena;
pub mod brain;
pub mod budget;
pub mod bughouse;
pub mod choice;
pub mod engine;
pub mod gomoku;
pub mod krux;
pub mod lines_of_action;
pub mod metrics;
pub mod pool;
pub mod resign;
pub mod tt;

use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use spelbord_games::{AnyGame, Rules, Seat};

pub use choice::{BotChoice, EngineName};
pub use resign::Outlook;

/// How strongly a bot plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strength {
    /// A uniformly random legal move: a baseline for measurements and tests.
    Random,
    /// Beatable by a beginner, but sensible: takes a win in one, blocks a loss in one.
    Easy,
    Medium,
    /// The strongest the game's engine plays within its budget.
    Hard,
}

impl Strength {
    pub const ALL: [Strength; 4] = [Strength::Random, Strength::Easy, Strength::Medium, Strength::Hard];

    /// The wire name (`"hard"`).
    pub fn id(self) -> &'static str {
        match self {
            Strength::Random => "random",
            Strength::Easy => "easy",
            Strength::Medium => "medium",
            Strength::Hard => "hard",
        }
    }

    pub fn from_id(id: &str) -> Option<Strength> {
        Strength::ALL.into_iter().find(|strength| strength.id() == id)
    }

    /// The name a bot is shown with at the table: `Computer (hard)`.
    pub fn player_name(self) -> String {
        format!("Computer ({})", self.id())
    }
}

/// Each strength's thinking time per move at an untimed table (configuration section
/// `[bots]`). A timed table may shorten it ([`budget::think_time`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct Budgets {
    pub easy_ms: u64,
    pub medium_ms: u64,
    pub hard_ms: u64,
}

impl Default for Budgets {
    fn default() -> Budgets {
        Budgets {
            easy_ms: 200,
            medium_ms: 500,
            hard_ms: 1_000,
        }
    }
}

impl Budgets {
    /// The budget of `strength` (a random mover needs none beyond the floor).
    pub fn of(&self, strength: Strength) -> Duration {
        Duration::from_millis(match strength {
            Strength::Random => return budget::FLOOR,
            Strength::Easy => self.easy_ms,
            Strength::Medium => self.medium_ms,
            Strength::Hard => self.hard_ms,
        })
    }
}

/// What a search may use and may know besides the position.
#[derive(Debug, Clone)]
pub struct Context {
    /// Answer by this instant. A search that starts late (it waited for a thread) still
    /// answers, with the quickest sound move it has.
    pub deadline: Instant,
    /// Seeds every random choice, so that tests and arenas can be replayed.
    pub seed: u64,
    /// Every seat's remaining time when the search was asked for, in seat order (timed
    /// tables only). Bughouse bots weigh time as material.
    pub clocks: Option<Vec<Duration>>,
    /// The time added after each move (Fischer), zero otherwise.
    pub increment: Duration,
}

impl Context {
    /// A context with `budget` from now and no clocks.
    pub fn with_budget(budget: Duration, seed: u64) -> Context {
        Context {
            deadline: Instant::now() + budget,
            seed,
            clocks: None,
            increment: Duration::ZERO,
        }
    }

    /// Whether the deadline has passed.
    pub fn out_of_time(&self) -> bool {
        Instant::now() >= self.deadline
    }

    /// A random generator seeded from the context.
    pub fn rng(&self) -> SmallRng {
        SmallRng::seed_from_u64(self.seed)
    }
}

/// What a bot does when asked.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision<M> {
    /// Play this move (in Krux: a whole turn, `{"turn": [...]}`).
    Play(M),
    /// Give up: the position is hopeless.
    Resign,
    /// Nothing to do now (a Bughouse seat with no legal move or drop waits for a piece).
    Wait,
}

impl<M> Decision<M> {
    pub fn map<N>(self, f: impl FnOnce(M) -> N) -> Decision<N> {
        match self {
            Decision::Play(mv) => Decision::Play(f(mv)),
            Decision::Resign => Decision::Resign,
            Decision::Wait => Decision::Wait,
        }
    }
}

/// What a bot does, and how its search saw the position it moved from ([`resign`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Answer<M> {
    pub decision: Decision<M>,
    /// Read by the seat's [`resign::Watch`]: a bot resigns after several losing outlooks.
    pub outlook: Outlook,
}

impl<M> From<Decision<M>> for Answer<M> {
    /// A decision with nothing known of the position (easy, random, forced moves).
    fn from(decision: Decision<M>) -> Answer<M> {
        Answer {
            decision,
            outlook: Outlook::Unclear,
        }
    }
}

impl<M> Answer<M> {
    pub fn map<N>(self, f: impl FnOnce(M) -> N) -> Answer<N> {
        Answer {
            decision: self.decision.map(f),
            outlook: self.outlook,
        }
    }
}

/// A game a bot can play.
pub trait Bot: Rules {
    /// What `seat` does now at `strength`. Called only when `seat` is to move and the game
    /// is not over; must answer by `ctx.deadline` (the table plays the answer only after
    /// checking it again), and never panic.
    fn decide(&self, seat: Seat, strength: Strength, ctx: &Context) -> Decision<Self::Move>;

    /// [`Bot::decide`] with the search's [`Outlook`] of the position, for resigning. An
    /// engine whose search knows when it is lost answers here (and `decide` takes the
    /// decision from it); the default knows nothing.
    fn answer(&self, seat: Seat, strength: Strength, ctx: &Context) -> Answer<Self::Move> {
        self.decide(seat, strength, ctx).into()
    }

    /// Whether `seat` accepts a draw offered now: when its position is clearly lost or
    /// dead equal. Must be cheap (a static evaluation, no search): the table calls it
    /// directly. Bughouse bots never take part in draw agreements (the table asks only
    /// the humans there), so its answer is not used.
    fn accepts_draw(&self, seat: Seat, strength: Strength) -> bool;
}

/// A uniformly random legal move for `seat` (`Wait` when there is none).
pub fn random_move<G: Rules>(game: &G, seat: Seat, ctx: &Context) -> Decision<G::Move> {
    let moves = game.legal_moves(seat);
    match moves.choose(&mut ctx.rng()) {
        Some(mv) => Decision::Play(mv.clone()),
        None => Decision::Wait,
    }
}

fn encode<T: Serialize>(value: &T) -> Value {
    // Our move types serialise infallibly to JSON.
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// [`Bot::decide`] for a game of any kind, the move as its JSON payload.
pub fn decide(game: &AnyGame, seat: Seat, strength: Strength, ctx: &Context) -> Decision<Value> {
    match game {
        AnyGame::Gomoku(game) => game.decide(seat, strength, ctx).map(|mv| encode(&mv)),
        AnyGame::LinesOfAction(game) => game.decide(seat, strength, ctx).map(|mv| encode(&mv)),
        AnyGame::Krux(game) => game.decide(seat, strength, ctx).map(|mv| encode(&mv)),
        AnyGame::Bughouse(game) => game.decide(seat, strength, ctx).map(|mv| encode(&mv)),
    }
}

/// [`Bot::answer`] for a game of any kind, the move as its JSON payload.
pub fn answer(game: &AnyGame, seat: Seat, strength: Strength, ctx: &Context) -> Answer<Value> {
    match game {
        AnyGame::Gomoku(game) => game.answer(seat, strength, ctx).map(|mv| encode(&mv)),
        AnyGame::LinesOfAction(game) => game.answer(seat, strength, ctx).map(|mv| encode(&mv)),
        AnyGame::Krux(game) => game.answer(seat, strength, ctx).map(|mv| encode(&mv)),
        AnyGame::Bughouse(game) => game.answer(seat, strength, ctx).map(|mv| encode(&mv)),
    }
}

/// [`Bot::accepts_draw`] for a game of any kind.
pub fn accepts_draw(game: &AnyGame, seat: Seat, strength: Strength) -> bool {
    match game {
        AnyGame::Gomoku(game) => game.accepts_draw(seat, strength),
        AnyGame::LinesOfAction(game) => game.accepts_draw(seat, strength),
        AnyGame::Krux(game) => game.accepts_draw(seat, strength),
        AnyGame::Bughouse(game) => game.accepts_draw(seat, strength),
    }
}
