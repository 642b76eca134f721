//! The ledger's schema: the `tasks` table and its indexes, the migrations
//! that bring a file to the newest version, and how a row reads back as a
//! [`TaskRecord`].

use super::{LedgerError, sql_error};
use rusqlite::{Connection, Row, TransactionBehavior};
use serde_json::Value;
use sieve_core::tasks::{EntryKind, TaskRecord, TaskStatus};
use std::path::Path;

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
pub(super) enum Column {
    Server,
    Method,
    Status,
}

impl Column {
    pub(super) fn name(self) -> &'static str {
        match self {
            Column::Server => "server",
            Column::Method => "method",
            Column::Status => "status",
        }
    }
}

/// The listing indexes of [`SCHEMA_V1`]: leading equality columns, then
/// the index by `last_updated_at` and the one by `created_at`. Best first.
pub(super) const LISTING_INDEXES: [(&[Column], &str, &str); 5] = [
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

/// The columns of an entry, in the order [`read_row`] reads them.
pub(super) const COLUMNS: &str = "seq, id, kind, server, upstream_id, method, tool, params, status, \
     status_message, created_at, last_updated_at, ttl_ms, poll_interval_ms, profile, retry_of, result";

/// Brings the schema to the newest version, inside one `IMMEDIATE`
/// transaction so two processes opening a new file do not both create it.
pub(super) fn migrate(conn: &mut Connection, path: &Path) -> Result<(), LedgerError> {
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
pub(super) fn read_row(path: &Path, row: &Row<'_>) -> Result<(i64, TaskRecord), LedgerError> {
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
