//! PostgreSQL clusters of a test's own (the backup drills: a restored copy, a recovered
//! one), in a scratch folder under the system's temporary directory: each started with the
//! server's own bootstrap ([`spelbord::store::local_pg`]), and every one stopped and the
//! folder deleted when the [`Scratch`] is dropped. Also the PostgreSQL client programs
//! the drills run.

use std::path::{Path, PathBuf};
use std::process::Command;

use spelbord::store::local_pg::LocalPostgres;
use sqlx::postgres::PgConnectOptions;

/// A scratch folder and the clusters started in it.
pub struct Scratch {
    folder: PathBuf,
    clusters: Vec<LocalPostgres>,
}

impl Scratch {
    /// A new, empty scratch folder named after `purpose`.
    pub fn new(purpose: &str) -> Scratch {
        let folder = std::env::temp_dir().join(format!(
            "spelbord-{purpose}-{}",
            &uuid::Uuid::new_v4().simple().to_string()[..12]
        ));
        std::fs::create_dir_all(&folder).expect("a scratch folder");
        Scratch {
            folder,
            clusters: Vec::new(),
        }
    }

    /// `name` inside the scratch folder.
    pub fn path(&self, name: &str) -> PathBuf {
        self.folder.join(name)
    }

    /// Makes sure a cluster runs in the data folder `name` (created with `initdb` when
    /// empty), and stops it with the others when the scratch folder goes.
    pub async fn cluster(&mut self, name: &str) -> LocalPostgres {
        let bin_dir = LocalPostgres::find_binaries(None).expect("PostgreSQL binaries");
        let cluster = LocalPostgres::ensure_running(&self.path(name), &bin_dir)
            .await
            .unwrap_or_else(|err| panic!("the cluster in {name} starts: {err}"));
        self.clusters.push(cluster.clone());
        cluster
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let clusters = std::mem::take(&mut self.clusters);
        super::in_drop(async move {
            for cluster in clusters {
                let _ = cluster.stop().await;
            }
        });
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// A libpq URL for `options` (a Unix socket folder as `?host=`), for the client programs.
pub fn libpq_url(options: &PgConnectOptions) -> String {
    let socket = options
        .get_socket()
        .map(|dir| format!("?host={}", dir.display()))
        .unwrap_or_default();
    format!(
        "postgres://{}@{}:{}/{}{socket}",
        options.get_username(),
        options.get_host(),
        options.get_port(),
        options.get_database().unwrap_or("postgres")
    )
}

/// A PostgreSQL program: from the binaries the server would use, else on `PATH`.
pub fn pg_program(name: &str) -> PathBuf {
    LocalPostgres::find_binaries(None)
        .map(|dir| dir.join(name))
        .ok()
        .filter(|path| path.is_file())
        .unwrap_or_else(|| PathBuf::from(name))
}

/// Runs a PostgreSQL client program (as this user: it only connects, by socket or TCP).
pub fn run(program: &Path, args: &[&str]) {
    let output = Command::new(program)
        .args(args)
        .env("PGCONNECT_TIMEOUT", "10")
        .output()
        .unwrap_or_else(|err| panic!("running {}: {err}", program.display()));
    assert!(
        output.status.success(),
        "{} {args:?} failed: {}{}",
        program.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
