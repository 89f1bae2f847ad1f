//! A position (both colours' bitboards and the side to move): move generation, making a
//! move, the legality check with its refusal codes, and the checks a start position must
//! pass.

use super::bitboard::{LINE_NAMES, TABLES, direction, is_one_group, squares_of, targets};
use super::{LoaMove, MAX_PIECES, PositionError, Side, Square};
use crate::RuleError;

/// A board with the side to move: what the notation writes and what repetition compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    /// Bitboards indexed by [`Side::index`].
    pub(super) pieces: [u64; 2],
    pub(super) to_move: Side,
}

impl Position {
    /// The standard start, black to move.
    pub const START: Position = Position {
        pieces: [0x7E00_0000_0000_007E, 0x0081_8181_8181_8100],
        to_move: Side::Black,
    };

    /// The pieces of `side` as a bitboard (`a1` = bit 0, `h8` = bit 63).
    pub fn pieces(&self, side: Side) -> u64 {
        self.pieces[side.index()]
    }

    pub fn to_move(&self) -> Side {
        self.to_move
    }

    /// The colour of the piece on `square`, if any.
    pub fn piece_at(&self, square: Square) -> Option<Side> {
        [Side::Black, Side::White]
            .into_iter()
            .find(|side| self.pieces(*side) & square.bit() != 0)
    }

    /// How many pieces `side` has.
    pub fn count(&self, side: Side) -> u32 {
        self.pieces(side).count_ones()
    }

    /// Whether `side`'s pieces form a single group (8-neighbourhood).
    pub fn is_connected(&self, side: Side) -> bool {
        is_one_group(self.pieces(side))
    }

    pub(super) fn occupied(&self) -> u64 {
        self.pieces[0] | self.pieces[1]
    }

    pub(super) fn own_and_opponent(&self) -> (u64, u64) {
        let me = self.to_move.index();
        (self.pieces[me], self.pieces[1 - me])
    }

    /// Clears `out` and fills it with every legal move of the side to move: its moves in
    /// increasing order of `from` then `to` (bit order), or exactly `[Pass]` when it has
    /// none. Whether the game is over is not this type's business (see
    /// [`super::LinesOfAction::moves_into`]).
    pub fn moves_into(&self, out: &mut Vec<LoaMove>) {
        out.clear();
        let (own, opponent) = self.own_and_opponent();
        for from in squares_of(own) {
            for to in squares_of(targets(u32::from(from.index()), own, opponent)) {
                out.push(LoaMove::Step { from, to });
            }
        }
        if out.is_empty() {
            out.push(LoaMove::Pass);
        }
    }

    /// The number of legal moves of the side to move (1 when it must pass).
    pub fn legal_move_count(&self) -> u64 {
        let (own, opponent) = self.own_and_opponent();
        let steps: u64 = squares_of(own)
            .map(|from| u64::from(targets(u32::from(from.index()), own, opponent).count_ones()))
            .sum();
        steps.max(1)
    }

    /// Whether the side to move has any move other than a pass.
    pub fn can_move(&self) -> bool {
        let (own, opponent) = self.own_and_opponent();
        squares_of(own).any(|from| targets(u32::from(from.index()), own, opponent) != 0)
    }

    /// The position after `mv`, **unchecked**: `mv` must be legal here (see
    /// [`Position::moves_into`]). For an illegal move the result is not a position of the
    /// game (but nothing panics).
    pub fn after(&self, mv: LoaMove) -> Position {
        let mut next = *self;
        if let LoaMove::Step { from, to } = mv {
            let me = self.to_move.index();
            next.pieces[me] = (next.pieces[me] & !from.bit()) | to.bit();
            next.pieces[1 - me] &= !to.bit();
        }
        next.to_move = self.to_move.opponent();
        next
    }

    /// Checks a move of the side to move, in the order of the module doc (from
    /// `no_piece` on).
    pub(super) fn check(&self, mv: LoaMove) -> Result<(), RuleError> {
        let side = self.to_move;
        let (from, to) = match mv {
            LoaMove::Pass if self.can_move() => {
                return Err(RuleError::new(
                    "pass_not_allowed",
                    format!("{side} has a legal move, and a pass is allowed only when there is none"),
                ));
            }
            LoaMove::Pass => return Ok(()),
            LoaMove::Step { from, to } => (from, to),
        };
        let (own, opponent) = self.own_and_opponent();
        if own & from.bit() == 0 {
            return Err(RuleError::new(
                "no_piece",
                format!("there is no {side} piece on {from}"),
            ));
        }
        let Some((dir, distance)) = direction(from, to) else {
            let message = if from == to {
                format!("a piece must move: {from}-{to} goes nowhere")
            } else {
                format!("{from} and {to} are not on one row, column or diagonal")
            };
            return Err(RuleError::new("not_a_line", message));
        };
        let line = dir % 4;
        let n = (self.occupied() & TABLES.lines[from.usize()][line]).count_ones();
        if u32::from(distance) != n {
            return Err(RuleError::new(
                "wrong_distance",
                format!(
                    "{from}-{to} moves {}, but the {name} through {from} holds {}, so the piece must move exactly {n}",
                    plural(u32::from(distance), "square"),
                    plural(n, "piece"),
                    name = LINE_NAMES[line],
                ),
            ));
        }
        let jumped = TABLES.between[from.usize()][dir][usize::from(distance)] & opponent;
        if jumped != 0 {
            let squares: Vec<String> = squares_of(jumped).map(|square| square.to_string()).collect();
            return Err(RuleError::new(
                "blocked",
                format!(
                    "{from}-{to} would jump over the {} {} on {}",
                    side.opponent(),
                    if squares.len() == 1 { "piece" } else { "pieces" },
                    squares.join(", ")
                ),
            ));
        }
        if own & to.bit() != 0 {
            return Err(RuleError::new(
                "own_piece",
                format!("{to} holds a {side} piece of your own"),
            ));
        }
        Ok(())
    }

    /// Refuses a position a game cannot start from (see [`PositionError`]).
    pub(super) fn validate(self) -> Result<Position, PositionError> {
        for side in [Side::Black, Side::White] {
            match self.count(side) {
                0 => return Err(PositionError::NoPieces(side)),
                count if count > MAX_PIECES => return Err(PositionError::TooManyPieces { side, count }),
                _ => {}
            }
        }
        for side in [Side::Black, Side::White] {
            if self.is_connected(side) {
                return Err(PositionError::AlreadyConnected(side));
            }
        }
        Ok(self)
    }
}

impl Default for Position {
    fn default() -> Position {
        Position::START
    }
}

/// `1 piece`, `2 pieces`.
fn plural(n: u32, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use crate::lines_of_action::testkit::*;

    // ---------------------------------------------------------------- refused moves

    /// Black b1 and d1, white c2 and g7.
    const CODES: [&str; 8] = [
        "........", // 8
        "......w.", // 7
        "........", // 6
        "........", // 5
        "........", // 4
        "........", // 3
        "..w.....", // 2
        ".b.b....", // 1
    ];

    #[test]
    fn every_refusal_code() {
        let g = game(CODES, 'b');
        let try_move = |seat: Seat, text: &str| {
            let mut probe = g.clone();
            let before = view_json(&probe);
            let result = probe.play(seat, &mv(text));
            if result.is_err() {
                assert_eq!(probe, g, "{text} changed the game");
                assert_eq!(view_json(&probe), before);
            }
            result
        };
        assert_eq!(rule(try_move(1, "c2-c4")), "not_your_turn");
        assert_eq!(rule(try_move(2, "b1-b2")), "not_your_turn");
        assert_eq!(rule(try_move(7, "b1-b2")), "not_your_turn");
        assert_eq!(rule(try_move(0, "e4-e5")), "no_piece");
        assert_eq!(rule(try_move(0, "c2-c4")), "no_piece");
        assert_eq!(rule(try_move(0, "b1-c3")), "not_a_line");
        assert_eq!(rule(try_move(0, "b1-b1")), "not_a_line");
        assert_eq!(rule(try_move(0, "b1-b3")), "wrong_distance");
        assert_eq!(rule(try_move(0, "b1-d3")), "blocked");
        assert_eq!(rule(try_move(0, "b1-d1")), "own_piece");
        assert_eq!(rule(try_move(0, "pass")), "pass_not_allowed");
        assert!(try_move(0, "b1-b2").is_ok(), "one piece on column b: one step");
        let mut over = g.clone();
        over.finish(Outcome::win(vec![1], EndReason::Resignation));
        assert_eq!(rule(over.play(0, &mv("b1-b2"))), "game_over");
        assert_eq!(rule(over.play(1, &mv("c2-c4"))), "game_over");
    }

    #[test]
    fn refusal_messages_say_what_is_wrong() {
        let mut g = game(CODES, 'b');
        let message = |g: &mut LinesOfAction, text: &str| g.play(0, &mv(text)).unwrap_err().message;
        assert_eq!(message(&mut g, "e4-e5"), "there is no black piece on e4");
        assert_eq!(
            message(&mut g, "b1-c3"),
            "b1 and c3 are not on one row, column or diagonal"
        );
        assert_eq!(
            message(&mut g, "b1-b3"),
            "b1-b3 moves 2 squares, but the column through b1 holds 1 piece, so the piece must move exactly 1"
        );
        assert_eq!(message(&mut g, "b1-d3"), "b1-d3 would jump over the white piece on c2");
        assert_eq!(message(&mut g, "b1-d1"), "d1 holds a black piece of your own");
    }

    #[test]
    fn blocked_is_reported_before_own_piece() {
        // a1-d1: three pieces on row 1, so three squares; it would jump b1 (white) and land on
        // d1 (black).
        let mut g = game(
            [
                "........", // 8
                "......w.", // 7
                "........", // 6
                "........", // 5
                "........", // 4
                "........", // 3
                "........", // 2
                "bw.b....", // 1
            ],
            'b',
        );
        assert_eq!(rule(g.play(0, &mv("a1-d1"))), "blocked");
        let (grid, side) = grid_of(&g.position());
        assert_eq!(classify(&grid, side, (0, 0), (3, 0)), Err("blocked"));
        // Two white pieces in the way are both named.
        let mut g = game(
            [
                "b.......", // 8
                "......w.", // 7
                "........", // 6
                "........", // 5
                "........", // 4
                "........", // 3
                "........", // 2
                "bww.....", // 1
            ],
            'b',
        );
        let err = g.play(0, &mv("a1-d1")).unwrap_err();
        assert_eq!(err.message, "a1-d1 would jump over the white pieces on b1, c1");
    }

    #[test]
    fn jumping_own_pieces_and_capturing_are_allowed() {
        let mut g = start();
        // b1-h1 jumps c1..g1 (own); c1-a3 lands on white's a3 and captures it.
        assert!(g.clone().play(0, &mv("b1-h1")).is_ok());
        g.play(0, &mv("c1-a3")).unwrap();
        assert_eq!(g.view().pieces, PieceCounts { black: 12, white: 11 });
        assert_eq!(g.board().piece_at(sq("a3")), Some(Side::Black));
        assert_eq!(g.view().last_move, Some(mv("c1-a3")));
    }
}
