//! Bughouse's rules tested directly: moves, drops, promotions passing as pawns, mates
//! that a partner's drop could save, the end rules, settings and perft.

use super::*;
use proptest::prelude::*;
use std::collections::BTreeSet;

// ---------------------------------------------------------------- helpers

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R[] w KQkq - 0 1";

fn board(fen: &str) -> Crazyhouse {
    parse_board(fen).unwrap_or_else(|err| panic!("bad test FEN {fen}: {err}"))
}

fn game(a: &str, b: &str) -> Bughouse {
    Bughouse::from_positions(board(a), board(b))
}

fn start() -> Bughouse {
    Bughouse::new(&BughouseSettings::default())
}

fn mv(text: &str) -> BughouseMove {
    BughouseMove::parse(text).unwrap_or_else(|| panic!("bad test move {text}"))
}

fn play(g: &mut Bughouse, seat: Seat, text: &str) {
    if let Err(err) = g.play(seat, &mv(text)) {
        panic!("seat {seat} {text} refused: {} ({})", err.rule, err.message);
    }
}

fn play_all(g: &mut Bughouse, moves: &[(Seat, &str)]) {
    for &(seat, text) in moves {
        play(g, seat, text);
    }
}

#[test]
fn moves_are_written_in_algebraic_notation_with_check_and_mate() {
    let mut g = start();
    assert_eq!(g.move_text(0, &mv("e2e4")), "e4");
    assert_eq!(g.move_text(2, &mv("g1f3")), "Nf3");
    play_all(
        &mut g,
        &[
            (0, "e2e4"),
            (1, "e7e5"),
            (0, "f1c4"),
            (1, "b8c6"),
            (0, "d1h5"),
            (1, "g8f6"),
        ],
    );
    // Queen takes f7, protected by the bishop: a contact check no drop can block.
    assert_eq!(g.move_text(0, &mv("h5f7")), "Qxf7#");
    // Board B is untouched; a drop with a pawn names the pawn.
    let mut g = game(START, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[P] w KQkq - 0 1");
    play(&mut g, 2, "e2e4");
    play(&mut g, 3, "e7e5");
    assert_eq!(g.move_text(2, &mv("P@d6")), "P@d6");
    assert_eq!(g.move_text(2, &mv("f1b5")), "Bb5");
    play(&mut g, 2, "d2d4");
    play(&mut g, 3, "d7d6");
    assert_eq!(g.move_text(2, &mv("f1b5")), "Bb5+");
}

/// Plays a move that must be refused; checks nothing changed and returns the rule.
fn refuse(g: &mut Bughouse, seat: Seat, text: &str) -> &'static str {
    let before = g.view();
    let active = g.active_seats();
    let err = g.play(seat, &mv(text)).expect_err(text);
    assert_eq!(g.view(), before, "{text} changed the game");
    assert_eq!(g.active_seats(), active);
    err.rule
}

fn ucis(moves: Vec<BughouseMove>) -> BTreeSet<String> {
    moves.iter().map(|m| m.uci.to_string()).collect()
}

/// shakmaty's own crazyhouse legal moves for a FEN, parsed independently of this module.
fn oracle_moves(fen: &str) -> BTreeSet<String> {
    let fen: Fen = fen.parse().expect("view FEN parses");
    let pos: Crazyhouse = fen
        .into_position(CastlingMode::Standard)
        .or_else(PositionError::ignore_too_much_material)
        .expect("view FEN is a position");
    pos.legal_moves()
        .iter()
        .map(|m| m.to_uci(CastlingMode::Standard).to_string())
        .collect()
}

fn seats(set: SeatSet) -> Vec<Seat> {
    set.iter().collect()
}

/// A tiny deterministic generator for random playouts.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Per colour and kind, pieces on both boards and in all pockets, a promoted piece
/// counting as a pawn: [pawn, knight, bishop, rook, queen, king].
fn material(g: &Bughouse, colour: Color) -> [usize; 6] {
    let mut counts = [0; 6];
    for b in 0..2 {
        let pos = g.position(b);
        let promoted = pos.promoted();
        for (square, piece) in pos.board().iter() {
            if piece.color == colour {
                let role = if promoted.contains(square) {
                    Role::Pawn
                } else {
                    piece.role
                };
                counts[usize::from(role) - 1] += 1;
            }
        }
        let pockets = pockets_of(pos);
        for role in POCKET_ROLES {
            counts[usize::from(role) - 1] += usize::from(pockets[colour][role]);
        }
    }
    counts
}

const FULL_MATERIAL: [usize; 6] = [16, 4, 4, 4, 2, 2];

/// One random legal move on a random active seat; false when no active seat can move.
fn random_step(g: &mut Bughouse, choice: usize) -> bool {
    let movers: Vec<(Seat, Vec<BughouseMove>)> = g
        .active_seats()
        .iter()
        .map(|seat| (seat, g.legal_moves(seat)))
        .filter(|(_, moves)| !moves.is_empty())
        .collect();
    if movers.is_empty() {
        return false;
    }
    let (seat, moves) = &movers[choice % movers.len()];
    let m = moves[(choice / 2) % moves.len()];
    g.play(*seat, &m).expect("a listed legal move is accepted");
    true
}

// ---------------------------------------------------------------- seats

#[test]
fn seats_roles_and_teams() {
    assert_eq!(
        Bughouse::seat_roles(&BughouseSettings::default()),
        &["A-white", "A-black", "B-white", "B-black"]
    );
    assert_eq!([0, 1, 2, 3].map(Bughouse::team_of), [0, 1, 1, 0]);
    let g = start();
    assert_eq!(seats(g.active_seats()), vec![0, 2]);
    assert_eq!(g.legal_moves(0).len(), 20);
    assert_eq!(g.legal_moves(2).len(), 20);
    assert!(g.legal_moves(1).is_empty());
    assert!(g.legal_moves(9).is_empty());
}

#[test]
fn start_view() {
    let view = serde_json::to_value(start().view()).unwrap();
    assert_eq!(view["A"]["fen"], START);
    assert_eq!(view["B"]["board"][0], "rnbqkbnr");
    assert_eq!(view["B"]["board"][4], "........");
    assert_eq!(view["A"]["board"][7], "RNBQKBNR");
    assert_eq!(view["A"]["turn"], "white");
    assert_eq!(view["A"]["to_move"], "A-white");
    assert_eq!(view["B"]["to_move"], "B-white");
    assert_eq!(view["A"]["pockets"], json!({"white": "", "black": ""}));
    assert_eq!(view["A"]["last_move"], Value::Null);
    assert_eq!(view["A"]["check"], false);
    assert_eq!(view["A"]["waiting"], false);
    assert_eq!(view["A"]["move_count"], 0);
    assert_eq!(view["total_moves"], 0);
    assert_eq!(view["move_limit"], 800);
}

#[test]
fn boards_move_independently_and_turns_alternate_per_board() {
    let mut g = start();
    play(&mut g, 0, "e2e4");
    assert_eq!(seats(g.active_seats()), vec![1, 2]);
    play(&mut g, 2, "d2d4");
    assert_eq!(seats(g.active_seats()), vec![1, 3]);
    assert_eq!(refuse(&mut g, 0, "d2d4"), "not_your_turn");
    play(&mut g, 3, "d7d5");
    assert_eq!(seats(g.active_seats()), vec![1, 2]);
    let view = g.view();
    assert_eq!(view.a.last_move.as_deref(), Some("e2e4"));
    assert_eq!(view.b.last_move.as_deref(), Some("d7d5"));
    assert_eq!((view.a.move_count, view.b.move_count, view.total_moves), (1, 2, 3));
}

// ---------------------------------------------------------------- captures and drops

#[test]
fn capture_goes_to_the_partner_with_its_colour() {
    let mut g = start();
    play_all(&mut g, &[(0, "e2e4"), (1, "d7d5"), (0, "e4d5")]);
    // A-white took a black pawn: B-black (the partner) gets a black pawn; A's pockets stay empty.
    let view = g.view();
    assert_eq!(
        view.a.pockets,
        PocketsView {
            white: "".into(),
            black: "".into()
        }
    );
    assert_eq!(
        view.b.pockets,
        PocketsView {
            white: "".into(),
            black: "p".into()
        }
    );
    assert_eq!(
        view.b.fen,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[p] w KQkq - 0 1"
    );
    // A-black recaptures with the queen: the white pawn goes to B-white.
    play(&mut g, 1, "d8d5");
    assert_eq!(
        g.view().b.pockets,
        PocketsView {
            white: "P".into(),
            black: "p".into()
        }
    );
    // B-black drops it after B-white's move; B-white has the white pawn.
    play(&mut g, 2, "P@e4");
    assert!(g.legal_moves(3).contains(&mv("P@e5")));
    play(&mut g, 3, "P@e5");
    assert_eq!(
        g.view().b.pockets,
        PocketsView {
            white: "".into(),
            black: "".into()
        }
    );
    assert_eq!(g.view().b.board[3], "....p...");
    assert_eq!(g.view().b.board[4], "....P...");
}

#[test]
fn en_passant_capture_travels_as_a_pawn() {
    let mut g = start();
    play_all(
        &mut g,
        &[(0, "e2e4"), (1, "a7a6"), (0, "e4e5"), (1, "d7d5"), (0, "e5d6")],
    );
    assert_eq!(g.view().b.pockets.black, "p");
    assert_eq!(g.view().a.board[2], "p..P....");
}

#[test]
fn captured_promoted_queen_arrives_as_a_pawn() {
    let mut g = game("r3k3/1P6/8/8/8/8/8/4K3[] w - - 0 1", START);
    play(&mut g, 0, "b7b8q");
    assert_eq!(
        g.view().a.fen,
        "rQ~2k3/8/8/8/8/8/8/4K3[] b - - 0 1",
        "promoted pieces carry ~"
    );
    assert!(g.view().a.check);
    // Black takes the promoted queen: B-white receives a white pawn, not a queen.
    play(&mut g, 1, "a8b8");
    assert_eq!(
        g.view().b.pockets,
        PocketsView {
            white: "P".into(),
            black: "".into()
        }
    );
    assert_eq!(
        g.view().a.pockets,
        PocketsView {
            white: "".into(),
            black: "".into()
        }
    );
}

#[test]
fn drop_rules_and_their_codes() {
    let mut g = game("4k3/8/8/8/8/8/8/4K3[Pp] w - - 0 1", START);
    assert_eq!(refuse(&mut g, 0, "P@a8"), "pawn_on_back_rank");
    assert_eq!(refuse(&mut g, 0, "P@h1"), "pawn_on_back_rank");
    assert_eq!(refuse(&mut g, 0, "P@e1"), "pawn_on_back_rank", "rank before occupancy");
    assert_eq!(refuse(&mut g, 0, "N@a3"), "no_piece_in_pocket");
    assert_eq!(refuse(&mut g, 0, "K@a3"), "illegal_move");
    assert_eq!(refuse(&mut g, 0, "P@e8"), "pawn_on_back_rank");
    let legal = ucis(g.legal_moves(0));
    assert!(
        !legal
            .iter()
            .any(|m| m.starts_with("P@") && (m.ends_with('1') || m.ends_with('8')))
    );
    assert_eq!(legal.iter().filter(|m| m.starts_with("P@")).count(), 48);
    play(&mut g, 0, "p@a2");
    assert_eq!(g.view().a.last_move.as_deref(), Some("P@a2"));
    assert_eq!(g.view().a.pockets.white, "");
    play(&mut g, 1, "e8d8");
    // The dropped pawn on its second rank may double-step.
    play(&mut g, 0, "a2a4");
    let mut occupied = game("4k3/8/8/8/8/8/8/4K3[N] w - - 0 1", START);
    assert_eq!(refuse(&mut occupied, 0, "N@e1"), "illegal_move");
}

#[test]
fn a_drop_that_mates_ends_the_match_for_the_droppers_team() {
    // Smothered king: a knight dropped on f7 checks h8; nothing can take it or block.
    let mut g = game("6rk/6pp/8/8/8/8/8/4K3[N] w - - 0 1", START);
    play(&mut g, 0, "N@f7");
    let outcome = g.outcome().expect("mate");
    assert_eq!(outcome.reason, EndReason::Checkmate);
    assert_eq!(outcome.winners(), &[0, 3]);
    assert_eq!(outcome.detail, json!({"board": "A", "mated": 1}));
    assert!(g.active_seats().is_empty());
    assert!(g.legal_moves(2).is_empty());
    assert_eq!(refuse(&mut g, 2, "e2e4"), "game_over");
    assert_eq!(g.view().a.to_move, None);
}

#[test]
fn knight_check_with_no_escape_is_mate_even_with_a_full_pocket() {
    // Black holds a queen, but no drop answers a knight check.
    let mut g = game(START, "6rk/6pp/8/6N1/8/8/8/4K3[q] w - - 0 1");
    play(&mut g, 2, "g5f7");
    let outcome = g.outcome().expect("mate");
    assert_eq!(outcome.reason, EndReason::Checkmate);
    assert_eq!(outcome.winners(), &[1, 2]);
    assert_eq!(outcome.detail, json!({"board": "B", "mated": 3}));
}

#[test]
fn contact_check_by_a_protected_queen_drop_is_mate() {
    // Q@g7 backed by the h6 pawn; black's rook pocket cannot help against a contact check.
    let mut g = game("6k1/8/7P/8/8/8/8/4K3[Qr] w - - 0 1", START);
    play(&mut g, 0, "Q@g7");
    assert_eq!(g.outcome().map(|o| o.reason), Some(EndReason::Checkmate));
}

#[test]
fn blockable_line_check_with_an_empty_pocket_is_not_mate() {
    // Back-rank rook drop: black has no move or drop, but a piece dropped on f8 would block.
    let mut g = game("6k1/5ppp/8/8/8/8/8/4K3[R] w - - 0 1", START);
    play(&mut g, 0, "R@e8");
    assert!(g.outcome().is_none());
    assert!(g.legal_moves(1).is_empty());
    assert_eq!(
        seats(g.active_seats()),
        vec![1, 2],
        "the checked player still waits with the clock running"
    );
    let view = g.view();
    assert!(view.a.check && view.a.waiting);
    assert!(!is_bughouse_mate(g.position(0)));
    assert!(
        g.position(0).is_checkmate(),
        "shakmaty's crazyhouse would call this mate"
    );
    // The partner (B-white) wins a pawn: still no legal answer (no pawn on rank 8), still no mate.
    play_all(&mut g, &[(2, "e2e4"), (3, "d7d5"), (2, "e4d5")]);
    assert_eq!(g.view().a.pockets.black, "p");
    assert!(g.legal_moves(1).is_empty() && g.outcome().is_none());
    // Then the queen: now black can block on f8.
    play_all(&mut g, &[(3, "d8d5"), (2, "b1c3"), (3, "a7a6"), (2, "c3d5")]);
    assert_eq!(g.view().a.pockets.black, "qp");
    assert_eq!(ucis(g.legal_moves(1)), BTreeSet::from(["Q@f8".to_string()]));
    assert!(!g.view().a.waiting);
    play(&mut g, 1, "Q@f8");
    assert!(g.outcome().is_none());
}

#[test]
fn double_check_is_mate_even_where_a_single_line_check_would_be_blockable() {
    // The e4 knight shields the e1 rook; black's king is boxed in by its own pieces.
    let fen = "3rkr2/3p1p2/8/8/4N3/8/8/4RK2[q] w - - 0 1";
    // Nd6 checks and uncovers the rook: a double check, no king move, mate despite the queen.
    let mut g = game(fen, START);
    play(&mut g, 0, "e4d6");
    assert_eq!(g.position(0).checkers().count(), 2);
    assert_eq!(g.outcome().map(|o| o.reason), Some(EndReason::Checkmate));
    // Nc3 only uncovers the rook: a single line check, answered by a queen drop.
    let mut g = game(fen, START);
    play(&mut g, 0, "e4c3");
    assert!(g.outcome().is_none());
    assert!(g.legal_moves(1).iter().all(|m| m.uci.is_put()));
    assert_eq!(g.legal_moves(1).len(), 6, "Q@e7 … Q@e2");
    // The same with an empty pocket: no answer, but not mate: black waits.
    let mut g = game("3rkr2/3p1p2/8/8/4N3/8/8/4RK2[] w - - 0 1", START);
    play(&mut g, 0, "e4c3");
    assert!(g.outcome().is_none());
    assert!(g.view().a.waiting && g.view().a.check);
}

#[test]
fn no_stalemate_the_player_waits() {
    let mut g = game("7k/5Q2/6K1/8/8/8/8/8[] b - - 0 1", START);
    assert!(g.outcome().is_none());
    assert_eq!(seats(g.active_seats()), vec![1, 2]);
    assert!(g.legal_moves(1).is_empty());
    assert!(g.view().a.waiting && !g.view().a.check);
    // Its partner (B-white) wins a pawn on B: A-black can now drop it.
    play_all(&mut g, &[(2, "e2e4"), (3, "d7d5"), (2, "e4d5")]);
    assert!(!g.view().a.waiting);
    assert!(g.legal_moves(1).contains(&mv("P@a5")));
    play(&mut g, 1, "P@a5");
    assert!(g.outcome().is_none());
}

#[test]
fn both_players_to_move_stuck_is_a_draw() {
    let mut g = game("7k/5Q2/6K1/8/8/8/8/8[] b - - 0 1", "7k/5Q2/8/6K1/8/8/8/8[] w - - 0 1");
    assert!(g.outcome().is_none());
    play(&mut g, 2, "g5g6");
    let outcome = g.outcome().expect("draw");
    assert_eq!(outcome.result, super::super::GameResult::Draw);
    assert_eq!(outcome.reason, EndReason::NoPlayerCanMove);
    assert_eq!(outcome.detail, json!({"waiting": [1, 3]}));
    assert!(g.active_seats().is_empty());
    assert!(!g.view().a.waiting, "waiting is only shown while the game runs");
}

#[test]
fn eight_hundred_moves_draw() {
    let mut g = start();
    let shuffle = [(0, "g1f3"), (1, "g8f6"), (0, "f3g1"), (1, "f6g8")];
    let shuffle_b = shuffle.map(|(seat, m)| (seat + 2, m));
    for round in 0..100 {
        play_all(&mut g, &shuffle);
        play_all(&mut g, &shuffle_b[..3]);
        if round < 99 {
            play_all(&mut g, &shuffle_b[3..]);
        }
    }
    assert_eq!(g.total_moves(), 799);
    assert!(g.outcome().is_none(), "no repetition draw in bughouse");
    play(&mut g, 3, "f6g8");
    let outcome = g.outcome().expect("move limit");
    assert_eq!(outcome.reason, EndReason::MoveLimit);
    assert_eq!(outcome.result, super::super::GameResult::Draw);
    assert_eq!(outcome.detail, json!({"moves": 800}));
    assert_eq!(refuse(&mut g, 0, "g1f3"), "game_over");
}

#[test]
fn moves_on_the_two_boards_commute() {
    let mut base = start();
    play_all(&mut base, &[(0, "e2e4"), (1, "d7d5"), (2, "e2e4"), (3, "d7d5")]);
    let mut ab = base.clone();
    play_all(&mut ab, &[(0, "e4d5"), (2, "e4d5")]);
    let mut ba = base.clone();
    play_all(&mut ba, &[(2, "e4d5"), (0, "e4d5")]);
    assert_eq!(ab.view(), ba.view());
    assert_eq!(ab.view().a.pockets.black, "p");
    assert_eq!(ab.view().b.pockets.black, "p");
    // With drops depending on the transfers: each black drops the pawn it was sent.
    let mut ab2 = ab.clone();
    play_all(&mut ab2, &[(1, "P@e6"), (3, "P@c6")]);
    let mut ba2 = ab.clone();
    play_all(&mut ba2, &[(3, "P@c6"), (1, "P@e6")]);
    assert_eq!(ab2.view(), ba2.view());
}

#[test]
fn random_commutation_of_one_move_per_board() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..30 {
        let mut g = start();
        for _ in 0..rng.below(40) {
            let choice = rng.below(10_000);
            if !random_step(&mut g, choice) || g.outcome().is_some() {
                break;
            }
        }
        if g.outcome().is_some() {
            continue;
        }
        let [sa, sb] = [g.to_move_on(0), g.to_move_on(1)];
        let (la, lb) = (g.legal_moves(sa), g.legal_moves(sb));
        if la.is_empty() || lb.is_empty() {
            continue;
        }
        let (a, b) = (la[rng.below(la.len())], lb[rng.below(lb.len())]);
        let mut first = g.clone();
        let mut second = g.clone();
        let r1 = first.play(sa, &a).and_then(|_| first.play(sb, &b));
        let r2 = second.play(sb, &b).and_then(|_| second.play(sa, &a));
        if r1.is_ok() && r2.is_ok() && first.outcome().is_none() && second.outcome().is_none() {
            assert_eq!(first.view(), second.view());
        }
    }
}

// ---------------------------------------------------------------- refusals

#[test]
fn refusal_codes() {
    let mut g = start();
    assert_eq!(refuse(&mut g, 1, "e7e5"), "not_your_turn");
    assert_eq!(refuse(&mut g, 4, "e2e4"), "not_your_turn");
    assert_eq!(refuse(&mut g, 0, "e2e5"), "illegal_move");
    assert_eq!(refuse(&mut g, 0, "e7e5"), "illegal_move");
    assert_eq!(refuse(&mut g, 0, "0000"), "illegal_move");
    assert_eq!(refuse(&mut g, 0, "e1g1"), "illegal_move");
    let err = g.play(0, &mv("e2e5")).unwrap_err();
    assert!(
        err.message.contains("e2e5") && err.message.contains("board A"),
        "{}",
        err.message
    );
    // A pinned bishop, a king stepping into check, a drop that does not answer a check.
    let mut pinned = game("4k3/4r3/8/8/8/8/4B3/4K3[] w - - 0 1", START);
    assert_eq!(refuse(&mut pinned, 0, "e2d3"), "king_in_check");
    assert_eq!(refuse(&mut pinned, 0, "e2c5"), "illegal_move", "a bishop cannot jump");
    let mut into_check = game("4k3/3r4/8/8/8/8/8/4K3[] w - - 0 1", START);
    assert_eq!(refuse(&mut into_check, 0, "e1d1"), "king_in_check");
    play(&mut into_check, 0, "e1f1");
    let mut checked = game("4k3/4r3/8/8/8/8/8/4K3[N] w - - 0 1", START);
    assert_eq!(refuse(&mut checked, 0, "N@a3"), "king_in_check");
    assert_eq!(refuse(&mut checked, 0, "e1e2"), "king_in_check");
    play(&mut checked, 0, "N@e4");
    // Promotion must name a piece; a wrong promotion is illegal.
    let mut promote = game("4k3/P7/8/8/8/8/8/4K3[] w - - 0 1", START);
    assert_eq!(refuse(&mut promote, 0, "a7a8"), "illegal_move");
    assert_eq!(refuse(&mut promote, 0, "a7a8k"), "illegal_move");
    play(&mut promote, 0, "a7a8n");
    assert_eq!(promote.view().a.fen, "N~3k3/8/8/8/8/8/8/4K3[] b - - 0 1");
}

#[test]
fn castling_is_the_kings_two_square_move() {
    let mut g = game("r3k2r/8/8/8/8/8/8/R3K2R[] w KQkq - 0 1", START);
    assert!(g.legal_moves(0).contains(&mv("e1g1")));
    assert!(g.legal_moves(0).contains(&mv("e1c1")));
    play(&mut g, 0, "e1g1");
    assert_eq!(g.view().a.board[7], "R....RK.");
    // The f1 rook now covers f8: black may not castle short, but long (given king-takes-rook).
    assert_eq!(refuse(&mut g, 1, "e8g8"), "illegal_move");
    let before = g.clone();
    assert_eq!(
        before.normalised(1, &mv("e8a8")),
        mv("e8c8"),
        "king-takes-rook is stored and broadcast as the king's two-square move"
    );
    play(&mut g, 1, "e8a8");
    assert_eq!(
        g.view().a.last_move.as_deref(),
        Some("e8c8"),
        "king-takes-rook is normalised"
    );
    assert_eq!(g.view().a.board[0], "..kr...r");
}

#[test]
fn a_castle_given_king_takes_rook_is_stored_and_broadcast_as_the_kings_move() {
    let g = game("r3k2r/8/8/8/8/8/8/R3K2R[] w KQkq - 0 1", START);
    let mut any = crate::AnyGame::Bughouse(g);
    let (_, stored) = any.play_json(0, &json!({"uci": "e1h1"})).expect("a castle");
    assert_eq!(stored, json!({"uci": "e1g1"}));
}

#[test]
fn malformed_moves_are_decode_errors() {
    for bad in [
        json!("e2e4"),
        json!({"uci": "e9e4"}),
        json!({"uci": "xx"}),
        json!({"uci": "N@"}),
        json!({"uci": 42}),
        json!({"to": "e4"}),
        json!({"uci": "e2e4", "extra": 1}),
    ] {
        assert!(serde_json::from_value::<BughouseMove>(bad.clone()).is_err(), "{bad}");
    }
    let drop: BughouseMove = serde_json::from_value(json!({"uci": "n@f3"})).unwrap();
    assert_eq!(serde_json::to_value(drop).unwrap(), json!({"uci": "N@f3"}));
    let promo: BughouseMove = serde_json::from_value(json!({"uci": "e7e8q"})).unwrap();
    assert_eq!(serde_json::to_value(promo).unwrap(), json!({"uci": "e7e8q"}));
}

#[test]
fn finish_from_outside() {
    let mut g = start();
    g.finish(Outcome::win(vec![1, 2], EndReason::Time));
    g.finish(Outcome::draw(EndReason::DrawAgreed));
    assert_eq!(g.outcome().map(|o| o.reason), Some(EndReason::Time));
    assert!(g.active_seats().is_empty());
    assert_eq!(refuse(&mut g, 0, "e2e4"), "game_over");
}

// ---------------------------------------------------------------- settings

fn read(value: Value) -> Result<BughouseSettings, SettingError> {
    let mut r = SettingsReader::of(value);
    let settings = Bughouse::read_settings(&mut r)?;
    r.finish()?;
    Ok(settings)
}

#[test]
fn default_settings_serialise_empty() {
    let settings = read(json!({})).unwrap();
    assert_eq!(settings, BughouseSettings::default());
    assert_eq!(serde_json::to_value(&settings).unwrap(), json!({}));
}

#[test]
fn start_position_reads_back_identically() {
    let given = json!({"start_position": {
        "A": "r3k2r/8/8/8/8/8/8/R3K2R[QQNp] b Kq - 3 20",
        "B": "6rk/6pp/8/6N1/8/8/8/4K3/q w - - 0 1",
    }});
    let settings = read(given).unwrap();
    let json = serde_json::to_value(&settings).unwrap();
    assert_eq!(
        json,
        json!({"start_position": {
            "A": "r3k2r/8/8/8/8/8/8/R3K2R[NQQp] b Kq - 3 20",
            "B": "6rk/6pp/8/6N1/8/8/8/4K3[q] w - - 0 1",
        }})
    );
    assert_eq!(read(json.clone()).unwrap(), settings);
    let g = Bughouse::new(&settings);
    assert_eq!(seats(g.active_seats()), vec![1, 2]);
    assert_eq!(
        g.view().a.pockets,
        PocketsView {
            white: "QQN".into(),
            black: "p".into()
        }
    );
}

#[test]
fn start_position_errors_name_their_field() {
    let cases = [
        (json!("fen | fen"), "settings.start_position"),
        (json!({"A": START}), "settings.start_position.B"),
        (json!({"A": START, "B": START, "C": START}), "settings.start_position.C"),
        (json!({"A": 3, "B": START}), "settings.start_position.A"),
        (json!({"A": START, "B": "not a fen"}), "settings.start_position.B"),
        (
            json!({"A": "8/8/8/8/8/8/8/4K3[] w - - 0 1", "B": START}),
            "settings.start_position.A",
        ),
        (
            json!({"A": START, "B": "4k3/8/8/8/8/8/8/3KK3[] w - - 0 1"}),
            "settings.start_position.B",
        ),
        (
            json!({"A": "4k3/8/8/8/8/8/8/4K3[K] w - - 0 1", "B": START}),
            "settings.start_position.A",
        ),
        (
            json!({"A": "P3k3/8/8/8/8/8/8/4K3[] w - - 0 1", "B": START}),
            "settings.start_position.A",
        ),
        (
            json!({"A": "4k3/8/8/8/8/8/8/R3K3[] w K - 0 1", "B": START}),
            "settings.start_position.A",
        ),
        (
            json!({"A": "6rk/5Npp/8/8/8/8/8/4K3[] b - - 0 1", "B": START}),
            "settings.start_position.A",
        ),
        (
            json!({"A": START, "B": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Q] w KQkq - 0 1"}),
            "settings.start_position",
        ),
        (
            json!({"A": "7k/5Q2/6K1/8/8/8/8/8[] b - - 0 1", "B": "7k/5Q2/6K1/8/8/8/8/8[] b - - 0 1"}),
            "settings.start_position",
        ),
    ];
    for (value, field) in cases {
        let err = read(json!({"start_position": value.clone()})).unwrap_err();
        assert_eq!(err.field, field, "{value}: {}", err.message);
    }
    let err = read(json!({"start_position": {"A": "6rk/5Npp/8/8/8/8/8/4K3[] b - - 0 1", "B": START}})).unwrap_err();
    assert!(err.message.contains("checkmated"), "{}", err.message);
    let err = read(json!({"start_position": {"A": "8/8/8/8/8/8/8/4K3[] w - - 0 1", "B": START}})).unwrap_err();
    assert!(err.message.contains("missing king"), "{}", err.message);
    assert_eq!(read(json!({"colour": "red"})).unwrap_err().field, "settings.colour");
}

// ---------------------------------------------------------------- perft

#[test]
fn perft_equals_chess_perft_without_pockets() {
    assert_eq!(perft(START, 1), Ok(20));
    assert_eq!(perft(START, 2), Ok(400));
    assert_eq!(perft(START, 3), Ok(8902));
    assert_eq!(perft(KIWIPETE, 1), Ok(48));
    assert_eq!(perft(KIWIPETE, 2), Ok(2039));
    assert_eq!(perft(KIWIPETE, 3), Ok(97862));
    assert!(matches!(perft("nonsense", 1), Err(BoardError::Fen(_))));
    assert!(matches!(
        perft("8/8/8/8/8/8/8/8 w - - 0 1", 1),
        Err(BoardError::Position(_))
    ));
}

#[test]
fn perft_differs_from_crazyhouse_perft_once_captures_matter() {
    let cases = [
        // Kiwipete: a capture in ply 1 is a drop for crazyhouse in ply 3.
        (KIWIPETE, 2, 2039, 2039),
        (KIWIPETE, 3, 97862, PERFT_KIWIPETE_ZH_3),
        // A small position with pockets and captures at hand.
        (SMALL, 1, PERFT_SMALL[0], PERFT_SMALL[0]),
        (SMALL, 2, PERFT_SMALL[1], PERFT_SMALL[1]),
        (SMALL, 3, PERFT_SMALL[2], PERFT_SMALL_ZH[2]),
        (SMALL, 4, PERFT_SMALL[3], PERFT_SMALL_ZH[3]),
    ];
    for (fen, depth, ours, crazyhouse) in cases {
        assert_eq!(perft(fen, depth), Ok(ours), "{fen} depth {depth}");
        assert_eq!(shakmaty::perft(&board(fen), depth), crazyhouse, "{fen} depth {depth}");
    }
    assert_ne!(PERFT_SMALL[2], PERFT_SMALL_ZH[2]);
}

const SMALL: &str = "4k3/2p5/8/3p4/4P3/2N5/8/4K3[Nb] w - - 0 1";
const PERFT_KIWIPETE_ZH_3: u64 = 106_456;
const PERFT_SMALL: [u64; 4] = [72, 4_553, 120_668, 2_550_205];
const PERFT_SMALL_ZH: [u64; 4] = [72, 4_553, 125_996, 2_727_210];

// ---------------------------------------------------------------- differential, properties

const POCKET_FENS: &[&str] = &[
    START,
    KIWIPETE,
    "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R[NPbp] w KQkq - 4 5",
    "4k3/8/8/8/8/8/8/4K3[QRBNPqrbnp] w - - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R[PPPPpppp] b KQkq - 0 1",
    "4k3/4r3/8/8/8/8/8/4K3[NN] w - - 0 1",
];

#[test]
fn legal_moves_match_shakmaty_crazyhouse_on_random_playouts() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut checked = 0;
    for a in POCKET_FENS {
        for b in POCKET_FENS.iter().rev() {
            for _ in 0..2 {
                let mut g = game(a, b);
                for _ in 0..60 {
                    let view = g.view();
                    for (index, board_view) in [&view.a, &view.b].into_iter().enumerate() {
                        let seat = g.to_move_on(index);
                        assert_eq!(
                            ucis(g.legal_moves(seat)),
                            oracle_moves(&board_view.fen),
                            "{}",
                            board_view.fen
                        );
                        checked += 1;
                    }
                    let choice = rng.below(1 << 20);
                    if !random_step(&mut g, choice) || g.outcome().is_some() {
                        break;
                    }
                }
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}

#[test]
fn any_game_plays_bughouse_over_json() {
    use super::super::{AnySettings, GameKind, MoveError};
    assert_eq!(GameKind::from_id("bughouse"), Some(GameKind::Bughouse));
    let mut r = SettingsReader::of(json!({}));
    let settings = AnySettings::read(GameKind::Bughouse, &mut r).unwrap();
    assert_eq!(settings.seat_count(), 4);
    assert_eq!(settings.team_of(3), 0);
    let mut game = settings.new_game();
    assert_eq!(seats(game.active_seats()), vec![0, 2]);
    let (played, echoed) = game.play_json(2, &json!({"uci": "g1f3"})).unwrap();
    assert!(played.turn_over);
    assert_eq!(echoed, json!({"uci": "g1f3"}));
    assert!(matches!(
        game.play_json(0, &json!({"uci": "e2"})),
        Err(MoveError::Malformed(_))
    ));
    assert!(matches!(
        game.play_json(0, &json!({"uci": "e2e5"})),
        Err(MoveError::Illegal(_))
    ));
    assert_eq!(game.view()["B"]["last_move"], "g1f3");
    assert_eq!(game.legal_moves_json(0).len(), 20);
    assert_eq!(EndReason::Checkmate.as_str(), "checkmate");
    assert_eq!(EndReason::NoPlayerCanMove.as_str(), "no_player_can_move");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_play_conserves_material_and_refusals_change_nothing(
        start_index in 0..3usize,
        choices in prop::collection::vec(any::<u32>(), 0..160),
        probes in prop::collection::vec((0..5u8, "[a-h][1-8][a-h][1-8]|[PNBRQK]@[a-h][1-8]"), 0..40),
    ) {
        let fens = [START, POCKET_FENS[2], KIWIPETE];
        let mut g = game(fens[start_index], START);
        let full = if start_index == 0 {
            Some(FULL_MATERIAL)
        } else {
            None
        };
        let initial = [material(&g, Color::White), material(&g, Color::Black)];
        let mut probes = probes.into_iter();
        for choice in choices {
            if g.outcome().is_some() {
                break;
            }
            if let Some((seat, text)) = probes.next() {
                let m = mv(&text);
                let listed = g.legal_moves(seat);
                let legal = listed.contains(&m);
                let before = g.view();
                match g.play(seat, &m) {
                    Ok(_) => {
                        // Accepted: the move as normalised (e1h1 castles as e1g1) was listed.
                        let view = g.view();
                        let last = if board_of(seat) == 0 { view.a.last_move } else { view.b.last_move };
                        let played = last.as_deref().and_then(BughouseMove::parse);
                        prop_assert!(played.is_some_and(|p| listed.contains(&p)), "{text} accepted but not listed");
                    }
                    Err(_) => {
                        prop_assert!(!legal, "{text} listed but refused");
                        prop_assert_eq!(g.view(), before);
                    }
                }
            }
            if !random_step(&mut g, choice as usize) {
                break;
            }
            let now = [material(&g, Color::White), material(&g, Color::Black)];
            prop_assert_eq!(now, initial);
            if let Some(full) = full {
                prop_assert_eq!(now, [full, full]);
            }
            let view = g.view();
            let total = view.a.move_count + view.b.move_count;
            prop_assert_eq!(total, view.total_moves);
        }
    }
}

// ---------------------------------------------------------------- house rules

fn house(value: Value) -> HouseRules {
    read(value).unwrap_or_else(|err| panic!("house rules: {err:?}")).house
}

fn with_house(a: &str, b: &str, rules: HouseRules) -> Bughouse {
    game(a, b).with_rules(rules)
}

#[test]
fn house_rules_read_back_identically_and_default_to_the_rule_page() {
    let given = json!({"pawn_drops_on_seventh": false, "drop_checks": "no_mate", "captured_promoted": "piece"});
    let settings = read(given.clone()).unwrap();
    assert_eq!(
        settings.house,
        HouseRules {
            pawn_drops_on_seventh: false,
            drop_checks: DropChecks::NoMate,
            captured_promoted: CapturedPromoted::Piece,
        }
    );
    assert_eq!(serde_json::to_value(&settings).unwrap(), given);
    // The defaults are not written, so that older tables read back the same.
    let defaults = json!({"pawn_drops_on_seventh": true, "drop_checks": "allowed", "captured_promoted": "pawn"});
    assert_eq!(serde_json::to_value(read(defaults).unwrap()).unwrap(), json!({}));
    assert_eq!(house(json!({"drop_checks": "never"})).drop_checks, DropChecks::Never);
    for (value, field) in [
        (json!({"pawn_drops_on_seventh": "no"}), "settings.pawn_drops_on_seventh"),
        (json!({"drop_checks": "sometimes"}), "settings.drop_checks"),
        (json!({"drop_checks": 1}), "settings.drop_checks"),
        (json!({"captured_promoted": "queen"}), "settings.captured_promoted"),
    ] {
        assert_eq!(read(value.clone()).unwrap_err().field, field, "{value}");
    }
}

#[test]
fn a_pawn_drop_on_the_seventh_rank_is_refused_only_where_the_table_says_so() {
    let fen_white = "4k3/8/8/8/8/8/8/4K3[P] w - - 0 1";
    let fen_black = "4k3/8/8/8/8/8/8/4K3[p] b - - 0 1";
    let mut allowed = game(fen_white, START);
    play(&mut allowed, 0, "P@a7");
    let no_seventh = house(json!({"pawn_drops_on_seventh": false}));
    let mut g = with_house(fen_white, START, no_seventh);
    assert_eq!(refuse(&mut g, 0, "P@a7"), "pawn_on_seventh_rank");
    assert!(
        !ucis(g.legal_moves(0)).iter().any(|m| m.ends_with('7')),
        "no drop on rank 7 listed"
    );
    play(&mut g, 0, "P@a6");
    // Black's seventh rank is rank 2.
    let mut g = with_house(fen_black, START, no_seventh);
    assert_eq!(refuse(&mut g, 1, "P@h2"), "pawn_on_seventh_rank");
    play(&mut g, 1, "P@h3");
    // Other pieces may still go there, and the back ranks stay closed to pawns.
    let mut g = with_house("4k3/8/8/8/8/8/8/4K3[NP] w - - 0 1", START, no_seventh);
    assert_eq!(refuse(&mut g, 0, "P@a8"), "pawn_on_back_rank");
    play(&mut g, 0, "N@a7");
}

/// Black: king h8, rook g8, pawns g7 h7. A knight dropped on f7 mates (smothered); one
/// dropped on g6 checks, and h7 takes it.
const SMOTHER: &str = "6rk/6pp/8/8/8/8/8/4K3[NN] w - - 0 1";

#[test]
fn checking_drops_and_drop_mates_follow_the_table_s_rule() {
    let mut g = game(SMOTHER, START);
    play(&mut g, 0, "N@f7");
    assert_eq!(g.outcome().map(|o| o.reason), Some(EndReason::Checkmate));

    let mut g = with_house(SMOTHER, START, house(json!({"drop_checks": "no_mate"})));
    assert_eq!(refuse(&mut g, 0, "N@f7"), "drop_gives_mate");
    let listed = ucis(g.legal_moves(0));
    assert!(!listed.contains("N@f7") && listed.contains("N@g6"), "{listed:?}");
    play(&mut g, 0, "N@g6");
    assert!(g.view().a.check && g.outcome().is_none());

    let mut g = with_house(SMOTHER, START, house(json!({"drop_checks": "never"})));
    assert_eq!(refuse(&mut g, 0, "N@f7"), "drop_gives_check");
    assert_eq!(refuse(&mut g, 0, "N@g6"), "drop_gives_check");
    play(&mut g, 0, "N@a3");
    // A piece move may still check: only drops are restricted.
    let mut g = with_house(
        "6rk/6pp/8/8/8/8/8/R3K3[] w - - 0 1",
        START,
        house(json!({"drop_checks": "never"})),
    );
    play(&mut g, 0, "a1a8");
}

#[test]
fn a_captured_promoted_piece_travels_as_a_pawn_or_as_itself() {
    // Board A: black's rook takes white's promoted queen on a2.
    let a = "4k3/8/8/8/8/4K3/Q~7/r7[] b - - 0 1";
    let mut g = game(a, START);
    play(&mut g, 1, "a1a2");
    assert_eq!(g.view().b.pockets.white, "P");
    let mut g = with_house(a, START, house(json!({"captured_promoted": "piece"})));
    play(&mut g, 1, "a1a2");
    assert_eq!(g.view().b.pockets.white, "Q");
    // A piece that never promoted travels as itself under both rules.
    let mut g = with_house("4k3/8/8/8/8/4K3/Q7/r7[] b - - 0 1", START, HouseRules::default());
    play(&mut g, 1, "a1a2");
    assert_eq!(g.view().b.pockets.white, "Q");
}

/// The drops the house rules keep, counted independently of `HouseRules::legal_moves`.
fn count_allowed(pos: &Crazyhouse, no_seventh: bool, checks: DropChecks) -> usize {
    pos.legal_moves()
        .into_iter()
        .filter(|m| match *m {
            Move::Put { role, to } => {
                let seventh = to.rank() == pos.turn().fold_wb(Rank::Seventh, Rank::Second);
                if no_seventh && role == Role::Pawn && seventh {
                    return false;
                }
                let mut after = pos.clone();
                after.play_unchecked(*m);
                match checks {
                    DropChecks::Allowed => true,
                    DropChecks::Never => !after.is_check(),
                    DropChecks::NoMate => !is_bughouse_mate(&after),
                }
            }
            _ => true,
        })
        .count()
}

#[test]
fn perft_under_house_rules_counts_only_the_drops_they_keep() {
    let full = "4k3/8/8/8/8/8/8/4K3[QRBNPqrbnp] w - - 0 1";
    let rules =
        |no_seventh: bool, checks: &str| house(json!({"pawn_drops_on_seventh": !no_seventh, "drop_checks": checks}));
    for fen in [full, SMOTHER, POCKET_FENS[2], POCKET_FENS[5]] {
        let pos = board(fen);
        for (no_seventh, checks, kind) in [
            (true, "allowed", DropChecks::Allowed),
            (false, "never", DropChecks::Never),
            (false, "no_mate", DropChecks::NoMate),
            (true, "never", DropChecks::Never),
        ] {
            let rules = rules(no_seventh, checks);
            assert_eq!(
                perft_with_rules(fen, 1, &rules),
                Ok(count_allowed(&pos, no_seventh, kind) as u64),
                "{fen} {rules:?}"
            );
        }
    }
    // Reference counts (the rule page's, then each house rule alone), computed by this
    // code and checked at depth 1 above: a change of the move generation shows here.
    assert_eq!(perft(full, 2), Ok(75_840));
    assert_eq!(perft_with_rules(full, 2, &rules(true, "allowed")), Ok(72_107));
    assert_eq!(perft_with_rules(full, 2, &rules(false, "never")), Ok(64_054));
    // Lone kings cannot be drop-mated in two plies: no_mate changes nothing there.
    assert_eq!(perft_with_rules(full, 2, &rules(false, "no_mate")), Ok(75_840));
    // The smothered mate N@f7 is the one drop no_mate takes away.
    assert_eq!(perft(SMOTHER, 1), Ok(64));
    assert_eq!(perft_with_rules(SMOTHER, 1, &rules(false, "no_mate")), Ok(63));
    assert_eq!(perft(SMOTHER, 3), Ok(37_690));
    assert_eq!(perft_with_rules(SMOTHER, 3, &rules(false, "no_mate")), Ok(37_657));
    assert_eq!(
        perft(START, 3),
        perft_with_rules(START, 3, &rules(true, "never")),
        "no pockets, no change"
    );
}

// ---------------------------------------------------------------- Bughouse 960

#[test]
fn the_960_positions_are_numbered_as_scharnagl_numbered_them() {
    let rank = |n: u16| chess960::back_rank(n).iter().collect::<String>();
    assert_eq!(rank(518), "RNBQKBNR");
    assert_eq!(rank(0), "BBQNNRKR");
    assert_eq!(rank(959), "RKRNNQBB");
    let mut seen = BTreeSet::new();
    for n in 0..chess960::POSITIONS {
        let r = chess960::back_rank(n);
        let at = |piece: char| -> Vec<usize> { (0..8).filter(|&i| r[i] == piece).collect() };
        let (bishops, rooks, king) = (at('B'), at('R'), at('K'));
        assert_eq!(bishops.len(), 2, "{n}");
        assert_ne!(bishops[0] % 2, bishops[1] % 2, "{n}: bishops on both colours");
        assert!(
            rooks[0] < king[0] && king[0] < rooks[1],
            "{n}: the king between the rooks"
        );
        assert_eq!((at('Q').len(), at('N').len()), (1, 2), "{n}");
        assert!(seen.insert(r), "{n} is new");
        // Every one is a legal position with both sides free to castle either way.
        let pos = chess960::start_position(n);
        assert_eq!(pos.castles().mode(), CastlingMode::Chess960, "{n}");
        assert_eq!(pos.castles().castling_rights().count(), 4, "{n}");
        assert_eq!(pos.board().by_color(Color::White).count(), 16, "{n}");
    }
}

#[test]
fn perft_of_published_960_positions() {
    // chessprogramming.org, "Chess960 Perft Results" (the first three of its 960).
    let cases: [(&str, [u64; 4]); 3] = [
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            [21, 528, 12_189, 326_672],
        ),
        (
            "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
            [21, 807, 18_002, 667_366],
        ),
        (
            "b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9",
            [20, 479, 10_471, 273_318],
        ),
    ];
    for (fen, counts) in cases {
        for (depth, count) in (1..=4).zip(counts) {
            assert_eq!(perft_chess960(fen, depth), Ok(count), "{fen} depth {depth}");
        }
    }
}

#[test]
fn a_960_game_starts_alike_on_both_boards_and_castles_king_takes_rook() {
    let settings = read(json!({"chess960": true})).unwrap();
    assert_eq!(serde_json::to_value(&settings).unwrap(), json!({"chess960": true}));
    // The same seed, the same start; the position number shows in the view.
    let g = Bughouse::new_drawn(&settings, 1_000_000);
    let number = u16::try_from(1_000_000 % 960).unwrap();
    assert_eq!(g.view().chess960, Some(number));
    assert_eq!(g.view().a.fen, g.view().b.fen);
    assert_eq!(Bughouse::new_drawn(&settings, 1_000_000).view(), g.view());
    // Position 0 (BBQNNRKR): once the f1 rook has left, white castles short as king takes
    // rook (g1h1): the king stays on g1 and the h1 rook goes to f1.
    let mut g = Bughouse::chess960(0);
    assert_eq!(g.view().a.board[7], "BBQNNRKR");
    assert!(!ucis(g.legal_moves(0)).contains("g1h1"), "f1 is taken");
    play_all(&mut g, &[(0, "f2f4"), (1, "f7f5"), (0, "f1f3"), (1, "f8f6")]);
    assert!(ucis(g.legal_moves(0)).contains("g1h1"), "{:?}", ucis(g.legal_moves(0)));
    play(&mut g, 0, "g1h1");
    assert_eq!(g.view().a.board[7], "BBQNNRK.");
    assert_eq!(g.view().a.last_move.as_deref(), Some("g1h1"));
    // Settings: 960 draws its own start.
    let err = read(json!({"chess960": true, "start_position": {"A": START, "B": START}})).unwrap_err();
    assert_eq!(err.field, "settings.chess960");
    assert_eq!(read(json!({"chess960": "yes"})).unwrap_err().field, "settings.chess960");
    // A chosen position: every game starts from it.
    let fixed = read(json!({"chess960": true, "chess960_position": 96})).unwrap();
    assert_eq!(
        serde_json::to_value(&fixed).unwrap(),
        json!({"chess960": true, "chess960_position": 96})
    );
    for seed in [0, 1, 12_345] {
        assert_eq!(Bughouse::new_drawn(&fixed, seed).view().chess960, Some(96));
    }
    assert_eq!(Bughouse::new_drawn(&fixed, 0).view().a.board[7], "BBQNRNKR");
    for value in [
        json!({"chess960": true, "chess960_position": 960}),
        json!({"chess960_position": 5}),
        json!({"chess960": true, "chess960_position": -1}),
    ] {
        assert_eq!(
            read(value.clone()).unwrap_err().field,
            "settings.chess960_position",
            "{value}"
        );
    }
    // A table without 960 ignores the seed.
    assert_eq!(
        Bughouse::new_drawn(&BughouseSettings::default(), 7).view(),
        start().view()
    );
}

#[test]
fn random_960_games_conserve_material_across_the_boards() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for game_number in 0..12 {
        let number = u16::try_from(rng.below(960)).unwrap();
        let mut g = Bughouse::chess960(number);
        for _ in 0..200 {
            if g.outcome().is_some() {
                break;
            }
            let seats: Vec<Seat> = g.active_seats().iter().collect();
            let seat = seats[rng.below(seats.len())];
            let moves = g.legal_moves(seat);
            if moves.is_empty() {
                continue;
            }
            let m = moves[rng.below(moves.len())];
            if let Err(err) = g.play(seat, &m) {
                panic!("position {number}, game {game_number}: {} refused: {err:?}", m.uci);
            }
        }
        for colour in [Color::White, Color::Black] {
            assert_eq!(material(&g, colour), FULL_MATERIAL, "position {number}");
        }
    }
}
