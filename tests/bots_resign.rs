//! A bot resigns a hopeless game at a real table, over real WebSockets: stored and
//! announced as a person's `resign` is (`game_over`, reason `resignation`), and only when
//! `bots.resign` allows it.
//!
//! The position is built by playing: the person plays X at a free-opening Gomoku table
//! against the hard bot, whose budget is zero (`bots.hard_ms = 0`), so that it answers with
//! its quickest sound move, a function of the position alone: its replies, and so the
//! whole game, are the same on any machine. X's line (found by the strong engine against
//! that bot) builds an open four on move 9; X then keeps two fives open instead of
//! completing one, so the bot sees an unstoppable five on two of its moves in a row, past
//! its first five moves, and resigns instead of its eleventh move.

mod common;

use common::{Client, TestApp, spawn_app_with};
use serde_json::{Value, json};

/// X's moves; the bot resigns after the last.
const LINE: [&str; 11] = ["C11", "D10", "B9", "B10", "F10", "C10", "D12", "D11", "E11", "G9", "D9"];

async fn app(resign: bool) -> TestApp {
    spawn_app_with(|settings| {
        settings.bots.hard_ms = 0;
        settings.bots.resign = resign;
    })
    .await
}

/// Seats a person as X against the hard bot at a new free-opening table.
async fn person_against_the_bot(app: &TestApp) -> (String, Client) {
    let created = app
        .create_table(
            json!({"game": "gomoku", "settings": {"opening": "free", "seating": "chosen", "bots": {"1": "hard"}}}),
        )
        .await;
    let id = created["id"].as_str().expect("an id").to_owned();
    let mut person = app.client(&id).await;
    person.hello().await;
    person.sit(0, "Person").await;
    person.until("game_started").await;
    (id, person)
}

/// Plays X's line but its last move, each answered by the bot's move; then the last.
async fn play_the_line(person: &mut Client) {
    for (n, at) in LINE.iter().enumerate() {
        person.send(json!({"type": "move", "move": {"at": at}})).await;
        let mine = next_event(person).await;
        assert_eq!(
            (mine["type"].as_str(), mine["seat"].as_u64()),
            (Some("moved"), Some(0)),
            "X's {at}: {mine}"
        );
        if n + 1 < LINE.len() {
            let reply = next_event(person).await;
            assert_eq!(
                (reply["type"].as_str(), reply["seat"].as_u64()),
                (Some("moved"), Some(1)),
                "the bot's reply to X's move {}: {reply}",
                n + 1
            );
        }
    }
}

/// The next `moved`, `game_over` or `error`.
async fn next_event(client: &mut Client) -> Value {
    loop {
        let message = client.recv().await;
        if matches!(message["type"].as_str(), Some("moved" | "game_over" | "error")) {
            return message;
        }
    }
}

#[tokio::test]
async fn the_bot_resigns_a_hopeless_game() {
    let app = app(true).await;
    let (id, mut person) = person_against_the_bot(&app).await;
    play_the_line(&mut person).await;
    let over = next_event(&mut person).await;
    assert_eq!(over["type"], "game_over", "the bot resigns instead of moving: {over}");
    assert_eq!(over["result"]["reason"], "resignation", "{over}");
    assert_eq!(over["result"]["winners"], json!([0]), "{over}");
    // Stored as a person's resignation is: after a restart the table is read back from
    // the database with its game resigned.
    let app = app.restart().await;
    let snapshot = app.snapshot(&id).await;
    assert_eq!(snapshot["status"], "finished", "{snapshot}");
    assert_eq!(snapshot["result"]["reason"], "resignation", "{snapshot}");
    assert_eq!(snapshot["result"]["winners"], json!([0]), "{snapshot}");
}

#[tokio::test]
async fn without_bots_resign_the_bot_plays_on() {
    let app = app(false).await;
    let (_, mut person) = person_against_the_bot(&app).await;
    play_the_line(&mut person).await;
    let reply = next_event(&mut person).await;
    assert_eq!(
        (reply["type"].as_str(), reply["seat"].as_u64()),
        (Some("moved"), Some(1)),
        "the bot moves where it would have resigned: {reply}"
    );
}
