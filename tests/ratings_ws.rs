//! Ratings over real WebSockets: a rated game updates both players' Glicko-2 ratings in
//! Postgres with their history, `game_over` says the changes, the seats show the ratings,
//! and they survive a restart (the next game starts from the stored ratings); games
//! against the computer are never rated (refused at creation and by `add_bot`); unrated
//! tables show none. Against farming (docs/ratings.md, "Games that are not rated"): a game
//! ended outside the rules before every seat played two turns is aborted (per seat, so per
//! board in Bughouse), and two player keys on opposite sides are rated at most ten times
//! in 24 hours (`unrated` in `game_over` beyond it).

mod common;

use common::{Client, TestApp, spawn_app_with};
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

/// Sends a move and waits until `watcher` sees it (skipping earlier events it had not read).
async fn play(mover: &mut Client, watcher: &mut Client, payload: Value) {
    mover.send(json!({"type": "move", "move": payload})).await;
    loop {
        let moved = watcher.until("moved").await;
        if moved["move"] == payload {
            return;
        }
    }
}

/// Two Gomoku moves each, `x` (seat 0) first: enough for a rated game to count.
async fn two_moves_each(x: &mut Client, o: &mut Client) {
    play(x, o, json!({"at": "H8"})).await;
    play(o, x, json!({"at": "H9"})).await;
    play(x, o, json!({"at": "I8"})).await;
    play(o, x, json!({"at": "I9"})).await;
}

/// Connects to `table`, says hello (with `token` to be a known player again, else as a
/// newcomer) and sits in `seat` as `name`: the client and its token.
async fn seated(app: &TestApp, table: &str, token: Option<&str>, seat: u8, name: &str) -> (Client, String) {
    let mut client = app.client(table).await;
    let token = match token {
        Some(token) => {
            client.send(json!({"type": "hello", "token": token})).await;
            client.expect("welcome").await;
            token.to_owned()
        }
        None => client.hello().await,
    };
    client.sit(seat, name).await;
    (client, token)
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

    // Two moves each (a game ended sooner is aborted), then Bo resigns: Anna gains what
    // Bo loses.
    two_moves_each(&mut anna, &mut bo).await;
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
    assert_eq!(bo_seat, 0, "the sides swap seats in a rematch");
    // This time Anna resigns: Bo gains, from his stored rating.
    two_moves_each(&mut bo, &mut anna).await;
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
    // Two moves each, so that the game has a result (a rated table aborts one ended
    // sooner): the result stands, and still rates nobody.
    for at in ["H8", "A1"] {
        anna.send(json!({"type": "move", "move": {"at": at}})).await;
        while anna.until("moved").await["seat"] != 1 {}
    }
    anna.send(json!({"type": "resign"})).await;
    let over = anna.until("game_over").await;
    assert_eq!(over["result"]["outcome"], "win", "{over}");
    assert!(over.get("ratings").is_none(), "{over}");
    assert!(over.get("unrated").is_none(), "{over}");
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
    // A casual table keeps a resignation before any move (only rated tables abort it).
    second.send(json!({"type": "resign"})).await;
    let over = first.until("game_over").await;
    assert_eq!(over["result"]["outcome"], "win", "{over}");
    assert!(over.get("ratings").is_none(), "{over}");
    assert!(stored(&app).await.is_empty());
}

/// The rating history rows stored so far.
async fn history_rows(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM rating_history")
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

/// The stored result of a table's game `number`: outcome, reason and detail.
async fn stored_result(app: &TestApp, table: &str, number: i32) -> (String, String, Option<Value>) {
    sqlx::query_as(
        "SELECT r.outcome, r.reason, r.detail FROM results r JOIN games g ON g.id = r.game_id
          WHERE g.table_id = $1 AND g.number = $2",
    )
    .bind(table)
    .bind(number)
    .fetch_one(&app.pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn a_rated_game_ended_before_two_moves_each_is_aborted_and_rates_nobody() {
    let app = spawn_app().await;
    let table = app
        .gomoku_table(json!({"seating": "chosen", "rated": true, "series_pause_seconds": 0}))
        .await;
    let (mut anna, _) = seated(&app, &table, None, 0, "Anna").await;
    let (mut bo, _) = seated(&app, &table, None, 1, "Bo").await;
    anna.until("game_started").await;
    bo.until("game_started").await;

    // Game 1: Bo resigns before anyone moved. Aborted, keeping its reason: no winner, no
    // rating, nothing in the series, and the series' next game follows.
    bo.send(json!({"type": "resign"})).await;
    let over = anna.until("game_over").await;
    assert_eq!(
        over["result"],
        json!({"outcome": "aborted", "winners": [], "reason": "resignation",
               "detail": {"rule": "aborted_before_two_moves_each"}}),
        "{over}"
    );
    assert!(over.get("ratings").is_none(), "{over}");
    assert!(
        over.get("unrated").is_none(),
        "an aborted game needs no other reason: {over}"
    );
    assert_eq!(over["series"]["decided"], false, "{over}");
    assert_eq!(over["series"]["standings"][0]["wins"], 0, "{over}");
    assert_eq!(
        stored_result(&app, &table, 1).await,
        (
            "aborted".to_owned(),
            "resignation".to_owned(),
            Some(json!({"rule": "aborted_before_two_moves_each"}))
        )
    );
    assert!(stored(&app).await.is_empty(), "no rating row is even created");
    anna.until("next_game_in").await;
    let started = anna.until("game_started").await;
    bo.until("game_started").await;

    // Game 2 (the sides swapped: Bo is X): two moves for Bo, one for Anna, then a draw
    // agreed. Still aborted: every seat must have moved twice.
    assert_eq!(seat_of(&started["seats"], "Bo"), 0);
    play(&mut bo, &mut anna, json!({"at": "H8"})).await;
    play(&mut anna, &mut bo, json!({"at": "H9"})).await;
    play(&mut bo, &mut anna, json!({"at": "I8"})).await;
    anna.send(json!({"type": "offer_draw"})).await;
    bo.until("draw_offered").await;
    bo.send(json!({"type": "accept_draw"})).await;
    let over = anna.until("game_over").await;
    assert_eq!(
        (
            &over["result"]["outcome"],
            &over["result"]["reason"],
            &over["result"]["detail"]["rule"]
        ),
        (
            &json!("aborted"),
            &json!("draw_agreed"),
            &json!("aborted_before_two_moves_each")
        ),
        "{over}"
    );
    assert!(over.get("ratings").is_none(), "{over}");
    assert_eq!(history_rows(&app).await, 0);
    anna.until("game_started").await;
    bo.until("game_started").await;

    // Game 3 (Anna is X again): two moves each, then Anna resigns. Rated, from the
    // newcomers' ratings: the aborted games changed nothing. The series is decided.
    two_moves_each(&mut anna, &mut bo).await;
    anna.send(json!({"type": "resign"})).await;
    let over = bo.until("game_over").await;
    assert_eq!(over["result"]["outcome"], "win", "{over}");
    assert_eq!(over["result"]["detail"], Value::Null, "{over}");
    let bo_after = after(NEWCOMER, NEWCOMER, 1.0);
    let bo_change = over["ratings"]
        .as_array()
        .unwrap_or_else(|| panic!("the game is rated: {over}"))
        .iter()
        .find(|change| change["seat"] == 1)
        .unwrap()
        .clone();
    assert_eq!(bo_change["before"], 1500, "{over}");
    assert_eq!(bo_change["after"], bo_after.rating.round() as i64, "{over}");
    assert_eq!(over["series"]["decided"], true, "{over}");
    assert_eq!(history_rows(&app).await, 2);
    let rows = stored(&app).await;
    assert!(rows.iter().all(|row| row.3 == 1), "one rated game each: {rows:?}");
}

/// The four players of a rated Bughouse table, by seat (seats 0 and 3 are partners
/// against 1 and 2), each with `tokens[seat]` when given.
async fn bughouse_four(app: &TestApp, tokens: [Option<&str>; 4]) -> (String, Vec<Client>, Vec<String>) {
    let created = app
        .create_table(json!({"game": "bughouse",
                             "settings": {"seating": "chosen", "rated": true, "series_pause_seconds": 0}}))
        .await;
    let table = created["id"].as_str().unwrap().to_owned();
    let mut players = Vec::new();
    let mut keys = Vec::new();
    for (seat, token) in tokens.into_iter().enumerate() {
        let (client, token) = seated(app, &table, token, seat as u8, &format!("P{seat}")).await;
        players.push(client);
        keys.push(token);
    }
    for player in &mut players {
        player.until("game_started").await;
    }
    (table, players, keys)
}

/// Plays `uci` for `seat`, waiting until the mover sees it.
async fn bughouse_move(players: &mut [Client], seat: usize, uci: &str) {
    players[seat].send(json!({"type": "move", "move": {"uci": uci}})).await;
    loop {
        let moved = players[seat].until("moved").await;
        if moved["seat"] == seat && moved["move"]["uci"] == uci {
            return;
        }
    }
}

/// Two moves for every seat, on both boards.
async fn bughouse_two_moves_each(players: &mut [Client]) {
    for (seat, uci) in [
        (0, "e2e4"),
        (2, "e2e4"),
        (1, "e7e5"),
        (3, "e7e5"),
        (0, "g1f3"),
        (2, "g1f3"),
        (1, "b8c6"),
        (3, "b8c6"),
    ] {
        bughouse_move(players, seat, uci).await;
    }
}

/// `seat` resigns (its team loses); the `game_over` everyone sees.
async fn bughouse_resign(players: &mut [Client], seat: usize) -> Value {
    players[seat].send(json!({"type": "resign"})).await;
    players[seat].until("game_over").await
}

#[tokio::test]
async fn a_bughouse_match_counts_two_moves_on_each_board() {
    let app = spawn_app().await;
    let (_table, mut players, _) = bughouse_four(&app, [None; 4]).await;
    // Board A plays on; on board B each side has moved once. A resignation now is
    // aborted: every seat must have moved twice, whatever the other board did.
    for (seat, uci) in [
        (0, "e2e4"),
        (1, "e7e5"),
        (0, "g1f3"),
        (1, "b8c6"),
        (0, "f1c4"),
        (1, "g8f6"),
    ] {
        bughouse_move(&mut players, seat, uci).await;
    }
    bughouse_move(&mut players, 2, "d2d4").await;
    bughouse_move(&mut players, 3, "d7d5").await;
    let over = bughouse_resign(&mut players, 0).await;
    assert_eq!(
        (&over["result"]["outcome"], &over["result"]["detail"]["rule"]),
        (&json!("aborted"), &json!("aborted_before_two_moves_each")),
        "{over}"
    );
    assert!(over.get("ratings").is_none(), "{over}");
    assert_eq!(history_rows(&app).await, 0);

    // The next game (each player keeps their board and plays the other colour): two
    // moves on every seat, then a resignation. Rated, all four.
    for player in &mut players {
        player.until("game_started").await;
    }
    // Players swap seats pairwise: the clients' order no longer matches the seats.
    players.swap(0, 1);
    players.swap(2, 3);
    bughouse_two_moves_each(&mut players).await;
    let over = bughouse_resign(&mut players, 1).await;
    assert_eq!(over["result"]["winners"], json!([0, 3]), "{over}");
    assert_eq!(over["ratings"].as_array().map(Vec::len), Some(4), "{over}");
    assert_eq!(history_rows(&app).await, 4);
}

/// One rated Gomoku game at a table of its own between the players of `x` and `o` (by
/// token), two moves each, `o` resigning: its `game_over`.
async fn one_rated_game(app: &TestApp, x: &str, o: &str) -> Value {
    let table = app.gomoku_table(json!({"seating": "chosen", "rated": true})).await;
    let (mut first, _) = seated(app, &table, Some(x), 0, "X").await;
    let (mut second, _) = seated(app, &table, Some(o), 1, "O").await;
    first.until("game_started").await;
    second.until("game_started").await;
    two_moves_each(&mut first, &mut second).await;
    second.send(json!({"type": "resign"})).await;
    first.until("game_over").await
}

/// A fresh player's token (asked of any table).
async fn new_token(app: &TestApp) -> String {
    let table = app.gomoku_table(json!({})).await;
    app.client(&table).await.hello().await
}

#[tokio::test]
async fn two_players_are_rated_against_each_other_ten_times_a_day_at_most() {
    let app = spawn_app().await;
    let anna = new_token(&app).await;
    let bo = new_token(&app).await;
    // Ten rated games between Anna and Bo (at ten tables: the bound is the pair's, not a
    // table's), each one rated.
    for game in 1..=10 {
        let over = one_rated_game(&app, &anna, &bo).await;
        assert_eq!(over["ratings"].as_array().map(Vec::len), Some(2), "game {game}: {over}");
        assert!(over.get("unrated").is_none(), "{over}");
    }
    let before = stored(&app).await;
    assert!(before.iter().all(|row| row.3 == 10), "{before:?}");

    // The eleventh within the day is played and stored with its result, and rated for
    // nobody; game_over says why. Either player's seat counts the same.
    let over = one_rated_game(&app, &bo, &anna).await;
    assert_eq!(over["result"]["outcome"], "win", "{over}");
    assert_eq!(over["result"]["winners"], json!([0]), "{over}");
    assert!(over.get("ratings").is_none(), "{over}");
    assert_eq!(
        over["unrated"],
        json!({"reason": "pair_limit", "limit": 10, "hours": 24}),
        "{over}"
    );
    assert_eq!(stored(&app).await, before, "no rating changed");
    assert_eq!(history_rows(&app).await, 20);
    let finished: i64 = sqlx::query_scalar("SELECT count(*) FROM results WHERE outcome = 'win'")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(finished, 11, "the eleventh game's result is stored");

    // The bound is per pair: Anna against someone else is rated.
    let cy = new_token(&app).await;
    let over = one_rated_game(&app, &anna, &cy).await;
    assert_eq!(over["ratings"].as_array().map(Vec::len), Some(2), "{over}");

    // A day later (the window rolls: here the pair's games are moved back 25 hours) Anna
    // and Bo are rated again.
    sqlx::query("UPDATE rating_history SET rated_at = rated_at - interval '25 hours'")
        .execute(&app.pool)
        .await
        .unwrap();
    let over = one_rated_game(&app, &anna, &bo).await;
    assert_eq!(over["ratings"].as_array().map(Vec::len), Some(2), "{over}");
    assert!(over.get("unrated").is_none(), "{over}");
}

#[tokio::test]
async fn in_bughouse_the_bound_counts_opponents_and_not_partners() {
    let app = spawn_app().await;
    let mut tokens = Vec::new();
    for _ in 0..6 {
        tokens.push(new_token(&app).await);
    }
    let [p, q, r, s, t, u] = [0, 1, 2, 3, 4, 5].map(|n| tokens[n].as_str());
    // Ten rated matches of P and Q (seats 0 and 3, partners) against R and S.
    for game in 1..=10 {
        let (_, mut players, _) = bughouse_four(&app, [Some(p), Some(r), Some(s), Some(q)]).await;
        bughouse_two_moves_each(&mut players).await;
        let over = bughouse_resign(&mut players, 1).await;
        assert_eq!(over["ratings"].as_array().map(Vec::len), Some(4), "game {game}: {over}");
    }
    // P and Q, partners ten times, now play against each other (with new partners):
    // rated, their games as partners do not count.
    let (_, mut players, _) = bughouse_four(&app, [Some(p), Some(q), Some(u), Some(t)]).await;
    bughouse_two_moves_each(&mut players).await;
    let over = bughouse_resign(&mut players, 0).await;
    assert_eq!(over["ratings"].as_array().map(Vec::len), Some(4), "{over}");
    assert!(over.get("unrated").is_none(), "{over}");
    // P and Q against R and S an eleventh time: every one of their opposing pairs has had
    // its ten games today, so nobody is rated, partners included.
    let (_, mut players, _) = bughouse_four(&app, [Some(p), Some(r), Some(s), Some(q)]).await;
    bughouse_two_moves_each(&mut players).await;
    let over = bughouse_resign(&mut players, 2).await;
    assert_eq!(over["result"]["winners"], json!([0, 3]), "{over}");
    assert!(over.get("ratings").is_none(), "{over}");
    assert_eq!(over["unrated"]["reason"], "pair_limit", "{over}");
    assert_eq!(history_rows(&app).await, 44);
}
