//! Telling a silent connection from a quiet one: the server pings every connection at an
//! interval, and a connection from which nothing at all (no pong, no message) has arrived
//! for the silence timeout is taken as gone, so its player's reconnect grace can start.

use std::time::Duration;

use tokio::time::Instant;

/// When a connection was last heard from.
#[derive(Debug, Clone, Copy)]
pub struct Liveness {
    last_heard: Instant,
    timeout: Duration,
}

impl Liveness {
    pub fn new(now: Instant, timeout: Duration) -> Liveness {
        Liveness {
            last_heard: now,
            timeout,
        }
    }

    /// Anything arrived from the client.
    pub fn heard(&mut self, now: Instant) {
        self.last_heard = now;
    }

    /// Nothing has arrived for the whole timeout.
    pub fn is_silent(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.last_heard) >= self.timeout
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::time::advance;

    #[tokio::test(start_paused = true)]
    async fn silent_exactly_after_the_timeout_without_a_word() {
        let mut liveness = Liveness::new(Instant::now(), Duration::from_secs(10));
        advance(Duration::from_secs(6)).await;
        liveness.heard(Instant::now());
        advance(Duration::from_millis(9_999)).await;
        assert!(!liveness.is_silent(Instant::now()), "a pong 6 s in restarted the count");
        advance(Duration::from_millis(1)).await;
        assert!(liveness.is_silent(Instant::now()));
    }
}
