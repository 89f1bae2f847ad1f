//! The browser client in real headless Chromium: starts the server on a free port with a
//! database of its own and runs the end-to-end suite `tests/e2e/run.mjs` against it (Node.js
//! with playwright-core driving the system's Chromium; see `tests/e2e/README.md`).
//!
//! Without Node.js, Chromium or the suite's `node_modules` the test says what is missing and
//! passes, so that `cargo test` works on a machine without them; with `CI=true` (as `.ci/run`
//! runs) it fails instead, so CI cannot skip it silently.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

/// A guard against a hung browser (the suite takes about six minutes here; it gives itself 15).
const SUITE_LIMIT: Duration = Duration::from_secs(17 * 60);

/// What the suite needs from the machine.
struct Tools {
    node: PathBuf,
    chromium: PathBuf,
}

/// The first file named `name` in a folder of `PATH`.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|file| file.is_file())
}

/// Finds Node.js, Chromium and the suite's packages, or says which are missing.
fn tools(suite: &Path) -> Result<Tools, Vec<String>> {
    let mut missing = Vec::new();
    let node = std::env::var_os("NODE")
        .map(PathBuf::from)
        .or_else(|| on_path("node"))
        .filter(|p| p.is_file());
    if node.is_none() {
        missing.push("Node.js (`apt-get install nodejs npm`, or NODE=/path/to/node)".to_owned());
    }
    let chromium = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .or_else(|| Some(PathBuf::from("/usr/bin/chromium")).filter(|p| p.is_file()))
        .or_else(|| on_path("chromium"))
        .or_else(|| on_path("chromium-browser"))
        .filter(|p| p.is_file());
    if chromium.is_none() {
        missing.push("Chromium (`apt-get install chromium`, or CHROMIUM=/path/to/chromium)".to_owned());
    }
    if !suite.join("node_modules/playwright-core/package.json").is_file() {
        missing.push(format!("the suite's packages (`npm ci` in {})", suite.display()));
    }
    match (node, chromium) {
        (Some(node), Some(chromium)) if missing.is_empty() => Ok(Tools { node, chromium }),
        _ => Err(missing),
    }
}

#[tokio::test]
async fn the_browser_client_plays_every_game_in_headless_chromium() {
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e");
    let tools = match tools(&suite) {
        Ok(tools) => tools,
        Err(missing) => {
            let missing = missing.join("; ");
            if std::env::var("CI").is_ok_and(|ci| ci == "true") {
                panic!("CI must run the browser tests, but this machine lacks: {missing}");
            }
            // Straight to stderr, past the test harness's capture: a skip must be seen.
            let _ = writeln!(
                std::io::stderr(),
                "skipped the browser tests: this machine lacks {missing} (with CI=true this fails)"
            );
            return;
        }
    };
    // A Gomocup engine for the engines scenario (scenarios/engines.mjs): `engine:fake`.
    let fake = common::gomocup_fake().display().to_string();
    let app = common::spawn_app_with(|settings| {
        let engine = serde_json::json!({
            "game": "gomoku", "protocol": "gomocup", "command": [fake, "random"],
            "move_ms": 200, "name": "Fake",
        });
        let engine = serde_json::from_value(engine).expect("an engine configuration");
        settings.bots.engines.insert("fake".to_owned(), engine);
    })
    .await;
    let artifacts = Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e");
    // The suite's progress goes straight to the terminal (not captured), so that CI's log
    // shows each scenario, its time and the measured latency.
    let mut suite_run = Command::new(&tools.node)
        .arg(suite.join("run.mjs"))
        .arg(app.http(""))
        .env("CHROMIUM", &tools.chromium)
        .env("E2E_ARTIFACTS", &artifacts)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start node");
    let status = tokio::time::timeout(SUITE_LIMIT, suite_run.wait())
        .await
        .expect("the browser suite ends within its limit")
        .expect("node runs");
    assert!(
        status.success(),
        "the browser suite failed ({status}); its output is above, screenshots in {}",
        artifacts.display()
    );
}
