//! A restart of the server: tables come back from Postgres, games resume where their last
//! stored move left them, and correspondence deadlines survive.

mod common;

use common::spawn_app;
use serde_json::{Value, json};

async fn snapshot(app: &common::TestApp, table: &str) -> Value {
    let response = reqwest::get(app.http(&format!("/api/tables/{table}")))
        .await
        .expect("GET");
    assert_eq!(response.status().as_u16(), 200, "the table is found after the restart");
    response.json().await.expect("JSON")
}

#[tokio::test]
async fn a_waiting_table_is_still_there_after_a_restart() {
    let app = spawn_app().await;
    let table = app.gomoku_table(json!({"board_size": 19})).await;
    let mut anna = app.client(&table).await;
    anna.hello().await;
    anna.sit(0, "Anna").await;
    anna.close().await;
    let app = app.restart().await;
    let table_json = snapshot(&app, &table).await;
    assert_eq!(table_json["status"], "waiting");
    assert_eq!(table_json["settings"]["board_size"], 19);
    assert_eq!(table_json["seats"][0]["player"]["name"], "Anna");
    assert_eq!(table_json["seats"][0]["player"]["connected"], false);
}

#[tokio::test]
async fn a_game_resumes_after_a_restart_and_the_correspondence_deadline_survives() {
    let app = spawn_app().await;
    let table = app
        .gomoku_table(json!({"seating": "chosen", "time_control": {"kind": "correspondence", "days": 1}}))
        .await;
    let ((mut x, x_token), (o, o_token)) = app.two_seated(&table).await;
    x.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    x.until("moved").await;
    let deadline_before: time::OffsetDateTime = sqlx::query_scalar("SELECT deadline FROM games")
        .fetch_one(&app.pool)
        .await
        .expect("a deadline is stored");
    x.close().await;
    o.close().await;

    let app = app.restart().await;
    let table_json = snapshot(&app, &table).await;
    assert_eq!(table_json["status"], "playing");
    let mut moves = table_json["moves"].clone();
    // X's clock after H8, as stored with the move: within X's day.
    let clock_ms = moves[0]["clock_ms"].take().as_u64().expect("the mover's clock");
    assert!(clock_ms > 86_000_000 && clock_ms <= 86_400_000, "{clock_ms}");
    assert_eq!(
        moves,
        json!([{"ply": 1, "seat": 0, "move": {"at": "H8"}, "text": "H8", "clock_ms": null}])
    );
    assert_eq!(table_json["to_move"], json!([1]));
    let clocks = &table_json["clocks"];
    assert_eq!(clocks["kind"], "correspondence");
    assert_eq!(clocks["running"], json!([1]));
    // O's clock counts down to the deadline stored before the restart.
    let remaining = clocks["remaining_ms"][1].as_i64().expect("ms");
    let until_deadline = (deadline_before - time::OffsetDateTime::now_utc()).whole_milliseconds() as i64;
    assert!(
        (until_deadline - remaining).abs() < 60_000,
        "{remaining} ms vs {until_deadline} ms to the deadline"
    );
    assert!(remaining <= 86_400_000);

    // The players come back with their tokens and play on.
    let mut o = app.client(&table).await;
    o.send(json!({"type": "hello", "token": o_token})).await;
    assert_eq!(o.expect("welcome").await["seats"], json!([1]));
    o.send(json!({"type": "move", "move": {"at": "A1"}})).await;
    let moved = o.until("moved").await;
    assert_eq!(moved["ply"], 2);
    let mut x = app.client(&table).await;
    x.send(json!({"type": "hello", "token": x_token})).await;
    assert_eq!(x.expect("welcome").await["seats"], json!([0]));
}

#[tokio::test]
async fn a_correspondence_deadline_that_fell_during_the_outage_gives_an_hour() {
    let app = spawn_app().await;
    let table = app
        .gomoku_table(json!({"seating": "chosen", "time_control": {"kind": "correspondence", "days": 3}}))
        .await;
    let ((x, _), (o, _)) = app.two_seated(&table).await;
    x.close().await;
    o.close().await;
    let mut app = app.restart().await;
    // Pretend the server was down past X's deadline.
    sqlx::query("UPDATE games SET deadline = now() - interval '2 days'")
        .execute(&app.pool)
        .await
        .expect("update");
    app = app.restart().await;
    let table_json = snapshot(&app, &table).await;
    assert_eq!(table_json["status"], "playing", "nobody loses to an outage");
    let remaining = table_json["clocks"]["remaining_ms"][0].as_i64().expect("ms");
    assert!((3_500_000..=3_600_000).contains(&remaining), "{remaining}");
}

#[tokio::test]
async fn a_finished_game_comes_back_finished() {
    let app = spawn_app().await;
    let table = app.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut x, _), (o, _)) = app.two_seated(&table).await;
    x.send(json!({"type": "resign"})).await;
    x.until("game_over").await;
    x.close().await;
    o.close().await;
    let app = app.restart().await;
    let table_json = snapshot(&app, &table).await;
    assert_eq!(table_json["status"], "finished");
    assert_eq!(table_json["result"]["reason"], "resignation");
    assert_eq!(table_json["result"]["winners"], json!([1]));
}

/// A series' pause runs from its game's stored end, as a clock runs from its deadline: a
/// restart during it does not start it again at its full length.
#[tokio::test]
async fn a_series_pause_keeps_its_end_across_a_restart() {
    let app = spawn_app().await;
    let table = app
        .gomoku_table(json!({"seating": "chosen", "series": "best_of_3", "series_pause_seconds": 60}))
        .await;
    let ((mut x, _), (o, _)) = app.two_seated(&table).await;
    x.send(json!({"type": "resign"})).await;
    assert_eq!(x.until("next_game_in").await["ms"], 60_000);
    // Two seconds of the pause go by before the server stops.
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    x.close().await;
    o.close().await;
    let app = app.restart().await;
    let table_json = snapshot(&app, &table).await;
    let left = table_json["next_game_in_ms"].as_u64().expect("the pause goes on");
    assert!(left <= 58_000, "{left} ms left of the pause, not its full 60 s again");
    assert!(left > 30_000, "{left}");
}
