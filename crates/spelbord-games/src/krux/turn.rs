//! The turn in progress: the board plus what the piece in turn has used, and the
//! validation and application of one part (the rule codes of the parent module's table).

use super::square::{col_of, distance, name, offset, row_of};
use super::{
    Board, CARRIED, CELLS, DIRECTIONS, HOLE_INDEX, JUMP_RANGE, KruxPosition, MAX_ACTIONS, MAX_STEPS, Part, Ring,
    SWAP_RANGE, Square, colour,
};
use crate::RuleError;

// ----------------------------------------------------------- the turn in progress

/// What a legal part did to the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Effect {
    /// The turn goes on.
    Continue,
    /// The turn passed to the next piece.
    TurnOver,
    /// An opponent's piece went into the hole: the mover won.
    Won,
}

/// The board plus the progress of the current turn: everything the legality of the next
/// part depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct State {
    pub(super) board: Board,
    /// Steps used this turn.
    pub(super) steps: u8,
    /// Actions used this turn (a pick-up counts at once).
    pub(super) actions: u8,
    /// The index of the carried piece.
    pub(super) carrying: Option<u8>,
}

pub(super) fn refuse<T>(rule: &'static str, message: String) -> Result<T, RuleError> {
    Err(RuleError::new(rule, message))
}

/// How a refused part is reported: with the message players see ([`Explain`]), or bare
/// ([`Quiet`]) for the enumeration, which tries many parts and never says why one fails.
/// The message is built only when it is reported.
pub(super) trait Report {
    type Error;
    fn fail<T>(rule: &'static str, message: impl FnOnce() -> String) -> Result<T, Self::Error>;
}

/// Refusals as [`RuleError`]s with their messages.
pub(super) struct Explain;

impl Report for Explain {
    type Error = RuleError;

    fn fail<T>(rule: &'static str, message: impl FnOnce() -> String) -> Result<T, RuleError> {
        refuse(rule, message())
    }
}

/// Refusals as `()`: no message is written.
pub(super) struct Quiet;

impl Report for Quiet {
    type Error = ();

    fn fail<T>(_rule: &'static str, _message: impl FnOnce() -> String) -> Result<T, ()> {
        Err(())
    }
}

impl State {
    pub(super) fn at_boundary(position: KruxPosition) -> State {
        State {
            board: position.0,
            steps: 0,
            actions: 0,
            carrying: None,
        }
    }

    pub(super) fn mover(&self) -> u8 {
        self.board.in_turn
    }

    pub(super) fn mover_number(&self) -> u8 {
        self.board.in_turn + 1
    }

    pub(super) fn mover_square(&self) -> u8 {
        self.board.loc[usize::from(self.board.in_turn)]
    }

    pub(super) fn own(&self, piece: u8) -> bool {
        colour(piece) == colour(self.mover())
    }

    /// The opponent piece next to the piece in turn, if any (the lowest number first).
    pub(super) fn pinned_by(&self) -> Option<u8> {
        let at = self.mover_square();
        DIRECTIONS
            .iter()
            .filter_map(|&dir| offset(at, dir))
            .filter_map(|square| self.board.piece_at(square))
            .filter(|&piece| !self.own(piece))
            .min()
    }

    pub(super) fn can_end(&self) -> bool {
        !self.board.ring_due() && self.carrying.is_none()
    }

    fn end_turn(&mut self) {
        self.board.in_turn = (self.board.in_turn + 1) % 6;
        self.steps = 0;
        self.actions = 0;
        self.carrying = None;
    }

    /// Validates `part` and applies it. On error nothing changed.
    pub(super) fn apply(&mut self, part: Part) -> Result<Effect, RuleError> {
        self.apply_as::<Explain>(part)
    }

    /// [`State::apply`] without the refusal's message, for the enumeration, which tries
    /// many parts and never shows why one is refused. The same rules, checked by the same
    /// code.
    pub(super) fn try_apply(&mut self, part: Part) -> Option<Effect> {
        self.apply_as::<Quiet>(part).ok()
    }

    fn apply_as<R: Report>(&mut self, part: Part) -> Result<Effect, R::Error> {
        let n = self.mover_number();
        if self.board.ring_due() && !matches!(part, Part::Ring { .. }) {
            return R::fail("choose_ring", || {
                let free: Vec<&str> = self.board.free_rings().map(Ring::name).collect();
                format!(
                    "piece {n} has its first turn and must first choose a ring ({})",
                    free.join(", ")
                )
            });
        }
        let effect = match part {
            Part::Ring { ring } => self.choose_ring::<R>(ring)?,
            Part::Step { to } => self.step::<R>(to)?,
            Part::Push { target } => self.push_or_pull::<R>(target, true)?,
            Part::Pull { target } => self.push_or_pull::<R>(target, false)?,
            Part::PickUp { target } => self.pick_up::<R>(target)?,
            Part::SetDown { to } => self.set_down::<R>(to)?,
            Part::Jump { to } => self.jump::<R>(to)?,
            Part::Swap { target } => self.swap::<R>(target)?,
            Part::End {} => {
                if let Some(carried) = self.carrying {
                    return R::fail("must_set_down", || {
                        format!(
                            "piece {n} is carrying piece {} and must set it down before the turn ends",
                            carried + 1
                        )
                    });
                }
                self.end_turn();
                return Ok(Effect::TurnOver);
            }
        };
        if effect == Effect::Continue
            && self.steps == MAX_STEPS
            && self.actions == MAX_ACTIONS
            && self.carrying.is_none()
        {
            self.end_turn();
            return Ok(Effect::TurnOver);
        }
        Ok(effect)
    }

    fn choose_ring<R: Report>(&mut self, ring: Ring) -> Result<Effect, R::Error> {
        let n = self.mover_number();
        if !self.board.ring_due() {
            let why = match self.board.rings[usize::from(self.mover())] {
                Some(own) => format!("piece {n} already has the {} ring", own.name()),
                None => "no ring is free".to_owned(),
            };
            return R::fail("no_ring_due", || format!("no ring is due: {why}"));
        }
        if let Some(holder) = self.board.rings.iter().position(|r| *r == Some(ring)) {
            return R::fail("ring_taken", || {
                format!("the {} ring is already on piece {}", ring.name(), holder + 1)
            });
        }
        self.board.rings[usize::from(self.mover())] = Some(ring);
        Ok(Effect::Continue)
    }

    fn step<R: Report>(&mut self, to: Square) -> Result<Effect, R::Error> {
        let n = self.mover_number();
        if self.steps >= MAX_STEPS {
            return R::fail("no_steps_left", || format!("piece {n} has used its {MAX_STEPS} steps"));
        }
        if let Some(pinner) = self.pinned_by() {
            return R::fail("pinned", || {
                format!(
                    "piece {n} is next to opponent piece {} on {} and may not step",
                    pinner + 1,
                    name(self.board.loc[usize::from(pinner)])
                )
            });
        }
        let to_index = on_board::<R>(to)?;
        let from = self.mover_square();
        if distance(from, to_index) != 1 {
            return R::fail("not_adjacent", || {
                format!(
                    "{to} is not next to piece {n} on {}: a step goes one square orthogonally",
                    name(from)
                )
            });
        }
        if to_index == HOLE_INDEX {
            return R::fail("into_hole", || format!("piece {n} may not step into the hole"));
        }
        if let Some(other) = self.board.piece_at(to_index) {
            return R::fail("occupied", || format!("{to} holds piece {}", other + 1));
        }
        self.board.loc[usize::from(self.mover())] = to_index;
        self.steps += 1;
        Ok(Effect::Continue)
    }

    /// The checks every action starts with: not while carrying, the right ring, an action
    /// left.
    fn action_allowed<R: Report>(&self, kind: &str, ring: Option<Ring>) -> Result<(), R::Error> {
        let n = self.mover_number();
        if let Some(carried) = self.carrying {
            return R::fail("carrying", || {
                format!(
                    "piece {n} is carrying piece {}: no other action until it is set down",
                    carried + 1
                )
            });
        }
        if let Some(ring) = ring
            && self.board.rings[usize::from(self.mover())] != Some(ring)
        {
            return R::fail("wrong_ring", || {
                format!(
                    "{kind} needs the {} ring ({}), which piece {n} does not have",
                    ring.name(),
                    ring.power()
                )
            });
        }
        if self.actions >= MAX_ACTIONS {
            return R::fail("no_actions_left", || {
                format!("piece {n} has used its {MAX_ACTIONS} actions")
            });
        }
        Ok(())
    }

    /// The piece on `target`, which must be another piece on the board.
    fn target_piece<R: Report>(&self, target: Square) -> Result<(u8, u8), R::Error> {
        let index = on_board::<R>(target)?;
        let Some(piece) = self.board.piece_at(index) else {
            let what = if index == HOLE_INDEX { "is the hole" } else { "is empty" };
            return R::fail("no_piece", || format!("{target} {what}: there is no piece to act on"));
        };
        if piece == self.mover() {
            return R::fail("self_target", || {
                format!("{target} is piece {} itself, the piece in turn", piece + 1)
            });
        }
        Ok((piece, index))
    }

    /// The piece falls into the hole: refused for one's own piece, a win otherwise.
    fn check_fall<R: Report>(&self, piece: u8, how: &str) -> Result<(), R::Error> {
        if self.own(piece) {
            return R::fail("own_piece_into_hole", || {
                format!("{how} would put piece {}, your own, into the hole", piece + 1)
            });
        }
        Ok(())
    }

    fn push_or_pull<R: Report>(&mut self, target: Square, push: bool) -> Result<Effect, R::Error> {
        let kind = if push { "push" } else { "pull" };
        self.action_allowed::<R>(kind, None)?;
        let n = self.mover_number();
        let (piece, at) = self.target_piece::<R>(target)?;
        let from = self.mover_square();
        if col_of(from) != col_of(at) && row_of(from) != row_of(at) {
            return R::fail("not_in_line", || {
                format!(
                    "{target} is not in the same row or column as piece {n} on {}",
                    name(from)
                )
            });
        }
        let towards = (
            (col_of(at) - col_of(from)).signum(),
            (row_of(at) - row_of(from)).signum(),
        );
        let mut between = from;
        while let Some(next) = offset(between, towards).filter(|&next| next != at) {
            if let Some(blocker) = self.board.piece_at(next) {
                return R::fail("blocked", || {
                    format!(
                        "piece {} on {} stands between {} and {target}",
                        blocker + 1,
                        name(next),
                        name(from)
                    )
                });
            }
            between = next;
        }
        let end = if push {
            // Two squares away, stopped by the edge or a piece; the hole does not stop it.
            let mut end = at;
            for _ in 0..2 {
                match offset(end, towards) {
                    Some(next) if self.board.piece_at(next).is_none() => end = next,
                    _ => break,
                }
            }
            end
        } else {
            // Two squares towards the puller, or until it is next to it.
            let moves = (distance(from, at) - 1).min(2);
            let back = (-towards.0, -towards.1);
            (0..moves).fold(at, |square, _| offset(square, back).unwrap_or(square))
        };
        if end == at {
            let why = if push {
                "the square beyond it is off the board or holds a piece"
            } else {
                "it is already next to the piece in turn"
            };
            return R::fail("no_effect", || format!("{kind}ing {target} moves nothing: {why}"));
        }
        if end == HOLE_INDEX {
            self.check_fall::<R>(piece, &format!("{kind}ing {target}"))?;
        }
        self.board.loc[usize::from(piece)] = end;
        self.actions += 1;
        Ok(if end == HOLE_INDEX {
            Effect::Won
        } else {
            Effect::Continue
        })
    }

    fn pick_up<R: Report>(&mut self, target: Square) -> Result<Effect, R::Error> {
        self.action_allowed::<R>("pick_up", Some(Ring::Blue))?;
        let n = self.mover_number();
        let (piece, at) = self.target_piece::<R>(target)?;
        let from = self.mover_square();
        if distance(from, at) != 1 {
            return R::fail("not_adjacent", || {
                format!("{target} is not next to piece {n} on {}", name(from))
            });
        }
        self.board.loc[usize::from(piece)] = CARRIED;
        self.carrying = Some(piece);
        self.actions += 1;
        Ok(Effect::Continue)
    }

    fn set_down<R: Report>(&mut self, to: Square) -> Result<Effect, R::Error> {
        let n = self.mover_number();
        let Some(carried) = self.carrying else {
            return R::fail("not_carrying", || format!("piece {n} is not carrying a piece"));
        };
        let to_index = on_board::<R>(to)?;
        let from = self.mover_square();
        if distance(from, to_index) != 1 {
            return R::fail("not_adjacent", || {
                format!("{to} is not next to piece {n} on {}", name(from))
            });
        }
        if let Some(other) = self.board.piece_at(to_index) {
            return R::fail("occupied", || format!("{to} holds piece {}", other + 1));
        }
        if to_index == HOLE_INDEX {
            self.check_fall::<R>(carried, "setting it down on d4")?;
        }
        self.board.loc[usize::from(carried)] = to_index;
        self.carrying = None;
        Ok(if to_index == HOLE_INDEX {
            Effect::Won
        } else {
            Effect::Continue
        })
    }

    fn jump<R: Report>(&mut self, to: Square) -> Result<Effect, R::Error> {
        self.action_allowed::<R>("jump", Some(Ring::Green))?;
        let n = self.mover_number();
        let to_index = on_board::<R>(to)?;
        let from = self.mover_square();
        if distance(from, to_index) > JUMP_RANGE {
            return R::fail("too_far", || {
                format!(
                    "{to} is {} steps from {}; a jump reaches {JUMP_RANGE} at most",
                    distance(from, to_index),
                    name(from)
                )
            });
        }
        if to_index == HOLE_INDEX {
            return R::fail("into_hole", || format!("piece {n} may not jump into the hole"));
        }
        if let Some(other) = self.board.piece_at(to_index).filter(|&p| p != self.mover()) {
            return R::fail("occupied", || format!("{to} holds piece {}", other + 1));
        }
        // Every neighbour of the landing square moves one square directly away where that
        // square is on the board and empty (the jumper's old square counts as empty) or
        // the hole. Neighbours land two squares from the jumper, so no two collide.
        let mut shoves: Vec<(u8, u8)> = Vec::new();
        for dir in DIRECTIONS {
            let Some(near) = offset(to_index, dir) else { continue };
            let Some(piece) = self.board.piece_at(near).filter(|&p| p != self.mover()) else {
                continue;
            };
            let Some(beyond) = offset(near, dir) else { continue };
            let free = match self.board.piece_at(beyond) {
                None => true,
                Some(blocker) => blocker == self.mover(),
            };
            if free {
                shoves.push((piece, beyond));
            }
        }
        if to_index == from && shoves.is_empty() {
            return R::fail("no_effect", || {
                format!("jumping onto {to}, where piece {n} stands, shoves nothing")
            });
        }
        for &(piece, beyond) in &shoves {
            if beyond == HOLE_INDEX {
                self.check_fall::<R>(piece, &format!("the shove of jumping to {to}"))?;
            }
        }
        self.board.loc[usize::from(self.mover())] = to_index;
        let mut won = false;
        for (piece, beyond) in shoves {
            self.board.loc[usize::from(piece)] = beyond;
            won |= beyond == HOLE_INDEX;
        }
        self.actions += 1;
        Ok(if won { Effect::Won } else { Effect::Continue })
    }

    fn swap<R: Report>(&mut self, target: Square) -> Result<Effect, R::Error> {
        self.action_allowed::<R>("swap", Some(Ring::Pink))?;
        let (piece, at) = self.target_piece::<R>(target)?;
        let from = self.mover_square();
        if distance(from, at) > SWAP_RANGE {
            return R::fail("too_far", || {
                format!(
                    "{target} is {} steps from {}; a swap reaches {SWAP_RANGE} at most",
                    distance(from, at),
                    name(from)
                )
            });
        }
        self.board.loc[usize::from(piece)] = from;
        self.board.loc[usize::from(self.mover())] = at;
        self.actions += 1;
        Ok(Effect::Continue)
    }

    /// Every part worth trying now, in a fixed order: a superset of the legal parts (each
    /// still goes through [`State::try_apply`]), pruned of the plainly refused ones so that
    /// the enumeration tries few parts in vain.
    pub(super) fn candidates(&self, out: &mut Vec<Part>) {
        out.clear();
        if self.board.ring_due() {
            out.extend(self.board.free_rings().map(|ring| Part::Ring { ring }));
            return;
        }
        let from = self.mover_square();
        let empty = |square: u8| self.board.piece_at(square).is_none();
        let neighbours = DIRECTIONS.iter().filter_map(|&dir| offset(from, dir));
        if self.steps < MAX_STEPS && self.pinned_by().is_none() {
            out.extend(
                neighbours
                    .clone()
                    .filter(|&to| to != HOLE_INDEX && empty(to))
                    .map(|to| Part::Step { to: name(to) }),
            );
        }
        if self.carrying.is_some() {
            out.extend(
                neighbours
                    .filter(|&to| empty(to))
                    .map(|to| Part::SetDown { to: name(to) }),
            );
            return;
        }
        if self.actions < MAX_ACTIONS {
            let ring = self.board.rings[usize::from(self.mover())];
            for piece in 0..6u8 {
                let at = self.board.loc[usize::from(piece)];
                if piece == self.mover() || at >= CELLS {
                    continue;
                }
                if col_of(at) == col_of(from) || row_of(at) == row_of(from) {
                    out.push(Part::Push { target: name(at) });
                    out.push(Part::Pull { target: name(at) });
                }
                match ring {
                    Some(Ring::Blue) if distance(from, at) == 1 => out.push(Part::PickUp { target: name(at) }),
                    Some(Ring::Pink) if distance(from, at) <= SWAP_RANGE => out.push(Part::Swap { target: name(at) }),
                    _ => {}
                }
            }
            if ring == Some(Ring::Green) {
                out.extend(
                    (0..CELLS)
                        .filter(|&to| to != HOLE_INDEX && distance(from, to) <= JUMP_RANGE)
                        .filter(|&to| to == from || empty(to))
                        .map(|to| Part::Jump { to: name(to) }),
                );
            }
        }
        out.push(Part::End {});
    }

    /// Every legal part now.
    pub(super) fn legal_parts(&self) -> Vec<Part> {
        let mut candidates = Vec::new();
        self.candidates(&mut candidates);
        candidates.retain(|part| {
            let mut probe = *self;
            probe.try_apply(*part).is_some()
        });
        candidates
    }
}

fn on_board<R: Report>(square: Square) -> Result<u8, R::Error> {
    match square.index() {
        Some(index) => Ok(index),
        None => R::fail("off_board", || format!("{square} is off the 7 × 7 board (a-g, 1-7)")),
    }
}

#[cfg(test)]
mod tests {
    use crate::krux::test_support::*;
    use crate::krux::*;
    use crate::*;
    use serde_json::json;

    // ---------------------------------------------------------------- rings and turn order

    #[test]
    fn ring_choice_order() {
        // The house start, 1c1 2e7 3b2 4f6 5a3 6g5 / 1, no rings yet:
        //      a b c d e f g
        //   7  . . . . 2 . .
        //   6  . . . . . 4 .
        //   5  . . . . . . 6
        //   4  . . . o . . .
        //   3  5 . . . . . .
        //   2  . 3 . . . . .
        //   1  . . 1 . . . .
        let mut g = Krux::new(&KruxSettings::default());
        let view = g.view();
        assert!(view.turn.must_choose_ring);
        assert_eq!(view.turn.free_rings, Ring::ALL);
        assert_eq!(view.turn.available, ["ring"]);
        assert!(!view.turn.can_end);
        assert_eq!(
            g.legal_moves(0),
            Ring::ALL.map(|ring| KruxMove::Part(Part::Ring { ring })).to_vec()
        );
        // The ring comes first: nothing else, not even a pass.
        assert_eq!(refused(&mut g, json!({"part":"step","to":"c2"})), "choose_ring");
        assert_eq!(refused(&mut g, json!({"part":"end"})), "choose_ring");
        assert_eq!(refused(&mut g, json!({"part":"push","target":"b2"})), "choose_ring");
        assert!(!ok(&mut g, json!({"part":"ring","ring":"green"})).turn_over);
        assert_eq!(refused(&mut g, json!({"part":"ring","ring":"blue"})), "no_ring_due");
        // Its power is usable in the same turn.
        ok(&mut g, json!({"part":"jump","to":"c3"}));
        ok(&mut g, json!({"part":"end"}));
        assert_eq!(g.ring_of(1), Some(Ring::Green));
        // Piece 2 chooses from the two left.
        assert_eq!(g.view().turn.free_rings, [Ring::Blue, Ring::Pink]);
        assert_eq!(refused(&mut g, json!({"part":"ring","ring":"green"})), "ring_taken");
        ok(&mut g, json!({"part":"ring","ring":"pink"}));
        ok(&mut g, json!({"part":"end"}));
        // Piece 3 gets the last one; its choice is forced but still a part.
        assert_eq!(g.legal_moves(0), [KruxMove::Part(Part::Ring { ring: Ring::Blue })]);
        assert_eq!(refused(&mut g, json!({"part":"ring","ring":"pink"})), "ring_taken");
        ok(&mut g, json!({"part":"ring","ring":"blue"}));
        ok(&mut g, json!({"part":"end"}));
        // Pieces 4, 5 and 6 never get one; the rings stay where they are.
        for number in [4, 5, 6] {
            assert_eq!(g.piece_in_turn(), number);
            let view = g.view();
            assert!(!view.turn.must_choose_ring);
            assert!(view.turn.free_rings.is_empty());
            assert_eq!(refused(&mut g, json!({"part":"ring","ring":"blue"})), "no_ring_due");
            ok(&mut g, json!({"part":"end"}));
        }
        assert_eq!(g.piece_in_turn(), 1);
        assert_eq!(refused(&mut g, json!({"part":"ring","ring":"green"})), "no_ring_due");
        assert_eq!(g.position(), "1c3g 2e7p 3b2b 4f6 5a3 6g5 / 1");
    }

    #[test]
    fn turn_order_wraps_from_6_to_1() {
        // The house start with rings 1 blue, 2 green, 3 pink, piece 5 in turn:
        //      a b c d e f g
        //   7  . . . . 2 . .
        //   6  . . . . . 4 .
        //   5  . . . . . . 6
        //   4  . . . o . . .
        //   3  5 . . . . . .
        //   2  . 3 . . . . .
        //   1  . . 1 . . . .
        let mut g = Krux::from_position("1c1b 2e7g 3b2p 4f6 5a3 6g5 / 5").unwrap();
        let mut order = Vec::new();
        for _ in 0..8 {
            let n = g.piece_in_turn();
            order.push(n);
            let seat = Colour::of_piece(n).seat();
            assert_eq!(g.active_seats(), SeatSet::only(seat));
            let other = 1 - seat;
            let err = g.play(other, &KruxMove::Part(Part::End {})).unwrap_err();
            assert_eq!(err.rule, "not_your_turn");
            assert!(g.legal_moves(other).is_empty());
            assert!(g.play(seat, &KruxMove::Part(Part::End {})).unwrap().turn_over);
        }
        assert_eq!(order, [5, 6, 1, 2, 3, 4, 5, 6]);
        assert_eq!(g.turn_number(), 9);
        assert_eq!(g.turns_completed(), 8);
        assert_eq!(
            g.play(7, &KruxMove::Part(Part::End {})).unwrap_err().rule,
            "not_your_turn"
        );
        assert_eq!(g.view().last_turn, [Part::End {}]);
    }

    // ---------------------------------------------------------------- steps and pinning

    #[test]
    fn steps_go_one_square_orthogonally_at_most_three_times() {
        let mut g = game(
            r"
            1 . . . . . 2
            . . . . . . .
            . . . . 6 . .
            . . . o 4 . .
            . . . . . . .
            . . . . . . .
            3 . . . . 5 .
            ",
            "1b 2g 3p",
            4,
        );
        assert_eq!(refused(&mut g, json!({"part":"step","to":"d4"})), "into_hole");
        assert_eq!(refused(&mut g, json!({"part":"step","to":"e5"})), "occupied");
        assert_eq!(refused(&mut g, json!({"part":"step","to":"f5"})), "not_adjacent");
        assert_eq!(refused(&mut g, json!({"part":"step","to":"g4"})), "not_adjacent");
        assert_eq!(refused(&mut g, json!({"part":"step","to":"e9"})), "off_board");
        ok(&mut g, json!({"part":"step","to":"f4"}));
        ok(&mut g, json!({"part":"step","to":"g4"}));
        assert_eq!(refused(&mut g, json!({"part":"step","to":"h4"})), "off_board");
        ok(&mut g, json!({"part":"step","to":"g3"}));
        assert_eq!(g.steps_left(), 0);
        assert_eq!(refused(&mut g, json!({"part":"step","to":"g2"})), "no_steps_left");
        // Only the pull of piece 2 (g7, to g5) would move anything now.
        assert_eq!(g.view().turn.available, ["pull", "end"]);
        assert_eq!(
            g.position(),
            "1a7b 2g7g 3a1p 4e4 5f1 6e5 / 4",
            "the position is the turn's start"
        );
        ok(&mut g, json!({"part":"end"}));
        assert_eq!(g.position(), "1a7b 2g7g 3a1p 4g3 5f1 6e5 / 5");
    }

    #[test]
    fn pinning_mid_turn() {
        let mut g = game(
            r"
            1 . . . . . 2
            . . . . . . .
            . . . . . . .
            . . . o . . .
            . . . 5 . . .
            . . . . . 4 .
            3 . . . . . 6
            ",
            "1b 2g 3p",
            4,
        );
        assert!(!g.view().turn.pinned);
        // f2-e2 passes d3 diagonally: no pin. e2-e3 lands next to white 5 on d3.
        ok(&mut g, json!({"part":"step","to":"e2"}));
        ok(&mut g, json!({"part":"step","to":"e3"}));
        assert!(g.view().turn.pinned);
        assert_eq!(refused(&mut g, json!({"part":"step","to":"e4"})), "pinned");
        assert_eq!(refused(&mut g, json!({"part":"step","to":"f3"})), "pinned");
        assert!(!g.view().turn.available.contains(&"step"));
        // Actions are always allowed: push 5 away (d3 → b3), and the pin is gone.
        ok(&mut g, json!({"part":"push","target":"d3"}));
        assert!(!g.view().turn.pinned);
        ok(&mut g, json!({"part":"step","to":"e4"}));
        assert_eq!(board(&g), "1.....2/......./......./...o4../.5...../......./3.....6");
    }

    #[test]
    fn pinned_from_the_start_by_an_opponent_but_never_by_an_own_piece() {
        let mut g = game(
            r"
            1 . . . . . 2
            . . . . . . .
            . . . . . . .
            . . . o . . .
            . . . . 5 . .
            . . . . 4 6 .
            3 . . . . . .
            ",
            "1b 2g 3p",
            4,
        );
        assert!(g.view().turn.pinned);
        assert_eq!(refused(&mut g, json!({"part":"step","to":"d2"})), "pinned");
        // Pull 5 (e3, adjacent) moves nothing; push moves it to e5 (passing nothing).
        assert_eq!(refused(&mut g, json!({"part":"pull","target":"e3"})), "no_effect");
        ok(&mut g, json!({"part":"push","target":"e3"}));
        // Own piece 6 on f2 is adjacent but does not pin.
        assert!(!g.view().turn.pinned);
        ok(&mut g, json!({"part":"step","to":"e3"}));
        ok(&mut g, json!({"part":"step","to":"f3"}));
        assert_eq!(board(&g), "1.....2/......./....5../...o.../.....4./.....6./3......");
    }

    // ---------------------------------------------------------------- push and pull

    #[test]
    fn push_stopped_by_the_edge_and_by_a_piece() {
        let mut g = game(
            r"
            1 . . . . . 2
            . . . . . . .
            . 4 . . . 5 .
            . . . o . . .
            . 3 . . . . .
            . . . . . . .
            . 6 . . . . .
            ",
            "1b 2g 3p",
            4,
        );
        // f5 can only go one square before the edge.
        ok(&mut g, json!({"part":"push","target":"f5"}));
        // At the edge a push moves nothing, and costs nothing.
        assert_eq!(refused(&mut g, json!({"part":"push","target":"g5"})), "no_effect");
        assert_eq!(g.actions_left(), 1);
        // b3 goes one square and stops against piece 6 on b1.
        ok(&mut g, json!({"part":"push","target":"b3"}));
        assert_eq!(board(&g), "1.....2/......./.4....5/...o.../......./.3...../.6.....");
        assert_eq!(g.actions_left(), 0);
        assert_eq!(refused(&mut g, json!({"part":"pull","target":"b2"})), "no_actions_left");
    }

    #[test]
    fn push_and_pull_need_a_clear_line_to_another_piece() {
        let mut g = game(
            r"
            1 . . . . . 2
            . . . . . . .
            . 4 . 6 . 5 .
            . . . o . . .
            . 3 . . . . .
            . . . . . . .
            . . . . . . .
            ",
            "1b 2g 3p",
            4,
        );
        assert_eq!(refused(&mut g, json!({"part":"push","target":"f5"})), "blocked");
        assert_eq!(refused(&mut g, json!({"part":"pull","target":"f5"})), "blocked");
        assert_eq!(refused(&mut g, json!({"part":"push","target":"a7"})), "not_in_line");
        assert_eq!(refused(&mut g, json!({"part":"push","target":"c5"})), "no_piece");
        assert_eq!(refused(&mut g, json!({"part":"pull","target":"d4"})), "no_piece");
        assert_eq!(refused(&mut g, json!({"part":"push","target":"b5"})), "self_target");
        assert_eq!(refused(&mut g, json!({"part":"push","target":"b8"})), "off_board");
        // Own pieces are pushed and pulled like any other.
        ok(&mut g, json!({"part":"pull","target":"d5"}));
        ok(&mut g, json!({"part":"pull","target":"b3"}));
        assert_eq!(board(&g), "1.....2/......./.46..5./.3.o.../......./......./.......");
    }

    #[test]
    fn push_over_the_hole() {
        let mut g = game(
            r"
            1 . . . . . 2
            . . . . . . .
            . . . . . . .
            . . . o . . .
            . . . 5 . . .
            . . . 4 . . .
            3 . . . . . 6
            ",
            "1b 2g 3p",
            4,
        );
        // d3 → d4 (the hole) → d5: it passes over and lands beyond.
        ok(&mut g, json!({"part":"push","target":"d3"}));
        assert_eq!(g.outcome(), None);
        assert_eq!(board(&g), "1.....2/......./...5.../...o.../......./...4.../3.....6");
    }

    #[test]
    fn push_that_ends_exactly_on_the_hole_wins() {
        // Two squares with the hole as the second: d2 → d3 → d4.
        let diagram = r"
            1 . . . . . 2
            . . . . . . .
            . . . . . . .
            . . . o . . .
            . . . . . . .
            . . . 5 . . .
            3 . . 4 . . 6
            ";
        let mut g = game(diagram, "1b 2g 3p", 4);
        let played = ok(&mut g, json!({"part":"push","target":"d2"}));
        assert!(played.turn_over);
        won_by(&g, 1, 5);
        assert_eq!(board(&g), "1.....2/......./......./...o.../......./......./3..4..6");
        assert_eq!(g.view().turn.parts, [Part::Push { target: sq("d2") }]);
        assert_eq!(refused_after_end(&mut g), "game_over");

        // Stopped right after entering the hole: d3 → d4, and d5 holds a piece.
        let mut g = game(
            r"
            1 . . . . . 2
            . . . . . . .
            . . . 6 . . .
            . . . o . . .
            . . . 3 . . .
            . . . 4 . . .
            . . . . . 5 .
            ",
            "1b 2g 3p",
            4,
        );
        ok(&mut g, json!({"part":"push","target":"d3"}));
        won_by(&g, 1, 3);
    }

    #[test]
    fn pushing_or_pulling_ones_own_piece_into_the_hole_is_refused() {
        let mut g = game(
            r"
            1 . . . . . .
            . . . . . . .
            . . . . . . .
            . 2 . o . 4 .
            . . . . . . .
            . . . 6 . . .
            3 . . . . . 5
            ",
            "1b 2g 3p",
            4,
        );
        // Pulling own piece 2 from b4 (four away): b4 → c4 → d4, on the hole.
        assert_eq!(
            refused(&mut g, json!({"part":"pull","target":"b4"})),
            "own_piece_into_hole"
        );
        assert_eq!(g.actions_left(), 2);
        assert_eq!(g.outcome(), None);

        let mut g = game(
            r"
            1 . . . . . 2
            . . . . . . .
            . . . . . . .
            . . . o . . .
            . . . . . . .
            . . . 6 . . .
            3 . . 4 . . 5
            ",
            "1b 2g 3p",
            4,
        );
        // d2 → d3 → d4: two squares, the hole second.
        assert_eq!(
            refused(&mut g, json!({"part":"push","target":"d2"})),
            "own_piece_into_hole"
        );
        assert_eq!(g.actions_left(), 2);
    }

    #[test]
    fn pull_stops_adjacent_and_moves_at_most_two() {
        let mut g = game(
            r"
            1 . . . . . 2
            . . . . . . .
            . . . . . . .
            . . . o . . 6
            5 . . . . . .
            . . . . . . .
            4 . . . . . 3
            ",
            "1b 2g 3p",
            4,
        );
        // a3 is two away: it moves one square and stops next to the puller.
        ok(&mut g, json!({"part":"pull","target":"a3"}));
        assert_eq!(g.square_of(5), Some(sq("a2")));
        assert_eq!(refused(&mut g, json!({"part":"pull","target":"a2"})), "no_effect");
        // g1 is six away: it moves two squares.
        ok(&mut g, json!({"part":"pull","target":"g1"}));
        assert_eq!(board(&g), "1.....2/......./......./...o..6/......./5....../4...3..");
    }

    #[test]
    fn pull_into_and_over_the_hole() {
        let diagram = r"
            1 . . . . . 2
            . . . 5 . . .
            . . . . . . .
            . . . o . . .
            . . . . . . .
            . . . . . . .
            3 . . 4 . . 6
            ";
        // From d1, d6 is five away: it moves two, d6 → d5 → d4, and ends on the hole.
        let mut g = game(diagram, "1b 2g 3p", 4);
        ok(&mut g, json!({"part":"pull","target":"d6"}));
        won_by(&g, 1, 5);
        // From d2 (a step first), d6 is four away: same two squares, same end.
        let mut g = game(diagram, "1b 2g 3p", 4);
        ok(&mut g, json!({"part":"step","to":"d2"}));
        ok(&mut g, json!({"part":"pull","target":"d6"}));
        won_by(&g, 1, 5);
        // From d3 it is three away: two squares, d6 → d5 → d4 ... and d4 is next to d3.
        let mut g = game(diagram, "1b 2g 3p", 4);
        ok(&mut g, json!({"part":"step","to":"d2"}));
        ok(&mut g, json!({"part":"step","to":"d3"}));
        ok(&mut g, json!({"part":"pull","target":"d6"}));
        won_by(&g, 1, 5);
        // A push to d7 first (stopped by the edge after one square), then from d2 the pull
        // of d7 (distance 5) moves it two squares, to d5: nothing falls.
        let mut g = game(diagram, "1b 2g 3p", 4);
        ok(&mut g, json!({"part":"step","to":"d2"}));
        ok(&mut g, json!({"part":"push","target":"d6"}));
        assert_eq!(g.square_of(5), Some(sq("d7")));
        ok(&mut g, json!({"part":"pull","target":"d7"}));
        assert_eq!(g.square_of(5), Some(sq("d5")));
        assert_eq!(g.outcome(), None);
    }

    #[test]
    fn pulled_over_the_hole_survives() {
        let mut g = game(
            r"
            1 . . . . . 2
            . . . . . . .
            . . . 5 . . .
            . . . o . . .
            . . . . . . .
            . . . . . . .
            3 . . 4 . . 6
            ",
            "1b 2g 3p",
            4,
        );
        // d5 is four away: two squares, d5 → d4 → d3.
        ok(&mut g, json!({"part":"pull","target":"d5"}));
        assert_eq!(g.outcome(), None);
        assert_eq!(g.square_of(5), Some(sq("d3")));
        // And from d1 the pull of d3 (two away) moves it to d2.
        ok(&mut g, json!({"part":"pull","target":"d3"}));
        assert_eq!(g.square_of(5), Some(sq("d2")));
    }

    // ---------------------------------------------------------------- rings' powers

    #[test]
    fn carrier_picks_up_an_opponent_steps_and_drops_it_into_the_hole() {
        let mut g = game(
            r"
            5 . . . . . 2
            . . . . . . .
            . . . . . . .
            . . . o . . .
            . . 4 . . . .
            . . 1 . . . .
            3 . . . . . 6
            ",
            "1b 2g 3p",
            1,
        );
        // Piece 1 is pinned by 4 on c3, and carries nothing yet.
        assert_eq!(refused(&mut g, json!({"part":"step","to":"b2"})), "pinned");
        assert_eq!(refused(&mut g, json!({"part":"set_down","to":"b2"})), "not_carrying");
        assert_eq!(refused(&mut g, json!({"part":"pick_up","target":"a1"})), "not_adjacent");
        ok(&mut g, json!({"part":"pick_up","target":"c3"}));
        let view = g.view();
        assert_eq!(view.pieces[3].square, "carried");
        assert_eq!(view.turn.carrying, Some(4));
        assert_eq!(view.turn.actions_left, 1);
        assert!(!view.turn.pinned, "a carried piece is off the board and pins nobody");
        assert_eq!(view.turn.available, ["step", "set_down"]);
        assert!(!view.turn.can_end);
        assert_eq!(board(&g), "5.....2/......./......./...o.../......./..1..../3.....6");
        assert_eq!(refused(&mut g, json!({"part":"end"})), "must_set_down");
        ok(&mut g, json!({"part":"step","to":"c3"}));
        ok(&mut g, json!({"part":"step","to":"d3"}));
        let played = ok(&mut g, json!({"part":"set_down","to":"d4"}));
        assert!(played.turn_over);
        won_by(&g, 0, 4);
        assert_eq!(board(&g), "5.....2/......./......./...o.../...1.../......./3.....6");
    }

    #[test]
    fn carrier_does_nothing_else_while_carrying() {
        let mut g = game(
            r"
            . . . . . . 2
            . . . . . . .
            . . . . . . .
            . . . o . . .
            . . 3 . 4 . .
            . 5 1 . . . 6
            . . . . . . .
            ",
            "1b 2g 3p",
            1,
        );
        ok(&mut g, json!({"part":"pick_up","target":"c3"}));
        assert_eq!(refused(&mut g, json!({"part":"push","target":"g2"})), "carrying");
        assert_eq!(refused(&mut g, json!({"part":"pull","target":"g2"})), "carrying");
        assert_eq!(refused(&mut g, json!({"part":"pick_up","target":"b2"})), "carrying");
        assert_eq!(refused(&mut g, json!({"part":"jump","to":"c5"})), "carrying");
        assert_eq!(refused(&mut g, json!({"part":"end"})), "must_set_down");
        assert_eq!(refused(&mut g, json!({"part":"set_down","to":"c4"})), "not_adjacent");
        assert_eq!(refused(&mut g, json!({"part":"set_down","to":"b2"})), "occupied");
        assert_eq!(refused(&mut g, json!({"part":"set_down","to":"c8"})), "off_board");
        // Setting it back where it was is allowed (and uses the action): the pick-up moved it.
        ok(&mut g, json!({"part":"set_down","to":"c3"}));
        assert_eq!(g.actions_left(), 1);
        // The second action carries own piece 3 again, to the hole's side.
        ok(&mut g, json!({"part":"pick_up","target":"c3"}));
        ok(&mut g, json!({"part":"step","to":"d2"}));
        ok(&mut g, json!({"part":"step","to":"d3"}));
        // On d3 the carrier is next to black 4 on e3: pinned, even while carrying.
        assert_eq!(refused(&mut g, json!({"part":"step","to":"c3"})), "pinned");
        assert_eq!(
            refused(&mut g, json!({"part":"set_down","to":"d4"})),
            "own_piece_into_hole"
        );
        ok(&mut g, json!({"part":"set_down","to":"d2"}));
        assert_eq!(board(&g), "......2/......./......./...o.../...14../.5.3..6/.......");
        assert_eq!((g.steps_left(), g.actions_left()), (1, 0));
        assert!(ok(&mut g, json!({"part":"end"})).turn_over);
    }

    #[test]
    fn ring_powers_need_their_ring() {
        let mut g = game(
            r"
            1 . . . . . 2
            . . . . . . .
            . . . . . . .
            . . . o . . .
            . . . . . . .
            . . . 5 4 . .
            3 . . . . . 6
            ",
            "1b 2g 3p",
            4,
        );
        assert_eq!(refused(&mut g, json!({"part":"pick_up","target":"d2"})), "wrong_ring");
        assert_eq!(refused(&mut g, json!({"part":"jump","to":"e3"})), "wrong_ring");
        assert_eq!(refused(&mut g, json!({"part":"swap","target":"d2"})), "wrong_ring");
        assert_eq!(refused(&mut g, json!({"part":"set_down","to":"e3"})), "not_carrying");
        let mut g = Krux::from_position("1c1b 2e7g 3b2p 4f6 5a3 6g5 / 1").unwrap();
        assert_eq!(refused(&mut g, json!({"part":"jump","to":"c2"})), "wrong_ring");
        assert_eq!(refused(&mut g, json!({"part":"swap","target":"b2"})), "wrong_ring");
    }

    #[test]
    fn jumper_landing_next_to_several_pieces() {
        let mut g = game(
            r"
            . . . . . . .
            . . 1 . 2 . .
            . 3 . 4 5 . .
            . . 6 o . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            ",
            "1b 2g 3p",
            2,
        );
        assert_eq!(refused(&mut g, json!({"part":"jump","to":"a6"})), "too_far");
        assert_eq!(refused(&mut g, json!({"part":"jump","to":"d4"})), "into_hole");
        assert_eq!(refused(&mut g, json!({"part":"jump","to":"e5"})), "occupied");
        assert_eq!(refused(&mut g, json!({"part":"jump","to":"e8"})), "off_board");
        // Over d5/d6 to c5: c6 → c7, b5 → a5, c4 → c3; d5 cannot go to e5 (piece 5) and stays.
        ok(&mut g, json!({"part":"jump","to":"c5"}));
        assert_eq!(board(&g), "..1..../......./3.245../...o.../..6..../......./.......");
        assert_eq!(g.actions_left(), 1);
        assert_eq!(g.steps_left(), 3, "a jump is an action, not a step");
    }

    #[test]
    fn jumper_landing_on_its_own_square() {
        let mut g = game(
            r"
            1 2 3 . . . .
            . 4 . . . . .
            . . . . . . .
            . . . o . . .
            . . . . . . .
            . . . . . . .
            . . . . . 5 6
            ",
            "1b 2g 3p",
            2,
        );
        // a7 cannot leave the board and stays; c7 → d7; b6 → b5.
        ok(&mut g, json!({"part":"jump","to":"b7"}));
        assert_eq!(board(&g), "12.3.../......./.4...../...o.../......./......./.....56");
        // Again: only a7 is next to it, and it cannot move, so the jump would move nothing.
        assert_eq!(refused(&mut g, json!({"part":"jump","to":"b7"})), "no_effect");
        assert_eq!(g.actions_left(), 1);
    }

    #[test]
    fn jumper_shoves_into_the_hole_and_into_the_square_it_left() {
        let diagram = |piece: char| {
            format!(
                "
                . . . 2 . . .
                . . . . . . .
                . . 3 {piece} . . .
                . . . o . . .
                . . . . . . .
                . . 6 . . . .
                1 . . . . . {}
                ",
                if piece == '5' { '4' } else { '5' }
            )
        };
        // White 5 on d5: the shove from d6 sends it into the hole, and black wins.
        let mut g = game(&diagram('5'), "1b 2g 3p", 2);
        let played = ok(&mut g, json!({"part":"jump","to":"d6"}));
        assert!(played.turn_over);
        won_by(&g, 1, 5);
        // Black 4 on d5 instead: the same jump is refused.
        let mut g = game(&diagram('4'), "1b 2g 3p", 2);
        assert_eq!(refused(&mut g, json!({"part":"jump","to":"d6"})), "own_piece_into_hole");
        // Two steps to c6, then a jump to c4: 3 on c5 is shoved north, onto c6, the square
        // the jumper just left.
        ok(&mut g, json!({"part":"step","to":"c7"}));
        ok(&mut g, json!({"part":"step","to":"c6"}));
        ok(&mut g, json!({"part":"jump","to":"c4"}));
        assert_eq!(board(&g), "......./..3..../...4.../..2o.../......./..6..../1.....5");
    }

    #[test]
    fn swapper_at_distance_5_but_not_6() {
        let mut g = game(
            r"
            1 . . . . . 2
            . . . . . . .
            . . . . . . .
            . . 6 o . . .
            . . . . . . .
            . . . . . 4 .
            3 . . . 5 . .
            ",
            "1b 2g 3p",
            3,
        );
        assert_eq!(refused(&mut g, json!({"part":"swap","target":"f2"})), "too_far");
        assert_eq!(refused(&mut g, json!({"part":"swap","target":"a7"})), "too_far");
        assert_eq!(refused(&mut g, json!({"part":"swap","target":"d4"})), "no_piece");
        assert_eq!(refused(&mut g, json!({"part":"swap","target":"a1"})), "self_target");
        // c4 is 2 + 3 = 5 away, whatever lies between.
        ok(&mut g, json!({"part":"swap","target":"c4"}));
        // Own pieces too: from c4, e1 is 2 + 3 = 5 away.
        ok(&mut g, json!({"part":"swap","target":"e1"}));
        assert_eq!(board(&g), "1.....2/......./......./..5o.../......./.....4./6...3..");
        assert_eq!(refused(&mut g, json!({"part":"swap","target":"f2"})), "no_actions_left");
    }

    #[test]
    fn turn_ends_by_itself_after_three_steps_and_two_actions() {
        let mut g = game(
            r"
            . . 1 . . . 2
            . . . . . . .
            . . . . . . .
            . . . o . . .
            . . . . . . .
            . . . . . 5 .
            3 . 4 . . . 6
            ",
            "1b 2g 3p",
            4,
        );
        assert!(!ok(&mut g, json!({"part":"step","to":"c2"})).turn_over);
        assert!(!ok(&mut g, json!({"part":"pull","target":"c7"})).turn_over);
        assert!(!ok(&mut g, json!({"part":"step","to":"d2"})).turn_over);
        assert!(!ok(&mut g, json!({"part":"push","target":"f2"})).turn_over);
        assert_eq!(g.piece_in_turn(), 4);
        assert!(ok(&mut g, json!({"part":"step","to":"e2"})).turn_over);
        assert_eq!(g.piece_in_turn(), 5);
        assert_eq!(g.position(), "1c5b 2g7g 3a1p 4e2 5g2 6g1 / 5");
        assert_eq!(g.view().last_turn.len(), 5);

        // A carrier's set-down can be the part that ends the turn.
        let mut g = Krux::from_position("1c1b 2e7g 3b2p 4f6 5a3 6g5 / 1").unwrap();
        for p in [
            json!({"part":"step","to":"c2"}),
            json!({"part":"step","to":"c3"}),
            json!({"part":"step","to":"b3"}),
            json!({"part":"push","target":"b2"}),
            json!({"part":"pick_up","target":"a3"}),
        ] {
            assert!(!ok(&mut g, p).turn_over);
        }
        assert_eq!((g.steps_left(), g.actions_left(), g.carrying()), (0, 0, Some(5)));
        assert!(ok(&mut g, json!({"part":"set_down","to":"b4"})).turn_over);
        assert_eq!(g.position(), "1b3b 2e7g 3b1p 4f6 5b4 6g5 / 2");
    }
}
