//! The REST API against the real server and a real database: creating and reading tables,
//! the errors that name their field, and the health check.

mod common;

use common::spawn_app;
use serde_json::{Value, json};
use spelbord::identity::is_table_id;

async fn post_raw(app: &common::TestApp, body: &str) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(app.http("/api/tables"))
        .header("content-type", "application/json")
        .body(body.to_owned())
        .send()
        .await
        .expect("POST");
    let status = response.status().as_u16();
    (status, response.json().await.expect("a JSON body"))
}

async fn get(app: &common::TestApp, path: &str) -> (u16, Value) {
    let response = reqwest::get(app.http(path)).await.expect("GET");
    let status = response.status().as_u16();
    (status, response.json().await.expect("a JSON body"))
}

#[tokio::test]
async fn healthz_reports_the_database() {
    let app = spawn_app().await;
    let (status, body) = get(&app, "/healthz").await;
    assert_eq!(status, 200);
    assert_eq!(body["status"], "ok");
    assert_eq!(body["database"], "ok");
}

#[tokio::test]
async fn create_answers_201_with_a_shareable_link_and_stores_the_table() {
    let app = spawn_app().await;
    let created = app
        .create_table(json!({"game": "gomoku", "settings": {"board_size": 19, "variant": "exact5"}}))
        .await;
    let id = created["id"].as_str().expect("id");
    assert!(is_table_id(id), "short URL-safe id: {id}");
    assert_eq!(created["url"], format!("http://{}/t/{id}", app.addr));
    assert_eq!(created["websocket"], format!("ws://{}/ws/tables/{id}", app.addr));
    assert_eq!(created["table"]["status"], "waiting");

    let (game, settings): (String, Value) = sqlx::query_as("SELECT game, settings FROM tables WHERE id = $1")
        .bind(id)
        .fetch_one(&app.pool)
        .await
        .expect("the table row");
    assert_eq!(game, "gomoku");
    assert_eq!(
        settings,
        json!({
            "variant": "exact5", "board_size": 19, "opening": "center", "seating": "random",
            "time_control": {"kind": "none"}, "grace_seconds": 60, "on_absence": "loss", "bots": {},
            "series": "single", "next_first": "alternate", "series_pause_seconds": 10,
            "rated": false, "undo": false, "listed": false
        })
    );
}

#[tokio::test]
async fn ids_differ_between_tables() {
    let app = spawn_app().await;
    let a = app.gomoku_table(json!({})).await;
    let b = app.gomoku_table(json!({})).await;
    assert_ne!(a, b);
}

#[tokio::test]
async fn get_returns_the_public_snapshot() {
    let app = spawn_app().await;
    let id = app.gomoku_table(json!({"opening": "free"})).await;
    let (status, table) = get(&app, &format!("/api/tables/{id}")).await;
    assert_eq!(status, 200);
    assert_eq!(table["id"], id.as_str());
    assert_eq!(table["game"], "gomoku");
    assert_eq!(table["settings"]["opening"], "free");
    assert_eq!(table["status"], "waiting");
    assert_eq!(table["spectators"], 0);
    assert_eq!(table["result"], Value::Null);
    let seats = table["seats"].as_array().expect("seats");
    assert_eq!(seats.len(), 2);
    assert_eq!(seats[0], json!({"seat": 0, "role": "X", "player": null}));
    assert_eq!(table["state"]["board"].as_array().map(Vec::len), Some(15));
}

#[tokio::test]
async fn unknown_table_is_404_with_a_json_error() {
    let app = spawn_app().await;
    let (status, body) = get(&app, "/api/tables/nosuchid").await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["code"], "table_not_found");
    let response = reqwest::get(app.http("/t/nosuchid")).await.expect("GET");
    assert_eq!(response.status().as_u16(), 404);
}

#[tokio::test]
async fn bad_requests_are_400_and_name_the_field() {
    let app = spawn_app().await;
    let cases: &[(&str, &str, Option<&str>)] = &[
        ("{\"game\": \"gomoku\",", "malformed_json", None),
        ("[]", "bad_request", None),
        ("{}", "bad_request", Some("game")),
        ("{\"game\": 7}", "bad_request", Some("game")),
        ("{\"game\": \"chess960\"}", "bad_setting", Some("game")),
        (
            "{\"game\": \"gomoku\", \"colour\": \"red\"}",
            "bad_request",
            Some("colour"),
        ),
        (
            "{\"game\": \"gomoku\", \"settings\": 5}",
            "bad_setting",
            Some("settings"),
        ),
        (
            "{\"game\": \"gomoku\", \"settings\": {\"board_size\": 17}}",
            "bad_setting",
            Some("settings.board_size"),
        ),
        (
            "{\"game\": \"gomoku\", \"settings\": {\"board_size\": \"big\"}}",
            "bad_setting",
            Some("settings.board_size"),
        ),
        (
            "{\"game\": \"gomoku\", \"settings\": {\"variant\": \"renju\"}}",
            "bad_setting",
            Some("settings.variant"),
        ),
        (
            "{\"game\": \"gomoku\", \"settings\": {\"opening\": \"corner\"}}",
            "bad_setting",
            Some("settings.opening"),
        ),
        (
            "{\"game\": \"gomoku\", \"settings\": {\"seating\": \"host\"}}",
            "bad_setting",
            Some("settings.seating"),
        ),
        (
            "{\"game\": \"gomoku\", \"settings\": {\"takeback\": true}}",
            "bad_setting",
            Some("settings.takeback"),
        ),
        (
            r#"{"game": "gomoku", "settings": {"time_control": {"kind": "sudden_death", "base_seconds": 0}}}"#,
            "bad_setting",
            Some("settings.time_control.base_seconds"),
        ),
        (
            r#"{"game": "gomoku", "settings": {"time_control": {"kind": "per_move", "seconds": -30}}}"#,
            "bad_setting",
            Some("settings.time_control.seconds"),
        ),
    ];
    for (body, code, field) in cases {
        let (status, answer) = post_raw(&app, body).await;
        assert_eq!(status, 400, "{body} -> {answer}");
        assert_eq!(answer["error"]["code"], *code, "{body} -> {answer}");
        assert_eq!(answer["error"]["field"].as_str(), *field, "{body} -> {answer}");
        // Every refusal reads as a sentence, setting errors included.
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        let starts_well = message.starts_with(|c: char| c.is_uppercase() || c == '"');
        assert!(starts_well && message.ends_with('.'), "{body} -> {answer}");
    }
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM tables")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(count, 0, "no refused request stored a table");
}

#[tokio::test]
async fn the_table_page_is_served() {
    let app = spawn_app().await;
    let id = app.gomoku_table(json!({})).await;
    let response = reqwest::get(app.http(&format!("/t/{id}"))).await.expect("GET");
    assert_eq!(response.status().as_u16(), 200);
    let page = response.text().await.expect("text");
    assert!(page.contains("<html") || page.contains("<!doctype html"), "{page}");
}

#[tokio::test]
async fn links_follow_a_trusted_tls_proxy() {
    let app = common::spawn_app_with(|settings| {
        settings.server.trusted_proxies = spelbord::http::client::TrustedProxies::parse(&["127.0.0.1"]).unwrap();
    })
    .await;
    let created: Value = reqwest::Client::new()
        .post(app.http("/api/tables"))
        .header("host", "play.example.org")
        .header("x-forwarded-proto", "https")
        .json(&json!({"game": "gomoku"}))
        .send()
        .await
        .expect("POST")
        .json()
        .await
        .expect("JSON");
    let id = created["id"].as_str().expect("id");
    assert_eq!(created["url"], format!("https://play.example.org/t/{id}"));
    assert_eq!(created["websocket"], format!("wss://play.example.org/ws/tables/{id}"));
}

#[tokio::test]
async fn creating_too_many_tables_from_one_address_is_refused_for_a_while() {
    let app = common::spawn_app_with(|settings| settings.limits.tables_per_minute = 3).await;
    for _ in 0..3 {
        app.gomoku_table(json!({})).await;
    }
    let (status, body) = post_raw(&app, r#"{"game": "gomoku"}"#).await;
    assert_eq!(status, 429);
    assert_eq!(body["error"]["code"], "rate_limited");
}
