//! The arena: bots against bots, for measuring strengths (`spelbord arena`).
//!
//! Side `a` plays the first team in even games and the second in odd ones (in Bughouse a
//! team is two bots of one strength). Games are simulated event by event: every seat to
//! move thinks on the position it sees (really, on this machine, timed with the wall
//! clock); the move that would land first is played first, the others keep their answer
//! if it is still legal then (a Bughouse pocket may have grown under them) and think
//! again otherwise. With a clock, each seat's thinking and waiting is charged to it and a
//! flag ends the game, as at a real table; the bots' budgets come from [`super::budget`].
//! [`play_match_with`] puts other deciders on the sides (the gomoku bot measures its Hard
//! against the Hard it replaced that way).
//!
//! Bots resign as at a table (a [`Watch`] per seat, when the spec allows it). Each
//! move's **reply time** is counted too: from the opponent's move that gave the seat its
//! turn to the seat's own move landing (what a person playing the bot waits; no store
//! here, so it is the think time plus any wait for the pace or a stale answer).

use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use serde_json::Value;

use super::budget::{self, think_time};
use super::engine::Engines;
use super::resign::Watch;
use super::{Answer, BotChoice, Budgets, Context, Decision, answer};
use spelbord_games::{AnyGame, AnySettings, EndReason, GameResult, Outcome, Seat};

/// A safety cap on a simulated game's length, in moves (every game here has a cap of its
/// own well below it).
const MAX_PLIES: u32 = 5_000;

/// What to play.
#[derive(Debug, Clone)]
pub struct MatchSpec {
    pub settings: AnySettings,
    /// A strength of ours or a configured engine (`engine:NAME`, from `engines`).
    pub a: BotChoice,
    pub b: BotChoice,
    /// The engines `a` and `b` may name.
    pub engines: Engines,
    pub games: u32,
    /// Overrides every bot's budget per move.
    pub ms_per_move: Option<u64>,
    pub budgets: Budgets,
    /// Each seat's time for the game (sudden death); `None` for untimed games.
    pub clock: Option<Duration>,
    pub seed: u64,
    /// Whether bots may resign hopeless games (`bots.resign`).
    pub resign: bool,
}

/// How one game went, from `a`'s side.
#[derive(Debug, Clone)]
pub struct GameRecord {
    /// The seats `a` played.
    pub a_seats: Vec<Seat>,
    pub outcome: Outcome,
    pub plies: u32,
    /// Every move played, in order: the seat and the move as the rules read it.
    pub moves: Vec<(Seat, Value)>,
}

impl GameRecord {
    /// `a`'s score: 1 for a win, ½ for a draw (or an aborted game), 0 for a loss.
    pub fn a_score(&self) -> f64 {
        match &self.outcome.result {
            GameResult::Win { winners } if winners.iter().any(|seat| self.a_seats.contains(seat)) => 1.0,
            GameResult::Win { .. } => 0.0,
            GameResult::Draw | GameResult::Aborted => 0.5,
        }
    }
}

/// A whole match.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub games: Vec<GameRecord>,
    /// Every think of `a` and of `b`.
    pub think_a: Vec<Duration>,
    pub think_b: Vec<Duration>,
    /// Every move's reply time (the opponent's move seen → this move seen), of `a` and `b`.
    pub reply_a: Vec<Duration>,
    pub reply_b: Vec<Duration>,
    /// Answers the rules refused although the position had not changed (a bot's bug).
    pub illegal: usize,
}

impl Report {
    pub fn wins(&self) -> usize {
        self.games.iter().filter(|g| g.a_score() == 1.0).count()
    }

    pub fn losses(&self) -> usize {
        self.games.iter().filter(|g| g.a_score() == 0.0).count()
    }

    pub fn draws(&self) -> usize {
        self.games.len() - self.wins() - self.losses()
    }

    /// `a`'s share of the points, 0 to 1.
    pub fn a_share(&self) -> f64 {
        if self.games.is_empty() {
            return 0.0;
        }
        self.games.iter().map(GameRecord::a_score).sum::<f64>() / self.games.len() as f64
    }

    /// Games ended by a resignation, by either side.
    pub fn resignations(&self) -> usize {
        self.games
            .iter()
            .filter(|g| g.outcome.reason == EndReason::Resignation)
            .count()
    }

    /// Games lost on time, by either side.
    pub fn time_losses(&self) -> usize {
        self.games
            .iter()
            .filter(|g| g.outcome.reason == EndReason::Time)
            .count()
    }
}

/// The mean and the 99th percentile of some durations.
pub fn mean_and_p99(times: &[Duration]) -> (Duration, Duration) {
    if times.is_empty() {
        return (Duration::ZERO, Duration::ZERO);
    }
    let mean = times.iter().sum::<Duration>() / u32::try_from(times.len()).unwrap_or(u32::MAX);
    (mean, percentile(times, 99))
}

/// The `p`th percentile (nearest rank) of some durations; zero for none.
pub fn percentile(times: &[Duration], p: usize) -> Duration {
    if times.is_empty() {
        return Duration::ZERO;
    }
    let mut sorted = times.to_vec();
    sorted.sort();
    let index = (sorted.len() * p.min(100)).div_ceil(100).saturating_sub(1);
    sorted[index.min(sorted.len() - 1)]
}

/// How one side of a match decides when not as the spec's choice does: to measure an
/// engine against an earlier version of itself kept for the purpose, any function like
/// [`super::decide`].
pub type Decide<'a> = &'a dyn Fn(&AnyGame, Seat, super::Strength, &Context) -> Decision<Value>;

/// Plays the match, calling `progress` after each game.
pub fn play_match(spec: &MatchSpec, progress: impl FnMut(u32, &GameRecord)) -> Report {
    play_match_with(spec, [None, None], progress)
}

/// [`play_match`] with the ways `a` and `b` decide, in that order (`None`: as the spec's
/// choice for that side).
pub fn play_match_with(
    spec: &MatchSpec,
    deciders: [Option<Decide<'_>>; 2],
    mut progress: impl FnMut(u32, &GameRecord),
) -> Report {
    let mut report = Report::default();
    for number in 0..spec.games {
        let a_team = u8::from(number % 2 == 1);
        let seat_count = spec.settings.seat_count();
        let seats: Vec<Seat> = (0..seat_count).filter_map(|s| Seat::try_from(s).ok()).collect();
        let a_seats: Vec<Seat> = seats
            .iter()
            .copied()
            .filter(|seat| spec.settings.team_of(*seat) == a_team)
            .collect();
        let strengths: Vec<BotChoice> = seats
            .iter()
            .map(|seat| if a_seats.contains(seat) { spec.a } else { spec.b })
            .collect();
        let players: Vec<Option<Decide<'_>>> = seats
            .iter()
            .map(|seat| {
                if a_seats.contains(seat) {
                    deciders[0]
                } else {
                    deciders[1]
                }
            })
            .collect();
        let seed = spec
            .seed
            .wrapping_add(u64::from(number).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let played = play_game(spec, &strengths, &players, seed);
        report.illegal += played.illegal;
        for (seat, think) in played.thinks {
            if a_seats.contains(&seat) {
                report.think_a.push(think);
            } else {
                report.think_b.push(think);
            }
        }
        for (seat, reply) in played.replies {
            if a_seats.contains(&seat) {
                report.reply_a.push(reply);
            } else {
                report.reply_b.push(reply);
            }
        }
        let record = GameRecord {
            a_seats,
            outcome: played.outcome,
            plies: played.plies,
            moves: played.moves,
        };
        progress(number + 1, &record);
        report.games.push(record);
    }
    report
}

struct Played {
    outcome: Outcome,
    plies: u32,
    thinks: Vec<(Seat, Duration)>,
    /// Each move's reply time: from the seat's turn beginning to its move landing.
    replies: Vec<(Seat, Duration)>,
    /// Answers the rules refused although the position had not changed.
    illegal: usize,
    /// Every move played, in order.
    moves: Vec<(Seat, Value)>,
}

/// A seat's answer, and the simulated instant it lands.
struct Pending {
    decision: Decision<Value>,
    /// How the bot saw the position, counted by its [`Watch`] when the answer lands.
    outlook: super::Outlook,
    lands: Duration,
    /// Moves played when the bot decided: an answer the rules refuse although nothing
    /// moved since is the bot's fault.
    plies: u32,
}

/// One seat in the simulation.
#[derive(Default)]
struct SeatSim {
    /// When its current turn began (its clock has run since).
    turn_began: Option<Duration>,
    /// When it began thinking on the position it last saw.
    thinking_since: Duration,
    /// Its clock at the start of the current turn.
    clock: Option<Duration>,
    pending: Option<Pending>,
    /// It said it must wait; the number of plies played when it did.
    waiting_at: Option<u32>,
    /// Its outlooks in a row, for resigning.
    watch: Watch,
    /// Moves it has played in this game.
    moves: u32,
}

/// What `choice` decides for `seat`: our bot's search, or the engine's answer (our hard bot's
/// when the engine fails, as at a table).
fn answer_as(spec: &MatchSpec, choice: BotChoice, game: &AnyGame, seat: Seat, ctx: &Context) -> Answer<Value> {
    match choice {
        BotChoice::Bot(strength) => answer(game, seat, strength, ctx),
        // An engine never resigns here: its outlook is unknown.
        BotChoice::Engine(name) => match spec.engines.decide_blocking(name, game, seat, ctx) {
            Some(decision) => Answer::from(decision),
            None => answer(game, seat, choice.stand_in(), ctx),
        },
    }
}

/// The untimed budget of `choice`: its strength's, or the engine's `move_ms`.
fn base_budget(spec: &MatchSpec, choice: BotChoice) -> Duration {
    match choice {
        BotChoice::Engine(name) => spec.engines.move_time(name),
        BotChoice::Bot(_) => None,
    }
    .unwrap_or_else(|| spec.budgets.of(choice.stand_in()))
}

fn play_game(spec: &MatchSpec, strengths: &[BotChoice], players: &[Option<Decide<'_>>], seed: u64) -> Played {
    let mut game = spec.settings.new_game();
    let mut sims: Vec<SeatSim> = strengths
        .iter()
        .map(|_| SeatSim {
            clock: spec.clock,
            ..SeatSim::default()
        })
        .collect();
    let mut now = Duration::ZERO;
    let mut plies = 0u32;
    let mut thinks = Vec::new();
    let mut replies = Vec::new();
    let mut illegal = 0;
    let mut moves = Vec::new();
    let mut rng = SmallRng::seed_from_u64(seed);
    loop {
        if let Some(outcome) = game.outcome() {
            return Played {
                outcome: outcome.clone(),
                plies,
                thinks,
                replies,
                illegal,
                moves,
            };
        }
        if plies >= MAX_PLIES {
            return Played {
                outcome: Outcome::draw(EndReason::MoveLimit),
                plies,
                thinks,
                replies,
                illegal,
                moves,
            };
        }
        let active = game.active_seats();
        for seat in active.iter() {
            let sim = &mut sims[usize::from(seat)];
            if sim.turn_began.is_none() {
                sim.turn_began = Some(now);
                sim.thinking_since = now;
            }
            let waiting = sim.waiting_at == Some(plies);
            if sim.pending.is_none() && !waiting {
                sim.thinking_since = sim.thinking_since.max(now);
                let budget = spec.ms_per_move.map_or_else(
                    || {
                        let base = base_budget(spec, strengths[usize::from(seat)]);
                        let clock = match (sim.clock, sim.turn_began) {
                            (Some(clock), Some(began)) => budget::Clock::Game {
                                remaining: clock.saturating_sub(now - began),
                                increment: Duration::ZERO,
                            },
                            _ => budget::Clock::None,
                        };
                        think_time(base, clock)
                    },
                    Duration::from_millis,
                );
                let ctx = Context {
                    clocks: spec.clock.map(|_| sims_clocks(&sims, now)),
                    ..Context::with_budget(budget, seed ^ u64::from(plies) << 8 ^ u64::from(seat))
                };
                let started = Instant::now();
                let choice = strengths[usize::from(seat)];
                let answered = match players.get(usize::from(seat)).copied().flatten() {
                    Some(decider) => Answer::from(decider(&game, seat, choice.stand_in(), &ctx)),
                    None => answer_as(spec, choice, &game, seat, &ctx),
                };
                let think = started.elapsed();
                thinks.push((seat, think));
                let sim = &mut sims[usize::from(seat)];
                match answered.decision {
                    Decision::Wait => sim.waiting_at = Some(plies),
                    decision => {
                        sim.pending = Some(Pending {
                            decision,
                            outlook: answered.outlook,
                            lands: sim.thinking_since + think,
                            plies,
                        })
                    }
                }
            }
        }
        // The earliest landing answer, or the earliest flag, whichever comes first.
        let next_move = active
            .iter()
            .filter_map(|seat| Some((sims[usize::from(seat)].pending.as_ref()?.lands, seat)))
            .min();
        let next_flag = active
            .iter()
            .filter_map(|seat| {
                let sim = &sims[usize::from(seat)];
                Some((sim.turn_began? + sim.clock?, seat))
            })
            .min();
        let (at, seat, flagged) = match (next_move, next_flag) {
            (Some((lands, seat)), Some((flag, _))) if lands < flag => (lands, seat, false),
            (_, Some((flag, seat))) => (flag, seat, true),
            (Some((lands, seat)), None) => (lands, seat, false),
            (None, None) => {
                // Everyone waits and no clock can end it (the rules end such games
                // themselves; this only keeps the arena from looping).
                return Played {
                    outcome: Outcome {
                        result: GameResult::Aborted,
                        reason: EndReason::Aborted,
                        detail: Value::Null,
                    },
                    plies,
                    thinks,
                    replies,
                    illegal,
                    moves,
                };
            }
        };
        now = now.max(at);
        if flagged {
            let team = spec.settings.team_of(seat);
            let winners = (0..strengths.len())
                .filter_map(|s| Seat::try_from(s).ok())
                .filter(|s| spec.settings.team_of(*s) != team)
                .collect();
            game.finish(Outcome::win(winners, EndReason::Time));
            continue;
        }
        let Some(mut pending) = sims[usize::from(seat)].pending.take() else {
            continue;
        };
        let sim = &mut sims[usize::from(seat)];
        // Every seat here is a bot: no person on any team.
        if matches!(pending.decision, Decision::Play(_))
            && sim.watch.resigns(game.kind(), pending.outlook, sim.moves, false)
            && spec.resign
        {
            pending.decision = Decision::Resign;
        }
        match pending.decision {
            Decision::Play(payload) => {
                let played = match game.play_json(seat, &payload) {
                    Ok(_) => Some(payload),
                    // Nothing moved since the bot decided: the bot's bug. As a table does,
                    // a random legal move instead, so the game goes on.
                    Err(err) if pending.plies == plies => {
                        tracing::error!(%err, %payload, "a bot chose a move the rules refuse");
                        illegal += 1;
                        let fallback = game.legal_moves_json(seat).choose(&mut rng).cloned();
                        fallback.filter(|mv| game.play_json(seat, mv).is_ok())
                    }
                    // The position changed under the answer: think again from now.
                    Err(_) => None,
                };
                let sim = &mut sims[usize::from(seat)];
                if let Some(played) = played {
                    moves.push((seat, played));
                    plies += 1;
                    sim.moves += 1;
                    if let Some(began) = sim.turn_began {
                        replies.push((seat, now - began));
                    }
                    if let (Some(clock), Some(began)) = (sim.clock, sim.turn_began) {
                        sim.clock = Some(clock.saturating_sub(now - began));
                    }
                    sim.turn_began = None;
                    sim.waiting_at = None;
                } else {
                    sim.thinking_since = now;
                }
            }
            Decision::Resign => {
                let team = spec.settings.team_of(seat);
                let winners = (0..strengths.len())
                    .filter_map(|s| Seat::try_from(s).ok())
                    .filter(|s| spec.settings.team_of(*s) != team)
                    .collect();
                game.finish(Outcome::win(winners, EndReason::Resignation));
            }
            Decision::Wait => {}
        }
        settle_stale(&game, &mut sims);
    }
}

/// Every seat's clock at `now`, for the bots' context.
fn sims_clocks(sims: &[SeatSim], now: Duration) -> Vec<Duration> {
    sims.iter()
        .map(|sim| {
            let clock = sim.clock.unwrap_or_default();
            match sim.turn_began {
                Some(began) => clock.saturating_sub(now - began),
                None => clock,
            }
        })
        .collect()
}

/// Drops answers of seats that are no longer to move (the game ended, or a turn passed).
fn settle_stale(game: &AnyGame, sims: &mut [SeatSim]) {
    let active = game.active_seats();
    for (index, sim) in sims.iter_mut().enumerate() {
        let seat = Seat::try_from(index).unwrap_or(Seat::MAX);
        if !active.contains(seat) {
            sim.pending = None;
            sim.turn_began = None;
            sim.waiting_at = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Strength;
    use spelbord_games::GameKind;
    use spelbord_games::settings::SettingsReader;

    fn spec(kind: GameKind, games: u32) -> MatchSpec {
        let mut reader = SettingsReader::new(serde_json::Map::new());
        MatchSpec {
            settings: AnySettings::read(kind, &mut reader).expect("default settings"),
            a: Strength::Random.into(),
            b: Strength::Random.into(),
            engines: Engines::default(),
            games,
            ms_per_move: Some(1),
            budgets: Budgets::default(),
            clock: (kind == GameKind::Bughouse).then(|| Duration::from_secs(180)),
            seed: 7,
            resign: true,
        }
    }

    #[test]
    fn random_bots_finish_every_game_of_every_kind() {
        for kind in GameKind::ALL {
            let report = play_match(&spec(*kind, 2), |_, _| {});
            assert_eq!(report.games.len(), 2, "{kind:?}");
            for record in &report.games {
                assert!(record.plies > 0, "{kind:?}: {record:?}");
                assert_ne!(record.outcome.reason, EndReason::Aborted, "{kind:?}");
                // The recorded moves replay, by their seats, to the same end.
                assert_eq!(record.moves.len(), record.plies as usize, "{kind:?}");
                let mut game = spec(*kind, 2).settings.new_game();
                for (seat, mv) in &record.moves {
                    assert!(game.play_json(*seat, mv).is_ok(), "{kind:?}: {mv}");
                }
                if !matches!(record.outcome.reason, EndReason::MoveLimit | EndReason::Time) {
                    assert_eq!(
                        game.outcome().map(|o| o.result.clone()),
                        Some(record.outcome.result.clone()),
                        "{kind:?}"
                    );
                }
            }
            assert!(!report.think_a.is_empty() && !report.think_b.is_empty());
            assert_eq!(report.illegal, 0, "{kind:?}");
        }
    }

    #[test]
    fn sides_alternate() {
        let report = play_match(&spec(GameKind::Gomoku, 2), |_, _| {});
        assert_eq!(report.games[0].a_seats, vec![0]);
        assert_eq!(report.games[1].a_seats, vec![1]);
        let report = play_match(&spec(GameKind::Bughouse, 2), |_, _| {});
        assert_eq!(report.games[0].a_seats, vec![0, 3]);
        assert_eq!(report.games[1].a_seats, vec![1, 2]);
    }

    #[test]
    fn percentiles() {
        let times: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(
            mean_and_p99(&times),
            (Duration::from_micros(50_500), Duration::from_millis(99))
        );
        assert_eq!(mean_and_p99(&[]), (Duration::ZERO, Duration::ZERO));
    }
}
