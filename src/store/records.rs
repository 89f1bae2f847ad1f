//! Reading finished and running games back for the records API: a table's games with
//! their players and results, and one game with every stored record (moves and
//! take-backs) and its clocks. Read-only; the rows are those the table actor wrote.

use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use super::{Store, StoreError};

/// A player of a stored game.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PlayerRow {
    pub seat: i16,
    pub role: String,
    pub name: String,
    /// A bot's strength; `None` for a person.
    pub bot: Option<String>,
    /// The player's side in the series (0 or 1); `None` for games stored before series.
    pub side: Option<i16>,
    /// A person's rating before and after the game, and the deviation after it (rated
    /// games only).
    pub rating_before: Option<f64>,
    pub rating_after: Option<f64>,
    pub deviation_after: Option<f64>,
}

/// The columns of [`PlayerRow`]; `gp` is `game_players`, `rh` its `rating_history` row.
const PLAYER_COLUMNS: &str = "gp.seat, gp.role, gp.name, gp.bot, gp.side,
    rh.rating_before, rh.rating_after, rh.deviation_after";

/// The joins [`PLAYER_COLUMNS`] read from.
const PLAYER_FROM: &str = "FROM game_players gp
    LEFT JOIN rating_history rh ON rh.game_id = gp.game_id AND rh.player_key = gp.player_key";

/// A game as listed: who played, how it ended, where it stands in its series.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct GameSummaryRow {
    pub id: Uuid,
    pub table_id: String,
    pub game: String,
    pub number: i32,
    pub status: String,
    pub rated: bool,
    pub started_at: OffsetDateTime,
    pub ended_at: Option<OffsetDateTime>,
    pub series_number: Option<i32>,
    pub series_format: Option<String>,
    pub series_game: Option<i32>,
    pub outcome: Option<String>,
    pub winners: Option<Vec<i16>>,
    pub reason: Option<String>,
    pub detail: Option<Value>,
    /// Moves on the board at the end (take-backs applied); for a running game, the
    /// records stored so far.
    pub move_count: i64,
}

/// A game as listed, with its players.
pub type ListedGame = (GameSummaryRow, Vec<PlayerRow>);

/// Which of a table's games to list.
#[derive(Debug, Clone, Copy)]
pub struct GamesPage {
    /// Only games numbered below this (`None`: up to the latest).
    pub before: Option<u32>,
    /// At most this many, the latest of them.
    pub limit: u32,
}

/// A page of a table's games, oldest first.
#[derive(Debug, Clone)]
pub struct TableGamesPage {
    pub games: Vec<ListedGame>,
    /// The number to ask `before` for the page of earlier games; `None` when this page
    /// starts with the table's first game.
    pub earlier: Option<i32>,
}

/// A player row with the game it belongs to.
#[derive(Debug, Clone, sqlx::FromRow)]
struct GamePlayerRow {
    game_id: Uuid,
    #[sqlx(flatten)]
    player: PlayerRow,
}

/// One stored record of a game: a move, or a take-back (`takeback_to` set).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RecordRow {
    pub ply: i32,
    pub seat: i16,
    pub payload: Value,
    pub clocks_ms: Option<Vec<i64>>,
    pub takeback_to: Option<i32>,
    pub played_at: OffsetDateTime,
}

/// One game with its table's settings, its players and every record.
#[derive(Debug, Clone)]
pub struct GameRecordRow {
    pub summary: GameSummaryRow,
    /// The table's settings (the game's settings are among them).
    pub settings: Value,
    pub players: Vec<PlayerRow>,
    pub records: Vec<RecordRow>,
}

/// The columns of [`GameSummaryRow`]; `g` is `games`, `t` its table.
const SUMMARY_COLUMNS: &str = "
    g.id, g.table_id, t.game, g.number, g.status, g.rated, g.started_at, g.ended_at,
    s.number AS series_number, s.format AS series_format, g.series_game,
    r.outcome, r.winners, r.reason, r.detail,
    COALESCE(r.move_count::bigint, (SELECT count(*) FROM moves m WHERE m.game_id = g.id)) AS move_count";

/// The joins [`SUMMARY_COLUMNS`] read from.
const SUMMARY_FROM: &str = "
    FROM games g
    JOIN tables t ON t.id = g.table_id
    LEFT JOIN series s ON s.id = g.series_id
    LEFT JOIN results r ON r.game_id = g.id";

impl Store {
    /// A page of a table's games: the `page.limit` latest numbered below `page.before`
    /// (all when `None`), oldest first, each with its players; `None` if there is no such
    /// table.
    pub async fn table_games(&self, table_id: &str, page: GamesPage) -> Result<Option<TableGamesPage>, StoreError> {
        let exists: Option<i32> = sqlx::query_scalar("SELECT 1 FROM tables WHERE id = $1")
            .bind(table_id)
            .fetch_optional(self.reads())
            .await?;
        if exists.is_none() {
            return Ok(None);
        }
        let before = page
            .before
            .map_or(i32::MAX, |before| i32::try_from(before).unwrap_or(i32::MAX));
        // One more than asked for tells whether earlier games remain.
        let mut games: Vec<GameSummaryRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {SUMMARY_COLUMNS} {SUMMARY_FROM}
              WHERE g.table_id = $1 AND g.number < $2 ORDER BY g.number DESC LIMIT $3"
        )))
        .bind(table_id)
        .bind(before)
        .bind(i64::from(page.limit) + 1)
        .fetch_all(self.reads())
        .await?;
        let more = games.len() > page.limit as usize;
        games.truncate(page.limit as usize);
        games.reverse();
        let earlier = if more {
            games.first().map(|game| game.number)
        } else {
            None
        };
        let ids: Vec<Uuid> = games.iter().map(|game| game.id).collect();
        let players: Vec<GamePlayerRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT gp.game_id, {PLAYER_COLUMNS} {PLAYER_FROM}
              WHERE gp.game_id = ANY($1) ORDER BY gp.game_id, gp.seat"
        )))
        .bind(&ids)
        .fetch_all(self.reads())
        .await?;
        let games = games
            .into_iter()
            .map(|game| {
                let own = players
                    .iter()
                    .filter(|row| row.game_id == game.id)
                    .map(|row| row.player.clone())
                    .collect();
                (game, own)
            })
            .collect();
        Ok(Some(TableGamesPage { games, earlier }))
    }

    /// One game with everything needed to replay it; `None` if there is no such game.
    pub async fn game_record(&self, game_id: Uuid) -> Result<Option<GameRecordRow>, StoreError> {
        let summary: Option<GameSummaryRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {SUMMARY_COLUMNS} {SUMMARY_FROM} WHERE g.id = $1"
        )))
        .bind(game_id)
        .fetch_optional(self.reads())
        .await?;
        let Some(summary) = summary else {
            return Ok(None);
        };
        let settings: Value = sqlx::query_scalar("SELECT settings FROM tables WHERE id = $1")
            .bind(&summary.table_id)
            .fetch_one(self.reads())
            .await?;
        let players: Vec<PlayerRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {PLAYER_COLUMNS} {PLAYER_FROM} WHERE gp.game_id = $1 ORDER BY gp.seat"
        )))
        .bind(game_id)
        .fetch_all(self.reads())
        .await?;
        let records: Vec<RecordRow> = sqlx::query_as(
            "SELECT ply, seat, payload, clocks_ms, takeback_to, played_at FROM moves
              WHERE game_id = $1 ORDER BY ply",
        )
        .bind(game_id)
        .fetch_all(self.reads())
        .await?;
        Ok(Some(GameRecordRow {
            summary,
            settings,
            players,
            records,
        }))
    }
}

/// The line of play a list of records leaves: every move in order, each take-back
/// dropping the moves after the number it keeps. `takeback_to` tells a take-back from a
/// move.
pub fn line_of<T>(records: &[T], takeback_to: impl Fn(&T) -> Option<u32>) -> Vec<&T> {
    let mut line: Vec<&T> = Vec::with_capacity(records.len());
    for record in records {
        match takeback_to(record) {
            Some(keep) => line.truncate(usize::try_from(keep).unwrap_or(usize::MAX)),
            None => line.push(record),
        }
    }
    line
}
