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
//! by `seq`, the row's insertion number, so a [`Cursor`] `(key, seq)` names
//! a position exactly even when thousands of entries share one millisecond.
//! Every listing walks one index in order, never the table:
//!
//! * `taskIds` are looked up by id (the list is short by nature).
//! * Otherwise the `servers`, `methods` and `status` filters pick an index
//!   whose leading columns they fix, e.g. `(server, status, key, seq)`.
//!   Each combination of their values is one *arm*, an ordered walk of one
//!   slice of that index, and the arms are merged here. `status` has only
//!   five values, so an index led by `server, status` also serves a
//!   `servers` filter alone (five arms): fewer indexes for every write.
//! * Time bounds on the order key, and those implied by `created_at <=
//!   last_updated_at` (`createdAfter` bounds `last_updated_at` too), are
//!   index ranges, so a walk starts and stops where they say. Bounds on
//!   the other time column are checked row by row.
//! * A cursor splits each arm in two: the entries sharing the cursor's key
//!   (`key = ? AND seq < ?`, one seek) and those beyond that key. SQLite
//!   does not seek on the `seq` half of a row value `(key, seq) < (?, ?)`,
//!   and would step through every entry of a crowded millisecond.
//! * Indexes are named with `INDEXED BY`: without statistics the planner
//!   can pick a worse one, and the `EXPLAIN QUERY PLAN` test pins the plans.
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

use rusqlite::types::Value as SqlValue;
use rusqlite::{
    Connection, ErrorCode, OptionalExtension, Row, Rows, TransactionBehavior, params,
    params_from_iter,
};
use serde_json::Value;
use sieve_core::tasks::{Cursor, EntryKind, MAX_LIMIT, OrderBy, TaskQuery, TaskRecord, TaskStatus};
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

/// More arms than this and the listing uses a shorter index prefix,
/// filtering the remaining lists row by row instead.
const MAX_ARMS: usize = 64;

/// Schema versions, in order: entry `n` takes a file from version `n` to
/// `n + 1`. Never edit one that has shipped; append a new one.
const MIGRATIONS: &[&str] = &[SCHEMA_V1];

/// Version 1. `seq` is AUTOINCREMENT so a purged row's number is never
/// reused: cursors stay positions in one history. No foreign key on
/// `retry_of`: a retry must outlive the purge of the entry it retried.
const SCHEMA_V1: &str = "
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

/// A column a listing can fix with an equality.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Server,
    Method,
    Status,
}

impl Column {
    fn name(self) -> &'static str {
        match self {
            Column::Server => "server",
            Column::Method => "method",
            Column::Status => "status",
        }
    }
}

/// The listing indexes of [`SCHEMA_V1`]: leading equality columns, then
/// the index by `last_updated_at` and the one by `created_at`. Best first.
const LISTING_INDEXES: [(&[Column], &str, &str); 5] = [
    (
        &[Column::Server, Column::Method, Column::Status],
        "tasks_server_method_status_updated",
        "tasks_server_method_status_created",
    ),
    (
        &[Column::Server, Column::Status],
        "tasks_server_status_updated",
        "tasks_server_status_created",
    ),
    (
        &[Column::Method, Column::Status],
        "tasks_method_status_updated",
        "tasks_method_status_created",
    ),
    (
        &[Column::Status],
        "tasks_status_updated",
        "tasks_status_created",
    ),
    (&[], "tasks_updated", "tasks_created"),
];

const COLUMNS: &str = "seq, id, kind, server, upstream_id, method, tool, params, status, \
     status_message, created_at, last_updated_at, ttl_ms, poll_interval_ms, profile, retry_of, result";

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

    fn select_one(&self, sql: &str, args: &[&str]) -> Result<Option<TaskRecord>, LedgerError> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare_cached(sql)
            .map_err(self.error("preparing a lookup"))?;
        let mut rows = stmt
            .query(params_from_iter(args))
            .map_err(self.error("looking up an entry"))?;
        match rows.next().map_err(self.error("looking up an entry"))? {
            Some(row) => Ok(Some(read_row(&self.path, row)?.1)),
            None => Ok(None),
        }
    }

    /// Upstream tasks still running, oldest first: what to resume polling
    /// after a restart.
    pub fn live(&self) -> Result<Vec<TaskRecord>, LedgerError> {
        let conn = self.conn();
        let live = TaskStatus::ALL.iter().filter(|s| !s.is_terminal());
        let mut args: Vec<SqlValue> = live.clone().map(|s| text(s.as_str())).collect();
        args.push(text(EntryKind::Task.as_str()));
        let sql = format!(
            "SELECT {COLUMNS} FROM tasks WHERE status IN ({}) AND kind = ? \
             AND upstream_id IS NOT NULL ORDER BY created_at, seq",
            placeholders(live.count())
        );
        let mut stmt = conn
            .prepare_cached(&sql)
            .map_err(self.error("preparing the live tasks query"))?;
        let mut rows = stmt
            .query(params_from_iter(args))
            .map_err(self.error("listing live tasks"))?;
        let mut tasks = Vec::new();
        while let Some(row) = rows.next().map_err(self.error("listing live tasks"))? {
            tasks.push(read_row(&self.path, row)?.1);
        }
        Ok(tasks)
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
        let page = self.merge(&tx, &plan, query, limit, budget, visible)?;
        tx.commit().map_err(self.error("finishing a listing"))?;
        Ok(page)
    }

    /// Merges the arms of `plan` in order, skipping hidden entries.
    fn merge(
        &self,
        conn: &Connection,
        plan: &ListPlan,
        query: &TaskQuery,
        limit: usize,
        budget: usize,
        visible: &dyn Fn(&TaskRecord) -> bool,
    ) -> Result<TaskPage, LedgerError> {
        let mut statements = Vec::with_capacity(plan.arms.len());
        for (sql, _) in &plan.arms {
            statements.push(
                conn.prepare_cached(sql)
                    .map_err(self.error("preparing a listing"))?,
            );
        }
        let mut arms = Vec::with_capacity(plan.arms.len());
        for (statement, (_, args)) in statements.iter_mut().zip(&plan.arms) {
            let rows = statement
                .query(params_from_iter(args))
                .map_err(self.error("listing entries"))?;
            let mut arm = Arm { rows, head: None };
            arm.advance(&self.path, query)?;
            arms.push(arm);
        }
        let ahead = |a: (i64, i64), b: (i64, i64)| if query.descending { a > b } else { a < b };
        let mut tasks = Vec::new();
        let mut examined = 0;
        loop {
            let next = arms
                .iter()
                .enumerate()
                .filter_map(|(i, arm)| arm.head.as_ref().map(|head| (i, head.0)))
                .reduce(|best, other| if ahead(other.1, best.1) { other } else { best });
            let Some((index, (key, seq))) = next else {
                return Ok(TaskPage {
                    tasks,
                    next_cursor: None,
                });
            };
            let (_, record) = arms[index]
                .advance(&self.path, query)?
                .expect("arm has a head");
            examined += 1;
            if visible(&record) {
                tasks.push(record);
            }
            if tasks.len() == limit || examined == budget {
                let more = arms.iter().any(|arm| arm.head.is_some());
                return Ok(TaskPage {
                    tasks,
                    next_cursor: more.then(|| Cursor { key, seq }.encode()),
                });
            }
        }
    }
}

/// The statuses that never change again.
const TERMINAL: [TaskStatus; 3] = [
    TaskStatus::Completed,
    TaskStatus::Failed,
    TaskStatus::Cancelled,
];

/// An entry and its place in a listing's order: `(key, seq)`.
type Placed = ((i64, i64), TaskRecord);

/// One ordered stream of a listing, with its next entry read ahead.
struct Arm<'s> {
    rows: Rows<'s>,
    head: Option<Placed>,
}

impl Arm<'_> {
    /// Returns the head and reads the next one.
    fn advance(&mut self, path: &Path, query: &TaskQuery) -> Result<Option<Placed>, LedgerError> {
        let next = match self
            .rows
            .next()
            .map_err(sql_error(path, "listing entries"))?
        {
            Some(row) => {
                let (seq, record) = read_row(path, row)?;
                Some(((query.key(&record), seq), record))
            }
            None => None,
        };
        Ok(std::mem::replace(&mut self.head, next))
    }
}

/// A listing as ordered walks of index slices (arms), each an SQL
/// statement and its parameters.
#[derive(Debug)]
struct ListPlan {
    arms: Vec<(String, Vec<SqlValue>)>,
}

impl ListPlan {
    /// `None` when the bounds leave nothing to list. Each arm returns at
    /// most `arm_limit` rows.
    fn new(query: &TaskQuery, arm_limit: usize) -> Option<ListPlan> {
        let (key, other) = match query.order_by {
            OrderBy::CreatedAt => ("created_at", "last_updated_at"),
            OrderBy::LastUpdatedAt => ("last_updated_at", "created_at"),
        };
        let (key_after, key_before, other_after, other_before) = match query.order_by {
            OrderBy::CreatedAt => (
                query.created_after,
                query.created_before,
                query.last_updated_after,
                query.last_updated_before,
            ),
            OrderBy::LastUpdatedAt => (
                query.last_updated_after,
                query.last_updated_before,
                query.created_after,
                query.created_before,
            ),
        };
        // Exclusive bounds on the key. created_at <= last_updated_at, so
        // a bound on one side of that bounds the other, which keeps the
        // walk short.
        let mut low = key_after;
        let mut high = key_before;
        match query.order_by {
            OrderBy::LastUpdatedAt => low = low.max(other_after),
            OrderBy::CreatedAt => high = min_some(high, other_before),
        }
        // SQLite seeks to `key < ?` but not to the `seq` part of a row
        // value `(key, seq) < (?, ?)`: it would step through every entry
        // sharing the cursor's key. So what follows a cursor is two walks,
        // the entries sharing its key (`key = ? AND seq < ?`, a seek) and
        // those beyond its key.
        let (seq_op, tie, beyond_low, beyond_high) = match query.cursor {
            None => ("<", None, low, high),
            Some(c) if query.descending => ("<", Some(c), low, min_some(high, Some(c.key))),
            Some(c) => (">", Some(c), low.max(Some(c.key)), high),
        };
        let within = |k: i64| low.is_none_or(|l| k > l) && high.is_none_or(|h| k < h);
        let mut walks: Vec<(Vec<String>, Vec<SqlValue>)> = Vec::new();
        if let Some(c) = tie.filter(|c| within(c.key)) {
            walks.push((
                vec![format!("{key} = ?"), format!("seq {seq_op} ?")],
                vec![SqlValue::Integer(c.key), SqlValue::Integer(c.seq)],
            ));
        }
        let open_range = match (beyond_low, beyond_high) {
            (Some(l), Some(h)) => l.checked_add(1).is_some_and(|next| next < h),
            _ => true,
        };
        if open_range {
            let mut walk = (Vec::new(), Vec::new());
            for (bound, op) in [(beyond_low, ">"), (beyond_high, "<")] {
                if let Some(t) = bound {
                    walk.0.push(format!("{key} {op} ?"));
                    walk.1.push(SqlValue::Integer(t));
                }
            }
            walks.push(walk);
        }
        if walks.is_empty() {
            return None;
        }

        let ids = distinct(query.task_ids.iter().map(String::as_str));
        let servers = distinct(query.servers.iter().map(String::as_str));
        let methods = distinct(query.methods.iter().map(String::as_str));
        let statuses = distinct(query.statuses.iter().map(|s| s.as_str()));
        let all_statuses: Vec<&str> = TaskStatus::ALL.iter().map(|s| s.as_str()).collect();
        let values = |column: Column| match column {
            Column::Server => &servers,
            Column::Method => &methods,
            Column::Status if statuses.is_empty() => &all_statuses,
            Column::Status => &statuses,
        };

        // Ids pick their few rows through the id index; otherwise the
        // first index whose leading columns are all filtered (status may
        // be enumerated) and whose arms stay few.
        let (index, prefix): (&str, &[Column]) = if !ids.is_empty() {
            ("tasks_id", &[])
        } else {
            LISTING_INDEXES
                .iter()
                .find(|(prefix, _, _)| {
                    let usable = prefix
                        .iter()
                        .all(|&c| c == Column::Status || !values(c).is_empty())
                        && (prefix != &[Column::Status] || !statuses.is_empty());
                    let arms: usize = prefix.iter().map(|&c| values(c).len()).product();
                    usable && arms <= MAX_ARMS
                })
                .map(|&(prefix, updated, created)| {
                    let name = match query.order_by {
                        OrderBy::LastUpdatedAt => updated,
                        OrderBy::CreatedAt => created,
                    };
                    (name, prefix)
                })
                .expect("the plain index takes any query")
        };

        let mut terms: Vec<String> = prefix.iter().map(|c| format!("{} = ?", c.name())).collect();
        let mut common: Vec<SqlValue> = Vec::new();
        let mut one_of = |column: &str, list: &[&str], terms: &mut Vec<String>| {
            if !list.is_empty() {
                terms.push(format!("{column} IN ({})", placeholders(list.len())));
                common.extend(list.iter().map(|v| text(v)));
            }
        };
        one_of("id", &ids, &mut terms);
        for column in [Column::Server, Column::Method, Column::Status] {
            if !prefix.contains(&column) {
                let list = if column == Column::Status {
                    &statuses
                } else {
                    values(column)
                };
                one_of(column.name(), list, &mut terms);
            }
        }
        for (bound, op) in [(other_after, ">"), (other_before, "<")] {
            if let Some(t) = bound {
                terms.push(format!("{other} {op} ?"));
                common.push(SqlValue::Integer(t));
            }
        }
        let limit = SqlValue::Integer(i64::try_from(arm_limit).unwrap_or(i64::MAX));
        let direction = if query.descending { "DESC" } else { "ASC" };
        // Left alone, the planner walks the status index for `taskIds` +
        // `status` (it has no statistics); see the module doc.
        let select = format!("SELECT {COLUMNS} FROM tasks INDEXED BY {index}");
        let order = format!(" ORDER BY {key} {direction}, seq {direction} LIMIT ?");

        let mut combos: Vec<Vec<SqlValue>> = vec![Vec::new()];
        for &column in prefix {
            combos = combos
                .iter()
                .flat_map(|combo| {
                    values(column).iter().map(move |v| {
                        let mut combo = combo.clone();
                        combo.push(text(v));
                        combo
                    })
                })
                .collect();
        }
        let mut arms = Vec::with_capacity(combos.len() * walks.len());
        for (walk_terms, walk_args) in walks {
            let all_terms: Vec<&str> = terms
                .iter()
                .chain(&walk_terms)
                .map(String::as_str)
                .collect();
            let filter = if all_terms.is_empty() {
                String::new()
            } else {
                format!(" WHERE {}", all_terms.join(" AND "))
            };
            let sql = format!("{select}{filter}{order}");
            for combo in &combos {
                let args = combo
                    .iter()
                    .chain(&common)
                    .chain(&walk_args)
                    .chain([&limit])
                    .cloned()
                    .collect();
                arms.push((sql.clone(), args));
            }
        }
        Some(ListPlan { arms })
    }
}
/// The tighter of two optional upper bounds.
fn min_some(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The values of a filter list without repeats, which would repeat arms.
fn distinct<'a>(values: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut list: Vec<&str> = values.collect();
    list.sort_unstable();
    list.dedup();
    list
}

fn placeholders(count: usize) -> String {
    vec!["?"; count].join(", ")
}

fn text(value: &str) -> SqlValue {
    SqlValue::Text(value.to_string())
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

/// An entry and its `seq`, from a row selected with [`COLUMNS`].
fn read_row(path: &Path, row: &Row<'_>) -> Result<(i64, TaskRecord), LedgerError> {
    // Text that needs parsing is read first and checked after, so a bad
    // value is reported with the id of its entry.
    let raw = || -> rusqlite::Result<_> {
        let record = TaskRecord {
            id: row.get(1)?,
            kind: EntryKind::Task,
            server: row.get(3)?,
            upstream_id: row.get(4)?,
            method: row.get(5)?,
            tool: row.get(6)?,
            params: Value::Null,
            status: TaskStatus::Working,
            status_message: row.get(9)?,
            created_at: row.get(10)?,
            last_updated_at: row.get(11)?,
            ttl_ms: row.get(12)?,
            poll_interval_ms: row.get(13)?,
            profile: row.get(14)?,
            retry_of: row.get(15)?,
            result: None,
        };
        let kind: String = row.get(2)?;
        let params: String = row.get(7)?;
        let status: String = row.get(8)?;
        let result: Option<String> = row.get(16)?;
        Ok((row.get::<_, i64>(0)?, record, kind, params, status, result))
    };
    let (seq, mut record, kind, params, status, result) =
        raw().map_err(sql_error(path, "reading an entry"))?;
    let bad = |field: &'static str, detail: String| LedgerError::BadEntry {
        path: path.to_path_buf(),
        id: record.id.clone(),
        field,
        detail,
    };
    let json =
        |field, text: &str| serde_json::from_str(text).map_err(|e| bad(field, e.to_string()));
    let kind = EntryKind::parse(&kind).ok_or_else(|| bad("kind", format!("{kind:?}")))?;
    let status = TaskStatus::parse(&status).ok_or_else(|| bad("status", format!("{status:?}")))?;
    let params = json("params", &params)?;
    let result = result.map(|text| json("result", &text)).transpose()?;
    record.kind = kind;
    record.status = status;
    record.params = params;
    record.result = result;
    Ok((seq, record))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::HashSet;

    const SERVERS: [&str; 3] = ["github", "files", "k8s"];
    const METHODS: [&str; 2] = ["tools/call", "prompts/get"];

    fn record(id: &str, created: i64, updated: i64) -> TaskRecord {
        TaskRecord {
            id: id.into(),
            kind: EntryKind::Task,
            server: "github".into(),
            upstream_id: Some(format!("up-{id}")),
            method: "tools/call".into(),
            tool: Some("github__run_job".into()),
            params: json!({"name": "run_job", "arguments": {"n": 1}}),
            status: TaskStatus::Working,
            status_message: None,
            created_at: created,
            last_updated_at: updated,
            ttl_ms: Some(60_000),
            poll_interval_ms: Some(500),
            profile: Some("default".into()),
            retry_of: None,
            result: None,
        }
    }

    fn open() -> (tempfile::TempDir, Ledger) {
        let dir = tempfile::tempdir().expect("temp dir");
        let ledger = Ledger::open(&dir.path().join("state/tasks.db")).expect("ledger opens");
        (dir, ledger)
    }

    fn count(ledger: &Ledger) -> i64 {
        ledger
            .conn()
            .query_row("SELECT count(*) FROM tasks", [], |row| row.get(0))
            .expect("count")
    }

    /// A varied ledger: three servers, two methods, every status, and
    /// timestamps drawn from a few values so many entries tie. Entry `i`
    /// has `seq` `i + 1`.
    fn fixture(ledger: &Ledger, n: usize) -> Vec<TaskRecord> {
        let records: Vec<TaskRecord> = (0..n)
            .map(|i| {
                let created = 1_000 + (i as i64 / 9) * 10;
                let mut r = record(&format!("t{i:04}"), created, created + (i as i64 % 4) * 7);
                r.server = SERVERS[i % 3].into();
                r.method = METHODS[usize::from(i % 7 == 0)].into();
                r.status = TaskStatus::ALL[(i / 2) % 5];
                if i % 5 == 0 {
                    r.kind = EntryKind::Call;
                    r.upstream_id = None;
                }
                r
            })
            .collect();
        assert_eq!(ledger.insert_all(&records).expect("fixture inserts"), n);
        records
    }

    /// What `list` must return over all pages: the matching visible
    /// entries in order.
    fn expected(
        records: &[TaskRecord],
        query: &TaskQuery,
        visible: &dyn Fn(&TaskRecord) -> bool,
    ) -> Vec<String> {
        let mut rows: Vec<(i64, i64, &TaskRecord)> = records
            .iter()
            .enumerate()
            .filter(|(_, r)| query.matches(r) && visible(r))
            .map(|(i, r)| (query.key(r), i as i64 + 1, r))
            .collect();
        rows.sort_by_key(|&(key, seq, _)| (key, seq));
        if query.descending {
            rows.reverse();
        }
        rows.into_iter().map(|(_, _, r)| r.id.clone()).collect()
    }

    /// Every page of `query`, followed through its cursors.
    fn walk(
        ledger: &Ledger,
        query: &TaskQuery,
        visible: &dyn Fn(&TaskRecord) -> bool,
    ) -> (Vec<String>, usize) {
        let mut query = query.clone();
        let mut ids = Vec::new();
        let mut pages = 0;
        loop {
            let page = ledger.list(&query, visible).expect("list");
            pages += 1;
            assert!(
                page.tasks.len() <= query.limit as usize,
                "page within limit"
            );
            ids.extend(page.tasks.into_iter().map(|t| t.id));
            match page.next_cursor {
                Some(text) => query.cursor = Some(Cursor::decode(&text).expect("our cursor")),
                None => return (ids, pages),
            }
            assert!(pages < 10_000, "listing ends");
        }
    }

    fn all(_: &TaskRecord) -> bool {
        true
    }

    /// Filter shapes: each filter alone and the combinations hosts use.
    fn shapes() -> Vec<(&'static str, TaskQuery)> {
        let q = TaskQuery::default;
        vec![
            ("none", q()),
            (
                "status",
                TaskQuery {
                    statuses: vec![TaskStatus::Failed],
                    ..q()
                },
            ),
            (
                "statuses",
                TaskQuery {
                    statuses: vec![TaskStatus::Working, TaskStatus::Cancelled],
                    ..q()
                },
            ),
            (
                "server",
                TaskQuery {
                    servers: vec!["files".into()],
                    ..q()
                },
            ),
            (
                "servers",
                TaskQuery {
                    servers: vec!["files".into(), "k8s".into()],
                    ..q()
                },
            ),
            (
                "method",
                TaskQuery {
                    methods: vec!["prompts/get".into()],
                    ..q()
                },
            ),
            (
                "taskIds",
                TaskQuery {
                    task_ids: ["t0003", "t0100", "t0101", "t0250", "nope"]
                        .map(String::from)
                        .to_vec(),
                    ..q()
                },
            ),
            (
                "createdAfter",
                TaskQuery {
                    created_after: Some(1_150),
                    ..q()
                },
            ),
            (
                "createdBefore",
                TaskQuery {
                    created_before: Some(1_150),
                    ..q()
                },
            ),
            (
                "lastUpdatedAfter",
                TaskQuery {
                    last_updated_after: Some(1_150),
                    ..q()
                },
            ),
            (
                "lastUpdatedBefore",
                TaskQuery {
                    last_updated_before: Some(1_150),
                    ..q()
                },
            ),
            (
                "created window",
                TaskQuery {
                    created_after: Some(1_100),
                    created_before: Some(1_200),
                    ..q()
                },
            ),
            (
                "status+server",
                TaskQuery {
                    statuses: vec![TaskStatus::Completed],
                    servers: vec!["github".into()],
                    ..q()
                },
            ),
            (
                "status+window",
                TaskQuery {
                    statuses: vec![TaskStatus::Working, TaskStatus::Failed],
                    last_updated_after: Some(1_050),
                    last_updated_before: Some(1_250),
                    ..q()
                },
            ),
            (
                "server+method",
                TaskQuery {
                    servers: vec!["k8s".into()],
                    methods: vec!["tools/call".into()],
                    ..q()
                },
            ),
            (
                "server+method+status",
                TaskQuery {
                    servers: vec!["github".into(), "k8s".into()],
                    methods: vec!["tools/call".into()],
                    statuses: vec![TaskStatus::Completed, TaskStatus::Working],
                    ..q()
                },
            ),
            (
                "method+status+created",
                TaskQuery {
                    methods: vec!["tools/call".into()],
                    statuses: vec![TaskStatus::InputRequired],
                    created_after: Some(1_020),
                    ..q()
                },
            ),
            (
                "ids+status",
                TaskQuery {
                    task_ids: ["t0003", "t0004", "t0010"].map(String::from).to_vec(),
                    statuses: vec![TaskStatus::Working],
                    ..q()
                },
            ),
        ]
    }

    /// Every shape in both orders and by both keys.
    fn variants() -> Vec<(String, TaskQuery)> {
        let mut out = Vec::new();
        for (name, shape) in shapes() {
            for order_by in [OrderBy::LastUpdatedAt, OrderBy::CreatedAt] {
                for descending in [true, false] {
                    let query = TaskQuery {
                        order_by,
                        descending,
                        ..shape.clone()
                    };
                    out.push((
                        format!("{name} by {} desc={descending}", order_by.as_str()),
                        query,
                    ));
                }
            }
        }
        out
    }

    #[test]
    fn opens_a_private_wal_file_in_a_new_folder() {
        let (dir, ledger) = open();
        let path = dir.path().join("state/tasks.db");
        assert_eq!(ledger.path(), path);
        let conn = ledger.conn();
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal", "shared between processes needs WAL");
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, 1);
        let fk: i64 = conn
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .unwrap();
        assert_eq!(fk, 1);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "only this user may read the ledger");
        }
    }

    #[cfg(unix)]
    #[test]
    fn an_existing_readable_file_is_made_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tasks.db");
        fs::write(&path, b"").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        Ledger::open(&path).expect("an empty file is a new ledger");
        let mode = fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn insert_then_get_round_trips_every_field() {
        let (_dir, ledger) = open();
        let mut full = record("st-1", 10, 20);
        full.status_message = Some("step 2".into());
        full.retry_of = Some("st-0".into());
        full.result = Some(json!({"content": [{"type": "text", "text": "done"}]}));
        let mut bare = record("st-2", 10, 10);
        bare.kind = EntryKind::Call;
        (
            bare.upstream_id,
            bare.tool,
            bare.ttl_ms,
            bare.poll_interval_ms,
            bare.profile,
        ) = (None, None, None, None, None);
        bare.params = json!(null);
        ledger.insert(&full).unwrap();
        ledger.insert(&bare).unwrap();
        assert_eq!(ledger.get("st-1").unwrap(), Some(full));
        assert_eq!(ledger.get("st-2").unwrap(), Some(bare));
        assert_eq!(ledger.get("st-3").unwrap(), None);
    }

    #[test]
    fn last_update_is_never_before_creation() {
        let (_dir, ledger) = open();
        ledger.insert(&record("a", 500, 100)).unwrap();
        assert_eq!(ledger.get("a").unwrap().unwrap().last_updated_at, 500);
        ledger
            .update("a", TaskStatus::Working, None, None, 400)
            .unwrap();
        assert_eq!(ledger.get("a").unwrap().unwrap().last_updated_at, 500);
    }

    #[test]
    fn ids_and_upstream_ids_are_unique() {
        let (_dir, ledger) = open();
        ledger.insert(&record("a", 1, 1)).unwrap();
        let again = TaskRecord {
            upstream_id: None,
            ..record("a", 2, 2)
        };
        let err = ledger.insert(&again).unwrap_err();
        assert!(
            matches!(err, LedgerError::DuplicateId { ref id, .. } if id == "a"),
            "{err}"
        );
        assert!(
            err.to_string().contains("tasks.db"),
            "names the file: {err}"
        );

        let mut same_upstream = record("b", 1, 1);
        same_upstream.upstream_id = Some("up-a".into());
        let err = ledger.insert(&same_upstream).unwrap_err();
        assert!(
            matches!(err, LedgerError::DuplicateUpstream { .. }),
            "{err}"
        );

        same_upstream.server = "files".into();
        ledger
            .insert(&same_upstream)
            .expect("another server may reuse an upstream id");
        for id in ["c1", "c2"] {
            let mut call = record(id, 1, 1);
            call.upstream_id = None;
            ledger.insert(&call).expect("calls have no upstream id");
        }
    }

    #[test]
    fn a_failed_batch_inserts_nothing() {
        let (_dir, ledger) = open();
        let batch = [record("a", 1, 1), record("b", 1, 1), record("a", 2, 2)];
        assert!(ledger.insert_all(&batch).is_err());
        assert_eq!(count(&ledger), 0, "all or nothing");
    }

    #[test]
    fn update_changes_status_and_keeps_what_is_not_given() {
        let (_dir, ledger) = open();
        ledger.insert(&record("a", 1, 1)).unwrap();
        assert!(
            !ledger
                .update("zz", TaskStatus::Failed, None, None, 5)
                .unwrap(),
            "no such id"
        );

        assert!(
            ledger
                .update("a", TaskStatus::InputRequired, Some("need a name"), None, 5)
                .unwrap()
        );
        let r = ledger.get("a").unwrap().unwrap();
        assert_eq!(
            (r.status, r.status_message.as_deref(), r.last_updated_at),
            (TaskStatus::InputRequired, Some("need a name"), 5)
        );

        let result = json!({"content": []});
        assert!(
            ledger
                .update("a", TaskStatus::Completed, None, Some(&result), 9)
                .unwrap()
        );
        let r = ledger.get("a").unwrap().unwrap();
        assert_eq!(r.status, TaskStatus::Completed);
        assert_eq!(
            r.status_message.as_deref(),
            Some("need a name"),
            "kept when not given"
        );
        assert_eq!(r.result, Some(result.clone()));
        assert_eq!(r.last_updated_at, 9);
    }

    #[test]
    fn a_late_working_notification_does_not_reopen_a_finished_task() {
        let (_dir, ledger) = open();
        ledger.insert(&record("a", 1, 1)).unwrap();
        ledger
            .update("a", TaskStatus::Failed, Some("boom"), None, 10)
            .unwrap();
        for status in [TaskStatus::Working, TaskStatus::InputRequired] {
            assert!(
                ledger
                    .update("a", status, Some("late"), Some(&json!(1)), 20)
                    .unwrap(),
                "the entry exists"
            );
            let r = ledger.get("a").unwrap().unwrap();
            assert_eq!(
                (
                    r.status,
                    r.status_message.as_deref(),
                    r.last_updated_at,
                    r.result
                ),
                (TaskStatus::Failed, Some("boom"), 10, None),
                "a stale update changes nothing"
            );
        }
        ledger
            .update("a", TaskStatus::Cancelled, None, None, 30)
            .unwrap();
        assert_eq!(
            ledger.get("a").unwrap().unwrap().status,
            TaskStatus::Cancelled,
            "one final status may follow another"
        );
    }

    #[test]
    fn find_upstream_is_per_server() {
        let (_dir, ledger) = open();
        let mut other = record("b", 1, 1);
        other.server = "files".into();
        other.upstream_id = Some("up-a".into());
        ledger.insert_all([record("a", 1, 1), other]).unwrap();
        assert_eq!(
            ledger.find_upstream("github", "up-a").unwrap().unwrap().id,
            "a"
        );
        assert_eq!(
            ledger.find_upstream("files", "up-a").unwrap().unwrap().id,
            "b"
        );
        assert_eq!(ledger.find_upstream("k8s", "up-a").unwrap(), None);
        assert_eq!(ledger.find_upstream("github", "up-b").unwrap(), None);
    }

    #[test]
    fn live_lists_running_upstream_tasks_oldest_first() {
        let (_dir, ledger) = open();
        let mut call = record("call", 1, 1);
        call.kind = EntryKind::Call;
        call.upstream_id = None;
        let mut done = record("done", 2, 2);
        done.status = TaskStatus::Completed;
        let mut asking = record("asking", 3, 3);
        asking.status = TaskStatus::InputRequired;
        ledger
            .insert_all([
                record("newer", 5, 5),
                call,
                done,
                asking,
                record("older", 4, 9),
            ])
            .unwrap();
        let ids: Vec<String> = ledger.live().unwrap().into_iter().map(|r| r.id).collect();
        assert_eq!(ids, ["asking", "older", "newer"]);
    }

    #[test]
    fn purge_deletes_only_old_finished_entries() {
        let (_dir, ledger) = open();
        let records: Vec<TaskRecord> = TaskStatus::ALL
            .iter()
            .enumerate()
            .flat_map(|(i, &status)| {
                [("old", 10), ("new", 100)].map(|(age, at)| TaskRecord {
                    status,
                    ..record(&format!("{age}-{i}"), at, at)
                })
            })
            .collect();
        ledger.insert_all(&records).unwrap();
        assert_eq!(
            ledger.purge(100).unwrap(),
            3,
            "old completed, failed, cancelled"
        );
        let mut left: Vec<String> = walk(&ledger, &TaskQuery::default(), &all)
            .0
            .into_iter()
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                "new-0", "new-1", "new-2", "new-3", "new-4", "old-0", "old-1"
            ]
        );
    }

    #[test]
    fn reopening_keeps_the_entries() {
        let (dir, ledger) = open();
        ledger.insert(&record("a", 1, 1)).unwrap();
        drop(ledger);
        let again = Ledger::open(&dir.path().join("state/tasks.db")).unwrap();
        assert_eq!(again.get("a").unwrap().unwrap().id, "a");
    }

    #[test]
    fn a_newer_schema_is_refused() {
        let (dir, ledger) = open();
        ledger
            .conn()
            .pragma_update(None, "user_version", 7)
            .unwrap();
        drop(ledger);
        let err = Ledger::open(&dir.path().join("state/tasks.db")).unwrap_err();
        assert!(
            matches!(
                err,
                LedgerError::TooNew {
                    found: 7,
                    known: 1,
                    ..
                }
            ),
            "{err}"
        );
        let message = err.to_string();
        assert!(
            message.contains("tasks.db") && message.contains("update MCP Sieve"),
            "{message}"
        );
    }

    #[test]
    fn a_corrupt_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tasks.db");
        let mut noise = vec![0u8; 8192];
        getrandom::fill(&mut noise).unwrap();
        fs::write(&path, &noise).unwrap();
        let err = Ledger::open(&path).unwrap_err();
        assert!(matches!(err, LedgerError::Corrupt { .. }), "{err:?}");
        let message = err.to_string();
        assert!(
            message.contains(&path.display().to_string()) && message.contains("move it aside"),
            "{message}"
        );
    }

    #[test]
    fn an_entry_changed_behind_our_back_is_reported() {
        let (_dir, ledger) = open();
        ledger.insert(&record("a", 1, 1)).unwrap();
        ledger
            .conn()
            .execute("UPDATE tasks SET status = 'paused'", [])
            .unwrap();
        let err = ledger.get("a").unwrap_err();
        assert!(
            matches!(err, LedgerError::BadEntry { field: "status", ref id, .. } if id == "a"),
            "{err}"
        );
    }

    #[test]
    fn new_ids_look_right_and_differ() {
        let ids: HashSet<String> = (0..1000).map(|_| Ledger::new_id()).collect();
        assert_eq!(ids.len(), 1000);
        for id in ids {
            assert_eq!(id.len(), 27, "{id}");
            assert!(id.starts_with("st-") && id[3..].bytes().all(|b| b.is_ascii_hexdigit()));
        }
    }

    #[test]
    fn every_filter_and_order_lists_what_matches() {
        let (_dir, ledger) = open();
        let records = fixture(&ledger, 300);
        for (name, query) in variants() {
            for limit in [7, 500] {
                let query = TaskQuery {
                    limit,
                    ..query.clone()
                };
                let want = expected(&records, &query, &all);
                let (got, _) = walk(&ledger, &query, &all);
                assert_eq!(got, want, "{name}, limit {limit}");
                if name.starts_with("none") {
                    assert_eq!(got.len(), 300);
                }
            }
        }
    }

    #[test]
    fn filters_agree_with_task_query_matches_on_random_ledgers() {
        // The fixture's shapes, over a ledger with other proportions.
        let (_dir, ledger) = open();
        let records = fixture(&ledger, 1000);
        for (name, query) in variants() {
            let query = TaskQuery { limit: 13, ..query };
            assert_eq!(
                walk(&ledger, &query, &all).0,
                expected(&records, &query, &all),
                "{name}"
            );
        }
    }

    #[test]
    fn equal_timestamps_page_without_loss_or_repeats() {
        let (_dir, ledger) = open();
        let records: Vec<TaskRecord> = (0..250).map(|i| record(&format!("t{i}"), 42, 42)).collect();
        ledger.insert_all(&records).unwrap();
        for order_by in [OrderBy::LastUpdatedAt, OrderBy::CreatedAt] {
            for descending in [true, false] {
                for limit in [1, 7, 50] {
                    let query = TaskQuery {
                        order_by,
                        descending,
                        limit,
                        ..TaskQuery::default()
                    };
                    let (got, pages) = walk(&ledger, &query, &all);
                    assert_eq!(got, expected(&records, &query, &all), "limit {limit}");
                    assert_eq!(pages, 250usize.div_ceil(limit as usize), "full pages");
                }
            }
        }
    }

    #[test]
    fn limit_one_walks_the_whole_ledger() {
        let (_dir, ledger) = open();
        let records = fixture(&ledger, 120);
        let query = TaskQuery {
            limit: 1,
            ..TaskQuery::default()
        };
        let (got, pages) = walk(&ledger, &query, &all);
        assert_eq!(got, expected(&records, &query, &all));
        assert_eq!(pages, 120, "the last page says nothing follows");
    }

    #[test]
    fn time_bounds_are_exclusive() {
        let (_dir, ledger) = open();
        ledger
            .insert_all([
                record("at99", 99, 199),
                record("at100", 100, 200),
                record("at101", 101, 201),
            ])
            .unwrap();
        let list = |query: TaskQuery| {
            let mut ids = walk(&ledger, &query, &all).0;
            ids.sort();
            ids
        };
        let q = TaskQuery::default;
        assert_eq!(
            list(TaskQuery {
                created_after: Some(100),
                ..q()
            }),
            ["at101"]
        );
        assert_eq!(
            list(TaskQuery {
                created_before: Some(100),
                ..q()
            }),
            ["at99"]
        );
        assert_eq!(
            list(TaskQuery {
                last_updated_after: Some(200),
                ..q()
            }),
            ["at101"]
        );
        assert_eq!(
            list(TaskQuery {
                last_updated_before: Some(200),
                ..q()
            }),
            ["at99"]
        );
        assert_eq!(
            list(TaskQuery {
                created_after: Some(99),
                created_before: Some(101),
                ..q()
            }),
            ["at100"]
        );
        assert!(
            list(TaskQuery {
                created_after: Some(100),
                created_before: Some(101),
                ..q()
            })
            .is_empty()
        );
        assert!(
            list(TaskQuery {
                created_after: Some(300),
                created_before: Some(10),
                ..q()
            })
            .is_empty(),
            "an empty window lists nothing"
        );
    }

    #[test]
    fn a_cursor_from_another_order_continues_after_its_position() {
        let (_dir, ledger) = open();
        let records = fixture(&ledger, 200);
        let first = ledger
            .list(
                &TaskQuery {
                    limit: 30,
                    ..TaskQuery::default()
                },
                &all,
            )
            .unwrap();
        let cursor = Cursor::decode(&first.next_cursor.unwrap()).unwrap();
        // Read as a position in createdAt ascending order: entries strictly
        // after (key, seq) there.
        let query = TaskQuery {
            order_by: OrderBy::CreatedAt,
            descending: false,
            cursor: Some(cursor),
            limit: 500,
            ..TaskQuery::default()
        };
        let want: Vec<String> = {
            let full = TaskQuery {
                cursor: None,
                ..query.clone()
            };
            let seqs: Vec<(i64, i64, String)> = records
                .iter()
                .enumerate()
                .map(|(i, r)| (r.created_at, i as i64 + 1, r.id.clone()))
                .collect();
            let mut after: Vec<_> = seqs
                .into_iter()
                .filter(|&(k, s, _)| (k, s) > (cursor.key, cursor.seq))
                .collect();
            after.sort();
            assert_eq!(full.limit, 500);
            after.into_iter().map(|(_, _, id)| id).collect()
        };
        assert_eq!(walk(&ledger, &query, &all).0, want);
    }

    #[test]
    fn hidden_entries_do_not_shorten_pages() {
        let (_dir, ledger) = open();
        let records = fixture(&ledger, 1000);
        // One entry in ten visible: a page of 10 examines about 100 rows,
        // well inside the bound of 200.
        let tenth = |r: &TaskRecord| r.id.ends_with('7');
        let query = TaskQuery {
            limit: 10,
            ..TaskQuery::default()
        };
        let (got, pages) = walk(&ledger, &query, &tenth);
        assert_eq!(got, expected(&records, &query, &tenth));
        // Ten full pages, then an empty one: after the tenth, hidden
        // entries follow, and only examining them shows none is visible.
        assert_eq!(pages, 11);
        let mut query = query;
        for _ in 0..10 {
            let page = ledger.list(&query, &tenth).unwrap();
            assert_eq!(page.tasks.len(), 10, "every page full");
            query.cursor = Cursor::decode(&page.next_cursor.unwrap());
        }
    }

    #[test]
    fn nearly_everything_hidden_stops_early_with_a_cursor() {
        let (_dir, ledger) = open();
        let records = fixture(&ledger, 1000);
        let rare = |r: &TaskRecord| r.id == "t0007" || r.id == "t0500";
        let query = TaskQuery {
            limit: 5,
            ..TaskQuery::default()
        };
        let first = ledger.list(&query, &rare).unwrap();
        assert!(first.tasks.len() < 2, "stopped after examining 100 rows");
        assert!(first.next_cursor.is_some(), "and says where to go on");
        let (got, _) = walk(&ledger, &query, &rare);
        assert_eq!(got, expected(&records, &query, &rare), "nothing skipped");
    }

    #[test]
    fn clones_and_second_handles_write_from_threads_without_loss() {
        let (dir, ledger) = open();
        let second = Ledger::open(&dir.path().join("state/tasks.db")).unwrap();
        let writers: Vec<_> = [ledger.clone(), ledger.clone(), second.clone(), second]
            .into_iter()
            .enumerate()
            .map(|(w, handle)| {
                std::thread::spawn(move || {
                    for i in 0..150 {
                        let id = format!("w{w}-{i}");
                        handle.insert(&record(&id, i, i)).expect("insert");
                        handle
                            .update(&id, TaskStatus::Completed, None, None, i + 1)
                            .expect("update");
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().expect("writer finished");
        }
        assert_eq!(count(&ledger), 600, "every entry kept");
        assert!(ledger.live().unwrap().is_empty(), "every update kept");
    }

    /// Set in a child copy of this test binary: the ledger it writes to.
    const CHILD_LEDGER: &str = "MCP_SIEVE_LEDGER_TEST_CHILD";

    #[test]
    fn two_processes_write_at_once_without_loss() {
        let write = |ledger: &Ledger, who: &str| {
            for i in 0..300 {
                let id = format!("{who}-{i}");
                let mut r = record(&id, i, i);
                r.server = who.into();
                ledger.insert(&r).expect("insert");
                ledger
                    .update(&id, TaskStatus::Failed, None, None, i + 1)
                    .expect("update");
            }
        };
        if let Ok(path) = std::env::var(CHILD_LEDGER) {
            write(
                &Ledger::open(Path::new(&path)).expect("child opens"),
                "child",
            );
            return;
        }
        let (dir, ledger) = open();
        let path = dir.path().join("state/tasks.db");
        let name = concat!(module_path!(), "::two_processes_write_at_once_without_loss");
        let name = name.split_once("::").map_or(name, |(_, rest)| rest);
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", name, "--test-threads=1"])
            .env(CHILD_LEDGER, &path)
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("child test process starts");
        write(&ledger, "parent");
        assert!(
            child.wait().unwrap().success(),
            "child wrote without errors"
        );
        assert_eq!(count(&ledger), 600, "both processes' entries kept");
        let failed = TaskQuery {
            statuses: vec![TaskStatus::Failed],
            servers: vec!["child".into()],
            limit: 500,
            ..TaskQuery::default()
        };
        assert_eq!(
            walk(&ledger, &failed, &all).0.len(),
            300,
            "the child's updates kept"
        );
    }

    /// `EXPLAIN QUERY PLAN` of each walk of `query`, or `None` when the
    /// plan is empty.
    fn plans_of(ledger: &Ledger, query: &TaskQuery) -> Option<Vec<Vec<String>>> {
        let plan = ListPlan::new(query, 51)?;
        let conn = ledger.conn();
        let mut seen = HashSet::new();
        let mut plans = Vec::new();
        for (sql, args) in &plan.arms {
            if seen.insert(sql) {
                let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
                let rows = stmt
                    .query_map(params_from_iter(args), |row| row.get::<_, String>(3))
                    .unwrap();
                plans.push(rows.map(Result::unwrap).collect());
            }
        }
        Some(plans)
    }

    #[test]
    fn listings_never_scan_the_table_or_sort_it() {
        let (_dir, ledger) = open();
        fixture(&ledger, 50);
        for (name, shape) in variants() {
            for cursor in [
                None,
                Some(Cursor {
                    key: 1_100,
                    seq: 40,
                }),
            ] {
                let query = TaskQuery {
                    cursor,
                    ..shape.clone()
                };
                let Some(walks) = plans_of(&ledger, &query) else {
                    assert!(
                        cursor.is_some(),
                        "{name}: only a cursor beyond the bounds empties a plan"
                    );
                    continue;
                };
                for plan in walks {
                    let text = plan.join(" | ");
                    assert!(
                        plan.iter().all(|line| line != "SCAN tasks"),
                        "{name}: full table scan: {text}"
                    );
                    if query.task_ids.is_empty() {
                        assert_eq!(plan.len(), 1, "{name}: {text}");
                        assert!(
                            !text.contains("TEMP B-TREE"),
                            "{name}: sorts the matches: {text}"
                        );
                    } else {
                        assert!(plan[0].contains("tasks_id (id=?"), "{name}: {text}");
                        continue;
                    }
                    // A walk with no bound on the index may go all the
                    // way down it; only listings with no filter on the
                    // order key (or one SQLite cannot bound) may do so.
                    let unbounded = plan[0].starts_with("SCAN");
                    let filtered = !(query.statuses.is_empty()
                        && query.servers.is_empty()
                        && query.methods.is_empty());
                    let key_bounded = match query.order_by {
                        OrderBy::LastUpdatedAt => query
                            .last_updated_after
                            .or(query.last_updated_before)
                            .or(query.created_after),
                        OrderBy::CreatedAt => query
                            .created_after
                            .or(query.created_before)
                            .or(query.last_updated_before),
                    }
                    .is_some();
                    assert_eq!(
                        unbounded,
                        !(filtered || key_bounded || cursor.is_some()),
                        "{name}: {text}"
                    );
                }
            }
        }
        for (sql, uses) in [
            ("SELECT * FROM tasks WHERE id = 'a'", "tasks_id (id=?)"),
            (
                "SELECT * FROM tasks WHERE server = 'a' AND upstream_id = 'b'",
                "tasks_upstream (server=? AND upstream_id=?)",
            ),
            (
                "DELETE FROM tasks WHERE status IN ('completed', 'failed') AND last_updated_at < 5",
                "tasks_status_updated (status=? AND last_updated_at<?)",
            ),
            (
                "SELECT * FROM tasks WHERE status IN ('working', 'input_required') AND kind = 'task' AND upstream_id IS NOT NULL ORDER BY created_at, seq",
                "tasks_status_",
            ),
        ] {
            let conn = ledger.conn();
            let text: Vec<String> = conn
                .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                .unwrap()
                .query_map([], |row| row.get::<_, String>(3))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            assert!(
                text.iter()
                    .any(|l| l.starts_with("SEARCH") && l.contains(uses)),
                "{sql}: {text:?}"
            );
        }
    }
}
