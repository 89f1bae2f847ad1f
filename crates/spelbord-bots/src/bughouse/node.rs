//! The search's position: one bughouse board as the bot sees it while it thinks.
//!
//! A [`Node`] is shakmaty's standard-chess position plus the two pockets of the board,
//! the promoted-piece squares and a Zobrist hash. Board moves come from shakmaty's
//! `Chess`; drops are generated here (the same squares crazyhouse allows). Inside the
//! search a captured piece **leaves the board**: in bughouse it travels to the other
//! board, so the pockets here change only by drops (the rules' perft counts the same
//! way). What the captured piece is worth to the capturer's partner is the search's
//! business ([`Travel`]), added up in [`Node::sent`].

use shakmaty::variant::Crazyhouse;
use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{
    Bitboard, Board, ByColor, ByRole, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, MoveList, Piece,
    Position, PositionError, Rank, Role, Setup, Square, attacks,
};
use spelbord_games::bughouse::{CapturedPromoted, DropChecks, HouseRules};

/// A board's two pockets: pieces in hand per colour and role.
pub type Pockets = ByColor<ByRole<u8>>;

/// The roles a pocket may hold, cheapest first.
pub const HAND_ROLES: [Role; 5] = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen];

/// What a captured piece is worth to the capturer's team on the other board, per colour
/// and role of the captured piece (as it travels: a promoted piece as a pawn).
pub type Travel = ByColor<ByRole<i32>>;

/// One board during the search.
#[derive(Clone, Debug)]
pub struct Node {
    /// The pieces, side to move, castling rights and en passant square.
    chess: Chess,
    /// Pieces in hand; only drops change them during a search.
    pockets: Pockets,
    /// Squares of promoted pieces (they travel as pawns when captured).
    promoted: Bitboard,
    /// Zobrist hash of the board, side to move, castling, en passant and pockets.
    hash: u64,
    /// White's gain minus black's from the captures made since the root, as valued by
    /// the [`Travel`] table the moves were played with.
    sent: i32,
    /// The table's drop rules: drops they refuse are no moves here either.
    rules: HouseRules,
}

impl Node {
    /// The node of a rules position, as it stands.
    pub fn from_position(pos: &Crazyhouse) -> Option<Node> {
        Node::from_setup(pos.to_setup(EnPassantMode::Legal), pos.castles().mode())
    }

    /// The node of a rules position with `side` to move and `extra` added to `side`'s
    /// pocket; `None` when that position is impossible (the other side in check).
    pub fn with_side_and_extra(pos: &Crazyhouse, side: Color, extra: Role) -> Option<Node> {
        let mut setup = pos.to_setup(EnPassantMode::Legal);
        if setup.turn != side {
            setup.turn = side;
            setup.ep_square = None;
        }
        let mut pockets = setup.pockets.unwrap_or_default();
        pockets[side][extra] = pockets[side][extra].saturating_add(1);
        setup.pockets = Some(pockets);
        Node::from_setup(setup, pos.castles().mode())
    }

    /// The node of `setup`, castling as `mode` says (Bughouse 960: Chess960's).
    fn from_setup(setup: Setup, mode: CastlingMode) -> Option<Node> {
        let pockets = setup.pockets.unwrap_or_default();
        let promoted = setup.promoted;
        let chess = Chess::from_setup(setup, mode)
            .or_else(PositionError::ignore_too_much_material)
            .or_else(PositionError::ignore_impossible_check)
            .ok()?;
        let checked_side_not_to_move = chess.board().king_of(!chess.turn()).is_none_or(|king| {
            chess
                .board()
                .attacks_to(king, chess.turn(), chess.board().occupied())
                .any()
        });
        if checked_side_not_to_move || chess.board().king_of(chess.turn()).is_none() {
            return None;
        }
        let hash = hash_of(&chess, &pockets);
        Some(Node {
            chess,
            pockets,
            promoted,
            hash,
            sent: 0,
            rules: HouseRules::default(),
        })
    }

    /// The node under a table's house rules (the rule page's by default).
    pub fn with_rules(mut self, rules: HouseRules) -> Node {
        self.rules = rules;
        self
    }

    pub fn board(&self) -> &Board {
        self.chess.board()
    }

    pub fn turn(&self) -> Color {
        self.chess.turn()
    }

    pub fn pockets(&self) -> &Pockets {
        &self.pockets
    }

    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// White's gain minus black's from the captures since the root ([`Travel`]).
    pub fn sent(&self) -> i32 {
        self.sent
    }

    pub fn checkers(&self) -> Bitboard {
        self.chess.checkers()
    }

    pub fn is_check(&self) -> bool {
        self.chess.is_check()
    }

    /// The king of the side to move. Every node has both kings (checked on creation).
    pub fn our_king(&self) -> Square {
        self.board().king_of(self.turn()).unwrap_or(Square::A1)
    }

    /// The king of the side not to move.
    pub fn their_king(&self) -> Square {
        self.board().king_of(!self.turn()).unwrap_or(Square::A1)
    }

    /// Every legal move and drop of the side to move.
    pub fn legal_moves(&self) -> MoveList {
        let mut moves = self.chess.legal_moves();
        let pocket = self.pockets[self.turn()];
        if HAND_ROLES.iter().all(|&role| pocket[role] == 0) {
            return moves;
        }
        let targets = self.drop_squares();
        for role in HAND_ROLES.into_iter().rev() {
            if pocket[role] == 0 {
                continue;
            }
            let squares = if role == Role::Pawn {
                let seventh = Bitboard::from_rank(self.turn().fold_wb(Rank::Seventh, Rank::Second));
                let refused = if self.rules.pawn_drops_on_seventh {
                    Bitboard::EMPTY
                } else {
                    seventh
                };
                targets & !Bitboard::BACKRANKS & !refused
            } else {
                targets
            };
            for to in squares {
                if self.rules.drop_checks != DropChecks::Allowed && self.refuses_checking_drop(role, to) {
                    continue;
                }
                // A move list holds more than any board's moves and drops together; a
                // full list would only lose the last drops.
                let _ = moves.try_push(Move::Put { role, to });
            }
        }
        moves
    }

    /// Whether the house rules refuse dropping `role` on `to` for the check or mate it
    /// gives (as the rules crate judges it: the mated side's replies under the other rules,
    /// every checking drop allowed to it).
    fn refuses_checking_drop(&self, role: Role, to: Square) -> bool {
        let us = self.turn();
        let occupied = self.board().occupied().with(to);
        if !attacks::attacks(to, role.of(us), occupied).contains(self.their_king()) {
            return false;
        }
        match self.rules.drop_checks {
            DropChecks::Allowed => false,
            DropChecks::Never => true,
            DropChecks::NoMate => {
                let replies = HouseRules {
                    drop_checks: DropChecks::Allowed,
                    ..self.rules
                };
                let mut probe = self.clone().with_rules(replies);
                probe.sent = 0;
                let none = Travel::default();
                probe.play(Move::Put { role, to }, &none).is_bughouse_mate()
            }
        }
    }

    /// The squares a drop may go to: any empty square, only the blocking squares in a
    /// single line check, none in a double check.
    fn drop_squares(&self) -> Bitboard {
        let checkers = self.checkers();
        if checkers.is_empty() {
            !self.board().occupied()
        } else if let Some(checker) = checkers.single_square() {
            attacks::between(checker, self.our_king())
        } else {
            Bitboard::EMPTY
        }
    }

    /// Whether the side to move, having no legal move or drop, is mated by the bughouse
    /// rule: in check, and the check could not be blocked by any drop (a double check, or
    /// a single check with no square between checker and king). A blockable check is not
    /// mate: the player waits for a piece.
    pub fn stuck_is_mate(&self) -> bool {
        let checkers = self.checkers();
        match checkers.single_square() {
            Some(checker) => attacks::between(checker, self.our_king()).is_empty(),
            None => checkers.any(),
        }
    }

    /// Whether the side to move is mated by the bughouse rule (the full test).
    pub fn is_bughouse_mate(&self) -> bool {
        // The blockable-check test first: it is cheap and settles most checks.
        self.is_check() && self.stuck_is_mate() && self.legal_moves().is_empty()
    }

    /// The role a captured piece travels as when `m` is played (a promoted piece as a pawn).
    pub fn travelling_capture(&self, m: Move) -> Option<Role> {
        match m {
            Move::Normal {
                capture: Some(capture),
                to,
                ..
            } => Some(
                if self.promoted.contains(to) && self.rules.captured_promoted == CapturedPromoted::Pawn {
                    Role::Pawn
                } else {
                    capture
                },
            ),
            Move::EnPassant { .. } => Some(Role::Pawn),
            _ => None,
        }
    }

    /// The node after the legal move `m`; a captured piece leaves the board and is
    /// credited to the capturer's team at its `travel` value.
    pub fn play(&self, m: Move, travel: &Travel) -> Node {
        let mover = self.turn();
        let mut next = self.clone();
        if let Some(role) = self.travelling_capture(m) {
            let value = travel[!mover][role];
            next.sent += mover.fold_wb(value, -value);
        }
        match m {
            Move::Normal {
                from, to, promotion, ..
            } => {
                let promoted = next.promoted.contains(from) || promotion.is_some();
                next.promoted.discard(from);
                next.promoted.set(to, promoted);
            }
            Move::Put { role, .. } => {
                let count = &mut next.pockets[mover][role];
                *count = count.saturating_sub(1);
            }
            Move::EnPassant { .. } | Move::Castle { .. } => {}
        }
        next.chess.play_unchecked(m);
        next.hash = self
            .updated_hash(m)
            .unwrap_or_else(|| hash_of(&next.chess, &next.pockets));
        next
    }

    /// The hash after `m`, updated from this one for the common moves (piece moves that
    /// touch no castling right and make no en passant square, and drops), `None` for the
    /// others (computed from scratch then).
    fn updated_hash(&self, m: Move) -> Option<u64> {
        if self.chess.maybe_ep_square().is_some() {
            return None;
        }
        match m {
            Move::Put { role, to } => {
                let us = self.turn();
                let count = self.pockets[us][role];
                let mut hash = Zobrist64(self.hash);
                hash ^= Zobrist64::zobrist_for_white_turn();
                hash ^= Zobrist64::zobrist_for_piece(to, role.of(us));
                hash ^= Zobrist64::zobrist_for_pocket(us, role, count);
                hash ^= Zobrist64::zobrist_for_pocket(us, role, count.saturating_sub(1));
                Some(hash.0)
            }
            Move::Normal { .. } => self
                .chess
                .update_zobrist_hash(Zobrist64(self.hash), m, EnPassantMode::Legal)
                .map(|hash| hash.0),
            Move::EnPassant { .. } | Move::Castle { .. } => None,
        }
    }

    /// The node with the turn passed (a null move), or `None` when in check.
    pub fn pass(&self) -> Option<Node> {
        if self.is_check() {
            return None;
        }
        let mut setup = self.chess.to_setup(EnPassantMode::Legal);
        setup.swap_turn();
        setup.ep_square = None;
        let chess = Chess::from_setup(setup, self.chess.castles().mode())
            .or_else(PositionError::ignore_too_much_material)
            .or_else(PositionError::ignore_impossible_check)
            .ok()?;
        let hash = hash_of(&chess, &self.pockets);
        Some(Node {
            chess,
            hash,
            ..self.clone()
        })
    }

    /// Whether `m` attacks the enemy king from its target square (drops and piece moves;
    /// discovered checks are not seen). Cheap: for ordering and quiescence.
    pub fn gives_direct_check(&self, m: Move) -> bool {
        let us = self.turn();
        let king = self.their_king();
        let occupied = self.board().occupied();
        match m {
            Move::Put { role, to } => attacks::attacks(to, role.of(us), occupied | Bitboard::from(to)).contains(king),
            Move::Normal {
                role,
                from,
                to,
                promotion,
                ..
            } => {
                let piece = Piece {
                    color: us,
                    role: promotion.unwrap_or(role),
                };
                let occupied = (occupied & !Bitboard::from(from)) | Bitboard::from(to);
                attacks::attacks(to, piece, occupied).contains(king)
            }
            Move::EnPassant { .. } | Move::Castle { .. } => false,
        }
    }
}

/// The Zobrist hash of a board with its pockets (shakmaty's keys).
fn hash_of(chess: &Chess, pockets: &Pockets) -> u64 {
    let mut hash: Zobrist64 = chess.zobrist_hash(EnPassantMode::Legal);
    for colour in Color::ALL {
        for role in HAND_ROLES {
            hash ^= Zobrist64::zobrist_for_pocket(colour, role, pockets[colour][role]);
        }
    }
    hash.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use spelbord_games::bughouse::parse_board;

    fn node(fen: &str) -> Node {
        Node::from_position(&parse_board(fen).expect("test FEN")).expect("test node")
    }

    fn no_travel() -> Travel {
        ByColor::new_with(|_| ByRole::new_with(|_| 0))
    }

    #[test]
    fn under_house_rules_the_search_has_the_moves_the_rules_allow() {
        use std::collections::BTreeSet;
        let fens = [
            "4k3/8/8/8/8/8/8/4K3[QRBNPqrbnp] w - - 0 1",
            "4k3/8/8/8/8/8/8/4K3[QRBNPqrbnp] b - - 0 1",
            "6rk/6pp/8/8/8/8/8/4K3[NNPP] w - - 0 1",
            "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R[NPbp] w KQkq - 4 5",
        ];
        let rule_sets = [
            HouseRules::default(),
            HouseRules {
                pawn_drops_on_seventh: false,
                ..HouseRules::default()
            },
            HouseRules {
                drop_checks: DropChecks::Never,
                ..HouseRules::default()
            },
            HouseRules {
                drop_checks: DropChecks::NoMate,
                pawn_drops_on_seventh: false,
                ..HouseRules::default()
            },
        ];
        for fen in fens {
            let pos = parse_board(fen).expect("test FEN");
            for rules in rule_sets {
                let uci = |m: &Move| m.to_uci(CastlingMode::Standard).to_string();
                let ours: BTreeSet<String> = node(fen).with_rules(rules).legal_moves().iter().map(uci).collect();
                let theirs: BTreeSet<String> = rules.legal_moves(&pos).iter().map(uci).collect();
                assert_eq!(ours, theirs, "{fen} {rules:?}");
            }
        }
    }

    #[test]
    fn a_captured_promoted_piece_is_valued_as_it_will_travel() {
        let capture = Move::Normal {
            role: Role::Rook,
            from: Square::A1,
            capture: Some(Role::Queen),
            to: Square::A2,
            promotion: None,
        };
        let promoted = node("4k3/8/8/8/8/4K3/Q~7/r7[] b - - 0 1");
        assert_eq!(promoted.travelling_capture(capture), Some(Role::Pawn));
        let as_piece = promoted.with_rules(HouseRules {
            captured_promoted: spelbord_games::bughouse::CapturedPromoted::Piece,
            ..HouseRules::default()
        });
        assert_eq!(as_piece.travelling_capture(capture), Some(Role::Queen));
    }

    #[test]
    fn moves_match_crazyhouse_and_captures_leave_the_board() {
        let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R[Nbp] w KQkq - 0 1";
        let pos = parse_board(fen).expect("test FEN");
        let n = node(fen);
        assert_eq!(n.legal_moves().len(), pos.legal_moves().len());
        let capture = n
            .legal_moves()
            .into_iter()
            .find(|m| m.is_capture())
            .expect("kiwipete has captures");
        let after = n.play(capture, &no_travel());
        assert_eq!(after.pockets(), n.pockets());
        assert_ne!(after.hash(), n.hash());
    }

    #[test]
    fn a_drop_spends_the_piece_and_changes_the_hash() {
        let n = node("4k3/8/8/8/8/8/8/4K3[N] w - - 0 1");
        let drop = Move::Put {
            role: Role::Knight,
            to: Square::D3,
        };
        let after = n.play(drop, &no_travel());
        assert_eq!(after.pockets()[Color::White][Role::Knight], 0);
        assert_eq!(after.board().piece_at(Square::D3), Some(Color::White.knight()));
        assert_ne!(after.hash(), n.hash());
    }

    #[test]
    fn blockable_check_is_not_mate_but_a_knight_check_is() {
        // A rook checks along the back rank with a gap, black has nothing: not mate.
        let rook = node("R5k1/5ppp/8/8/8/8/8/6K1[] b - - 0 1");
        assert!(rook.legal_moves().is_empty());
        assert!(!rook.stuck_is_mate());
        assert!(!rook.is_bughouse_mate());
        let knight = node("6rk/5Npp/8/8/8/8/8/6K1[] b - - 0 1");
        assert!(knight.is_bughouse_mate());
    }

    #[test]
    fn updated_hashes_equal_hashes_from_scratch() {
        let mut n = node("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R[QNPbpp] w KQkq - 0 1");
        let mut seed = 7u64;
        for _ in 0..300 {
            let moves = n.legal_moves();
            if moves.is_empty() {
                break;
            }
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let m = moves[(seed >> 33) as usize % moves.len()];
            n = n.play(m, &no_travel());
            assert_eq!(n.hash(), hash_of(&n.chess, &n.pockets), "after {m:?}");
        }
    }

    #[test]
    fn captures_are_credited_by_travel_value() {
        let n = node("4k3/8/8/3p4/4P3/8/8/4K3[] w - - 0 1");
        let mut travel = no_travel();
        travel[Color::Black][Role::Pawn] = 77;
        let take = Move::Normal {
            role: Role::Pawn,
            from: Square::E4,
            capture: Some(Role::Pawn),
            to: Square::D5,
            promotion: None,
        };
        assert_eq!(n.play(take, &travel).sent(), 77);
    }
}
