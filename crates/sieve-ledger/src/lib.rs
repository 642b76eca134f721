//! The task ledger: every task a Sieve proxy started upstream, and every
//! plain call that failed or was cut off, in one SQLite file (`tasks.db`)
//! that several proxy processes and the app read and write at once.
//!
//! [`Ledger`] is a cheap, cloneable handle on one connection. Sharing
//! between processes rests on SQLite itself: write-ahead logging so readers
//! never block the writer, a 10 s busy timeout so writers queue instead of
//! failing, and writes that are each one statement or one `IMMEDIATE`
//! transaction, so no read-then-write can lose an update. The schema is
//! versioned with `PRAGMA user_version`; a file from a newer MCP Sieve is
//! refused rather than guessed at.
//!
//! # Listing
//!
//! [`Ledger::list`] answers `tasks/list` with keyset pagination: rows are
//! ordered by the query's key (`created_at` or `last_updated_at`) and then
//! by `seq`, the row's insertion number, so a
//! [`Cursor`](sieve_core::tasks::Cursor) `(key, seq)` names a position
//! exactly even when thousands of entries share one millisecond. Every
//! listing walks one index in order, never the table (`query` says how).
//!
//! A cursor is a position, not a query: handed to a listing in another
//! order it is read as a position in that order, and the listing continues
//! strictly after it. That is well defined and never repeats an entry
//! within one order, so it is accepted rather than refused.
//!
//! The caller's `visible` test (tools its profile hides) runs after SQL.
//! The merge keeps going until the page is full, so hidden entries do not
//! shorten pages, but stops after examining [`EXAMINE_FACTOR`] × limit
//! entries and returns a cursor after the last one examined, so a listing
//! where nearly everything is hidden still answers promptly.
//!
//! Layout: this file holds the [`Ledger`] and its errors; `schema` the
//! table, its indexes, the migrations and how a row reads back; `query`
//! a listing's plan as SQL and the merge of its arms into a page.

mod query;
mod schema;
#[cfg(test)]
mod tests;

use query::{ListPlan, placeholders, text};
use rusqlite::types::Value as SqlValue;
use rusqlite::{
    Connection, ErrorCode, OptionalExtension, TransactionBehavior, params, params_from_iter,
};
use schema::{COLUMNS, migrate, read_row};
use serde_json::Value;
use sieve_core::tasks::{EntryKind, MAX_LIMIT, TaskQuery, TaskRecord, TaskStatus};
use std::borrow::Borrow;
use std::fmt::{self, Write as _};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// How long a writer waits for another process's write before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// A listing examines at most this many entries per entry of its limit
/// before it returns what it has, so hidden entries cannot make it slow.
pub const EXAMINE_FACTOR: usize = 20;

/// What can go wrong with the task ledger. Each message names the file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LedgerError {
    #[error("cannot {action} {path}: {source}; check that this user may write there")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error(
        "{path} is not a task ledger SQLite can read ({source}); move it aside to start an empty ledger, or restore it from a backup"
    )]
    Corrupt {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error(
        "the task ledger {path} has version {found}, but this MCP Sieve knows versions up to {known}; update MCP Sieve, or move the file aside to start an empty ledger"
    )]
    TooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error(
        "the task ledger {path} cannot use write-ahead logging (journal mode stays {mode:?}), which sharing it between processes needs; keep it on a local disk"
    )]
    NoWal { path: PathBuf, mode: String },
    #[error(
        "the task ledger {path} stayed locked by another process for over {} s while {action}; try again, and if it persists, stop stray mcp-sieve processes",
        BUSY_TIMEOUT.as_secs()
    )]
    Busy { action: &'static str, path: PathBuf },
    #[error("the disk holding the task ledger {path} is full; free some space and try again")]
    DiskFull { path: PathBuf },
    #[error("task {id} is already in the task ledger {path}; give the new entry a new id")]
    DuplicateId { path: PathBuf, id: String },
    #[error(
        "server {server:?} already has an entry for its task {upstream_id:?} in the task ledger {path}; update that entry instead"
    )]
    DuplicateUpstream {
        path: PathBuf,
        server: String,
        upstream_id: String,
    },
    #[error(
        "entry {id} in the task ledger {path} has an unreadable {field} ({detail}); something other than MCP Sieve changed the file: delete that entry, or move the file aside"
    )]
    BadEntry {
        path: PathBuf,
        id: String,
        field: &'static str,
        detail: String,
    },
    #[error("the task ledger {path} failed while {action}: {source}")]
    Sqlite {
        action: &'static str,
        path: PathBuf,
        source: rusqlite::Error,
    },
}

/// Sorts SQLite's failures into the ones a person can act on.
fn sql_error(path: &Path, action: &'static str) -> impl FnOnce(rusqlite::Error) -> LedgerError {
    let path = path.to_path_buf();
    move |source| match source.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => {
            LedgerError::Corrupt { path, source }
        }
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            LedgerError::Busy { action, path }
        }
        Some(ErrorCode::DiskFull) => LedgerError::DiskFull { path },
        _ => LedgerError::Sqlite {
            action,
            path,
            source,
        },
    }
}

/// One page of a listing.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskPage {
    pub tasks: Vec<TaskRecord>,
    /// Where the next page starts, when more entries may follow.
    pub next_cursor: Option<String>,
}

/// A handle on the task ledger; clones share one connection.
#[derive(Clone)]
pub struct Ledger {
    conn: Arc<Mutex<Connection>>,
    path: Arc<PathBuf>,
}

impl fmt::Debug for Ledger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ledger").field("path", &self.path).finish()
    }
}

impl Ledger {
    /// Opens the ledger at `path`, creating it (and its folder) if missing
    /// and bringing its schema up to date.
    pub fn open(path: &Path) -> Result<Ledger, LedgerError> {
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
        Ok(Ledger {
            conn: Arc::new(Mutex::new(conn)),
            path: Arc::new(path.to_path_buf()),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The connection. A panic while it was held leaves nothing half
    /// done (an open transaction rolls back on drop), so poison is ignored.
    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn error(&self, action: &'static str) -> impl FnOnce(rusqlite::Error) -> LedgerError {
        sql_error(&self.path, action)
    }

    /// Adds one entry. Its id must be new, and so must its upstream task id
    /// on its server.
    pub fn insert(&self, record: &TaskRecord) -> Result<(), LedgerError> {
        self.insert_all([record]).map(drop)
    }

    /// Adds entries in one transaction: all of them or, on an error, none.
    /// `last_updated_at` is stored as no earlier than `created_at`, which
    /// listings rely on.
    pub fn insert_all<I>(&self, records: I) -> Result<usize, LedgerError>
    where
        I: IntoIterator,
        I::Item: Borrow<TaskRecord>,
    {
        let mut conn = self.conn();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(self.error("starting an insert"))?;
        let mut count = 0;
        {
            let mut insert = tx
                .prepare_cached(&format!(
                    "INSERT INTO tasks ({}) VALUES (NULL{})",
                    COLUMNS,
                    ", ?".repeat(16)
                ))
                .map_err(self.error("preparing an insert"))?;
            for record in records {
                let r = record.borrow();
                insert
                    .execute(params![
                        r.id,
                        r.kind.as_str(),
                        r.server,
                        r.upstream_id,
                        r.method,
                        r.tool,
                        r.params.to_string(),
                        r.status.as_str(),
                        r.status_message,
                        r.created_at,
                        r.last_updated_at.max(r.created_at),
                        r.ttl_ms,
                        r.poll_interval_ms,
                        r.profile,
                        r.retry_of,
                        r.result.as_ref().map(Value::to_string),
                    ])
                    .map_err(|e| self.insert_error(r, e))?;
                count += 1;
            }
        }
        tx.commit().map_err(self.error("committing an insert"))?;
        Ok(count)
    }

    fn insert_error(&self, record: &TaskRecord, error: rusqlite::Error) -> LedgerError {
        let unique = error
            .sqlite_error()
            .is_some_and(|e| e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE);
        match (unique, &record.upstream_id) {
            (true, Some(upstream_id)) if error.to_string().contains("upstream_id") => {
                LedgerError::DuplicateUpstream {
                    path: self.path.to_path_buf(),
                    server: record.server.clone(),
                    upstream_id: upstream_id.clone(),
                }
            }
            (true, _) => LedgerError::DuplicateId {
                path: self.path.to_path_buf(),
                id: record.id.clone(),
            },
            _ => self.error("inserting an entry")(error),
        }
    }

    /// Records a new status. Returns false when there is no entry `id`.
    /// A finished entry keeps its final status when a late, out-of-order
    /// notification says it is still working; such an update changes
    /// nothing. `message` and `result` replace the stored ones only when
    /// given.
    pub fn update(
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

    pub fn get(&self, id: &str) -> Result<Option<TaskRecord>, LedgerError> {
        self.select_one(&format!("SELECT {COLUMNS} FROM tasks WHERE id = ?1"), &[id])
    }

    /// The entry of `server`'s task `upstream_id`, to apply its
    /// notifications.
    pub fn find_upstream(
        &self,
        server: &str,
        upstream_id: &str,
    ) -> Result<Option<TaskRecord>, LedgerError> {
        self.select_one(
            &format!("SELECT {COLUMNS} FROM tasks WHERE server = ?1 AND upstream_id = ?2"),
            &[server, upstream_id],
        )
    }

    /// The one entry a lookup by a unique key finds.
    fn select_one(&self, sql: &str, args: &[&str]) -> Result<Option<TaskRecord>, LedgerError> {
        let found = self.select(sql, args, ("preparing a lookup", "looking up an entry"))?;
        Ok(found.into_iter().next())
    }

    /// The entries `sql`, a select of [`COLUMNS`], finds with `args`;
    /// `actions` say what was being prepared and done, for errors.
    fn select<A: rusqlite::ToSql>(
        &self,
        sql: &str,
        args: &[A],
        (preparing, reading): (&'static str, &'static str),
    ) -> Result<Vec<TaskRecord>, LedgerError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(sql).map_err(self.error(preparing))?;
        let mut rows = stmt
            .query(params_from_iter(args))
            .map_err(self.error(reading))?;
        let mut tasks = Vec::new();
        while let Some(row) = rows.next().map_err(self.error(reading))? {
            tasks.push(read_row(&self.path, row)?.1);
        }
        Ok(tasks)
    }

    /// Upstream tasks still running, oldest first: what to resume polling
    /// after a restart.
    pub fn live(&self) -> Result<Vec<TaskRecord>, LedgerError> {
        let live = TaskStatus::ALL.iter().filter(|s| !s.is_terminal());
        let mut args: Vec<SqlValue> = live.clone().map(|s| text(s.as_str())).collect();
        args.push(text(EntryKind::Task.as_str()));
        let sql = format!(
            "SELECT {COLUMNS} FROM tasks WHERE status IN ({}) AND kind = ? \
             AND upstream_id IS NOT NULL ORDER BY created_at, seq",
            placeholders(live.count())
        );
        self.select(
            &sql,
            &args,
            ("preparing the live tasks query", "listing live tasks"),
        )
    }

    /// Retention: deletes finished entries last updated before
    /// `finished_before_ms`, returning how many.
    pub fn purge(&self, finished_before_ms: i64) -> Result<usize, LedgerError> {
        let [t1, t2, t3] = TERMINAL;
        self.conn()
            .execute(
                "DELETE FROM tasks WHERE status IN (?1, ?2, ?3) AND last_updated_at < ?4",
                params![t1.as_str(), t2.as_str(), t3.as_str(), finished_before_ms],
            )
            .map_err(self.error("purging finished entries"))
    }

    /// A new Sieve task id: `st-` and 96 random bits in hex, so ids made by
    /// different processes for different servers never collide.
    pub fn new_id() -> String {
        let mut bytes = [0u8; 12];
        getrandom::fill(&mut bytes).expect("the operating system's random source failed");
        let mut id = String::with_capacity(3 + 2 * bytes.len());
        id.push_str("st-");
        for byte in bytes {
            let _ = write!(id, "{byte:02x}");
        }
        id
    }

    /// One page of `query`, showing only entries `visible` accepts.
    /// `visible` runs while the ledger is locked: it must not call back
    /// into this ledger.
    pub fn list(
        &self,
        query: &TaskQuery,
        visible: &dyn Fn(&TaskRecord) -> bool,
    ) -> Result<TaskPage, LedgerError> {
        let limit = query.limit.clamp(1, MAX_LIMIT) as usize;
        let budget = limit * EXAMINE_FACTOR;
        let Some(plan) = ListPlan::new(query, budget + 1) else {
            return Ok(TaskPage {
                tasks: Vec::new(),
                next_cursor: None,
            });
        };
        let mut conn = self.conn();
        // One read transaction, so every arm sees the same snapshot.
        let tx = conn
            .transaction()
            .map_err(self.error("starting a listing"))?;
        let page = plan.page(&tx, &self.path, query, limit, budget, visible)?;
        tx.commit().map_err(self.error("finishing a listing"))?;
        Ok(page)
    }
}

/// The statuses that never change again.
const TERMINAL: [TaskStatus; 3] = [
    TaskStatus::Completed,
    TaskStatus::Failed,
    TaskStatus::Cancelled,
];

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
