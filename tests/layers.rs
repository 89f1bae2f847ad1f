//! The server's layers, as docs/architecture.md ("Layers") draws them, checked: no module
//! of a lower layer names a module of a higher one (`crate::…` anywhere in its files,
//! comments included, since a comment that names a higher layer is a dependency in waiting).
//! The games' rules and the bots are crates of their own, so Cargo keeps them below the
//! server by itself (`crates/spelbord-games` may not even name tokio, sqlx or axum: checked
//! here from its manifest).

use std::path::{Path, PathBuf};

/// Each lower part of `src/` and the server modules it must never name.
const RULES: &[(&str, &[&str])] = &[
    // Shared types and leaves: named by everyone, naming nothing of the server's above them.
    (
        "config",
        &[
            "app", "http", "ws", "lobby", "cluster", "table", "store", "records", "protocol", "metrics", "ratings",
        ],
    ),
    (
        "metrics.rs",
        &[
            "app", "http", "ws", "lobby", "cluster", "table", "store", "records", "protocol", "ratings", "config",
        ],
    ),
    (
        "identity.rs",
        &[
            "app", "http", "ws", "lobby", "cluster", "table", "store", "records", "protocol", "ratings",
        ],
    ),
    (
        "series.rs",
        &[
            "app", "http", "ws", "lobby", "cluster", "table", "store", "records", "protocol", "ratings",
        ],
    ),
    (
        "ratings",
        &[
            "app", "http", "ws", "lobby", "cluster", "table", "store", "records", "protocol",
        ],
    ),
    // Storage: below the tables and everything that serves them.
    (
        "store",
        &["app", "http", "ws", "lobby", "cluster", "table", "records", "protocol"],
    ),
    // The tables, and their messages (one layer: the protocol carries the table's clock and
    // move-list views, the table speaks the protocol).
    (
        "protocol.rs",
        &["app", "http", "ws", "lobby", "cluster", "store", "records"],
    ),
    ("table", &["app", "http", "ws", "lobby", "cluster", "records"]),
    // Above the tables, below the edge: stored games read back, the lobby, the node task.
    ("records", &["app", "http", "ws", "lobby", "cluster"]),
    ("lobby", &["app", "http", "ws", "cluster"]),
    ("cluster.rs", &["app", "http", "ws", "lobby"]),
    // The edge: the HTTP layer (routes, pages, the shared state its handlers take) below the
    // sockets, both below the application that builds and binds them.
    ("http", &["app", "ws"]),
    ("ws", &["app"]),
];

fn source_files(path: &Path, files: &mut Vec<PathBuf>) {
    if path.is_file() {
        files.push(path.to_path_buf());
        return;
    }
    let entries = std::fs::read_dir(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    for entry in entries {
        let entry = entry.expect("a directory entry");
        source_files(&entry.path(), files);
    }
}

/// Every `crate::name` in `text`, with its line number.
fn named_modules(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            found.push((number + 1, name));
        }
    }
    found
}

#[test]
fn no_lower_layer_names_a_higher_one() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut breaches = Vec::new();
    for (part, forbidden) in RULES {
        let mut files = Vec::new();
        source_files(&src.join(part), &mut files);
        assert!(!files.is_empty(), "src/{part} has no files: the rule names nothing");
        for file in files {
            let text = std::fs::read_to_string(&file).expect("a source file");
            for (line, name) in named_modules(&text) {
                if forbidden.contains(&name.as_str()) {
                    breaches.push(format!(
                        "{}:{line} names crate::{name}",
                        file.strip_prefix(&src).unwrap_or(&file).display()
                    ));
                }
            }
        }
    }
    assert!(
        breaches.is_empty(),
        "a lower layer names a higher one (docs/architecture.md, \"Layers\"):\n{}",
        breaches.join("\n")
    );
}

#[test]
fn the_rules_crate_needs_no_runtime_database_or_web_framework() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/spelbord-games/Cargo.toml");
    let text = std::fs::read_to_string(manifest).expect("the games crate's manifest");
    for crate_name in ["tokio", "sqlx", "axum", "hyper", "tower"] {
        let named = text
            .lines()
            .map(str::trim_start)
            .any(|line| line.starts_with(&format!("{crate_name} ")) || line.starts_with(&format!("{crate_name}=")));
        assert!(!named, "spelbord-games depends on {crate_name}");
    }
}

#[test]
fn the_check_sees_a_breach() {
    let found = named_modules("use crate::table::Tables; // see crate::http::x\nlet a = 1;");
    assert_eq!(found, [(1, "table".to_owned()), (1, "http".to_owned())]);
}
