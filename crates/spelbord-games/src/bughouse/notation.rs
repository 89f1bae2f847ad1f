//! A Bughouse move on the wire: a UCI move or drop with the board it is played on.

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use shakmaty::uci::UciMove;

/// A move on the seat's board: `{"uci": "e2e4"}`, `{"uci": "e7e8q"}` or `{"uci": "N@f3"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BughouseMove {
    #[serde(serialize_with = "serialize_uci", deserialize_with = "deserialize_uci")]
    pub uci: UciMove,
}

impl BughouseMove {
    /// Parses a UCI string; `None` if it is not one.
    pub fn parse(text: &str) -> Option<BughouseMove> {
        text.parse().ok().map(|uci| BughouseMove { uci })
    }
}

fn serialize_uci<S: Serializer>(uci: &UciMove, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(uci)
}

fn deserialize_uci<'de, D: Deserializer<'de>>(deserializer: D) -> Result<UciMove, D::Error> {
    let text = String::deserialize(deserializer)?;
    text.parse().map_err(|_| {
        de::Error::custom(format!(
            "invalid UCI move \"{}\": expected like \"e2e4\", \"e7e8q\" or \"N@f3\"",
            text.chars().take(12).collect::<String>()
        ))
    })
}
