//! Lines of Action and Krux over the table protocol: complete games between two players
//! with a spectator, over real WebSockets, stored in Postgres.

mod common;

use common::{Client, TestApp, spawn_app_with};
use serde_json::{Value, json};
use spelbord::games::Rules;
use spelbord::games::lines_of_action::LinesOfAction;

/// A server that lets the players move as fast as the test can send.
async fn fast_app() -> TestApp {
    spawn_app_with(|settings| {
        settings.limits.messages_per_second = 10_000;
        settings.limits.message_burst = 10_000;
    })
    .await
}

/// Two players (seat 0 and seat 1, seating chosen) and a spectator at a new table of
/// `game`; returns once everyone has seen the game start, with the players' tokens.
async fn seated(app: &TestApp, game: &str, settings: Value) -> (String, [Client; 3], [String; 2]) {
    let mut settings = settings;
    settings["seating"] = json!("chosen");
    let created = app.create_table(json!({"game": game, "settings": settings})).await;
    let table = created["id"].as_str().expect("id").to_owned();
    let mut spectator = app.client(&table).await;
    let mut first = app.client(&table).await;
    let mut second = app.client(&table).await;
    let first_token = first.hello().await;
    let second_token = second.hello().await;
    first.sit(0, "First").await;
    second.until("seated").await;
    second.sit(1, "Second").await;
    for client in [&mut first, &mut second, &mut spectator] {
        client.until("game_started").await;
    }
    first.until("welcome").await;
    second.until("welcome").await;
    (table, [first, second, spectator], [first_token, second_token])
}

async fn stored_result(app: &TestApp) -> (String, Vec<i16>, String, i32) {
    sqlx::query_as("SELECT outcome, winners, reason, move_count FROM results")
        .fetch_one(&app.pool)
        .await
        .expect("a result row")
}

/// Picks a capture when there is one, else the first legal move: a short, deterministic game.
fn capturing_policy(game: &LinesOfAction, seat: u8) -> Value {
    let moves = game.legal_moves(seat);
    let pieces = |g: &LinesOfAction| serde_json::to_value(g.view()).expect("view")["pieces"].clone();
    let before = pieces(game);
    let capture = moves.iter().find(|mv| {
        let mut next = game.clone();
        next.play(seat, mv).is_ok() && pieces(&next) != before
    });
    serde_json::to_value(capture.unwrap_or(&moves[0])).expect("move JSON")
}

#[tokio::test]
async fn lines_of_action_complete_game_with_a_spectator() {
    let app = fast_app().await;
    let (_, [mut black, mut white, mut spectator], _) = seated(&app, "lines-of-action", json!({})).await;
    // The same game, kept here to choose the moves.
    let mut local = LinesOfAction::new(&Default::default());
    let mut plies = 0;
    while local.outcome().is_none() {
        assert!(plies < 1_000, "the policy ends a game");
        let seat = local.active_seats().iter().next().expect("someone to move");
        let mv = capturing_policy(&local, seat);
        let parsed = serde_json::from_value(mv.clone()).expect("a move");
        local.play(seat, &parsed).expect("legal");
        plies += 1;
        let mover = if seat == 0 { &mut black } else { &mut white };
        mover.send(json!({"type": "move", "move": mv})).await;
        for client in [&mut black, &mut white, &mut spectator] {
            let moved = client.until("moved").await;
            assert_eq!(
                (moved["ply"].clone(), moved["move"].clone()),
                (json!(plies), mv.clone())
            );
        }
    }
    let over = spectator.until("game_over").await;
    let outcome = local.outcome().expect("over");
    assert_eq!(over["result"]["reason"], outcome.reason.as_str());
    let (kind, winners, reason, move_count) = stored_result(&app).await;
    assert_eq!(
        (kind.as_str(), reason.as_str()),
        (outcome.kind(), outcome.reason.as_str())
    );
    assert_eq!(
        winners,
        outcome.winners().iter().map(|s| i16::from(*s)).collect::<Vec<_>>()
    );
    assert_eq!(move_count, plies);
}

#[tokio::test]
async fn lines_of_action_refuses_an_illegal_move_with_its_rule() {
    let app = fast_app().await;
    let (_, [mut black, _, _], _) = seated(&app, "lines-of-action", json!({})).await;
    black
        .send(json!({"type": "move", "move": {"from": "b1", "to": "b2"}}))
        .await;
    let error = black.until("error").await;
    assert_eq!(
        (error["code"].clone(), error["rule"].clone()),
        (json!("illegal_move"), json!("wrong_distance"))
    );
    black
        .send(json!({"type": "move", "move": {"from": "b1", "to": "b3"}}))
        .await;
    assert_eq!(black.until("moved").await["ply"], 1);
}

#[tokio::test]
async fn lines_of_action_can_start_from_a_position() {
    let app = fast_app().await;
    let bad = reqwest::Client::new()
        .post(app.http("/api/tables"))
        .json(&json!({"game": "lines-of-action", "settings": {"start_position": "bbb w"}}))
        .send()
        .await
        .expect("POST");
    assert_eq!(bad.status().as_u16(), 400);
    let body: Value = bad.json().await.expect("JSON");
    assert_eq!(body["error"]["field"], "settings.start_position");
}

/// White passes its first turn whole; black plays its winning turn part by part: the
/// line the rules tests found (black pulls white's piece 1 next to the hole and shoves it
/// in with a jump).
#[tokio::test]
async fn krux_complete_game_part_by_part_and_whole_turns_with_a_spectator() {
    let app = fast_app().await;
    let (table, [mut white, mut black, mut spectator], [_, black_token]) = seated(&app, "krux", json!({})).await;

    // White's whole turn, applied atomically; a whole turn with a bad part changes nothing.
    white
        .send(
            json!({"type": "move", "move": {"turn": [{"part": "ring", "ring": "blue"}, {"part": "step", "to": "c1"}]}}),
        )
        .await;
    assert_eq!(white.until("error").await["code"], "illegal_move");
    white
        .send(json!({"type": "move", "move": {"turn": [
            {"part": "ring", "ring": "blue"}, {"part": "step", "to": "c2"}, {"part": "end"}
        ]}}))
        .await;
    let moved = spectator.until("moved").await;
    assert_eq!(moved["ply"], 1);
    assert_eq!(moved["to_move"], json!([1]));

    // Black, part by part; the spectator sees each part as it happens.
    let parts = [
        json!({"part": "ring", "ring": "green"}),
        json!({"part": "step", "to": "e6"}),
        json!({"part": "step", "to": "d6"}),
    ];
    for (n, part) in parts.iter().enumerate() {
        black.send(json!({"type": "move", "move": part})).await;
        let moved = spectator.until("moved").await;
        assert_eq!(
            (moved["ply"].clone(), moved["move"].clone()),
            (json!(n + 2), part.clone())
        );
        assert_eq!(moved["to_move"], json!([1]), "the turn goes on");
    }
    // A refused part names its rule and changes nothing.
    black
        .send(json!({"type": "move", "move": {"part": "swap", "target": "c2"}}))
        .await;
    assert_eq!(black.until("error").await["rule"], "wrong_ring");

    // Black's connection drops mid-turn; the partial turn is still there when it returns.
    black.close().await;
    let (ws, _) = tokio_tungstenite::connect_async(app.ws(&table)).await.expect("connect");
    let mut black = Client::from_stream(ws);
    let snapshot = black.recv().await;
    assert_eq!(snapshot["table"]["moves"].as_array().map(Vec::len), Some(4));
    assert_eq!(snapshot["table"]["state"]["piece_in_turn"], 2);
    black.send(json!({"type": "hello", "token": black_token})).await;
    assert_eq!(black.until("welcome").await["seats"], json!([1]));

    for part in [
        json!({"part": "step", "to": "c6"}),
        json!({"part": "pull", "target": "c2"}),
        json!({"part": "jump", "to": "b4"}),
    ] {
        black.send(json!({"type": "move", "move": part})).await;
        spectator.until("moved").await;
    }
    let over = spectator.until("game_over").await;
    assert_eq!(over["result"]["reason"], "hole");
    assert_eq!(over["result"]["winners"], json!([1]));
    assert_eq!(over["result"]["detail"]["fallen"], 1);
    assert_eq!(white.until("game_over").await, over);
    let (kind, winners, reason, move_count) = stored_result(&app).await;
    assert_eq!(
        (kind.as_str(), winners, reason.as_str(), move_count),
        ("win", vec![1], "hole", 7)
    );
}
