//! A database outage, on a PostgreSQL cluster of this test's own (so that stopping it
//! disturbs no other test): a stored table that has left memory is `503 unavailable` while
//! the database is away — on the API, its page and its WebSocket — never a `404`, and is
//! found again when the database is back.

mod common;

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};
use spelbord::app::App;
use spelbord::config::Settings;
use spelbord::store::Store;
use spelbord::store::local_pg::LocalPostgres;
use sqlx::postgres::PgPoolOptions;
use tokio_tungstenite::tungstenite;

/// The longest a test waits for something that takes a fraction of it.
const PATIENCE: Duration = Duration::from_secs(60);

/// A private cluster in a fresh folder under the temporary directory, stopped and removed
/// when dropped.
struct OwnCluster {
    cluster: LocalPostgres,
    bin_dir: PathBuf,
    dir: PathBuf,
}

impl OwnCluster {
    async fn start() -> OwnCluster {
        let bin_dir = LocalPostgres::find_binaries(None).expect("PostgreSQL binaries for the tests");
        let dir = std::env::temp_dir().join(format!("spelbord-outage-{}", uuid::Uuid::new_v4().simple()));
        let cluster = LocalPostgres::ensure_running(&dir, &bin_dir)
            .await
            .expect("the test's own cluster starts");
        cluster.create_database("spelbord").await.expect("create the database");
        OwnCluster { cluster, bin_dir, dir }
    }

    async fn stop(&self) {
        self.cluster.stop().await.expect("stop the cluster");
    }

    async fn restart(&mut self) {
        self.cluster = LocalPostgres::ensure_running(&self.dir, &self.bin_dir)
            .await
            .expect("the cluster starts again");
    }
}

impl Drop for OwnCluster {
    fn drop(&mut self) {
        let cluster = self.cluster.clone();
        common::in_drop(async move {
            let _ = cluster.stop().await;
        });
        let _ = std::fs::remove_dir_all(&self.dir);
        let mut lock = self.dir.clone().into_os_string();
        lock.push(".lock");
        let _ = std::fs::remove_file(lock);
    }
}

async fn get(url: &str) -> (u16, String) {
    let response = reqwest::Client::builder()
        .timeout(PATIENCE)
        .build()
        .expect("a client")
        .get(url)
        .send()
        .await
        .expect("an answer");
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}

fn json_body(text: &str) -> Value {
    serde_json::from_str(text).expect("a JSON body")
}

#[tokio::test]
async fn a_stored_table_is_unavailable_not_missing_while_the_database_is_away() {
    let mut cluster = OwnCluster::start().await;
    let options = cluster.cluster.connect_options("spelbord");
    // A short wait for a connection, so that each request during the outage fails fast.
    let pool = PgPoolOptions::new()
        .max_connections(4)
        .acquire_timeout(Duration::from_secs(2))
        .connect_with(options)
        .await
        .expect("connect");
    let store = Store::new(pool);
    store.migrate().await.expect("migrate");
    let mut settings = Settings::defaults().expect("default settings");
    settings.server.host = "127.0.0.1".into();
    settings.server.port = 0;
    settings.limits.idle_table_seconds = 1;
    // Shorter than a failed lookup takes: a request being answered is not cut by it.
    settings.limits.request_read_timeout_ms = 500;
    let app = App::bind(settings, store).await.expect("bind");
    let addr = app.local_addr().expect("an address");
    let shutdown = app.shutdown_token();
    let served = tokio::spawn(app.run());
    let http = |path: &str| format!("http://{addr}{path}");

    let created: Value = reqwest::Client::new()
        .post(http("/api/tables"))
        .json(&json!({"game": "gomoku"}))
        .send()
        .await
        .expect("POST")
        .json()
        .await
        .expect("JSON");
    let id = created["id"].as_str().expect("an id").to_owned();
    // Nobody is at the table: it leaves memory after the idle second.
    tokio::time::timeout(PATIENCE, async {
        loop {
            let (_, health) = get(&http("/healthz")).await;
            if json_body(&health)["tables"] == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the idle table leaves memory");

    cluster.stop().await;
    let (status, body) = get(&http(&format!("/api/tables/{id}"))).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(json_body(&body)["error"]["code"], "unavailable");
    let (status, page) = get(&http(&format!("/t/{id}"))).await;
    assert_eq!(status, 503, "{page}");
    assert!(page.to_lowercase().contains("try again"), "{page}");
    let refused = tokio_tungstenite::connect_async(format!("ws://{addr}/ws/tables/{id}")).await;
    match refused {
        Err(tungstenite::Error::Http(response)) => assert_eq!(response.status().as_u16(), 503),
        other => panic!("the WebSocket is refused with 503: {:?}", other.map(|_| ())),
    }
    // Whether any table has an id cannot be known either.
    assert_eq!(get(&http("/api/tables/NoSuchId")).await.0, 503);

    cluster.restart().await;
    let found = tokio::time::timeout(PATIENCE, async {
        loop {
            match get(&http(&format!("/api/tables/{id}"))).await {
                (200, body) => return json_body(&body),
                (503, _) => tokio::time::sleep(Duration::from_millis(100)).await,
                (status, body) => panic!("{status}: {body}"),
            }
        }
    })
    .await
    .expect("the table is found again");
    assert_eq!(found["status"], "waiting");
    let (status, body) = get(&http("/api/tables/NoSuchId")).await;
    assert_eq!(
        (status, json_body(&body)["error"]["code"].clone()),
        (404, json!("table_not_found"))
    );

    shutdown.cancel();
    served.await.expect("the server task").expect("the server stops");
}
