//! The lobby's storage (migration 0017): open seeks, pairing (one function call under a
//! lock per pool, which also creates the paired table), and the listings of listed tables.
//! Each pairing is announced on the channel [`LOBBY_CHANNEL`] by `NOTIFY`, so the node of
//! every person paired hears of it at once; the lists are read by each node.
//!
//! This module knows rows, keys and JSON only; the lobby above it gives them meaning.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use super::{Store, StoreError};

/// The channel pairings are announced on (payload: JSON, see [`Notice`]).
pub const LOBBY_CHANNEL: &str = "spelbord_lobby";

/// A seek as the lobby shows it (the owner's key, address and node stay in the database).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeekRow {
    pub id: Uuid,
    pub pool: String,
    pub rated: bool,
    pub name: String,
    pub rating: i32,
    pub range_min: Option<i32>,
    pub range_max: Option<i32>,
    #[serde(default)]
    pub bots_ok: bool,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

/// A seek to pair or store (see `spelbord_lobby_seek`).
#[derive(Debug, Clone)]
pub struct SeekRequest<'a> {
    pub id: Uuid,
    pub pool: &'a str,
    pub game: &'a str,
    pub rated: bool,
    pub key: &'a [u8],
    pub name: &'a str,
    pub range: Option<(i32, i32)>,
    pub bots_ok: bool,
    pub address: &'a str,
    pub node: i32,
    /// How many people a table of the pool seats.
    pub players: i32,
    /// `accept`: pair with this seek only (in a two-player pool).
    pub target: Option<Uuid>,
    /// The id the table gets if the seek pairs, and its settings.
    pub table_id: &'a str,
    pub settings: &'a Value,
    pub refuse_same_address: bool,
}

/// What became of a seek or an accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeekOutcome {
    /// Paired: the new table, and the seat the seeker holds there.
    Paired { table: String, seat: u8 },
    /// Waiting (a new seek, or the one the person already had in the pool).
    Seeking(SeekRow),
    /// The accepted seek is paired, cancelled, or was never there.
    Gone,
    /// The accepted seek is the person's own.
    Own,
    /// A rating outside the other's range.
    OutOfRange,
    /// Both from one address, which the operator refuses.
    SameAddress,
    /// `play_bots` of a seek that is not the person's.
    NotYours,
}

/// A bot seat of a table made with `play_bots`.
#[derive(Debug, Clone, Serialize)]
pub struct BotSeatJson {
    pub seat: i16,
    pub name: String,
    /// The seat's bot as tables store it: a strength, or `engine:NAME`.
    pub bot: String,
}

/// `play_bots`: the seek and the table to make.
#[derive(Debug, Clone)]
pub struct BotsRequest<'a> {
    pub seek: Uuid,
    pub key: &'a [u8],
    pub node: i32,
    pub players: i32,
    pub table_id: &'a str,
    pub game: &'a str,
    /// The table's settings for 1, 2, ... people (index 0: one person).
    pub settings_by_people: &'a [Value],
    /// The bot seats from the last seat down.
    pub bots: &'a [BotSeatJson],
}

/// A notification on [`LOBBY_CHANNEL`].
#[derive(Debug, Clone, Deserialize)]
pub struct Notice {
    /// Seeks paired into this table...
    pub paired: Option<String>,
    /// ... each with the seat its owner holds there.
    #[serde(default)]
    pub seeks: Vec<PairedSeek>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PairedSeek {
    pub id: Uuid,
    pub seat: u8,
}

/// A listed table's lobby entry, as its node last wrote it.
#[derive(Debug, Clone)]
pub struct Listing {
    pub table_id: String,
    pub open: bool,
    pub playing: bool,
    pub rating: Option<i32>,
    pub spectators: i32,
    pub entry: Value,
}

/// How many entries each lobby list holds at most.
pub const LIST_LIMIT: i64 = 200;

#[derive(Deserialize)]
struct SeekAnswer {
    status: String,
    seat: Option<u8>,
    table: Option<String>,
    seek: Option<SeekRow>,
}

impl SeekAnswer {
    fn outcome(self) -> Result<SeekOutcome, StoreError> {
        Ok(match (self.status.as_str(), self.table, self.seat, self.seek) {
            ("paired", Some(table), Some(seat), _) => SeekOutcome::Paired { table, seat },
            ("seeking", _, _, Some(seek)) => SeekOutcome::Seeking(seek),
            ("gone", ..) => SeekOutcome::Gone,
            ("own", ..) => SeekOutcome::Own,
            ("out_of_range", ..) => SeekOutcome::OutOfRange,
            ("same_address", ..) => SeekOutcome::SameAddress,
            ("not_yours", ..) => SeekOutcome::NotYours,
            (status, ..) => {
                return Err(StoreError::Database(sqlx::Error::Protocol(format!(
                    "unexpected answer from the lobby's pairing: {status}"
                ))));
            }
        })
    }
}

impl Store {
    /// Pairs a seek or stores it (`spelbord_lobby_seek`): one statement, one transaction.
    pub async fn seek(&self, request: &SeekRequest<'_>) -> Result<SeekOutcome, StoreError> {
        let _timer = crate::metrics::DbWrite::start("lobby_seek");
        let answer: Value = sqlx::query_scalar(
            "SELECT spelbord_lobby_seek($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
        )
        .bind(request.id)
        .bind(request.pool)
        .bind(request.rated)
        .bind(request.key)
        .bind(request.name)
        .bind(request.game)
        .bind(request.range.map(|(min, _)| min))
        .bind(request.range.map(|(_, max)| max))
        .bind(request.bots_ok)
        .bind(request.address)
        .bind(request.node)
        .bind(request.players)
        .bind(request.target)
        .bind(request.table_id)
        .bind(request.settings)
        .bind(request.refuse_same_address)
        .fetch_one(self.pool())
        .await?;
        serde_json::from_value::<SeekAnswer>(answer)?.outcome()
    }

    /// Turns a person's seek into a table with the computer (`spelbord_lobby_play_bots`).
    pub async fn play_bots(&self, request: &BotsRequest<'_>) -> Result<SeekOutcome, StoreError> {
        let _timer = crate::metrics::DbWrite::start("lobby_play_bots");
        let answer: Value = sqlx::query_scalar("SELECT spelbord_lobby_play_bots($1, $2, $3, $4, $5, $6, $7, $8)")
            .bind(request.seek)
            .bind(request.key)
            .bind(request.node)
            .bind(request.players)
            .bind(request.table_id)
            .bind(request.game)
            .bind(Value::from(request.settings_by_people.to_vec()))
            .bind(serde_json::to_value(request.bots)?)
            .fetch_one(self.pool())
            .await?;
        serde_json::from_value::<SeekAnswer>(answer)?.outcome()
    }

    /// The pool and `rated` of an open seek; `None` when it is not open.
    pub async fn seek_pool(&self, id: Uuid) -> Result<Option<(String, bool)>, StoreError> {
        Ok(sqlx::query_as("SELECT pool, rated FROM lobby_seeks WHERE id = $1")
            .bind(id)
            .fetch_optional(self.pool())
            .await?)
    }

    /// Ends seeks of `key` (all of them when `ids` is `None`) held by `node`; the ids ended.
    pub async fn end_seeks(&self, key: &[u8], node: i32, ids: Option<&[Uuid]>) -> Result<Vec<Uuid>, StoreError> {
        let ended: Vec<Uuid> = sqlx::query_scalar(
            "WITH ended AS (DELETE FROM lobby_seeks WHERE owner_key = $1 AND node = $2 \
               AND ($3::uuid[] IS NULL OR id = ANY ($3)) RETURNING id) \
             SELECT id FROM ended",
        )
        .bind(key)
        .bind(node)
        .bind(ids)
        .fetch_all(self.pool())
        .await?;
        Ok(ended)
    }

    /// Deletes the seeks and listings of nodes that are no longer alive (and, at start-up,
    /// those a node left behind under its own id: none, ids are never reused).
    pub async fn clear_dead_lobby_rows(&self) -> Result<u64, StoreError> {
        // Each node is asked about once, not once a row.
        let seeks = sqlx::query(
            "DELETE FROM lobby_seeks WHERE node IN \
               (SELECT d.node FROM (SELECT DISTINCT node FROM lobby_seeks) d WHERE NOT spelbord_node_alive(d.node))",
        )
        .execute(self.pool())
        .await?
        .rows_affected();
        let listings = sqlx::query(
            "DELETE FROM lobby_listings WHERE node IN \
               (SELECT d.node FROM (SELECT DISTINCT node FROM lobby_listings) d WHERE NOT spelbord_node_alive(d.node))",
        )
        .execute(self.pool())
        .await?
        .rows_affected();
        Ok(seeks + listings)
    }

    /// The open seeks, oldest first (at most [`LIST_LIMIT`]).
    pub async fn open_seeks(&self) -> Result<Vec<SeekRow>, StoreError> {
        let rows: Vec<Value> = sqlx::query_scalar(
            "SELECT to_jsonb(s) - 'owner_key' - 'address' - 'node' FROM lobby_seeks s \
             ORDER BY created_at, id LIMIT $1",
        )
        .bind(LIST_LIMIT)
        .fetch_all(self.reads())
        .await?;
        rows.into_iter()
            .map(|row| serde_json::from_value(row).map_err(StoreError::from))
            .collect()
    }

    /// The entries of listed tables with a free seat (newest first), and of listed tables
    /// with a game in play (highest-rated first, then most watched), from living nodes.
    pub async fn listings(&self) -> Result<(Vec<Value>, Vec<Value>), StoreError> {
        let open: Vec<Value> = sqlx::query_scalar(
            "SELECT l.entry FROM lobby_listings l JOIN nodes n ON n.id = l.node AND n.expires_at > now() \
             WHERE l.open ORDER BY l.updated_at DESC, l.table_id LIMIT $1",
        )
        .bind(LIST_LIMIT)
        .fetch_all(self.reads())
        .await?;
        let playing: Vec<Value> = sqlx::query_scalar(
            "SELECT l.entry FROM lobby_listings l JOIN nodes n ON n.id = l.node AND n.expires_at > now() \
             WHERE l.playing ORDER BY l.rating DESC NULLS LAST, l.spectators DESC, l.table_id LIMIT $1",
        )
        .bind(LIST_LIMIT)
        .fetch_all(self.reads())
        .await?;
        Ok((open, playing))
    }

    /// Writes listed tables' entries (and deletes those of tables no longer shown), in one
    /// statement each.
    pub async fn write_listings(&self, node: i32, upserts: &[Listing], removals: &[String]) -> Result<(), StoreError> {
        if !upserts.is_empty() {
            let ids: Vec<&str> = upserts.iter().map(|l| l.table_id.as_str()).collect();
            let open: Vec<bool> = upserts.iter().map(|l| l.open).collect();
            let playing: Vec<bool> = upserts.iter().map(|l| l.playing).collect();
            let rating: Vec<Option<i32>> = upserts.iter().map(|l| l.rating).collect();
            let spectators: Vec<i32> = upserts.iter().map(|l| l.spectators).collect();
            let entries: Vec<Value> = upserts.iter().map(|l| l.entry.clone()).collect();
            // A table deleted meanwhile has no listing (the join drops it).
            sqlx::query(
                "INSERT INTO lobby_listings (table_id, node, open, playing, rating, spectators, entry) \
                 SELECT u.id, $1, u.open, u.playing, u.rating, u.spectators, u.entry \
                   FROM UNNEST($2::text[], $3::bool[], $4::bool[], $5::int[], $6::int[], $7::jsonb[]) \
                        AS u(id, open, playing, rating, spectators, entry) \
                   JOIN tables t ON t.id = u.id \
                 ON CONFLICT (table_id) DO UPDATE SET node = EXCLUDED.node, open = EXCLUDED.open, \
                   playing = EXCLUDED.playing, rating = EXCLUDED.rating, spectators = EXCLUDED.spectators, \
                   entry = EXCLUDED.entry, updated_at = now()",
            )
            .bind(node)
            .bind(&ids)
            .bind(&open)
            .bind(&playing)
            .bind(&rating)
            .bind(&spectators)
            .bind(&entries)
            .execute(self.pool())
            .await?;
        }
        if !removals.is_empty() {
            sqlx::query("DELETE FROM lobby_listings WHERE table_id = ANY ($1) AND node = $2")
                .bind(removals)
                .bind(node)
                .execute(self.pool())
                .await?;
        }
        Ok(())
    }
}
