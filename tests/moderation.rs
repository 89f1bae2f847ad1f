//! Moderation over real HTTP and WebSockets (docs/operations.md, "Moderation"; the `report`
//! message and `chat_muted` in docs/protocol.md): the admin API refused without its token
//! and opened by it (or by the metrics token while no admin token is set), closing a table,
//! freeing a seat, muting in chat, players reporting lines, the tables by activity and a
//! table's stored chat, and every action recorded with who did it.

mod common;

use common::{Client, TestApp, close_code, spawn_app_with};
use reqwest::Method;
use serde_json::{Value, json};

const ADMIN_TOKEN: &str = "admin-s3cret-for-tests";
const METRICS_TOKEN: &str = "metrics-s3cret-for-tests";

/// A server whose admin API is opened by [`ADMIN_TOKEN`].
async fn app() -> TestApp {
    spawn_app_with(|settings| settings.admin.token = ADMIN_TOKEN.into()).await
}

/// An admin request: its status and JSON answer. `token` `None` sends no `Authorization`.
async fn admin(app: &TestApp, method: Method, path: &str, token: Option<&str>, body: Option<Value>) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .request(method, app.http(path))
        .header("X-Admin-Name", "Mod Maja");
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("an answer");
    let status = response.status().as_u16();
    let text = response.text().await.expect("a body");
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

/// An admin request with the admin token that must succeed: its answer.
async fn ok(app: &TestApp, method: Method, path: &str, body: Option<Value>) -> Value {
    let (status, answer) = admin(app, method, path, Some(ADMIN_TOKEN), body).await;
    assert_eq!(status, 200, "{path}: {answer}");
    answer
}

/// The actions recorded, oldest first: (actor, token kind, action, table, details).
async fn actions(app: &TestApp) -> Vec<(String, String, String, Option<String>, Value)> {
    sqlx::query_as("SELECT actor, token_kind, action, table_id, details FROM admin_actions ORDER BY id")
        .fetch_all(&app.pool)
        .await
        .expect("admin_actions")
}

/// Says `text` at the table and returns the `chat` event everyone got (as `listener` read it).
async fn say(speaker: &mut Client, listener: &mut Client, text: &str) -> Value {
    speaker.send(json!({"type": "chat", "text": text})).await;
    let said = listener.until("chat").await;
    assert_eq!(said["text"], text);
    assert_eq!(speaker.until("chat").await["id"], said["id"]);
    said
}

/// The player key (hex) of the speaker of `line_id`, as the operator reads the table's chat.
async fn speaker_key(app: &TestApp, table: &str, line_id: &Value) -> String {
    let chat = ok(app, Method::GET, &format!("/api/admin/tables/{table}/chat"), None).await;
    let line = chat["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .find(|line| line["id"] == *line_id)
        .expect("the line is stored")
        .clone();
    line["player_key"].as_str().expect("a key").to_owned()
}

#[tokio::test]
async fn the_admin_api_is_refused_without_its_token_and_opened_by_it() {
    // Neither token set: refused to everyone, loopback clients too.
    let closed = spawn_app_with(|_| {}).await;
    let (status, answer) = admin(&closed, Method::GET, "/api/admin/tables", None, None).await;
    assert_eq!(status, 403, "{answer}");
    assert_eq!(answer["error"]["code"], "forbidden");
    let (status, _) = admin(&closed, Method::GET, "/api/admin/reports", Some(""), None).await;
    assert_eq!(status, 403);

    let app = app().await;
    for token in [None, Some("wrong"), Some(METRICS_TOKEN)] {
        for (method, path) in [
            (Method::GET, "/api/admin/tables"),
            (Method::GET, "/api/admin/reports"),
            (Method::POST, "/api/admin/tables/abcdefgh/close"),
            (Method::DELETE, &format!("/api/admin/mutes/{}", "0".repeat(64))),
        ] {
            let (status, answer) = admin(&app, method, path, token, None).await;
            assert_eq!(status, 403, "{path} with {token:?}: {answer}");
            assert_eq!(answer["error"]["code"], "forbidden");
        }
    }
    let answer = ok(&app, Method::GET, "/api/admin/tables", None).await;
    assert!(answer["tables"].is_array(), "{answer}");
    // A name that is too long is refused, not truncated.
    let long = reqwest::Client::new()
        .get(app.http("/api/admin/tables"))
        .bearer_auth(ADMIN_TOKEN)
        .header("X-Admin-Name", "x".repeat(65))
        .send()
        .await
        .expect("an answer");
    assert_eq!(long.status(), 400);

    // Without an admin token the metrics token opens it, and the record says which did.
    let scraped = spawn_app_with(|settings| settings.metrics.token = METRICS_TOKEN.into()).await;
    let (status, _) = admin(&scraped, Method::GET, "/api/admin/tables", Some(METRICS_TOKEN), None).await;
    assert_eq!(status, 200);
    let key = "ab".repeat(32);
    let body = json!({"player_key": key, "reason": "spam"});
    let (status, answer) = admin(
        &scraped,
        Method::POST,
        "/api/admin/mutes",
        Some(METRICS_TOKEN),
        Some(body),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let recorded = actions(&scraped).await;
    assert_eq!(recorded.len(), 1);
    assert_eq!(
        (recorded[0].0.as_str(), recorded[0].1.as_str()),
        ("Mod Maja", "metrics")
    );
}

#[tokio::test]
async fn closing_a_table_ends_its_game_tells_everyone_and_refuses_it() {
    let app = app().await;
    let table = app.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut x, _), (o, _)) = app.two_seated(&table).await;
    let mut spectator = app.client(&table).await;
    x.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    spectator.until("moved").await;

    let answer = ok(&app, Method::POST, &format!("/api/admin/tables/{table}/close"), None).await;
    assert_eq!(answer["closed"], true);
    assert_eq!(answer["game_aborted"], true);
    for client in [&mut x, &mut spectator] {
        let over = client.until("game_over").await;
        assert_eq!(over["result"]["outcome"], "aborted", "{over}");
        assert_eq!(over["result"]["detail"]["rule"], "closed_by_operator");
        client.until("table_closed").await;
    }
    for client in [x, o, spectator] {
        let mut ws = client.into_stream();
        assert_eq!(close_code(&mut ws).await, Some(4000), "closed with the moderation code");
    }
    // Stored: the game aborted, the table closed.
    let status: String = sqlx::query_scalar("SELECT status FROM games WHERE table_id = $1")
        .bind(&table)
        .fetch_one(&app.pool)
        .await
        .expect("the game");
    assert_eq!(status, "finished");
    // Not served again: its API, page and socket answer 410.
    let api = reqwest::get(app.http(&format!("/api/tables/{table}")))
        .await
        .expect("answer");
    assert_eq!(api.status(), 410);
    let body: Value = api.json().await.expect("JSON");
    assert_eq!(body["error"]["code"], "table_closed");
    let page = reqwest::get(app.http(&format!("/t/{table}"))).await.expect("answer");
    assert_eq!(page.status(), 410);
    match tokio_tungstenite::connect_async(app.ws(&table)).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => assert_eq!(response.status(), 410),
        other => panic!("a closed table's socket opened: {:?}", other.map(|_| ())),
    }
    // Closing again changes nothing and says so.
    let (status, again) = admin(
        &app,
        Method::POST,
        &format!("/api/admin/tables/{table}/close"),
        Some(ADMIN_TOKEN),
        None,
    )
    .await;
    assert_eq!(status, 410, "{again}");
    // An unknown table is a 404, and nothing is recorded for it.
    let (status, unknown) = admin(
        &app,
        Method::POST,
        "/api/admin/tables/nosuchtb/close",
        Some(ADMIN_TOKEN),
        None,
    )
    .await;
    assert_eq!(
        (status, unknown["error"]["code"].as_str()),
        (404, Some("table_not_found"))
    );
    let recorded = actions(&app).await;
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    let (actor, kind, action, acted_on, details) = &recorded[0];
    assert_eq!(
        (actor.as_str(), kind.as_str(), action.as_str()),
        ("Mod Maja", "admin", "close_table")
    );
    assert_eq!(acted_on.as_deref(), Some(table.as_str()));
    assert_eq!(details["game_aborted"], true);
    // The table shows as closed in the list, and its chat stays readable.
    let listed = ok(&app, Method::GET, "/api/admin/tables", None).await;
    assert_eq!(listed["tables"][0]["id"], table.as_str());
    assert_eq!(listed["tables"][0]["status"], "closed");
    ok(&app, Method::GET, &format!("/api/admin/tables/{table}/chat"), None).await;
}

#[tokio::test]
async fn removing_a_seated_player_frees_the_seat_and_aborts_the_game() {
    let app = app().await;
    let table = app.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut x, _), (mut o, _)) = app.two_seated(&table).await;
    let base = format!("/api/admin/tables/{table}/seats");
    // Bad input: clear 4xx, nothing changed.
    for (seat, status, code) in [
        ("x", 400, "bad_seat"),
        ("-1", 400, "bad_seat"),
        ("7", 404, "no_such_seat"),
    ] {
        let (got, answer) = admin(
            &app,
            Method::POST,
            &format!("{base}/{seat}/remove"),
            Some(ADMIN_TOKEN),
            None,
        )
        .await;
        assert_eq!(
            (got, answer["error"]["code"].as_str()),
            (status, Some(code)),
            "{seat}: {answer}"
        );
    }
    let (status, _) = admin(
        &app,
        Method::POST,
        "/api/admin/tables/nosuchtb/seats/0/remove",
        Some(ADMIN_TOKEN),
        None,
    )
    .await;
    assert_eq!(status, 404);
    assert!(
        x.sync()
            .await
            .iter()
            .all(|m| m["type"] != "stood" && m["type"] != "game_over")
    );
    assert!(actions(&app).await.is_empty());

    let answer = ok(&app, Method::POST, &format!("{base}/1/remove"), None).await;
    assert_eq!(answer["removed"]["name"], "O");
    assert_eq!(answer["game_aborted"], true);
    assert_eq!(answer["removed"]["player_key"].as_str().map(str::len), Some(64));
    let removed = o.until("removed").await;
    assert_eq!(removed["seat"], 1);
    let over = x.until("game_over").await;
    assert_eq!(over["result"]["outcome"], "aborted");
    assert_eq!(over["result"]["detail"]["rule"], "removed_by_operator");
    assert_eq!(x.until("stood").await["seat"], 1);
    let snapshot = app.snapshot(&table).await;
    assert_eq!(snapshot["seats"][1]["player"], Value::Null);
    assert_eq!(snapshot["status"], "waiting", "{snapshot}");
    // The seat is free: someone may take it and a new game starts.
    let mut newcomer = app.client(&table).await;
    newcomer.hello().await;
    newcomer.sit(1, "Nea").await;
    x.until("game_started").await;
    // A free seat cannot be freed.
    let (status, answer) = admin(&app, Method::POST, &format!("{base}/1/remove"), Some(ADMIN_TOKEN), None).await;
    assert_eq!(status, 200, "{answer}");
    let (status, answer) = admin(&app, Method::POST, &format!("{base}/1/remove"), Some(ADMIN_TOKEN), None).await;
    assert_eq!((status, answer["error"]["code"].as_str()), (409, Some("seat_free")));
    let recorded = actions(&app).await;
    assert_eq!(recorded.len(), 2);
    assert_eq!(recorded[0].2, "remove_seat");
    assert_eq!(recorded[0].4["seat"], 1);
    assert_eq!(recorded[0].4["name"], "O");
    assert_eq!(recorded[1].4["name"], "Nea");
}

#[tokio::test]
async fn a_player_removed_and_barred_may_watch_but_not_sit_there_again_until_unbarred() {
    let app = app().await;
    let table = app.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut x, _), (mut o, o_token)) = app.two_seated(&table).await;
    let base = format!("/api/admin/tables/{table}/seats");
    let (status, answer) = admin(
        &app,
        Method::POST,
        &format!("{base}/1/remove?bar=yes"),
        Some(ADMIN_TOKEN),
        None,
    )
    .await;
    assert_eq!(
        (status, answer["error"]["field"].as_str()),
        (400, Some("bar")),
        "{answer}"
    );
    assert!(actions(&app).await.is_empty(), "nothing was done");

    let answer = ok(&app, Method::POST, &format!("{base}/1/remove?bar=true"), None).await;
    assert_eq!(answer["barred"], true, "{answer}");
    let key = answer["removed"]["player_key"].as_str().expect("O's key").to_owned();
    let removed = o.until("removed").await;
    assert_eq!(removed["barred"], true, "{removed}");
    x.until("stood").await;
    // O watches on, but may not sit down again, in that seat or the other.
    o.send(json!({"type": "sit", "seat": 1, "name": "O"})).await;
    let refused = o.until("error").await;
    assert_eq!(refused["code"], "barred", "{refused}");
    assert!(app.snapshot(&table).await["seats"][1]["player"].is_null());
    // The bar is stored: after a restart it still holds.
    drop((x, o));
    let app = app
        .restart_with(|settings| settings.admin.token = ADMIN_TOKEN.into())
        .await;
    let mut o = app.client(&table).await;
    o.send(json!({"type": "hello", "token": o_token})).await;
    o.until("welcome").await;
    o.send(json!({"type": "sit", "seat": 1, "name": "O"})).await;
    assert_eq!(o.until("error").await["code"], "barred");
    // Lifted: O may sit again; lifting again is 404, a bad key 400.
    let path = format!("/api/admin/tables/{table}/bars/{key}");
    let answer = ok(&app, Method::DELETE, &path, None).await;
    assert_eq!(answer["unbarred"], true, "{answer}");
    let (status, answer) = admin(&app, Method::DELETE, &path, Some(ADMIN_TOKEN), None).await;
    assert_eq!((status, answer["error"]["code"].as_str()), (404, Some("not_barred")));
    let (status, answer) = admin(
        &app,
        Method::DELETE,
        &format!("/api/admin/tables/{table}/bars/nokey"),
        Some(ADMIN_TOKEN),
        None,
    )
    .await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (400, Some("bad_player_key"))
    );
    o.sit(1, "O").await;
    let recorded: Vec<String> = actions(&app).await.into_iter().map(|action| action.2).collect();
    assert_eq!(recorded, ["remove_seat", "unbar"]);
    assert_eq!(actions(&app).await[0].4["barred"], true);
}

#[tokio::test]
async fn a_barred_player_may_not_queue_at_a_rotating_table_either() {
    let app = app().await;
    let created = app
        .create_table(json!({"game": "bughouse", "settings": {
            "seating": "chosen", "rotation": "rotate", "bots": {"1": "easy", "2": "easy", "3": "easy"}
        }}))
        .await;
    let table = created["id"].as_str().expect("id").to_owned();
    let mut ada = app.client(&table).await;
    ada.hello().await;
    ada.sit(0, "Ada").await;
    ada.until("game_started").await;
    let answer = ok(
        &app,
        Method::POST,
        &format!("/api/admin/tables/{table}/seats/0/remove?bar=true"),
        None,
    )
    .await;
    assert_eq!(answer["barred"], true, "{answer}");
    ada.until("removed").await;
    ada.send(json!({"type": "join_queue", "name": "Ada"})).await;
    let refused = ada.until("error").await;
    assert_eq!(refused["code"], "barred", "{refused}");
}

#[tokio::test]
async fn a_muted_player_s_lines_are_refused_until_unmuted() {
    let app = app().await;
    let table = app.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut x, _), (mut o, _)) = app.two_seated(&table).await;
    let said = say(&mut x, &mut o, "buy cheap gold").await;
    let key = speaker_key(&app, &table, &said["id"]).await;
    assert_eq!(key.len(), 64);

    // Bad input: nothing changed.
    for body in [
        json!({"player_key": "xyz", "reason": "spam"}),
        json!({"player_key": key, "reason": ""}),
        json!({"player_key": key, "reason": "spam", "minutes": 0}),
        json!({"player_key": key}),
        json!({"player_key": key, "reason": "spam", "extra": 1}),
    ] {
        let (status, answer) = admin(
            &app,
            Method::POST,
            "/api/admin/mutes",
            Some(ADMIN_TOKEN),
            Some(body.clone()),
        )
        .await;
        assert_eq!(status, 400, "{body}: {answer}");
    }
    let (status, answer) = admin(&app, Method::DELETE, "/api/admin/mutes/nothex", Some(ADMIN_TOKEN), None).await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (400, Some("bad_player_key"))
    );
    let (status, answer) = admin(
        &app,
        Method::DELETE,
        &format!("/api/admin/mutes/{key}"),
        Some(ADMIN_TOKEN),
        None,
    )
    .await;
    assert_eq!((status, answer["error"]["code"].as_str()), (404, Some("not_muted")));
    say(&mut x, &mut o, "still free to talk").await;

    let muted = ok(
        &app,
        Method::POST,
        "/api/admin/mutes",
        Some(json!({"player_key": key.to_uppercase(), "reason": "spam", "minutes": 30})),
    )
    .await;
    assert_eq!(muted["player_key"], key.as_str());
    assert!(muted["until"].is_string(), "{muted}");
    // Told at once (every node hears of it and tells its tables).
    let told = x.until("muted").await;
    assert_eq!(told["reason"], "spam");
    assert_eq!(told["until"], muted["until"]);
    x.send(json!({"type": "chat", "text": "more gold", "ref": 5})).await;
    let refused = x.expect_error("chat_muted").await;
    assert_eq!(refused["ref"], 5);
    assert!(
        refused["message"].as_str().is_some_and(|m| m.contains("spam")),
        "{refused}"
    );
    assert!(
        o.sync().await.iter().all(|m| m["type"] != "chat"),
        "others never receive it"
    );
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM chat_messages WHERE text = 'more gold'")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(stored, 0);
    // The other player is not muted.
    say(&mut o, &mut x, "hm").await;

    let lifted = ok(&app, Method::DELETE, &format!("/api/admin/mutes/{key}"), None).await;
    assert_eq!(lifted["unmuted"], true);
    x.until("unmuted").await;
    say(&mut x, &mut o, "sorry").await;
    let recorded: Vec<String> = actions(&app).await.into_iter().map(|action| action.2).collect();
    assert_eq!(recorded, ["mute", "unmute"]);
    assert!(actions(&app).await.iter().all(|action| action.0 == "Mod Maja"));
}

#[tokio::test]
async fn a_reported_line_is_stored_once_and_listed_for_the_operator() {
    let app = app().await;
    let table = app.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut x, _), (mut o, _)) = app.two_seated(&table).await;
    let said = say(&mut x, &mut o, "you are bad").await;
    let line = said["id"].as_i64().expect("a line id");

    o.send(json!({"type": "report", "line": line, "reason": "rude", "ref": "r1"}))
        .await;
    let reported = o.expect("reported").await;
    assert_eq!(
        (reported["line"].as_i64(), &reported["again"], &reported["ref"]),
        (Some(line), &json!(false), &json!("r1"))
    );
    // Once per reporter and line: again is acknowledged, nothing more stored.
    o.send(json!({"type": "report", "line": line})).await;
    assert_eq!(o.expect("reported").await["again"], true);
    // A spectator reads the chat too, and may report it.
    let mut spectator = app.client(&table).await;
    spectator.send(json!({"type": "report", "line": line})).await;
    spectator.until("reported").await;
    // Refused: an unknown line, one's own line, a reason too long, a line id of the wrong kind.
    o.send(json!({"type": "report", "line": line + 1000})).await;
    o.expect_error("no_such_line").await;
    x.send(json!({"type": "report", "line": line})).await;
    x.expect_error("no_such_line").await;
    o.send(json!({"type": "report", "line": line, "reason": "x".repeat(201)}))
        .await;
    o.expect_error("bad_report").await;
    o.send(json!({"type": "report", "line": "one"})).await;
    o.expect_error("bad_message").await;
    assert!(
        x.sync().await.iter().all(|m| m["type"] != "reported"),
        "only the reporter is told"
    );

    let reports = ok(&app, Method::GET, "/api/admin/reports", None).await;
    let reports = reports["reports"].as_array().expect("reports");
    assert_eq!(reports.len(), 2, "{reports:?}");
    let first = &reports[1];
    assert_eq!(first["table"], table.as_str());
    assert_eq!(first["reason"], "rude");
    assert_eq!(first["line"]["id"].as_i64(), Some(line));
    assert_eq!(first["line"]["text"], "you are bad");
    assert_eq!(first["line"]["name"], "X");
    assert_eq!(
        first["line"]["player_key"],
        speaker_key(&app, &table, &said["id"]).await.as_str()
    );
    assert_eq!(reports[0]["reason"], Value::Null, "newest first");
    let (status, _) = admin(&app, Method::GET, "/api/admin/reports?limit=0", Some(ADMIN_TOKEN), None).await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn the_operator_lists_tables_by_activity_and_reads_their_chat() {
    let app = app().await;
    let quiet = app.gomoku_table(json!({"seating": "chosen"})).await;
    let busy = app.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut x, _), (mut o, _)) = app.two_seated(&busy).await;
    let newest = app.gomoku_table(json!({})).await;
    // Activity after the newest table was made: the busy table comes first.
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let hello = say(&mut x, &mut o, "hello").await;
    say(&mut o, &mut x, "hi").await;

    let listed = ok(&app, Method::GET, "/api/admin/tables?order=activity&limit=10", None).await;
    let ids: Vec<&str> = listed["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|table| table["id"].as_str().expect("id"))
        .collect();
    assert_eq!(ids, [busy.as_str(), newest.as_str(), quiet.as_str()]);
    let first = &listed["tables"][0];
    assert_eq!(first["status"], "playing");
    assert_eq!(first["players"], json!(["X", "O"]));
    assert_eq!(first["served_here"], true);
    assert_eq!(first["spectators"], 0);
    assert!(
        first["last_chat_at"].is_string() && first["active_at"] == first["last_chat_at"],
        "{first}"
    );
    assert_eq!(
        ok(&app, Method::GET, "/api/admin/tables?limit=1", None).await["tables"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    for query in ["order=name", "limit=0", "limit=100000", "limit=many"] {
        let (status, _) = admin(
            &app,
            Method::GET,
            &format!("/api/admin/tables?{query}"),
            Some(ADMIN_TOKEN),
            None,
        )
        .await;
        assert_eq!(status, 400, "{query}");
    }

    let chat = ok(&app, Method::GET, &format!("/api/admin/tables/{busy}/chat"), None).await;
    let lines = chat["lines"].as_array().expect("lines");
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["id"], hello["id"]);
    assert_eq!(
        (&lines[0]["seat"], &lines[0]["name"], &lines[0]["text"]),
        (&json!(0), &json!("X"), &json!("hello"))
    );
    assert_eq!(lines[0]["team"], Value::Null);
    assert!(lines[0]["sent_at"].is_string());
    assert_ne!(lines[0]["player_key"], lines[1]["player_key"]);
    let (status, answer) = admin(
        &app,
        Method::GET,
        "/api/admin/tables/nosuchtb/chat",
        Some(ADMIN_TOKEN),
        None,
    )
    .await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (404, Some("table_not_found"))
    );
    assert!(actions(&app).await.is_empty(), "reading is not an action");
}

#[tokio::test]
async fn the_operator_reads_team_lines_too() {
    let app = app().await;
    let (table, mut players, _spectator) = app.bughouse_match().await;
    players[0].send(json!({"type": "team_chat", "text": "need N"})).await;
    let line = players[3].until("team_chat").await;
    let chat = ok(&app, Method::GET, &format!("/api/admin/tables/{table}/chat"), None).await;
    let lines = chat["lines"].as_array().expect("lines");
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["id"], line["id"]);
    assert!(lines[0]["team"].is_number(), "a team line says its team");
    // An opponent cannot report a team line they never read; a partner can.
    players[1].send(json!({"type": "report", "line": line["id"]})).await;
    players[1].until("error").await;
    players[3].send(json!({"type": "report", "line": line["id"]})).await;
    players[3].until("reported").await;
}

/// Node `name` of two on one database, with the admin token.
fn node(name: &'static str) -> impl FnOnce(&mut spelbord::config::Settings) {
    move |settings| {
        settings.cluster.node_name = name.into();
        settings.cluster.lease_seconds = 3;
        settings.cluster.handoff_wait_ms = 5_000;
        settings.admin.token = ADMIN_TOKEN.into();
    }
}

#[tokio::test]
async fn with_two_nodes_a_mute_reaches_every_node_and_a_close_reaches_the_table() {
    let a = spawn_app_with(node("a")).await;
    let b = a.another_node(node("b")).await;
    let table = a.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut x, _), (mut o, _)) = a.two_seated(&table).await;
    let said = say(&mut x, &mut o, "spam spam").await;
    // Read and muted through the node that does not serve the table.
    let key = speaker_key(&b, &table, &said["id"]).await;
    let (status, answer) = admin(
        &b,
        Method::POST,
        "/api/admin/mutes",
        Some(ADMIN_TOKEN),
        Some(json!({"player_key": key, "reason": "spam"})),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let told = x.until("muted").await;
    assert_eq!((told["reason"].as_str(), &told["until"]), (Some("spam"), &Value::Null));
    x.send(json!({"type": "chat", "text": "more"})).await;
    x.expect_error("chat_muted").await;
    // b does not serve the table; its list says so.
    let listed = ok(&b, Method::GET, "/api/admin/tables", None).await;
    assert_eq!(listed["tables"][0]["served_here"], false);
    // A close sent to b: a hands the table over (its sockets move with 1012), b closes it.
    let (status, answer) = admin(
        &b,
        Method::POST,
        &format!("/api/admin/tables/{table}/close"),
        Some(ADMIN_TOKEN),
        None,
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["game_aborted"], true);
    let mut ws = x.into_stream();
    assert_eq!(close_code(&mut ws).await, Some(1012));
    for app in [&a, &b] {
        let api = reqwest::get(app.http(&format!("/api/tables/{table}")))
            .await
            .expect("answer");
        assert_eq!(api.status(), 410);
    }
    let recorded = actions(&a).await;
    assert_eq!(
        recorded.iter().map(|action| action.2.as_str()).collect::<Vec<_>>(),
        ["mute", "close_table"]
    );
}
