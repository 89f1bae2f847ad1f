//! Chat history over real WebSockets: a player who joins or comes back reads the table's
//! recent chat in the snapshot (the last 100 lines), team chat only in the `welcome` of
//! the team's own players, and both survive a restart of the server.

mod common;

use common::{Client, TestApp, spawn_app, spawn_app_with};
use serde_json::{Value, json};

/// Opens a connection to `table` and returns it with the snapshot it was sent.
async fn join(app: &TestApp, table: &str) -> (Client, Value) {
    let (ws, _) = tokio_tungstenite::connect_async(app.ws(table))
        .await
        .expect("WebSocket connects");
    let mut client = Client::from_stream(ws);
    let snapshot = client.recv().await;
    assert_eq!(snapshot["type"], "snapshot", "{snapshot}");
    (client, snapshot)
}

/// A new connection of the player with `token`: the `welcome` it is sent.
async fn welcome_of(app: &TestApp, table: &str, token: &str) -> Value {
    let (mut client, _) = join(app, table).await;
    client.send(json!({"type": "hello", "token": token})).await;
    client.expect("welcome").await
}

fn line(seat: u8, name: &str, text: &str) -> Value {
    json!({"seat": seat, "name": name, "text": text})
}

/// Chat lines without their ids (each line's `id` is checked to be a number), to compare
/// with [`line`]s.
fn said(lines: &Value) -> Value {
    let lines = lines.as_array().expect("a list of lines");
    Value::Array(
        lines
            .iter()
            .map(|line| {
                let mut line = line.clone();
                let id = line.as_object_mut().expect("a line").remove("id");
                assert!(id.is_some_and(|id| id.is_i64()), "every line has an id: {line}");
                line
            })
            .collect(),
    )
}

/// A Bughouse table (seats chosen) with all four seats taken, its players with their
/// tokens, after everyone has seen the game start. Before seat 3 is taken, seat 0 says a
/// team line that seat 3's player therefore never received.
async fn bughouse(app: &TestApp) -> (String, Vec<(Client, String)>) {
    let created = app
        .create_table(json!({"game": "bughouse", "settings": {"seating": "chosen"}}))
        .await;
    let table = created["id"].as_str().expect("id").to_owned();
    let mut players: Vec<(Client, String)> = Vec::new();
    for seat in 0..4u8 {
        if seat == 3 {
            let (first, _) = &mut players[0];
            first
                .send(json!({"type": "team_chat", "text": "before you came"}))
                .await;
            first.until("team_chat").await;
        }
        let (mut player, _) = join(app, &table).await;
        let token = player.hello().await;
        player.sit(seat, &format!("P{seat}")).await;
        players.push((player, token));
    }
    for (player, _) in &mut players {
        player.until("game_started").await;
    }
    (table, players)
}

#[tokio::test]
async fn a_late_joiner_reads_the_earlier_chat() {
    let app = spawn_app().await;
    let table = app.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut x, x_token), (mut o, _)) = app.two_seated(&table).await;
    x.send(json!({"type": "chat", "text": "hello"})).await;
    o.until("chat").await;
    o.send(json!({"type": "chat", "text": "  good luck  "})).await;
    assert_eq!(o.until("chat").await["text"], "good luck");
    // Stored before it was announced.
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM chat_messages WHERE team IS NULL")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(stored, 2);

    let expected = json!([line(0, "X", "hello"), line(1, "O", "good luck")]);
    let (mut spectator, snapshot) = join(&app, &table).await;
    assert_eq!(
        said(&snapshot["table"]["chat"]),
        expected,
        "a spectator who arrives late reads it"
    );
    assert_eq!(
        said(&app.snapshot(&table).await["chat"]),
        expected,
        "so does GET /api/tables/{{id}}"
    );
    // A player coming back on a new connection reads it too; their welcome has no team lines.
    let (mut back, snapshot) = join(&app, &table).await;
    assert_eq!(said(&snapshot["table"]["chat"]), expected);
    back.send(json!({"type": "hello", "token": x_token})).await;
    assert_eq!(back.expect("welcome").await["team_chat"], json!([]));
    // A refused line is neither stored nor shown.
    x.send(json!({"type": "chat", "text": "   "})).await;
    assert_eq!(x.until("error").await["code"], "bad_chat");
    // A control character (NUL, which PostgreSQL cannot store) is the client's fault,
    // refused before storage: `bad_chat`, never `storage_unavailable` (team chat shares the check).
    for text in ["a\u{0}b", "\u{0}", "bell\u{7}"] {
        x.send(json!({"type": "chat", "text": text})).await;
        let error = x.until("error").await;
        assert_eq!(error["code"], "bad_chat", "{text:?}: {error}");
    }
    assert!(spectator.sync().await.iter().all(|m| m["type"] != "chat"));
    assert_eq!(said(&join(&app, &table).await.1["table"]["chat"]), expected);
    // The connection goes on: a line with a line break is fine.
    x.send(json!({"type": "chat", "text": "two\nlines"})).await;
    assert_eq!(x.until("chat").await["text"], "two\nlines");
}

#[tokio::test]
async fn team_chat_history_reaches_only_the_team() {
    let app = spawn_app().await;
    let (table, mut players) = bughouse(&app).await;
    // Seat 0's team is seats 0 and 3; seats 1 and 2 are the other team.
    players[3].0.send(json!({"type": "team_chat", "text": "need N"})).await;
    players[0].0.until("team_chat").await;
    players[2].0.send(json!({"type": "team_chat", "text": "sit"})).await;
    players[1].0.until("team_chat").await;

    let tokens: Vec<String> = players.iter().map(|(_, token)| token.clone()).collect();
    assert_eq!(
        said(&welcome_of(&app, &table, &tokens[0]).await["team_chat"]),
        json!([line(0, "P0", "before you came"), line(3, "P3", "need N")])
    );
    assert_eq!(
        said(&welcome_of(&app, &table, &tokens[3]).await["team_chat"]),
        json!([line(3, "P3", "need N")]),
        "a line said before a player joined the team is not theirs to read"
    );
    for opponent in [&tokens[1], &tokens[2]] {
        assert_eq!(
            said(&welcome_of(&app, &table, opponent).await["team_chat"]),
            json!([line(2, "P2", "sit")])
        );
    }
    // Spectators (with a token of their own or none) never read team lines.
    let (mut spectator, snapshot) = join(&app, &table).await;
    assert_eq!(snapshot["table"]["chat"], json!([]));
    spectator.send(json!({"type": "hello"})).await;
    assert_eq!(spectator.expect("welcome").await["team_chat"], json!([]));
    assert_eq!(app.snapshot(&table).await["chat"], json!([]));
}

#[tokio::test]
async fn chat_history_survives_a_restart() {
    let app = spawn_app().await;
    let (table, mut players) = bughouse(&app).await;
    players[1].0.send(json!({"type": "chat", "text": "good game"})).await;
    players[0].0.until("chat").await;
    players[3].0.send(json!({"type": "team_chat", "text": "need Q"})).await;
    players[0].0.until("team_chat").await;
    let tokens: Vec<String> = players.iter().map(|(_, token)| token.clone()).collect();
    for (player, _) in players {
        player.close().await;
    }

    let app = app.restart().await;
    let (_, snapshot) = join(&app, &table).await;
    assert_eq!(said(&snapshot["table"]["chat"]), json!([line(1, "P1", "good game")]));
    assert_eq!(
        said(&welcome_of(&app, &table, &tokens[3]).await["team_chat"]),
        json!([line(3, "P3", "need Q")])
    );
    assert_eq!(
        said(&welcome_of(&app, &table, &tokens[2]).await["team_chat"]),
        json!([])
    );
}

#[tokio::test]
async fn the_history_is_the_last_100_lines() {
    let app = spawn_app_with(|settings| {
        settings.limits.messages_per_second = 1_000;
        settings.limits.message_burst = 1_000;
        settings.limits.chat_burst = 1_000;
    })
    .await;
    let table = app.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut x, _), _) = app.two_seated(&table).await;
    for n in 0..105 {
        x.send(json!({"type": "chat", "text": format!("line {n}")})).await;
    }
    loop {
        let said = x.until("chat").await;
        if said["text"] == "line 104" {
            break;
        }
    }
    let texts = |snapshot: &Value| -> Vec<String> {
        snapshot["chat"]
            .as_array()
            .expect("chat")
            .iter()
            .map(|line| line["text"].as_str().expect("text").to_owned())
            .collect()
    };
    let expected: Vec<String> = (5..105).map(|n| format!("line {n}")).collect();
    assert_eq!(texts(&join(&app, &table).await.1["table"]), expected);
    // Rebuilt from Postgres: the same last 100.
    x.close().await;
    let app = app.restart().await;
    assert_eq!(texts(&join(&app, &table).await.1["table"]), expected);
}

/// However much is said, a table stores the last lines of each channel that a newcomer is
/// shown, and no more (100 of the table chat, 100 of each team's).
#[tokio::test]
async fn a_table_stores_only_the_chat_it_shows() {
    use spelbord::store::chat::{CHAT_KEPT, ChatRecord};
    let database = common::TestDb::create().await;
    let store = common::actor::paused_store(&database).await;
    let tables = common::actor::tables(store.clone()).await;
    let settings = spelbord::table::TableSettings::read("bughouse", None).expect("valid");
    let table = tables.create(settings).await.expect("created");
    let audience = vec![vec![7u8; 32]];
    for n in 0..CHAT_KEPT + 30 {
        let text = format!("line {n}");
        let public = ChatRecord {
            seat: Some(0),
            name: "Anna",
            text: &text,
            team: None,
            audience: &[],
            player_key: None,
        };
        store.append_chat(table.id(), &public).await.expect("stored");
        if n % 2 == 0 {
            let team = ChatRecord {
                seat: Some(0),
                name: "Anna",
                text: &text,
                team: Some(0),
                audience: &audience,
                player_key: None,
            };
            store.append_chat(table.id(), &team).await.expect("stored");
        }
    }
    let count = |team: Option<i16>| {
        sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM chat_messages WHERE table_id = $1 AND team IS NOT DISTINCT FROM $2",
        )
        .bind(table.id())
        .bind(team)
        .fetch_one(store.pool())
    };
    assert_eq!(count(None).await.unwrap(), i64::try_from(CHAT_KEPT).unwrap());
    // 65 team lines were said: all kept, each channel counted on its own.
    assert_eq!(count(Some(0)).await.unwrap(), 65);
    // The newest are the ones kept.
    let recent = store.recent_chat(table.id(), None, CHAT_KEPT).await.unwrap();
    assert_eq!(recent.first().map(|row| row.text.as_str()), Some("line 30"));
    assert_eq!(recent.last().map(|row| row.text.as_str()), Some("line 129"));
}
