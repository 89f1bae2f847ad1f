//! `GET /metrics` over real sockets: a short game shows up in the counts, and only those
//! allowed may read them.
//!
//! The tests of this file share one process, and so one metrics recorder (see
//! `src/metrics.rs`): each reads a count before and after what it does and looks at the
//! difference, never at an absolute number. Only `a_short_game_is_counted` plays moves,
//! so it may expect the exact number of its own.

mod common;

use std::time::Duration;

use common::{TestApp, spawn_app, spawn_app_with};
use serde_json::{Value, json};

/// The metrics text, read from a loopback address as the tests' clients are.
async fn scrape(app: &TestApp) -> String {
    let response = reqwest::get(app.http("/metrics")).await.expect("GET /metrics");
    assert_eq!(response.status(), 200);
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(content_type.starts_with("text/plain; version=0.0.4"), "{content_type}");
    response.text().await.expect("a text body")
}

/// The value of the series `name` whose labels include every pair of `labels`, summed
/// over the series that match (0 when none does: a counter not yet touched is absent).
fn value(text: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let (series, number) = line.rsplit_once(' ')?;
            let (series_name, series_labels) = match series.split_once('{') {
                Some((series_name, rest)) => (series_name, rest.trim_end_matches('}')),
                None => (series, ""),
            };
            let wanted = series_name == name
                && labels
                    .iter()
                    .all(|(key, val)| series_labels.split(',').any(|pair| pair == format!("{key}=\"{val}\"")));
            wanted.then(|| number.parse::<f64>().ok()).flatten()
        })
        .sum()
}

/// Scrapes until `done` holds for the text (a connection's end is counted by its task a
/// moment after the client sees it), failing after a generous bound.
async fn scrape_until(app: &TestApp, what: &str, done: impl Fn(&str) -> bool) -> String {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let text = scrape(app).await;
        if done(&text) {
            return text;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what} never showed in:\n{text}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_short_game_is_counted() {
    let app = spawn_app().await;
    let before = scrape(&app).await;
    let moves = |text: &str| value(text, "spelbord_moves_total", &[("game", "gomoku")]);
    let stored = |text: &str| {
        value(
            text,
            "spelbord_move_seconds_count",
            &[("game", "gomoku"), ("stage", "stored")],
        )
    };
    let broadcast = |text: &str| {
        value(
            text,
            "spelbord_move_seconds_count",
            &[("game", "gomoku"), ("stage", "broadcast")],
        )
    };
    let writes = |text: &str| value(text, "spelbord_db_write_seconds_count", &[("op", "move_batch")]);
    let batched = |text: &str| value(text, "spelbord_move_batch_moves_sum", &[]);
    let closes = |text: &str| value(text, "spelbord_ws_closes_total", &[]);

    let table = app.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut x, _), (mut o, _)) = app.two_seated(&table).await;
    x.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    x.until("moved").await;
    o.until("moved").await;
    o.send(json!({"type": "move", "move": {"at": "H9"}})).await;
    x.until("moved").await;
    o.until("moved").await;

    let during = scrape(&app).await;
    assert_eq!(
        moves(&during) - moves(&before),
        2.0,
        "both moves are counted:\n{during}"
    );
    assert!(stored(&during) - stored(&before) >= 2.0, "{during}");
    assert!(broadcast(&during) - broadcast(&before) >= 2.0, "{during}");
    assert!(writes(&during) - writes(&before) >= 1.0, "{during}");
    assert_eq!(batched(&during) - batched(&before), 2.0, "{during}");
    assert!(value(&during, "spelbord_ws_connections", &[]) >= 2.0, "{during}");
    assert!(
        value(&during, "spelbord_tables", &[("game", "gomoku"), ("status", "playing")]) >= 1.0,
        "{during}"
    );
    assert!(
        value(&during, "spelbord_db_pool_max_connections", &[]) >= 1.0,
        "{during}"
    );
    assert!(
        during.contains("# TYPE spelbord_move_seconds histogram"),
        "latencies are histograms with buckets:\n{during}"
    );
    assert!(during.contains("# HELP spelbord_moves_total"), "{during}");

    // X resigns: the game is over, and the two players leave.
    x.send(json!({"type": "resign"})).await;
    o.until("game_over").await;
    x.close().await;
    o.close().await;
    let after = scrape_until(&app, "two closed connections", |text| {
        closes(text) - closes(&before) >= 2.0
    })
    .await;
    assert_eq!(moves(&after) - moves(&before), 2.0, "a resignation is no move");
}

#[tokio::test]
async fn a_table_rebuilt_after_a_restart_is_counted() {
    let app = spawn_app().await;
    let table = app.gomoku_table(json!({})).await;
    let restores = |text: &str| value(text, "spelbord_table_restores_total", &[("game", "gomoku")]);
    let before = scrape(&app).await;
    let app = app.restart().await;
    // A waiting table is rebuilt when first asked for.
    app.snapshot(&table).await;
    let after = scrape(&app).await;
    assert!(restores(&after) - restores(&before) >= 1.0, "{after}");
}

#[tokio::test]
async fn a_refused_table_creation_is_counted() {
    let app = spawn_app_with(|settings| settings.limits.tables_per_minute = 1).await;
    let refusals = |text: &str| value(text, "spelbord_rate_limited_total", &[("limit", "table_creations")]);
    let before = scrape(&app).await;
    app.gomoku_table(json!({})).await;
    let refused = reqwest::Client::new()
        .post(app.http("/api/tables"))
        .json(&json!({"game": "gomoku"}))
        .send()
        .await
        .expect("POST /api/tables");
    assert_eq!(refused.status(), 429);
    let after = scrape(&app).await;
    assert!(refusals(&after) - refusals(&before) >= 1.0, "{after}");
}

/// `GET /metrics` as a proxy on this host would pass on a remote client's request, with
/// `token` as a bearer token if given.
async fn proxied_scrape(app: &TestApp, token: Option<&str>) -> reqwest::Response {
    let request = reqwest::Client::new()
        .get(app.http("/metrics"))
        .header("X-Forwarded-For", "203.0.113.7");
    let request = match token {
        Some(token) => request.bearer_auth(token),
        None => request,
    };
    request.send().await.expect("GET /metrics")
}

#[tokio::test]
async fn a_request_through_a_proxy_needs_the_token() {
    let app = spawn_app_with(|settings| settings.metrics.token = "scraper-secret".into()).await;
    // A proxy on this host forwards someone's request: it is not a local one.
    let proxied = proxied_scrape(&app, None).await;
    assert_eq!(proxied.status(), 403);
    let body: Value = proxied.json().await.expect("a JSON error");
    assert_eq!(body["error"]["code"], "forbidden");
    assert_eq!(proxied_scrape(&app, Some("guess")).await.status(), 403);
    let with_token = proxied_scrape(&app, Some("scraper-secret")).await;
    assert_eq!(with_token.status(), 200);
    assert!(with_token.text().await.expect("text").contains("spelbord_"));
}

#[tokio::test]
async fn disabled_metrics_are_not_found() {
    let app = spawn_app_with(|settings| settings.metrics.enabled = false).await;
    let response = reqwest::get(app.http("/metrics")).await.expect("GET /metrics");
    assert_eq!(response.status(), 404);
    let body: Value = response.json().await.expect("a JSON error");
    assert_eq!(body["error"]["code"], "not_found");
}
