//! Static evaluation of one board, in centipawns from the side to move's view.
//!
//! Three levels of knowledge ([`Knowledge`]): material only (Easy); material and a simple
//! king-safety count (Medium); and the full evaluation (Hard): material, king safety
//! against drops (attacked squares and undefended holes around the king, scaled by what
//! the enemy holds in hand; knight-drop holes; the pawn shield; attackers near the king),
//! piece placement, mobility and the value of captured pieces to the partner
//! ([`Node::sent`]). Pieces in hand are worth more than on the board: they can go
//! anywhere, at once.

use shakmaty::{Bitboard, Board, Color, Role, Square, attacks};

use super::node::{HAND_ROLES, Node, Pockets};

/// What an evaluation knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Knowledge {
    /// Pieces on the board and in hand.
    Material,
    /// Material and a simple count of danger around each king.
    Simple,
    /// Everything: see the module doc.
    Full,
}

/// How one search evaluates.
#[derive(Debug, Clone, Copy, Hash)]
pub struct Eval {
    pub knowledge: Knowledge,
    /// King-safety weight in percent (above 100 when the bot plays safer).
    pub safety_pct: i32,
}

/// A piece's value on the board.
pub fn board_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 300,
        Role::Bishop => 310,
        Role::Rook => 450,
        Role::Queen => 850,
        Role::King => 0,
    }
}

/// A piece's value in hand.
pub fn hand_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 130,
        Role::Knight => 340,
        Role::Bishop => 330,
        Role::Rook => 480,
        Role::Queen => 900,
        Role::King => 0,
    }
}

/// Bonus for having the move: in drop chess the initiative is worth a lot.
const TEMPO: i32 = 15;

/// The most king danger counts (a lost king is the search's job to see).
const MAX_DANGER: i32 = 650;

/// The evaluation of `node` for the side to move.
pub fn evaluate(node: &Node, eval: &Eval) -> i32 {
    let board = node.board();
    let pockets = node.pockets();
    let mut white = material(board, pockets, Color::White) - material(board, pockets, Color::Black);
    match eval.knowledge {
        Knowledge::Material => {}
        Knowledge::Simple => {
            white -= simple_danger(board, Color::White) - simple_danger(board, Color::Black);
        }
        Knowledge::Full => {
            let danger = full_danger(board, pockets, Color::White) - full_danger(board, pockets, Color::Black);
            white -= danger * eval.safety_pct / 100;
            white += placement(board, Color::White) - placement(board, Color::Black);
            white += node.sent();
        }
    }
    let score = node.turn().fold_wb(white, -white);
    if eval.knowledge == Knowledge::Full {
        score + TEMPO
    } else {
        score
    }
}

fn material(board: &Board, pockets: &Pockets, colour: Color) -> i32 {
    HAND_ROLES
        .iter()
        .map(|&role| {
            let on_board = board.by_piece(role.of(colour)).count() as i32;
            on_board * board_value(role) + i32::from(pockets[colour][role]) * hand_value(role)
        })
        .sum()
}

/// Medium's king danger for `us`: squares around the king the enemy attacks, and empty
/// ones only the king defends.
fn simple_danger(board: &Board, us: Color) -> i32 {
    let Some(king) = board.king_of(us) else {
        return 0;
    };
    let occupied = board.occupied();
    let mut danger = 0;
    for square in attacks::king_attacks(king) {
        if board.attacks_to(square, !us, occupied).any() {
            danger += 12;
        }
        if !occupied.contains(square) && (board.attacks_to(square, us, occupied) & !board.kings()).is_empty() {
            danger += 6;
        }
    }
    danger
}

/// How much the enemy's hand threatens: drops of heavier pieces hurt more.
fn hand_power(pockets: &Pockets, colour: Color) -> i32 {
    let hand = pockets[colour];
    i32::from(hand.pawn)
        + 3 * i32::from(hand.knight)
        + 3 * i32::from(hand.bishop)
        + 4 * i32::from(hand.rook)
        + 6 * i32::from(hand.queen)
}

/// Squares attacked by `colour`'s pawns.
fn pawn_attacks(board: &Board, colour: Color) -> Bitboard {
    board
        .by_piece(Role::Pawn.of(colour))
        .into_iter()
        .fold(Bitboard::EMPTY, |all, square| {
            all | attacks::pawn_attacks(colour, square)
        })
}

/// Whether `square` is ahead of `king` from `us`'s side.
fn ahead(us: Color, king: Square, square: Square) -> bool {
    match us {
        Color::White => square.rank() > king.rank(),
        Color::Black => square.rank() < king.rank(),
    }
}

/// Hard's king danger for `us` (before the nonlinear scaling, then scaled and capped).
fn full_danger(board: &Board, pockets: &Pockets, us: Color) -> i32 {
    let Some(king) = board.king_of(us) else {
        return 0;
    };
    let them = !us;
    let occupied = board.occupied();
    let zone = attacks::king_attacks(king);
    let power = hand_power(pockets, them).min(14);
    let mut attacked = 0;
    let mut holes = 0;
    let mut shield = 0;
    for square in zone {
        if board.attacks_to(square, them, occupied).any() {
            attacked += 1;
        }
        if !occupied.contains(square) && (board.attacks_to(square, us, occupied) & !board.kings()).is_empty() {
            holes += 1;
        }
        if ahead(us, king, square) && board.by_piece(Role::Pawn.of(us)).contains(square) {
            shield += 1;
        }
    }
    let knight_holes = (attacks::knight_attacks(king) & !occupied & !pawn_attacks(board, us)).count() as i32;
    let knight_weight = if pockets[them].knight > 0 { 8 } else { 2 };
    let attackers = (board.by_color(them) & !board.pawns() & !board.kings())
        .into_iter()
        .filter(|&square| board.attacks_from(square).intersects(zone | Bitboard::from(king)))
        .count() as i32;
    let queen_in_hand = if pockets[them].queen > 0 { 20 } else { 0 };
    let danger = 10 * attacked + holes * (4 + power) + knight_holes * knight_weight + 12 * attackers + queen_in_hand
        - 10 * shield;
    if danger <= 0 {
        return 0;
    }
    (danger * danger / 40).min(MAX_DANGER)
}

/// The distance of a square from the centre, 0 (d4–e5) to 3 (the edge).
fn centre_distance(square: Square) -> i32 {
    let file = i32::from(square.file() as u8);
    let rank = i32::from(square.rank() as u8);
    let off = |x: i32| if x < 4 { 3 - x } else { x - 4 };
    off(file).max(off(rank))
}

/// The rank of `square` counted from `colour`'s side, 0 to 7.
fn relative_rank(square: Square, colour: Color) -> i32 {
    let rank = i32::from(square.rank() as u8);
    colour.fold_wb(rank, 7 - rank)
}

/// Piece placement and mobility for `colour`.
fn placement(board: &Board, colour: Color) -> i32 {
    let occupied = board.occupied();
    let own = board.by_color(colour);
    let mut score = 0;
    for square in own {
        let Some(role) = board.role_at(square) else {
            continue;
        };
        let centre = 3 - centre_distance(square);
        let relative_rank = relative_rank(square, colour);
        score += match role {
            Role::Pawn => 3 * relative_rank.saturating_sub(1).min(4),
            Role::Knight => 8 * centre + 2 * (attacks::knight_attacks(square) & !own).count() as i32,
            Role::Bishop => 4 * centre + 2 * (attacks::bishop_attacks(square, occupied) & !own).count() as i32,
            Role::Rook => 2 * (attacks::rook_attacks(square, occupied) & !own).count() as i32,
            Role::Queen => (attacks::queen_attacks(square, occupied) & !own).count() as i32,
            Role::King => -15 * relative_rank,
        };
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;
    use spelbord_games::bughouse::parse_board;

    fn eval_of(fen: &str, knowledge: Knowledge) -> i32 {
        let node = Node::from_position(&parse_board(fen).expect("test FEN")).expect("test node");
        evaluate(
            &node,
            &Eval {
                knowledge,
                safety_pct: 100,
            },
        )
    }

    #[test]
    fn the_start_is_about_even() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1";
        for knowledge in [Knowledge::Material, Knowledge::Simple, Knowledge::Full] {
            assert!(eval_of(start, knowledge).abs() <= 30, "{knowledge:?}");
        }
    }

    #[test]
    fn a_piece_in_hand_is_worth_more_than_on_the_board() {
        let on_board = eval_of("4k3/8/8/8/8/8/8/N3K3[] w - - 0 1", Knowledge::Material);
        let in_hand = eval_of("4k3/8/8/8/8/8/8/4K3[N] w - - 0 1", Knowledge::Material);
        assert!(in_hand > on_board);
    }

    fn danger_of_white(fen: &str) -> i32 {
        let node = Node::from_position(&parse_board(fen).expect("test FEN")).expect("test node");
        full_danger(node.board(), node.pockets(), Color::White)
    }

    #[test]
    fn an_open_king_facing_a_full_hand_is_in_danger() {
        let sheltered = danger_of_white("6k1/5ppp/8/8/8/8/5PPP/6K1[qn] w - - 0 1");
        let open = danger_of_white("6k1/5ppp/8/8/8/8/8/6K1[qn] w - - 0 1");
        let open_empty_hand = danger_of_white("6k1/5ppp/8/8/8/8/8/6K1[] w - - 0 1");
        assert!(open > sheltered + 100, "{open} vs {sheltered}");
        assert!(open > open_empty_hand, "{open} vs {open_empty_hand}");
    }
}
