//! Moderation at one table (docs/operations.md, "Moderation"): an operator closing the
//! table or freeing a seat, players muted in chat (checked at every line they send, and
//! told when it happens), and players reporting a chat line to the operators.
//!
//! The operator's routes are `http::admin`; mutes, reports and closed tables are stored by
//! [`crate::store::moderation`]. A closed table aborts its game, tells everyone
//! (`table_closed`), stops (its sockets close with 4000) and is never served again. A seat
//! freed during a game aborts the game (nobody loses it: the operator acted, not the
//! players), and an undecided series ends there, scored as it stands, since its seats could
//! otherwise never change again. The operator may also bar the removed person from the
//! table's seats and queue (stored and looked up at each `sit` and `join_queue`, so a
//! restarted or moved table keeps it; lifted by `Unbar`).

use serde_json::json;
use time::format_description::well_known::Rfc3339;

use super::series::Interlude;
use super::*;
use crate::games::GameResult;
use crate::store::moderation::Reported;
use crate::table::msg::{Moderated, Moderation, ModerationCmd, ModerationError};

/// The longest reason a player may give a report, in characters.
pub const REPORT_REASON_MAX: usize = 200;

impl TableActor {
    /// An operator closed the table: the loop stops after this command.
    pub(super) fn closed(&self) -> bool {
        self.shared.closed.load(Ordering::Acquire)
    }

    /// Carries out an operator's action (or news of a mute) and answers whoever waits.
    pub(super) async fn moderate(&mut self, cmd: ModerationCmd) {
        let ModerationCmd { action, reply } = cmd;
        let answer = match action {
            Moderation::Close => self.close_table().await,
            Moderation::RemoveSeat { seat, bar } => self.remove_seat(seat, bar).await,
            Moderation::Unbar { key } => self.unbar(key).await,
            Moderation::Muted {
                key,
                muted,
                reason,
                until,
            } => {
                self.tell_muted(key, muted, reason, until);
                Ok(Moderated::default())
            }
        };
        if let Some(reply) = reply {
            let _ = reply.send(answer);
        }
    }

    /// Aborts the game in play (`rule` says why, in the result's detail) and ends an
    /// undecided series; no pause or next game follows.
    async fn stop_play(&mut self, rule: &'static str) -> Result<Moderated, ModerationError> {
        let mut done = Moderated::default();
        if self.playing().is_ok() {
            let aborted = Outcome {
                result: GameResult::Aborted,
                reason: EndReason::Aborted,
                detail: json!({ "rule": rule }),
            };
            self.close_game(aborted).await.map_err(|_| ModerationError::Storage)?;
            done.game_aborted = true;
        }
        self.interlude = Interlude::default();
        self.waiting_for_players = false;
        if !self.series_decided() {
            self.end_series_early().await;
            // Its failure would start the pause again, and the next game with it.
            self.interlude.next_game_at = None;
            if !self.series_decided() {
                return Err(ModerationError::Storage);
            }
            done.series_ended = true;
        }
        Ok(done)
    }

    /// Closes the table for good: see the module doc.
    async fn close_table(&mut self) -> Result<Moderated, ModerationError> {
        let done = self.stop_play("closed_by_operator").await?;
        self.store
            .close_table(&self.id)
            .await
            .map_err(not_stored(&self.id, "could not store that the table is closed"))?;
        tracing::info!(table = %self.id, "an operator closed the table");
        self.event(|version| ServerMsg::TableClosed { version });
        // Read by the connections once their outbox closes (4000, not 1012), and by the loop.
        self.shared.closed.store(true, Ordering::Release);
        Ok(done)
    }

    /// Frees `seat`, whoever holds it, and with `bar` keeps the person from sitting down
    /// here again: see the module doc.
    async fn remove_seat(&mut self, seat: Seat, bar: bool) -> Result<Moderated, ModerationError> {
        if !self.seats.exists(seat) {
            return Err(ModerationError::NoSuchSeat {
                seat,
                last: self.seats.count().saturating_sub(1),
            });
        }
        let Some(holder) = self.seats.holder(seat) else {
            return Err(ModerationError::SeatFree(seat));
        };
        let (name, key) = (holder.name(), holder.key());
        let mut done = self.stop_play("removed_by_operator").await?;
        let barred = bar.then_some(key).flatten();
        if let Some(key) = barred {
            self.store
                .bar_from_table(&self.id, key.as_bytes())
                .await
                .map_err(not_stored(&self.id, "could not store a bar from the seats"))?;
        }
        self.store
            .free_seat(&self.id, seat)
            .await
            .map_err(not_stored(&self.id, "could not free a seat an operator emptied"))?;
        if let Some(key) = key {
            let removed = ServerMsg::Removed {
                version: self.version,
                seat,
                barred: barred.is_some(),
            };
            self.send_to_key(key, &removed);
        }
        self.seats.stand(seat);
        self.interlude.rematch.clear();
        self.event(|version| ServerMsg::Stood { version, seat });
        self.sync_presence();
        tracing::info!(table = %self.id, seat, barred = barred.is_some(), "an operator freed a seat");
        done.removed = Some((name, key));
        done.barred = barred.is_some();
        Ok(done)
    }

    /// Lets a barred person take a seat here again.
    async fn unbar(&mut self, key: PlayerKey) -> Result<Moderated, ModerationError> {
        let unbarred = self
            .store
            .unbar_from_table(&self.id, key.as_bytes())
            .await
            .map_err(not_stored(&self.id, "could not lift a bar from the seats"))?;
        Ok(Moderated {
            unbarred,
            ..Moderated::default()
        })
    }

    /// Refuses a seat or a place in the queue to a person an operator barred here: one
    /// primary-key lookup (as a chat line's mute), at a `sit` of a free seat and at a
    /// rotating table's `join_queue`; the table keeps no copy (it would grow every table
    /// for a rare case).
    pub(super) async fn unless_barred(&self, conn: ConnId) -> Result<(), Refusal> {
        let Some(key) = self.conns.get(&conn).and_then(|c| c.key) else {
            return Ok(());
        };
        let barred = self
            .store
            .is_barred(&self.id, key.as_bytes())
            .await
            .map_err(Refusal::storage)?;
        if barred {
            return Err(Refusal::new(
                ErrorCode::Barred,
                "A moderator removed you from this table's seats: you may watch, but not sit down here again.",
            ));
        }
        Ok(())
    }

    /// Tells the player's connections here that they were muted, or unmuted.
    fn tell_muted(&mut self, key: PlayerKey, muted: bool, reason: String, until: Option<String>) {
        let message = match muted {
            true => ServerMsg::Muted {
                version: self.version,
                reason,
                until,
            },
            false => ServerMsg::Unmuted { version: self.version },
        };
        self.send_to_key(key, &message);
    }

    /// Sends a private message to every connection of the person with `key`.
    pub(super) fn send_to_key(&mut self, key: PlayerKey, message: &ServerMsg) {
        let conns: Vec<ConnId> = self
            .conns
            .iter()
            .filter(|(_, conn)| conn.key == Some(key))
            .map(|(id, _)| *id)
            .collect();
        for conn in conns {
            self.send_to(conn, message);
        }
    }

    /// Refuses a chat line of a muted player (`key`: the speaker's; `None` for nobody to check).
    pub(super) async fn unless_muted(&self, key: Option<PlayerKey>) -> Result<(), Refusal> {
        let Some(key) = key else { return Ok(()) };
        let mute = self.store.chat_mute(key.as_bytes()).await.map_err(Refusal::storage)?;
        let Some(mute) = mute else { return Ok(()) };
        let until = match mute.until.and_then(|until| until.format(&Rfc3339).ok()) {
            Some(until) => format!(" until {until}"),
            None => String::new(),
        };
        Err(Refusal::new(
            ErrorCode::ChatMuted,
            format!(
                "A moderator muted you in chat{until}: {}. Your lines are not sent.",
                mute.reason.trim_end_matches('.')
            ),
        ))
    }

    /// A player reports chat line `line` to the operators: stored (once per reporter and
    /// line) and acknowledged with `reported`. A report costs a chat line of the reporter's
    /// pace.
    pub(super) async fn report(
        &mut self,
        conn: ConnId,
        line: i64,
        reason: Option<String>,
        reference: Option<Value>,
    ) -> Result<(), Refusal> {
        let reason = reason
            .map(|reason| reason.trim().to_owned())
            .filter(|reason| !reason.is_empty());
        if let Some(reason) = &reason
            && (reason.chars().count() > REPORT_REASON_MAX
                || reason.chars().any(|c| c.is_control() && c != '\n' && c != '\t'))
        {
            return Err(Refusal::new(
                ErrorCode::BadReport,
                format!("A report's reason is at most {REPORT_REASON_MAX} characters, without control characters."),
            ));
        }
        let reporter = self.player(conn);
        self.chat_pace(conn)?;
        let reported = self
            .store
            .report_line(reporter.as_bytes(), &self.id, line, reason.as_deref())
            .await
            .map_err(Refusal::storage)?;
        if reported == Reported::NoLine {
            return Err(Refusal::new(
                ErrorCode::NoSuchLine,
                format!("This table has no chat line {line} you could report."),
            ));
        }
        tracing::info!(table = %self.id, line, "a player reported a chat line");
        let answer = ServerMsg::Reported {
            version: self.version,
            line,
            again: reported == Reported::Again,
            reference,
        };
        self.send_to(conn, &answer);
        Ok(())
    }
}

/// An operator's action whose write failed: logged as `what` with the table and the error;
/// the operator is told that nothing changed.
fn not_stored<'a>(table: &'a str, what: &'static str) -> impl FnOnce(StoreError) -> ModerationError + 'a {
    move |err| {
        tracing::error!(table, error = %err, "{what}");
        ModerationError::Storage
    }
}
