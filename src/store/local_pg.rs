//! A private PostgreSQL cluster for development and tests.
//!
//! When the server runs without `DATABASE_URL`, it runs its own PostgreSQL from the
//! machine's installed binaries, and the test harness runs one shared cluster for all
//! tests the same way. This module owns that cluster: finding `initdb`/`pg_ctl`,
//! creating the data folder and running `initdb` in it, starting and stopping the server
//! with `pg_ctl`, the file lock that lets several processes do this at once, creating
//! databases on it and the connection options to reach it.
//!
//! The server listens only on a Unix socket inside the data folder (`listen_addresses=''`,
//! no TCP), as role `spelbord` with `trust` authentication, so only local users who can
//! enter the data folder can connect.
//!
//! PostgreSQL refuses to run as root. When this process's effective uid is 0, every
//! `initdb`/`pg_ctl` call is run as the `postgres` system user through
//! `runuser -u postgres --`, the data folder is handed to that user, and every folder
//! above it must be enterable by that user.

use std::ffi::{OsStr, OsString};
use std::fs::{DirBuilder, File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Output, Stdio};
use std::time::Duration;

use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgSslMode};

/// The role `initdb` creates as superuser, and that connections use.
const ROLE: &str = "spelbord";
/// The port number; it only names the socket file (`.s.PGSQL.5432`), as there is no TCP.
const PORT: u16 = 5432;
/// The longest socket path the kernel takes (`sun_path` is 108 bytes with its NUL).
const MAX_SOCKET_PATH: usize = 107;
/// The system user PostgreSQL runs as when this process runs as root.
const SYSTEM_USER: &str = "postgres";
/// How many lines of a failing command's output go into an error.
const ERROR_LINES: usize = 5;
/// Where distributions install PostgreSQL's versioned binaries (`<root>/<major>/bin`).
const LIB_ROOT: &str = "/usr/lib/postgresql";
/// Characters that `pg_ctl` cannot pass safely through the shell it starts `postgres` with.
const UNSAFE_PATH_CHARS: &[char] = &['"', '\'', '$', '`', '\\'];

/// Errors from finding, initialising, starting or using the private cluster.
#[derive(Debug, thiserror::Error)]
pub enum LocalPgError {
    /// Neither a configured folder, `PATH` nor `/usr/lib/postgresql/*/bin` has the binaries.
    #[error(
        "No DATABASE_URL is set and no PostgreSQL binaries (initdb, pg_ctl) were found: install PostgreSQL (e.g. `apt-get install postgresql`) or set DATABASE_URL to an existing database."
    )]
    BinariesNotFound,

    /// A file system operation failed.
    #[error("Could not {action} {}: {source}.", .path.display())]
    Io {
        /// What was being done, e.g. "create the folder".
        action: &'static str,
        /// The path it was done to.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },

    /// The data folder is not suitable as given.
    #[error("The PostgreSQL data folder {} cannot be used: {reason}.", .path.display())]
    BadDataDir {
        /// The data folder.
        path: PathBuf,
        /// Why not.
        reason: &'static str,
    },

    /// The Unix socket path would be longer than the kernel allows.
    #[error(
        "The PostgreSQL socket path {} would be {len} bytes long, over the {MAX_SOCKET_PATH}-byte limit for Unix sockets: use a data folder with a shorter path.",
        .socket.display()
    )]
    SocketPathTooLong {
        /// The socket path that would be used.
        socket: PathBuf,
        /// Its length in bytes.
        len: usize,
    },

    /// Running as root, but there is no `postgres` user to run PostgreSQL as.
    #[error(
        "This process runs as root, which PostgreSQL refuses, and there is no `postgres` system user to run it as instead: create one (e.g. `useradd --system postgres`) or run as another user."
    )]
    NoPostgresUser,

    /// A folder above the data folder cannot be entered by the `postgres` user.
    #[error(
        "The folder {} cannot be entered by the `postgres` user, which runs PostgreSQL because this process runs as root: make it traversable (e.g. `chmod o+x {}`) or use a data folder elsewhere.",
        .dir.display(), .dir.display()
    )]
    NotTraversable {
        /// The first folder on the way to the data folder that `postgres` cannot enter.
        dir: PathBuf,
    },

    /// The data folder holds a cluster of another major version than the binaries.
    #[error(
        "The data folder {} holds a PostgreSQL {cluster} cluster but the binaries in {} are PostgreSQL {binaries}: delete {} (its data will be lost) or use PostgreSQL {cluster} binaries.",
        .data_dir.display(), .bin_dir.display(), .data_dir.display()
    )]
    VersionMismatch {
        /// The data folder.
        data_dir: PathBuf,
        /// The major version in its `PG_VERSION` file.
        cluster: String,
        /// The binaries' folder.
        bin_dir: PathBuf,
        /// The binaries' major version.
        binaries: String,
    },

    /// The data folder has files in it but no cluster.
    #[error(
        "The data folder {} is not empty but holds no PostgreSQL cluster (no PG_VERSION file): delete it so that a new cluster can be created there.",
        .data_dir.display()
    )]
    NotACluster {
        /// The data folder.
        data_dir: PathBuf,
    },

    /// A `postmaster.pid` left behind by a server that is gone keeps a new one from starting.
    #[error(
        "PostgreSQL cannot run in {} because its postmaster.pid names a process that is not a working server there: if no PostgreSQL runs in that folder, delete {} and try again ({detail}).",
        .data_dir.display(), .pid_file.display()
    )]
    StalePidFile {
        /// The data folder.
        data_dir: PathBuf,
        /// The `postmaster.pid` file to delete.
        pid_file: PathBuf,
        /// What PostgreSQL or this module saw.
        detail: String,
    },

    /// A command could not be started at all.
    #[error("Could not run `{command}`: {source}.")]
    Spawn {
        /// The command, e.g. "/usr/lib/postgresql/15/bin/initdb".
        command: String,
        /// The underlying error.
        source: std::io::Error,
    },

    /// A command ran and failed.
    #[error("`{command}` failed: {detail}.")]
    CommandFailed {
        /// The command, e.g. "pg_ctl start".
        command: String,
        /// The last lines of what it printed, or its exit status.
        detail: String,
    },

    /// The `pg_ctl --version` output could not be understood.
    #[error("Could not read a PostgreSQL version from `{command}`, which printed {output:?}.")]
    UnknownVersion {
        /// The command that was run.
        command: String,
        /// What it printed.
        output: String,
    },

    /// A database name that cannot be a PostgreSQL database name.
    #[error("{name:?} cannot be a PostgreSQL database name: it must be 1 to 63 bytes long without NUL characters.")]
    BadDatabaseName {
        /// The rejected name.
        name: String,
    },

    /// Talking to the cluster failed.
    #[error("Could not {action} on the local PostgreSQL in {}: {source}.", .data_dir.display())]
    Database {
        /// What was being done, e.g. "create database `games`".
        action: String,
        /// The data folder of the cluster.
        data_dir: PathBuf,
        /// The underlying error.
        source: sqlx::Error,
    },
}

/// The `postgres` system user, for running PostgreSQL when this process is root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SystemUser {
    uid: u32,
}

/// A PostgreSQL cluster in a data folder, reached over a Unix socket in that folder.
///
/// Dropping the handle does not stop the server; call [`LocalPostgres::stop`] for that.
#[derive(Debug, Clone)]
pub struct LocalPostgres {
    data_dir: PathBuf,
    bin_dir: PathBuf,
    lock_path: PathBuf,
    role: String,
    port: u16,
    run_as: Option<SystemUser>,
    started_by_us: bool,
}

impl LocalPostgres {
    /// Finds the folder holding `initdb` and `pg_ctl`: `configured` if given; else the
    /// folder of a `pg_ctl` on `PATH` that has `initdb` beside it; else the
    /// highest-numbered `/usr/lib/postgresql/*/bin` holding both.
    pub fn find_binaries(configured: Option<&Path>) -> Result<PathBuf, LocalPgError> {
        find_binaries_in(configured, std::env::var_os("PATH").as_deref(), Path::new(LIB_ROOT))
    }

    /// Makes sure a cluster runs in `data_dir`, creating the folder and running `initdb`
    /// if needed, and starting it with `pg_ctl` unless it already runs.
    ///
    /// An exclusive lock on `<parent of data_dir>/<name of data_dir>.lock` is held
    /// meanwhile, so several processes may call this at once for the same folder. The
    /// handle tells whether this call started the server.
    pub async fn ensure_running(data_dir: &Path, bin_dir: &Path) -> Result<LocalPostgres, LocalPgError> {
        let requested = std::path::absolute(data_dir).map_err(|source| LocalPgError::Io {
            action: "resolve the path",
            path: data_dir.to_path_buf(),
            source,
        })?;
        check_data_dir_path(&requested)?;
        let (Some(parent), Some(name)) = (requested.parent(), requested.file_name()) else {
            return Err(LocalPgError::BadDataDir {
                path: requested,
                reason: "it has no parent folder or no name of its own",
            });
        };
        create_parents(parent)?;
        // Resolve the parent so that every spelling of the folder shares one lock file.
        let parent = parent.canonicalize().map_err(|source| LocalPgError::Io {
            action: "resolve the path",
            path: parent.to_path_buf(),
            source,
        })?;
        let requested = parent.join(name);
        check_data_dir_path(&requested)?;
        let mut lock_name = name.to_os_string();
        lock_name.push(".lock");
        let lock_path = parent.join(lock_name);

        let run_as = system_user_if_root().await?;
        if let Some(user) = run_as {
            check_traversable(&requested, user).await?;
        }
        let _lock = lock_exclusive(lock_path.clone()).await?;

        match DirBuilder::new().mode(0o700).create(&requested) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::AlreadyExists && requested.is_dir() => {}
            Err(source) => {
                return Err(LocalPgError::Io {
                    action: "create the folder",
                    path: requested,
                    source,
                });
            }
        }
        let data_dir = requested.canonicalize().map_err(|source| LocalPgError::Io {
            action: "resolve the path",
            path: requested.clone(),
            source,
        })?;
        if let Some(user) = run_as {
            // The data folder itself may be a symlink to somewhere else.
            if data_dir != requested {
                check_data_dir_path(&data_dir)?;
                check_traversable(&data_dir, user).await?;
            }
            hand_over(&data_dir, user).await?;
        } else if data_dir != requested {
            check_data_dir_path(&data_dir)?;
        }

        let mut cluster = LocalPostgres {
            data_dir,
            bin_dir: bin_dir.to_path_buf(),
            lock_path,
            role: ROLE.to_owned(),
            port: PORT,
            run_as,
            started_by_us: false,
        };
        cluster.init_if_needed().await?;
        if cluster.status().await? {
            cluster.check_answers().await?;
            tracing::info!(data_dir = %cluster.data_dir.display(), "local PostgreSQL already running");
        } else {
            cluster.start().await?;
            cluster.started_by_us = true;
        }
        Ok(cluster)
    }

    /// Connection options for `database` on this cluster: the Unix socket in the data
    /// folder, user `spelbord`, no password and no TLS.
    pub fn connect_options(&self, database: &str) -> PgConnectOptions {
        PgConnectOptions::new_without_pgpass()
            .socket(&self.data_dir)
            .port(self.port)
            .username(&self.role)
            .database(database)
            .ssl_mode(PgSslMode::Disable)
    }

    /// Creates `database` if it does not exist yet, connecting to the `postgres`
    /// database to do so. Safe to call from several processes at once.
    pub async fn create_database(&self, database: &str) -> Result<(), LocalPgError> {
        if database.is_empty() || database.len() > 63 || database.contains('\0') {
            return Err(LocalPgError::BadDatabaseName {
                name: database.to_owned(),
            });
        }
        let action = format!("create database `{database}`");
        let db_err = |source| LocalPgError::Database {
            action: action.clone(),
            data_dir: self.data_dir.clone(),
            source,
        };
        let mut conn = PgConnection::connect_with(&self.connect_options("postgres"))
            .await
            .map_err(db_err)?;
        let exists: Option<i32> = sqlx::query_scalar("SELECT 1 FROM pg_database WHERE datname = $1")
            .bind(database)
            .fetch_optional(&mut conn)
            .await
            .map_err(db_err)?;
        if exists.is_none() {
            let sql = format!("CREATE DATABASE {}", quote_ident(database));
            match sqlx::raw_sql(sqlx::AssertSqlSafe(sql)).execute(&mut conn).await {
                Ok(_) => tracing::info!(database, "created database on local PostgreSQL"),
                // Another process created it between our check and our CREATE.
                Err(sqlx::Error::Database(e)) if matches!(e.code().as_deref(), Some("42P04" | "23505")) => {}
                Err(e) => return Err(db_err(e)),
            }
        }
        // The work is done; a failure to say goodbye cleanly does not matter.
        let _ = conn.close().await;
        Ok(())
    }

    /// Stops the cluster with `pg_ctl stop -m fast -w`; does nothing if it is not running.
    /// Meant for the server's own cluster: it stops it for every user.
    pub async fn stop(&self) -> Result<(), LocalPgError> {
        let _lock = lock_exclusive(self.lock_path.clone()).await?;
        if !self.status().await? {
            return Ok(());
        }
        // Never let pg_ctl signal a process that merely reuses a stale PID.
        self.check_answers().await?;
        tracing::info!(data_dir = %self.data_dir.display(), "stopping local PostgreSQL");
        let mut cmd = self.pg_ctl();
        cmd.arg("stop").arg("-D").arg(&self.data_dir).args(["-m", "fast", "-w"]);
        run_ok(cmd, "pg_ctl stop").await?;
        Ok(())
    }

    /// Registers this process as a user of the cluster until the returned handle is
    /// given to [`LocalPostgres::stop_if_last`] (or dropped): a shared lock on
    /// `<data folder>.users`, which every server on the cluster holds.
    pub async fn register_user(&self) -> Result<ClusterUse, LocalPgError> {
        let path = self.users_path();
        let file = tokio::task::spawn_blocking(move || {
            let file = open_lock_file(&path)?;
            file.lock_shared().map_err(|source| LocalPgError::Io {
                action: "lock (shared)",
                path,
                source,
            })?;
            Ok::<File, LocalPgError>(file)
        })
        .await
        .map_err(|e| LocalPgError::Io {
            action: "wait for the lock task on",
            path: self.users_path(),
            source: std::io::Error::other(e),
        })??;
        Ok(ClusterUse { _file: file })
    }

    /// Stops the cluster if no other process is registered as its user any more (see
    /// [`LocalPostgres::register_user`]); returns whether it did. Two servers on one
    /// private cluster: the last one to stop stops it, whichever started it.
    pub async fn stop_if_last(&self, user: ClusterUse) -> Result<bool, LocalPgError> {
        drop(user);
        let path = self.users_path();
        let last = tokio::task::spawn_blocking(move || {
            let file = open_lock_file(&path)?;
            match file.try_lock() {
                Ok(()) => Ok(Some(file)),
                Err(std::fs::TryLockError::WouldBlock) => Ok(None),
                Err(std::fs::TryLockError::Error(source)) => Err(LocalPgError::Io {
                    action: "lock",
                    path,
                    source,
                }),
            }
        })
        .await
        .map_err(|e| LocalPgError::Io {
            action: "wait for the lock task on",
            path: self.users_path(),
            source: std::io::Error::other(e),
        })??;
        let Some(_exclusive) = last else {
            tracing::info!(data_dir = %self.data_dir.display(), "another server still uses the local PostgreSQL: leaving it running");
            return Ok(false);
        };
        self.stop().await?;
        Ok(true)
    }

    /// The file whose shared locks count the servers using the cluster.
    fn users_path(&self) -> PathBuf {
        let mut path = self.lock_path.clone().into_os_string();
        path.push(".users");
        PathBuf::from(path)
    }

    /// Whether the call that made this handle started the server (rather than finding
    /// it already running).
    pub fn started_by_us(&self) -> bool {
        self.started_by_us
    }

    /// The cluster's data folder (absolute, symlinks resolved), which also holds its
    /// Unix socket and its log `postgres.log`.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The folder of the `initdb`/`pg_ctl` binaries in use.
    pub fn bin_dir(&self) -> &Path {
        &self.bin_dir
    }

    /// Whether `pg_ctl status` says a server runs in the data folder.
    pub async fn is_running(&self) -> Result<bool, LocalPgError> {
        self.status().await
    }

    fn pg_ctl(&self) -> StdCommand {
        pg_command(self.run_as, &self.bin_dir.join("pg_ctl"))
    }

    fn log_path(&self) -> PathBuf {
        self.data_dir.join("postgres.log")
    }

    /// Runs `initdb` if the data folder holds no cluster; checks the version if it does.
    async fn init_if_needed(&self) -> Result<(), LocalPgError> {
        let version_file = self.data_dir.join("PG_VERSION");
        match std::fs::read_to_string(&version_file) {
            Ok(cluster) => {
                let cluster = cluster.trim().to_owned();
                let binaries = self.binaries_major().await?;
                if cluster != binaries {
                    return Err(LocalPgError::VersionMismatch {
                        data_dir: self.data_dir.clone(),
                        cluster,
                        bin_dir: self.bin_dir.clone(),
                        binaries,
                    });
                }
                Ok(())
            }
            Err(e) if e.kind() == ErrorKind::NotFound => {
                let mut entries = std::fs::read_dir(&self.data_dir).map_err(|source| LocalPgError::Io {
                    action: "list the folder",
                    path: self.data_dir.clone(),
                    source,
                })?;
                if entries.next().is_some() {
                    return Err(LocalPgError::NotACluster {
                        data_dir: self.data_dir.clone(),
                    });
                }
                tracing::info!(
                    data_dir = %self.data_dir.display(),
                    bin_dir = %self.bin_dir.display(),
                    "initialising local PostgreSQL cluster"
                );
                let mut cmd = pg_command(self.run_as, &self.bin_dir.join("initdb"));
                cmd.arg("-D")
                    .arg(&self.data_dir)
                    .args(["-A", "trust", "-U", ROLE, "-E", "UTF8", "--no-locale"]);
                run_ok(cmd, "initdb").await?;
                Ok(())
            }
            Err(source) => Err(LocalPgError::Io {
                action: "read",
                path: version_file,
                source,
            }),
        }
    }

    /// The binaries' major version as `PG_VERSION` writes it ("15", or "9.6" before 10).
    async fn binaries_major(&self) -> Result<String, LocalPgError> {
        let mut cmd = self.pg_ctl();
        cmd.arg("--version");
        let out = run_ok(cmd, "pg_ctl --version").await?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        parse_major(&text).ok_or(LocalPgError::UnknownVersion {
            command: "pg_ctl --version".to_owned(),
            output: text.trim().to_owned(),
        })
    }

    /// `pg_ctl status`: true if it says a server runs, false if it says none does.
    async fn status(&self) -> Result<bool, LocalPgError> {
        let mut cmd = self.pg_ctl();
        cmd.arg("status").arg("-D").arg(&self.data_dir);
        let out = run(cmd, "pg_ctl status").await?;
        match out.status.code() {
            Some(0) => Ok(true),
            Some(3) => Ok(false),
            _ => Err(LocalPgError::CommandFailed {
                command: "pg_ctl status".to_owned(),
                detail: output_detail(&out),
            }),
        }
    }

    /// After `pg_ctl status` said a server runs: makes sure one answers on the socket,
    /// since a stale `postmaster.pid` whose PID a live process now has fools `pg_ctl`.
    async fn check_answers(&self) -> Result<(), LocalPgError> {
        let options = self.connect_options("postgres");
        let mut last = String::new();
        for attempt in 0..10 {
            if attempt > 0 {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            match PgConnection::connect_with(&options).await {
                Ok(conn) => {
                    let _ = conn.close().await;
                    return Ok(());
                }
                // Anything but an I/O error means a server spoke to us (e.g. "starting up").
                Err(sqlx::Error::Io(e)) => last = e.to_string(),
                Err(_) => return Ok(()),
            }
        }
        Err(LocalPgError::StalePidFile {
            data_dir: self.data_dir.clone(),
            pid_file: self.data_dir.join("postmaster.pid"),
            detail: format!("pg_ctl status says a server runs, but its socket gives: {last}"),
        })
    }

    /// `pg_ctl start -w`, listening only on the socket in the data folder.
    async fn start(&self) -> Result<(), LocalPgError> {
        tracing::info!(data_dir = %self.data_dir.display(), "starting local PostgreSQL");
        // pg_ctl runs `postgres` through /bin/sh; the data folder path has no quote
        // characters (checked by check_data_dir_path), so single quotes suffice.
        let mut server_options = OsString::from("-k '");
        server_options.push(self.data_dir.as_os_str());
        server_options.push(format!("' -c listen_addresses='' -p {}", self.port));
        let mut cmd = self.pg_ctl();
        cmd.arg("start")
            .arg("-w")
            .arg("-D")
            .arg(&self.data_dir)
            .arg("-l")
            .arg(self.log_path())
            .arg("-o")
            .arg(server_options);
        let out = run(cmd, "pg_ctl start").await?;
        if out.status.success() {
            return Ok(());
        }
        let log_tail = std::fs::read(self.log_path())
            .map(|log| last_lines(&log))
            .unwrap_or_default();
        let mut detail = output_detail(&out);
        if !log_tail.is_empty() {
            detail = format!("{detail}; postgres.log ends with: {log_tail}");
        }
        if log_tail.contains("postmaster.pid") {
            return Err(LocalPgError::StalePidFile {
                data_dir: self.data_dir.clone(),
                pid_file: self.data_dir.join("postmaster.pid"),
                detail,
            });
        }
        Err(LocalPgError::CommandFailed {
            command: "pg_ctl start".to_owned(),
            detail,
        })
    }
}

/// [`LocalPostgres::find_binaries`] with its inputs given, for testing.
fn find_binaries_in(
    configured: Option<&Path>,
    path_var: Option<&OsStr>,
    lib_root: &Path,
) -> Result<PathBuf, LocalPgError> {
    if let Some(dir) = configured {
        return if has_binaries(dir) {
            Ok(dir.to_path_buf())
        } else {
            Err(LocalPgError::BinariesNotFound)
        };
    }
    if let Some(found) = path_var
        .into_iter()
        .flat_map(std::env::split_paths)
        .find(|dir| dir.is_absolute() && has_binaries(dir))
    {
        return Ok(found);
    }
    let mut best: Option<(Vec<u32>, PathBuf)> = None;
    if let Ok(entries) = std::fs::read_dir(lib_root) {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(version) = name.to_str().and_then(parse_version_dir) else {
                continue;
            };
            let bin = entry.path().join("bin");
            if has_binaries(&bin) && best.as_ref().is_none_or(|(v, _)| version > *v) {
                best = Some((version, bin));
            }
        }
    }
    best.map(|(_, bin)| bin).ok_or(LocalPgError::BinariesNotFound)
}

/// "15" → `[15]`, "9.6" → `[9, 6]`; anything else → None.
fn parse_version_dir(name: &str) -> Option<Vec<u32>> {
    name.split('.').map(|part| part.parse().ok()).collect()
}

fn has_binaries(dir: &Path) -> bool {
    is_executable(&dir.join("pg_ctl")) && is_executable(&dir.join("initdb"))
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The major version from e.g. "pg_ctl (PostgreSQL) 15.8 (Debian 15.8-0+deb12u1)".
fn parse_major(version_output: &str) -> Option<String> {
    let after = version_output.split("(PostgreSQL)").nth(1)?;
    let version = after.split_whitespace().next()?;
    let mut parts = version.split(|c: char| !c.is_ascii_digit());
    let first: u32 = parts.next()?.parse().ok()?;
    if first >= 10 {
        Some(first.to_string())
    } else {
        let second: u32 = parts.next()?.parse().ok()?;
        Some(format!("{first}.{second}"))
    }
}

/// Rejects data folder paths that `pg_ctl` cannot use or whose socket path is too long.
fn check_data_dir_path(path: &Path) -> Result<(), LocalPgError> {
    let Some(text) = path.to_str() else {
        return Err(LocalPgError::BadDataDir {
            path: path.to_path_buf(),
            reason: "its path is not valid UTF-8",
        });
    };
    if text.chars().any(|c| c.is_control() || UNSAFE_PATH_CHARS.contains(&c)) {
        return Err(LocalPgError::BadDataDir {
            path: path.to_path_buf(),
            reason: "its path contains a quote, `$`, a backslash or a control character, which pg_ctl cannot pass through its shell",
        });
    }
    let socket = path.join(format!(".s.PGSQL.{PORT}"));
    let len = socket.as_os_str().len();
    if len > MAX_SOCKET_PATH {
        return Err(LocalPgError::SocketPathTooLong { socket, len });
    }
    Ok(())
}

/// Creates `dir` and any missing folders above it; those get mode 0755, so that the
/// `postgres` user can pass through them whatever the umask.
fn create_parents(dir: &Path) -> Result<(), LocalPgError> {
    let missing: Vec<&Path> = dir.ancestors().take_while(|d| !d.exists()).collect();
    if missing.is_empty() {
        return Ok(());
    }
    std::fs::create_dir_all(dir).map_err(|source| LocalPgError::Io {
        action: "create the folder",
        path: dir.to_path_buf(),
        source,
    })?;
    for created in missing {
        std::fs::set_permissions(created, std::fs::Permissions::from_mode(0o755)).map_err(|source| {
            LocalPgError::Io {
                action: "set the mode of",
                path: created.to_path_buf(),
                source,
            }
        })?;
    }
    Ok(())
}

/// A process's registration as a user of the cluster (a shared lock, released on drop).
#[derive(Debug)]
pub struct ClusterUse {
    _file: File,
}

/// Opens (creating it if missing) a file used only for its lock.
fn open_lock_file(path: &Path) -> Result<File, LocalPgError> {
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|source| LocalPgError::Io {
            action: "open the lock file",
            path: path.to_path_buf(),
            source,
        })
}

/// Takes an exclusive lock on `path` (created if missing); it is held until the returned
/// file is dropped.
async fn lock_exclusive(path: PathBuf) -> Result<File, LocalPgError> {
    tokio::task::spawn_blocking(move || {
        let file = open_lock_file(&path)?;
        file.lock().map_err(|source| LocalPgError::Io {
            action: "lock",
            path,
            source,
        })?;
        Ok(file)
    })
    .await
    .map_err(|e| LocalPgError::Io {
        action: "wait for the lock task on",
        path: PathBuf::from("the data folder's lock file"),
        source: std::io::Error::other(e),
    })?
}

/// The `postgres` user if this process runs as root (effective uid 0), else `None`.
async fn system_user_if_root() -> Result<Option<SystemUser>, LocalPgError> {
    let mut cmd = StdCommand::new("id");
    cmd.arg("-u");
    let euid = id_number(cmd, "id -u").await?;
    if euid != Some(0) {
        return Ok(None);
    }
    let mut cmd = StdCommand::new("id");
    cmd.args(["-u", SYSTEM_USER]);
    match id_number(cmd, "id -u postgres").await? {
        Some(uid) => Ok(Some(SystemUser { uid })),
        None => Err(LocalPgError::NoPostgresUser),
    }
}

/// Runs an `id` command: its number, or None if it failed (e.g. no such user).
async fn id_number(cmd: StdCommand, what: &str) -> Result<Option<u32>, LocalPgError> {
    let out = run(cmd, what).await?;
    if !out.status.success() {
        return Ok(None);
    }
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim().parse().map(Some).map_err(|_| LocalPgError::CommandFailed {
        command: what.to_owned(),
        detail: format!("it printed {:?} instead of a number", text.trim()),
    })
}

/// Checks, as the `postgres` user, that every folder above `data_dir` can be entered;
/// names the first one that cannot.
async fn check_traversable(data_dir: &Path, user: SystemUser) -> Result<(), LocalPgError> {
    let mut dirs: Vec<&Path> = data_dir.ancestors().skip(1).collect();
    dirs.reverse();
    let mut cmd = pg_command(Some(user), Path::new("/bin/sh"));
    cmd.arg("-c")
        .arg(r#"i=0; for d in "$@"; do [ -x "$d" ] || { echo "$i"; exit 1; }; i=$((i+1)); done"#)
        .arg("sh")
        .args(&dirs);
    let out = run(cmd, "runuser -u postgres -- sh").await?;
    if out.status.success() {
        return Ok(());
    }
    let index: Option<usize> = String::from_utf8_lossy(&out.stdout).trim().parse().ok();
    match index.and_then(|i| dirs.get(i)) {
        Some(dir) => Err(LocalPgError::NotTraversable { dir: dir.to_path_buf() }),
        None => Err(LocalPgError::CommandFailed {
            command: "runuser -u postgres -- sh".to_owned(),
            detail: output_detail(&out),
        }),
    }
}

/// Gives the data folder (and all in it) to the `postgres` user if it is not theirs yet.
async fn hand_over(data_dir: &Path, user: SystemUser) -> Result<(), LocalPgError> {
    let meta = std::fs::metadata(data_dir).map_err(|source| LocalPgError::Io {
        action: "read the owner of",
        path: data_dir.to_path_buf(),
        source,
    })?;
    if meta.uid() == user.uid {
        return Ok(());
    }
    let mut cmd = StdCommand::new("chown");
    cmd.arg("-R").arg(format!("{SYSTEM_USER}:{SYSTEM_USER}")).arg(data_dir);
    run_ok(cmd, "chown -R postgres:postgres").await?;
    Ok(())
}

/// A command for a PostgreSQL program, run as the `postgres` user when `run_as` is set.
fn pg_command(run_as: Option<SystemUser>, program: &Path) -> StdCommand {
    let mut cmd = match run_as {
        Some(_) => {
            let mut cmd = StdCommand::new(runuser_program());
            cmd.args(["-u", SYSTEM_USER, "--"]).arg(program);
            cmd
        }
        None => StdCommand::new(program),
    };
    // The caller's working folder may be closed to the `postgres` user.
    cmd.current_dir("/");
    cmd
}

fn runuser_program() -> &'static str {
    ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .unwrap_or("runuser")
}

/// Runs a command to completion, capturing its output.
async fn run(cmd: StdCommand, what: &str) -> Result<Output, LocalPgError> {
    let mut cmd = tokio::process::Command::from(cmd);
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.output().await.map_err(|source| LocalPgError::Spawn {
        command: what.to_owned(),
        source,
    })
}

/// Runs a command and turns a failure exit into an error with its last output lines.
async fn run_ok(cmd: StdCommand, what: &str) -> Result<Output, LocalPgError> {
    let out = run(cmd, what).await?;
    if out.status.success() {
        Ok(out)
    } else {
        Err(LocalPgError::CommandFailed {
            command: what.to_owned(),
            detail: output_detail(&out),
        })
    }
}

/// The last lines of stderr (or stdout if stderr is empty) on one line, else the status.
fn output_detail(out: &Output) -> String {
    let stderr = last_lines(&out.stderr);
    if !stderr.is_empty() {
        return stderr;
    }
    let stdout = last_lines(&out.stdout);
    if !stdout.is_empty() {
        return stdout;
    }
    format!("it exited with {}", out.status)
}

/// The last few non-blank lines of `bytes`, trimmed and joined with " / ".
fn last_lines(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    lines[lines.len().saturating_sub(ERROR_LINES)..].join(" / ")
}

/// `name` as a quoted SQL identifier.
fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder under the temp dir, stopped (if a cluster runs there) and removed
    /// on drop, even when a test fails.
    struct TempFolder {
        root: PathBuf,
    }

    impl TempFolder {
        fn new(name: &str) -> TempFolder {
            let root = std::env::temp_dir().join(format!("spelbord-localpg-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            TempFolder { root }
        }

        fn data(&self) -> PathBuf {
            self.root.join("pg")
        }
    }

    impl Drop for TempFolder {
        fn drop(&mut self) {
            let data = self.data();
            if data.join("postmaster.pid").exists()
                && let Ok(bin) = LocalPostgres::find_binaries(None)
            {
                let run_as = root_test_user();
                let _ = pg_command(run_as, &bin.join("pg_ctl"))
                    .arg("stop")
                    .arg("-D")
                    .arg(&data)
                    .args(["-m", "immediate", "-w"])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status();
            }
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }

    /// Whether the tests run as root, the synchronous way (for Drop).
    fn root_test_user() -> Option<SystemUser> {
        let euid = StdCommand::new("id").arg("-u").output().ok()?;
        if String::from_utf8_lossy(&euid.stdout).trim() != "0" {
            return None;
        }
        let uid = StdCommand::new("id").args(["-u", SYSTEM_USER]).output().ok()?;
        let uid = String::from_utf8_lossy(&uid.stdout).trim().parse().ok()?;
        Some(SystemUser { uid })
    }

    fn bin_dir() -> PathBuf {
        match LocalPostgres::find_binaries(None) {
            Ok(dir) => dir,
            Err(e) => panic!("PostgreSQL binaries are needed for these tests: {e}"),
        }
    }

    #[test]
    fn find_binaries_finds_the_installed_ones() {
        let dir = bin_dir();
        assert!(dir.join("pg_ctl").exists(), "{}", dir.display());
        assert!(dir.join("initdb").exists(), "{}", dir.display());
    }

    #[test]
    fn find_binaries_falls_back_to_usr_lib_postgresql() {
        let temp = TempFolder::new("libroot");
        for version in ["9.6", "13", "15", "16"] {
            let bin = temp.root.join(version).join("bin");
            std::fs::create_dir_all(&bin).expect("create fake bin dir");
            // 16 lacks initdb, so 15 is the best complete one.
            let names: &[&str] = if version == "16" {
                &["pg_ctl"]
            } else {
                &["pg_ctl", "initdb"]
            };
            for name in names {
                let file = bin.join(name);
                std::fs::write(&file, "#!/bin/sh\n").expect("write fake binary");
                std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).expect("chmod fake binary");
            }
        }
        let found = find_binaries_in(None, Some(OsStr::new("/nonexistent")), &temp.root).expect("finds the fallback");
        assert_eq!(found, temp.root.join("15").join("bin"));

        let none = find_binaries_in(None, None, &temp.root.join("missing"));
        assert!(matches!(none, Err(LocalPgError::BinariesNotFound)));
    }

    #[test]
    fn find_binaries_in_a_configured_empty_dir_errors() {
        let temp = TempFolder::new("emptybin");
        std::fs::create_dir_all(&temp.root).expect("create empty dir");
        let err = LocalPostgres::find_binaries(Some(&temp.root)).expect_err("must fail");
        assert_eq!(
            err.to_string(),
            "No DATABASE_URL is set and no PostgreSQL binaries (initdb, pg_ctl) were found: \
             install PostgreSQL (e.g. `apt-get install postgresql`) or set DATABASE_URL to an \
             existing database."
        );
    }

    #[test]
    fn parses_versions() {
        assert_eq!(
            parse_major("pg_ctl (PostgreSQL) 15.8 (Debian 15.8-0+deb12u1)\n").as_deref(),
            Some("15")
        );
        assert_eq!(parse_major("pg_ctl (PostgreSQL) 9.6.24").as_deref(), Some("9.6"));
        assert_eq!(parse_major("pg_ctl (PostgreSQL) 17beta1").as_deref(), Some("17"));
        assert_eq!(parse_major("something else"), None);
        assert_eq!(parse_version_dir("15"), Some(vec![15]));
        assert_eq!(parse_version_dir("9.6"), Some(vec![9, 6]));
        assert_eq!(parse_version_dir("common"), None);
    }

    #[tokio::test]
    async fn a_too_long_socket_path_is_refused() {
        let temp = TempFolder::new("long");
        let data = temp.root.join("x".repeat(100));
        let err = LocalPostgres::ensure_running(&data, &bin_dir())
            .await
            .expect_err("must fail");
        assert!(matches!(err, LocalPgError::SocketPathTooLong { .. }), "{err}");
        assert!(!data.exists(), "nothing is created for a refused path");
    }

    #[tokio::test]
    async fn a_cluster_of_another_version_is_refused() {
        let temp = TempFolder::new("oldversion");
        let data = temp.data();
        std::fs::create_dir_all(&data).expect("create data dir");
        std::fs::write(data.join("PG_VERSION"), "9.6\n").expect("write PG_VERSION");
        let err = LocalPostgres::ensure_running(&data, &bin_dir())
            .await
            .expect_err("must fail");
        assert!(matches!(err, LocalPgError::VersionMismatch { .. }), "{err}");
        assert!(err.to_string().contains("delete"), "{err}");
    }

    #[tokio::test]
    async fn a_non_empty_folder_without_cluster_is_refused() {
        let temp = TempFolder::new("notcluster");
        let data = temp.data();
        std::fs::create_dir_all(&data).expect("create data dir");
        std::fs::write(data.join("notes.txt"), "hello").expect("write a file");
        let err = LocalPostgres::ensure_running(&data, &bin_dir())
            .await
            .expect_err("must fail");
        assert!(matches!(err, LocalPgError::NotACluster { .. }), "{err}");
    }

    #[tokio::test]
    async fn a_folder_closed_to_postgres_is_named_when_root() {
        if root_test_user().is_none() {
            return; // Only root hands PostgreSQL to another user.
        }
        let temp = TempFolder::new("closed");
        let closed = temp.root.join("closed");
        std::fs::create_dir_all(&closed).expect("create folder");
        std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o700)).expect("close folder");
        let err = LocalPostgres::ensure_running(&closed.join("pg"), &bin_dir())
            .await
            .expect_err("must fail");
        match &err {
            LocalPgError::NotTraversable { dir } => assert_eq!(dir, &closed),
            other => panic!("unexpected error: {other}"),
        }
        assert!(!closed.join("pg").exists(), "no data folder is made");
    }

    #[tokio::test]
    async fn runs_a_cluster_end_to_end() {
        let temp = TempFolder::new("cluster");
        let data = temp.data();
        let bin = bin_dir();

        let (a, b) = tokio::join!(
            LocalPostgres::ensure_running(&data, &bin),
            LocalPostgres::ensure_running(&data, &bin)
        );
        let a = a.expect("first ensure_running");
        let b = b.expect("second ensure_running");
        assert_eq!(
            usize::from(a.started_by_us()) + usize::from(b.started_by_us()),
            1,
            "exactly one call starts the server"
        );
        assert_eq!(a.data_dir(), b.data_dir());
        assert!(a.is_running().await.expect("status"));

        let mut conn = PgConnection::connect_with(&a.connect_options("postgres"))
            .await
            .expect("connect");
        let one: i32 = sqlx::query_scalar("SELECT 1")
            .fetch_one(&mut conn)
            .await
            .expect("SELECT 1");
        assert_eq!(one, 1);
        let listen: String = sqlx::query_scalar("SHOW listen_addresses")
            .fetch_one(&mut conn)
            .await
            .expect("SHOW listen_addresses");
        assert_eq!(listen, "", "no TCP");
        conn.close().await.expect("close");

        a.create_database("spelbord_test").await.expect("create");
        a.create_database("spelbord_test").await.expect("again");
        a.create_database("with \"quote\"").await.expect("quoted");
        let mut conn = PgConnection::connect_with(&a.connect_options("spelbord_test"))
            .await
            .expect("connect to the new database");
        let db: String = sqlx::query_scalar("SELECT current_database()")
            .fetch_one(&mut conn)
            .await
            .expect("current_database");
        assert_eq!(db, "spelbord_test");
        conn.close().await.expect("close");

        let again = LocalPostgres::ensure_running(&data, &bin)
            .await
            .expect("third ensure_running");
        assert!(!again.started_by_us());

        a.stop().await.expect("stop");
        assert!(!a.is_running().await.expect("status"));
        let mut status = pg_command(a.run_as, &bin.join("pg_ctl"));
        status.arg("status").arg("-D").arg(a.data_dir());
        let out = run(status, "pg_ctl status").await.expect("pg_ctl status");
        assert_eq!(out.status.code(), Some(3), "pg_ctl status: not running");
        b.stop().await.expect("stopping a stopped cluster is fine");

        // A stale postmaster.pid naming a live process of the same user fools
        // `pg_ctl status`; it must be reported, not signalled or trusted.
        let mut sleeper = pg_command(a.run_as, Path::new("/bin/sh"));
        sleeper.arg("-c").arg("sleep 60 >/dev/null 2>&1 & echo $!");
        let out = run_ok(sleeper, "sleep").await.expect("start a sleeper");
        let pid = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        let pid_file = data.join("postmaster.pid");
        std::fs::write(&pid_file, format!("{pid}\n{}\n", a.data_dir().display())).expect("write stale pid file");
        let stale = LocalPostgres::ensure_running(&data, &bin).await;
        let stopped = a.stop().await;
        let _ = StdCommand::new("kill").arg(&pid).status();
        let err = stale.expect_err("a stale pid file is reported");
        assert!(matches!(err, LocalPgError::StalePidFile { .. }), "{err}");
        assert!(err.to_string().contains("postmaster.pid"), "{err}");
        assert!(matches!(stopped, Err(LocalPgError::StalePidFile { .. })));

        std::fs::remove_file(&pid_file).expect("delete the stale pid file");
        let restarted = LocalPostgres::ensure_running(&data, &bin)
            .await
            .expect("starts after the pid file is gone");
        assert!(restarted.started_by_us());
        restarted.stop().await.expect("stop again");
    }
}
