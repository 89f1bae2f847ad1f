//! Migrations expand, then contract (docs/operations.md, "Mixed versions"): during a rolling
//! upgrade the first new node applies the new migrations while nodes of the release before
//! still serve, so no migration may take away what that binary uses. This test reads every
//! file in `migrations/` and fails on a statement that contracts the schema — drops or
//! renames something, changes a type, tightens or loosens a column's nullability, adds a
//! constraint or a column the old binary cannot fill — unless the migration is listed in
//! [`REVIEWED`] with the reason the binary before it is unharmed. And a binary finds its
//! database holding a migration it does not know (a newer binary applied it) and runs on,
//! while a known migration whose file changed is still refused.

mod common;

use std::path::Path;

use spelbord::store::{PoolSizes, Store};

/// Migrations that contract, each with its reason. Add one here only with a reason a
/// reviewer can check; otherwise split the change into an expanding migration now and a
/// contracting one a release later.
const REVIEWED: &[(&str, &str)] = &[
    (
        "0003_bot_seats.sql",
        "bots in seats: a seat and a game player without a player key. Shipped before several \
         nodes existed (0008), as a stop-the-world upgrade; the binary before could not read \
         such rows and never ran beside this one.",
    ),
    (
        "0021_engine_seats.sql",
        "widens the bot checks of seats and game players to admit `engine:NAME`: the old \
         binary never writes such a row; one it reads (a table with an engine seat, during a \
         rolling upgrade) is a seat it does not know, which its restore leaves free and its \
         records show without a fixed rating, as for any unknown bot.",
    ),
    (
        "0013_group_commit_batches.sql",
        "drops the moves' foreign key to games (the same migration adds the trigger that \
         deletes a game's moves): the binary before only wrote moves of games that exist and \
         never relied on the key's error, so it is unharmed.",
    ),
];

/// Phrases that contract a schema wherever they occur in a statement.
const CONTRACTING: &[&str] = &[
    "DROP TABLE",
    "DROP COLUMN",
    "DROP FUNCTION",
    "DROP PROCEDURE",
    "DROP TRIGGER",
    "DROP CONSTRAINT",
    "DROP VIEW",
    "DROP TYPE",
    "DROP SCHEMA",
    "DROP NOT NULL",
    "SET NOT NULL",
    "RENAME",
    "ADD CONSTRAINT",
    "TRUNCATE",
];

/// The file's SQL without comments and without the bodies of functions (`$$ … $$`), whose
/// statements run only when the function is called.
fn statements(sql: &str) -> Vec<String> {
    let without_comments: String = sql
        .lines()
        .map(|line| line.split("--").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    let mut outside = String::new();
    for (index, part) in without_comments.split("$$").enumerate() {
        if index % 2 == 0 {
            outside.push_str(part);
        } else {
            outside.push_str(" BODY ");
        }
    }
    outside
        .split(';')
        .map(|statement| {
            statement
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .to_uppercase()
        })
        .filter(|statement| !statement.is_empty())
        .collect()
}

/// What in `statement` contracts the schema, if anything.
fn contractions(statement: &str) -> Vec<String> {
    let mut found: Vec<String> = CONTRACTING
        .iter()
        .filter(|phrase| statement.contains(*phrase))
        .map(|phrase| (*phrase).to_owned())
        .collect();
    // `ALTER COLUMN c TYPE t` and `ALTER COLUMN c SET DATA TYPE t`.
    for (index, _) in statement.match_indices("ALTER COLUMN ") {
        let words: Vec<&str> = statement[index..].split_whitespace().skip(3).take(3).collect();
        if words.first() == Some(&"TYPE") || words.get(..3) == Some(&["SET", "DATA", "TYPE"][..]) {
            found.push("ALTER COLUMN … TYPE".to_owned());
        }
    }
    // A new column the binary before cannot fill: NOT NULL without a default.
    for clause in statement.split("ADD COLUMN ").skip(1) {
        let clause = clause.split(", ADD ").next().unwrap_or(clause);
        if clause.contains("NOT NULL") && !clause.contains("DEFAULT") {
            found.push("ADD COLUMN … NOT NULL without a default".to_owned());
        }
    }
    found
}

#[test]
fn every_migration_expands_or_says_why_the_binary_before_is_unharmed() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    let mut files: Vec<_> = std::fs::read_dir(&folder)
        .expect("the migrations folder")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "sql"))
        .collect();
    files.sort();
    assert!(files.len() >= 17, "the migrations are found: {files:?}");
    let mut unexplained = Vec::new();
    let mut contracting = Vec::new();
    for path in &files {
        let name = path.file_name().and_then(|name| name.to_str()).expect("a file name");
        let sql = std::fs::read_to_string(path).expect("a migration");
        let found: Vec<String> = statements(&sql).iter().flat_map(|s| contractions(s)).collect();
        if found.is_empty() {
            continue;
        }
        contracting.push(name.to_owned());
        if !REVIEWED.iter().any(|(reviewed, _)| *reviewed == name) {
            unexplained.push(format!("{name}: {}", found.join(", ")));
        }
    }
    assert!(
        unexplained.is_empty(),
        "migrations that contract the schema (docs/operations.md, \"Mixed versions\"): split \
         them (expand now, contract a release later) or list them in REVIEWED with the reason:\n{}",
        unexplained.join("\n")
    );
    for (reviewed, _) in REVIEWED {
        assert!(
            contracting.iter().any(|name| name == reviewed),
            "{reviewed} is listed as contracting but no longer does (or is gone): drop it from REVIEWED"
        );
    }
}

#[test]
fn the_check_sees_what_contracts_and_lets_what_expands_pass() {
    let sql = "-- a comment that says DROP TABLE\n\
               CREATE TABLE t (a int NOT NULL);\n\
               ALTER TABLE t ADD COLUMN b int NOT NULL DEFAULT 0, ADD COLUMN c text;\n\
               CREATE INDEX t_b ON t (b);\n\
               CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$ BEGIN DROP TABLE x; END $$;\n\
               DROP INDEX IF EXISTS t_b;";
    let found: Vec<String> = statements(sql).iter().flat_map(|s| contractions(s)).collect();
    assert!(found.is_empty(), "expanding statements pass: {found:?}");
    for (sql, expected) in [
        ("DROP TABLE t", "DROP TABLE"),
        ("ALTER TABLE t DROP COLUMN a", "DROP COLUMN"),
        ("ALTER TABLE t RENAME COLUMN a TO b", "RENAME"),
        ("ALTER TABLE t ALTER COLUMN a TYPE bigint", "ALTER COLUMN … TYPE"),
        (
            "alter table t alter column a set data type bigint",
            "ALTER COLUMN … TYPE",
        ),
        ("ALTER TABLE t ALTER COLUMN a SET NOT NULL", "SET NOT NULL"),
        ("ALTER TABLE t ALTER COLUMN a DROP NOT NULL", "DROP NOT NULL"),
        (
            "ALTER TABLE t ADD COLUMN d int NOT NULL",
            "ADD COLUMN … NOT NULL without a default",
        ),
        ("ALTER TABLE t ADD CONSTRAINT c CHECK (a > 0)", "ADD CONSTRAINT"),
        ("DROP FUNCTION f(int)", "DROP FUNCTION"),
    ] {
        let found: Vec<String> = statements(sql).iter().flat_map(|s| contractions(s)).collect();
        assert_eq!(found, vec![expected.to_owned()], "{sql}");
    }
}

#[tokio::test]
async fn a_binary_runs_on_a_schema_a_newer_binary_expanded() {
    let database = common::TestDb::create().await;
    let sizes = PoolSizes { writes: 2, reads: 1 };
    let store = Store::connect(database.options.clone(), sizes).await.expect("migrate");
    // A newer release's migration, applied by a newer node of a rolling upgrade.
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
         VALUES (99999, 'from a newer release', true, '\\x00'::bytea, 0)",
    )
    .execute(store.pool())
    .await
    .expect("a newer migration");
    sqlx::raw_sql("CREATE TABLE from_a_newer_release (id int)")
        .execute(store.pool())
        .await
        .expect("its table");
    store.pool().close().await;
    let again = Store::connect(database.options.clone(), sizes).await;
    assert!(
        again.is_ok(),
        "this binary starts beside the newer one: {:?}",
        again.err()
    );
    // A migration this binary knows, changed since it was applied, is still refused.
    let again = again.expect("connected");
    sqlx::query("UPDATE _sqlx_migrations SET checksum = '\\x00'::bytea WHERE version = 1")
        .execute(again.pool())
        .await
        .expect("tamper");
    again.pool().close().await;
    assert!(
        Store::connect(database.options.clone(), sizes).await.is_err(),
        "a changed migration is refused"
    );
}
