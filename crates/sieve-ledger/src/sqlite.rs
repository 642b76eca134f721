//! The ledger in one SQLite file (`tasks.db`) that several proxy processes
//! and the app read and write at once.
//!
//! Sharing between processes rests on SQLite itself: write-ahead logging
//! so readers never block the writer, a 10 s busy timeout so writers queue
//! instead of failing, and writes that are each one statement or one
//! `IMMEDIATE` transaction, so no read-then-write can lose an update. The
//! schema is versioned with `PRAGMA user_version`; a file from a newer MCP
//! Sieve is refused rather than guessed at.

use super::audit::{AuditRow, audit_of_row};
use super::measurements::{MeasuredRow, measured_of_row};
use super::merge::{Merge, Step};
use super::query::{Arg, Dialect, ListPlan};
use super::schema::{Entry, entry_of_row};
use super::{LedgerError, Location, TERMINAL, TaskPage, duplicate};
use rusqlite::types::ToSqlOutput;
use rusqlite::{
    Connection, ErrorCode, OptionalExtension, Row, ToSql, TransactionBehavior, params,
    params_from_iter,
};
use serde_json::Value;
use sieve_core::tasks::TaskStatus;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// How long a writer waits for another process's write before giving up.
pub(super) const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Schema versions, in order: entry `n` takes a file from version `n` to
/// `n + 1`. Never edit one that has shipped; append a new one.
const MIGRATIONS: &[&str] = &[SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4];

/// Version 1. `seq` is AUTOINCREMENT so a purged row's number is never
/// reused: cursors stay positions in one history. No foreign key on
/// `retry_of`: a retry must outlive the purge of the entry it retried.
/// The indexes are `schema::LISTING_INDEXES`, and PostgreSQL's are the
/// same (sieve-postgres `migrations/0002_ledger.sql`).
pub(super) const SCHEMA_V1: &str = "
CREATE TABLE tasks (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    id               TEXT    NOT NULL,
    kind             TEXT    NOT NULL CHECK (kind IN ('task', 'call')),
    server           TEXT    NOT NULL,
    upstream_id      TEXT,
    method           TEXT    NOT NULL,
    tool             TEXT,
    params           TEXT    NOT NULL,
    status           TEXT    NOT NULL,
    status_message   TEXT,
    created_at       INTEGER NOT NULL,
    last_updated_at  INTEGER NOT NULL CHECK (last_updated_at >= created_at),
    ttl_ms           INTEGER,
    poll_interval_ms INTEGER,
    profile          TEXT,
    retry_of         TEXT,
    result           TEXT
) STRICT;
CREATE UNIQUE INDEX tasks_id ON tasks (id);
CREATE UNIQUE INDEX tasks_upstream ON tasks (server, upstream_id) WHERE upstream_id IS NOT NULL;
CREATE INDEX tasks_updated ON tasks (last_updated_at, seq);
CREATE INDEX tasks_created ON tasks (created_at, seq);
CREATE INDEX tasks_status_updated ON tasks (status, last_updated_at, seq);
CREATE INDEX tasks_status_created ON tasks (status, created_at, seq);
CREATE INDEX tasks_server_status_updated ON tasks (server, status, last_updated_at, seq);
CREATE INDEX tasks_server_status_created ON tasks (server, status, created_at, seq);
CREATE INDEX tasks_method_status_updated ON tasks (method, status, last_updated_at, seq);
CREATE INDEX tasks_method_status_created ON tasks (method, status, created_at, seq);
CREATE INDEX tasks_server_method_status_updated ON tasks (server, method, status, last_updated_at, seq);
CREATE INDEX tasks_server_method_status_created ON tasks (server, method, status, created_at, seq);
";

/// Version 2: the audit (`audit`), one row per `tools/call` when
/// `settings.audit` is on. The same columns and indexes as PostgreSQL's
/// `sieve_audit` (sieve-postgres `migrations/0004_audit.sql`).
const SCHEMA_V2: &str = "
CREATE TABLE audit (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    at          INTEGER NOT NULL,
    who         TEXT    NOT NULL,
    profile     TEXT    NOT NULL,
    server      TEXT    NOT NULL,
    tool        TEXT    NOT NULL,
    status      TEXT    NOT NULL CHECK (status IN ('ok', 'error', 'refused', 'cancelled')),
    duration_ms INTEGER NOT NULL CHECK (duration_ms >= 0),
    arguments   TEXT
) STRICT;
CREATE INDEX audit_at ON audit (at, id);
CREATE INDEX audit_server ON audit (server, at, id);
CREATE INDEX audit_status ON audit (status, at, id);
";

/// Version 3: who made an entry (`owner`, a signed-in person of a team
/// gateway), and the listing index of one person's entries; which process
/// runs a call in flight (`replica`), and each process's last sign of life
/// (`replicas`), so the calls of one that died are marked cut off.
/// PostgreSQL's are the same (sieve-postgres
/// `migrations/0006_owners_and_replicas.sql`).
const SCHEMA_V3: &str = "
ALTER TABLE tasks ADD COLUMN owner TEXT;
ALTER TABLE tasks ADD COLUMN replica TEXT;
CREATE INDEX tasks_owner_status_updated ON tasks (owner, status, last_updated_at, seq);
CREATE INDEX tasks_owner_status_created ON tasks (owner, status, created_at, seq);
CREATE INDEX tasks_replica ON tasks (replica, status) WHERE replica IS NOT NULL;
CREATE TABLE replicas (
    id         TEXT    PRIMARY KEY,
    started_at INTEGER NOT NULL,
    seen_at    INTEGER NOT NULL
) STRICT;
";

/// Version 4: what calls measured (`measurements`), the last few calls
/// of each tool, for the built-in concern `cost`; the index walks one
/// tool's calls newest first. PostgreSQL's are the same (sieve-postgres
/// `migrations/0008_measurements.sql`).
const SCHEMA_V4: &str = "
CREATE TABLE measurements (
    id            INTEGER PRIMARY KEY,
    server        TEXT    NOT NULL,
    tool          TEXT    NOT NULL,
    at            INTEGER NOT NULL,
    result_tokens INTEGER NOT NULL CHECK (result_tokens >= 0),
    duration_ms   INTEGER NOT NULL CHECK (duration_ms >= 0)
) STRICT;
CREATE INDEX measurements_tool ON measurements (server, tool, id);
";

/// Sorts SQLite's failures into the ones a person can act on.
pub(super) fn sql_error(
    path: &Path,
    action: &'static str,
) -> impl FnOnce(rusqlite::Error) -> LedgerError + use<> {
    let path = path.to_path_buf();
    move |source| match source.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => {
            LedgerError::Corrupt { path, source }
        }
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            LedgerError::Busy { action, path }
        }
        Some(ErrorCode::DiskFull) => LedgerError::DiskFull {
            ledger: Location::File(path),
        },
        _ => LedgerError::Sqlite {
            action,
            path,
            source,
        },
    }
}

impl ToSql for Arg {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        match self {
            Arg::Int(value) => value.to_sql(),
            Arg::Text(value) => value.to_sql(),
            Arg::MaybeText(value) => value.to_sql(),
        }
    }
}

/// The ledger's file, on one connection that clones share.
#[derive(Clone)]
pub(super) struct Sqlite {
    conn: Arc<Mutex<Connection>>,
    path: Arc<PathBuf>,
    location: Location,
}

impl Sqlite {
    /// Opens the ledger at `path`, creating it (and its folder) if missing
    /// and bringing its schema up to date.
    pub(super) fn open(path: &Path) -> Result<Sqlite, LedgerError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir).map_err(|source| LedgerError::Io {
                action: "create the folder of the task ledger",
                path: dir.to_path_buf(),
                source,
            })?;
        }
        create_private(path)?;
        let mut conn = Connection::open(path).map_err(sql_error(path, "opening it"))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(sql_error(path, "setting the busy timeout"))?;
        let mode: String = conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
            .map_err(sql_error(path, "switching to write-ahead logging"))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(LedgerError::NoWal {
                path: path.to_path_buf(),
                mode,
            });
        }
        // NORMAL is durable in WAL mode except for the last commits before
        // a power cut, which a task ledger can afford; it saves an fsync
        // per status change.
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sql_error(path, "setting synchronous"))?;
        conn.pragma_update(None, "foreign_keys", true)
            .map_err(sql_error(path, "enabling foreign keys"))?;
        migrate(&mut conn, path)?;
        Ok(Sqlite {
            conn: Arc::new(Mutex::new(conn)),
            path: Arc::new(path.to_path_buf()),
            location: Location::File(path.to_path_buf()),
        })
    }

    pub(super) fn location(&self) -> &Location {
        &self.location
    }

    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// The connection. A panic while it was held leaves nothing half
    /// done (an open transaction rolls back on drop), so poison is ignored.
    pub(super) fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn error(&self, action: &'static str) -> impl FnOnce(rusqlite::Error) -> LedgerError + use<> {
        sql_error(&self.path, action)
    }

    /// Adds entries in one transaction: all of them or, on an error, none.
    pub(super) fn insert_all(
        &self,
        entries: impl Iterator<Item = Entry>,
    ) -> Result<usize, LedgerError> {
        let mut conn = self.conn();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(self.error("starting an insert"))?;
        let mut count = 0;
        {
            let mut insert = tx
                .prepare_cached(&Dialect::Sqlite.insert())
                .map_err(self.error("preparing an insert"))?;
            for e in entries {
                insert
                    .execute(params![
                        e.id,
                        e.kind,
                        e.server,
                        e.upstream_id,
                        e.method,
                        e.tool,
                        e.params,
                        e.status,
                        e.status_message,
                        e.created_at,
                        e.last_updated_at,
                        e.ttl_ms,
                        e.poll_interval_ms,
                        e.profile,
                        e.retry_of,
                        e.result,
                        e.owner,
                        e.replica,
                    ])
                    .map_err(|error| self.insert_error(&e, error))?;
                count += 1;
            }
        }
        tx.commit().map_err(self.error("committing an insert"))?;
        Ok(count)
    }

    fn insert_error(&self, entry: &Entry, error: rusqlite::Error) -> LedgerError {
        let unique = error
            .sqlite_error()
            .is_some_and(|e| e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE);
        if unique {
            duplicate(
                &self.location,
                entry,
                error.to_string().contains("upstream_id"),
            )
        } else {
            self.error("inserting an entry")(error)
        }
    }

    /// See [`Ledger::update`](super::Ledger::update).
    pub(super) fn update(
        &self,
        id: &str,
        status: TaskStatus,
        message: Option<&str>,
        result: Option<&Value>,
        now_ms: i64,
    ) -> Result<bool, LedgerError> {
        let mut conn = self.conn();
        // IMMEDIATE: the existence check must see the same state the
        // update saw, even with other processes writing.
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(self.error("starting an update"))?;
        let [t1, t2, t3] = TERMINAL;
        let changed = tx
            .execute(
                "UPDATE tasks SET status = ?2,
                    status_message = coalesce(?3, status_message),
                    result = coalesce(?4, result),
                    last_updated_at = max(?5, created_at)
                 WHERE id = ?1 AND (?6 OR status NOT IN (?7, ?8, ?9))",
                params![
                    id,
                    status.as_str(),
                    message,
                    result.map(Value::to_string),
                    now_ms,
                    status.is_terminal(),
                    t1.as_str(),
                    t2.as_str(),
                    t3.as_str(),
                ],
            )
            .map_err(self.error("updating an entry"))?;
        let exists = changed > 0
            || tx
                .query_row("SELECT 1 FROM tasks WHERE id = ?1", [id], |_| Ok(()))
                .optional()
                .map_err(self.error("looking up an entry"))?
                .is_some();
        tx.commit().map_err(self.error("committing an update"))?;
        Ok(exists)
    }

    /// The entries `sql`, a select of `COLUMNS`, finds with `args`.
    pub(super) fn select(
        &self,
        sql: &str,
        args: &[Arg],
        action: &'static str,
    ) -> Result<Vec<Entry>, LedgerError> {
        self.query(sql, args, action, entry_of)
    }

    /// The audit records `sql`, a select of `AUDIT_COLUMNS`, finds.
    pub(super) fn select_audit(
        &self,
        sql: &str,
        args: &[Arg],
        action: &'static str,
    ) -> Result<Vec<AuditRow>, LedgerError> {
        self.query(sql, args, action, |row| Ok(audit_of_row!(row, get)))
    }

    /// The measured calls `sql`, a select of `MEASURED_COLUMNS`, finds.
    pub(super) fn select_measured(
        &self,
        sql: &str,
        args: &[Arg],
        action: &'static str,
    ) -> Result<Vec<MeasuredRow>, LedgerError> {
        self.query(sql, args, action, |row| Ok(measured_of_row!(row, get)))
    }

    /// The rows `sql` finds with `args`, each read by `read`.
    fn query<T>(
        &self,
        sql: &str,
        args: &[Arg],
        action: &'static str,
        read: impl Fn(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, LedgerError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(sql).map_err(self.error(action))?;
        let mut rows = stmt
            .query(params_from_iter(args))
            .map_err(self.error(action))?;
        let mut found = Vec::new();
        while let Some(row) = rows.next().map_err(self.error(action))? {
            found.push(read(row).map_err(self.error(action))?);
        }
        Ok(found)
    }

    /// Runs `sql`, returning how many rows it changed.
    pub(super) fn execute(
        &self,
        sql: &str,
        args: &[Arg],
        action: &'static str,
    ) -> Result<usize, LedgerError> {
        self.conn()
            .execute(sql, params_from_iter(args))
            .map_err(self.error(action))
    }

    /// Runs `plan`'s arms in one read transaction, so every arm sees the
    /// same snapshot, stepping each only as far as `merge` asks.
    pub(super) fn list(&self, plan: &ListPlan, merge: &mut Merge) -> Result<TaskPage, LedgerError> {
        let mut conn = self.conn();
        let tx = conn
            .transaction()
            .map_err(self.error("starting a listing"))?;
        let page = {
            let mut statements = Vec::with_capacity(plan.arms.len());
            for (sql, _) in &plan.arms {
                statements.push(
                    tx.prepare_cached(sql)
                        .map_err(self.error("preparing a listing"))?,
                );
            }
            let mut arms = Vec::with_capacity(plan.arms.len());
            for (statement, (_, args)) in statements.iter_mut().zip(&plan.arms) {
                arms.push(
                    statement
                        .query(params_from_iter(args))
                        .map_err(self.error("listing entries"))?,
                );
            }
            loop {
                match merge.step() {
                    Step::Page(page) => break page,
                    Step::Fill(needed) => {
                        for arm in needed {
                            match arms[arm].next().map_err(self.error("listing entries"))? {
                                Some(row) => {
                                    let entry =
                                        entry_of(row).map_err(self.error("listing entries"))?;
                                    merge.fill(arm, [entry.into_record(&self.location)?], false);
                                }
                                None => merge.fill(arm, [], true),
                            }
                        }
                    }
                }
            }
        };
        tx.commit().map_err(self.error("finishing a listing"))?;
        Ok(page)
    }
}

/// A row selected with `COLUMNS`.
fn entry_of(row: &Row<'_>) -> rusqlite::Result<Entry> {
    Ok(entry_of_row!(row, get))
}

/// Brings the schema to the newest version, inside one `IMMEDIATE`
/// transaction so two processes opening a new file do not both create it.
fn migrate(conn: &mut Connection, path: &Path) -> Result<(), LedgerError> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql_error(path, "starting the schema check"))?;
    let found: i64 = tx
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .map_err(sql_error(path, "reading the schema version"))?;
    let known = MIGRATIONS.len() as i64;
    if !(0..=known).contains(&found) {
        return Err(LedgerError::TooNew {
            path: path.to_path_buf(),
            found,
            known,
        });
    }
    if found < known {
        for migration in &MIGRATIONS[found as usize..] {
            tx.execute_batch(migration)
                .map_err(sql_error(path, "updating the schema"))?;
        }
        tx.pragma_update(None, "user_version", known)
            .map_err(sql_error(path, "recording the schema version"))?;
    }
    tx.commit()
        .map_err(sql_error(path, "committing the schema"))
}

/// Creates the file readable by this user only before SQLite opens it, so
/// no other user ever gets a chance to open it. SQLite gives the `-wal`
/// and `-shm` files the database's permissions.
#[cfg(unix)]
fn create_private(path: &Path) -> Result<(), LedgerError> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let io_error = |action| {
        move |source| LedgerError::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    };
    match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            // Task params can hold secrets: a ledger others can read (made
            // by hand or by an old version) is made private.
            let mode = fs::metadata(path)
                .map_err(io_error("read the permissions of"))?
                .permissions()
                .mode();
            if mode & 0o077 != 0 {
                fs::set_permissions(path, fs::Permissions::from_mode(0o600))
                    .map_err(io_error("make private (mode 0600)"))?;
            }
            Ok(())
        }
        Err(e) => Err(io_error("create the task ledger")(e)),
    }
}

#[cfg(not(unix))]
fn create_private(_path: &Path) -> Result<(), LedgerError> {
    Ok(())
}
