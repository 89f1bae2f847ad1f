//! Bughouse house rules: the drop rules clubs argue about, each a table setting
//! (docs/rules/bughouse.md, "House rules"). The defaults are the rule page's:
//!
//! | setting | values (default first) | what it changes |
//! |---|---|---|
//! | `pawn_drops_on_seventh` | `true`, `false` | `false`: no pawn drop on the dropper's seventh rank (white's 7, black's 2), refused `pawn_on_seventh_rank` |
//! | `drop_checks` | `"allowed"`, `"no_mate"`, `"never"` | `"no_mate"`: a drop may check but not mate (`drop_gives_mate`); `"never"`: a drop may not give check at all (`drop_gives_check`) |
//! | `captured_promoted` | `"pawn"`, `"piece"` | how a captured promoted piece travels to the partner: as a pawn, or as the piece it became |
//!
//! A refused drop is no move: a player whose only moves are such drops has no legal move,
//! waits (or, in check, may be mated). Whether a drop mates is judged with the other house
//! rules but with every checking drop allowed to the mated side (a reply that would itself
//! mate still counts as a way out), so the judgement never recurses.

use serde::Serialize;
use shakmaty::variant::Crazyhouse;
use shakmaty::{Move, MoveList, Position, Rank, Role};

use super::is_bughouse_mate_with;
use crate::{SettingError, SettingsReader};

/// Which checking drops a table allows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropChecks {
    /// Any drop may give check and mate (the rule page).
    #[default]
    Allowed,
    /// A drop may give check but not mate.
    NoMate,
    /// A drop may not give check.
    Never,
}

/// How a captured promoted piece travels to the capturer's partner.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CapturedPromoted {
    /// As a pawn (the rule page).
    #[default]
    Pawn,
    /// As the piece it became.
    Piece,
}

/// A table's house rules; see the module doc. Serialised (flattened into the settings) only
/// where they differ from the defaults, so that tables made before them read back the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct HouseRules {
    #[serde(skip_serializing_if = "is_true")]
    pub pawn_drops_on_seventh: bool,
    #[serde(skip_serializing_if = "is_default")]
    pub drop_checks: DropChecks,
    #[serde(skip_serializing_if = "is_default")]
    pub captured_promoted: CapturedPromoted,
}

fn is_true(value: &bool) -> bool {
    *value
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

impl Default for HouseRules {
    fn default() -> HouseRules {
        HouseRules {
            pawn_drops_on_seventh: true,
            drop_checks: DropChecks::Allowed,
            captured_promoted: CapturedPromoted::Pawn,
        }
    }
}

/// A drop the house rules refuse: the rule's code and why, for the player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    pub code: &'static str,
    pub reason: &'static str,
}

impl HouseRules {
    /// Reads the three settings (each optional).
    pub fn read(reader: &mut SettingsReader) -> Result<HouseRules, SettingError> {
        let pawn_drops_on_seventh = reader.take::<bool>("pawn_drops_on_seventh")?.unwrap_or(true);
        let drop_checks = match reader.take_choice("drop_checks", &["allowed", "no_mate", "never"])? {
            "no_mate" => DropChecks::NoMate,
            "never" => DropChecks::Never,
            _ => DropChecks::Allowed,
        };
        let captured_promoted = match reader.take_choice("captured_promoted", &["pawn", "piece"])? {
            "piece" => CapturedPromoted::Piece,
            _ => CapturedPromoted::Pawn,
        };
        Ok(HouseRules {
            pawn_drops_on_seventh,
            drop_checks,
            captured_promoted,
        })
    }

    /// Whether every drop shakmaty allows is allowed here (nothing to filter).
    fn restricts_drops(&self) -> bool {
        !self.pawn_drops_on_seventh || self.drop_checks != DropChecks::Allowed
    }

    /// Why these rules refuse the legal move `m` on `pos`, if they do (only drops can be).
    pub fn refusal(&self, pos: &Crazyhouse, m: Move) -> Option<Refusal> {
        let Move::Put { role, to } = m else {
            return None;
        };
        if !self.pawn_drops_on_seventh
            && role == Role::Pawn
            && to.rank() == pos.turn().fold_wb(Rank::Seventh, Rank::Second)
        {
            return Some(Refusal {
                code: "pawn_on_seventh_rank",
                reason: "at this table a pawn is never dropped on its seventh rank",
            });
        }
        if self.drop_checks == DropChecks::Allowed {
            return None;
        }
        let mut after = pos.clone();
        after.play_unchecked(m);
        if !after.is_check() {
            return None;
        }
        match self.drop_checks {
            DropChecks::Never => Some(Refusal {
                code: "drop_gives_check",
                reason: "at this table a drop may not give check",
            }),
            DropChecks::NoMate => {
                let replies = HouseRules {
                    drop_checks: DropChecks::Allowed,
                    ..*self
                };
                is_bughouse_mate_with(&after, &replies).then_some(Refusal {
                    code: "drop_gives_mate",
                    reason: "at this table a drop may give check but not mate",
                })
            }
            DropChecks::Allowed => None,
        }
    }

    /// The moves these rules allow the side to move on `pos`.
    pub fn legal_moves(&self, pos: &Crazyhouse) -> MoveList {
        let mut moves = pos.legal_moves();
        if self.restricts_drops() {
            moves.retain(|m| self.refusal(pos, *m).is_none());
        }
        moves
    }

    /// The role a captured piece travels as: a promoted piece as a pawn, unless the table
    /// passes it on as the piece it became. `captured` is the piece's role on the board,
    /// `was_promoted` whether it came from a promotion.
    pub fn travels_as(&self, captured: Role, was_promoted: bool) -> Role {
        match (was_promoted, self.captured_promoted) {
            (true, CapturedPromoted::Pawn) => Role::Pawn,
            _ => captured,
        }
    }
}
