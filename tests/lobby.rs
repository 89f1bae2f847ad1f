//! The lobby over real sockets (docs/protocol.md, section 7): quick pairing, open
//! challenges and their ranges, cancelling, seeks ending with their connections, listed
//! tables and the games to watch, Bughouse's four, and the computer on request.

mod common;

use std::time::Duration;

use common::{Client, TestApp, spawn_app, spawn_app_with};
use futures_util::StreamExt;
use serde_json::{Value, json};

/// How long a test waits for the lobby's lists to show something (they are sent at most
/// once a second).
const LISTS_WITHIN: Duration = Duration::from_secs(15);

/// A lobby connection, with the latest value of each list it was sent.
struct Lobbyist {
    client: Client,
    lists: serde_json::Map<String, Value>,
}

impl Lobbyist {
    async fn send(&mut self, message: Value) {
        self.client.send(message).await;
    }

    async fn send_text(&mut self, text: &str) {
        self.client.send_text(text).await;
    }

    /// The next message, keeping the lists of a `lobby` frame.
    async fn recv(&mut self) -> Value {
        let message = self.client.recv().await;
        if message["type"] == "lobby"
            && let Some(map) = message.as_object()
        {
            for (key, value) in map {
                if key != "type" {
                    self.lists.insert(key.clone(), value.clone());
                }
            }
        }
        message
    }

    /// Reads until a message of type `kind` arrives, keeping the lists meanwhile.
    async fn until(&mut self, kind: &str) -> Value {
        loop {
            let message = self.recv().await;
            if message["type"] == kind {
                return message;
            }
        }
    }

    /// Reads until `check` holds for the latest value of the list `section`.
    async fn until_list(&mut self, section: &str, check: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + LISTS_WITHIN;
        loop {
            if let Some(list) = self.lists.get(section).and_then(Value::as_array)
                && check(list)
            {
                return list.clone();
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the {section} list never matched: {:?}",
                self.lists.get(section)
            );
            self.recv().await;
        }
    }

    /// The next error (lobby frames may come before it), which must carry `code`.
    async fn refused(&mut self, code: &str) -> Value {
        let error = self.until("error").await;
        assert_eq!(error["code"], code, "{error}");
        assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "{error}");
        error
    }

    async fn close(self) {
        self.client.close().await;
    }
}

/// A lobby connection whose first frame (the whole lobby) was read.
async fn lobby(app: &TestApp) -> (Lobbyist, Value) {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws/lobby", app.addr))
        .await
        .expect("the lobby's WebSocket connects");
    let mut lobbyist = Lobbyist {
        client: Client::from_stream(ws),
        lists: serde_json::Map::new(),
    };
    let first = lobbyist.recv().await;
    assert_eq!(first["type"], "lobby", "{first}");
    (lobbyist, first)
}

/// A lobby connection that said `hello` (with `token`, or asking for one); its token.
async fn person(app: &TestApp, token: Option<&str>) -> (Lobbyist, String) {
    let (mut client, _) = lobby(app).await;
    let hello = match token {
        Some(token) => json!({"type": "hello", "token": token}),
        None => json!({"type": "hello"}),
    };
    client.send(hello).await;
    let welcome = client.until("welcome").await;
    assert_eq!(welcome["ratings"]["gomoku"], 1500, "{welcome}");
    (client, welcome["token"].as_str().expect("a token").to_owned())
}

/// Opens the paired table with `token`; the snapshot.
async fn at_table(app: &TestApp, table: &str, token: &str) -> (Client, Value) {
    let (ws, _) = tokio_tungstenite::connect_async(app.ws(table))
        .await
        .expect("the table's WebSocket connects");
    let mut client = Client::from_stream(ws);
    let snapshot = client.recv().await;
    assert_eq!(snapshot["type"], "snapshot");
    client.send(json!({"type": "hello", "token": token})).await;
    (client, snapshot)
}

#[tokio::test]
async fn two_seekers_meet_at_one_table_seated_and_the_game_starts_when_both_are_there() {
    let app = spawn_app().await;
    let (mut anna, anna_token) = person(&app, None).await;
    let (mut bo, bo_token) = person(&app, None).await;
    anna.send(json!({"type": "seek", "pool": "gomoku/5+3", "name": "Anna", "ref": 1}))
        .await;
    let seeking = anna.until("seeking").await;
    assert_eq!(seeking["ref"], 1);
    assert_eq!(seeking["seek"]["pool"], "gomoku/5+3");
    assert_eq!(seeking["seek"]["time_control"], "5+3");
    assert_eq!(seeking["seek"]["rating"], 1500);
    let seek_id = seeking["seek"]["id"].clone();
    // Bo sees the challenge in the list.
    let seeks = bo.until_list("seeks", |seeks| !seeks.is_empty()).await;
    assert_eq!(seeks[0]["id"], seek_id);
    assert_eq!(seeks[0]["name"], "Anna");

    bo.send(json!({"type": "seek", "pool": "gomoku/5+3", "name": "Bo", "ref": 2}))
        .await;
    let bo_paired = bo.until("paired").await;
    let anna_paired = anna.until("paired").await;
    assert_eq!(bo_paired["ref"], 2);
    assert_eq!(anna_paired["seek"], seek_id);
    let table = bo_paired["table"].as_str().expect("a table id").to_owned();
    assert_eq!(anna_paired["table"], table.as_str());
    assert_eq!(bo_paired["url"], format!("/t/{table}"));
    assert_ne!(anna_paired["seat"], bo_paired["seat"]);

    // Both seats are theirs before they arrive; no game yet, no clock running.
    let (mut anna_at, snapshot) = at_table(&app, &table, &anna_token).await;
    assert_eq!(snapshot["table"]["status"], "waiting", "{snapshot}");
    let mut names: Vec<&str> = snapshot["table"]["seats"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|seat| seat["player"]["name"].as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["Anna", "Bo"], "{snapshot}");
    let welcome = anna_at.until("welcome").await;
    assert_eq!(welcome["seats"].as_array().map(Vec::len), Some(1), "{welcome}");
    let (mut bo_at, _) = at_table(&app, &table, &bo_token).await;
    let started = anna_at.until("game_started").await;
    bo_at.until("game_started").await;
    assert!(started["clocks"].is_object(), "a 5+3 game is timed: {started}");
    let stored: (bool, bool) =
        sqlx::query_as("SELECT (settings->>'listed')::bool, (settings->>'rated')::bool FROM tables WHERE id = $1")
            .bind(&table)
            .fetch_one(&app.pool)
            .await
            .expect("the table is stored");
    assert_eq!(stored, (true, false));
    // The seek is gone from the lobby, and the game is there to watch.
    let games = anna.until_list("games", |games| !games.is_empty()).await;
    assert_eq!(games[0]["id"], table.as_str());
    assert_eq!(games[0]["time_control"], "5+3");
    let seeks_left: i64 = sqlx::query_scalar("SELECT count(*) FROM lobby_seeks")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(seeks_left, 0);
}

#[tokio::test]
async fn a_rating_range_is_enforced_by_the_server() {
    let app = spawn_app().await;
    let (mut anna, _) = person(&app, None).await;
    let (mut bo, _) = person(&app, None).await;
    // Anna wants opponents rated 1600–1800; Bo is a newcomer (1500).
    anna.send(json!({"type": "seek", "pool": "krux/10+0", "range": {"min": 1600, "max": 1800}}))
        .await;
    let seek = anna.until("seeking").await["seek"].clone();
    assert_eq!(seek["range"], json!({"min": 1600, "max": 1800}));
    bo.send(json!({"type": "accept", "seek": seek["id"], "ref": "a"})).await;
    let refused = bo.until("error").await;
    assert_eq!(refused["code"], "out_of_range", "{refused}");
    assert_eq!(refused["ref"], "a");
    // A quick seek in the same pool does not pair with her either: it waits.
    bo.send(json!({"type": "seek", "pool": "krux/10+0"})).await;
    let waiting = bo.until("seeking").await;
    assert_ne!(waiting["seek"]["id"], seek["id"]);
    let open: i64 = sqlx::query_scalar("SELECT count(*) FROM lobby_seeks")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(open, 2);
}

#[tokio::test]
async fn an_accepted_challenge_pairs_with_that_seek_and_a_taken_one_is_gone() {
    let app = spawn_app().await;
    let (mut anna, _) = person(&app, None).await;
    let (mut bo, _) = person(&app, None).await;
    let (mut cia, _) = person(&app, None).await;
    anna.send(json!({"type": "seek", "pool": "lines-of-action/10+5", "rated": true}))
        .await;
    let seek = anna.until("seeking").await["seek"].clone();
    assert_eq!(seek["rated"], true);
    bo.send(json!({"type": "accept", "seek": seek["id"]})).await;
    let paired = bo.until("paired").await;
    anna.until("paired").await;
    let rated: bool = sqlx::query_scalar("SELECT (settings->>'rated')::bool FROM tables WHERE id = $1")
        .bind(paired["table"].as_str())
        .fetch_one(&app.pool)
        .await
        .expect("the table");
    assert!(rated, "a rated challenge makes a rated table");
    cia.send(json!({"type": "accept", "seek": seek["id"]})).await;
    cia.refused("seek_gone").await;
}

#[tokio::test]
async fn one_person_never_pairs_with_themselves() {
    let app = spawn_app().await;
    let (mut first, token) = person(&app, None).await;
    let (mut second, _) = person(&app, Some(&token)).await;
    first.send(json!({"type": "seek", "pool": "gomoku/10+0"})).await;
    let seek = first.until("seeking").await["seek"].clone();
    // The same token seeking again in the pool: the seek already open stands.
    second.send(json!({"type": "seek", "pool": "gomoku/10+0"})).await;
    let again = second.until("seeking").await;
    assert_eq!(again["seek"]["id"], seek["id"]);
    second.send(json!({"type": "accept", "seek": seek["id"]})).await;
    second.refused("own_seek").await;
    let tables: i64 = sqlx::query_scalar("SELECT count(*) FROM tables")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(tables, 0, "nobody was paired");
}

#[tokio::test]
async fn a_cancelled_seek_leaves_the_list_and_another_person_cannot_cancel_it() {
    let app = spawn_app().await;
    let (mut anna, _) = person(&app, None).await;
    let (mut bo, _) = person(&app, None).await;
    anna.send(json!({"type": "seek", "pool": "krux/untimed"})).await;
    let seek = anna.until("seeking").await["seek"].clone();
    bo.until_list("seeks", |seeks| seeks.len() == 1).await;
    bo.send(json!({"type": "cancel", "seek": seek["id"]})).await;
    bo.refused("not_your_seek").await;
    anna.send(json!({"type": "cancel", "seek": seek["id"], "ref": 3})).await;
    let cancelled = anna.until("cancelled").await;
    assert_eq!(cancelled["seek"], seek["id"]);
    assert_eq!(cancelled["reason"], "cancelled");
    assert_eq!(cancelled["ref"], 3);
    bo.until_list("seeks", <[Value]>::is_empty).await;
    anna.send(json!({"type": "cancel", "seek": seek["id"]})).await;
    anna.refused("seek_gone").await;
}

#[tokio::test]
async fn a_seek_ends_when_its_last_lobby_connection_has_been_closed_for_the_grace() {
    let app = spawn_app_with(|settings| settings.lobby.seek_grace_seconds = 1).await;
    let (mut watcher, _) = person(&app, None).await;
    let (mut first, token) = person(&app, None).await;
    let (second, _) = person(&app, Some(&token)).await;
    first.send(json!({"type": "seek", "pool": "gomoku/untimed"})).await;
    first.until("seeking").await;
    watcher.until_list("seeks", |seeks| seeks.len() == 1).await;
    // One of two connections closes: the seek stays.
    first.close().await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let open: i64 = sqlx::query_scalar("SELECT count(*) FROM lobby_seeks")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(open, 1, "another connection of the person is open");
    // The last one closes: after the grace the seek is gone.
    second.close().await;
    watcher.until_list("seeks", <[Value]>::is_empty).await;
}

#[tokio::test]
async fn a_listed_table_is_open_until_full_then_a_game_to_watch() {
    let app = spawn_app().await;
    let (mut watcher, _) = person(&app, None).await;
    let private = app.create_table(json!({"game": "gomoku"})).await;
    let listed = app
        .create_table(json!({"game": "gomoku", "settings": {"listed": true, "seating": "chosen"}}))
        .await;
    let id = listed["id"].as_str().expect("an id").to_owned();
    let tables = watcher.until_list("tables", |tables| !tables.is_empty()).await;
    assert_eq!(tables.len(), 1, "the private table is never listed: {tables:?}");
    assert_eq!(tables[0]["id"], id.as_str());
    assert_ne!(tables[0]["id"], private["id"]);
    assert_eq!(tables[0]["free"], 2);
    let mut x = app.client(&id).await;
    x.hello().await;
    x.sit(0, "Xena").await;
    let tables = watcher
        .until_list("tables", |tables| tables.first().is_some_and(|t| t["free"] == 1))
        .await;
    assert_eq!(tables[0]["seats"][0]["name"], "Xena");
    let mut o = app.client(&id).await;
    o.hello().await;
    o.sit(1, "Olle").await;
    watcher.until_list("tables", <[Value]>::is_empty).await;
    let games = watcher.until_list("games", |games| !games.is_empty()).await;
    assert_eq!(games[0]["id"], id.as_str());
    assert_eq!(games[0]["players"], json!(["Xena", "Olle"]));
    // A spectator arrives: the watch list counts them.
    let _spectator = app.client(&id).await;
    watcher
        .until_list("games", |games| games.first().is_some_and(|g| g["spectators"] == 1))
        .await;
    // The game ends: nothing to watch, and the full table is not open either.
    x.send(json!({"type": "resign"})).await;
    x.until("game_over").await;
    watcher.until_list("games", <[Value]>::is_empty).await;
}

#[tokio::test]
async fn a_full_rotating_table_stays_open_for_its_queue_until_the_queue_is_full() {
    let app = spawn_app().await;
    let (mut watcher, _) = person(&app, None).await;
    let created = app
        .create_table(
            json!({"game": "bughouse", "settings": {"listed": true, "seating": "chosen", "rotation": "rotate"}}),
        )
        .await;
    let id = created["id"].as_str().expect("an id").to_owned();
    let mut people = Vec::new();
    for (seat, name) in (0u8..).zip(["Ann", "Bo", "Cy", "Di"]) {
        let mut client = app.client(&id).await;
        client.hello().await;
        client.sit(seat, name).await;
        people.push(client);
    }
    // Every seat taken and a game in play: open still, for the queue, and a game to watch.
    let tables = watcher
        .until_list("tables", |tables| tables.first().is_some_and(|t| t["free"] == 0))
        .await;
    assert_eq!(tables[0]["id"], id.as_str());
    assert_eq!(tables[0]["queue"], 0, "{tables:?}");
    watcher.until_list("games", |games| !games.is_empty()).await;
    // Every person queueing is counted; the sixteenth fills the queue and closes it.
    for n in 1..=16 {
        let mut client = app.client(&id).await;
        client.hello().await;
        client
            .send(json!({"type": "join_queue", "name": format!("Q{n}")}))
            .await;
        client.until("welcome").await;
        people.push(client);
        if n == 1 {
            let tables = watcher
                .until_list("tables", |tables| tables.first().is_some_and(|t| t["queue"] == 1))
                .await;
            assert_eq!(tables[0]["free"], 0);
        }
    }
    watcher.until_list("tables", <[Value]>::is_empty).await;
    // A table that does not rotate says nothing of a queue.
    app.create_table(json!({"game": "gomoku", "settings": {"listed": true}}))
        .await;
    let tables = watcher.until_list("tables", |tables| !tables.is_empty()).await;
    assert!(tables[0].get("queue").is_none(), "{tables:?}");
}

#[tokio::test]
async fn four_bughouse_seekers_make_one_table() {
    let app = spawn_app().await;
    let mut people = Vec::new();
    for _ in 0..4 {
        people.push(person(&app, None).await);
    }
    for (index, (client, _)) in people.iter_mut().enumerate() {
        client
            .send(json!({"type": "seek", "pool": "bughouse/3+0", "name": format!("P{index}")}))
            .await;
    }
    let mut tables = Vec::new();
    let mut seats = Vec::new();
    for (client, _) in &mut people {
        let paired = client.until("paired").await;
        tables.push(paired["table"].as_str().expect("a table").to_owned());
        seats.push(paired["seat"].as_u64().expect("a seat"));
    }
    assert!(tables.iter().all(|table| *table == tables[0]), "{tables:?}");
    seats.sort_unstable();
    assert_eq!(seats, [0, 1, 2, 3]);
    let mut at = Vec::new();
    for (_, token) in &people {
        at.push(at_table(&app, &tables[0], token).await.0);
    }
    for client in &mut at {
        client.until("game_started").await;
    }
}

#[tokio::test]
async fn a_seeker_may_play_the_computer_instead() {
    let app = spawn_app().await;
    let (mut anna, token) = person(&app, None).await;
    anna.send(json!({"type": "seek", "pool": "gomoku/untimed", "rated": true}))
        .await;
    let seek = anna.until("seeking").await["seek"].clone();
    anna.send(json!({"type": "play_bots", "seek": seek["id"], "strength": "easy"}))
        .await;
    let paired = anna.until("paired").await;
    let table = paired["table"].as_str().expect("a table");
    let (rated, bot): (bool, Option<String>) = sqlx::query_as(
        "SELECT (t.settings->>'rated')::bool, s.bot FROM tables t JOIN seats s ON s.table_id = t.id \
         WHERE t.id = $1 AND s.player_key IS NULL",
    )
    .bind(table)
    .fetch_one(&app.pool)
    .await
    .expect("the table and its bot seat");
    assert!(!rated, "games against the computer are never rated");
    assert_eq!(bot.as_deref(), Some("easy"));
    let (mut at, _) = at_table(&app, table, &token).await;
    at.until("game_started").await;
}

#[tokio::test]
async fn a_seeker_may_play_a_configured_engine_of_the_pool_s_game() {
    let fake = common::gomocup_fake().display().to_string();
    let app = spawn_app_with(|settings| {
        let engine = serde_json::from_value(json!({
            "game": "gomoku", "protocol": "gomocup", "command": [fake, "random"], "move_ms": 100,
        }))
        .expect("an engine configuration");
        settings.bots.engines.insert("rnd".to_owned(), engine);
    })
    .await;
    let (mut anna, token) = person(&app, None).await;
    anna.send(json!({"type": "seek", "pool": "krux/untimed"})).await;
    let krux = anna.until("seeking").await["seek"]["id"].clone();
    anna.send(json!({"type": "seek", "pool": "gomoku/untimed"})).await;
    let gomoku = anna.until("seeking").await["seek"]["id"].clone();
    // An engine of another game, one not configured, and our random mover are refused,
    // each with words that say what is offered; the seeks stay open.
    anna.send(json!({"type": "play_bots", "seek": krux, "strength": "engine:rnd", "ref": 1}))
        .await;
    let refused = anna.refused("bad_message").await;
    assert_eq!(refused["ref"], 1, "{refused}");
    assert!(
        refused["message"].as_str().is_some_and(|m| m.contains("krux")),
        "{refused}"
    );
    anna.send(json!({"type": "play_bots", "seek": gomoku, "strength": "engine:nope"}))
        .await;
    let refused = anna.refused("bad_message").await;
    assert!(
        refused["message"].as_str().is_some_and(|m| m.contains("engine:rnd")),
        "{refused}"
    );
    anna.send(json!({"type": "play_bots", "seek": gomoku, "strength": "random"}))
        .await;
    anna.refused("bad_message").await;
    let open: i64 = sqlx::query_scalar("SELECT count(*) FROM lobby_seeks")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(open, 2, "both seeks are still open");
    // The engine of the seek's game: a table with the engine in the other seat, which plays.
    anna.send(json!({"type": "play_bots", "seek": gomoku, "strength": "engine:rnd"}))
        .await;
    let paired = anna.until("paired").await;
    let table = paired["table"].as_str().expect("a table");
    let bot: Option<String> = sqlx::query_scalar("SELECT bot FROM seats WHERE table_id = $1 AND player_key IS NULL")
        .bind(table)
        .fetch_one(&app.pool)
        .await
        .expect("the table's computer seat");
    assert_eq!(bot.as_deref(), Some("engine:rnd"));
    let (mut at, _) = at_table(&app, table, &token).await;
    let started = at.until("game_started").await;
    // Seats are drawn by lot at the start: the person's is the one the engine does not hold.
    let seat = started["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .position(|view| view["player"]["bot"].is_null())
        .expect("the person's seat");
    if started["to_move"] == json!([seat]) {
        at.send(json!({"type": "move", "seat": seat, "move": {"at": "h8"}}))
            .await;
    }
    // The engine's move: a move by the seat that is not the person's.
    loop {
        let moved = at.until("moved").await;
        if moved["seat"] != seat {
            break;
        }
    }
}

#[tokio::test]
async fn bad_lobby_requests_get_clear_errors_and_change_nothing() {
    let app = spawn_app().await;
    let (mut anna, _) = person(&app, None).await;
    anna.send_text("{not json").await;
    anna.refused("malformed_json").await;
    anna.send(json!({"type": "sit", "seat": 0})).await;
    anna.refused("unknown_type").await;
    anna.send(json!({"type": "seek"})).await;
    anna.refused("bad_message").await;
    anna.send(json!({"type": "seek", "pool": "chess/5+0"})).await;
    anna.refused("unknown_pool").await;
    anna.send(json!({"type": "seek", "pool": "gomoku/5+3", "range": {"min": 1800, "max": 1200}}))
        .await;
    anna.refused("bad_range").await;
    anna.send(json!({"type": "seek", "pool": "gomoku/5+3", "name": "x".repeat(40)}))
        .await;
    anna.refused("bad_name").await;
    anna.send(json!({"type": "accept", "seek": "6f1c2e9a-0000-4000-8000-000000000000"}))
        .await;
    anna.refused("seek_gone").await;
    anna.send(json!({"type": "ping", "ref": 9})).await;
    assert_eq!(anna.until("pong").await["ref"], 9);
    let open: i64 = sqlx::query_scalar("SELECT count(*) FROM lobby_seeks")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(open, 0);
}

#[tokio::test]
async fn seeks_from_one_address_are_paced() {
    let app = spawn_app_with(|settings| settings.limits.seeks_per_minute = 2).await;
    let (mut anna, _) = person(&app, None).await;
    for pool in ["gomoku/5+3", "krux/10+0"] {
        anna.send(json!({"type": "seek", "pool": pool})).await;
        anna.until("seeking").await;
    }
    anna.send(json!({"type": "seek", "pool": "gomoku/10+0"})).await;
    anna.refused("too_many_seeks").await;
}

#[tokio::test]
async fn the_first_frame_lists_the_pools() {
    let app = spawn_app().await;
    let (_client, first) = lobby(&app).await;
    let pools = first["pools"].as_array().expect("pools");
    assert_eq!(pools.len(), 10);
    assert!(
        pools
            .iter()
            .any(|pool| pool["id"] == "bughouse/2+0" && pool["players"] == 4)
    );
    for key in ["seeks", "tables", "games"] {
        assert!(first[key].is_array(), "{first}");
    }
    // Nothing else arrives uninvited within a quiet second (lists unchanged).
    let mut ws = _client.client.into_stream();
    let quiet = tokio::time::timeout(Duration::from_millis(1500), async {
        loop {
            match ws.next().await {
                Some(Ok(tokio_tungstenite::tungstenite::Message::Text(text))) => return Some(text),
                Some(Ok(_)) => continue,
                _ => return None,
            }
        }
    })
    .await;
    assert!(quiet.is_err(), "no frame while nothing changes: {quiet:?}");
}

#[tokio::test]
async fn the_operator_may_refuse_to_pair_two_people_from_one_address() {
    let app = spawn_app_with(|settings| settings.lobby.refuse_same_address = true).await;
    let (mut anna, _) = person(&app, None).await;
    let (mut bo, _) = person(&app, None).await;
    anna.send(json!({"type": "seek", "pool": "gomoku/5+3"})).await;
    let seek = anna.until("seeking").await["seek"].clone();
    bo.send(json!({"type": "accept", "seek": seek["id"]})).await;
    bo.refused("same_address").await;
    // Both from 127.0.0.1: Bo's quick seek waits beside Anna's instead of pairing with it.
    bo.send(json!({"type": "seek", "pool": "gomoku/5+3"})).await;
    assert_eq!(bo.until("seeking").await["seek"]["pool"], "gomoku/5+3");
    let tables: i64 = sqlx::query_scalar("SELECT count(*) FROM tables")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(tables, 0);
}

#[tokio::test]
async fn a_reloaded_page_learns_its_own_seek_and_a_pairing_made_while_it_was_away() {
    let app = spawn_app_with(|settings| settings.lobby.seek_grace_seconds = 30).await;
    let (mut anna, token) = person(&app, None).await;
    anna.send(json!({"type": "seek", "pool": "krux/10+0"})).await;
    let seek = anna.until("seeking").await["seek"]["id"].clone();
    anna.close().await;
    // The page comes back: `welcome` names the seek as Anna's.
    let (mut again, _) = lobby(&app).await;
    again.send(json!({"type": "hello", "token": token})).await;
    assert_eq!(again.until("welcome").await["seeks"], json!([seek]));
    again.close().await;
    // Paired while no page of hers is open: told at her next hello.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (mut bo, _) = person(&app, None).await;
    bo.send(json!({"type": "seek", "pool": "krux/10+0"})).await;
    let table = bo.until("paired").await["table"].clone();
    let (mut back, _) = lobby(&app).await;
    back.send(json!({"type": "hello", "token": token})).await;
    let paired = back.until("paired").await;
    assert_eq!(paired["table"], table);
    assert_eq!(paired["seek"], seek);
}
