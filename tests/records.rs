//! Game records over real sockets and a real database: games played over WebSockets are
//! listed per table, read back move by move, replayed through the rules to the very
//! position the table shows (take-backs included), and exported in each game's notation.

mod common;

use common::{Client, TestApp, spawn_app};
use serde_json::{Value, json};
use shakmaty::san::SanPlus;
use shakmaty::variant::Crazyhouse;
use shakmaty::{CastlingMode, FromSetup, Position, Role};

/// Creates a table of `game` with chosen seats and `settings`; two players sit and see
/// the game start.
async fn two_player_table(app: &TestApp, game: &str, settings: Value) -> (String, Client, Client) {
    let mut settings = settings;
    settings["seating"] = json!("chosen");
    let created = app.create_table(json!({"game": game, "settings": settings})).await;
    let table = created["id"].as_str().expect("an id").to_owned();
    let ((first, _), (second, _)) = app.two_seated(&table).await;
    (table, first, second)
}

/// Sends a move and waits until `watcher` sees it (skipping earlier moves it had not read).
async fn play(mover: &mut Client, watcher: &mut Client, payload: Value) -> Value {
    mover.send(json!({"type": "move", "move": payload})).await;
    loop {
        let moved = watcher.until("moved").await;
        if moved["move"] == payload {
            return moved;
        }
    }
}

async fn get(app: &TestApp, path: &str) -> reqwest::Response {
    reqwest::get(app.http(path)).await.expect("GET")
}

async fn get_json(app: &TestApp, path: &str) -> Value {
    let response = get(app, path).await;
    assert_eq!(response.status(), 200, "GET {path}");
    response.json().await.expect("JSON")
}

async fn get_text(app: &TestApp, path: &str, content_type: &str) -> String {
    let response = get(app, path).await;
    assert_eq!(response.status(), 200, "GET {path}");
    let headers = response.headers().clone();
    assert!(
        headers[reqwest::header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with(content_type),
        "{path}: {headers:?}"
    );
    assert!(
        headers[reqwest::header::CONTENT_DISPOSITION]
            .to_str()
            .unwrap()
            .starts_with("attachment; filename=\"spelbord-"),
        "{path}: {headers:?}"
    );
    response.text().await.expect("text")
}

/// The only game of `table`, as listed, and its full record.
async fn only_game(app: &TestApp, table: &str) -> (Value, Value) {
    let listed = get_json(app, &format!("/api/tables/{table}/games")).await;
    let games = listed["games"].as_array().expect("games");
    assert_eq!(games.len(), 1, "{listed}");
    let id = games[0]["id"].as_str().expect("a game id").to_owned();
    let record = get_json(app, &format!("/api/games/{id}")).await;
    (games[0].clone(), record)
}

/// The movetext of a PGN-style export: the lines after the tag pairs.
fn movetext(text: &str) -> String {
    text.lines()
        .filter(|line| !line.starts_with('['))
        .collect::<Vec<_>>()
        .join(" ")
        .trim()
        .to_owned()
}

/// `text` without `{…}` comments (clock readings differ from run to run).
fn without_comments(text: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// The value of tag `name` in a PGN-style header.
fn tag<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let prefix = format!("[{name} \"");
    text.lines()
        .find_map(|line| line.strip_prefix(prefix.as_str()))
        .and_then(|rest| rest.strip_suffix("\"]"))
}

#[tokio::test]
async fn a_gomoku_game_with_a_take_back_replays_to_the_position_the_table_shows() {
    let app = spawn_app().await;
    let (table, mut anna, mut bo) = two_player_table(&app, "gomoku", json!({"undo": true})).await;
    play(&mut anna, &mut bo, json!({"at": "H8"})).await;
    play(&mut bo, &mut anna, json!({"at": "H9"})).await;
    play(&mut anna, &mut bo, json!({"at": "I8"})).await;
    // Bo takes H9 back (Anna's I8 goes with it).
    bo.send(json!({"type": "offer_undo"})).await;
    anna.until("undo_offered").await;
    anna.send(json!({"type": "accept_undo"})).await;
    bo.until("undone").await;
    let mut last = Value::Null;
    for (seat, at) in [
        (1, "G7"),
        (0, "I8"),
        (1, "A1"),
        (0, "J8"),
        (1, "A2"),
        (0, "K8"),
        (1, "A3"),
        (0, "L8"),
    ] {
        let (mover, watcher) = if seat == 0 {
            (&mut anna, &mut bo)
        } else {
            (&mut bo, &mut anna)
        };
        last = play(mover, watcher, json!({"at": at})).await;
    }
    anna.until("game_over").await;

    let (listed, record) = only_game(&app, &table).await;
    assert_eq!(
        (
            listed["status"].clone(),
            listed["result"]["outcome"].clone(),
            listed["result"]["winners"].clone(),
            listed["result"]["reason"].clone(),
            listed["move_count"].clone()
        ),
        (
            json!("finished"),
            json!("win"),
            json!([0]),
            json!("five_in_a_row"),
            json!(9)
        ),
        "{listed}"
    );
    assert_eq!(
        listed["players"],
        json!([
            {"seat": 0, "role": "X", "name": "X", "bot": null, "side": 0, "rating": null},
            {"seat": 1, "role": "O", "name": "O", "bot": null, "side": 1, "rating": null}
        ])
    );
    // Twelve records: eleven moves and the take-back; the line has nine moves.
    assert_eq!(record["records"].as_array().unwrap().len(), 12);
    assert_eq!(record["records"][3]["takeback_to"], 1);
    let line: Vec<&str> = record["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|mv| mv["move"]["at"].as_str().unwrap())
        .collect();
    assert_eq!(line, ["H8", "G7", "I8", "A1", "J8", "A2", "K8", "A3", "L8"]);
    let texts: Vec<&str> = record["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|mv| mv["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, line, "each move's text is its square");
    // Replay is proof: the record's end is the position the players saw last, and the
    // position the table shows now.
    assert_eq!(record["moves"][8]["state"], last["state"]);
    assert_eq!(record["end"], app.snapshot(&table).await["state"]);
    assert_eq!(record["start"]["move_count"], 0);
    assert_eq!(record["formats"], json!(["json", "text", "psq"]));

    let id = record["id"].as_str().unwrap();
    let text = get_text(&app, &format!("/api/games/{id}?format=text"), "text/plain").await;
    assert_eq!(
        movetext(&text),
        "1. H8 G7 2. I8 A1 3. J8 A2 4. K8 A3 5. L8 1-0",
        "{text}"
    );
    assert_eq!(tag(&text, "X"), Some("X"));
    assert_eq!(tag(&text, "Result"), Some("1-0"));
    assert_eq!(tag(&text, "Termination"), Some("five_in_a_row"));
    assert_eq!(tag(&text, "Site"), Some(app.http(&format!("/t/{table}")).as_str()));

    // Piskvork: x from the left, y from the top, both from 1.
    let psq = get_text(&app, &format!("/api/games/{id}?format=psq"), "text/plain").await;
    let mut lines = psq.lines();
    assert_eq!(lines.next(), Some("Piskvorky 15x15, 11:11, 0"));
    let points: Vec<String> = lines
        .map(|line| line.rsplit_once(',').expect("x,y,ms").0.to_owned())
        .collect();
    assert_eq!(
        points,
        ["8,8", "7,9", "9,8", "1,15", "10,8", "1,14", "11,8", "1,13", "12,8"]
    );
}

#[tokio::test]
async fn lines_of_action_and_krux_games_ended_by_resignation_replay_and_export() {
    let app = spawn_app().await;
    // Lines of Action: black moves first.
    let (table, mut black, mut white) = two_player_table(&app, "lines-of-action", json!({})).await;
    play(&mut black, &mut white, json!({"from": "b1", "to": "b3"})).await;
    play(&mut white, &mut black, json!({"from": "h2", "to": "f2"})).await;
    black.send(json!({"type": "resign"})).await;
    white.until("game_over").await;
    let (listed, record) = only_game(&app, &table).await;
    assert_eq!(listed["result"]["reason"], "resignation");
    assert_eq!(record["end"], app.snapshot(&table).await["state"]);
    assert!(
        record["end"]["to_move"].is_null(),
        "the stored result ends the replay: {}",
        record["end"]
    );
    let id = record["id"].as_str().unwrap();
    let pgn = get_text(&app, &format!("/api/games/{id}?format=pgn"), "application/x-chess-pgn").await;
    assert_eq!(movetext(&pgn), "1. b1-b3 h2-f2 1-0", "{pgn}");
    assert_eq!(record["moves"][1]["text"], "h2-f2");
    assert_eq!(tag(&pgn, "Black"), Some("X"));
    assert_eq!(tag(&pgn, "White"), Some("O"));
    assert_eq!(tag(&pgn, "Variant"), Some("Lines of Action"));
    assert!(tag(&pgn, "Position").is_some_and(|p| p.ends_with(" b")), "{pgn}");

    // Krux: a turn sent part by part and a turn sent whole read the same.
    let (table, mut white, mut black) = two_player_table(&app, "krux", json!({})).await;
    play(&mut white, &mut black, json!({"part": "ring", "ring": "blue"})).await;
    play(&mut white, &mut black, json!({"part": "end"})).await;
    play(
        &mut black,
        &mut white,
        json!({"turn": [{"part": "ring", "ring": "green"}, {"part": "end"}]}),
    )
    .await;
    white.send(json!({"type": "resign"})).await;
    black.until("game_over").await;
    let (_, record) = only_game(&app, &table).await;
    assert_eq!(record["end"], app.snapshot(&table).await["state"]);
    let id = record["id"].as_str().unwrap();
    let text = get_text(&app, &format!("/api/games/{id}?format=text"), "text/plain").await;
    assert_eq!(
        movetext(&text),
        "1. white 1: ring blue, end 2. black 2: ring green, end 0-1",
        "{text}"
    );
    assert_eq!(tag(&text, "Position"), Some("1c1 2e7 3b2 4f6 5a3 6g5 / 1"));
    assert_eq!(
        record["moves"][2]["text"], "ring green, end",
        "a whole turn reads as its parts"
    );
}

#[tokio::test]
async fn a_bughouse_game_exports_as_bpgn_and_as_a_pgn_per_board_that_parses_back() {
    let app = spawn_app().await;
    let (table, mut players, mut watcher) = app.bughouse_match().await;
    let mut announced = Vec::new();
    // Both boards, a capture passed to the partner, its drop, a mate on board A.
    for (seat, uci) in [
        (0, "e2e4"),
        (2, "e2e4"),
        (1, "e7e5"),
        (3, "d7d5"),
        (0, "f1c4"),
        (2, "e4d5"),
        (1, "b8c6"),
        (0, "d1h5"),
        (1, "P@f6"),
        (0, "h5f7"),
    ] {
        players[seat].send(json!({"type": "move", "move": {"uci": uci}})).await;
        let moved = watcher.until("moved").await;
        assert_eq!(moved["move"]["uci"], uci);
        announced.push(moved["text"].as_str().expect("a move's text").to_owned());
    }
    watcher.until("game_over").await;
    let (listed, record) = only_game(&app, &table).await;
    assert_eq!(listed["result"]["reason"], "checkmate");
    assert_eq!(record["end"], app.snapshot(&table).await["state"]);
    // Every move carries the four clocks.
    assert!(
        record["moves"]
            .as_array()
            .unwrap()
            .iter()
            .all(|mv| mv["clocks_ms"].as_array().is_some_and(|c| c.len() == 4))
    );
    let id = record["id"].as_str().unwrap();
    let texts: Vec<&str> = record["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|mv| mv["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts[7..], ["Qh5", "P@f6", "Qxf7#"]);
    assert_eq!(
        texts, announced,
        "the record writes each move as the table announced it"
    );

    let bpgn = get_text(&app, &format!("/api/games/{id}?format=bpgn"), "text/plain").await;
    let expected_tags = [
        ("WhiteA", "A-white"),
        ("BlackA", "A-black"),
        ("WhiteB", "B-white"),
        ("BlackB", "B-black"),
        ("Result", "1-0"),
        ("TimeControl", "180"),
        ("Termination", "checkmate"),
    ];
    for (name, value) in expected_tags {
        assert_eq!(tag(&bpgn, name), Some(value), "{name} in {bpgn}");
    }
    // Checked by hand: the order played, numbered per board and colour.
    assert_eq!(
        without_comments(&movetext(&bpgn)),
        "1A. e4 1B. e4 1a. e5 1b. d5 2A. Bc4 2B. exd5 2a. Nc6 3A. Qh5 3a. P@f6 4A. Qxf7# 1-0",
        "{bpgn}"
    );
    // Each move carries its mover's clock in seconds, within the 180 s start.
    let clocks: Vec<f64> = movetext(&bpgn)
        .split('{')
        .skip(1)
        .map(|rest| rest.split('}').next().unwrap().parse().expect("seconds"))
        .collect();
    assert_eq!(clocks.len(), 10, "{bpgn}");
    assert!(clocks.iter().all(|s| (0.0..=180.0).contains(s)), "{clocks:?}");

    // Each board as crazyhouse PGN, parsed back move by move with shakmaty.
    let a = get_text(
        &app,
        &format!("/api/games/{id}?format=pgn-a"),
        "application/x-chess-pgn",
    )
    .await;
    assert_eq!(tag(&a, "Variant"), Some("Crazyhouse"));
    assert_eq!(
        without_comments(&movetext(&a))
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        "1. e4 e5 2. Bc4 Nc6 3. Qh5 P@f6 4. Qxf7# 1-0"
    );
    let board_a = parse_back(&a);
    assert_eq!(board_a.board().to_string(), fen_board(&record["end"]["A"]["fen"]));
    let b = get_text(
        &app,
        &format!("/api/games/{id}?format=pgn-b"),
        "application/x-chess-pgn",
    )
    .await;
    assert_eq!(tag(&b, "Result"), Some("0-1"), "board B's white is on the losing team");
    let board_b = parse_back(&b);
    assert_eq!(board_b.board().to_string(), fen_board(&record["end"]["B"]["fen"]));
    assert!(a.contains("{[%clk 0:0"), "{a}");
}

/// The board part of a FEN.
fn fen_board(fen: &Value) -> String {
    let fen = fen.as_str().expect("a FEN");
    let board = fen.split(' ').next().unwrap();
    board.split('[').next().unwrap().replace('~', "")
}

/// Plays a crazyhouse PGN's moves with shakmaty's SAN parser from the standard start. A
/// drop of a piece the partner passed is not in this board's pocket: it is added first,
/// as the partner's capture did.
fn parse_back(pgn: &str) -> Crazyhouse {
    let mut pos = Crazyhouse::default();
    for token in without_comments(&movetext(pgn)).split_whitespace() {
        if token.ends_with('.') || ["1-0", "0-1", "1/2-1/2", "*"].contains(&token) {
            continue;
        }
        let san: SanPlus = token.parse().unwrap_or_else(|err| panic!("{token}: {err}"));
        let m = match san.san.to_move(&pos) {
            Ok(m) => m,
            Err(_) => {
                let shakmaty::san::San::Put { role, .. } = san.san else {
                    panic!("{token} is not legal in {pgn}");
                };
                pos = with_pocket_piece(pos, role);
                san.san.to_move(&pos).unwrap_or_else(|err| panic!("{token}: {err}"))
            }
        };
        let check = token.ends_with('+') || token.ends_with('#');
        pos.play_unchecked(m);
        assert_eq!(pos.is_check(), check, "{token} and the check it gives");
    }
    pos
}

fn with_pocket_piece(pos: Crazyhouse, role: Role) -> Crazyhouse {
    let turn = pos.turn();
    let mut setup = pos.to_setup(shakmaty::EnPassantMode::Legal);
    let pockets = setup.pockets.get_or_insert_with(Default::default);
    *pockets.get_mut(turn).get_mut(role) += 1;
    Crazyhouse::from_setup(setup, CastlingMode::Standard)
        .or_else(shakmaty::PositionError::ignore_too_much_material)
        .expect("a legal position")
}

#[tokio::test]
async fn a_rated_game_records_each_players_rating_before_and_after() {
    let app = spawn_app().await;
    let (table, mut x, mut o) = two_player_table(&app, "gomoku", json!({"rated": true})).await;
    play(&mut x, &mut o, json!({"at": "H8"})).await;
    play(&mut o, &mut x, json!({"at": "H9"})).await;
    // Two moves each: a rated game ended sooner is aborted (docs/ratings.md).
    play(&mut x, &mut o, json!({"at": "I8"})).await;
    play(&mut o, &mut x, json!({"at": "I9"})).await;
    o.send(json!({"type": "resign"})).await;
    let over = x.until("game_over").await;
    let (listed, record) = only_game(&app, &table).await;
    assert_eq!(listed["rated"], true);
    for player in listed["players"].as_array().unwrap() {
        let seat = player["seat"].as_u64().unwrap() as usize;
        let rating = &player["rating"];
        let announced = over["ratings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["seat"] == player["seat"])
            .expect("game_over names the seat's rating");
        assert_eq!(
            (
                rating["before"].clone(),
                rating["after"].clone(),
                rating["change"].clone()
            ),
            (
                announced["before"].clone(),
                announced["after"].clone(),
                announced["change"].clone()
            ),
            "seat {seat}: {listed}"
        );
        assert_eq!(rating["fixed"], false);
    }
    assert!(
        listed["players"][0]["rating"]["change"].as_i64().unwrap() > 0,
        "the winner gains: {listed}"
    );
    assert_eq!(record["players"], listed["players"]);
    let text = get_text(
        &app,
        &format!("/api/games/{}?format=text", record["id"].as_str().unwrap()),
        "text/plain",
    )
    .await;
    assert_eq!(tag(&text, "Rated"), Some("yes"));
}

#[tokio::test]
async fn unknown_tables_games_and_formats_are_refused_clearly() {
    let app = spawn_app().await;
    let response = get(&app, "/api/tables/nosuchtable/games").await;
    assert_eq!(response.status(), 404);
    assert_eq!(
        response.json::<Value>().await.unwrap()["error"]["code"],
        "table_not_found"
    );
    for id in ["00000000-0000-4000-8000-000000000000", "not-a-uuid"] {
        let response = get(&app, &format!("/api/games/{id}")).await;
        assert_eq!(response.status(), 404, "{id}");
        assert_eq!(
            response.json::<Value>().await.unwrap()["error"]["code"],
            "game_not_found"
        );
    }
    // A table without games lists none.
    let table = app.gomoku_table(json!({})).await;
    let listed = get_json(&app, &format!("/api/tables/{table}/games")).await;
    assert_eq!(listed, json!({"table": table, "games": [], "earlier": null}));
    // A format the game does not have names those it has.
    let (table, mut x, mut o) = two_player_table(&app, "gomoku", json!({})).await;
    play(&mut x, &mut o, json!({"at": "H8"})).await;
    let (listed, _) = only_game(&app, &table).await;
    assert_eq!(listed["status"], "playing");
    let id = listed["id"].as_str().unwrap();
    let response = get(&app, &format!("/api/games/{id}?format=bpgn")).await;
    assert_eq!(response.status(), 400);
    let error: Value = response.json().await.unwrap();
    assert_eq!(
        (error["error"]["code"].clone(), error["error"]["field"].clone()),
        (json!("bad_format"), json!("format"))
    );
    assert!(
        error["error"]["message"].as_str().unwrap().contains("\"psq\""),
        "{error}"
    );
    // A format no game has is refused before any record is read: even for a game that
    // does not exist, the answer is the format's error, not the game's.
    for path in [
        format!("/api/games/{id}?format=docx"),
        "/api/games/00000000-0000-4000-8000-000000000000?format=docx".to_owned(),
        // A repeated ?format= is an error in the API's JSON shape too.
        format!("/api/games/{id}?format=text&format=psq"),
    ] {
        let response = get(&app, &path).await;
        assert_eq!(response.status(), 400, "{path}");
        let error: Value = response.json().await.expect("the API's JSON error shape");
        assert_eq!(
            (error["error"]["code"].clone(), error["error"]["field"].clone()),
            (json!("bad_format"), json!("format")),
            "{path}: {error}"
        );
    }
}
