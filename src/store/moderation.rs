//! Queries of moderation (migration 0019): chat mutes by player key (checked at every chat
//! line, announced to every node by `NOTIFY` on [`MODERATION_CHANNEL`]), chat lines players
//! report, tables an operator closes, players barred from a table's seats (migration 0022),
//! the operator's views (tables by activity, a table's
//! stored chat, the reports) and the record of every operator action.

use serde::Serialize;
use serde_json::Value;
use time::OffsetDateTime;

use super::leases::Fenced;
use super::{Store, StoreError};

/// The channel a mute or unmute is announced on, so that every node tells the player's
/// connections at its tables (payload: a [`MuteNotice`] as JSON).
pub const MODERATION_CHANNEL: &str = "spelbord_moderation";

/// A mute in force.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct MuteRow {
    /// The operator's reason, told to the player.
    pub reason: String,
    /// `None`: until lifted.
    pub until: Option<OffsetDateTime>,
}

/// What [`MODERATION_CHANNEL`] carries: a player muted (`muted`) or unmuted.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct MuteNotice {
    /// The player's key in hexadecimal.
    pub player_key: String,
    /// `true` for a mute, `false` for a mute lifted.
    pub muted: bool,
    /// A mute's reason (empty for an unmute).
    #[serde(default)]
    pub reason: String,
    /// RFC 3339, when the mute lapses (`None`: until lifted, or an unmute).
    #[serde(default)]
    pub until: Option<String>,
}

/// What a report of a chat line came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reported {
    /// Stored.
    New,
    /// This reporter had reported the line before: nothing more was stored.
    Again,
    /// The table has no such line that the reporter may read (unknown, too old, another
    /// table's, another team's), or it is the reporter's own.
    NoLine,
}

/// An operator's action, as recorded in `admin_actions`.
#[derive(Debug, Clone)]
pub struct AdminAction<'a> {
    /// The `X-Admin-Name` given (`""` when none was).
    pub actor: &'a str,
    /// Which token opened the request: `admin` or `metrics`.
    pub token_kind: &'a str,
    /// The client's address (behind trusted proxies, the forwarded one).
    pub address: String,
    /// `close_table`, `remove_seat`, `mute`, `unmute`.
    pub action: &'a str,
    /// The table acted on (`None` for mutes, which hold at every table).
    pub table_id: Option<&'a str>,
    /// What the action did (the seat and who held it, whether a game was aborted, …).
    pub details: Value,
}

/// A stored chat line as the operator reads it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct AdminChatRow {
    /// What a `report` names the line by.
    pub id: i64,
    pub seat: i16,
    /// The speaker's name as shown then.
    pub name: String,
    pub text: String,
    /// `None`: table chat; else the team whose chat it was.
    pub team: Option<i16>,
    /// Whom to mute: the speaker's key (`None` for lines stored before migration 0019).
    pub player_key: Option<Vec<u8>>,
    pub sent_at: OffsetDateTime,
}

/// A reported line, as the operator's list shows it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ReportRow {
    /// The report's own id.
    pub id: i64,
    pub table_id: String,
    /// The reported line's id (the line itself may be gone since: what follows is its copy).
    pub line_id: i64,
    /// The reporter's key.
    pub reporter: Vec<u8>,
    /// The reporter's reason, if they gave one.
    pub reason: Option<String>,
    pub reported_at: OffsetDateTime,
    pub seat: i16,
    pub name: String,
    pub speaker_key: Option<Vec<u8>>,
    pub text: String,
    pub team: Option<i16>,
    pub sent_at: OffsetDateTime,
}

/// A table in the operator's list by activity.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ActivityRow {
    pub id: String,
    pub game: String,
    pub created_at: OffsetDateTime,
    pub closed_at: Option<OffsetDateTime>,
    /// The latest game's status (`playing`, `finished`), `None` before the first game.
    pub game_status: Option<String>,
    /// How many games the table has held (the latest one's number).
    pub games: i32,
    pub last_move_at: Option<OffsetDateTime>,
    pub last_chat_at: Option<OffsetDateTime>,
    /// The latest of creation, the last move, the last chat line and the last game's start and end.
    pub active_at: OffsetDateTime,
    /// The seated players' names (bots too), by seat.
    pub players: Vec<String>,
}

impl Store {
    /// The mute in force on `player_key`, if any (one primary-key lookup; chat is paced,
    /// so this is at most a few a second per player).
    pub async fn chat_mute(&self, player_key: &[u8]) -> Result<Option<MuteRow>, StoreError> {
        Ok(sqlx::query_as::<_, MuteRow>(
            "SELECT reason, until FROM chat_mutes
              WHERE player_key = $1 AND (until IS NULL OR until > now())",
        )
        .bind(player_key)
        .fetch_optional(self.pool())
        .await?)
    }

    /// Mutes `player_key` (replacing an earlier mute) and announces it on
    /// [`MODERATION_CHANNEL`], in one transaction.
    pub async fn mute(
        &self,
        player_key: &[u8],
        notice: &MuteNotice,
        until: Option<OffsetDateTime>,
        by: &str,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await?;
        sqlx::query(
            "INSERT INTO chat_mutes (player_key, reason, until, muted_by) VALUES ($1, $2, $3, $4)
             ON CONFLICT (player_key) DO UPDATE
                SET reason = excluded.reason, until = excluded.until, muted_by = excluded.muted_by, muted_at = now()",
        )
        .bind(player_key)
        .bind(&notice.reason)
        .bind(until)
        .bind(by)
        .execute(&mut *tx)
        .await?;
        notify(&mut tx, notice).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Lifts the mute on `player_key` (announced as [`Store::mute`] is): whether there was one.
    pub async fn unmute(&self, player_key: &[u8], notice: &MuteNotice) -> Result<bool, StoreError> {
        let mut tx = self.pool().begin().await?;
        let removed = sqlx::query("DELETE FROM chat_mutes WHERE player_key = $1")
            .bind(player_key)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if removed > 0 {
            notify(&mut tx, notice).await?;
        }
        tx.commit().await?;
        Ok(removed > 0)
    }

    /// Stores `reporter`'s report of line `line_id` of `table_id`, which they must be able to
    /// read (table chat, or a team line they were in the audience of) and not have said.
    /// The line is copied into the report: it may leave the table's last 100 later.
    pub async fn report_line(
        &self,
        reporter: &[u8],
        table_id: &str,
        line_id: i64,
        reason: Option<&str>,
    ) -> Result<Reported, StoreError> {
        let (found, stored): (i64, i64) = sqlx::query_as(
            "WITH line AS (
                 SELECT id, seat, name, text, team, player_key, sent_at FROM chat_messages
                  WHERE id = $2 AND table_id = $3
                    AND (team IS NULL OR $1 = ANY (audience))
                    AND player_key IS DISTINCT FROM $1
             ), added AS (
                 INSERT INTO chat_reports (reporter, line_id, table_id, reason, seat, name, speaker_key, text, team, sent_at)
                 SELECT $1, id, $3, $4, seat, name, player_key, text, team, sent_at FROM line
                 ON CONFLICT (reporter, line_id) DO NOTHING
                 RETURNING id
             )
             SELECT (SELECT count(*) FROM line), (SELECT count(*) FROM added)",
        )
        .bind(reporter)
        .bind(line_id)
        .bind(table_id)
        .bind(reason)
        .fetch_one(self.pool())
        .await?;
        Ok(match (found, stored) {
            (0, _) => Reported::NoLine,
            (_, 0) => Reported::Again,
            _ => Reported::New,
        })
    }

    /// The reported lines, newest report first, at most `limit`.
    pub async fn reports(&self, limit: i64) -> Result<Vec<ReportRow>, StoreError> {
        Ok(sqlx::query_as::<_, ReportRow>(
            "SELECT id, table_id, line_id, reporter, reason, reported_at, seat, name, speaker_key, text, team, sent_at
               FROM chat_reports ORDER BY reported_at DESC, id DESC LIMIT $1",
        )
        .bind(limit)
        .fetch_all(self.pool())
        .await?)
    }

    /// Records an operator's action.
    pub async fn record_admin_action(&self, action: &AdminAction<'_>) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO admin_actions (actor, token_kind, address, action, table_id, details)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(action.actor)
        .bind(action.token_kind)
        .bind(&action.address)
        .bind(action.action)
        .bind(action.table_id)
        .bind(&action.details)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Whether table `id` is stored (`None`: no such table) and whether it was closed.
    pub async fn table_closed(&self, id: &str) -> Result<Option<bool>, StoreError> {
        Ok(
            sqlx::query_scalar::<_, bool>("SELECT closed_at IS NOT NULL FROM tables WHERE id = $1")
                .bind(id)
                .fetch_optional(self.pool())
                .await?,
        )
    }

    /// Every stored chat line of a table, table and team chat, oldest first.
    pub async fn admin_chat(&self, table_id: &str) -> Result<Vec<AdminChatRow>, StoreError> {
        Ok(sqlx::query_as::<_, AdminChatRow>(
            "SELECT id, seat, name, text, team, player_key, sent_at FROM chat_messages
              WHERE table_id = $1 ORDER BY id",
        )
        .bind(table_id)
        .fetch_all(self.pool())
        .await?)
    }

    /// Marks the table closed by an operator (under its lease, as every write of a table).
    pub async fn close_table(&self, table_id: &str) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE tables SET closed_at = coalesce(closed_at, now())
              WHERE id = $1 AND spelbord_hold_lease($2, $3, $4)",
        )
        .bind(table_id)
        .write_fenced(self)
        .await?;
        Ok(())
    }

    /// Bars a player from the table's seats (and queue), under its lease; barring again
    /// is no change.
    pub async fn bar_from_table(&self, table_id: &str, player_key: &[u8]) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO table_bars (table_id, player_key)
             SELECT $1, $2 WHERE spelbord_hold_lease($3, $4, $5)
             ON CONFLICT DO NOTHING",
        )
        .bind(table_id)
        .bind(player_key)
        .write_fenced(self)
        .await?;
        Ok(())
    }

    /// Lifts a bar, under the table's lease; whether there was one.
    pub async fn unbar_from_table(&self, table_id: &str, player_key: &[u8]) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "DELETE FROM table_bars WHERE table_id = $1 AND player_key = $2 AND spelbord_hold_lease($3, $4, $5)",
        )
        .bind(table_id)
        .bind(player_key)
        .write_fenced(self)
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Whether the player is barred from the table's seats.
    pub async fn is_barred(&self, table_id: &str, player_key: &[u8]) -> Result<bool, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM table_bars WHERE table_id = $1 AND player_key = $2)")
                .bind(table_id)
                .bind(player_key)
                .fetch_one(self.pool())
                .await?,
        )
    }

    /// The tables by their latest activity, most recent first, at most `limit`. It reads
    /// every table's latest game, move and chat line (each by an index): an operator's
    /// query, not one for every request.
    pub async fn tables_by_activity(&self, limit: i64) -> Result<Vec<ActivityRow>, StoreError> {
        Ok(sqlx::query_as::<_, ActivityRow>(
            "SELECT t.id, t.game, t.created_at, t.closed_at, g.status AS game_status,
                    coalesce(g.number, 0) AS games, m.played_at AS last_move_at, c.sent_at AS last_chat_at,
                    greatest(t.created_at, g.started_at, g.ended_at, m.played_at, c.sent_at, t.closed_at) AS active_at,
                    coalesce((SELECT array_agg(s.name ORDER BY s.seat) FROM seats s WHERE s.table_id = t.id),
                             '{}') AS players
               FROM tables t
               LEFT JOIN LATERAL (SELECT id, number, status, started_at, ended_at FROM games
                                   WHERE table_id = t.id ORDER BY number DESC LIMIT 1) g ON true
               LEFT JOIN LATERAL (SELECT played_at FROM moves WHERE game_id = g.id
                                   ORDER BY ply DESC LIMIT 1) m ON true
               LEFT JOIN LATERAL (SELECT sent_at FROM chat_messages WHERE table_id = t.id
                                   ORDER BY id DESC LIMIT 1) c ON true
              ORDER BY active_at DESC, t.id LIMIT $1",
        )
        .bind(limit)
        .fetch_all(self.pool())
        .await?)
    }
}

/// Announces a mute or unmute to every node (sent when the transaction commits).
async fn notify(tx: &mut sqlx::PgConnection, notice: &MuteNotice) -> Result<(), StoreError> {
    sqlx::query("SELECT pg_notify($1, $2)")
        .bind(MODERATION_CHANNEL)
        .bind(serde_json::to_string(notice)?)
        .execute(tx)
        .await?;
    Ok(())
}
