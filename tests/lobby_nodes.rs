//! The lobby on two nodes of one database (docs/architecture.md, "The lobby"): seekers
//! connected to different nodes are paired with each other exactly once, under a race of
//! simultaneous seeks, and the seeks of a node that stopped are never paired and leave the
//! lists.

mod common;

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use common::{Client, TestApp, spawn_app_with};
use serde_json::{Value, json};

/// A guard against hangs (not a speed measure).
const WITHIN: Duration = Duration::from_secs(30);

fn node(name: &'static str) -> impl FnOnce(&mut spelbord::config::Settings) {
    move |settings| {
        settings.cluster.node_name = name.into();
        settings.cluster.lease_seconds = 3;
        settings.limits.seeks_per_minute = 10_000;
        settings.limits.connections_per_address = 0;
    }
}

/// A lobby connection to `app` that said hello; its token.
async fn person(app: &TestApp) -> (Client, String) {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws/lobby", app.addr))
        .await
        .expect("the lobby connects");
    let mut client = Client::from_stream(ws);
    assert_eq!(client.recv().await["type"], "lobby");
    client.send(json!({"type": "hello"})).await;
    let welcome = client.until("welcome").await;
    (client, welcome["token"].as_str().expect("a token").to_owned())
}

/// The next `paired` or `seeking` answer (lobby frames skipped).
async fn answer(client: &mut Client) -> Value {
    loop {
        let message = client.recv().await;
        if message["type"] == "paired" || message["type"] == "seeking" || message["type"] == "error" {
            return message;
        }
    }
}

#[tokio::test]
async fn fifty_simultaneous_seekers_on_two_nodes_are_paired_exactly_once() {
    let first = spawn_app_with(node("lobby-a")).await;
    let second = first.another_node(node("lobby-b")).await;
    let mut people = Vec::new();
    for index in 0..50 {
        let app = if index % 2 == 0 { &first } else { &second };
        people.push(person(app).await);
    }
    // Everyone seeks at once.
    let seeks = people.iter_mut().map(|(client, _)| async move {
        client.send(json!({"type": "seek", "pool": "gomoku/10+0"})).await;
        let answer = tokio::time::timeout(WITHIN, answer(client)).await.expect("an answer");
        if answer["type"] == "seeking" {
            // Waiting: someone later pairs with this seek.
            tokio::time::timeout(WITHIN, client.until("paired"))
                .await
                .expect("paired")
        } else {
            answer
        }
    });
    let answers = futures_util::future::join_all(seeks).await;
    let mut by_table: HashMap<String, Vec<(usize, u64)>> = HashMap::new();
    for (index, answer) in answers.iter().enumerate() {
        assert_eq!(answer["type"], "paired", "{answer}");
        let table = answer["table"].as_str().expect("a table").to_owned();
        by_table
            .entry(table)
            .or_default()
            .push((index, answer["seat"].as_u64().expect("a seat")));
    }
    assert_eq!(by_table.len(), 25, "25 tables of two");
    let mut across_nodes = 0;
    for (table, members) in &by_table {
        assert_eq!(members.len(), 2, "table {table}: {members:?}");
        let seats: HashSet<u64> = members.iter().map(|(_, seat)| *seat).collect();
        assert_eq!(seats, HashSet::from([0, 1]), "table {table}");
        if members[0].0 % 2 != members[1].0 % 2 {
            across_nodes += 1;
        }
    }
    // Stored exactly as told: 25 tables, 50 seats, no seek left.
    let tables: i64 = sqlx::query_scalar("SELECT count(*) FROM tables")
        .fetch_one(&first.pool)
        .await
        .expect("count");
    let seats: i64 = sqlx::query_scalar("SELECT count(DISTINCT player_key) FROM seats")
        .fetch_one(&first.pool)
        .await
        .expect("count");
    let left: i64 = sqlx::query_scalar("SELECT count(*) FROM lobby_seeks")
        .fetch_one(&first.pool)
        .await
        .expect("count");
    assert_eq!((tables, seats, left), (25, 50, 0));
    assert!(across_nodes > 0, "some pairs met across the two nodes");

    // A pair that met across the nodes plays: the proxy sends both to the node the
    // table's id hashes to (here: the second node, which takes the free lease).
    let (table, members) = by_table
        .iter()
        .find(|(_, members)| members[0].0 % 2 != members[1].0 % 2)
        .expect("a pair across nodes");
    let mut at = Vec::new();
    for (index, _) in members {
        let (ws, _) = tokio_tungstenite::connect_async(second.ws(table))
            .await
            .expect("the table connects");
        let mut client = Client::from_stream(ws);
        assert_eq!(client.recv().await["type"], "snapshot");
        client.send(json!({"type": "hello", "token": people[*index].1})).await;
        at.push(client);
    }
    for client in &mut at {
        let started = tokio::time::timeout(WITHIN, client.until("game_started"))
            .await
            .expect("the game starts");
        assert_eq!(started["game_number"], 1);
    }
}

#[tokio::test]
async fn the_seeks_of_a_node_that_stopped_are_never_paired_and_leave_the_lists() {
    let first = spawn_app_with(node("lobby-a")).await;
    let second = first.another_node(node("lobby-b")).await;
    let (mut gone, _) = person(&second).await;
    gone.send(json!({"type": "seek", "pool": "krux/10+0"})).await;
    assert_eq!(answer(&mut gone).await["type"], "seeking");
    second.shut_down();
    // The node has left (its row deleted at shutdown): its seek is not paired with a
    // newcomer on the living node, who waits instead.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (mut anna, _) = person(&first).await;
    anna.send(json!({"type": "seek", "pool": "krux/10+0"})).await;
    let answer = answer(&mut anna).await;
    assert_eq!(answer["type"], "seeking", "{answer}");
    // And the living node deletes the dead node's seek: only Anna's is left.
    common::eventually(
        WITHIN,
        Duration::from_millis(200),
        "the dead node's seek is deleted by the living",
        || common::seeks_left_one(&first.pool),
    )
    .await;
    let tables: i64 = sqlx::query_scalar("SELECT count(*) FROM tables")
        .fetch_one(&first.pool)
        .await
        .expect("count");
    assert_eq!(tables, 0, "nobody was paired with the stopped node's seeker");
}
