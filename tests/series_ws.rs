//! Series, rematches, "new game" and take-backs over real WebSockets, stored in Postgres:
//! every format played to its end (draws, the early finish, the points tie), who starts
//! the next game, the pause and `ready`, rematches accepted and declined (Bughouse partners
//! swapping colours), take-backs between people and against the computer, refusals, and
//! the operator's standings query from docs/operations.md.

mod common;

use common::{Client, TestApp, spawn_app_with};
use serde_json::{Value, json};

/// A server that lets the players move as fast as the test can send.
async fn spawn_app() -> TestApp {
    spawn_app_with(|settings| {
        settings.limits.messages_per_second = 10_000;
        settings.limits.message_burst = 10_000;
    })
    .await
}

/// Anna and Bo at a new Gomoku table with `settings` (seating chosen: Anna takes seat 0),
/// after both have seen the first game start.
struct Pair {
    table: String,
    anna: Client,
    bo: Client,
    /// The latest `game_started`.
    started: Value,
}

impl Pair {
    async fn new(app: &TestApp, settings: Value) -> Pair {
        let mut settings = settings;
        settings["seating"] = json!("chosen");
        let table = app.gomoku_table(settings).await;
        let mut anna = app.client(&table).await;
        let mut bo = app.client(&table).await;
        anna.hello().await;
        bo.hello().await;
        anna.sit(0, "Anna").await;
        bo.until("seated").await;
        bo.sit(1, "Bo").await;
        let started = anna.until("game_started").await;
        bo.until("game_started").await;
        Pair {
            table,
            anna,
            bo,
            started,
        }
    }

    /// Anna's seat in the current game.
    fn anna_seat(&self) -> u8 {
        seat_of(&self.started, "Anna")
    }

    /// Ends the current game: `'A'` Anna wins (Bo resigns), `'B'` Bo wins, `'D'` a draw
    /// by agreement. Returns the `game_over` both saw.
    async fn finish(&mut self, how: char) -> Value {
        match how {
            'A' => self.bo.send(json!({"type": "resign"})).await,
            'B' => self.anna.send(json!({"type": "resign"})).await,
            _ => {
                self.anna.send(json!({"type": "offer_draw"})).await;
                self.bo.until("draw_offered").await;
                self.bo.send(json!({"type": "accept_draw"})).await;
            }
        }
        let over = self.anna.until("game_over").await;
        assert_eq!(self.bo.until("game_over").await, over);
        over
    }

    /// Waits for the next game of the series to start (pause 0) and returns it.
    async fn next_game(&mut self) -> Value {
        self.started = self.anna.until("game_started").await;
        self.bo.until("game_started").await;
        self.started.clone()
    }

    /// Plays `games` ('A', 'B', 'D') one after another; returns the last `game_over`.
    async fn play(&mut self, games: &str) -> Value {
        let mut last = Value::Null;
        for (index, how) in games.chars().enumerate() {
            if index > 0 {
                self.next_game().await;
            }
            last = self.finish(how).await;
        }
        last
    }
}

/// The seat the player called `name` holds in a `game_started`.
fn seat_of(started: &Value, name: &str) -> u8 {
    let seats = started["seats"].as_array().expect("seats");
    let seat = seats
        .iter()
        .find(|seat| seat["player"]["name"] == name)
        .unwrap_or_else(|| panic!("{name} is seated: {started}"));
    u8::try_from(seat["seat"].as_u64().expect("a seat")).expect("small")
}

/// Standings as (players, wins, draws, losses, points) per side.
fn standings(series: &Value) -> Vec<(String, u64, u64, u64, u64)> {
    series["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .map(|side| {
            let n = |key: &str| side[key].as_u64().expect("a count");
            (
                side["players"].as_str().expect("names").to_owned(),
                n("wins"),
                n("draws"),
                n("losses"),
                n("points"),
            )
        })
        .collect()
}

fn side(players: &str, wins: u64, draws: u64, losses: u64) -> (String, u64, u64, u64, u64) {
    (players.to_owned(), wins, draws, losses, wins * 3 + draws)
}

#[tokio::test]
async fn best_of_three_ends_at_two_nil_and_is_stored() {
    let app = spawn_app().await;
    let mut pair = Pair::new(&app, json!({"series": "best_of_3", "series_pause_seconds": 0})).await;
    assert_eq!(pair.started["series"]["format"], "best_of_3");
    assert_eq!(pair.started["series"]["game"], 1);
    let over = pair.finish('A').await;
    assert_eq!(over["series"]["decided"], false);
    assert_eq!(
        standings(&over["series"]),
        vec![side("Anna", 1, 0, 0), side("Bo", 0, 0, 1)]
    );
    let next = pair.anna.until("next_game_in").await;
    assert_eq!((next["game_number"].clone(), next["ms"].clone()), (json!(2), json!(0)));
    let started = pair.next_game().await;
    assert_eq!(started["game_number"], 2);
    assert_eq!(started["series"]["game"], 2);
    let over = pair.finish('A').await;
    assert_eq!(over["series"]["decided"], true);
    let series_over = pair.bo.until("series_over").await;
    assert_eq!(series_over["series"]["result"], "win");
    assert_eq!(series_over["series"]["winner"], 0, "Anna's side");
    assert_eq!(
        standings(&series_over["series"]),
        vec![side("Anna", 2, 0, 0), side("Bo", 0, 0, 2)]
    );
    // No third game starts; the snapshot agrees.
    let snapshot = app.snapshot(&pair.table).await;
    assert_eq!(snapshot["status"], "finished");
    assert_eq!(snapshot["game_number"], 2);
    assert_eq!(snapshot["series"]["decided"], true);
    assert_eq!(snapshot["next_game_in_ms"], Value::Null);
    // Stored: the series, its standings, and its two games.
    let row: (String, String, Option<String>, Option<i16>) =
        sqlx::query_as("SELECT format, status, result, winner FROM series")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(row, ("best_of_3".into(), "decided".into(), Some("win".into()), Some(0)));
    let sides: Vec<(i16, String, i32, i32)> =
        sqlx::query_as("SELECT side, players, wins, points FROM series_sides ORDER BY side")
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert_eq!(sides, vec![(0, "Anna".into(), 2, 6), (1, "Bo".into(), 0, 0)]);
    let games: Vec<(i32, i32, bool)> =
        sqlx::query_as("SELECT number, series_game, series_id IS NOT NULL FROM games ORDER BY number")
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert_eq!(games, vec![(1, 1, true), (2, 2, true)]);
}

#[tokio::test]
async fn best_of_three_with_draws_can_end_in_a_tie_and_sides_alternate() {
    let app = spawn_app().await;
    let mut pair = Pair::new(&app, json!({"series": "best_of_3", "series_pause_seconds": 0})).await;
    let mut anna_seats = vec![pair.anna_seat()];
    pair.finish('D').await;
    for how in ['A', 'B'] {
        pair.next_game().await;
        anna_seats.push(pair.anna_seat());
        pair.finish(how).await;
    }
    assert_eq!(anna_seats, vec![0, 1, 0], "the sides swap seats every game");
    let series_over = pair.anna.until("series_over").await;
    assert_eq!(series_over["series"]["result"], "tie");
    assert_eq!(series_over["series"]["winner"], Value::Null);
    assert_eq!(
        standings(&series_over["series"]),
        vec![side("Anna", 1, 1, 1), side("Bo", 1, 1, 1)]
    );
}

#[tokio::test]
async fn best_of_five_and_first_to_three() {
    let app = spawn_app().await;
    let mut pair = Pair::new(&app, json!({"series": "best_of_5", "series_pause_seconds": 0})).await;
    let over = pair.play("ABAB").await;
    assert_eq!(over["series"]["decided"], false);
    pair.next_game().await;
    pair.finish('B').await;
    let series_over = pair.anna.until("series_over").await;
    assert_eq!(series_over["series"]["winner"], 1);
    assert_eq!(
        standings(&series_over["series"]),
        vec![side("Anna", 2, 0, 3), side("Bo", 3, 0, 2)]
    );

    let mut pair = Pair::new(&app, json!({"series": "first_to_3", "series_pause_seconds": 0})).await;
    let over = pair.play("ADDADBD").await;
    assert_eq!(over["series"]["decided"], false, "draws do not count towards three");
    pair.next_game().await;
    pair.finish('A').await;
    let series_over = pair.bo.until("series_over").await;
    assert_eq!(series_over["series"]["winner"], 0);
    assert_eq!(
        standings(&series_over["series"]),
        vec![side("Anna", 3, 4, 1), side("Bo", 1, 4, 3)]
    );
}

#[tokio::test]
async fn ten_games_on_points_ends_early_or_in_a_tie() {
    let app = spawn_app().await;
    // Six straight wins: 18 points to 0 with four games (12 points) left.
    let mut pair = Pair::new(&app, json!({"series": "ten_games", "series_pause_seconds": 0})).await;
    pair.play("AAAAA").await;
    assert_eq!(pair.anna.until("next_game_in").await["game_number"], 6);
    pair.next_game().await;
    pair.finish('A').await;
    let series_over = pair.anna.until("series_over").await;
    assert_eq!(series_over["series"]["game"], 6);
    assert_eq!(
        standings(&series_over["series"]),
        vec![side("Anna", 6, 0, 0), side("Bo", 0, 0, 6)]
    );

    let mut pair = Pair::new(&app, json!({"series": "ten_games", "series_pause_seconds": 0})).await;
    let over = pair.play("ABDDABDDAB").await;
    assert_eq!(over["series"]["decided"], true);
    let series_over = pair.anna.until("series_over").await;
    assert_eq!(series_over["series"]["result"], "tie");
    assert_eq!(series_over["series"]["game"], 10);
    assert_eq!(
        standings(&series_over["series"]),
        vec![side("Anna", 3, 4, 3), side("Bo", 3, 4, 3)]
    );
}

#[tokio::test]
async fn the_loser_starts_when_the_table_says_so() {
    let app = spawn_app().await;
    let mut pair = Pair::new(
        &app,
        json!({"series": "ten_games", "series_pause_seconds": 0, "next_first": "loser"}),
    )
    .await;
    let mut anna_seats = vec![pair.anna_seat()];
    // Anna (X) wins: Bo starts. Bo (X) loses again: Bo starts again. A draw: they swap.
    for how in ['A', 'A', 'D', 'B'] {
        pair.finish(how).await;
        pair.next_game().await;
        anna_seats.push(pair.anna_seat());
    }
    assert_eq!(anna_seats, vec![0, 1, 1, 0, 0]);
}

#[tokio::test]
async fn the_pause_before_the_next_game_is_cut_short_when_everyone_is_ready() {
    let app = spawn_app().await;
    let mut pair = Pair::new(&app, json!({"series": "best_of_3", "series_pause_seconds": 300})).await;
    pair.finish('B').await;
    let next = pair.anna.until("next_game_in").await;
    assert_eq!(next["ms"], 300_000);
    let snapshot = app.snapshot(&pair.table).await;
    assert!(
        snapshot["next_game_in_ms"].as_u64().is_some_and(|ms| ms > 200_000),
        "{snapshot}"
    );
    // Seats do not change during a series.
    pair.anna.send(json!({"type": "stand"})).await;
    pair.anna.expect_error("series_in_progress").await;
    pair.anna.send(json!({"type": "ready"})).await;
    assert_eq!(pair.bo.until("ready").await["seat"], pair.anna_seat());
    pair.bo.send(json!({"type": "ready"})).await;
    let started = pair.next_game().await;
    assert_eq!(started["game_number"], 2);
    pair.anna.send(json!({"type": "ready"})).await;
    assert_eq!(pair.anna.until("error").await["code"], "no_pause");
}

#[tokio::test]
async fn a_rematch_needs_every_person_and_can_be_declined() {
    let app = spawn_app().await;
    let mut pair = Pair::new(&app, json!({})).await;
    pair.finish('A').await;
    let over = pair.anna.until("series_over").await;
    assert_eq!(over["series"]["format"], "single");
    // Declined: nothing starts.
    pair.anna.send(json!({"type": "offer_rematch"})).await;
    let offered = pair.bo.until("rematch_offered").await;
    assert_eq!(offered["agreed"], json!([0]));
    pair.bo.send(json!({"type": "decline_rematch"})).await;
    assert_eq!(pair.anna.until("rematch_declined").await["seat"], 1);
    pair.bo.send(json!({"type": "decline_rematch"})).await;
    assert_eq!(pair.bo.until("error").await["code"], "no_rematch");
    // Offered again and accepted: the same link, the same seats and tokens, the next game.
    pair.bo.send(json!({"type": "offer_rematch"})).await;
    pair.anna.until("rematch_offered").await;
    pair.anna.send(json!({"type": "accept_rematch"})).await;
    let started = pair.next_game().await;
    assert_eq!(started["game_number"], 2);
    assert_eq!(started["series"]["number"], 2, "a rematch is a new series");
    assert_eq!(pair.anna_seat(), 1, "the sides swap (alternate)");
    let welcome = pair.anna.until("welcome").await;
    assert_eq!(welcome["seats"], json!([1]));
    // After a single game the seats may change: Bo leaves, and the table waits.
    pair.finish('B').await;
    pair.bo.send(json!({"type": "stand"})).await;
    pair.anna.until("stood").await;
    let snapshot = app.snapshot(&pair.table).await;
    assert_eq!(snapshot["status"], "waiting");
    pair.anna.send(json!({"type": "offer_rematch"})).await;
    pair.anna.expect_error("no_rematch").await;
}

#[tokio::test]
async fn a_rematch_against_the_computer_starts_at_once() {
    let app = spawn_app().await;
    let created = app
        .create_table(json!({"game": "gomoku", "settings": {"seating": "chosen", "bots": {"1": "random"}}}))
        .await;
    let table = created["id"].as_str().unwrap().to_owned();
    let mut anna = app.client(&table).await;
    anna.hello().await;
    anna.sit(0, "Anna").await;
    anna.until("game_started").await;
    anna.send(json!({"type": "resign"})).await;
    anna.until("series_over").await;
    anna.send(json!({"type": "offer_rematch"})).await;
    let started = anna.until("game_started").await;
    assert_eq!(seat_of(&started, "Anna"), 1);
    // The bot is X now and opens the game by itself.
    assert_eq!(anna.until("moved").await["seat"], 0);
}

#[tokio::test]
async fn a_bughouse_rematch_keeps_partners_and_swaps_colours() {
    let app = spawn_app().await;
    let bots = json!({"1": "random", "2": "random", "3": "random"});
    let created = app
        .create_table(json!({"game": "bughouse", "settings": {"seating": "chosen", "bots": bots}}))
        .await;
    let table = created["id"].as_str().unwrap().to_owned();
    let mut anna = app.client(&table).await;
    anna.hello().await;
    anna.sit(0, "Anna").await;
    let started = anna.until("game_started").await;
    // Side 0 is Anna's team: A-white and B-black.
    assert_eq!(started["series"]["standings"][0]["seats"], json!([0, 3]));
    anna.send(json!({"type": "resign"})).await;
    anna.until("series_over").await;
    anna.send(json!({"type": "offer_rematch"})).await;
    let started = anna.until("game_started").await;
    assert_eq!(seat_of(&started, "Anna"), 1, "Anna keeps board A and plays black");
    // The new series counts sides from its first game: Anna's team holds seats 1 and 2.
    let anna_side = &started["series"]["standings"][1];
    assert_eq!(
        anna_side["seats"],
        json!([1, 2]),
        "her partner plays white on board B: {started}"
    );
    assert_eq!(anna.until("welcome").await["seats"], json!([1]));
}

#[tokio::test]
async fn new_game_at_a_casual_table_aborts_without_a_loss() {
    let app = spawn_app().await;
    let mut pair = Pair::new(&app, json!({})).await;
    pair.anna.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    pair.bo.until("moved").await;
    pair.anna.send(json!({"type": "offer_new_game"})).await;
    assert_eq!(pair.bo.until("new_game_offered").await["agreed"], json!([0]));
    pair.bo.send(json!({"type": "decline_new_game"})).await;
    pair.anna.until("new_game_declined").await;
    pair.anna.send(json!({"type": "offer_new_game"})).await;
    pair.bo.until("new_game_offered").await;
    pair.bo.send(json!({"type": "accept_new_game"})).await;
    let over = pair.anna.until("game_over").await;
    assert_eq!(
        (
            over["result"]["outcome"].clone(),
            over["result"]["detail"]["rule"].clone()
        ),
        (json!("aborted"), json!("new_game"))
    );
    let started = pair.next_game().await;
    assert_eq!(started["game_number"], 2);
    let results: Vec<(String, String)> = sqlx::query_as("SELECT outcome, reason FROM results")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert_eq!(results, vec![("aborted".into(), "aborted".into())]);
    // Not in a series (nor at a rated table).
    let mut series = Pair::new(&app, json!({"series": "best_of_3"})).await;
    series.anna.send(json!({"type": "offer_new_game"})).await;
    assert_eq!(series.anna.until("error").await["code"], "not_casual");
}

#[tokio::test]
async fn take_backs_between_people_need_the_opponent_and_survive_a_restart() {
    let app = spawn_app().await;
    let mut pair = Pair::new(&app, json!({"undo": true})).await;
    let table = pair.table.clone();
    for (mover, at) in [("anna", "H8"), ("bo", "H9"), ("anna", "I8")] {
        let client = if mover == "anna" { &mut pair.anna } else { &mut pair.bo };
        client.send(json!({"type": "move", "move": {"at": at}})).await;
        while pair.anna.until("moved").await["move"]["at"] != at {}
    }
    // Declined: nothing changes.
    pair.bo.send(json!({"type": "offer_undo"})).await;
    assert_eq!(pair.anna.until("undo_offered").await["seat"], 1);
    pair.anna.send(json!({"type": "decline_undo"})).await;
    pair.bo.until("undo_declined").await;
    pair.anna.send(json!({"type": "accept_undo"})).await;
    assert_eq!(pair.anna.until("error").await["code"], "no_undo_offer");
    // Accepted: Bo's H9 goes, and Anna's reply I8 with it; Bo is to move again.
    pair.bo.send(json!({"type": "offer_undo"})).await;
    pair.anna.until("undo_offered").await;
    pair.anna.send(json!({"type": "accept_undo"})).await;
    let undone = pair.bo.until("undone").await;
    assert_eq!(
        (undone["plies"].clone(), undone["to_move"].clone()),
        (json!(1), json!([1]))
    );
    assert_eq!(undone["state"]["last_move"], "H8");
    pair.bo.send(json!({"type": "move", "move": {"at": "G7"}})).await;
    pair.anna.until("moved").await;
    let stored: Vec<(i32, Option<i32>)> = sqlx::query_as("SELECT ply, takeback_to FROM moves ORDER BY ply")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert_eq!(stored, vec![(1, None), (2, None), (3, None), (4, Some(1)), (5, None)]);
    drop(pair);
    let app = app.restart().await;
    let snapshot = app.snapshot(&table).await;
    assert_eq!(
        snapshot["moves"],
        json!([{"ply": 1, "seat": 0, "move": {"at": "H8"}, "text": "H8"}, {"ply": 2, "seat": 1, "move": {"at": "G7"}, "text": "G7"}]),
        "the line after the restart is the line the players saw"
    );
    assert_eq!(snapshot["to_move"], json!([0]));
}

#[tokio::test]
async fn take_backs_against_the_computer_go_back_to_the_persons_turn() {
    let app = spawn_app().await;
    let created = app
        .create_table(json!({"game": "gomoku", "settings": {
            "seating": "chosen", "undo": true, "bots": {"1": "random"},
            "time_control": {"kind": "fischer", "base_seconds": 300, "increment_seconds": 2}
        }}))
        .await;
    let table = created["id"].as_str().unwrap().to_owned();
    let mut anna = app.client(&table).await;
    anna.hello().await;
    anna.sit(0, "Anna").await;
    anna.until("game_started").await;
    anna.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    anna.until("moved").await;
    let reply = anna.until("moved").await;
    assert_eq!(reply["seat"], 1);
    let clock_before = reply["clocks"]["remaining_ms"][0].as_i64().expect("Anna's clock");
    anna.send(json!({"type": "move", "move": {"at": "A1"}})).await;
    anna.until("moved").await;
    anna.until("moved").await;
    anna.send(json!({"type": "offer_undo"})).await;
    let undone = anna.until("undone").await;
    assert_eq!(undone["plies"], 2, "Anna's A1 and the computer's reply are taken back");
    assert_eq!(undone["to_move"], json!([0]));
    let clock_after = undone["clocks"]["remaining_ms"][0].as_i64().expect("Anna's clock");
    // As it was before her move (to the millisecond the readings are rounded to).
    assert!(
        (clock_before - clock_after).abs() <= 1,
        "{clock_before} then {clock_after}"
    );
}

#[tokio::test]
async fn take_backs_are_refused_where_the_table_does_not_allow_them() {
    let app = spawn_app().await;
    for settings in [
        json!({"undo": true, "rated": true}),
        json!({"undo": true, "series": "best_of_3"}),
    ] {
        let body = app.refused_table(json!({"game": "gomoku", "settings": settings})).await;
        assert_eq!(body["error"]["field"], "settings.undo", "{body}");
    }
    for settings in [json!({"rated": true}), json!({"series": "best_of_3"}), json!({})] {
        let mut pair = Pair::new(&app, settings.clone()).await;
        assert!(pair.started["series"].is_object());
        pair.anna.send(json!({"type": "move", "move": {"at": "H8"}})).await;
        pair.anna.until("moved").await;
        pair.anna.send(json!({"type": "offer_undo"})).await;
        pair.anna.expect_error("undo_not_allowed").await;
    }
    // A rated table says so to everyone, and stores it with the game.
    let pair = Pair::new(&app, json!({"rated": true})).await;
    let snapshot = app.snapshot(&pair.table).await;
    assert_eq!(snapshot["rated"], true);
    let rated: Vec<bool> = sqlx::query_scalar("SELECT rated FROM games ORDER BY started_at")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert_eq!(rated, vec![true, false, false, true]);
}

/// A row of the operator's query: series number, format, status, winner, side, players,
/// wins, draws, losses, points.
type StandingRow = (i32, String, String, Option<i16>, i16, String, i32, i32, i32, i32);

/// The standings query of docs/operations.md, as an operator would paste it.
fn operator_query() -> String {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/operations.md")).expect("the doc");
    let start = doc.find("-- series and their standings").expect("the query's marker");
    let query = &doc[start..];
    let end = query.find(';').expect("the query ends");
    query[..=end].to_owned()
}

#[tokio::test]
async fn the_operators_standings_query_lists_a_tables_series() {
    let app = spawn_app().await;
    let mut pair = Pair::new(&app, json!({"series": "best_of_3", "series_pause_seconds": 0})).await;
    pair.play("ADA").await;
    pair.anna.until("series_over").await;
    pair.anna.send(json!({"type": "offer_rematch"})).await;
    pair.bo.until("rematch_offered").await;
    pair.bo.send(json!({"type": "accept_rematch"})).await;
    pair.next_game().await;
    pair.finish('B').await;
    let query = operator_query().replace("'q7XbT2mA'", &format!("'{}'", pair.table));
    let rows: Vec<StandingRow> = sqlx::query_as(sqlx::AssertSqlSafe(query))
        .fetch_all(&app.pool)
        .await
        .unwrap();
    let expected = vec![
        (
            1,
            "best_of_3".into(),
            "decided".into(),
            Some(0),
            0,
            "Anna".into(),
            2,
            1,
            0,
            7,
        ),
        (
            1,
            "best_of_3".into(),
            "decided".into(),
            Some(0),
            1,
            "Bo".into(),
            0,
            1,
            2,
            1,
        ),
        // The rematch: side 0 is whoever held seat 0 in its first game (Bo: they swapped).
        (
            2,
            "best_of_3".into(),
            "playing".into(),
            None,
            0,
            "Bo".into(),
            1,
            0,
            0,
            3,
        ),
        (
            2,
            "best_of_3".into(),
            "playing".into(),
            None,
            1,
            "Anna".into(),
            0,
            0,
            1,
            0,
        ),
    ];
    assert_eq!(rows, expected);
}

#[tokio::test]
async fn after_a_restart_during_the_pause_the_next_game_starts_when_a_player_is_back() {
    let app = spawn_app().await;
    let table = app
        .gomoku_table(json!({"seating": "chosen", "series": "best_of_3", "series_pause_seconds": 1}))
        .await;
    let ((mut anna, anna_token), (bo, _)) = app.two_seated(&table).await;
    anna.send(json!({"type": "resign"})).await;
    anna.until("next_game_in").await;
    drop((anna, bo));
    let app = app.restart().await;
    let games = async || -> i64 {
        sqlx::query_scalar("SELECT count(*) FROM games")
            .fetch_one(&app.pool)
            .await
            .unwrap()
    };
    // Nobody reconnects: the table was rebuilt at start-up, its pause runs out, and no game
    // starts with nobody there (it could only be aborted; tests/presence.rs checks this under
    // paused time).
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    assert_eq!(games().await, 1, "no game starts with nobody there");
    // Anna comes back: the pause starts again, then the series' second game.
    let mut back = app.client(&table).await;
    back.send(json!({"type": "hello", "token": anna_token})).await;
    assert_eq!(back.until("next_game_in").await["game_number"], 2);
    assert_eq!(back.until("game_started").await["game_number"], 2);
    assert_eq!(games().await, 2);
    let series_game: i32 = sqlx::query_scalar("SELECT series_game FROM games WHERE number = 2")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(series_game, 2);
}
