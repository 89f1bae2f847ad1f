//! Who a player is, without accounts: only tokens the server issued are accepted (a
//! client-chosen one is replaced), they survive a restart, and names cannot hide behind
//! invisible characters or pass for another seated player's.

mod common;

use common::spawn_app;
use serde_json::json;

#[tokio::test]
async fn a_chosen_token_is_replaced_and_an_issued_one_kept_across_a_restart() {
    let app = spawn_app().await;
    let table = app.gomoku_table(json!({})).await;
    let mut careless = app.client(&table).await;
    careless
        .send(json!({"type": "hello", "token": "aaaaaaaaaaaaaaaa"}))
        .await;
    let welcome = careless.expect("welcome").await;
    let issued = welcome["token"].as_str().expect("a token").to_owned();
    assert_ne!(
        issued, "aaaaaaaaaaaaaaaa",
        "a token the server did not issue is replaced"
    );
    assert_eq!(issued.len(), 43);
    careless.sit(0, "Careless").await;
    // The issued token is recognised on another connection, and after a restart.
    let mut again = app.client(&table).await;
    again.send(json!({"type": "hello", "token": issued})).await;
    let welcome = again.expect("welcome").await;
    assert_eq!(
        (welcome["token"].as_str(), welcome["seats"].clone()),
        (Some(issued.as_str()), json!([0]))
    );
    drop((careless, again));
    let app = app.restart().await;
    let mut back = app.client(&table).await;
    back.send(json!({"type": "hello", "token": issued})).await;
    assert_eq!(back.expect("welcome").await["seats"], json!([0]));
    // The seat is held by the issued token: the chosen one gets nothing.
    let mut guesser = app.client(&table).await;
    guesser
        .send(json!({"type": "hello", "token": "aaaaaaaaaaaaaaaa"}))
        .await;
    assert_eq!(guesser.expect("welcome").await["seats"], json!([]));
}

#[tokio::test]
async fn names_lose_invisible_characters_and_never_look_alike() {
    let app = spawn_app().await;
    let table = app.gomoku_table(json!({"seating": "chosen"})).await;
    let mut anna = app.client(&table).await;
    anna.hello().await;
    let seated = anna.sit(0, "An\u{202E}na\u{200B}").await;
    assert_eq!(seated["name"], "Anna");
    let mut other = app.client(&table).await;
    other.hello().await;
    let seated = other.sit(1, "ANNA").await;
    assert_eq!(seated["name"], "ANNA (2)", "two players never show the same name");
    let bughouse = app
        .create_table(json!({"game": "bughouse", "settings": {"seating": "chosen"}}))
        .await;
    let bughouse = bughouse["id"].as_str().unwrap().to_owned();
    let mut ghost = app.client(&bughouse).await;
    ghost.hello().await;
    // A name left empty (or only invisible) is the seat's: unnamed players are told apart.
    assert_eq!(ghost.sit(0, "\u{200B}\u{2066}").await["name"], "Player 1");
    assert_eq!(ghost.sit(2, "").await["name"], "Player 3");
    ghost.send(json!({"type": "sit", "seat": 1, "name": "Player 3"})).await;
    assert_eq!(ghost.expect("seated").await["name"], "Player 3 (2)");
    ghost.send(json!({"type": "sit", "seat": 3})).await;
    assert_eq!(ghost.expect("seated").await["name"], "Player 4");
}

#[tokio::test]
async fn a_seated_player_renames_until_their_first_move_and_the_record_keeps_it() {
    let app = spawn_app().await;
    let table = app.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut x, _), (mut o, _)) = app.two_seated(&table).await;
    let mut watcher = app.client(&table).await;

    // During the game, before the seat's first move: everyone sees the new name.
    x.send(json!({"type": "rename", "seat": 0, "name": "  Anna\u{200B} "}))
        .await;
    let renamed = x.until("renamed").await;
    assert_eq!(
        (renamed["seat"].clone(), renamed["name"].clone()),
        (json!(0), json!("Anna"))
    );
    assert!(renamed["version"].as_u64().is_some(), "a versioned event: {renamed}");
    assert_eq!(o.until("renamed").await["name"], "Anna");
    assert_eq!(watcher.until("renamed").await["name"], "Anna");
    // Never the name another player shows; an empty name is the seat's again.
    o.send(json!({"type": "rename", "name": "ANNA"})).await;
    assert_eq!(o.until("renamed").await["name"], "ANNA (2)");
    o.send(json!({"type": "rename", "name": ""})).await;
    assert_eq!(o.until("renamed").await["name"], "Player 2");
    // Bad input changes nothing: a seat not held, a spectator, a name too long.
    x.send(json!({"type": "rename", "seat": 1, "name": "Thief"})).await;
    assert_eq!(x.until("error").await["code"], "not_your_seat");
    watcher.send(json!({"type": "rename", "name": "Nobody"})).await;
    assert_eq!(watcher.until("error").await["code"], "not_seated");
    x.send(json!({"type": "rename", "name": "n".repeat(200)})).await;
    assert_eq!(x.until("error").await["code"], "bad_name");

    // After the seat's first move, its name is the game's.
    x.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    x.until("moved").await;
    x.send(json!({"type": "rename", "name": "Late"})).await;
    assert_eq!(x.until("error").await["code"], "game_in_progress");

    let snapshot = app.snapshot(&table).await;
    assert_eq!(snapshot["seats"][0]["player"]["name"], "Anna", "{snapshot}");
    assert_eq!(snapshot["seats"][1]["player"]["name"], "Player 2", "{snapshot}");
    // The stored seat and the game's record carry the new names, after a restart too.
    drop((x, o, watcher));
    let app = app.restart().await;
    let snapshot = app.snapshot(&table).await;
    assert_eq!(snapshot["seats"][0]["player"]["name"], "Anna", "{snapshot}");
    let games: serde_json::Value = reqwest::get(app.http(&format!("/api/tables/{table}/games")))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let text = games.to_string();
    assert!(text.contains("\"Anna\"") && text.contains("\"Player 2\""), "{text}");
}
