//! Bots at real tables over real WebSockets: seats given to the computer at creation and by
//! message, people playing complete games against bots in every game (Bughouse with one
//! person and three bots), the stored record of who was a bot, budgets on a clock, draw
//! offers, refusals, and a restart with a bot to move.

mod common;

use common::{TestApp, spawn_app_with};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use serde_json::{Value, json};
use spelbord::games::AnyGame;
use spelbord::identity::PlayerToken;
use spelbord::table::TableSettings;

/// A server that lets a person move as fast as the test can send.
async fn spawn_app() -> TestApp {
    spawn_app_with(|settings| {
        settings.limits.messages_per_second = 10_000;
        settings.limits.message_burst = 10_000;
    })
    .await
}

/// Creates a table and returns its id and its game in its starting position (a mirror the
/// test keeps in step with the `moved` events).
async fn table_with(app: &TestApp, game: &str, settings: Value) -> (String, AnyGame) {
    let created = app.create_table(json!({"game": game, "settings": settings})).await;
    let id = created["id"].as_str().expect("an id").to_owned();
    let stored = TableSettings::read(game, Some(created["table"]["settings"].clone())).expect("settings read back");
    (id, stored.game.new_game())
}

#[tokio::test]
async fn a_person_plays_a_whole_game_against_a_bot_in_each_two_player_game() {
    let app = spawn_app().await;
    for (game, strength) in [("gomoku", "easy"), ("lines-of-action", "random"), ("krux", "easy")] {
        let (id, mut mirror) = table_with(&app, game, json!({"seating": "chosen", "bots": {"1": strength}})).await;
        let mut person = app.client(&id).await;
        person.hello().await;
        person.sit(0, "Person").await;
        let started = person.until("game_started").await;
        let computer = &started["seats"][1]["player"];
        assert_eq!(computer["bot"], strength, "{started}");
        assert_eq!(computer["name"], format!("Computer ({strength})"));
        assert_eq!(computer["connected"], true);
        let played = person.play_randomly(&mut mirror, &[0], 11, usize::MAX).await;
        let (over, moves) = (played.over.expect("the game ends"), played.moves);
        assert!(moves > 2, "{game}: {over}");
        assert!(mirror.outcome().is_some(), "{game}: the mirror agrees the game is over");
    }
    // The stored players say which seat was the computer, and at what strength.
    let bots: Vec<(i16, Option<String>, bool)> =
        sqlx::query_as("SELECT seat, bot, player_key IS NULL FROM game_players ORDER BY game_id, seat")
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert_eq!(bots.len(), 6);
    for (seat, bot, keyless) in bots {
        assert_eq!(bot.is_some(), seat == 1);
        assert_eq!(keyless, seat == 1);
    }
    let players: Vec<Value> = sqlx::query_scalar("SELECT players FROM results")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert_eq!(players.len(), 3);
    assert!(
        players
            .iter()
            .all(|p| p[1]["bot"].is_string() && p[0].get("bot").is_none()),
        "{players:?}"
    );
}

#[tokio::test]
async fn one_person_and_three_bots_play_bughouse_to_the_end() {
    // Random bots would take many minutes at the normal pace: let them play at full speed.
    let app = spawn_app_with(|settings| {
        settings.limits.messages_per_second = 10_000;
        settings.limits.message_burst = 10_000;
        settings.bots.bughouse_pace_ms = 0;
    })
    .await;
    let bots = json!({"1": "random", "2": "random", "3": "random"});
    let (id, mut mirror) = table_with(&app, "bughouse", json!({"seating": "chosen", "bots": bots})).await;
    let mut person = app.client(&id).await;
    person.hello().await;
    person.sit(0, "Person").await;
    let started = person.until("game_started").await;
    assert_eq!(started["to_move"], json!([0, 2]));
    let played = person.play_randomly(&mut mirror, &[0], 5, usize::MAX).await;
    let (over, moves) = (played.over.expect("the game ends"), played.moves);
    assert!(moves > 4, "{over}");
    assert_ne!(
        over["result"]["reason"], "time",
        "nobody thinks long enough to flag: {over}"
    );
}

#[tokio::test]
async fn seated_players_add_and_remove_bots_before_the_game() {
    let app = spawn_app().await;
    let (id, _) = table_with(&app, "lines-of-action", json!({"seating": "chosen"})).await;
    let mut host = app.client(&id).await;
    let mut watcher = app.client(&id).await;
    // Only players at the table may bring the computer in.
    watcher.hello().await;
    watcher
        .send(json!({"type": "add_bot", "seat": 1, "strength": "easy"}))
        .await;
    watcher.expect_error("not_seated").await;
    host.hello().await;
    host.sit(0, "Host").await;
    watcher.until("seated").await;
    host.send(json!({"type": "add_bot", "seat": 0, "strength": "easy"}))
        .await;
    host.expect_error("already_seated").await;
    host.send(json!({"type": "add_bot", "seat": 5, "strength": "easy"}))
        .await;
    host.expect_error("no_such_seat").await;
    host.send(json!({"type": "add_bot", "seat": 1, "strength": "superb"}))
        .await;
    host.expect_error("bad_message").await;
    host.send(json!({"type": "remove_bot", "seat": 0})).await;
    host.expect_error("not_a_bot").await;
    // A seat the table does not have is that, as for add_bot.
    host.send(json!({"type": "remove_bot", "seat": 5})).await;
    host.expect_error("no_such_seat").await;
    // A bot seat can be taken back before the start...
    host.send(json!({"type": "add_bot", "seat": 1, "strength": "medium"}))
        .await;
    let seated = host.expect("seated").await;
    assert_eq!(
        (seated["seat"].clone(), seated["name"].clone(), seated["bot"].clone()),
        (json!(1), json!("Computer (medium)"), json!("medium"))
    );
    // The medium bot filled the last seat: the game starts.
    let started = host.until("game_started").await;
    assert_eq!(started["seats"][1]["player"]["bot"], "medium");
    host.send(json!({"type": "remove_bot", "seat": 1})).await;
    let refused = host.until("error").await;
    assert_eq!(refused["code"], "game_in_progress", "{refused}");
    // A person cannot sit in a bot's seat either.
    watcher.send(json!({"type": "sit", "seat": 1})).await;
    let refused = watcher.until("error").await;
    assert_eq!(refused["code"], "game_in_progress", "{refused}");
}

#[tokio::test]
async fn a_bot_can_be_taken_out_again() {
    let app = spawn_app().await;
    let (id, _) = table_with(&app, "bughouse", json!({"seating": "chosen", "bots": {"3": "hard"}})).await;
    let mut host = app.client(&id).await;
    host.hello().await;
    host.sit(0, "Host").await;
    host.send(json!({"type": "remove_bot", "seat": 3})).await;
    assert_eq!(host.expect("stood").await["seat"], 3);
    host.send(json!({"type": "add_bot", "seat": 2, "strength": "easy"}))
        .await;
    assert_eq!(host.expect("seated").await["bot"], "easy");
    let stored: Vec<(i16, Option<String>)> = sqlx::query_as("SELECT seat, bot FROM seats ORDER BY seat")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert_eq!(stored, vec![(0, None), (2, Some("easy".into()))]);
}

#[tokio::test]
async fn creation_settings_refuse_bots_in_every_seat_or_unknown_seats() {
    let app = spawn_app().await;
    for (settings, field) in [
        (json!({"bots": {"0": "easy", "1": "hard"}}), "settings.bots"),
        (json!({"bots": {"2": "easy"}}), "settings.bots.2"),
        (json!({"bots": {"1": "expert"}}), "settings.bots.1"),
    ] {
        let body = app.refused_table(json!({"game": "gomoku", "settings": settings})).await;
        assert_eq!(body["error"]["field"], field, "{body}");
    }
}

#[tokio::test]
async fn a_bot_on_a_clock_thinks_within_its_budget() {
    // Hard thinks 200 ms at most here; on a 5-minute clock that is its whole budget.
    let app = spawn_app_with(|settings| settings.bots.hard_ms = 200).await;
    let (id, mut mirror) = table_with(
        &app,
        "gomoku",
        json!({"seating": "chosen", "bots": {"1": "hard"}, "time_control": {"kind": "sudden_death", "base_seconds": 300}}),
    )
    .await;
    let mut person = app.client(&id).await;
    person.hello().await;
    person.sit(0, "Person").await;
    person.until("game_started").await;
    let mut rng = StdRng::seed_from_u64(3);
    let mut last_bot_clock = 300_000u64;
    for _ in 0..4 {
        let legal = mirror.legal_moves_json(0);
        let payload = legal.choose(&mut rng).expect("a move").clone();
        person.send(json!({"type": "move", "move": payload})).await;
        let mine = person.until("moved").await;
        mirror.play_json(0, &mine["move"]).expect("legal");
        let reply = person.until("moved").await;
        assert_eq!(reply["seat"], 1, "{reply}");
        mirror.play_json(1, &reply["move"]).expect("legal");
        let clock = reply["clocks"]["remaining_ms"][1].as_u64().expect("the bot's clock");
        let spent = last_bot_clock - clock;
        // The budget plus generous room for a busy machine's scheduler: a bot that
        // ignored its budget (1 s by default) would show here.
        assert!(spent < 800, "the bot spent {spent} ms on a 200 ms budget");
        last_bot_clock = clock;
    }
}

#[tokio::test]
async fn a_bot_declines_a_draw_at_the_start_of_a_game() {
    let app = spawn_app().await;
    let (id, _) = table_with(
        &app,
        "lines-of-action",
        json!({"seating": "chosen", "bots": {"1": "hard"}}),
    )
    .await;
    let mut person = app.client(&id).await;
    person.hello().await;
    person.sit(0, "Person").await;
    person.until("game_started").await;
    person.send(json!({"type": "offer_draw"})).await;
    assert_eq!(person.until("draw_offered").await["seat"], 0);
    let declined = person.until("draw_declined").await;
    assert_eq!(declined["seat"], 1, "the computer answers for itself: {declined}");
}

#[tokio::test]
async fn after_a_restart_the_bot_to_move_moves() {
    let app = spawn_app().await;
    let (id, _) = table_with(&app, "gomoku", json!({"seating": "chosen", "bots": {"0": "easy"}})).await;
    // The state a crash leaves behind: a person in seat 1, the game started, the bot (X)
    // to move and nothing played yet.
    let token = "restart-person-token-000000000";
    let key = PlayerToken::parse(token).expect("a token").key();
    let game = uuid::Uuid::new_v4();
    sqlx::query("INSERT INTO seats (table_id, seat, player_key, name) VALUES ($1, 1, $2, 'Person')")
        .bind(&id)
        .bind(key.as_bytes())
        .execute(&app.pool)
        .await
        .unwrap();
    sqlx::query("INSERT INTO games (id, table_id, number) VALUES ($1, $2, 1)")
        .bind(game)
        .bind(&id)
        .execute(&app.pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO game_players (game_id, seat, role, player_key, name, bot)
         VALUES ($1, 0, 'X', NULL, 'Computer (easy)', 'easy'), ($1, 1, 'O', $2, 'Person', NULL)",
    )
    .bind(game)
    .bind(key.as_bytes())
    .execute(&app.pool)
    .await
    .unwrap();
    let app = app.restart().await;
    let mut person = app.client(&id).await;
    person.send(json!({"type": "hello", "token": token})).await;
    assert_eq!(person.until("welcome").await["seats"], json!([1]));
    let snapshot = app.snapshot(&id).await;
    assert_eq!(snapshot["seats"][0]["player"]["bot"], "easy", "{snapshot}");
    if snapshot["moves"].as_array().is_none_or(Vec::is_empty) {
        let moved = person.until("moved").await;
        assert_eq!(moved["seat"], 0, "{moved}");
    }
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM moves WHERE game_id = $1")
        .bind(game)
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(stored, 1, "the bot's opening move is stored");
}

#[tokio::test]
async fn bughouse_bots_keep_a_pace_a_person_can_follow() {
    let app = spawn_app_with(|settings| settings.bots.bughouse_pace_ms = 300).await;
    let bots = json!({"1": "random", "2": "random", "3": "random"});
    let (id, _) = table_with(&app, "bughouse", json!({"seating": "chosen", "bots": bots})).await;
    let mut person = app.client(&id).await;
    person.hello().await;
    person.sit(0, "Person").await;
    person.until("game_started").await;
    // Board B is two bots: each of their moves comes no sooner than 300 ms after the one
    // before (random movers answer at once; the pace holds them).
    let mut arrivals = Vec::new();
    while arrivals.len() < 4 {
        let moved = person.until("moved").await;
        if moved["seat"] == 2 || moved["seat"] == 3 {
            arrivals.push(std::time::Instant::now());
        }
    }
    for pair in arrivals.windows(2) {
        let gap = pair[1] - pair[0];
        assert!(
            gap >= std::time::Duration::from_millis(290),
            "a bot moved {gap:?} after the other"
        );
    }
}

async fn moves_stored(app: &TestApp, table: &str) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM moves m JOIN games g ON g.id = m.game_id WHERE g.table_id = $1")
        .bind(table)
        .fetch_one(&app.pool)
        .await
        .expect("count moves")
}

/// A table whose people have all left costs no CPU: its bots stop thinking (board B's two
/// bots no longer play each other), and start again when a person comes back.
#[tokio::test]
async fn bots_think_only_while_a_seated_person_is_connected() {
    let app = spawn_app_with(|settings| settings.bots.bughouse_pace_ms = 20).await;
    let bots = json!({"1": "random", "2": "random", "3": "random"});
    // An hour each and no loss by absence: nothing but the bots could end the game.
    let settings = json!({"seating": "chosen", "bots": bots, "on_absence": "wait",
                          "time_control": {"kind": "fischer", "base_seconds": 3600, "increment_seconds": 0}});
    let (id, _) = table_with(&app, "bughouse", settings).await;
    let mut person = app.client(&id).await;
    let token = person.hello().await;
    person.sit(0, "Person").await;
    person.until("game_started").await;
    // Board B's bots play while the person is here.
    for _ in 0..3 {
        while ![json!(2), json!(3)].contains(&person.until("moved").await["seat"]) {}
    }
    person.close().await;
    // A search already under way may still land; after it, nothing.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let after_leaving = moves_stored(&app, &id).await;
    tokio::time::sleep(std::time::Duration::from_millis(1_000)).await;
    assert_eq!(
        moves_stored(&app, &id).await,
        after_leaving,
        "no bot moved with nobody at the table"
    );
    // Back: the bots play on.
    let mut back = app.client(&id).await;
    back.send(json!({"type": "hello", "token": token})).await;
    back.expect("welcome").await;
    while ![json!(2), json!(3)].contains(&back.until("moved").await["seat"]) {}
    assert!(moves_stored(&app, &id).await > after_leaving);
}
