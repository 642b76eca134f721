//! The task ledger: every task a Sieve proxy started upstream, and every
//! plain call that failed or was cut off. On one machine it is one SQLite
//! file (`tasks.db`) that several proxy processes and the app read and
//! write at once; for a team gateway (DESIGN §12) it is a table of the
//! team's PostgreSQL database that every replica reads and writes, so an
//! entry one replica records is listed, followed, retried and cancelled
//! from any other.
//!
//! [`Ledger`] is a cheap, cloneable handle on either: [`Ledger::open`] a
//! file, [`Ledger::postgres`] a database. One set of semantics sits here
//! and in the shared modules; only the SQL each database speaks, and how
//! it keeps concurrent writers from losing an update, is the backend's
//! (`sqlite`: write-ahead logging and `IMMEDIATE` transactions;
//! `postgres`: unique indexes and single statements under row locks).
//!
//! # Listing
//!
//! [`Ledger::list`] answers `tasks/list` with keyset pagination: rows are
//! ordered by the query's key (`created_at` or `last_updated_at`) and then
//! by `seq`, the row's insertion number, so a
//! [`Cursor`](sieve_core::tasks::Cursor) `(key, seq)` names a position
//! exactly even when thousands of entries share one millisecond. Every
//! listing walks one index in order, never the table (`query` says how),
//! on either database.
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
//! Beside the tasks, the same database holds the audit (`audit`): a record
//! of every call when `settings.audit` is on, listed newest first and
//! purged with the entries; what calls measured (`measurements`): the
//! size of the result and the duration of each tool's last calls, for the
//! concern `cost`; and (`replicas`) the calls in flight of a team
//! gateway's replicas, so a replica that dies mid-call leaves its entries
//! failed, not working for ever.
//!
//! Layout: this file holds the [`Ledger`], what it does the same on both
//! databases, and its errors; `audit` the audit's records;
//! `measurements` the measured calls; `schema` the table's columns, its listing
//! indexes and an entry as a row; `query` a listing's plan as SQL in
//! either dialect; `merge` the merge of its arms into a page; `sqlite` and
//! `postgres` the two backends.

mod audit;
mod measurements;
mod merge;
mod postgres;
mod query;
mod replicas;
mod schema;
mod sqlite;
#[cfg(test)]
mod tests;

pub use audit::{AuditCursor, AuditPage, AuditQuery, AuditRecord, AuditStatus, MAX_AUDIT_LIMIT};
pub use measurements::CallMeasurement;
use merge::Merge;
use postgres::Postgres;
use query::{Arg, Dialect, ListPlan, placeholders, text};
use schema::{COLUMNS, Entry};
use serde_json::Value;
use sieve_core::tasks::{EntryKind, MAX_LIMIT, TaskQuery, TaskRecord, TaskStatus};
use sieve_postgres::{Database, DbError};
use sqlite::{BUSY_TIMEOUT, Sqlite};
use std::borrow::Borrow;
use std::fmt::{self, Write as _};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A listing examines at most this many entries per entry of its limit
/// before it returns what it has, so hidden entries cannot make it slow.
pub const EXAMINE_FACTOR: usize = 20;

/// Where a ledger keeps its entries, as its messages name it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Location {
    /// A SQLite file.
    File(PathBuf),
    /// A PostgreSQL database, by its address without the password.
    Database(String),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::File(path) => path.display().fmt(f),
            Location::Database(url) => f.write_str(url),
        }
    }
}

/// What can go wrong with the task ledger. Each message names the file,
/// or the database without its password.
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
    #[error("the disk holding the task ledger {ledger} is full; free some space and try again")]
    DiskFull { ledger: Location },
    #[error("task {id} is already in the task ledger {ledger}; give the new entry a new id")]
    DuplicateId { ledger: Location, id: String },
    #[error(
        "server {server:?} already has an entry for its task {upstream_id:?} in the task ledger {ledger}; update that entry instead"
    )]
    DuplicateUpstream {
        ledger: Location,
        server: String,
        upstream_id: String,
    },
    #[error(
        "entry {id} in the task ledger {ledger} has an unreadable {field} ({detail}); something other than MCP Sieve changed it: delete that entry"
    )]
    BadEntry {
        ledger: Location,
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
    /// The ledger's PostgreSQL database could not be reached, or refused
    /// a query; the message names it and the work it refused.
    #[error(transparent)]
    Database(#[from] DbError),
}

/// The error of inserting `entry` again: its id, or with `upstream` its
/// upstream task id on its server, is taken.
fn duplicate(ledger: &Location, entry: &Entry, upstream: bool) -> LedgerError {
    match (&entry.upstream_id, upstream) {
        (Some(upstream_id), true) => LedgerError::DuplicateUpstream {
            ledger: ledger.clone(),
            server: entry.server.clone(),
            upstream_id: upstream_id.clone(),
        },
        _ => LedgerError::DuplicateId {
            ledger: ledger.clone(),
            id: entry.id.clone(),
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

/// A handle on the task ledger; clones share one SQLite connection, or
/// one pool of PostgreSQL connections.
#[derive(Clone)]
pub struct Ledger {
    backend: Backend,
}

#[derive(Clone)]
enum Backend {
    Sqlite(Sqlite),
    /// Shared: a database's pool is large to copy.
    Postgres(Arc<Postgres>),
}

impl fmt::Debug for Ledger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ledger")
            .field("location", self.location())
            .finish()
    }
}

impl Ledger {
    /// Opens the ledger file at `path`, creating it (and its folder) if
    /// missing and bringing its schema up to date.
    pub fn open(path: &Path) -> Result<Ledger, LedgerError> {
        Ok(Ledger {
            backend: Backend::Sqlite(Sqlite::open(path)?),
        })
    }

    /// The ledger of a process's state: `team`'s database when the state
    /// is there (`--state`, `settings.state`), else the file at `file`.
    /// Every reader and writer of the ledger opens it through here, so
    /// none reads this machine's file while the state is a team's.
    pub fn of_state(file: &Path, team: Option<&Database>) -> Result<Ledger, LedgerError> {
        match team {
            Some(db) => Ledger::postgres(db.clone()),
            None => Ledger::open(file),
        }
    }

    /// The ledger in `db`, a team's database, whose schema
    /// [`Database::connect`] brought up to date; fails when its table
    /// cannot be read.
    pub fn postgres(db: Database) -> Result<Ledger, LedgerError> {
        let ledger = Ledger {
            backend: Backend::Postgres(Arc::new(Postgres::new(db))),
        };
        let sql = format!("SELECT {COLUMNS} FROM {} WHERE false", ledger.table());
        ledger.select(&sql, Vec::new(), "opening the task ledger")?;
        Ok(ledger)
    }

    /// Where the entries are: the file, or the database.
    pub fn location(&self) -> &Location {
        match &self.backend {
            Backend::Sqlite(b) => b.location(),
            Backend::Postgres(b) => b.location(),
        }
    }

    /// The ledger's file, when it is one.
    pub fn path(&self) -> Option<&Path> {
        match &self.backend {
            Backend::Sqlite(b) => Some(b.path()),
            Backend::Postgres(_) => None,
        }
    }

    fn dialect(&self) -> Dialect {
        match &self.backend {
            Backend::Sqlite(_) => Dialect::Sqlite,
            Backend::Postgres(_) => Dialect::Postgres,
        }
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
        let entries = records.into_iter().map(|r| Entry::of(r.borrow()));
        match &self.backend {
            Backend::Sqlite(b) => b.insert_all(entries),
            Backend::Postgres(b) => b.insert_all(entries),
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
        match &self.backend {
            Backend::Sqlite(b) => b.update(id, status, message, result, now_ms),
            Backend::Postgres(b) => b.update(id, status, message, result, now_ms),
        }
    }

    pub fn get(&self, id: &str) -> Result<Option<TaskRecord>, LedgerError> {
        let sql = format!("SELECT {COLUMNS} FROM {} WHERE id = ?", self.table());
        self.select_one(&sql, vec![text(id)])
    }

    /// The entry of `server`'s task `upstream_id`, to apply its
    /// notifications.
    pub fn find_upstream(
        &self,
        server: &str,
        upstream_id: &str,
    ) -> Result<Option<TaskRecord>, LedgerError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM {} WHERE server = ? AND upstream_id = ?",
            self.table()
        );
        self.select_one(&sql, vec![text(server), text(upstream_id)])
    }

    fn table(&self) -> &'static str {
        self.dialect().table()
    }

    /// The one entry a lookup by a unique key finds.
    fn select_one(&self, sql: &str, args: Vec<Arg>) -> Result<Option<TaskRecord>, LedgerError> {
        let found = self.select(sql, args, "looking up an entry")?;
        Ok(found.into_iter().next())
    }

    /// The entries `sql`, a select of [`COLUMNS`] with `?` for each of
    /// `args`, finds; `action` says what was being done, for errors.
    fn select(
        &self,
        sql: &str,
        args: Vec<Arg>,
        action: &'static str,
    ) -> Result<Vec<TaskRecord>, LedgerError> {
        let sql = self.dialect().sql(sql);
        let entries = match &self.backend {
            Backend::Sqlite(b) => b.select(&sql, &args, action)?,
            Backend::Postgres(b) => b.select(&sql, &args, action)?,
        };
        entries
            .into_iter()
            .map(|entry| Ok(entry.into_record(self.location())?.1))
            .collect()
    }

    /// Upstream tasks still running, oldest first: what to resume polling
    /// after a restart.
    pub fn live(&self) -> Result<Vec<TaskRecord>, LedgerError> {
        self.select(&self.live_sql(), Vec::new(), "listing live tasks")
    }

    /// The select of [`Ledger::live`]. Its statuses and kind are written
    /// in rather than passed: a plan PostgreSQL makes once for any values
    /// expects two statuses in five to be live and reads the whole table,
    /// when live tasks are a few among many finished ones.
    fn live_sql(&self) -> String {
        let live: Vec<String> = TaskStatus::ALL
            .iter()
            .filter(|s| !s.is_terminal())
            .map(|s| format!("'{}'", s.as_str()))
            .collect();
        format!(
            "SELECT {COLUMNS} FROM {} WHERE status IN ({}) AND kind = '{}' \
             AND upstream_id IS NOT NULL ORDER BY created_at, seq",
            self.table(),
            live.join(", "),
            EntryKind::Task.as_str()
        )
    }

    /// Retention: deletes finished entries last updated before
    /// `finished_before_ms`, and audit records of calls made before it,
    /// returning how many of both.
    pub fn purge(&self, finished_before_ms: i64) -> Result<usize, LedgerError> {
        let mut args: Vec<Arg> = TERMINAL.iter().map(|s| text(s.as_str())).collect();
        args.push(Arg::Int(finished_before_ms));
        let sql = self.dialect().sql(&format!(
            "DELETE FROM {} WHERE status IN ({}) AND last_updated_at < ?",
            self.table(),
            placeholders(TERMINAL.len())
        ));
        let entries = self.execute(&sql, &args, "purging finished entries")?;
        Ok(entries + self.purge_audit(finished_before_ms)?)
    }

    /// Runs `sql`, in this ledger's dialect, returning how many rows it
    /// changed.
    fn execute(&self, sql: &str, args: &[Arg], action: &'static str) -> Result<usize, LedgerError> {
        match &self.backend {
            Backend::Sqlite(b) => b.execute(sql, args, action),
            Backend::Postgres(b) => b.execute(sql, args, action),
        }
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
    /// `visible` runs while the listing holds the SQLite connection (or a
    /// PostgreSQL one): it must not call back into this ledger.
    pub fn list(
        &self,
        query: &TaskQuery,
        visible: &dyn Fn(&TaskRecord) -> bool,
    ) -> Result<TaskPage, LedgerError> {
        let limit = query.limit.clamp(1, MAX_LIMIT) as usize;
        let budget = limit * EXAMINE_FACTOR;
        let Some(plan) = ListPlan::new(query, budget + 1, self.dialect()) else {
            return Ok(TaskPage {
                tasks: Vec::new(),
                next_cursor: None,
            });
        };
        let mut merge = Merge::new(query, plan.arms.len(), limit, budget, visible);
        match &self.backend {
            Backend::Sqlite(b) => b.list(&plan, &mut merge),
            Backend::Postgres(b) => b.list(plan, &mut merge, limit),
        }
    }
}

/// The statuses that never change again.
const TERMINAL: [TaskStatus; 3] = [
    TaskStatus::Completed,
    TaskStatus::Failed,
    TaskStatus::Cancelled,
];
