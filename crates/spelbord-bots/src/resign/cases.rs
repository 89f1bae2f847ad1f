//! Resigning, game by game: each engine's outlook on a clearly lost position, counted by a
//! [`Watch`] move after move, resigns at the game's count and not before; on a close
//! position it never resigns; easy and random never do.
//!
//! None depends on the machine's speed: a lost position's answer is a proof the searches
//! find in their first iterations and then stop at (a found mate or win ends iterative
//! deepening), so they get a generous deadline they never need; a close position's answer
//! is unclear at any depth, so it gets a short one.

use std::time::Duration;

use super::{Outlook, Watch, rule};
use crate::{Bot, Context, Strength};
use spelbord_games::bughouse::{Bughouse, parse_board};
use spelbord_games::gomoku::{Gomoku, GomokuMove, GomokuSettings, Opening, Variant};
use spelbord_games::krux::Krux;
use spelbord_games::lines_of_action::{LinesOfAction, LoaSettings};
use spelbord_games::{GameKind, Rules, Seat};

/// Long enough for any proof here on a slow machine; never used up.
fn generous() -> Context {
    Context::with_budget(Duration::from_secs(60), 3)
}

/// Short: a close position is unclear however deep the search goes.
fn short() -> Context {
    Context::with_budget(Duration::from_millis(150), 3)
}

/// Feeds `outlook` to a fresh watch as the seat's moves from its twentieth on (past every
/// game's first moves): the number of answers after which it resigned, if within 12.
fn resigns_after(kind: GameKind, outlook: Outlook) -> Option<u32> {
    let mut watch = Watch::default();
    (1..=12).find(|&n| watch.resigns(kind, outlook, 19 + n, false))
}

/// `answer`'s outlook at `strength` for the seat to move of `game`.
fn outlook<G: Bot>(game: &G, seat: Seat, strength: Strength, ctx: &Context) -> Outlook {
    game.answer(seat, strength, ctx).outlook
}

/// The lost outlook of a searching strength resigns after the game's count, not before.
fn assert_resigns_in_time(kind: GameKind, outlook: Outlook) {
    let rule = rule(kind);
    let expected = match outlook {
        Outlook::Proven => Some(rule.proven_in_a_row),
        Outlook::Lost => rule.lost_in_a_row,
        Outlook::Unclear => None,
    };
    assert!(expected.is_some(), "{kind:?}: {outlook:?} is not lost");
    assert_eq!(resigns_after(kind, outlook), expected, "{kind:?}");
}

fn gomoku(x: &[&str], o: &[&str]) -> Gomoku {
    let mut game = Gomoku::new(&GomokuSettings {
        variant: Variant::Free,
        board_size: 15,
        opening: Opening::Free,
    });
    for (i, at) in x.iter().enumerate() {
        let at = at.parse().expect("a test square");
        game.play(0, &GomokuMove { at }).expect("X's setup move");
        if let Some(at) = o.get(i) {
            let at = at.parse().expect("a test square");
            game.play(1, &GomokuMove { at }).expect("O's setup move");
        }
    }
    game
}

/// X's stones on the edges, far apart: X can make no four anywhere.
const X_SCATTERED: [&str; 6] = ["A1", "A15", "O1", "O15", "H1", "A8"];

#[test]
fn gomoku_resigns_against_a_vcf_it_cannot_stop() {
    // O has two open threes far apart: whichever X stops, O makes an open four of the other.
    let lost = gomoku(&X_SCATTERED, &["D4", "E4", "F4", "K10", "K11", "K12"]);
    assert_eq!(outlook(&lost, 0, Strength::Hard, &generous()), Outlook::Proven);
    assert_resigns_in_time(GameKind::Gomoku, Outlook::Proven);
    // Medium sees no VCF: only an unstoppable five proves anything to it.
    assert_eq!(outlook(&lost, 0, Strength::Medium, &generous()), Outlook::Unclear);
    // An open four: lost for Medium and Hard, never for Easy and Random.
    let open_four = gomoku(&X_SCATTERED, &["D4", "E4", "F4", "G4", "K10", "K12"]);
    for strength in [Strength::Medium, Strength::Hard] {
        assert_eq!(
            outlook(&open_four, 0, strength, &generous()),
            Outlook::Proven,
            "{strength:?}"
        );
    }
    for strength in [Strength::Random, Strength::Easy] {
        assert_eq!(
            outlook(&open_four, 0, strength, &generous()),
            Outlook::Unclear,
            "{strength:?}"
        );
    }
}

#[test]
fn gomoku_does_not_resign_a_close_position() {
    // One open three of O's: X blocks it and plays on.
    let close = gomoku(&X_SCATTERED, &["D4", "E4", "F4", "K10", "M12", "B13"]);
    assert_eq!(outlook(&close, 0, Strength::Hard, &short()), Outlook::Unclear);
    let opening = gomoku(&["H8"], &["H9"]);
    assert_eq!(outlook(&opening, 0, Strength::Hard, &short()), Outlook::Unclear);
}

#[test]
fn lines_of_action_resigns_a_lost_position() {
    // White to move; black joins its groups whatever white does (found in hard against
    // random).
    let text = "..w....ww......wwbb.b...bb......w.bb..bw...b..w.w...........bb.. w";
    let lost = LinesOfAction::from_position(text).expect("a position");
    let seen = outlook(&lost, 1, Strength::Hard, &generous());
    assert_ne!(seen, Outlook::Unclear);
    assert_resigns_in_time(GameKind::LinesOfAction, seen);
    assert_eq!(outlook(&lost, 1, Strength::Easy, &generous()), Outlook::Unclear);
}

#[test]
fn lines_of_action_does_not_resign_a_close_position() {
    let start = LinesOfAction::new(&LoaSettings::default());
    for strength in [Strength::Medium, Strength::Hard] {
        assert_eq!(outlook(&start, 0, strength, &short()), Outlook::Unclear, "{strength:?}");
    }
}

#[test]
fn krux_resigns_when_every_turn_lets_the_opponent_win() {
    // Piece 6 is in turn and whatever it does, the opponent's next piece can push one of
    // its pieces into the hole (found in games between weak bots).
    let lost = Krux::from_position("1f3b 2b4p 3b6g 4f5 5f2 6g7 / 6").expect("a position");
    let seat = lost.to_move().expect("running");
    for strength in [Strength::Medium, Strength::Hard] {
        let seen = outlook(&lost, seat, strength, &generous());
        assert_eq!(seen, Outlook::Proven, "{strength:?}");
    }
    assert_resigns_in_time(GameKind::Krux, Outlook::Proven);
    assert_eq!(outlook(&lost, seat, Strength::Easy, &generous()), Outlook::Unclear);
}

#[test]
fn krux_does_not_resign_a_close_position() {
    let start = Krux::new(&Default::default());
    assert_eq!(outlook(&start, 0, Strength::Hard, &short()), Outlook::Unclear);
}

fn bughouse(a: &str, b: &str) -> Bughouse {
    let board = |fen: &str| parse_board(fen).unwrap_or_else(|err| panic!("bad test FEN {fen}: {err}"));
    Bughouse::from_positions(board(a), board(b))
}

/// Board A, black (seat 1) to move: white mates by force (found in hard against random).
const MATED: &str = "rn1q1bnr/ppp3Pp/3kR3/3pp3/8/3P3Q/PPP2PPP/RNB1KBNR[P] b KQ - 2 8";

#[test]
fn bughouse_resigns_a_forced_mate_only_when_the_partner_cannot_help() {
    // The partner (seat 2, white on board B) is far behind: the team is lost.
    let hopeless = bughouse(
        MATED,
        "r2qkb1r/ppp1pppp/1b3n2/3p4/P2B2b1/3P1N2/n1P1PPPP/1N1QKB1R[pp] b Kkq - 3 8",
    );
    assert_eq!(outlook(&hopeless, 1, Strength::Hard, &generous()), Outlook::Proven);
    assert_resigns_in_time(GameKind::Bughouse, Outlook::Proven);
    // The same mate with the partner three queens up: the partner may win first.
    let hope = bughouse(MATED, "k7/8/8/8/8/8/8/QQQ1K3[] b - - 0 1");
    assert_eq!(outlook(&hope, 1, Strength::Hard, &generous()), Outlook::Unclear);
    // And never for a team a person plays on.
    let mut watch = Watch::default();
    assert!((0..12).all(|n| !watch.resigns(GameKind::Bughouse, Outlook::Proven, 20 + n, true)));
}

#[test]
fn bughouse_does_not_resign_a_close_position() {
    let start = Bughouse::new(&Default::default());
    assert_eq!(outlook(&start, 0, Strength::Hard, &short()), Outlook::Unclear);
}
