//! Partner awareness (Hard): what a captured piece is worth on the other board.
//!
//! A piece captured on the bot's board goes, colour kept, to the capturer's partner on the
//! other board. So a piece of ours the opponent takes lands in the hand of our partner's
//! opponent, and a piece we take lands in our partner's hand. The cheap filter here asks,
//! for every kind of piece, whether one more of it in that hand would give a mate in one
//! by a drop on the other board now ([`drop_mates`]); such a piece is valued far above its
//! material in the search's [`Travel`] table, so the search avoids giving it away and
//! likes to win it for the partner. The other board plays on while we think; the table
//! re-checks answers, so a filter on the present position is enough.

use shakmaty::{ByColor, ByRole, Color, Move, Position, Role, attacks};

use super::eval::{Eval, Knowledge, evaluate, hand_value};
use super::node::{HAND_ROLES, Node, Travel};
use super::tactics;
use spelbord_games::Seat;
use spelbord_games::bughouse::{Bughouse, board_of, colour_of};

/// A piece that would let our partner's opponent mate at once.
const DANGER: i32 = 1_500;

/// A piece that would let our partner mate at once.
const FEED: i32 = 1_000;

/// A travel table valuing every captured piece at `pct` percent of its value in hand.
pub fn flat(pct: i32) -> Travel {
    ByColor::new_with(|_| ByRole::new_with(|role| hand_value(role) * pct / 100))
}

/// Whether `side` on `board` of `game`, given one more `role` in hand (and the move, if
/// it is the other side's turn), mates at once by dropping it.
pub fn drop_mates(game: &Bughouse, board: usize, side: Color, role: Role) -> bool {
    let pos = game.position(board);
    if pos.pockets().is_some_and(|pockets| pockets[side][role] > 0) {
        // It holds one already: one more changes nothing this filter can see.
        return false;
    }
    let Some(node) = Node::with_side_and_extra(pos, side, role) else {
        return false;
    };
    let node = node.with_rules(*game.house_rules());
    let king = node.their_king();
    let none = flat(0);
    node.legal_moves()
        .into_iter()
        .filter(|m| matches!(m, Move::Put { role: r, .. } if *r == role))
        .filter(|m| attacks::attacks(m.to(), role.of(side), node.board().occupied()).contains(king))
        .any(|m| node.play(m, &none).is_bughouse_mate())
}

/// The travel table for `seat`'s search: `pct` percent of the hand value, and the
/// [`DANGER`] and [`FEED`] values where one piece decides the other board.
pub fn travel(game: &Bughouse, seat: Seat, pct: i32) -> Travel {
    let other = 1 - board_of(seat);
    let us = colour_of(seat);
    let mut table = flat(pct);
    for role in HAND_ROLES {
        // Our piece, taken by our opponent, goes to our partner's opponent (our colour
        // on the other board).
        if drop_mates(game, other, us, role) {
            table[us][role] = DANGER;
        }
        // Their piece, taken by us, goes to our partner (their colour there).
        if drop_mates(game, other, !us, role) {
            table[!us][role] = FEED;
        }
    }
    table
}

/// Whether the partner of `seat` gives the team no hope on the other board: it is not
/// ahead there by the full static evaluation and, if it is to move, has no mate in one.
/// A position the search cannot represent is hope (nothing is concluded from it).
pub fn hopeless(game: &Bughouse, seat: Seat) -> bool {
    let other = 1 - board_of(seat);
    // Partners play opposite colours.
    let partner = !colour_of(seat);
    let Some(node) = Node::from_position(game.position(other)) else {
        return false;
    };
    let node = node.with_rules(*game.house_rules());
    if node.turn() == partner && tactics::mate_in_one(&node, &flat(0)).is_some() {
        return false;
    }
    let eval = Eval {
        knowledge: Knowledge::Full,
        safety_pct: 100,
    };
    let for_mover = evaluate(&node, &eval);
    let for_partner = if node.turn() == partner { for_mover } else { -for_mover };
    for_partner <= 0
}
