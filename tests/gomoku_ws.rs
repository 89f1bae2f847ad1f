//! Gomoku end to end: the real server, a real database, two players and a spectator on
//! real WebSockets; complete games, every error case, and the stored rows.

mod common;

use std::time::Duration;

use common::{Client, TestApp, spawn_app, spawn_app_with};
use serde_json::{Value, json};

/// Two seated players (X first) and a spectator at a table that has just started.
struct Game {
    x: Client,
    o: Client,
    spectator: Client,
    table: String,
}

/// Creates a table with `settings` (seating `chosen`, so seat 0 is X), seats two players
/// and a spectator, and waits until everyone has seen the game start.
async fn start_game(app: &TestApp, settings: Value) -> Game {
    let mut settings = settings;
    settings["seating"] = json!("chosen");
    let table = app.gomoku_table(settings).await;
    let mut spectator = app.client(&table).await;
    let mut x = app.client(&table).await;
    let mut o = app.client(&table).await;
    x.hello().await;
    o.hello().await;
    x.sit(0, "Xavier").await;
    assert_eq!(o.expect("seated").await["seat"], 0);
    let seated = o.sit(1, "Olga").await;
    assert_eq!(seated["seat"], 1);
    for client in [&mut x, &mut o, &mut spectator] {
        let started = client.until("game_started").await;
        assert_eq!(started["game_number"], 1);
        assert_eq!(started["to_move"], json!([0]));
        assert_eq!(started["seats"][0]["player"]["name"], "Xavier");
        assert_eq!(started["seats"][1]["player"]["name"], "Olga");
    }
    // Each player is told the seats they start with; the spectator holds none.
    assert_eq!(x.expect("welcome").await["seats"], json!([0]));
    assert_eq!(o.expect("welcome").await["seats"], json!([1]));
    Game { x, o, spectator, table }
}

/// Plays `at` for `player` and returns the `moved` event every client then receives.
async fn play(game: &mut Game, x_to_move: bool, at: &str) -> Value {
    let mover = if x_to_move { &mut game.x } else { &mut game.o };
    mover.send(json!({"type": "move", "move": {"at": at}})).await;
    let moved = game.x.expect("moved").await;
    assert_eq!(game.o.expect("moved").await, moved);
    assert_eq!(game.spectator.expect("moved").await, moved);
    assert_eq!(moved["move"], json!({"at": at}));
    moved
}

async fn result_row(app: &TestApp) -> (String, Vec<i16>, String, i32, Value, Option<Value>) {
    sqlx::query_as("SELECT outcome, winners, reason, move_count, players, detail FROM results")
        .fetch_one(&app.pool)
        .await
        .expect("one result row")
}

#[tokio::test]
async fn full_game_to_a_win_is_seen_live_and_stored() {
    let app = spawn_app().await;
    let mut game = start_game(&app, json!({})).await;
    // X builds H8..L8 while O answers on row 9.
    let x_moves = ["H8", "I8", "J8", "K8", "L8"];
    let o_moves = ["H9", "I9", "J9", "K9"];
    let mut last = Value::Null;
    for (ply, at) in x_moves.iter().enumerate() {
        last = play(&mut game, true, at).await;
        assert_eq!(last["ply"], json!(ply * 2 + 1));
        if let Some(reply) = o_moves.get(ply) {
            play(&mut game, false, reply).await;
        }
    }
    assert_eq!(last["to_move"], json!([]));
    assert_eq!(last["state"]["board"][7], ".......XXXXX...", "row 8 is board[7]");
    for client in [&mut game.x, &mut game.o, &mut game.spectator] {
        let over = client.expect("game_over").await;
        assert_eq!(over["result"]["outcome"], "win");
        assert_eq!(over["result"]["winners"], json!([0]));
        assert_eq!(over["result"]["reason"], "five_in_a_row");
        assert_eq!(
            over["result"]["detail"]["lines"],
            json!([["H8", "I8", "J8", "K8", "L8"]])
        );
    }

    let (outcome, winners, reason, move_count, players, detail) = result_row(&app).await;
    assert_eq!(outcome, "win");
    assert_eq!(winners, vec![0]);
    assert_eq!(reason, "five_in_a_row");
    assert_eq!(move_count, 9);
    assert_eq!(
        players,
        json!([{"seat": 0, "role": "X", "name": "Xavier"}, {"seat": 1, "role": "O", "name": "Olga"}])
    );
    assert_eq!(detail, Some(json!({"lines": [["H8", "I8", "J8", "K8", "L8"]]})));
    let moves: Vec<(i32, i16, Value)> = sqlx::query_as("SELECT ply, seat, payload FROM moves ORDER BY ply")
        .fetch_all(&app.pool)
        .await
        .expect("moves");
    assert_eq!(moves.len(), 9);
    assert_eq!(moves[0], (1, 0, json!({"at": "H8"})));
    assert_eq!(moves[1], (2, 1, json!({"at": "H9"})));
    let (status, ended): (String, bool) = sqlx::query_as("SELECT status, ended_at IS NOT NULL FROM games")
        .fetch_one(&app.pool)
        .await
        .expect("game row");
    assert_eq!((status.as_str(), ended), ("finished", true));

    // After the end, moves are refused as game over, and the snapshot shows the result.
    // (A single game is a series of its own, decided with it.)
    game.o.expect("series_over").await;
    game.o.send(json!({"type": "move", "move": {"at": "A1"}})).await;
    game.o.expect_error("game_over").await;
    let table: Value = reqwest::get(app.http(&format!("/api/tables/{}", game.table)))
        .await
        .expect("GET")
        .json()
        .await
        .expect("JSON");
    assert_eq!(table["status"], "finished");
    assert_eq!(table["result"]["reason"], "five_in_a_row");
    assert_eq!(table["moves"].as_array().map(Vec::len), Some(9));
}

#[tokio::test]
async fn draw_by_agreement_ends_the_game_and_is_stored() {
    let app = spawn_app().await;
    let mut game = start_game(&app, json!({})).await;
    play(&mut game, true, "H8").await;
    game.x.send(json!({"type": "offer_draw"})).await;
    for client in [&mut game.x, &mut game.o, &mut game.spectator] {
        assert_eq!(client.expect("draw_offered").await["seat"], 0);
    }
    // The offerer cannot accept their own offer.
    game.x.send(json!({"type": "accept_draw"})).await;
    game.x.expect_error("no_draw_offer").await;
    game.o.send(json!({"type": "accept_draw"})).await;
    for client in [&mut game.x, &mut game.o, &mut game.spectator] {
        let over = client.expect("game_over").await;
        assert_eq!(over["result"]["outcome"], "draw");
        assert_eq!(over["result"]["reason"], "draw_agreed");
        assert_eq!(over["result"]["winners"], json!([]));
    }
    let (outcome, winners, reason, move_count, _, detail) = result_row(&app).await;
    assert_eq!(
        (outcome.as_str(), reason.as_str(), move_count),
        ("draw", "draw_agreed", 1)
    );
    assert!(winners.is_empty());
    assert_eq!(detail, None);
}

#[tokio::test]
async fn a_declined_offer_and_an_offer_lapsing_by_the_opponents_move() {
    let app = spawn_app().await;
    let mut game = start_game(&app, json!({})).await;
    game.x.send(json!({"type": "offer_draw"})).await;
    game.o.expect("draw_offered").await;
    game.x.expect("draw_offered").await;
    game.x.send(json!({"type": "offer_draw"})).await;
    game.x.expect_error("draw_already_offered").await;
    game.o.send(json!({"type": "decline_draw"})).await;
    assert_eq!(game.x.expect("draw_declined").await["seat"], 1);
    game.o.expect("draw_declined").await;
    game.o.send(json!({"type": "accept_draw"})).await;
    game.o.expect_error("no_draw_offer").await;

    // The offerer's own move keeps the offer; the opponent's move lets it lapse.
    game.spectator.sync().await;
    game.x.send(json!({"type": "offer_draw"})).await;
    game.o.expect("draw_offered").await;
    game.x.expect("draw_offered").await;
    game.spectator.sync().await;
    play(&mut game, true, "H8").await;
    let snapshot: Value = reqwest::get(app.http(&format!("/api/tables/{}", game.table)))
        .await
        .expect("GET")
        .json()
        .await
        .expect("JSON");
    assert_eq!(snapshot["draw_offer"], 0);
    play(&mut game, false, "A1").await;
    game.o.send(json!({"type": "accept_draw"})).await;
    game.o.expect_error("no_draw_offer").await;
}

#[tokio::test]
async fn resigning_out_of_turn_loses_at_once() {
    let app = spawn_app().await;
    let mut game = start_game(&app, json!({})).await;
    play(&mut game, true, "H8").await;
    // It is O's turn; X resigns anyway.
    game.x.send(json!({"type": "resign"})).await;
    for client in [&mut game.x, &mut game.o, &mut game.spectator] {
        let over = client.expect("game_over").await;
        assert_eq!(over["result"]["winners"], json!([1]));
        assert_eq!(over["result"]["reason"], "resignation");
    }
    let (outcome, winners, reason, move_count, _, _) = result_row(&app).await;
    assert_eq!(
        (outcome.as_str(), reason.as_str(), move_count),
        ("win", "resignation", 1)
    );
    assert_eq!(winners, vec![1]);
    game.o.expect("series_over").await;
    game.o.send(json!({"type": "resign"})).await;
    game.o.expect_error("game_over").await;
}

#[tokio::test]
async fn full_board_is_a_draw_over_the_wire() {
    // The same fill the rules tests prove line-free: X where (col + 2*row) % 4 < 2,
    // with col and row counted from 0. The players move faster than the default rate
    // limit allows, so this table's server allows more.
    let app = spawn_app_with(|settings| {
        settings.limits.messages_per_second = 10_000;
        settings.limits.message_burst = 10_000;
    })
    .await;
    let mut game = start_game(&app, json!({"opening": "free"})).await;
    let mut xs = Vec::new();
    let mut os = Vec::new();
    for row in 1..=15u8 {
        for col in 0..15u8 {
            let square = format!("{}{}", char::from(b'A' + col), row);
            if (usize::from(col) + 2 * usize::from(row - 1)) % 4 < 2 {
                xs.push(square);
            } else {
                os.push(square);
            }
        }
    }
    assert_eq!((xs.len(), os.len()), (113, 112));
    for ply in 0..225 {
        let x_turn = ply % 2 == 0;
        let at = if x_turn {
            xs[ply / 2].clone()
        } else {
            os[ply / 2].clone()
        };
        play(&mut game, x_turn, &at).await;
    }
    let over = game.spectator.expect("game_over").await;
    assert_eq!(over["result"]["outcome"], "draw");
    assert_eq!(over["result"]["reason"], "board_full");
    let (outcome, _, reason, move_count, _, _) = result_row(&app).await;
    assert_eq!(
        (outcome.as_str(), reason.as_str(), move_count),
        ("draw", "board_full", 225)
    );
}

#[tokio::test]
async fn every_error_is_answered_and_changes_nothing() {
    let app = spawn_app().await;
    let mut game = start_game(&app, json!({})).await;
    game.spectator.sync().await;

    let x = &mut game.x;
    x.send_text("{not json").await;
    x.expect_error("malformed_json").await;
    x.send_binary(vec![1, 2, 3]).await;
    x.expect_error("malformed_json").await;
    x.send_text("[1,2,3]").await;
    x.expect_error("bad_message").await;
    x.send(json!({"type": "fly", "ref": 42})).await;
    assert_eq!(x.expect_error("unknown_type").await["ref"], 42);
    x.send(json!({"type": "move"})).await;
    x.expect_error("bad_message").await;
    x.send(json!({"type": "move", "move": {"at": "H0"}})).await;
    x.expect_error("bad_move").await;
    x.send(json!({"type": "move", "move": {"square": "H8"}})).await;
    x.expect_error("bad_move").await;
    x.send(json!({"type": "move", "move": {"at": "A1"}})).await;
    let illegal = x.expect_error("illegal_move").await;
    assert_eq!(illegal["rule"], "centre_opening");
    let message = illegal["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(char::is_uppercase) && message.ends_with('.'),
        "a sentence: {message}"
    );
    x.send(json!({"type": "move", "move": {"at": "P8"}})).await;
    assert_eq!(x.expect_error("illegal_move").await["rule"], "off_board");
    x.send(json!({"type": "move", "seat": 1, "move": {"at": "H8"}})).await;
    x.expect_error("not_your_seat").await;
    x.send(json!({"type": "sit", "seat": 1})).await;
    x.expect_error("game_in_progress").await;
    x.send(json!({"type": "stand"})).await;
    x.expect_error("game_in_progress").await;
    x.send(json!({"type": "sit", "seat": 5})).await;
    x.expect_error("no_such_seat").await;
    x.send(json!({"type": "hello", "token": "not a token"})).await;
    x.expect_error("bad_token").await;
    x.send(json!({"type": "hello", "token": "AAAAAAAAAAAAAAAAAAAAAAAAAAAA"}))
        .await;
    x.expect_error("bad_token").await;
    x.send(json!({"type": "chat", "text": "   "})).await;
    x.expect_error("bad_chat").await;
    x.send(json!({"type": "decline_draw"})).await;
    x.expect_error("no_draw_offer").await;

    let o = &mut game.o;
    o.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    o.expect_error("not_your_turn").await;

    let spectator = &mut game.spectator;
    spectator.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    spectator.expect_error("not_seated").await;
    spectator.send(json!({"type": "resign"})).await;
    spectator.expect_error("not_seated").await;
    spectator.send(json!({"type": "offer_draw", "seat": 0})).await;
    spectator.expect_error("not_your_seat").await;

    // None of that was broadcast, stored, or changed the turn.
    let seen = game.spectator.sync().await;
    let events: Vec<&Value> = seen.iter().filter(|m| m["type"] != "error").collect();
    assert!(events.is_empty(), "{events:?}");
    let moves: i64 = sqlx::query_scalar("SELECT count(*) FROM moves")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(moves, 0);
    // The connection and the game go on: X's centre move is accepted.
    let moved = play(&mut game, true, "H8").await;
    assert_eq!(moved["ply"], 1);
    game.o.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    assert_eq!(game.o.expect_error("illegal_move").await["rule"], "occupied");
    play(&mut game, false, "H9").await;
}

#[tokio::test]
async fn seats_before_the_start_taken_stood_and_moves_refused() {
    let app = spawn_app().await;
    let table = app.gomoku_table(json!({"seating": "chosen"})).await;
    let mut anna = app.client(&table).await;
    let mut bo = app.client(&table).await;
    anna.hello().await;
    anna.sit(1, "Anna").await;
    bo.expect("seated").await;
    bo.send(json!({"type": "sit", "seat": 1, "name": "Bo"})).await;
    bo.expect_error("seat_taken").await;
    anna.send(json!({"type": "sit", "seat": 1})).await;
    anna.expect_error("already_seated").await;
    anna.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    anna.expect_error("game_not_started").await;
    bo.send(json!({"type": "stand", "seat": 1})).await;
    bo.expect_error("not_your_seat").await;
    bo.send(json!({"type": "sit", "seat": 0, "name": "x".repeat(200)}))
        .await;
    bo.expect_error("bad_name").await;

    anna.send(json!({"type": "stand"})).await;
    assert_eq!(anna.expect("stood").await["seat"], 1);
    assert_eq!(bo.expect("stood").await["seat"], 1);
    let seats: i64 = sqlx::query_scalar("SELECT count(*) FROM seats")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(seats, 0);

    // Sitting without a hello issues a token first.
    bo.send(json!({"type": "sit", "seat": 0, "name": "Bo"})).await;
    let welcome = bo.expect("welcome").await;
    assert_eq!(welcome["seats"], json!([]));
    assert!(welcome["token"].as_str().is_some_and(|t| t.len() >= 32));
    assert_eq!(bo.expect("seated").await["name"], "Bo");
}

#[tokio::test]
async fn the_token_is_the_seat_across_connections_and_never_broadcast() {
    let app = spawn_app().await;
    let mut game = start_game(&app, json!({})).await;
    // A second connection with X's token may play X's moves.
    let token = {
        game.x.send(json!({"type": "hello"})).await;
        game.x.expect("welcome").await["token"]
            .as_str()
            .expect("token")
            .to_owned()
    };
    let mut second = app.client(&game.table).await;
    second.send(json!({"type": "hello", "token": token})).await;
    let welcome = second.expect("welcome").await;
    assert_eq!(welcome["seats"], json!([0]));
    second.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    let moved = second.expect("moved").await;
    assert_eq!(moved["seat"], 0);
    game.o.expect("moved").await;

    // Everything the spectator received never contains a token.
    let seen = game.spectator.sync().await;
    for message in seen {
        assert!(!message.to_string().contains(&token), "token leaked in {message}");
    }
    // A spectator presenting a fresh token holds nothing.
    let mut stranger = app.client(&game.table).await;
    let other = stranger.hello().await;
    assert_ne!(other, token);
    stranger
        .send(json!({"type": "move", "seat": 1, "move": {"at": "A1"}}))
        .await;
    stranger.expect_error("not_your_seat").await;
}

#[tokio::test]
async fn seating_by_lot_gives_x_to_one_of_the_two_players() {
    let app = spawn_app().await;
    let table = app.gomoku_table(json!({})).await;
    let mut anna = app.client(&table).await;
    let mut bo = app.client(&table).await;
    anna.hello().await;
    bo.hello().await;
    anna.sit(0, "Anna").await;
    bo.expect("seated").await;
    bo.sit(1, "Bo").await;
    let started = anna.until("game_started").await;
    assert_eq!(bo.until("game_started").await, started);
    // Each player learns their drawn seat from a welcome.
    let anna_seat = anna.expect("welcome").await["seats"].clone();
    let bo_seat = bo.expect("welcome").await["seats"].clone();
    let names: Vec<&str> = started["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|seat| seat["player"]["name"].as_str().expect("name"))
        .collect();
    assert!(names == ["Anna", "Bo"] || names == ["Bo", "Anna"], "{names:?}");
    let (anna_expected, bo_expected) = if names[0] == "Anna" {
        (json!([0]), json!([1]))
    } else {
        (json!([1]), json!([0]))
    };
    assert_eq!((anna_seat, bo_seat), (anna_expected, bo_expected));
    // Whoever drew X moves first; the other is refused.
    let (first, second) = if names[0] == "Anna" {
        (&mut anna, &mut bo)
    } else {
        (&mut bo, &mut anna)
    };
    second.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    second.expect_error("not_your_turn").await;
    first.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    first.expect("moved").await;
    let stored: Vec<(i16, String)> = sqlx::query_as("SELECT seat, name FROM game_players ORDER BY seat")
        .fetch_all(&app.pool)
        .await
        .expect("players");
    assert_eq!(stored[0].1, names[0]);
    assert_eq!(stored[1].1, names[1]);
}

#[tokio::test]
async fn chat_reaches_everyone_and_spectators_are_counted() {
    let app = spawn_app().await;
    let mut game = start_game(&app, json!({})).await;
    game.o.send(json!({"type": "chat", "text": "good luck"})).await;
    for client in [&mut game.x, &mut game.o, &mut game.spectator] {
        let chat = client.expect("chat").await;
        assert_eq!((chat["seat"].clone(), chat["name"].clone()), (json!(1), json!("Olga")));
        assert_eq!(chat["text"], "good luck");
    }
    game.spectator.send(json!({"type": "chat", "text": "hi"})).await;
    game.spectator.expect_error("not_seated").await;

    // Counts go out at most once a second, so an earlier count may come first.
    let table = game.table.clone();
    let extra = app.client(&table).await;
    while game.x.until("spectators").await["count"] != 2 {}
    extra.close().await;
    while game.x.until("spectators").await["count"] != 1 {}
}

#[tokio::test]
async fn presence_follows_a_players_connections() {
    let app = spawn_app().await;
    let mut game = start_game(&app, json!({})).await;
    game.o.close().await;
    let away = game.x.expect("presence").await;
    assert_eq!(
        (away["seat"].clone(), away["connected"].clone()),
        (json!(1), json!(false))
    );
    let snapshot: Value = reqwest::get(app.http(&format!("/api/tables/{}", game.table)))
        .await
        .expect("GET")
        .json()
        .await
        .expect("JSON");
    assert_eq!(snapshot["seats"][1]["player"]["connected"], false);
}

#[tokio::test]
async fn versions_rise_by_one_per_event() {
    let app = spawn_app().await;
    let mut game = start_game(&app, json!({})).await;
    let first = play(&mut game, true, "H8").await["version"].as_u64().expect("version");
    let second = play(&mut game, false, "H9").await["version"].as_u64().expect("version");
    assert_eq!(second, first + 1);
    game.x.send(json!({"type": "ping", "ref": "v"})).await;
    let pong = game.x.expect("pong").await;
    assert_eq!(pong["version"].as_u64(), Some(second));
    assert_eq!(pong["ref"], "v");
}

#[tokio::test]
async fn a_spectator_joining_late_gets_the_whole_position() {
    let app = spawn_app().await;
    let mut game = start_game(&app, json!({"board_size": 19})).await;
    play(&mut game, true, "J10").await;
    play(&mut game, false, "K10").await;
    let (ws, _) = tokio_tungstenite::connect_async(app.ws(&game.table))
        .await
        .expect("connect");
    let mut late = common::Client::from_stream(ws);
    let snapshot = late.recv().await;
    assert_eq!(snapshot["type"], "snapshot");
    let table = &snapshot["table"];
    assert_eq!(table["status"], "playing");
    assert_eq!(table["to_move"], json!([0]));
    assert_eq!(table["moves"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        table["state"]["board"][9], ".........XO........",
        "row 10 is board[9] on 19x19"
    );
    assert_eq!(snapshot["version"], table["version"]);
}

#[tokio::test]
async fn flooding_is_rate_limited_and_the_connection_goes_on() {
    // One message per second, no burst: of three sent at once, the later ones are dropped
    // (only a stall of over a second between sends could let them through), and the run
    // of dropped messages is answered once. (No pings from the server here: the client's
    // pongs would count against the limit too.)
    let app = spawn_app_with(|settings| {
        settings.limits.messages_per_second = 1;
        settings.limits.message_burst = 1;
        settings.limits.ping_interval_ms = 600_000;
        settings.limits.silence_timeout_ms = 600_000;
    })
    .await;
    let table = app.gomoku_table(json!({})).await;
    let mut client = app.client(&table).await;
    for n in 0..3 {
        client.send(json!({"type": "ping", "ref": n})).await;
    }
    // The connection answers the rate-limited ones itself, so they may overtake the pong.
    let mut replies = Vec::new();
    while replies.len() < 2 {
        let message = client.recv().await;
        if message["type"] == "pong" || message["type"] == "error" {
            replies.push(message);
        }
    }
    assert!(
        replies.iter().any(|m| m["type"] == "pong" && m["ref"] == 0),
        "{replies:?}"
    );
    assert!(replies.iter().any(|m| m["code"] == "rate_limited"), "{replies:?}");
    // A second later the connection goes on, and nothing more was said about the third.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let before = client.sync().await;
    assert!(
        before.iter().all(|m| m["type"] != "pong" && m["type"] != "error"),
        "{before:?}"
    );
}

/// The exchange shown in docs/protocol.md section 6, message by message, with versions.
#[tokio::test]
async fn the_documented_exchange_is_exactly_what_the_server_sends() {
    let app = spawn_app().await;
    let table = app.gomoku_table(json!({"seating": "chosen"})).await;
    let (ws, _) = tokio_tungstenite::connect_async(app.ws(&table)).await.expect("connect");
    let mut anna = Client::from_stream(ws);
    let next = async |client: &mut Client, kind: &str, version: u64| {
        let message = client.recv().await;
        assert_eq!(
            (message["type"].as_str(), message["version"].as_u64()),
            (Some(kind), Some(version)),
            "{message}"
        );
        message
    };
    assert_eq!(next(&mut anna, "snapshot", 0).await["table"]["status"], "waiting");
    assert_eq!(next(&mut anna, "spectators", 1).await["count"], 1);
    anna.send(json!({"type": "hello"})).await;
    assert_eq!(next(&mut anna, "welcome", 1).await["seats"], json!([]));
    anna.send(json!({"type": "sit", "seat": 0, "name": "Anna"})).await;
    assert_eq!(next(&mut anna, "seated", 2).await["name"], "Anna");
    assert_eq!(next(&mut anna, "spectators", 3).await["count"], 0);
    let mut bo = app.client(&table).await;
    assert_eq!(next(&mut anna, "spectators", 4).await["count"], 1);
    bo.hello().await;
    bo.send(json!({"type": "sit", "seat": 1, "name": "Bo"})).await;
    assert_eq!(next(&mut anna, "seated", 5).await["seat"], 1);
    assert_eq!(next(&mut anna, "game_started", 6).await["to_move"], json!([0]));
    assert_eq!(next(&mut anna, "welcome", 6).await["seats"], json!([0]));
    assert_eq!(next(&mut anna, "spectators", 7).await["count"], 0);
    anna.send(json!({"type": "move", "move": {"at": "h8"}, "ref": 1})).await;
    let moved = next(&mut anna, "moved", 8).await;
    assert_eq!(
        (moved["move"].clone(), moved["to_move"].clone()),
        (json!({"at": "H8"}), json!([1]))
    );
    anna.send(json!({"type": "move", "move": {"at": "H9"}, "ref": 2})).await;
    let error = next(&mut anna, "error", 8).await;
    assert_eq!(
        (error["code"].clone(), error["ref"].clone()),
        (json!("not_your_turn"), json!(2))
    );
}

#[tokio::test]
async fn a_silent_connection_is_detected_by_pings_and_its_player_marked_away() {
    let app = spawn_app_with(|settings| {
        settings.limits.ping_interval_ms = 50;
        settings.limits.silence_timeout_ms = 300;
    })
    .await;
    let mut game = start_game(&app, json!({})).await;
    // X's client stops reading: it answers no ping. O keeps reading (and so answering).
    let silent = game.x;
    let away = loop {
        let message = game.o.until("presence").await;
        if message["seat"] == 0 {
            break message;
        }
    };
    assert_eq!(away["connected"], false);
    assert!(
        away["away_ms"].as_u64().is_some_and(|ms| ms > 0 && ms <= 60_000),
        "{away}"
    );
    drop(silent);
}

#[tokio::test]
async fn a_premove_is_played_the_instant_its_turn_comes_and_stays_private() {
    let app = spawn_app().await;
    let mut game = start_game(&app, json!({})).await;
    game.x.send(json!({"type": "premove", "move": {"at": "A1"}})).await;
    game.x.expect_error("your_turn").await;
    game.o.send(json!({"type": "premove", "move": {"at": "H0"}})).await;
    game.o.expect_error("bad_move").await;
    game.o.send(json!({"type": "premove", "move": {"at": "H9"}})).await;
    let set = game.o.expect("premove_set").await;
    assert_eq!(
        (set["seat"].clone(), set["move"].clone()),
        (json!(1), json!({"at": "H9"}))
    );
    // X plays; O's premove follows at once, without O sending anything.
    game.x.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    for client in [&mut game.x, &mut game.o, &mut game.spectator] {
        assert_eq!(client.expect("moved").await["move"]["at"], "H8");
        let premoved = client.expect("moved").await;
        assert_eq!(
            (premoved["seat"].clone(), premoved["move"]["at"].clone()),
            (json!(1), json!("H9"))
        );
        assert_eq!(premoved["to_move"], json!([0]));
    }
    // Nobody but O ever saw the premove before it was played.
    for client in [&mut game.x, &mut game.spectator] {
        let seen = client.sync().await;
        assert!(
            seen.iter()
                .all(|m| !m["type"].as_str().unwrap_or("").starts_with("premove")),
            "{seen:?}"
        );
    }
}

#[tokio::test]
async fn an_illegal_premove_is_dropped_and_the_player_told() {
    let app = spawn_app().await;
    let mut game = start_game(&app, json!({})).await;
    game.o.send(json!({"type": "premove", "move": {"at": "H8"}})).await;
    game.o.expect("premove_set").await;
    game.x.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    assert_eq!(game.o.expect("moved").await["move"]["at"], "H8");
    let dropped = game.o.expect("premove_discarded").await;
    assert_eq!(
        (dropped["code"].clone(), dropped["rule"].clone()),
        (json!("illegal_move"), json!("occupied"))
    );
    // Still O's turn; cancelling what is gone is refused.
    game.o.send(json!({"type": "cancel_premove"})).await;
    game.o.expect_error("no_premove").await;
    game.o.send(json!({"type": "move", "move": {"at": "A1"}})).await;
    assert_eq!(game.o.expect("moved").await["move"]["at"], "A1");
    // A cancelled premove is not played.
    game.o.send(json!({"type": "premove", "move": {"at": "B1"}})).await;
    game.o.expect("premove_set").await;
    game.o.send(json!({"type": "cancel_premove"})).await;
    game.o.expect("premove_cancelled").await;
    game.x.send(json!({"type": "move", "move": {"at": "C1"}})).await;
    assert_eq!(game.o.expect("moved").await["move"]["at"], "C1");
    let after = game.o.sync().await;
    assert!(after.iter().all(|m| m["type"] != "moved"), "{after:?}");
}

#[tokio::test]
async fn team_chat_needs_a_partner() {
    let app = spawn_app().await;
    let mut game = start_game(&app, json!({})).await;
    game.x.send(json!({"type": "team_chat", "text": "psst"})).await;
    game.x.expect_error("no_partner").await;
}
