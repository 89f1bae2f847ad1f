//! Ratings over real WebSockets: a rated game updates both players' Glicko-2 ratings in
//! Postgres with their history, `game_over` says the changes, the seats show the ratings,
//! and they survive a restart (the next game starts from the stored ratings); bots keep
//! their fixed ratings; unrated tables show none.

mod common;

use common::{TestApp, spawn_app_with};
use serde_json::{Value, json};
use spelbord::bots::Strength;
use spelbord::games::GameKind;
use spelbord::ratings::{self, NEWCOMER, Rating, glicko2};

async fn spawn_app() -> TestApp {
    spawn_app_with(|settings| {
        settings.limits.messages_per_second = 10_000;
        settings.limits.message_burst = 10_000;
    })
    .await
}

/// A rating after one game against `opponent` with `score`, as the server computes it.
fn after(player: Rating, opponent: Rating, score: f64) -> Rating {
    glicko2::update(player, &[glicko2::Game { opponent, score }], ratings::TAU)
}

/// A rating as the protocol shows it.
fn shown(rating: Rating) -> Value {
    json!({
        "value": rating.rating.round() as i64,
        "deviation": rating.deviation.round() as i64,
        "provisional": rating.deviation > 110.0,
    })
}

/// The seat whose player is `name`, in a list of seats.
fn seat_named<'s>(seats: &'s Value, name: &str) -> &'s Value {
    seats
        .as_array()
        .unwrap()
        .iter()
        .find(|seat| seat["player"]["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not seated: {seats}"))
}

/// The rating shown for the seat whose player is `name`.
fn rating_of(seats: &Value, name: &str) -> Value {
    seat_named(seats, name)["player"]["rating"].clone()
}

fn seat_of(seats: &Value, name: &str) -> u64 {
    seat_named(seats, name)["seat"].as_u64().unwrap()
}

/// The stored rating of a player (`rating`, `deviation`, `volatility`, `games`).
async fn stored(app: &TestApp) -> Vec<(f64, f64, f64, i32)> {
    sqlx::query_as(
        "SELECT rating, deviation, volatility, games FROM ratings WHERE game = 'gomoku' ORDER BY rating DESC",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn a_rated_game_updates_both_ratings_and_they_survive_a_restart() {
    let app = spawn_app().await;
    let table = app.gomoku_table(json!({"seating": "chosen", "rated": true})).await;
    let mut anna = app.client(&table).await;
    let mut bo = app.client(&table).await;
    let anna_token = anna.hello().await;
    let bo_token = bo.hello().await;
    let seated = anna.sit(0, "Anna").await;
    assert_eq!(seated["rating"], shown(NEWCOMER), "{seated}");
    bo.until("seated").await;
    bo.sit(1, "Bo").await;
    let started = anna.until("game_started").await;
    bo.until("game_started").await;
    assert_eq!(rating_of(&started["seats"], "Anna"), shown(NEWCOMER));
    assert_eq!(rating_of(&started["seats"], "Bo"), shown(NEWCOMER));
    assert_eq!(shown(NEWCOMER)["provisional"], true);

    // Bo resigns: Anna gains what Bo loses.
    bo.send(json!({"type": "resign"})).await;
    let over = anna.until("game_over").await;
    assert_eq!(bo.until("game_over").await, over);
    let anna_after = after(NEWCOMER, NEWCOMER, 1.0);
    let bo_after = after(NEWCOMER, NEWCOMER, 0.0);
    let change = |seat: u64, rating: Rating| {
        let value = rating.rating.round() as i64;
        json!({"seat": seat, "before": 1500, "after": value, "change": value - 1500,
               "deviation": rating.deviation.round() as i64, "provisional": true})
    };
    assert_eq!(
        over["ratings"],
        json!([change(0, anna_after), change(1, bo_after)]),
        "{over}"
    );
    let snapshot = app.snapshot(&table).await;
    assert_eq!(rating_of(&snapshot["seats"], "Anna"), shown(anna_after));
    assert_eq!(rating_of(&snapshot["seats"], "Bo"), shown(bo_after));

    // Stored with the result, with one history row each.
    let rows = stored(&app).await;
    assert_eq!(rows.len(), 2);
    assert!(
        (rows[0].0 - anna_after.rating).abs() < 1e-9 && rows[0].3 == 1,
        "{rows:?}"
    );
    assert!((rows[1].0 - bo_after.rating).abs() < 1e-9 && rows[1].3 == 1, "{rows:?}");
    let history: Vec<(f64, f64, Vec<i16>)> = sqlx::query_as(
        "SELECT h.rating_before, h.rating_after, h.seats FROM rating_history h
           JOIN games g ON g.id = h.game_id WHERE g.table_id = $1 ORDER BY h.rating_after DESC",
    )
    .bind(&table)
    .fetch_all(&app.pool)
    .await
    .unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[0].0, 1500.0);
    assert!((history[0].1 - anna_after.rating).abs() < 1e-9);
    assert_eq!(history[1].2, vec![1]);

    // After a restart the table shows the stored ratings, and the rematch is rated from them.
    anna.close().await;
    bo.close().await;
    let app = app.restart().await;
    let snapshot = app.snapshot(&table).await;
    assert_eq!(rating_of(&snapshot["seats"], "Anna"), shown(anna_after));
    assert_eq!(rating_of(&snapshot["seats"], "Bo"), shown(bo_after));
    let mut anna = app.client(&table).await;
    let mut bo = app.client(&table).await;
    anna.send(json!({"type": "hello", "token": anna_token})).await;
    anna.until("welcome").await;
    bo.send(json!({"type": "hello", "token": bo_token})).await;
    bo.until("welcome").await;
    anna.send(json!({"type": "offer_rematch"})).await;
    bo.until("rematch_offered").await;
    bo.send(json!({"type": "accept_rematch"})).await;
    let started = anna.until("game_started").await;
    bo.until("game_started").await;
    assert_eq!(rating_of(&started["seats"], "Anna"), shown(anna_after));
    let bo_seat = seat_of(&started["seats"], "Bo");
    // This time Anna resigns: Bo gains, from his stored rating.
    anna.send(json!({"type": "resign"})).await;
    let over = bo.until("game_over").await;
    let bo_again = after(bo_after, anna_after, 1.0);
    let bo_change = over["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|change| change["seat"] == bo_seat)
        .unwrap()
        .clone();
    assert_eq!(bo_change["before"], bo_after.rating.round() as i64, "{over}");
    assert_eq!(bo_change["after"], bo_again.rating.round() as i64, "{over}");
    let rows = stored(&app).await;
    assert!(rows.iter().all(|row| row.3 == 2), "{rows:?}");
    assert!(
        rows.iter().any(|row| (row.0 - bo_again.rating).abs() < 1e-9),
        "{rows:?}"
    );
}

#[tokio::test]
async fn bots_keep_their_fixed_rating_and_unrated_tables_show_none() {
    let app = spawn_app().await;
    let table = app
        .gomoku_table(json!({"seating": "chosen", "rated": true, "bots": {"1": "hard"}}))
        .await;
    let mut anna = app.client(&table).await;
    anna.hello().await;
    anna.sit(0, "Anna").await;
    let started = anna.until("game_started").await;
    let bot = ratings::bots::rating(GameKind::Gomoku, Strength::Hard);
    assert_eq!(started["seats"][1]["player"]["rating"], shown(bot));
    assert_eq!(shown(bot)["provisional"], false);
    anna.send(json!({"type": "resign"})).await;
    let over = anna.until("game_over").await;
    let anna_after = after(NEWCOMER, bot, 0.0);
    assert_eq!(over["ratings"].as_array().unwrap().len(), 1, "{over}");
    assert_eq!(over["ratings"][0]["seat"], 0);
    assert_eq!(over["ratings"][0]["after"], anna_after.rating.round() as i64);
    assert_eq!(stored(&app).await.len(), 1, "the bot has no stored rating");
    let snapshot = app.snapshot(&table).await;
    assert_eq!(snapshot["seats"][1]["player"]["rating"], shown(bot));

    // An unrated table: no ratings anywhere, none stored.
    let casual = app.gomoku_table(json!({"seating": "chosen"})).await;
    let mut first = app.client(&casual).await;
    let mut second = app.client(&casual).await;
    first.hello().await;
    second.hello().await;
    let seated = first.sit(0, "C").await;
    assert!(seated.get("rating").is_none(), "{seated}");
    second.until("seated").await;
    second.sit(1, "D").await;
    let started = first.until("game_started").await;
    assert!(started["seats"][0]["player"].get("rating").is_none(), "{started}");
    second.send(json!({"type": "resign"})).await;
    let over = first.until("game_over").await;
    assert!(over.get("ratings").is_none(), "{over}");
    assert_eq!(stored(&app).await.len(), 1);
}
