//! How often one table lets things happen that cost everyone storage: games started by
//! agreement (a rematch, a new game, the seats filled again after a series) and each
//! player's chat lines, whatever the number of their connections. Paced by
//! governor's GCRA on tokio's clock, so tests with paused time see the pace they set.
//!
//! A table makes its [`Quotas`] when first needed (most tables never chat and play one
//! game), and keeps them while its actor runs: a rebuilt table starts with full quotas,
//! which costs a flood the rebuild's time (the table must first leave memory, idle).

use std::num::NonZeroU32;
use std::ops::Add;
use std::time::Duration;

use governor::clock::{Clock, Reference};
use governor::middleware::NoOpMiddleware;
use governor::nanos::Nanos;
use governor::state::keyed::HashMapStateStore;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};

use crate::identity::PlayerKey;

/// How often a table lets its players start games and chat (from `[limits]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuotaSettings {
    /// Games a table may start by agreement a minute, sustained…
    pub game_starts_per_minute: u32,
    /// …and at once, after a quiet while.
    pub game_start_burst: u32,
    /// Games one table may hold: at the limit no new series or casual game starts (a new
    /// table is one click away); a series under way is played to its end.
    pub games_per_table: u32,
    /// A take-back is refused once the game holds this many records (moves and
    /// take-backs): a game's record stays bounded however often moves are taken back.
    pub undo_record_limit: u32,
    /// Chat lines one player (all their connections together) may send a minute,
    /// sustained…
    pub chat_lines_per_minute: u32,
    /// …and at once.
    pub chat_burst: u32,
}

impl From<&crate::config::LimitSettings> for QuotaSettings {
    /// The paces configured under `[limits]`.
    fn from(limits: &crate::config::LimitSettings) -> QuotaSettings {
        QuotaSettings {
            game_starts_per_minute: limits.game_starts_per_minute,
            game_start_burst: limits.game_start_burst,
            games_per_table: limits.games_per_table,
            undo_record_limit: limits.undo_record_limit,
            chat_lines_per_minute: limits.chat_lines_per_minute,
            chat_burst: limits.chat_burst,
        }
    }
}

impl Default for QuotaSettings {
    fn default() -> QuotaSettings {
        QuotaSettings {
            game_starts_per_minute: 6,
            game_start_burst: 10,
            games_per_table: 1000,
            undo_record_limit: 1000,
            chat_lines_per_minute: 30,
            chat_burst: 5,
        }
    }
}

/// tokio's clock (paused in tests), for governor.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioClock;

/// An instant of [`TokioClock`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct TokioInstant(tokio::time::Instant);

impl Add<Nanos> for TokioInstant {
    type Output = TokioInstant;

    fn add(self, other: Nanos) -> TokioInstant {
        TokioInstant(self.0 + Duration::from(other))
    }
}

impl Reference for TokioInstant {
    fn duration_since(&self, earlier: TokioInstant) -> Nanos {
        Nanos::from(self.0.saturating_duration_since(earlier.0))
    }

    fn saturating_sub(&self, duration: Nanos) -> TokioInstant {
        TokioInstant(self.0.checked_sub(Duration::from(duration)).unwrap_or(self.0))
    }
}

impl Clock for TokioClock {
    type Instant = TokioInstant;

    fn now(&self) -> TokioInstant {
        TokioInstant(tokio::time::Instant::now())
    }
}

type Direct = RateLimiter<NotKeyed, InMemoryState, TokioClock, NoOpMiddleware<TokioInstant>>;
type Keyed = RateLimiter<PlayerKey, HashMapStateStore<PlayerKey>, TokioClock, NoOpMiddleware<TokioInstant>>;

/// Chat senders remembered before those whose pace has fully recovered are forgotten.
const CHAT_KEYS_KEPT: usize = 64;

/// One table's paces.
pub struct Quotas {
    game_starts: Direct,
    chat: Keyed,
}

impl std::fmt::Debug for Quotas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Quotas")
            .field("chat_senders", &self.chat.len())
            .finish()
    }
}

/// A quota is spent: the wait until the next is allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spent {
    pub retry_after: Duration,
}

impl Spent {
    /// The wait in whole seconds, rounded up (as a refusal's message says it).
    pub fn seconds(&self) -> u128 {
        self.retry_after.as_millis().div_ceil(1000)
    }
}

fn quota(per_minute: u32, burst: u32) -> Quota {
    let per_minute = NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN);
    let burst = NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN);
    Quota::per_minute(per_minute).allow_burst(burst)
}

impl Quotas {
    pub fn new(settings: &QuotaSettings) -> Quotas {
        Quotas {
            game_starts: RateLimiter::direct_with_clock(
                quota(settings.game_starts_per_minute, settings.game_start_burst),
                TokioClock,
            ),
            chat: RateLimiter::hashmap_with_clock(
                quota(settings.chat_lines_per_minute, settings.chat_burst),
                TokioClock,
            ),
        }
    }

    /// Takes one game start, or says how long until one is allowed.
    pub fn start_game(&self) -> Result<(), Spent> {
        self.game_starts.check().map_err(|not_until| Spent {
            retry_after: not_until.wait_time_from(TokioClock.now()),
        })
    }

    /// Takes one chat line of `sender`'s, or says how long until one is allowed.
    pub fn chat_line(&self, sender: &PlayerKey) -> Result<(), Spent> {
        if self.chat.len() >= CHAT_KEYS_KEPT {
            self.chat.retain_recent();
        }
        self.chat.check_key(sender).map_err(|not_until| Spent {
            retry_after: not_until.wait_time_from(TokioClock.now()),
        })
    }
}

/// The table's quotas, made on first use.
pub fn quotas<'a>(slot: &'a mut Option<Box<Quotas>>, settings: &QuotaSettings) -> &'a Quotas {
    slot.get_or_insert_with(|| Box::new(Quotas::new(settings)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u8) -> PlayerKey {
        PlayerKey::from_bytes(&[n; 32]).expect("32 bytes")
    }

    #[tokio::test(start_paused = true)]
    async fn game_starts_allow_a_burst_then_the_sustained_pace() {
        let quotas = Quotas::new(&QuotaSettings::default());
        for _ in 0..10 {
            assert_eq!(quotas.start_game(), Ok(()));
        }
        let spent = quotas.start_game().unwrap_err();
        assert_eq!(spent.retry_after, Duration::from_secs(10));
        tokio::time::advance(Duration::from_secs(10)).await;
        assert_eq!(quotas.start_game(), Ok(()));
        assert!(quotas.start_game().is_err());
    }

    #[tokio::test(start_paused = true)]
    async fn chat_is_paced_per_player() {
        let quotas = Quotas::new(&QuotaSettings::default());
        for _ in 0..5 {
            assert_eq!(quotas.chat_line(&key(1)), Ok(()));
        }
        let spent = quotas.chat_line(&key(1)).unwrap_err();
        assert_eq!(spent.retry_after, Duration::from_secs(2));
        // Another player is not held back by the first.
        assert_eq!(quotas.chat_line(&key(2)), Ok(()));
        tokio::time::advance(Duration::from_secs(2)).await;
        assert_eq!(quotas.chat_line(&key(1)), Ok(()));
    }

    #[tokio::test(start_paused = true)]
    async fn many_senders_are_forgotten_once_their_pace_recovers() {
        let quotas = Quotas::new(&QuotaSettings::default());
        for n in 0..=255u8 {
            quotas.chat_line(&key(n)).unwrap();
            if n % 32 == 0 {
                tokio::time::advance(Duration::from_secs(60)).await;
            }
        }
        assert!(quotas.chat.len() <= CHAT_KEYS_KEPT + 32, "{}", quotas.chat.len());
    }
}
