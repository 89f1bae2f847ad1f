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
