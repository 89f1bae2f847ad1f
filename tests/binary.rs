//! The real `spelbord` binary, as the README runs it: with no `DATABASE_URL` it starts its
//! own PostgreSQL cluster, serves, and on SIGTERM shuts down and stops the cluster; with
//! neither a URL nor PostgreSQL binaries it exits with one clear sentence.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const BINARY: &str = env!("CARGO_BIN_EXE_spelbord");
/// A guard against hangs while the server initialises a cluster (not a speed measure).
const STARTUP_LIMIT: Duration = Duration::from_secs(120);

/// A fresh folder the `postgres` user can reach (the cluster runs as that user when the
/// tests run as root). Removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        let dir = std::env::temp_dir().join(format!("spelbord-binary-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("create a scratch folder");
        let mut permissions = std::fs::metadata(&dir).expect("metadata").permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
        std::fs::set_permissions(&dir, permissions).expect("chmod");
        Scratch(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn server(scratch: &Scratch) -> Command {
    let mut command = Command::new(BINARY);
    command
        .current_dir(scratch.path())
        .env_remove("DATABASE_URL")
        .env("PORT", "0")
        .env("APP__DATABASE__LOCAL_DIR", scratch.path().join("postgres"))
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

/// Reads the server's log until it says where it listens.
async fn listening_address(child: &mut Child) -> String {
    let stdout = child.stdout.take().expect("piped stdout");
    let mut lines = BufReader::new(stdout).lines();
    let find = async {
        while let Some(line) = lines.next_line().await.expect("read the log") {
            if let Some((_, addr)) = line.split_once("listening on ") {
                return addr.trim().to_owned();
            }
        }
        panic!("the server exited before listening");
    };
    let addr = tokio::time::timeout(STARTUP_LIMIT, find)
        .await
        .expect("the server starts");
    // Keep draining the log so the server never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    addr
}

#[tokio::test]
async fn without_database_url_the_server_runs_its_own_postgres_and_stops_it_on_sigterm() {
    let scratch = Scratch::new();
    let mut child = server(&scratch).spawn().expect("start the server");
    let base = listening_address(&mut child).await;

    let health: Value = reqwest::get(format!("{base}/healthz"))
        .await
        .expect("GET /healthz")
        .json()
        .await
        .expect("JSON");
    assert_eq!(health["database"], "ok");
    let created = reqwest::Client::new()
        .post(format!("{base}/api/tables"))
        .json(&json!({"game": "gomoku"}))
        .send()
        .await
        .expect("POST /api/tables");
    assert_eq!(created.status().as_u16(), 201);
    let pid_file = scratch.path().join("postgres").join("postmaster.pid");
    assert!(pid_file.exists(), "the private cluster runs in the configured folder");

    let pid = child.id().expect("the server's pid").to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().await.expect("kill");
    assert!(killed.success());
    let status = tokio::time::timeout(STARTUP_LIMIT, child.wait())
        .await
        .expect("the server stops after SIGTERM")
        .expect("exit status");
    assert!(status.success(), "clean exit: {status:?}");
    assert!(!pid_file.exists(), "the private cluster was stopped on shutdown");
}

#[tokio::test]
async fn without_url_or_binaries_it_exits_with_one_clear_sentence() {
    let scratch = Scratch::new();
    let empty_bin = scratch.path().join("no-postgres-here");
    std::fs::create_dir_all(&empty_bin).expect("create an empty folder");
    let output = server(&scratch)
        .env("APP__DATABASE__PG_BIN_DIR", &empty_bin)
        .output()
        .await
        .expect("run the server");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let message = stderr.lines().last().unwrap_or_default();
    assert!(message.contains("install PostgreSQL"), "{stderr}");
    assert!(message.contains("DATABASE_URL"), "{stderr}");
}
