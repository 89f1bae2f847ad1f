//! **View.** [`KruxView`]: `board` (top row first, `.` empty, `o` the hole, `1`–`6`),
//! `pieces` (number, colour, square or `"carried"` or `"hole"`, ring), `hole`,
//! `piece_in_turn`, `to_move` (role, `null` once over), `turn_number`, `turn` (what the
//! piece in turn may still do: steps and actions left, `pinned`, `carrying`, its ring,
//! `must_choose_ring` and `free_rings`, `available` part kinds with at least one legal
//! part now, `can_end`, and the `parts` played so far), `last_turn` (the parts of the
//! previous turn) and `position`, the notation of the **last turn boundary** (mid-turn
//! positions cannot be written: a piece may be carried). A partial turn lives in the
//! game state and the view, so it survives a reconnect, and replaying the stored parts
//! rebuilds it. `turn_number` counts from 1: turns completed + 1 while the game runs or
//! when it ended inside a turn (hole, resignation, time…), turns completed when it ended
//! at a boundary (repetition, turn cap).

use serde::Serialize;

use super::square::name;
use super::{CARRIED, Colour, HOLE_INDEX, Krux, Part, Ring, SIZE, Square, colour};

/// One piece as the view shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PieceView {
    pub number: u8,
    pub colour: Colour,
    /// The square (`"c1"`), `"carried"` while the carrier holds it, or `"hole"` for the
    /// piece that fell in and ended the game.
    pub square: String,
    pub ring: Option<Ring>,
}

/// The progress of the current turn: what the piece in turn may still do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TurnView {
    /// The piece in turn (1–6).
    pub piece: u8,
    pub steps_left: u8,
    pub actions_left: u8,
    /// The piece in turn stands next to an opponent's piece and may not step now.
    pub pinned: bool,
    /// The number of the carried piece.
    pub carrying: Option<u8>,
    /// The ring of the piece in turn (its power is `pick_up`/`set_down`, `jump` or `swap`).
    pub ring: Option<Ring>,
    /// The first part must be `ring`, choosing one of `free_rings`.
    pub must_choose_ring: bool,
    /// The rings on no piece yet.
    pub free_rings: Vec<Ring>,
    /// The part kinds of which at least one part is legal now, in [`Part::KINDS`] order.
    pub available: Vec<&'static str>,
    /// Whether `end` is legal now.
    pub can_end: bool,
    /// The parts played so far in this turn.
    pub parts: Vec<Part>,
}

/// The public state of a game; see the module doc.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KruxView {
    /// One string per row, top row (7) first; `.` empty, `o` the hole, `1`–`6` a piece.
    pub board: Vec<String>,
    pub pieces: Vec<PieceView>,
    pub hole: Square,
    /// The piece in turn (1–6).
    pub piece_in_turn: u8,
    /// The role to move (`"white"`/`"black"`), `null` once the game is over.
    pub to_move: Option<&'static str>,
    /// The current turn's number, from 1; see the module doc.
    pub turn_number: u32,
    pub turn: TurnView,
    /// The parts of the previous turn (empty before the first turn ended).
    pub last_turn: Vec<Part>,
    /// The position at the last turn boundary, in notation.
    pub position: String,
}

impl Krux {
    /// The public view of the game (the [`Rules::view`](crate::Rules::view) of Krux).
    pub(super) fn build_view(&self) -> KruxView {
        let board = &self.state.board;
        let rows = (0..SIZE)
            .rev()
            .map(|row| {
                (0..SIZE)
                    .map(|col| {
                        let index = row * SIZE + col;
                        match board.piece_at(index) {
                            Some(piece) if index != HOLE_INDEX => char::from(b'1' + piece),
                            _ if index == HOLE_INDEX => 'o',
                            _ => '.',
                        }
                    })
                    .collect()
            })
            .collect();
        let pieces = (0..6u8)
            .map(|piece| {
                let loc = board.loc[usize::from(piece)];
                let square = match loc {
                    CARRIED => "carried".to_owned(),
                    HOLE_INDEX => "hole".to_owned(),
                    _ => name(loc).to_string(),
                };
                PieceView {
                    number: piece + 1,
                    colour: colour(piece),
                    square,
                    ring: board.rings[usize::from(piece)],
                }
            })
            .collect();
        KruxView {
            board: rows,
            pieces,
            hole: Square::HOLE,
            piece_in_turn: self.piece_in_turn(),
            to_move: self.to_move().map(|seat| if seat == 0 { "white" } else { "black" }),
            turn_number: self.turn_number(),
            turn: self.turn_view(),
            last_turn: self.last_turn.clone(),
            position: self.position(),
        }
    }

    fn turn_view(&self) -> TurnView {
        let running = self.outcome.is_none();
        let legal = if running { self.state.legal_parts() } else { Vec::new() };
        let available = Part::KINDS
            .into_iter()
            .filter(|kind| legal.iter().any(|part| part.kind() == *kind))
            .collect();
        let board = &self.state.board;
        TurnView {
            piece: self.piece_in_turn(),
            steps_left: self.steps_left(),
            actions_left: self.actions_left(),
            pinned: self.state.pinned_by().is_some(),
            carrying: self.carrying(),
            ring: board.rings[usize::from(board.in_turn)],
            must_choose_ring: running && board.ring_due(),
            free_rings: board.free_rings().collect(),
            available,
            can_end: running && self.state.can_end(),
            parts: self.parts.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::krux::test_support::*;
    use crate::krux::*;
    use crate::*;
    use serde_json::json;

    // ---------------------------------------------------------------- the view

    #[test]
    fn view_at_the_start_and_mid_turn() {
        let mut g = Krux::new(&KruxSettings::default());
        assert_eq!(
            view_json(&g),
            json!({
                "board": ["....2..", ".....4.", "......6", "...o...", "5......", ".3.....", "..1...."],
                "pieces": [
                    {"number": 1, "colour": "white", "square": "c1", "ring": null},
                    {"number": 2, "colour": "black", "square": "e7", "ring": null},
                    {"number": 3, "colour": "white", "square": "b2", "ring": null},
                    {"number": 4, "colour": "black", "square": "f6", "ring": null},
                    {"number": 5, "colour": "white", "square": "a3", "ring": null},
                    {"number": 6, "colour": "black", "square": "g5", "ring": null},
                ],
                "hole": "d4",
                "piece_in_turn": 1,
                "to_move": "white",
                "turn_number": 1,
                "turn": {
                    "piece": 1,
                    "steps_left": 3,
                    "actions_left": 2,
                    "pinned": false,
                    "carrying": null,
                    "ring": null,
                    "must_choose_ring": true,
                    "free_rings": ["blue", "green", "pink"],
                    "available": ["ring"],
                    "can_end": false,
                    "parts": [],
                },
                "last_turn": [],
                "position": "1c1 2e7 3b2 4f6 5a3 6g5 / 1",
            })
        );
        assert_eq!(g.active_seats(), SeatSet::only(0));
        ok(&mut g, json!({"part":"ring","ring":"green"}));
        ok(&mut g, json!({"part":"jump","to":"c3"}));
        let view = view_json(&g);
        assert_eq!(view["board"][4], "5.1....");
        assert_eq!(
            view["pieces"][0],
            json!({"number": 1, "colour": "white", "square": "c3", "ring": "green"})
        );
        assert_eq!(
            view["turn"],
            json!({
                "piece": 1,
                "steps_left": 3,
                "actions_left": 1,
                "pinned": false,
                "carrying": null,
                "ring": "green",
                "must_choose_ring": false,
                "free_rings": ["blue", "pink"],
                "available": ["step", "pull", "jump", "end"],
                "can_end": true,
                "parts": [{"part": "ring", "ring": "green"}, {"part": "jump", "to": "c3"}],
            })
        );
        assert_eq!(view["position"], "1c1 2e7 3b2 4f6 5a3 6g5 / 1", "the last boundary");
        ok(&mut g, json!({"part":"end"}));
        let view = view_json(&g);
        assert_eq!(view["to_move"], "black");
        assert_eq!(view["turn_number"], 2);
        assert_eq!(view["position"], "1c3g 2e7 3b2 4f6 5a3 6g5 / 2");
        assert_eq!(view["last_turn"].as_array().unwrap().len(), 3);
        assert_eq!(view["turn"]["parts"], json!([]));
        assert_eq!(g.active_seats(), SeatSet::only(1));
    }
}
