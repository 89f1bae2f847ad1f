//! The shipped Grafana dashboard (`deploy/grafana/spelbord.json`) and Prometheus alerts
//! (`deploy/prometheus/alerts.yml`) against what `GET /metrics` exports (issue 34).
//!
//! A real server plays a little (a game against a bot, a move of a person's, a restart
//! that rebuilds the table) so that every metric has a series; then every `spelbord_*`
//! name in the dashboard's JSON and in the alerts' expressions (less `_bucket`, `_sum`,
//! `_count`) must be one the scrape holds, and each covers what the issue asks of it.
//!
//! The alerts are also checked by `promtool check rules` (from Debian's `prometheus`
//! package). Without `promtool` that part says so and passes, so that `cargo test` works
//! on a machine without it; with `CI=true` (as `.ci/run` runs, which installs it) it fails.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{TestApp, spawn_app_with};
use serde_json::{Value, json};

fn repo_file(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Every `spelbord_*` metric name in `text`.
fn metric_names(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("spelbord_") {
        let before = text.len() - rest.len() + at;
        let preceded = text[..before]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        let name: String = rest[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        rest = &rest[at + name.len()..];
        if !preceded {
            names.insert(name);
        }
    }
    names
}

/// A series name without a histogram's suffix (`_bucket`, `_sum`, `_count`).
fn family(name: &str) -> &str {
    ["_bucket", "_sum", "_count"]
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .unwrap_or(name)
}

/// The families of the series a scrape holds (sample lines only: a `# HELP` alone is no
/// series).
fn exported(scrape: &str) -> BTreeSet<String> {
    scrape
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .filter_map(|line| line.split(['{', ' ']).next())
        .map(|name| family(name).to_owned())
        .collect()
}

/// Every string in a JSON document (the dashboard's queries, its variables' queries).
fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => out.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|item| strings(item, out)),
        Value::Object(fields) => fields.values().for_each(|field| strings(field, out)),
        _ => {}
    }
}

/// The dashboard's metric families, and the number of its queries.
fn dashboard_metrics() -> (BTreeSet<String>, usize) {
    let path = repo_file("deploy/grafana/spelbord.json");
    let text = std::fs::read_to_string(&path).expect("the dashboard");
    let dashboard: Value = serde_json::from_str(&text).expect("the dashboard is JSON");
    assert!(
        dashboard["title"].is_string() && dashboard["uid"].is_string(),
        "a titled dashboard"
    );
    let panels = dashboard["panels"].as_array().expect("panels");
    let mut queries = 0;
    for panel in panels {
        if panel["type"] == "row" {
            continue;
        }
        let targets = panel["targets"].as_array().map(Vec::as_slice).unwrap_or_default();
        assert!(!targets.is_empty(), "a panel without a query: {}", panel["title"]);
        for target in targets {
            let expr = target["expr"].as_str().unwrap_or_default();
            assert!(!expr.is_empty(), "a query without an expression in {}", panel["title"]);
            queries += 1;
        }
    }
    let mut texts = Vec::new();
    strings(&dashboard, &mut texts);
    let names = texts
        .iter()
        .flat_map(|text| metric_names(text))
        .map(|name| family(&name).to_owned());
    (names.collect(), queries)
}

/// The alerts' rules as (name, expression), read textually: each `- alert:` and the
/// `expr:` after it, on one line or as an indented block (`expr: |`). Comments are skipped.
fn alert_rules() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(repo_file("deploy/prometheus/alerts.yml")).expect("the alerts");
    let mut rules: Vec<(String, String)> = Vec::new();
    let mut lines = text
        .lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if let Some(name) = trimmed.strip_prefix("- alert:") {
            rules.push((name.trim().to_owned(), String::new()));
        } else if let Some(expr) = trimmed.strip_prefix("expr:") {
            let rule = rules.last_mut().expect("an expr belongs to an alert");
            let expr = expr.trim();
            if expr.starts_with(['|', '>']) {
                let indent = line.len() - trimmed.len();
                while let Some(next) =
                    lines.next_if(|next| next.trim().is_empty() || next.len() - next.trim_start().len() > indent)
                {
                    rule.1.push_str(next.trim());
                    rule.1.push('\n');
                }
            } else {
                rule.1 = expr.to_owned();
            }
        }
    }
    for (name, expr) in &rules {
        assert!(!expr.trim().is_empty(), "the alert {name} has no expression");
    }
    rules
}

/// `/metrics` after some play: a game against a bot (person's and bot's moves, the group
/// commit, a bot search), then a restart that rebuilds the table in play.
async fn scrape_after_play() -> String {
    let app = spawn_app_with(|settings| {
        // The bot answers at once.
        settings.bots.easy_ms = 20;
    })
    .await;
    let created = app
        .create_table(json!({"game": "gomoku", "settings": {"seating": "chosen", "bots": {"1": "easy"}}}))
        .await;
    let table = created["id"].as_str().expect("an id").to_owned();
    let mut person = app.client(&table).await;
    person.hello().await;
    person.sit(0, "Person").await;
    person.until("game_started").await;
    person.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    // The person's move, then the bot's.
    let mine = person.until("moved").await;
    assert_eq!(mine["seat"], 0, "{mine}");
    let bots = person.until("moved").await;
    assert_eq!(bots["seat"], 1, "{bots}");
    person.close().await;
    // A restart rebuilds the table in play (spelbord_table_restores_total).
    let app = app.restart().await;
    scrape_until(&app, |text| {
        [
            "spelbord_table_restores_total",
            "spelbord_leases_held",
            "spelbord_ws_closes_total",
        ]
        .iter()
        .all(|name| text.contains(name))
    })
    .await
}

/// Scrapes until `done` holds (a close is counted by its task a moment after the client
/// sees it; the leases are read at the node's first renewal).
async fn scrape_until(app: &TestApp, done: impl Fn(&str) -> bool) -> String {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    loop {
        let response = reqwest::get(app.http("/metrics")).await.expect("GET /metrics");
        assert_eq!(response.status(), 200);
        let text = response.text().await.expect("the metrics");
        if done(&text) || tokio::time::Instant::now() > deadline {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The families in `used` the scrape lacks.
fn missing(used: &BTreeSet<String>, exported: &BTreeSet<String>) -> Vec<String> {
    used.iter().filter(|name| !exported.contains(*name)).cloned().collect()
}

#[tokio::test]
async fn every_metric_the_dashboard_and_the_alerts_use_is_exported() {
    let scrape = scrape_after_play().await;
    let exported = exported(&scrape);

    let (dashboard, queries) = dashboard_metrics();
    assert!(queries >= 20, "the dashboard has {queries} queries");
    let absent = missing(&dashboard, &exported);
    assert!(
        absent.is_empty(),
        "the dashboard uses metrics /metrics does not export: {absent:?}\n{scrape}"
    );
    // What the issue asks the dashboard to show.
    for wanted in [
        "spelbord_tables",
        "spelbord_ws_connections",
        "spelbord_connections",
        "spelbord_moves_total",
        "spelbord_move_seconds",
        "spelbord_move_batch_moves",
        "spelbord_db_write_seconds",
        "spelbord_bot_think_seconds",
        "spelbord_db_errors_total",
        "spelbord_leases_held",
        "spelbord_lease_takeovers_total",
    ] {
        assert!(dashboard.contains(wanted), "the dashboard shows {wanted}");
    }

    let rules = alert_rules();
    let mut alerted = BTreeSet::new();
    for (name, expr) in &rules {
        let names = metric_names(expr);
        let absent = missing(&names.iter().map(|n| family(n).to_owned()).collect(), &exported);
        assert!(
            absent.is_empty(),
            "the alert {name} uses metrics /metrics does not export: {absent:?}"
        );
        alerted.extend(names.into_iter().map(|n| (name.clone(), family(&n).to_owned())));
    }
    let alerts_on = |metric: &str| alerted.iter().any(|(_, used)| used == metric);
    let names: Vec<&str> = rules.iter().map(|(name, _)| name.as_str()).collect();
    // What the issue asks the alerts to watch.
    for wanted in [
        "SpelbordNoNodeHealthy",
        "SpelbordMoveLatencyHigh",
        "SpelbordDatabaseUnavailable",
        "SpelbordBotSearchesLate",
        "SpelbordLeaseTakeoversRising",
        "SpelbordConnectionsNearLimit",
        "SpelbordDatabaseDiskNearFull",
    ] {
        assert!(names.contains(&wanted), "an alert {wanted} among {names:?}");
    }
    for metric in [
        "spelbord_move_seconds",
        "spelbord_db_errors_total",
        "spelbord_bot_searches_total",
        "spelbord_lease_takeovers_total",
        "spelbord_connections_max",
    ] {
        assert!(alerts_on(metric), "an alert watches {metric}");
    }
}

#[test]
fn metric_names_are_found_whole_and_histograms_by_family() {
    let names = metric_names(
        "histogram_quantile(0.99, rate(spelbord_move_seconds_bucket[5m])) / my_spelbord_x + spelbord_tables{a=\"spelbord_no\"}",
    );
    let families: BTreeSet<&str> = names.iter().map(|name| family(name)).collect();
    assert_eq!(
        families,
        BTreeSet::from(["spelbord_move_seconds", "spelbord_tables", "spelbord_no"])
    );
    let scrape =
        "# HELP spelbord_only_described x\nspelbord_move_seconds_count{game=\"gomoku\"} 3\nspelbord_ws_connections 0\n";
    assert_eq!(
        exported(scrape),
        BTreeSet::from(["spelbord_move_seconds".to_owned(), "spelbord_ws_connections".to_owned()])
    );
}

#[test]
fn promtool_accepts_the_alerts() {
    let rules = repo_file("deploy/prometheus/alerts.yml");
    let output = match std::process::Command::new("promtool")
        .arg("check")
        .arg("rules")
        .arg(&rules)
        .output()
    {
        Ok(output) => output,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            if std::env::var("CI").is_ok_and(|ci| ci == "true") {
                panic!("CI must check the alerts with promtool, but it is not installed (apt-get install prometheus)");
            }
            // Straight to stderr, past the test harness's capture: a skip must be seen.
            eprintln!("skipped `promtool check rules`: promtool is not installed (with CI=true this fails)");
            return;
        }
        Err(err) => panic!("running promtool: {err}"),
    };
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "promtool check rules failed:\n{said}");
    let count = alert_rules().len();
    assert!(
        said.contains(&format!("SUCCESS: {count} rules found")),
        "promtool found the {count} rules read here:\n{said}"
    );
}
