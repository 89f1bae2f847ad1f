//! The parts of a turn ([`Part`]) and the moves on the wire ([`KruxMove`]: one part, or a
//! whole turn applied atomically).

use serde::de;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::{Ring, Square};

// ------------------------------------------------------------------------ parts

/// One part of a turn. Wire form: an object tagged by `"part"`, no other fields than the
/// part's own, for example `{"part":"step","to":"c2"}` or `{"part":"end"}`.
///
/// Targets are **squares**: the piece standing there (every piece on the board stands on
/// its own square, so a square names a piece unambiguously).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "part", rename_all = "snake_case", deny_unknown_fields)]
pub enum Part {
    /// Choose a free ring at the start of a piece's first turn.
    Ring { ring: Ring },
    /// Step one square orthogonally.
    Step { to: Square },
    /// Push the piece on `target` two squares directly away.
    Push { target: Square },
    /// Pull the piece on `target` two squares towards the piece in turn.
    Pull { target: Square },
    /// Blue ring: pick up the adjacent piece on `target`.
    PickUp { target: Square },
    /// Blue ring: set the carried piece down on an adjacent empty square or the hole.
    SetDown { to: Square },
    /// Green ring: jump to an empty square within three steps (or stay) and shove the
    /// neighbours away.
    Jump { to: Square },
    /// Pink ring: trade places with the piece on `target`, within five steps.
    Swap { target: Square },
    /// End the turn.
    End {},
}

impl Part {
    /// The wire name of the part's kind (`"step"`, `"pick_up"`, …).
    pub fn kind(self) -> &'static str {
        match self {
            Part::Ring { .. } => "ring",
            Part::Step { .. } => "step",
            Part::Push { .. } => "push",
            Part::Pull { .. } => "pull",
            Part::PickUp { .. } => "pick_up",
            Part::SetDown { .. } => "set_down",
            Part::Jump { .. } => "jump",
            Part::Swap { .. } => "swap",
            Part::End {} => "end",
        }
    }

    /// Every part kind, in the order the view lists the available ones.
    pub const KINDS: [&'static str; 9] = [
        "ring", "step", "push", "pull", "pick_up", "set_down", "jump", "swap", "end",
    ];
}

/// A part as move lists and records write it: its kind and its square or ring
/// (`step c2`, `ring blue`, `pick_up c3`, `end`).
impl std::fmt::Display for Part {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Part::Ring { ring } => write!(f, "ring {}", ring.name()),
            Part::Step { to } | Part::SetDown { to } | Part::Jump { to } => write!(f, "{} {to}", self.kind()),
            Part::Push { target } | Part::Pull { target } | Part::PickUp { target } | Part::Swap { target } => {
                write!(f, "{} {target}", self.kind())
            }
            Part::End {} => f.write_str("end"),
        }
    }
}

/// A move: one part of the current turn, or a whole turn `{"turn":[part, …]}` applied
/// atomically.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KruxMove {
    Part(Part),
    Turn(Vec<Part>),
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TurnWire {
    turn: Vec<Part>,
}

/// Marks a whole turn in a packed move (a part's first byte, its kind, is below 9).
const TURN_BYTE: u8 = 0xFF;

impl Part {
    /// Three bytes: the kind's place in [`Part::KINDS`], then the square's column and row
    /// (a ring: its place in [`Ring::ALL`]; `end`: two zeros).
    fn pack(self, out: &mut Vec<u8>) {
        let (kind, a, b) = match self {
            Part::Ring { ring } => (0, Ring::ALL.iter().position(|&r| r == ring).unwrap_or(0) as u8, 0),
            Part::Step { to } => (1, to.col(), to.row()),
            Part::Push { target } => (2, target.col(), target.row()),
            Part::Pull { target } => (3, target.col(), target.row()),
            Part::PickUp { target } => (4, target.col(), target.row()),
            Part::SetDown { to } => (5, to.col(), to.row()),
            Part::Jump { to } => (6, to.col(), to.row()),
            Part::Swap { target } => (7, target.col(), target.row()),
            Part::End {} => (8, 0, 0),
        };
        out.extend_from_slice(&[kind, a, b]);
    }

    /// The part [`Part::pack`] wrote as these three bytes.
    fn unpack([kind, a, b]: [u8; 3]) -> Option<Part> {
        let square = || Square::new(a, b);
        Some(match kind {
            0 => Part::Ring {
                ring: *Ring::ALL.get(usize::from(a))?,
            },
            1 => Part::Step { to: square()? },
            2 => Part::Push { target: square()? },
            3 => Part::Pull { target: square()? },
            4 => Part::PickUp { target: square()? },
            5 => Part::SetDown { to: square()? },
            6 => Part::Jump { to: square()? },
            7 => Part::Swap { target: square()? },
            8 => Part::End {},
            _ => return None,
        })
    }
}

impl KruxMove {
    /// A part in three bytes ([`Part::pack`]); a whole turn as [`TURN_BYTE`] and then its
    /// parts'.
    pub(super) fn pack(&self, out: &mut Vec<u8>) {
        match self {
            KruxMove::Part(part) => part.pack(out),
            KruxMove::Turn(parts) => {
                out.push(TURN_BYTE);
                for part in parts {
                    part.pack(out);
                }
            }
        }
    }

    /// The move [`KruxMove::pack`] wrote as `bytes`.
    pub(super) fn unpack(bytes: &[u8]) -> Option<KruxMove> {
        let parts = |bytes: &[u8]| -> Option<Vec<Part>> {
            let chunks = bytes.chunks_exact(3);
            if !chunks.remainder().is_empty() {
                return None;
            }
            chunks
                .map(|chunk| Part::unpack([chunk[0], chunk[1], chunk[2]]))
                .collect()
        };
        match bytes.split_first()? {
            (&TURN_BYTE, rest) => parts(rest).map(KruxMove::Turn),
            _ if bytes.len() == 3 => parts(bytes)?.pop().map(KruxMove::Part),
            _ => None,
        }
    }
}

impl Serialize for KruxMove {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            KruxMove::Part(part) => part.serialize(serializer),
            KruxMove::Turn(parts) => TurnWire { turn: parts.clone() }.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for KruxMove {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<KruxMove, D::Error> {
        // Decide on the shape first, so the error names what is wrong inside it.
        let value = Value::deserialize(deserializer)?;
        let is_turn = value.as_object().is_some_and(|map| map.contains_key("turn"));
        if is_turn {
            TurnWire::deserialize(value)
                .map(|wire| KruxMove::Turn(wire.turn))
                .map_err(de::Error::custom)
        } else if value.is_object() {
            Part::deserialize(value).map(KruxMove::Part).map_err(de::Error::custom)
        } else {
            Err(de::Error::custom(
                "expected an object: one part like {\"part\":\"step\",\"to\":\"c2\"} or a whole turn {\"turn\":[...]}",
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // ---------------------------------------------------------------- wire format

    #[test]
    fn parts_read_as_kind_and_operand() {
        let cases = [
            (Part::Ring { ring: Ring::Blue }, "ring blue"),
            (Part::Step { to: sq("c2") }, "step c2"),
            (Part::PickUp { target: sq("c3") }, "pick_up c3"),
            (Part::End {}, "end"),
        ];
        for (part, text) in cases {
            assert_eq!(part.to_string(), text);
        }
    }

    fn sq(text: &str) -> Square {
        text.parse().unwrap()
    }

    #[test]
    fn parts_round_trip_on_the_wire() {
        for text in [
            r#"{"part":"ring","ring":"blue"}"#,
            r#"{"part":"ring","ring":"pink"}"#,
            r#"{"part":"step","to":"c2"}"#,
            r#"{"part":"push","target":"e7"}"#,
            r#"{"part":"pull","target":"e7"}"#,
            r#"{"part":"pick_up","target":"c3"}"#,
            r#"{"part":"set_down","to":"d4"}"#,
            r#"{"part":"jump","to":"c5"}"#,
            r#"{"part":"swap","target":"f6"}"#,
            r#"{"part":"end"}"#,
            r#"{"turn":[{"part":"ring","ring":"green"},{"part":"end"}]}"#,
        ] {
            let mv: KruxMove = serde_json::from_str(text).unwrap_or_else(|err| panic!("{text}: {err}"));
            assert_eq!(serde_json::to_string(&mv).unwrap(), text);
        }
        // Upper case is accepted and normalised; a well-formed square beyond the board
        // decodes (the rules refuse it as off_board).
        let mv: KruxMove = serde_json::from_value(json!({"part":"step","to":"C2"})).unwrap();
        assert_eq!(serde_json::to_value(&mv).unwrap(), json!({"part":"step","to":"c2"}));
        let far: KruxMove = serde_json::from_value(json!({"part":"jump","to":"h9"})).unwrap();
        assert_eq!(
            far,
            KruxMove::Part(Part::Jump {
                to: Square::new(7, 8).unwrap()
            })
        );
    }

    #[test]
    fn malformed_parts_are_refused_when_decoded() {
        for (bad, says) in [
            (json!({"part":"end","extra":1}), "unknown field"),
            (json!({"part":"step","to":"c2","piece":1}), "unknown field"),
            (json!({"part":"fly","to":"c2"}), "unknown variant"),
            (json!({"to":"c2"}), "missing field `part`"),
            (json!({"part":"step"}), "missing field `to`"),
            (json!({"part":"push","target":3}), "a square"),
            (json!({"part":"step","to":"c0"}), "invalid square"),
            (json!({"part":"step","to":"2c"}), "invalid square"),
            (json!({"part":"ring","ring":"red"}), "unknown variant"),
            (json!({"turn":[{"part":"end"}],"part":"end"}), "unknown field"),
            (json!({"turn":{"part":"end"}}), "sequence"),
            (json!({"turn":[{"part":"hop"}]}), "unknown variant"),
            (json!("end"), "expected an object"),
            (json!([{"part":"end"}]), "expected an object"),
        ] {
            let err = serde_json::from_value::<KruxMove>(bad.clone()).unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }
}
