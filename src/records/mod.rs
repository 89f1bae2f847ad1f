//! Game records: a stored game read back (players, result, every record with its clock
//! readings), replayed through the rules, and exported in each game's notation.
//!
//! - [`replay`]: the line the players saw (take-backs applied), rebuilt move by move
//!   through the rules with the position after each move: the proof that a record is
//!   complete.
//! - [`export`]: the download formats and their headers; one module per game writes its
//!   notation: [`gomoku`] (move list, Piskvork `.psq`), [`lines_of_action`] (PGN-style),
//!   [`krux`] (turn by turn), [`bughouse`] (BPGN and a crazyhouse PGN per board).
//!
//! The JSON shapes are documented in docs/records.md.

pub mod bughouse;
pub mod export;
pub mod gomoku;
pub mod krux;
pub mod lines_of_action;
pub mod replay;

use serde::Serialize;
use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::games::{GameKind, Seat, SettingError};
use crate::store::records::{GameRecordRow, GameSummaryRow, PlayerRow, RecordRow};
use crate::table::settings::TableSettings;

/// A player of a recorded game.
#[derive(Debug, Clone, Serialize)]
pub struct Player {
    pub seat: Seat,
    /// The rules' name for the seat (`X`, `black`, `A-white`, ...).
    pub role: String,
    pub name: String,
    /// A bot's strength; `null` for a person.
    pub bot: Option<String>,
    /// The side in the series (0 or 1).
    pub side: u8,
    /// At a rated table: the player's rating before and after the game; `null` otherwise.
    pub rating: Option<PlayerRating>,
}

/// A player's rating in a rated game (rounded to whole points, as the table shows it).
#[derive(Debug, Clone, Serialize)]
pub struct PlayerRating {
    pub before: i32,
    pub after: i32,
    /// `after - before`.
    pub change: i32,
    /// The deviation after the game.
    pub deviation: i32,
    /// The rating after the game is provisional (its deviation is high).
    pub provisional: bool,
    /// A computer player's fixed rating (see docs/ratings.md), never updated.
    pub fixed: bool,
}

/// Where a game stands in its series.
#[derive(Debug, Clone, Serialize)]
pub struct SeriesPlace {
    /// The table's series number, from 1.
    pub number: u32,
    pub format: String,
    /// The game's number in the series, from 1.
    pub game: u32,
}

/// How a game ended.
#[derive(Debug, Clone, Serialize)]
pub struct ResultView {
    /// `win`, `draw` or `aborted`.
    pub outcome: String,
    pub winners: Vec<Seat>,
    pub reason: String,
    pub detail: Value,
}

/// A game as listed in `GET /api/tables/{id}/games`.
#[derive(Debug, Clone, Serialize)]
pub struct GameSummary {
    pub id: Uuid,
    pub table: String,
    pub game: String,
    /// The game's number at its table, from 1.
    pub number: u32,
    pub series: Option<SeriesPlace>,
    pub rated: bool,
    /// `playing` or `finished`.
    pub status: String,
    pub players: Vec<Player>,
    pub result: Option<ResultView>,
    pub move_count: u32,
    #[serde(with = "time::serde::rfc3339")]
    pub started_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub ended_at: Option<OffsetDateTime>,
}

/// One stored record: a move or a take-back.
#[derive(Debug, Clone, Serialize)]
pub struct Record {
    /// The record's number in the game, take-backs included, from 1.
    pub ply: u32,
    pub seat: Seat,
    /// The move as the rules normalised it; `{"takeback": n}` for a take-back.
    #[serde(rename = "move")]
    pub payload: Value,
    /// For a take-back: how many moves the game kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub takeback_to: Option<u32>,
    /// Every seat's remaining time after the record, in milliseconds (timed games).
    pub clocks_ms: Option<Vec<u64>>,
    #[serde(with = "time::serde::rfc3339")]
    pub played_at: OffsetDateTime,
}

/// A whole game as stored, ready to replay and export.
#[derive(Debug, Clone)]
pub struct GameRecord {
    pub summary: GameSummary,
    pub settings: TableSettings,
    pub records: Vec<Record>,
}

/// A stored game that cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("the table's stored settings no longer read: {0}")]
    Settings(#[from] SettingError),
    #[error("the stored game is of an unknown kind `{0}`")]
    UnknownGame(String),
}

impl GameRecord {
    /// Reads a stored game.
    pub fn from_row(row: GameRecordRow) -> Result<GameRecord, RecordError> {
        let GameRecordRow {
            summary,
            settings,
            players,
            records,
        } = row;
        let summary = GameSummary::from_row(summary, players);
        let settings = TableSettings::read(&summary.game, Some(settings))?;
        Ok(GameRecord {
            summary,
            settings,
            records: records.into_iter().filter_map(Record::from_row).collect(),
        })
    }

    pub fn kind(&self) -> GameKind {
        self.settings.game.kind()
    }

    /// The player in `seat`, if the game had one there.
    pub fn player(&self, seat: Seat) -> Option<&Player> {
        self.summary.players.iter().find(|player| player.seat == seat)
    }
}

impl GameSummary {
    pub fn from_row(row: GameSummaryRow, players: Vec<PlayerRow>) -> GameSummary {
        let count = |n: i32| u32::try_from(n).unwrap_or(0);
        let series = match (row.series_number, row.series_format) {
            (Some(number), Some(format)) => Some(SeriesPlace {
                number: count(number),
                format,
                game: row.series_game.map_or(1, count),
            }),
            _ => None,
        };
        let result = match (row.outcome, row.reason) {
            (Some(outcome), Some(reason)) => Some(ResultView {
                outcome,
                winners: row
                    .winners
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|seat| Seat::try_from(seat).ok())
                    .collect(),
                reason,
                detail: row.detail.unwrap_or(Value::Null),
            }),
            _ => None,
        };
        let players = players
            .into_iter()
            .filter_map(|player| Player::from_row(player, &row.game, row.rated))
            .collect();
        GameSummary {
            id: row.id,
            table: row.table_id,
            game: row.game,
            number: count(row.number),
            series,
            rated: row.rated,
            status: row.status,
            players,
            result,
            move_count: u32::try_from(row.move_count).unwrap_or(0),
            started_at: row.started_at,
            ended_at: row.ended_at,
        }
    }
}

impl Player {
    fn from_row(row: PlayerRow, game: &str, rated: bool) -> Option<Player> {
        let seat = Seat::try_from(row.seat).ok()?;
        let whole = |value: f64| value.round() as i32;
        let rating = match (row.rating_before, row.rating_after, row.deviation_after, &row.bot) {
            (Some(before), Some(after), Some(deviation), _) => Some(PlayerRating {
                before: whole(before),
                after: whole(after),
                change: whole(after) - whole(before),
                deviation: whole(deviation),
                provisional: deviation > crate::ratings::PROVISIONAL_DEVIATION,
                fixed: false,
            }),
            (_, _, _, Some(bot)) if rated => {
                let kind = GameKind::from_id(game)?;
                let fixed = crate::ratings::bots::rating(kind, crate::bots::Strength::from_id(bot)?);
                Some(PlayerRating {
                    before: whole(fixed.rating),
                    after: whole(fixed.rating),
                    change: 0,
                    deviation: whole(fixed.deviation),
                    provisional: false,
                    fixed: true,
                })
            }
            _ => None,
        };
        Some(Player {
            rating,
            seat,
            role: row.role,
            name: row.name,
            bot: row.bot,
            // Games stored before series had no sides: seat parity, as the table used.
            side: row.side.and_then(|side| u8::try_from(side).ok()).unwrap_or(seat % 2),
        })
    }
}

impl Record {
    fn from_row(row: RecordRow) -> Option<Record> {
        Some(Record {
            ply: u32::try_from(row.ply).ok()?,
            seat: Seat::try_from(row.seat).ok()?,
            payload: row.payload,
            takeback_to: row.takeback_to.and_then(|n| u32::try_from(n).ok()),
            clocks_ms: row
                .clocks_ms
                .map(|clocks| clocks.into_iter().map(|ms| u64::try_from(ms).unwrap_or(0)).collect()),
            played_at: row.played_at,
        })
    }
}

pub use crate::store::records::line_of;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_backs_drop_the_moves_after_what_they_keep() {
        // Records: moves 1, 2, 3, a take-back to 1, move 4, a take-back to 0, move 5.
        let records = [
            (1, None),
            (2, None),
            (3, None),
            (0, Some(1)),
            (4, None),
            (0, Some(0)),
            (5, None),
        ];
        let line: Vec<i32> = line_of(&records, |r| r.1).iter().map(|r| r.0).collect();
        assert_eq!(line, vec![5]);
        let line: Vec<i32> = line_of(&records[..5], |r| r.1).iter().map(|r| r.0).collect();
        assert_eq!(line, vec![1, 4]);
        // A take-back beyond the line keeps everything.
        let line: Vec<i32> = line_of(&[(1, None), (0, Some(9))], |r| r.1)
            .iter()
            .map(|r| r.0)
            .collect();
        assert_eq!(line, vec![1]);
    }
}
