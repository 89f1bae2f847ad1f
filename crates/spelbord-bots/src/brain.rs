//! Our Gomoku bot as a Gomocup "brain": the engine side of the protocol that
//! [`engine`](crate::engine) speaks to outside engines
//! (<https://plastovicka.github.io/protocl2en.htm>), so that `spelbord gomocup` can sit in
//! piskvork, in a Gomocup-style tournament, or in our own arena as `engine:NAME` (an older
//! build of ours against a newer one, for instance).
//!
//! [`Brain::handle`] takes one line from the manager and gives the lines to answer; it never
//! panics on input. Understood: `START size` (5 to 26), `RESTART`, `BEGIN`, `TURN x,y`,
//! `BOARD` … `DONE` (`x,y,who`, `who` 1 for ours and 2 for the opponent's), `INFO`
//! (`timeout_turn`, `timeout_match`, `time_left`, `rule`: bit 1 set plays exactly five,
//! renju and caro are refused), `ABOUT`, `END`. Anything else is answered `UNKNOWN`; a
//! command that cannot be carried out (a taken square, a size we do not play, a position
//! no game reaches, a `BOARD` line it cannot read: answered at `DONE`) is answered `ERROR`
//! and changes nothing.
//!
//! Coordinates are piskvork's (as in `engine/gomocup.rs`); the time for a move is `timeout_turn` less
//! [`TURN_MARGIN_MS`], and with a match clock at most a [`MATCH_SHARE`]th of `time_left`.
//! The protocol has no resignation: where our bot would resign, the brain plays Easy's move.

use std::io::{self, BufRead, Write};
use std::time::Duration;

use spelbord_games::gomoku::{Gomoku, GomokuMove, GomokuSettings, Opening, Square, Variant};
use spelbord_games::{Rules, Seat};

use crate::engine::gomocup::{cut, from_xy, to_xy};
use crate::{Bot, Context, Decision, Strength};

/// The time kept back from each `timeout_turn` for reading, writing and the manager.
pub const TURN_MARGIN_MS: u64 = 30;
/// With a match clock, a move takes at most this share of the time left.
pub const MATCH_SHARE: u64 = 20;
/// `timeout_turn` until the manager says otherwise (the protocol's suggested default).
const DEFAULT_TURN_MS: u64 = 30_000;
/// The board sizes we play.
const SIZES: std::ops::RangeInclusive<u8> = 5..=26;

/// What one line asks of the process.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// Write these lines (none for `INFO` and inside `BOARD`).
    Answer(Vec<String>),
    /// `END`: stop.
    End,
}

/// Answers a manager's lines from `input` on `output` (each answer flushed at once) until
/// `END` or the end of the input; `spelbord gomocup` runs it on stdin and stdout.
pub fn run(strength: Strength, input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let mut brain = Brain::new(strength);
    for line in input.lines() {
        match brain.handle(&line?) {
            Step::End => break,
            Step::Answer(lines) => {
                for answer in lines {
                    writeln!(output, "{answer}")?;
                    output.flush()?;
                }
            }
        }
    }
    Ok(())
}

/// The lines of a `BOARD` so far.
#[derive(Default)]
struct BoardReading {
    /// (square, 1 ours or 2 theirs), in the order given.
    stones: Vec<(Square, u8)>,
    /// The first line that could not be read, if any: the whole `BOARD` is refused.
    bad: Option<String>,
}

/// One conversation with a manager.
pub struct Brain {
    strength: Strength,
    size: u8,
    variant: Variant,
    game: Gomoku,
    turn_ms: u64,
    match_ms: u64,
    time_left_ms: Option<u64>,
    /// The `BOARD` being read, until its `DONE`.
    board: Option<BoardReading>,
    /// Seeds each move's search (moves differ, games repeat).
    moves_made: u64,
}

impl Brain {
    /// A brain playing at `strength` on a 15 × 15 free-style board until told otherwise.
    pub fn new(strength: Strength) -> Brain {
        Brain {
            strength,
            size: 15,
            variant: Variant::Free,
            game: new_game(15, Variant::Free),
            turn_ms: DEFAULT_TURN_MS,
            match_ms: 0,
            time_left_ms: None,
            board: None,
            moves_made: 0,
        }
    }

    /// What to answer to one line from the manager.
    pub fn handle(&mut self, line: &str) -> Step {
        let line = line.trim();
        if let Some(reading) = &mut self.board {
            if line.eq_ignore_ascii_case("DONE") {
                let reading = self.board.take().unwrap_or_default();
                return match reading.bad {
                    Some(bad) => error(&bad),
                    None => self.set_position(&reading.stones),
                };
            }
            match parse_stone(line, self.size) {
                Some(stone) => reading.stones.push(stone),
                None => {
                    // Answered at DONE, once, and nothing changes.
                    reading.bad.get_or_insert_with(|| {
                        format!("a BOARD line is x,y,1 or x,y,2 on the board, not {}", cut(line))
                    });
                }
            }
            return Step::Answer(Vec::new());
        }
        let (command, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        match command.to_ascii_uppercase().as_str() {
            "" => Step::Answer(Vec::new()),
            "START" => match rest.parse::<u8>() {
                Ok(size) if SIZES.contains(&size) => {
                    self.size = size;
                    self.restart()
                }
                _ => error(&format!("unsupported size {}; 5 to 26", cut(rest))),
            },
            "RECTSTART" => error("rectangular boards are not supported"),
            "RESTART" => self.restart(),
            "BEGIN" if self.game.moves().is_empty() => self.answer(),
            "BEGIN" => error("BEGIN on a board with stones"),
            "TURN" => self.turn(rest),
            "BOARD" => {
                self.board = Some(BoardReading::default());
                Step::Answer(Vec::new())
            }
            "INFO" => self.info(rest),
            "ABOUT" => Step::Answer(vec![format!(
                "name=\"spelbord\", version=\"{}\", author=\"spelbord\", country=\"SE\"",
                env!("CARGO_PKG_VERSION")
            )]),
            "END" => Step::End,
            _ => Step::Answer(vec![format!("UNKNOWN {}", cut(command))]),
        }
    }

    fn restart(&mut self) -> Step {
        self.game = new_game(self.size, self.variant);
        Step::Answer(vec!["OK".to_owned()])
    }

    fn turn(&mut self, rest: &str) -> Step {
        let Some(square) = from_xy(rest, self.size) else {
            return error(&format!("TURN needs x,y on the board, not {}", cut(rest)));
        };
        let Some(seat) = self.game.to_move() else {
            return error("the game is over");
        };
        let mut next = self.game.clone();
        if let Err(err) = next.play(seat, &GomokuMove { at: square }) {
            return error(&format!("TURN {}: {err}", cut(rest)));
        }
        if next.to_move().is_none() {
            return error("TURN ends the game");
        }
        self.game = next;
        self.answer()
    }

    fn info(&mut self, rest: &str) -> Step {
        let (key, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let number = value.trim().parse::<u64>().ok();
        match (key.to_ascii_lowercase().as_str(), number) {
            ("timeout_turn", Some(ms)) => self.turn_ms = ms,
            ("timeout_match", Some(ms)) => self.match_ms = ms,
            ("time_left", Some(ms)) => self.time_left_ms = Some(ms),
            ("rule", Some(rule)) if rule & !1 != 0 => {
                return Step::Answer(vec![format!(
                    "ERROR rule {rule} is not supported: five or more (0) and exactly five (1) only"
                )]);
            }
            ("rule", Some(rule)) => {
                let variant = if rule & 1 == 1 { Variant::Exact5 } else { Variant::Free };
                if variant != self.variant {
                    self.variant = variant;
                    let moves = self.game.moves().to_vec();
                    self.game = replay(self.size, variant, &moves).unwrap_or_else(|| new_game(self.size, variant));
                }
            }
            _ => {}
        }
        Step::Answer(Vec::new())
    }

    /// The position of a `BOARD`, our side to move: the stones in the order given, ours and
    /// theirs alternating from whoever has more (first to move when as many).
    fn set_position(&mut self, stones: &[(Square, u8)]) -> Step {
        let ours: Vec<Square> = stones.iter().filter(|s| s.1 == 1).map(|s| s.0).collect();
        let theirs: Vec<Square> = stones.iter().filter(|s| s.1 == 2).map(|s| s.0).collect();
        let (first, second) = if ours.len() == theirs.len() {
            (&ours, &theirs)
        } else if theirs.len() == ours.len() + 1 {
            (&theirs, &ours)
        } else {
            return error("a BOARD with our side to move has as many of our stones as theirs, or one fewer");
        };
        let moves: Vec<Square> = (0..first.len())
            .flat_map(|i| std::iter::once(first[i]).chain(second.get(i).copied()))
            .collect();
        match replay(self.size, self.variant, &moves) {
            Some(game) => {
                self.game = game;
                self.answer()
            }
            None => error("no game reaches that BOARD (a taken square, or a finished game)"),
        }
    }

    /// Our move in the current position, played on our board and written as `x,y`.
    fn answer(&mut self) -> Step {
        let Some(seat) = self.game.to_move() else {
            return error("the game is over");
        };
        let decided = match self.decide(seat, self.strength) {
            Decision::Play(mv) => Some(mv),
            // No resignation in the protocol: a lost position still gets a move.
            Decision::Resign | Decision::Wait => match self.decide(seat, Strength::Easy) {
                Decision::Play(mv) => Some(mv),
                _ => None,
            },
        };
        let Some(mv) = decided else {
            return error("no move");
        };
        if let Err(err) = self.game.play(seat, &mv) {
            return error(&format!("our own move was refused: {err}"));
        }
        self.moves_made += 1;
        let (x, y) = to_xy(mv.at, self.size);
        Step::Answer(vec![format!("{x},{y}")])
    }

    fn decide(&self, seat: Seat, strength: Strength) -> Decision<GomokuMove> {
        let ctx = Context::with_budget(Duration::from_millis(self.move_ms()), self.moves_made);
        self.game.decide(seat, strength, &ctx)
    }

    /// The time for this move.
    fn move_ms(&self) -> u64 {
        let mut ms = self.turn_ms.saturating_sub(TURN_MARGIN_MS);
        if self.match_ms > 0
            && let Some(left) = self.time_left_ms
        {
            ms = ms.min(left / MATCH_SHARE);
        }
        ms.max(1)
    }
}

fn new_game(size: u8, variant: Variant) -> Gomoku {
    Gomoku::new(&GomokuSettings {
        variant,
        board_size: size,
        opening: Opening::Free,
    })
}

/// The game after `moves` from the start, if every move is legal and it is not over.
fn replay(size: u8, variant: Variant, moves: &[Square]) -> Option<Gomoku> {
    let mut game = new_game(size, variant);
    for &at in moves {
        let seat = game.to_move()?;
        game.play(seat, &GomokuMove { at }).ok()?;
    }
    game.to_move().is_some().then_some(game)
}

/// One `x,y,who` line of a `BOARD` (`who` 1 or 2).
fn parse_stone(line: &str, size: u8) -> Option<(Square, u8)> {
    let (xy, who) = line.rsplit_once(',')?;
    let who: u8 = who.trim().parse().ok()?;
    let square = from_xy(xy, size)?;
    matches!(who, 1 | 2).then_some((square, who))
}

fn error(text: &str) -> Step {
    Step::Answer(vec![format!("ERROR {text}")])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(step: Step) -> Vec<String> {
        match step {
            Step::Answer(lines) => lines,
            Step::End => panic!("an answer, not the end"),
        }
    }

    fn one(brain: &mut Brain, line: &str) -> String {
        let answer = lines(brain.handle(line));
        assert_eq!(answer.len(), 1, "{line}: {answer:?}");
        answer[0].clone()
    }

    /// A fast brain: 50 ms a move.
    fn brain(strength: Strength) -> Brain {
        let mut brain = Brain::new(strength);
        assert_eq!(one(&mut brain, "START 15"), "OK");
        assert!(lines(brain.handle("INFO timeout_turn 80")).is_empty());
        brain
    }

    fn square(text: &str) -> Square {
        text.parse().expect("a test square")
    }

    fn xy(text: &str) -> String {
        let (x, y) = to_xy(square(text), 15);
        format!("{x},{y}")
    }

    #[test]
    fn begin_then_turns_answer_legal_moves_on_our_board() {
        let mut b = brain(Strength::Hard);
        let first = one(&mut b, "BEGIN");
        assert!(from_xy(&first, 15).is_some(), "{first}");
        let reply = one(&mut b, "TURN 0,0");
        let square = from_xy(&reply, 15).expect("x,y");
        assert_eq!(b.game.moves().len(), 3);
        assert_eq!(b.game.mark_at(square).map(|m| m.seat()), Some(0), "our stone, as X");
    }

    #[test]
    fn a_board_is_read_and_a_five_is_completed() {
        // Ours: H8 I8 J8 K8 (to move, four stones each): the answer completes the five.
        let mut b = brain(Strength::Easy);
        assert!(lines(b.handle("BOARD")).is_empty());
        for (at, who) in [
            ("H8", 1),
            ("A1", 2),
            ("I8", 1),
            ("A3", 2),
            ("J8", 1),
            ("A5", 2),
            ("K8", 1),
            ("C1", 2),
        ] {
            assert!(lines(b.handle(&format!("{},{who}", xy(at)))).is_empty());
        }
        let answer = one(&mut b, "DONE");
        assert!([xy("G8"), xy("L8")].contains(&answer), "{answer}");
    }

    #[test]
    fn a_board_with_their_extra_stone_makes_us_o() {
        let mut b = brain(Strength::Easy);
        b.handle("BOARD");
        b.handle(&format!("{},2", xy("H8")));
        let answer = one(&mut b, "DONE");
        let square = from_xy(&answer, 15).expect("x,y");
        assert_eq!(b.game.mark_at(square).map(|m| m.seat()), Some(1), "our stone, as O");
    }

    #[test]
    fn bad_commands_get_errors_and_change_nothing() {
        let mut b = brain(Strength::Easy);
        b.handle("BEGIN");
        let before = b.game.moves().to_vec();
        let taken = xy(&before[0].to_string());
        for line in [
            format!("TURN {taken}"),
            "TURN 15,0".to_owned(),
            "TURN seven".to_owned(),
            "START 40".to_owned(),
            "RECTSTART 15,10".to_owned(),
            "BEGIN".to_owned(),
        ] {
            assert!(one(&mut b, &line).starts_with("ERROR"), "{line}");
            assert_eq!(b.game.moves(), before, "{line}");
        }
        assert_eq!(one(&mut b, "YIELD"), "UNKNOWN YIELD");
        assert!(one(&mut b, "INFO rule 4").starts_with("ERROR"), "renju is refused");
        // A BOARD whose counts do not fit our move, or a bad line in it.
        b.handle("BOARD");
        b.handle("7,7,1");
        b.handle("8,8,1");
        assert!(one(&mut b, "DONE").starts_with("ERROR"));
        b.handle("BOARD");
        for line in ["7,7,3", "8,8,1", "9,9,2"] {
            assert!(lines(b.handle(line)).is_empty(), "answered at DONE");
        }
        assert!(one(&mut b, "DONE").starts_with("ERROR"));
        assert_eq!(b.game.moves(), before);
        assert!(one(&mut b, "ABOUT").starts_with("name=\"spelbord\""));
        assert_eq!(b.handle("END"), Step::End);
    }

    #[test]
    fn restart_and_rule_set_the_game() {
        let mut b = brain(Strength::Easy);
        b.handle("BEGIN");
        assert_eq!(one(&mut b, "RESTART"), "OK");
        assert!(b.game.moves().is_empty());
        assert!(lines(b.handle("INFO rule 1")).is_empty());
        assert_eq!(b.game.variant(), Variant::Exact5);
        assert_eq!(one(&mut b, "START 19"), "OK");
        assert_eq!(b.game.size(), 19);
        assert_eq!(b.game.variant(), Variant::Exact5, "the rule outlives a START");
    }

    #[test]
    fn run_answers_line_by_line_until_end() {
        let input = "START 15\nINFO timeout_turn 80\nBEGIN\nEND\nABOUT\n";
        let mut output = Vec::new();
        run(Strength::Easy, input.as_bytes(), &mut output).expect("in memory");
        let text = String::from_utf8(output).expect("text");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "OK and a move, nothing after END: {text}");
        assert_eq!(lines[0], "OK");
        assert!(from_xy(lines[1], 15).is_some(), "{text}");
    }

    #[test]
    fn the_time_for_a_move_follows_the_manager() {
        let mut b = Brain::new(Strength::Easy);
        b.handle("INFO timeout_turn 200");
        assert_eq!(b.move_ms(), 200 - TURN_MARGIN_MS);
        b.handle("INFO timeout_match 60000");
        b.handle("INFO time_left 2000");
        assert_eq!(b.move_ms(), 2000 / MATCH_SHARE);
        b.handle("INFO timeout_turn 0");
        assert_eq!(b.move_ms(), 1, "as fast as it can");
    }
}
