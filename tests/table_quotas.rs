//! What one table lets its players do how often, over real WebSockets and a real
//! PostgreSQL: games started by agreement are paced and a table holds a bounded number of
//! them, each player's chat is paced across all their connections, the records list comes
//! in pages, and a crowd of readers never takes the connections the tables write with.

mod common;

use std::time::Duration;

use common::{Client, TestApp, spawn_app_with};
use serde_json::{Value, json};

/// A Gomoku table where a person (seat 0) plays the computer (seat 1), once the first game
/// has started: the person's connection.
async fn alone_against_a_bot(app: &TestApp) -> (String, Client) {
    let table = app
        .gomoku_table(json!({"seating": "chosen", "bots": {"1": "random"}}))
        .await;
    let mut person = app.client(&table).await;
    person.hello().await;
    person.sit(0, "Anna").await;
    person.until("game_started").await;
    (table, person)
}

/// Asks for a new game (the computer always agrees): the game that starts, or the error.
async fn new_game(person: &mut Client) -> Value {
    person.send(json!({"type": "offer_new_game"})).await;
    loop {
        let message = person.recv().await;
        if message["type"] == "game_started" || message["type"] == "error" {
            return message;
        }
    }
}

async fn games_stored(app: &TestApp, table: &str) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM games WHERE table_id = $1")
        .bind(table)
        .fetch_one(&app.pool)
        .await
        .expect("count games")
}

#[tokio::test]
async fn new_games_by_agreement_are_paced() {
    let app = spawn_app_with(|settings| {
        settings.limits.game_start_burst = 3;
        settings.limits.game_starts_per_minute = 1;
    })
    .await;
    let (table, mut person) = alone_against_a_bot(&app).await;
    for number in 2..=4 {
        let started = new_game(&mut person).await;
        assert_eq!(started["game_number"], number, "{started}");
    }
    let refused = new_game(&mut person).await;
    assert_eq!(refused["code"], "too_many_games", "{refused}");
    assert!(
        refused["message"].as_str().is_some_and(|m| m.contains(" s.")),
        "says when: {refused}"
    );
    assert_eq!(games_stored(&app, &table).await, 4);
    // The connection and the game in play go on: no other game started.
    let after = person.sync().await;
    assert!(
        after.iter().all(|message| message["type"] != "game_started"),
        "{after:?}"
    );
}

#[tokio::test]
async fn a_table_holds_at_most_its_games() {
    let app = spawn_app_with(|settings| settings.limits.games_per_table = 3).await;
    let (table, mut person) = alone_against_a_bot(&app).await;
    assert_eq!(new_game(&mut person).await["game_number"], 2);
    assert_eq!(new_game(&mut person).await["game_number"], 3);
    let refused = new_game(&mut person).await;
    assert_eq!(refused["code"], "table_full", "{refused}");
    assert_eq!(games_stored(&app, &table).await, 3);
    // After a restart (the actor rebuilt from the rows) the bound still holds.
    let app = app.restart().await;
    let mut person = app.client(&table).await;
    person.hello().await;
    assert_eq!(new_game(&mut person).await["code"], "not_seated");
}

#[tokio::test]
async fn a_player_s_chat_is_paced_across_their_connections() {
    let app = spawn_app_with(|settings| {
        settings.limits.chat_burst = 2;
        settings.limits.chat_lines_per_minute = 1;
    })
    .await;
    let table = app.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut anna, anna_token), (mut bo, _)) = app.two_seated(&table).await;
    let mut anna_again = app.client(&table).await;
    anna_again.send(json!({"type": "hello", "token": anna_token})).await;
    anna_again.expect("welcome").await;
    for text in ["one", "two"] {
        anna.send(json!({"type": "chat", "text": text})).await;
        assert_eq!(bo.until("chat").await["text"], text);
    }
    anna_again.send(json!({"type": "chat", "text": "three"})).await;
    let refused = anna_again.until("error").await;
    assert_eq!(refused["code"], "chat_too_fast", "{refused}");
    // Bo's own pace is untouched, and Anna's refused line was neither sent nor stored.
    bo.send(json!({"type": "chat", "text": "calm down"})).await;
    while anna.until("chat").await["text"] != "calm down" {}
    let stored: Vec<String> = sqlx::query_scalar("SELECT text FROM chat_messages ORDER BY id")
        .fetch_all(&app.pool)
        .await
        .expect("chat lines");
    assert_eq!(stored, ["one", "two", "calm down"]);
}

async fn get(app: &TestApp, path: &str) -> (u16, Value) {
    let response = reqwest::get(app.http(path)).await.expect("GET");
    let status = response.status().as_u16();
    (status, response.json().await.expect("a JSON body"))
}

fn numbers(listed: &Value) -> Vec<u64> {
    listed["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(|game| game["number"].as_u64().expect("number"))
        .collect()
}

#[tokio::test]
async fn the_records_list_comes_in_pages() {
    let app = spawn_app_with(|_| {}).await;
    let (table, mut person) = alone_against_a_bot(&app).await;
    for number in 2..=5 {
        assert_eq!(new_game(&mut person).await["game_number"], number);
    }
    let base = format!("/api/tables/{table}/games");
    let (status, all) = get(&app, &base).await;
    assert_eq!(
        (status, numbers(&all), all["earlier"].clone()),
        (200, vec![1, 2, 3, 4, 5], Value::Null)
    );
    let (_, latest) = get(&app, &format!("{base}?limit=2")).await;
    assert_eq!((numbers(&latest), latest["earlier"].clone()), (vec![4, 5], json!(4)));
    let (_, middle) = get(&app, &format!("{base}?before=4&limit=2")).await;
    assert_eq!((numbers(&middle), middle["earlier"].clone()), (vec![2, 3], json!(2)));
    let (_, first) = get(&app, &format!("{base}?before=2&limit=2")).await;
    assert_eq!((numbers(&first), first["earlier"].clone()), (vec![1], Value::Null));
    for bad in [
        "limit=0",
        "limit=201",
        "limit=x",
        "before=0",
        "before=-1",
        "limit=2&limit=3",
        "page=2",
    ] {
        let (status, error) = get(&app, &format!("{base}?{bad}")).await;
        assert_eq!(
            (status, error["error"]["code"].clone()),
            (400, json!("bad_query")),
            "{bad}: {error}"
        );
    }
}

/// Readers (records, statistics) have their own pool: with every one of its connections
/// stuck behind a lock, a player's move is still stored at once, and further readers are
/// told to come back (503) instead of queueing in front of the tables.
#[tokio::test]
async fn stuck_readers_never_hold_up_a_move() {
    let app = spawn_app_with(|_| {}).await;
    let table = app.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut anna, _), (mut bo, _)) = app.two_seated(&table).await;
    // The statistics read `game_stats`: an exclusive lock held elsewhere makes them wait.
    let mut locker = app.pool.begin().await.expect("begin");
    sqlx::query("LOCK TABLE game_stats IN ACCESS EXCLUSIVE MODE")
        .execute(&mut *locker)
        .await
        .expect("lock the statistics");
    let readers: Vec<_> = (0..8)
        .map(|_| {
            let url = app.http("/api/stats/gomoku");
            tokio::spawn(async move { reqwest::get(url).await.map(|r| r.status().as_u16()) })
        })
        .collect();
    // Every reader has asked (and those that found a connection wait on the lock).
    tokio::time::sleep(Duration::from_millis(300)).await;
    anna.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    assert_eq!(bo.until("moved").await["move"]["at"], "H8");
    // The move was stored while readers still waited: it never needed one of theirs.
    let still_reading = readers.iter().filter(|reader| !reader.is_finished()).count();
    let mut statuses = Vec::new();
    for reader in readers {
        statuses.push(reader.await.expect("reader task").expect("an answer"));
    }
    locker.rollback().await.expect("unlock");
    assert!(still_reading > 0, "the move waited until every reader had given up");
    assert!(statuses.iter().all(|status| *status == 503), "{statuses:?}");
}

/// Alone against the computer a take-back is instant: a game stops allowing them once it
/// holds `limits.undo_record_limit` records, so its record stays bounded.
#[tokio::test]
async fn a_game_s_take_backs_end_at_its_record_limit() {
    let app = spawn_app_with(|settings| {
        settings.limits.undo_record_limit = 7;
        settings.limits.messages_per_second = 10_000;
        settings.limits.message_burst = 10_000;
    })
    .await;
    let table = app
        .gomoku_table(json!({"seating": "chosen", "undo": true, "opening": "free", "bots": {"1": "random"}}))
        .await;
    let mut person = app.client(&table).await;
    person.hello().await;
    person.sit(0, "Anna").await;
    person.until("game_started").await;
    // Each round: Anna's move, the computer's reply, and the take-back of both (3 records).
    for _ in 0..2 {
        person.send(json!({"type": "move", "move": {"at": "H8"}})).await;
        while person.until("moved").await["seat"] != 1 {}
        person.send(json!({"type": "offer_undo"})).await;
        person.until("undone").await;
    }
    // 6 records; a move and the reply make 8: past the limit, the take-back is refused.
    person.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    while person.until("moved").await["seat"] != 1 {}
    person.send(json!({"type": "offer_undo"})).await;
    let refused = person.until("error").await;
    assert_eq!(refused["code"], "undo_limit", "{refused}");
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM moves")
        .fetch_one(&app.pool)
        .await
        .expect("count records");
    assert_eq!(stored, 8);
}
