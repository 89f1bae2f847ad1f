//! The lobby's messages (docs/protocol.md, 7.3 and 7.4): what a client sends, parsed with
//! the table protocol's error codes, and what the server answers.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::protocol::{ErrorCode, parse_typed};
use crate::store::lobby::SeekRow;

/// A rating range a seeker chose.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
pub struct Range {
    pub min: i32,
    pub max: i32,
}

/// Ratings a range may name.
pub const RATING_BOUNDS: std::ops::RangeInclusive<i32> = 0..=4000;

/// A message from a lobby client.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LobbyClientMsg {
    Hello {
        token: Option<String>,
    },
    Seek {
        pool: String,
        #[serde(default)]
        rated: bool,
        name: Option<String>,
        range: Option<Range>,
        #[serde(default)]
        bots_ok: bool,
    },
    Accept {
        seek: Uuid,
        name: Option<String>,
    },
    Cancel {
        seek: Uuid,
    },
    PlayBots {
        seek: Uuid,
        strength: Option<String>,
    },
    Ping,
}

const TYPES: [&str; 6] = ["hello", "seek", "accept", "cancel", "play_bots", "ping"];

/// A parsed message with its `ref`.
pub type Parsed = (LobbyClientMsg, Option<Value>);

/// Reads a client's frame as the table's socket does ([`parse_typed`]): an error names its
/// code, says why, and carries the `ref`.
pub fn parse(text: &str) -> Result<Parsed, (ErrorCode, String, Option<Value>)> {
    parse_typed(text, &TYPES)
}

/// A seek as the lobby shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SeekView {
    pub id: Uuid,
    pub pool: String,
    pub game: &'static str,
    pub time_control: &'static str,
    pub rated: bool,
    pub name: String,
    pub rating: i32,
    pub range: Option<Range>,
    pub players: u8,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: time::OffsetDateTime,
}

impl SeekView {
    /// The view of a stored seek; `None` for a pool this server does not know (a newer
    /// node's, during an upgrade).
    pub fn of(row: SeekRow) -> Option<SeekView> {
        let pool = super::pools::Pool::find(&row.pool)?;
        Some(SeekView {
            id: row.id,
            game: pool.game.id(),
            time_control: pool.time_control,
            players: pool.players,
            pool: row.pool,
            rated: row.rated,
            name: row.name,
            rating: row.rating,
            range: row.range_min.zip(row.range_max).map(|(min, max)| Range { min, max }),
            created_at: row.created_at,
        })
    }
}

/// A message from the server to one lobby client (the `lobby` frames are written apart:
/// `crate::lobby::view`).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LobbyServerMsg {
    Welcome {
        token: String,
        ratings: serde_json::Map<String, Value>,
        /// The person's open seeks held by this server (after a reload: theirs to cancel).
        seeks: Vec<Uuid>,
    },
    Seeking {
        seek: SeekView,
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    Paired {
        seek: Uuid,
        table: String,
        url: String,
        seat: u8,
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    Cancelled {
        seek: Uuid,
        reason: &'static str,
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    Pong {
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    Error {
        code: ErrorCode,
        message: String,
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
}

impl LobbyServerMsg {
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{\"type\":\"error\"}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_names_its_code() {
        let code = |text: &str| parse(text).err().map(|(code, ..)| code);
        assert_eq!(code("{"), Some(ErrorCode::MalformedJson));
        assert_eq!(code("[1]"), Some(ErrorCode::BadMessage));
        assert_eq!(code(r#"{"type": 1}"#), Some(ErrorCode::BadMessage));
        assert_eq!(code(r#"{"type": "move"}"#), Some(ErrorCode::UnknownType));
        assert_eq!(code(r#"{"type": "seek"}"#), Some(ErrorCode::BadMessage));
        assert_eq!(
            code(r#"{"type": "cancel", "seek": "nope"}"#),
            Some(ErrorCode::BadMessage)
        );
    }

    #[test]
    fn a_seek_reads_with_its_ref() {
        let (msg, reference) =
            parse(r#"{"type": "seek", "pool": "krux/10+0", "range": {"min": 1400, "max": 1600}, "ref": 7}"#)
                .expect("a seek");
        assert_eq!(reference, Some(Value::from(7)));
        let LobbyClientMsg::Seek { pool, rated, range, .. } = msg else {
            panic!("not a seek: {msg:?}")
        };
        assert_eq!(pool, "krux/10+0");
        assert!(!rated);
        assert_eq!(range, Some(Range { min: 1400, max: 1600 }));
    }
}
