//! **Perft.** [`perft1`] counts the distinct positions (piece squares, rings, piece in
//! turn) that the rest of the current turn can end in, each once however many part
//! orders reach it; a pass counts, each ring choice counts (the ring is part of the
//! position), and each distinct won board (a piece in the hole) counts once. Whether a
//! boundary also ends the game by repetition or the cap does not matter. From the start
//! it is 2132. [`turn_outcomes`] lists one part list per counted end (for bots),
//! [`winning_turn`] finds a win if there is one, and [`Rules::legal_moves`] lists the
//! legal single parts now.

use std::collections::{HashMap, HashSet};

use super::turn::{Effect, State};
use super::{Board, Krux, KruxMove, Part};
use crate::Rules;

// ------------------------------------------------------------- turn enumeration

/// How one complete turn can end: a position at the next turn boundary, or a won board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct TurnEnd {
    pub(super) board: Board,
    pub(super) won: bool,
}

/// A depth-first search over the parts of the current turn, each intermediate state
/// visited once.
pub(super) struct Explorer {
    visited: HashSet<State>,
    index: HashMap<TurnEnd, usize>,
    pub(super) ends: Vec<(Vec<Part>, TurnEnd)>,
    path: Vec<Part>,
    stop_at_win: bool,
    won: bool,
}

impl Explorer {
    pub(super) fn run(start: State, stop_at_win: bool) -> Explorer {
        let mut explorer = Explorer {
            visited: HashSet::new(),
            index: HashMap::new(),
            ends: Vec::new(),
            path: Vec::new(),
            stop_at_win,
            won: false,
        };
        explorer.visited.insert(start);
        explorer.visit(&start);
        explorer
    }

    fn visit(&mut self, state: &State) {
        let mut candidates = Vec::new();
        state.candidates(&mut candidates);
        for part in candidates {
            if self.stop_at_win && self.won {
                return;
            }
            let mut next = *state;
            let Some(effect) = next.try_apply(part) else { continue };
            self.path.push(part);
            match effect {
                Effect::Continue => {
                    if self.visited.insert(next) {
                        self.visit(&next);
                    }
                }
                Effect::TurnOver | Effect::Won => {
                    let end = TurnEnd {
                        board: next.board,
                        won: effect == Effect::Won,
                    };
                    self.won |= end.won;
                    if !self.index.contains_key(&end) {
                        self.index.insert(end, self.ends.len());
                        self.ends.push((self.path.clone(), end));
                    }
                }
            }
            self.path.pop();
        }
    }
}

/// The number of distinct positions (piece squares, rings, piece in turn) that the rest of
/// the current turn can end in, each counted once however many part orders reach it. A
/// pass counts, each ring choice counts, and each distinct won board counts once. Zero once
/// the game is over. See the module doc.
pub fn perft1(game: &Krux) -> u64 {
    if game.outcome.is_some() {
        return 0;
    }
    Explorer::run(game.state, false).ends.len() as u64
}

/// Distinct-position perft: depth 0 is 1; depth `d` sums, over the distinct positions the
/// current turn can end in where the game goes on, the perft of depth `d - 1`. A turn that
/// ends the game (a win, a repetition, the turn cap) is a leaf and counts only at depth 1.
pub fn perft(game: &Krux, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => perft1(game),
        _ => turn_outcomes(game)
            .iter()
            .filter(|(_, next)| next.outcome.is_none())
            .map(|(_, next)| perft(next, depth - 1))
            .sum(),
    }
}

/// Every distinct way the rest of the current turn can end (as [`perft1`] counts them), each
/// with one part list that reaches it and the game after playing that list. Empty once the
/// game is over. The order is fixed: depth-first, parts tried in the order of
/// [`Rules::legal_moves`].
pub fn turn_outcomes(game: &Krux) -> Vec<(Vec<Part>, Krux)> {
    let Some(seat) = game.to_move() else {
        return Vec::new();
    };
    Explorer::run(game.state, false)
        .ends
        .into_iter()
        .filter_map(|(parts, _)| {
            let mut next = game.clone();
            next.play(seat, &KruxMove::Turn(parts.clone())).ok()?;
            Some((parts, next))
        })
        .collect()
}

/// Whether the piece in turn can put an opponent's piece into the hole before its current
/// turn ends; if so, one part list that does it (the first found, not necessarily the
/// shortest). Stops searching at the first win.
pub fn winning_turn(game: &Krux) -> Option<Vec<Part>> {
    game.outcome.is_none().then_some(())?;
    let explorer = Explorer::run(game.state, true);
    explorer
        .ends
        .into_iter()
        .find(|(_, end)| end.won)
        .map(|(parts, _)| parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::krux::square::*;
    use crate::krux::test_support::*;
    use crate::krux::*;
    use crate::*;
    use proptest::prelude::*;
    use serde_json::{Value, json};
    use std::collections::HashSet;

    // ------------------------------------------------------- start position search

    /// The end boards of the current turn of `state`, and whether any of them is a win.
    fn ends_of(state: State, stop_at_win: bool) -> (Vec<Board>, bool) {
        let explorer = Explorer::run(state, stop_at_win);
        let won = explorer.won;
        (explorer.ends.into_iter().map(|(_, end)| end.board).collect(), won)
    }

    /// Whether neither side can win in its first turn from `start` (white to move, no rings):
    /// white's first turn has no win, and after every one of white's first turns black's
    /// first turn has none. On failure, a white turn end after which black wins (or `None`
    /// when white itself wins).
    fn first_turns_safe(start: KruxPosition) -> Result<(), Option<KruxPosition>> {
        let (mut after_white, white_wins) = ends_of(State::at_boundary(start), true);
        if white_wins {
            return Err(None);
        }
        // Most likely failures first: white pieces close to the hole.
        let closeness = |board: &Board| -> u8 {
            [0usize, 2, 4]
                .iter()
                .map(|&p| distance(board.loc[p], HOLE_INDEX))
                .min()
                .unwrap_or(0)
        };
        after_white.sort_by_key(closeness);
        for board in after_white {
            if ends_of(State::at_boundary(KruxPosition(board)), true).1 {
                return Err(Some(KruxPosition(board)));
            }
        }
        Ok(())
    }

    /// The 180° rotation about the hole.
    fn rotate(index: u8) -> u8 {
        CELLS - 1 - index
    }

    fn symmetric(white: [u8; 3]) -> Option<KruxPosition> {
        let loc = [
            white[0],
            rotate(white[0]),
            white[1],
            rotate(white[1]),
            white[2],
            rotate(white[2]),
        ];
        let distinct = (0..6).all(|i| (0..i).all(|j| loc[i] != loc[j]));
        (distinct && !loc.contains(&HOLE_INDEX)).then_some(KruxPosition(Board {
            loc,
            rings: [None; 6],
            in_turn: 0,
        }))
    }

    #[test]
    fn house_start_white_cannot_win_but_black_can_after_some_white_turns() {
        let start = KruxPosition::start();
        assert_eq!(start.to_string(), "1c1 2e7 3b2 4f6 5a3 6g5 / 1");
        assert_eq!(
            Some(start),
            symmetric([
                sq("c1").index().unwrap(),
                sq("b2").index().unwrap(),
                sq("a3").index().unwrap()
            ])
        );
        // White's first turn (piece 1, any ring) cannot put a black piece into the hole.
        let (after_white, white_wins) = ends_of(State::at_boundary(start), false);
        assert!(!white_wins);
        assert_eq!(after_white.len(), 2132);
        // The second half of the requirement is false: white can play into a position where
        // black's piece 2 wins at once. One such line, checked by hand:
        //   white: ring blue, c1-c2, end                → 1c2b 2e7 3b2 4f6 5a3 6g5 / 2
        //   black: ring green, e7-e6-d6-c6, pull c2 (to c4), jump to b4: the shove sends
        //          piece 1 from c4 into the hole.
        let mut g = Krux::with_position(start);
        g.play(
            0,
            &KruxMove::Turn(vec![
                part(json!({"part":"ring","ring":"blue"})),
                part(json!({"part":"step","to":"c2"})),
                part(json!({"part":"end"})),
            ]),
        )
        .unwrap();
        assert_eq!(g.position(), "1c2b 2e7 3b2 4f6 5a3 6g5 / 2");
        for p in [
            json!({"part":"ring","ring":"green"}),
            json!({"part":"step","to":"e6"}),
            json!({"part":"step","to":"d6"}),
            json!({"part":"step","to":"c6"}),
            json!({"part":"pull","target":"c2"}),
        ] {
            ok(&mut g, p);
        }
        assert_eq!(board(&g), "......./..2..4./......6/..1o.../5....../.3...../.......");
        ok(&mut g, json!({"part":"jump","to":"b4"}));
        won_by(&g, 1, 1);
        // But if white passes (with any ring), black's first turn cannot win.
        for ring in Ring::ALL {
            let mut g = Krux::with_position(start);
            g.play(0, &KruxMove::Turn(vec![Part::Ring { ring }, Part::End {}]))
                .unwrap();
            assert_eq!(winning_turn(&g), None, "{ring:?}");
        }
    }

    /// How many of white's 2132 first turns from the house start allow black an immediate
    /// win. Slow in a debug build: run with
    /// `cargo test --release -- --ignored black_wins_after --nocapture`.
    #[test]
    #[ignore]
    fn house_start_black_wins_after_1636_of_whites_2132_first_turns() {
        let (after_white, _) = ends_of(State::at_boundary(KruxPosition::start()), false);
        let losing = after_white
            .iter()
            .filter(|board| ends_of(State::at_boundary(KruxPosition(**board)), true).1)
            .count();
        assert_eq!((losing, after_white.len()), (1636, 2132));
    }

    /// Exhaustive search for the symmetric starting positions nearest to the house one
    /// (sum of the white pieces' orthogonal displacements; black is white turned 180°)
    /// for which neither side can win in its first turn. Slow: run with
    /// `cargo test --release -- --ignored nearest_symmetric --nocapture`.
    #[test]
    #[ignore]
    fn nearest_symmetric_start_search() {
        let house = [sq("c1"), sq("b2"), sq("a3")].map(|s| s.index().unwrap());
        let mut candidates: Vec<(u8, [u8; 3])> = Vec::new();
        for a in 0..CELLS {
            for b in 0..CELLS {
                for c in 0..CELLS {
                    let white = [a, b, c];
                    if symmetric(white).is_some() {
                        let d = (0..3).map(|i| distance(white[i], house[i])).sum();
                        candidates.push((d, white));
                    }
                }
            }
        }
        candidates.sort();
        println!("{} symmetric candidates", candidates.len());
        let next = std::sync::atomic::AtomicUsize::new(0);
        let found = std::sync::Mutex::new(Vec::new());
        let limit = std::sync::atomic::AtomicU8::new(u8::MAX);
        std::thread::scope(|scope| {
            for _ in 0..2 {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let Some(&(d, white)) = candidates.get(i) else { break };
                        if d > limit.load(std::sync::atomic::Ordering::SeqCst) {
                            break;
                        }
                        if i.is_multiple_of(2000) {
                            println!("candidate {i} at distance {d}");
                        }
                        let Some(start) = symmetric(white) else { continue };
                        if first_turns_safe(start).is_ok() {
                            println!("HOLDS at distance {d}: {start}");
                            limit.fetch_min(d, std::sync::atomic::Ordering::SeqCst);
                            found.lock().unwrap().push((d, start.to_string()));
                        }
                    }
                });
            }
        });
        let mut found = found.into_inner().unwrap();
        found.sort();
        println!("found: {found:?}");
        assert!(
            found.is_empty(),
            "a symmetric start satisfies the requirement after all: {found:?}"
        );
    }

    /// The ends of the current turn by brute force through the public API: every part of
    /// [`every_part`] through `play`, every intermediate state (as the view shows it)
    /// visited once.
    fn brute_force_ends(g: &Krux) -> HashSet<String> {
        fn state_key(g: &Krux) -> String {
            let mut view = serde_json::to_value(g.view()).unwrap();
            view["turn"]["parts"] = Value::Null;
            view["turn"]["available"] = Value::Null;
            view.to_string()
        }
        fn walk(g: &Krux, all: &[Part], seen: &mut HashSet<String>, ends: &mut HashSet<String>) {
            let seat = g.to_move().unwrap();
            for &p in all {
                let mut next = g.clone();
                let Ok(played) = next.play(seat, &KruxMove::Part(p)) else {
                    continue;
                };
                if played.turn_over {
                    ends.insert(end_key(&next));
                } else if seen.insert(state_key(&next)) {
                    walk(&next, all, seen, ends);
                }
            }
        }
        let mut ends = HashSet::new();
        walk(g, &every_part(), &mut HashSet::new(), &mut ends);
        ends
    }

    #[test]
    fn perft1_of_known_positions() {
        for (text, expected) in POSITIONS {
            let g = Krux::from_position(text).unwrap();
            assert_eq!(perft1(&g), expected, "{text}");
            assert_eq!(perft(&g, 1), expected);
            assert_eq!(perft(&g, 0), 1);
        }
        // Boxed in: piece 4 on a1 can neither step nor move anything: only the pass.
        //   7 . . . . . . .
        //   5 . . . . 5 . .
        //   3 1 . . . . . .
        //   2 6 . . . . . .
        //   1 4 2 3 . . . .
        let boxed = Krux::from_position("1a3b 2b1g 3c1p 4a1 5e5 6a2 / 4").unwrap();
        let outcomes = turn_outcomes(&boxed);
        assert_eq!(outcomes.len(), 1);
        assert_eq!(outcomes[0].0, [Part::End {}]);
        assert_eq!(outcomes[0].1.position(), "1a3b 2b1g 3c1p 4a1 5e5 6a2 / 5");
        // Depth 2 from there: piece 5 on e5's turn.
        let after = Krux::from_position("1a3b 2b1g 3c1p 4a1 5e5 6a2 / 5").unwrap();
        assert_eq!(perft(&boxed, 2), perft1(&after));
    }

    #[test]
    fn perft1_counts_each_ring_choice_and_the_pass() {
        let g = Krux::new(&KruxSettings::default());
        let outcomes = turn_outcomes(&g);
        let mut by_ring = 0;
        for ring in Ring::ALL {
            let mut chosen = g.clone();
            chosen.play(0, &KruxMove::Part(Part::Ring { ring })).unwrap();
            let n = perft1(&chosen);
            by_ring += n;
            // The pass with this ring is one of the outcomes.
            let pass = format!("1c1{} 2e7 3b2 4f6 5a3 6g5 / 2", ring.letter());
            assert!(outcomes.iter().any(|(_, next)| next.position() == pass), "{pass}");
            // Mid-turn perft counts the rest of the turn.
            assert_eq!(turn_outcomes(&chosen).len() as u64, n);
        }
        assert_eq!(by_ring, perft1(&g));
    }

    #[test]
    fn enumerated_turns_replay_part_by_part() {
        for (text, expected) in POSITIONS {
            let g = Krux::from_position(text).unwrap();
            let seat = mover(&g);
            let outcomes = turn_outcomes(&g);
            assert_eq!(outcomes.len() as u64, expected);
            let mut keys = HashSet::new();
            for (parts, next) in &outcomes {
                let mut replay = g.clone();
                for (i, &p) in parts.iter().enumerate() {
                    let played = replay
                        .play(seat, &KruxMove::Part(p))
                        .unwrap_or_else(|err| panic!("{text}: {err}"));
                    assert_eq!(played.turn_over, i + 1 == parts.len(), "{text}: {parts:?}");
                }
                assert_eq!(&replay, next);
                assert!(keys.insert(end_key(next)), "{text}: a duplicate end {}", end_key(next));
            }
        }
    }

    #[test]
    fn enumeration_agrees_with_brute_force_through_play() {
        for text in [
            "1c1b 2e7g 3b2p 4f6 5a3 6g5 / 4",
            "1a3b 2b1g 3c1p 4a1 5e5 6a2 / 4",
            "1c1g 2e7b 3b2p 4f6 5a3 6g5 / 2",
            "1b6g 2d5b 3f3p 4c2 5e4 6d3 / 2",
        ] {
            let g = Krux::from_position(text).unwrap();
            let enumerated: HashSet<String> = turn_outcomes(&g).iter().map(|(_, next)| end_key(next)).collect();
            assert_eq!(enumerated, brute_force_ends(&g), "{text}");
        }
    }

    #[test]
    fn winning_turn_finds_a_win_when_there_is_one() {
        let g = Krux::from_position("1d3p 2e5b 3c4g 4e3 5b5 6f4 / 3").unwrap();
        let parts = winning_turn(&g).expect("pull f4 from c4 wins");
        let mut next = g.clone();
        next.play(0, &KruxMove::Turn(parts)).unwrap();
        assert_eq!(next.outcome().map(|o| o.reason), Some(EndReason::Hole));
        assert!(turn_outcomes(&g).iter().any(|(_, next)| next.outcome().is_some()));
        let quiet = Krux::from_position("1c1b 2e7g 3b2p 4f6 5a3 6g5 / 4").unwrap();
        assert_eq!(winning_turn(&quiet), None);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// A turn played part by part at random always ends in one of the enumerated ends.
        #[test]
        fn random_turns_end_in_an_enumerated_position(
            start in any_start(),
            seed in any::<u64>(),
            prefix in 0usize..8,
        ) {
            let mut state = seed | 1;
            let mut g = Krux::with_position(start);
            for _ in 0..prefix {
                let parts = random_turn(&g, &mut state);
                if parts.is_empty() { break; }
                let seat = mover(&g);
                g.play(seat, &KruxMove::Turn(parts)).map_err(|err| TestCaseError::fail(err.to_string()))?;
            }
            prop_assume!(g.outcome().is_none() || g.outcome().is_some_and(|o| o.reason != EndReason::Hole));
            prop_assume!(g.outcome().is_none());
            let ends: HashSet<TurnEnd> = Explorer::run(g.state, false).ends.into_iter().map(|(_, end)| end).collect();
            prop_assert_eq!(ends.len() as u64, perft1(&g));
            for _ in 0..4 {
                let parts = random_turn(&g, &mut state);
                let mut next = g.clone();
                next.play(mover(&g), &KruxMove::Turn(parts.clone())).map_err(|err| TestCaseError::fail(err.to_string()))?;
                let end = TurnEnd {
                    board: next.state.board,
                    won: next.outcome().is_some_and(|o| o.reason == EndReason::Hole),
                };
                prop_assert!(ends.contains(&end), "{:?} ended outside the enumeration", parts);
            }
        }
    }
}
