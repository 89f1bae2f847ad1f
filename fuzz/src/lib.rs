//! What the fuzz targets share: a game under test that checks the rules' invariants after
//! every move ([`Checked`]), and move payloads built from fuzz input ([`payload`]).
//!
//! The invariants (README.md lists them too):
//! - the game never panics, whatever the payload or seat;
//! - a refused move changes nothing: the view, the outcome, the seats to move and every
//!   seat's legal moves are the same before and after;
//! - a move that `legal_moves` lists is never refused;
//! - an accepted move came from a seat whose turn it was, in a game not yet over, and its
//!   normalised form (what the table stores and broadcasts) decodes again and is one of the
//!   moves `legal_moves` listed (Krux's whole-turn moves excepted: the list holds parts);
//! - once the game is over nobody is to move and nobody has a legal move;
//! - replaying the normalised moves on a fresh game (as the table does after a restart and
//!   for an undo) accepts each of them, normalises each to itself and ends in the same view.

use libfuzzer_sys::arbitrary::{Result as ArbResult, Unstructured};
use serde_json::{Map, Value, json};
use spelbord::games::bughouse::{StartPosition, parse_board};
use spelbord::games::krux::KruxPosition;
use spelbord::games::lines_of_action::Position as LoaPosition;
use spelbord::games::{AnyGame, EndReason, Outcome, Seat, SeatSet, SettingError};
use spelbord::protocol::{ClientMsg, parse_client_msg};
use spelbord::table::TableSettings;

/// Prints what an input did when `SPELBORD_FUZZ_VERBOSE` is set (to check that seeds do
/// what they are meant to: `SPELBORD_FUZZ_VERBOSE=1 fuzz/target/…/table_settings -runs=0
/// fuzz/seeds/table_settings`).
fn note(what: impl FnOnce() -> String) {
    if std::env::var_os("SPELBORD_FUZZ_VERBOSE").is_some() {
        eprintln!("{}", what());
    }
}

/// A game under test: its settings, the game, and what happened to it so far.
pub struct Checked {
    /// The table's settings, to build the fresh game the replay check plays on.
    settings: TableSettings,
    game: AnyGame,
    /// How many seats the game has.
    seats: Seat,
    /// Every accepted move (normalised) and every outside ending, in order.
    history: Vec<Step>,
}

/// One thing that happened to the game, for the replay.
enum Step {
    Move { seat: Seat, normalised: Value },
    Finish(Outcome),
}

/// What a client can observe of a game, and one seat's legal moves: compared before and
/// after that seat's refused move. (Only one seat's moves, for speed: a change hidden from
/// the view that alters another seat's moves still shows in the replay check.)
#[derive(Debug, PartialEq)]
struct Snapshot {
    view: Value,
    outcome: Option<Outcome>,
    active: SeatSet,
    /// The legal moves of the seat about to play.
    legal: Vec<Value>,
}

impl Checked {
    /// A game of `game` with these settings, or why the settings are refused.
    pub fn new(game: &str, settings: Value) -> Result<Checked, SettingError> {
        let settings = TableSettings::read(game, Some(settings))?;
        let seats = Seat::try_from(settings.game.seat_count()).expect("a game has a handful of seats");
        let game = settings.game.new_game();
        let checked = Checked {
            settings,
            game,
            seats,
            history: Vec::new(),
        };
        checked.check_consistent();
        Ok(checked)
    }

    /// The number of seats, so callers can also try one seat beyond them.
    pub fn seats(&self) -> Seat {
        self.seats
    }

    pub fn is_over(&self) -> bool {
        self.game.outcome().is_some()
    }

    /// The legal moves of `seat` now.
    pub fn legal_moves(&self, seat: Seat) -> Vec<Value> {
        self.game.legal_moves_json(seat)
    }

    /// The seats to move now.
    pub fn active_seats(&self) -> Vec<Seat> {
        self.game.active_seats().iter().collect()
    }

    /// Plays `payload` for `seat` and checks the invariants of the module doc.
    pub fn play(&mut self, seat: Seat, payload: &Value) {
        let legal = self.game.legal_moves_json(seat);
        self.play_with(seat, payload, legal);
    }

    /// [`Checked::play`] for a caller that has just asked for `seat`'s legal moves.
    fn play_with(&mut self, seat: Seat, payload: &Value, legal: Vec<Value>) {
        let before = Snapshot {
            view: self.game.view(),
            outcome: self.game.outcome().cloned(),
            active: self.game.active_seats(),
            legal,
        };
        let listed = before.legal.contains(payload);
        match self.game.play_json(seat, payload) {
            Err(err) => {
                let after = snapshot(&self.game, seat);
                assert!(
                    before == after,
                    "seat {seat}'s refused move {payload} ({err}) changed the game:\nbefore {before:?}\nafter {after:?}"
                );
                assert!(
                    !listed,
                    "seat {seat}'s move {payload} was listed as legal but refused: {err}"
                );
            }
            Ok((played, normalised)) => {
                assert!(
                    before.outcome.is_none(),
                    "seat {seat}'s move {payload} was accepted after the game ended"
                );
                assert!(
                    before.active.contains(seat),
                    "seat {seat}'s move {payload} was accepted though the seats to move were {:?}",
                    before.active
                );
                if let Err(err) = self.game.check_payload(&normalised) {
                    panic!("the normalised form {normalised} of {payload} does not decode: {err}");
                }
                let whole_turn = normalised.get("turn").is_some();
                if !whole_turn {
                    assert!(
                        before.legal.contains(&normalised),
                        "seat {seat}'s move {payload} was accepted as {normalised}, which legal_moves did not list: {:?}",
                        before.legal
                    );
                }
                let active = self.game.active_seats();
                if !self.is_over() && !played.turn_over {
                    assert!(
                        active.contains(seat),
                        "seat {seat}'s turn goes on after {payload}, but the seats to move are {active:?}"
                    );
                }
                self.check_consistent();
                self.history.push(Step::Move { seat, normalised });
            }
        }
    }

    /// Ends the game from outside the rules, as the table does on resignation or agreement.
    pub fn finish(&mut self, resigning: Option<Seat>) {
        if self.is_over() {
            return;
        }
        let outcome = match resigning {
            Some(seat) => {
                let team = self.settings.game.team_of(seat);
                let winners = (0..self.seats)
                    .filter(|&s| self.settings.game.team_of(s) != team)
                    .collect();
                Outcome::win(winners, EndReason::Resignation)
            }
            None => Outcome::draw(EndReason::DrawAgreed),
        };
        self.game.finish(outcome.clone());
        assert_eq!(self.game.outcome(), Some(&outcome), "finish did not end the game");
        self.check_consistent();
        self.history.push(Step::Finish(outcome));
    }

    /// The checks that hold in every state.
    fn check_consistent(&self) {
        assert!(!self.game.view().is_null(), "the view did not serialise");
        let active = self.game.active_seats();
        if self.is_over() {
            assert!(active.is_empty(), "the game is over but {active:?} are to move");
        } else {
            assert!(!active.is_empty(), "the game goes on but nobody is to move");
        }
        for seat in (0..self.seats).filter(|seat| !active.contains(*seat)) {
            let moves = self.game.legal_moves_json(seat);
            assert!(
                moves.is_empty(),
                "seat {seat} is not to move but has legal moves {moves:?}"
            );
        }
    }

    /// Replays the history on a fresh game and compares (see the module doc).
    pub fn check_replay(&self) {
        note(|| {
            let moves = self
                .history
                .iter()
                .filter(|step| matches!(step, Step::Move { .. }))
                .count();
            let outcome = self
                .game
                .outcome()
                .map(|o| format!("{} ({})", o.kind(), o.reason.as_str()));
            format!(
                "{moves} moves accepted; outcome {}",
                outcome.as_deref().unwrap_or("none")
            )
        });
        let mut fresh = self.settings.game.new_game();
        for (index, step) in self.history.iter().enumerate() {
            match step {
                Step::Move { seat, normalised } => match fresh.play_json(*seat, normalised) {
                    Ok((_, again)) => assert_eq!(&again, normalised, "move {index} normalised differently on replay"),
                    Err(err) => panic!("replaying move {index}, seat {seat}'s {normalised}, was refused: {err}"),
                },
                Step::Finish(outcome) => fresh.finish(outcome.clone()),
            }
        }
        for seat in 0..self.seats {
            let replayed = snapshot(&fresh, seat);
            let played = snapshot(&self.game, seat);
            assert!(
                replayed == played,
                "replaying {} steps gave another game:\nplayed {played:?}\nreplayed {replayed:?}",
                self.history.len()
            );
        }
    }
}

fn snapshot(game: &AnyGame, seat: Seat) -> Snapshot {
    Snapshot {
        view: game.view(),
        outcome: game.outcome().cloned(),
        active: game.active_seats(),
        legal: game.legal_moves_json(seat),
    }
}

/// The body of each game's move target: settings picked by the first bytes, then a game
/// driven by the rest (see [`drive`]), then the replay check.
pub fn fuzz_game(game: &str, data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(settings) = settings(game, &mut u) else {
        return;
    };
    let mut checked = match Checked::new(game, settings.clone()) {
        Ok(checked) => checked,
        Err(err) => panic!("the harness's own settings {settings} were refused: {err}"),
    };
    // Running out of input only ends the game early; the replay is checked either way.
    let _ = drive(&mut checked, game, &mut u);
    checked.check_replay();
}

/// Plays a game driven by `u`: mostly legal moves (so games get deep), and among them
/// moves for the wrong seat, payloads in the game's shape with random squares, arbitrary
/// JSON, and now and then a resignation or a draw, checking every invariant on the way.
pub fn drive(checked: &mut Checked, game: &str, u: &mut Unstructured) -> ArbResult<()> {
    let mut steps = 0;
    while !u.is_empty() && steps < 2_000 {
        steps += 1;
        let op: u8 = u.arbitrary()?;
        match op {
            // A legal move of a seat to move.
            0..=179 => {
                let active = checked.active_seats();
                if active.is_empty() {
                    // Over: any move must be refused.
                    let seat = u.int_in_range(0..=checked.seats())?;
                    checked.play(seat, &payload(game, u)?);
                    continue;
                }
                let seat = *u.choose(&active)?;
                let moves = checked.legal_moves(seat);
                if moves.is_empty() {
                    continue;
                }
                let mv = u.choose(&moves)?.clone();
                checked.play_with(seat, &mv, moves);
            }
            // Someone else's legal move, played by any seat (one beyond the seats too).
            180..=203 => {
                let owner = u.int_in_range(0..=checked.seats().saturating_sub(1))?;
                let moves = checked.legal_moves(owner);
                let Ok(mv) = u.choose(&moves) else { continue };
                let mv = mv.clone();
                let seat = u.int_in_range(0..=checked.seats())?;
                checked.play(seat, &mv);
            }
            // A payload in the game's shape with random contents.
            204..=235 => {
                let seat = u.int_in_range(0..=checked.seats())?;
                checked.play(seat, &payload(game, u)?);
            }
            // Arbitrary JSON (or a bare string when it is not JSON).
            236..=253 => {
                let seat = u.int_in_range(0..=checked.seats())?;
                let text: &str = u.arbitrary()?;
                let value = serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.into()));
                checked.play(seat, &value);
            }
            // An outside ending (rarely, so that games get long).
            254 => {
                let seat = u.int_in_range(0..=checked.seats().saturating_sub(1))?;
                checked.finish(Some(seat));
            }
            _ => checked.finish(None),
        }
    }
    Ok(())
}

/// The body of the `protocol` target: reads `text` as a client frame; the `move` and
/// `premove` payloads it carries are then decoded and played by every seat of a fresh game
/// of every kind, under the invariants of [`Checked`].
pub fn fuzz_protocol(text: &str) {
    // The lobby's socket reads the same kind of frames with its own messages: never a panic.
    match spelbord::lobby::messages::parse(text) {
        Ok((msg, reference)) => note(|| format!("lobby read: {msg:?} (ref {reference:?})")),
        Err((code, message, _)) => note(|| format!("lobby refused: {code:?} {message}")),
    }
    let envelope = match parse_client_msg(text) {
        Ok(envelope) => envelope,
        Err((code, message, _)) => {
            note(|| format!("refused: {code:?} {message}"));
            return;
        }
    };
    note(|| format!("read: {:?}", envelope.msg));
    let payload = match envelope.msg {
        ClientMsg::Move { payload, .. } | ClientMsg::Premove { payload, .. } => payload,
        _ => return,
    };
    for game in GAMES {
        let mut checked = Checked::new(game, json!({})).expect("the default settings are valid");
        for seat in 0..=checked.seats() {
            checked.play(seat, &payload);
        }
        checked.check_replay();
    }
}

/// A square name, mostly near the boards (columns a–t, rows 0–21, sometimes up to 120), sometimes upper case,
/// with a leading zero, or empty.
pub fn square(u: &mut Unstructured) -> ArbResult<String> {
    const COLUMNS: &[u8] = b"abcdefghijklmnopqrstABCDEFGHIJKLMNOPQRSTz";
    let column = char::from(*u.choose(COLUMNS)?);
    let row: u8 = if u.ratio(1, 8)? {
        u.int_in_range(0..=120)?
    } else {
        u.int_in_range(0..=21)?
    };
    Ok(match u.int_in_range(0..=15)? {
        0 => format!("{column}0{row}"),
        1 => String::new(),
        2 => format!("{row}{column}"),
        _ => format!("{column}{row}"),
    })
}

/// A move payload in the shape of `game`'s moves, with random contents.
pub fn payload(game: &str, u: &mut Unstructured) -> ArbResult<Value> {
    let mut value = match game {
        "gomoku" => json!({"at": square(u)?}),
        "lines-of-action" => match u.int_in_range(0..=7)? {
            0 => json!({"pass": true}),
            1 => json!({"pass": u.arbitrary::<bool>()?, "from": square(u)?}),
            2 => json!({"from": square(u)?}),
            _ => json!({"from": square(u)?, "to": square(u)?}),
        },
        "krux" => {
            if u.ratio(1, 4)? {
                let parts = (0..u.int_in_range(0..=6)?)
                    .map(|_| krux_part(u))
                    .collect::<ArbResult<Vec<_>>>()?;
                json!({"turn": parts})
            } else {
                krux_part(u)?
            }
        }
        _ => json!({"uci": uci(u)?}),
    };
    // Now and then a field too many.
    if u.ratio(1, 16)?
        && let Value::Object(map) = &mut value
    {
        map.insert("extra".into(), Value::from(1));
    }
    Ok(value)
}

/// One Krux part with random kind and contents.
fn krux_part(u: &mut Unstructured) -> ArbResult<Value> {
    const KINDS: &[&str] = &[
        "ring", "step", "push", "pull", "pick_up", "set_down", "jump", "swap", "end", "fly",
    ];
    const RINGS: &[&str] = &["blue", "green", "pink", "red"];
    let kind = *u.choose(KINDS)?;
    let mut part = Map::new();
    part.insert("part".into(), Value::from(kind));
    match kind {
        "ring" => {
            part.insert("ring".into(), Value::from(*u.choose(RINGS)?));
        }
        "step" | "set_down" | "jump" => {
            part.insert("to".into(), Value::from(square(u)?));
        }
        "end" => {}
        _ => {
            part.insert("target".into(), Value::from(square(u)?));
        }
    }
    Ok(Value::Object(part))
}

/// A UCI-like move: from-to with an optional promotion letter, or a drop, mostly on the
/// board.
fn uci(u: &mut Unstructured) -> ArbResult<String> {
    const PIECES: &[u8] = b"PNBRQKpnbrqkx";
    Ok(if u.ratio(1, 4)? {
        format!("{}@{}", char::from(*u.choose(PIECES)?), chess_square(u)?)
    } else {
        let mut text = format!("{}{}", chess_square(u)?, chess_square(u)?);
        if u.ratio(1, 6)? {
            text.push(char::from(u.choose(PIECES)?.to_ascii_lowercase()));
        }
        text
    })
}

/// A chess square, a–h 1–8 (e1, h1, a1 and c1 more often, for castling), or anything
/// [`square`] makes.
fn chess_square(u: &mut Unstructured) -> ArbResult<String> {
    Ok(match u.int_in_range(0..=15)? {
        0 => square(u)?,
        1 => (*u.choose(&["e1", "h1", "a1", "c1", "g1", "e8", "h8", "a8", "c8", "g8"])?).to_string(),
        _ => {
            let column = char::from(b'a' + u.int_in_range(0..=7)?);
            let row = u.int_in_range(1..=8)?;
            format!("{column}{row}")
        }
    })
}

/// A few settings per game worth playing from, picked by `u`: the defaults, each variant,
/// and start positions near the end of a game so outcomes come quickly.
pub fn settings(game: &str, u: &mut Unstructured) -> ArbResult<Value> {
    let choices: &[Value] = match game {
        "gomoku" => &[
            json!({}),
            json!({"variant": "exact5"}),
            json!({"board_size": 19}),
            json!({"opening": "free"}),
            json!({"variant": "exact5", "board_size": 19, "opening": "free"}),
        ],
        "lines-of-action" => &[
            json!({}),
            json!({"simultaneous": "mover-wins"}),
            json!({"start_position": "w......b/......../.w....../......../...b..../..b...../......../.......w b"}),
            json!({"simultaneous": "mover-wins",
                   "start_position": "w......b/......../.w....../......../...b..../..b...../......../.......w w"}),
            json!({"start_position": ".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbb. w"}),
        ],
        "krux" => &[
            json!({}),
            json!({"start_position": "1a1b 2g7g 3b2p 4f6 5a3 6g5 / 6"}),
            json!({"start_position": "1b6g 2d5b 3f3p 4c2 5e4 6d3 / 2"}),
            json!({"start_position": "1a3b 2b1g 3c1p 4a1 5e5 6a2 / 4"}),
        ],
        _ => &[
            json!({}),
            json!({"start_position": {
                "A": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R[] w KQkq - 0 1",
                "B": "r1bqk2r/ppp2ppp/2n5/2b1p3/2B5/5N2/PPPP1PPP/R1BQK2R[NPbp] w KQkq - 4 5"}}),
            json!({"start_position": {
                "A": "r3k2r/8/8/8/8/8/8/R3K2R[PPPPpppp] b KQkq - 0 1",
                "B": "4k3/4r3/8/8/8/8/8/4K3[NN] w - - 0 1"}}),
            json!({"start_position": {
                "A": "4k3/8/8/8/8/8/8/4K3[QRBNPqrbnp] w - - 0 1",
                "B": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"}}),
        ],
    };
    Ok(u.choose(choices)?.clone())
}

/// Splits fuzz input into a selector byte and the rest read as text (`None` when the rest
/// is not UTF-8: the server only ever reads text frames and JSON strings).
pub fn selector_and_text(data: &[u8]) -> Option<(u8, &str)> {
    let (&first, rest) = data.split_first()?;
    Some((first, std::str::from_utf8(rest).ok()?))
}

/// The game ids, in the order the `start_position` and `table_settings` targets pick them
/// with their first byte (`'0'` Gomoku … `'3'` Bughouse, as `b'0' % 4 == 0`).
pub const GAMES: [&str; 4] = ["gomoku", "lines-of-action", "krux", "bughouse"];

/// The body of the `notation` target: the first byte picks the notation (`'0'` Lines of
/// Action, `'1'` Krux, `'2'` a Bughouse board's FEN), the rest is the text. Whatever is
/// accepted prints in the canonical form, which reads back as the same position and prints
/// the same again.
pub fn fuzz_notation(selector: u8, text: &str) {
    match selector % 3 {
        0 => round_trip(text, str::parse::<LoaPosition>, LoaPosition::to_string),
        1 => round_trip(text, str::parse::<KruxPosition>, KruxPosition::to_string),
        _ => round_trip(text, parse_board, |board| {
            let [fen, _] = StartPosition {
                boards: Box::new([Clone::clone(board), Clone::clone(board)]),
            }
            .fens();
            fen
        }),
    }
}

/// Reads `text` with `read`; when accepted, checks that `print` gives a text that reads back
/// as the same position and prints the same again.
fn round_trip<P: PartialEq + std::fmt::Debug, E: std::fmt::Display>(
    text: &str,
    read: impl Fn(&str) -> Result<P, E>,
    print: impl Fn(&P) -> String,
) {
    let Ok(position) = read(text) else { return };
    let canonical = print(&position);
    let again =
        read(&canonical).unwrap_or_else(|err| panic!("{text:?} printed as {canonical:?}, which is refused: {err}"));
    assert_eq!(
        again, position,
        "{text:?} printed as {canonical:?}, which reads as another position"
    );
    assert_eq!(print(&again), canonical);
}

/// Reads `settings` for `game` and, when accepted, checks that the stored form
/// ([`TableSettings::to_json`]) reads back as the same settings: a table restarted from the
/// database must get the settings it was created with.
pub fn read_settings_round_trip(game: &str, settings: Value) -> Option<Value> {
    let read = TableSettings::read(game, Some(settings.clone())).ok()?;
    let stored = read.to_json();
    let again = TableSettings::read(game, Some(stored.clone()))
        .unwrap_or_else(|err| panic!("{settings} was accepted, but its stored form {stored} is refused: {err}"));
    assert_eq!(
        again.to_json(),
        stored,
        "{settings} stored as {stored} reads back differently"
    );
    Some(stored)
}

/// The body of the `start_position` target: the first byte picks the game (`'0'` Gomoku …
/// `'3'` Bughouse); the text is the `start_position` setting (JSON when it reads as JSON;
/// for Bughouse otherwise two FENs split at `|`, or one FEN for both boards). An accepted
/// start position round-trips through the stored settings, is refused at a rated table,
/// and starts a game that then plays under the invariants of [`Checked`], driven by the
/// same bytes.
pub fn fuzz_start_position(data: &[u8]) {
    let Some((selector, text)) = selector_and_text(data) else {
        return;
    };
    let game = GAMES[usize::from(selector % 4)];
    let position = match serde_json::from_str::<Value>(text) {
        Ok(value) => value,
        Err(_) if game == "bughouse" => {
            let (a, b) = text.split_once('|').unwrap_or((text, text));
            json!({"A": a, "B": b})
        }
        Err(_) => Value::String(text.into()),
    };
    let settings = json!({"start_position": position});
    let Some(stored) = read_settings_round_trip(game, settings.clone()) else {
        note(|| format!("{game}: {settings} refused"));
        return;
    };
    if !stored["start_position"].is_null() {
        let rated = TableSettings::read(game, Some(json!({"start_position": position, "rated": true})));
        assert!(rated.is_err(), "a rated table accepted the start position {position}");
    }
    let mut checked = Checked::new(game, stored.clone())
        .unwrap_or_else(|err| panic!("the stored settings {stored} are refused: {err}"));
    let _ = drive(&mut checked, game, &mut Unstructured::new(data));
    checked.check_replay();
}

/// The body of the `table_settings` target: the first byte picks the game (`'0'` Gomoku …
/// `'3'` Bughouse; any other byte than `'0'`–`'3'` reads the game id from the first line),
/// the rest is the `settings` object as JSON. Accepted settings round-trip through their
/// stored form and start a consistent game.
pub fn fuzz_table_settings(data: &[u8]) {
    let Some((selector, text)) = selector_and_text(data) else {
        return;
    };
    let (game, json) = match selector {
        b'0'..=b'3' => (GAMES[usize::from(selector - b'0')], text),
        _ => text.split_once('\n').unwrap_or((text, "")),
    };
    let settings = match json.trim() {
        "" => Value::Null,
        json => match serde_json::from_str(json) {
            Ok(value) => value,
            Err(_) => return,
        },
    };
    let Some(stored) = read_settings_round_trip(game, settings.clone()) else {
        note(|| format!("{game}: {settings} refused"));
        return;
    };
    note(|| format!("{game}: accepted, stored as {stored}"));
    let checked = Checked::new(game, stored.clone())
        .unwrap_or_else(|err| panic!("the stored settings {stored} are refused: {err}"));
    checked.check_replay();
}
