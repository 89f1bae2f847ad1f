//! Ratings over real WebSockets: a rated game updates both players' Glicko-2 ratings in
//! Postgres with their history, `game_over` says the changes, the seats show the ratings,
//! and they survive a restart (the next game starts from the stored ratings); games
//! against the computer are never rated (refused at creation and by `add_bot`); unrated
//! tables show none.

mod common;

use common::{TestApp, spawn_app_with};
use serde_json::{Value, json};
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

/// The error body of a refused table creation.
fn refusal(body: &Value) -> (&str, &str, &str) {
    let error = &body["error"];
    (
        error["code"].as_str().unwrap_or_default(),
        error["field"].as_str().unwrap_or_default(),
        error["message"].as_str().unwrap_or_default(),
    )
}

#[tokio::test]
async fn games_against_the_computer_are_never_rated() {
    let app = spawn_app().await;

    // A rated table with the computer in a seat is refused at creation, naming `rated`.
    let everyone_else = json!({"1": "medium", "2": "medium", "3": "medium"});
    for (game, bots) in [("gomoku", json!({"1": "easy"})), ("bughouse", everyone_else)] {
        let body = app
            .refused_table(json!({"game": game, "settings": {"rated": true, "bots": bots}}))
            .await;
        let (code, field, message) = refusal(&body);
        assert_eq!((code, field), ("bad_setting", "settings.rated"), "{body}");
        assert!(
            message.starts_with("Games against the computer are never rated") && message.ends_with('.'),
            "{body}"
        );
    }

    // Nor can a player put the computer in a seat of a rated table; the seat stays free
    // and a person can still take it.
    let table = app.gomoku_table(json!({"seating": "chosen", "rated": true})).await;
    let mut anna = app.client(&table).await;
    let mut bo = app.client(&table).await;
    anna.hello().await;
    bo.hello().await;
    anna.sit(0, "Anna").await;
    bo.until("seated").await;
    anna.send(json!({"type": "add_bot", "seat": 1, "strength": "easy"}))
        .await;
    let error = anna.expect_error("rated_table").await;
    assert!(error["message"].as_str().unwrap().contains("never rated"), "{error}");
    assert!(app.snapshot(&table).await["seats"][1]["player"].is_null());
    bo.sit(1, "Bo").await;
    let started = anna.until("game_started").await;
    assert_eq!(rating_of(&started["seats"], "Bo"), shown(NEWCOMER));

    // "Play the computer" as the home page creates it (unrated, a bot in the other seat,
    // seats drawn by lot): no rating shown, none changed, none stored.
    let created = app
        .create_table(json!({"game": "gomoku", "settings": {"bots": {"1": "easy"}}}))
        .await;
    assert_eq!(created["table"]["rated"], false, "{created}");
    let computer = created["id"].as_str().unwrap();
    let mut cy = app.client(computer).await;
    cy.hello().await;
    let seated = cy.sit(0, "Cy").await;
    assert!(seated.get("rating").is_none(), "{seated}");
    let started = cy.until("game_started").await;
    let seats = started["seats"].as_array().unwrap();
    assert!(
        seats.iter().all(|seat| seat["player"].get("rating").is_none()),
        "{started}"
    );
    cy.send(json!({"type": "resign"})).await;
    let over = cy.until("game_over").await;
    assert!(over.get("ratings").is_none(), "{over}");
    assert!(
        stored(&app).await.is_empty(),
        "nothing is stored for a game against the computer"
    );
}

#[tokio::test]
async fn a_rated_table_stored_with_the_computer_rates_none_of_its_games() {
    // A table made rated with a bot before the rule (here: its stored settings changed by
    // hand) still opens, and its games against the computer change no rating.
    let app = spawn_app().await;
    let table = app
        .gomoku_table(json!({"seating": "chosen", "bots": {"1": "hard"}}))
        .await;
    sqlx::query("UPDATE tables SET settings = jsonb_set(settings, '{rated}', 'true') WHERE id = $1")
        .bind(&table)
        .execute(&app.pool)
        .await
        .unwrap();
    let app = app.restart().await;
    assert_eq!(app.snapshot(&table).await["rated"], true);
    let mut anna = app.client(&table).await;
    anna.hello().await;
    anna.sit(0, "Anna").await;
    anna.until("game_started").await;
    anna.send(json!({"type": "resign"})).await;
    let over = anna.until("game_over").await;
    assert!(over.get("ratings").is_none(), "{over}");
    assert!(stored(&app).await.is_empty());
    // Its record stays readable.
    let games = reqwest::get(app.http(&format!("/api/tables/{table}/games")))
        .await
        .unwrap();
    assert_eq!(games.status(), 200);
}

#[tokio::test]
async fn unrated_tables_show_no_ratings_and_store_none() {
    let app = spawn_app().await;
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
    assert!(stored(&app).await.is_empty());
}
