//! The point-in-time recovery drill: what docs/operations.md, "Point-in-time recovery",
//! says to do, done.
//!
//! A fresh cluster archives its WAL (`archive_mode`, the page's `archive_command` into a
//! folder). A server plays on it over real WebSockets: two moves of a Gomoku game, then
//! an online base backup (`pg_basebackup`, tar and gzip, as the page takes it), then two
//! more moves and a chat line (in the WAL only). That moment is the target. After it, a
//! fifth move and the mistake: the table deleted (`DELETE FROM tables`, its seats, game
//! and moves with it). Then the recovery, step by step as the page says: the base backup
//! unpacked into an empty data folder, `restore_command` from the archive,
//! `recovery_target_time`, `recovery.signal`, and PostgreSQL started on it (the server's
//! own bootstrap, `store::local_pg`, in a folder of its own, stopped and deleted at the
//! end).
//!
//! A server started on the recovered cluster shows the table with the four moves played
//! before the target and the chat line, not the fifth move; the player to move comes back
//! with their token and plays that move again, stored on the new timeline.
//!
//! With `DATABASE_URL` set and no PostgreSQL binaries here, there is no cluster to
//! archive: the test says so and passes.

mod common;

use std::time::Duration;

use common::scratch::{Scratch, libpq_url, pg_program, run};
use common::spawn_app_on;
use serde_json::{Value, json};
use spelbord::store::local_pg::LocalPostgres;
use sqlx::postgres::PgConnectOptions;
use sqlx::{Connection, PgConnection};

/// How long the drill waits for PostgreSQL to archive a segment, or to finish recovery.
const PATIENCE: Duration = Duration::from_secs(60);

/// The squares of a snapshot's moves, in order.
fn squares(snapshot: &Value) -> Vec<String> {
    snapshot["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m["move"]["at"].as_str().expect("a Gomoku move").to_owned())
        .collect()
}

/// Appends `lines` to a data folder's `postgresql.conf` (later lines win).
fn configure(data_dir: &std::path::Path, lines: &[String]) {
    use std::io::Write;
    let path = data_dir.join("postgresql.conf");
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap_or_else(|err| panic!("open {}: {err}", path.display()));
    for line in lines {
        writeln!(file, "{line}").expect("write postgresql.conf");
    }
}

/// A connection to `options`, retried while PostgreSQL starts up.
async fn connect(options: &PgConnectOptions) -> PgConnection {
    common::eventually(
        PATIENCE,
        Duration::from_millis(100),
        "a connection to the cluster",
        || async { PgConnection::connect_with(options).await.ok() },
    )
    .await
}

/// Polls `query` (one boolean) on `options` until it is true.
async fn until_true(options: &PgConnectOptions, query: &'static str, what: &str) {
    common::eventually(PATIENCE, Duration::from_millis(100), what, || async {
        let mut conn = connect(options).await;
        let done: bool = sqlx::query_scalar(query)
            .fetch_one(&mut conn)
            .await
            .unwrap_or_else(|err| panic!("{what}: {err}"));
        let _ = conn.close().await;
        done.then_some(())
    })
    .await;
}

/// Makes `path` belong to the owner of `data_dir` (the `postgres` user when the tests run
/// as root), so the server can write there.
fn hand_to_server(path: &std::path::Path, data_dir: &std::path::Path) {
    use std::os::unix::fs::MetadataExt;
    let owner = std::fs::metadata(data_dir).expect("the data folder").uid();
    std::os::unix::fs::chown(path, Some(owner), None).expect("hand the folder to the server's user");
}

#[tokio::test]
async fn wal_replayed_to_a_moment_brings_back_every_move_before_it_and_none_after() {
    if LocalPostgres::find_binaries(None).is_err() && std::env::var_os("DATABASE_URL").is_some() {
        eprintln!("pitr drill: no PostgreSQL binaries here (DATABASE_URL is set): nothing to archive, skipped");
        return;
    }
    let mut scratch = Scratch::new("pitr");
    let wal = scratch.path("wal");
    let base = scratch.path("base");
    std::fs::create_dir_all(&wal).expect("the archive folder");

    // 1. Archive the WAL: the page's settings, then a restart of PostgreSQL.
    let original = scratch.cluster("original").await;
    hand_to_server(&wal, original.data_dir());
    original.stop().await.expect("stop to configure archiving");
    let wal_dir = wal.display();
    configure(
        original.data_dir(),
        &[
            "wal_level = replica".into(),
            "archive_mode = on".into(),
            format!("archive_command = 'test ! -f {wal_dir}/%f && cp %p {wal_dir}/%f'"),
            "archive_timeout = 60".into(),
        ],
    );
    let original = scratch.cluster("original").await;
    original.create_database("spelbord").await.expect("its database");
    let options = original.connect_options("spelbord");
    let app = spawn_app_on(options.clone()).await;

    // Two moves, then an online base backup.
    let table = app.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut x, x_token), (mut o, o_token)) = app.two_seated(&table).await;
    x.play_seen(&mut o, "H8").await;
    o.play_seen(&mut x, "A1").await;
    let base_dir = base.display().to_string();
    run(
        &pg_program("pg_basebackup"),
        &[
            "--pgdata",
            &base_dir,
            "--format=tar",
            "--gzip",
            "--wal-method=stream",
            "--checkpoint=fast",
            "--dbname",
            &libpq_url(&options),
        ],
    );

    // Two moves and a chat line after the backup: only the archived WAL has them.
    x.play_seen(&mut o, "I8").await;
    o.play_seen(&mut x, "A2").await;
    x.send(json!({"type": "chat", "text": "after the backup"})).await;
    o.until("chat").await;
    x.sync().await;
    o.sync().await;
    let mut conn = connect(&options).await;
    // The target: a moment after every commit above and before every one below.
    let target: String =
        sqlx::query_scalar("SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00'")
            .fetch_one(&mut conn)
            .await
            .expect("the target time");
    tokio::time::sleep(Duration::from_millis(50)).await;

    // After it: a fifth move, then the mistake.
    x.play_seen(&mut o, "J8").await;
    x.sync().await;
    let deleted = sqlx::query("DELETE FROM tables WHERE id = $1")
        .bind(&table)
        .execute(&mut conn)
        .await
        .expect("the mistake");
    assert_eq!(deleted.rows_affected(), 1);
    // The segment holding all of it is archived (archive_timeout would do it within a
    // minute; the drill does not wait that long).
    let segment: String = sqlx::query_scalar("SELECT pg_walfile_name(pg_switch_wal())")
        .fetch_one(&mut conn)
        .await
        .expect("switch the WAL segment");
    let _ = conn.close().await;
    until_true(
        &options,
        "SELECT coalesce(last_archived_wal >= (SELECT pg_walfile_name(pg_current_wal_lsn() - 1)), false) FROM pg_stat_archiver",
        &format!("segment {segment} archived"),
    )
    .await;
    assert!(wal.join(&segment).is_file(), "{segment} is in the archive");

    // 3. Recover: stop everything, unpack the base backup into an empty data folder,
    // point it at the archive and the target, and start PostgreSQL on it.
    drop((x, o));
    app.shut_down();
    drop(app);
    original.stop().await.expect("stop the original cluster");
    let recovered_dir = scratch.path("recovered");
    std::fs::create_dir_all(recovered_dir.join("pg_wal")).expect("the recovered data folder");
    // PostgreSQL refuses a data folder others may read.
    std::fs::set_permissions(&recovered_dir, std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .expect("the recovered data folder's permissions");
    let recovered_name = recovered_dir.display().to_string();
    run(
        std::path::Path::new("tar"),
        &["-xzf", &format!("{base_dir}/base.tar.gz"), "-C", &recovered_name],
    );
    run(
        std::path::Path::new("tar"),
        &[
            "-xzf",
            &format!("{base_dir}/pg_wal.tar.gz"),
            "-C",
            &format!("{recovered_name}/pg_wal"),
        ],
    );
    // The private cluster keeps its socket in the data folder, so the backup holds the
    // socket's lock file too (docs/operations.md says to delete it).
    for entry in std::fs::read_dir(&recovered_dir).expect("the recovered data folder") {
        let path = entry.expect("an entry").path();
        let name = path.file_name().and_then(|name| name.to_str()).unwrap_or("");
        if name.starts_with(".s.PGSQL.") && name.ends_with(".lock") {
            std::fs::remove_file(&path).expect("remove the socket's lock file");
        }
    }
    configure(
        &recovered_dir,
        &[
            "archive_mode = off".into(),
            format!("restore_command = 'cp {wal_dir}/%f %p'"),
            format!("recovery_target_time = '{target}'"),
            "recovery_target_action = 'promote'".into(),
        ],
    );
    std::fs::write(recovered_dir.join("recovery.signal"), "").expect("recovery.signal");
    let recovered = scratch.cluster("recovered").await;
    let options = recovered.connect_options("spelbord");
    until_true(&options, "SELECT NOT pg_is_in_recovery()", "recovery to the target").await;
    assert!(
        !recovered.data_dir().join("recovery.signal").exists(),
        "the signal file is removed once promoted"
    );

    // A server on the recovered cluster: the table with every move before the target.
    let app = spawn_app_on(options).await;
    let snapshot = app.snapshot(&table).await;
    assert_eq!(squares(&snapshot), ["H8", "A1", "I8", "A2"], "{snapshot}");
    let chat: Vec<&str> = snapshot["chat"]
        .as_array()
        .expect("chat")
        .iter()
        .filter_map(|line| line["text"].as_str())
        .collect();
    assert_eq!(chat, ["after the backup"], "{snapshot}");
    // X is to move: X and O come back with their tokens, and X plays the fifth move
    // again, stored on the recovered cluster's new timeline.
    let mut o = app.client(&table).await;
    o.send(json!({"type": "hello", "token": o_token})).await;
    o.until("welcome").await;
    let mut x = app.client(&table).await;
    x.send(json!({"type": "hello", "token": x_token})).await;
    x.until("welcome").await;
    x.play_seen(&mut o, "J8").await;
    x.sync().await;
    let stored: i64 =
        sqlx::query_scalar("SELECT count(*) FROM moves m JOIN games g ON g.id = m.game_id WHERE g.table_id = $1")
            .bind(&table)
            .fetch_one(&app.pool)
            .await
            .expect("the stored moves");
    assert_eq!(stored, 5, "the four recovered moves and the one played again");
}
