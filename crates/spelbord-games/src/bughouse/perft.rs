//! Bughouse perft: the move counts of one board (its pockets as given), for checking the
//! move generation against published crazyhouse figures.

use shakmaty::variant::Crazyhouse;

use super::*;

/// Single-board perft where captured pieces leave the game: pockets change only by drops
/// (not crazyhouse perft, where the capturer pockets the piece). `board_fen` is a crazyhouse
/// FEN with pockets; `depth` counts plies.
pub fn perft(board_fen: &str, depth: u32) -> Result<u64, BoardError> {
    perft_with_rules(board_fen, depth, &HouseRules::default())
}

/// [`perft()`] under a table's house rules: the drops they refuse are not counted.
pub fn perft_with_rules(board_fen: &str, depth: u32, rules: &HouseRules) -> Result<u64, BoardError> {
    let pos = parse_board(board_fen)?;
    perft_from(&pos, depth, rules).map_err(BoardError::Position)
}

/// [`perft()`] of a board in Chess960 castling (castling rights as in Shredder-FEN, `HFhf`, or
/// X-FEN), as Bughouse 960 plays it.
pub fn perft_chess960(board_fen: &str, depth: u32) -> Result<u64, BoardError> {
    let fen: Fen = board_fen
        .trim()
        .parse()
        .map_err(|err| BoardError::Fen(format!("{err}")))?;
    let pos = build(fen.into_setup(), false, CastlingMode::Chess960).map_err(BoardError::Position)?;
    perft_from(&pos, depth, &HouseRules::default()).map_err(BoardError::Position)
}

fn perft_from(pos: &Crazyhouse, depth: u32, rules: &HouseRules) -> Result<u64, String> {
    if depth == 0 {
        return Ok(1);
    }
    let moves = rules.legal_moves(pos);
    if depth == 1 {
        return Ok(moves.len() as u64);
    }
    let mut total = 0;
    for m in moves {
        let (child, _) = play_on(pos, m)?;
        total += perft_from(&child, depth - 1, rules)?;
    }
    Ok(total)
}
