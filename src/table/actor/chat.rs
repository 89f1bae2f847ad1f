//! Chat: lines to the whole table from seated players (and, at a rotating table, from the
//! people waiting in its queue, with no seat), and team lines that only the sender's
//! partners receive (Bughouse), each player's lines paced (`limits.chat_*`). Spectators
//! read table chat but do not write.
//! A player an operator muted is refused (`chat_muted`, checked in `moderation.rs`).
//! Every line is stored before it is sent, and kept in the table's [`ChatLog`] for
//! newcomers: table chat in the snapshot, team chat in the team's `welcome`.
//!
//! [`ChatLog`]: crate::table::chat_log::ChatLog

use super::{Refusal, TableActor};
use crate::games::Seat;
use crate::identity::PlayerKey;
use crate::protocol::{ChatView, ErrorCode, ServerMsg};
use crate::store::StoreError;
use crate::store::chat::ChatRecord;
use crate::table::chat_log::{CHAT_HISTORY, ChatLog};
use crate::table::msg::ConnId;
use crate::table::quota;
use crate::table::seats::Holder;

impl TableActor {
    /// The seat a connection speaks as: its only seat, or the first of several.
    fn speaker(&self, conn: ConnId) -> Result<Seat, Refusal> {
        self.acting_seat(conn, None).or_else(|refusal| match refusal.code {
            ErrorCode::SeatRequired => self
                .conns
                .get(&conn)
                .and_then(|c| c.key)
                .and_then(|key| self.seats.held_by(&key).first().copied())
                .ok_or(refusal),
            _ => Err(refusal),
        })
    }

    fn chat_text(&self, text: String) -> Result<String, Refusal> {
        let text = text.trim().to_owned();
        if text.is_empty() || text.chars().count() > self.limits.chat_max_chars {
            return Err(Refusal::new(
                ErrorCode::BadChat,
                format!("A chat message is 1 to {} characters.", self.limits.chat_max_chars),
            ));
        }
        // Control characters (NUL above all, which PostgreSQL cannot store) are the client's
        // fault: refused here, before storage, never a server error. Line breaks and tabs pass.
        if text.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
            return Err(Refusal::new(
                ErrorCode::BadChat,
                "A chat message may not contain control characters.",
            ));
        }
        Ok(text)
    }

    /// Takes one line from the pace of the player speaking over `conn` (all their
    /// connections together), or refuses the line.
    pub(super) fn chat_pace(&mut self, conn: ConnId) -> Result<(), Refusal> {
        let Some(key) = self.conns.get(&conn).and_then(|c| c.key) else {
            return Ok(());
        };
        let settings = self.limits.quotas;
        quota::quotas(&mut self.quotas, &settings)
            .chat_line(&key)
            .map_err(|spent| {
                Refusal::new(
                    ErrorCode::ChatTooFast,
                    format!(
                        "You are chatting too fast: your next line may go in {} s.",
                        spent.seconds()
                    ),
                )
            })
    }

    /// Who speaks over `conn` to the whole table: a seated player (their seat, key and
    /// name), or at a rotating table a person waiting in its queue (no seat).
    fn table_speaker(&self, conn: ConnId) -> Result<(Option<Seat>, Option<PlayerKey>, String), Refusal> {
        match self.speaker(conn) {
            Ok(seat) => {
                let holder = self.seats.holder(seat);
                Ok((
                    Some(seat),
                    holder.and_then(Holder::key),
                    holder.map(Holder::name).unwrap_or_default(),
                ))
            }
            Err(refusal) => {
                let key = self.conns.get(&conn).and_then(|c| c.key);
                match key.and_then(|key| Some((key, self.waiting_name(&key)?))) {
                    Some((key, name)) => Ok((None, Some(key), name)),
                    None => Err(refusal),
                }
            }
        }
    }

    pub(super) async fn chat(&mut self, conn: ConnId, text: String) -> Result<(), Refusal> {
        let (seat, key, name) = self.table_speaker(conn)?;
        let text = self.chat_text(text)?;
        self.unless_muted(key).await?;
        self.chat_pace(conn)?;
        let record = ChatRecord {
            seat,
            name: &name,
            text: &text,
            team: None,
            audience: &[],
            player_key: key.as_ref().map(PlayerKey::as_bytes),
        };
        let id = self
            .store
            .append_chat(&self.id, &record)
            .await
            .map_err(Refusal::storage)?;
        self.chat.say(ChatView {
            id,
            seat,
            name: name.clone(),
            text: text.clone(),
        });
        self.event(|version| ServerMsg::Chat {
            version,
            id,
            seat,
            name,
            text,
        });
        Ok(())
    }

    /// Sends a line to every connection of the players on the sender's team. It is not a
    /// table event: no version is raised and it is not kept for resuming (the team's
    /// `welcome` brings it back).
    pub(super) async fn team_chat(&mut self, conn: ConnId, text: String) -> Result<(), Refusal> {
        let seat = self.speaker(conn)?;
        let team = self.settings.game.team_of(seat);
        let team_seats: Vec<Seat> = self
            .seats
            .iter()
            .map(|(other, _)| other)
            .filter(|other| self.settings.game.team_of(*other) == team)
            .collect();
        if team_seats.len() < 2 {
            return Err(Refusal::new(ErrorCode::NoPartner, "You have no partner at this table."));
        }
        let text = self.chat_text(text)?;
        let key = self.seats.holder(seat).and_then(Holder::key);
        self.unless_muted(key).await?;
        self.chat_pace(conn)?;
        let name = self.seats.holder(seat).map(Holder::name).unwrap_or_default();
        // Who may read it again later: the team's people now.
        let mut audience = Vec::new();
        for key in team_seats
            .iter()
            .filter_map(|other| self.seats.holder(*other).and_then(Holder::key))
        {
            if !audience.contains(&key) {
                audience.push(key);
            }
        }
        let stored_audience: Vec<Vec<u8>> = audience.iter().map(|key| key.as_bytes().to_vec()).collect();
        let record = ChatRecord {
            seat: Some(seat),
            name: &name,
            text: &text,
            team: Some(team),
            audience: &stored_audience,
            player_key: key.as_ref().map(PlayerKey::as_bytes),
        };
        let id = self
            .store
            .append_chat(&self.id, &record)
            .await
            .map_err(Refusal::storage)?;
        self.chat.say_to_team(
            team,
            ChatView {
                id,
                seat: Some(seat),
                name: name.clone(),
                text: text.clone(),
            },
            audience,
        );
        let message = ServerMsg::TeamChat {
            version: self.version,
            id,
            seat,
            name,
            text,
        };
        for other in team_seats {
            self.send_to_seat(other, &message);
        }
        Ok(())
    }

    /// The recent chat as stored: the table's, and each team's (of two seats or more).
    pub(super) async fn load_chat(&self) -> Result<ChatLog, StoreError> {
        let teams: Vec<u8> = self
            .seats
            .iter()
            .map(|(seat, _)| self.settings.game.team_of(seat))
            .collect();
        let mut rows = self.store.recent_chat(&self.id, None, CHAT_HISTORY).await?;
        let mut loaded = Vec::new();
        for team in teams.iter().copied() {
            if loaded.contains(&team) || teams.iter().filter(|other| **other == team).count() < 2 {
                continue;
            }
            loaded.push(team);
            rows.extend(self.store.recent_chat(&self.id, Some(team), CHAT_HISTORY).await?);
        }
        Ok(ChatLog::from_rows(rows))
    }

    /// Sends a private message to every connection of the player holding `seat`.
    pub(super) fn send_to_seat(&mut self, seat: Seat, message: &ServerMsg) {
        if let Some(key) = self.seats.holder(seat).and_then(Holder::key) {
            self.send_to_key(key, message);
        }
    }
}
