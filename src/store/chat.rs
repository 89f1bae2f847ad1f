//! Queries on chat: every line said at a table, stored before it is announced, and the
//! recent ones read back when a table is rebuilt (`table::chat_log` keeps them in memory).

use super::{Store, StoreError};

/// How many lines of each channel (table chat, each team's chat) a table keeps stored: what
/// a newcomer is shown (`table::chat_log`), and no more.
pub const CHAT_KEPT: usize = 100;

/// A chat line to store.
#[derive(Debug, Clone)]
pub struct ChatRecord<'a> {
    /// `None` for a person waiting in a rotating table's queue (stored as -1).
    pub seat: Option<u8>,
    pub name: &'a str,
    pub text: &'a str,
    /// `None` for table chat; the team's number for team chat.
    pub team: Option<u8>,
    /// Team chat: the keys of the team's people, who alone may read it again.
    pub audience: &'a [Vec<u8>],
    /// The speaker's player key (for moderation: whom an operator would mute).
    pub player_key: Option<&'a [u8]>,
}

/// A stored chat line, as read back.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ChatRow {
    /// The order lines were said in (across channels).
    pub id: i64,
    pub seat: i16,
    pub name: String,
    pub text: String,
    pub team: Option<i16>,
    /// Team chat: the keys of the people who may read it; empty for table chat.
    pub audience: Option<Vec<Vec<u8>>>,
}

impl Store {
    /// Stores one chat line of a table, and forgets the lines of its channel older than the
    /// last [`CHAT_KEPT`]: a table keeps what it shows, however much is said. Returns the
    /// line's id (what a `report` names it by).
    pub async fn append_chat(&self, table_id: &str, line: &ChatRecord<'_>) -> Result<i64, StoreError> {
        let _timer = crate::metrics::DbWrite::start("append_chat");
        let (table, node, epoch) = self.lease_args();
        // One statement: the insert, and the delete of what falls out of the channel's last
        // CHAT_KEPT lines (the delete sees the rows before the insert, so it keeps one less
        // of them). `team` = -1 stands for table chat in the comparison, which the index
        // (table_id, team, id) serves for either channel.
        let id: Option<i64> = sqlx::query_scalar(
            "WITH added AS (
                 INSERT INTO chat_messages (table_id, seat, name, text, team, audience, player_key)
                 SELECT $1, $2, $3, $4, $5, $6, $11 WHERE spelbord_hold_lease($7, $8, $9)
                 RETURNING id
             ), dropped AS (
                 DELETE FROM chat_messages
                  WHERE table_id = $1 AND coalesce(team, -1) = coalesce($5, -1)
                    AND EXISTS (SELECT 1 FROM added)
                    AND id <= (SELECT id FROM chat_messages
                                WHERE table_id = $1 AND coalesce(team, -1) = coalesce($5, -1)
                                ORDER BY id DESC OFFSET $10 LIMIT 1)
             )
             SELECT id FROM added",
        )
        .bind(table_id)
        .bind(line.seat.map_or(-1, i16::from))
        .bind(line.name)
        .bind(line.text)
        .bind(line.team.map(i16::from))
        .bind(line.team.map(|_| line.audience))
        .bind(table)
        .bind(node)
        .bind(epoch)
        .bind(i64::try_from(CHAT_KEPT - 1).unwrap_or(i64::MAX))
        .bind(line.player_key)
        .fetch_optional(self.pool())
        .await
        .map_err(|err| self.write_error(err))?;
        // `spelbord_hold_lease` raises when the lease is gone; no row is that too.
        id.ok_or(StoreError::LeaseLost)
    }

    /// The last `limit` lines of one channel of a table (`team`: `None` for table chat),
    /// oldest first.
    pub async fn recent_chat(
        &self,
        table_id: &str,
        team: Option<u8>,
        limit: usize,
    ) -> Result<Vec<ChatRow>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let query = match team {
            None => sqlx::query_as::<_, ChatRow>(
                "SELECT id, seat, name, text, team, audience FROM chat_messages
                  WHERE table_id = $1 AND team IS NULL ORDER BY id DESC LIMIT $2",
            )
            .bind(table_id)
            .bind(limit),
            Some(team) => sqlx::query_as::<_, ChatRow>(
                "SELECT id, seat, name, text, team, audience FROM chat_messages
                  WHERE table_id = $1 AND team = $3 ORDER BY id DESC LIMIT $2",
            )
            .bind(table_id)
            .bind(limit)
            .bind(i16::from(team)),
        };
        let mut rows = query.fetch_all(self.pool()).await?;
        rows.reverse();
        Ok(rows)
    }
}
