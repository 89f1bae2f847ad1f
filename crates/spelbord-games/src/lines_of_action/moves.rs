//! A move: a step `from`-`to` (a capture is written the same way) or a pass; its wire
//! form (`{"from": "b1", "to": "b3"}`, `{"pass": true}`) and its display (`b1-b3`, `pass`).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::Square;

/// One move: a piece from `from` to `to` (capturing whatever opponent's piece is there), or
/// a pass. Wire form `{"from":"b1","to":"b3"}` or `{"pass":true}` (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "MoveWire", into = "MoveWire")]
pub enum LoaMove {
    Step { from: Square, to: Square },
    Pass,
}

impl LoaMove {
    /// A move from `from` to `to` (not checked).
    pub fn step(from: Square, to: Square) -> LoaMove {
        LoaMove::Step { from, to }
    }
}

impl fmt::Display for LoaMove {
    /// `b1-b3`, or `pass`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoaMove::Step { from, to } => write!(f, "{from}-{to}"),
            LoaMove::Pass => f.write_str("pass"),
        }
    }
}

/// The wire shape of a [`LoaMove`], checked by `TryFrom`.
#[derive(Serialize, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a move like {\"from\": \"b1\", \"to\": \"b3\"} or {\"pass\": true}"
)]
struct MoveWire {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    from: Option<Square>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    to: Option<Square>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pass: Option<bool>,
}

impl TryFrom<MoveWire> for LoaMove {
    type Error = &'static str;

    fn try_from(wire: MoveWire) -> Result<LoaMove, &'static str> {
        match (wire.from, wire.to, wire.pass) {
            (Some(from), Some(to), None) => Ok(LoaMove::Step { from, to }),
            (None, None, Some(true)) => Ok(LoaMove::Pass),
            (_, _, Some(false)) => Err("`pass` may only be true; a move is {\"from\": \"b1\", \"to\": \"b3\"}"),
            (Some(_), _, Some(true)) | (_, Some(_), Some(true)) => Err("a pass has no `from` or `to`"),
            (Some(_), None, None) => Err("the move has no `to`"),
            (None, Some(_), None) => Err("the move has no `from`"),
            (None, None, None) => Err("expected {\"from\": \"b1\", \"to\": \"b3\"} or {\"pass\": true}"),
        }
    }
}

impl From<LoaMove> for MoveWire {
    fn from(mv: LoaMove) -> MoveWire {
        match mv {
            LoaMove::Step { from, to } => MoveWire {
                from: Some(from),
                to: Some(to),
                pass: None,
            },
            LoaMove::Pass => MoveWire {
                from: None,
                to: None,
                pass: Some(true),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines_of_action::testkit::*;

    #[test]
    fn move_wire_format() {
        let decode = |value: Value| serde_json::from_value::<LoaMove>(value);
        assert_eq!(decode(json!({"from": "b1", "to": "B3"})).unwrap(), mv("b1-b3"));
        assert_eq!(decode(json!({"pass": true})).unwrap(), LoaMove::Pass);
        assert_eq!(
            serde_json::to_value(mv("b1-b3")).unwrap(),
            json!({"from": "b1", "to": "b3"})
        );
        assert_eq!(serde_json::to_value(LoaMove::Pass).unwrap(), json!({"pass": true}));
        let refused = |value: Value| decode(value).unwrap_err().to_string();
        assert!(refused(json!({"from": "b1", "to": "b3", "x": 1})).contains("unknown field `x`"));
        assert!(refused(json!({"from": "b1"})).contains("no `to`"));
        assert!(refused(json!({"to": "b1"})).contains("no `from`"));
        assert!(refused(json!({})).contains("{\"pass\": true}"));
        assert!(refused(json!({"pass": false})).contains("may only be true"));
        assert!(refused(json!({"pass": true, "from": "b1"})).contains("a pass has no"));
        assert!(refused(json!({"from": "i1", "to": "b3"})).contains("invalid square \"i1\""));
        assert!(refused(json!({"from": 11, "to": "b3"})).contains("like \"b1\""));
        assert_eq!(
            refused(json!("b1-b3")),
            "invalid type: string \"b1-b3\", expected a move like {\"from\": \"b1\", \"to\": \"b3\"} or {\"pass\": true}"
        );
    }
}
