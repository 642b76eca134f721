//! What both backends share of the ledger's table: its columns, its
//! listing indexes (the same names and columns in SQLite and PostgreSQL),
//! and an entry as a row, written from a [`TaskRecord`] and read back into
//! one, checked. Each backend's own DDL is in its module (SQLite's in
//! `sqlite`, PostgreSQL's in sieve-postgres's `migrations/0002_ledger.sql`).

use super::{LedgerError, Location};
use serde_json::Value;
use sieve_core::tasks::{EntryKind, TaskRecord, TaskStatus};

macro_rules! entry_columns {
    () => {
        "id, kind, server, upstream_id, method, tool, params, status, status_message, \
         created_at, last_updated_at, ttl_ms, poll_interval_ms, profile, retry_of, result, owner, replica"
    };
}

/// The columns an insert writes, in [`Entry`]'s order (`seq` is the
/// database's).
pub(super) const ENTRY_COLUMNS: &str = entry_columns!();

/// The columns of a select: `seq`, then [`ENTRY_COLUMNS`].
pub(super) const COLUMNS: &str = concat!("seq, ", entry_columns!());

/// A column a listing can fix with an equality.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Column {
    Server,
    Method,
    Status,
    Owner,
}

impl Column {
    pub(super) fn name(self) -> &'static str {
        match self {
            Column::Server => "server",
            Column::Method => "method",
            Column::Status => "status",
            Column::Owner => "owner",
        }
    }
}

/// The listing indexes: leading equality columns, then the index by
/// `(last_updated_at, seq)` and the one by `(created_at, seq)`. Best
/// first. Both schemas have exactly these. A signed-in person's listing
/// (`owner`) walks their own slice; their other filters are checked row by
/// row there, since one person's entries are few beside a team's.
pub(super) const LISTING_INDEXES: [(&[Column], &str, &str); 6] = [
    (
        &[Column::Owner, Column::Status],
        "tasks_owner_status_updated",
        "tasks_owner_status_created",
    ),
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

/// The [`Entry`] of a row selected with [`COLUMNS`], each column read with
/// the driver's `$get` (`get` for SQLite, `try_get` for PostgreSQL): one
/// mapping for both drivers, whose value traits differ.
macro_rules! entry_of_row {
    ($row:expr, $get:ident) => {
        $crate::schema::Entry {
            seq: $row.$get(0)?,
            id: $row.$get(1)?,
            kind: $row.$get(2)?,
            server: $row.$get(3)?,
            upstream_id: $row.$get(4)?,
            method: $row.$get(5)?,
            tool: $row.$get(6)?,
            params: $row.$get(7)?,
            status: $row.$get(8)?,
            status_message: $row.$get(9)?,
            created_at: $row.$get(10)?,
            last_updated_at: $row.$get(11)?,
            ttl_ms: $row.$get(12)?,
            poll_interval_ms: $row.$get(13)?,
            profile: $row.$get(14)?,
            retry_of: $row.$get(15)?,
            result: $row.$get(16)?,
            owner: $row.$get(17)?,
            replica: $row.$get(18)?,
        }
    };
}
pub(super) use entry_of_row;

/// An entry as its row holds it: JSON as text, kind and status as their
/// names. Written in [`ENTRY_COLUMNS`] order; `seq` is only read.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Entry {
    pub seq: i64,
    pub id: String,
    pub kind: String,
    pub server: String,
    pub upstream_id: Option<String>,
    pub method: String,
    pub tool: Option<String>,
    pub params: String,
    pub status: String,
    pub status_message: Option<String>,
    pub created_at: i64,
    pub last_updated_at: i64,
    pub ttl_ms: Option<i64>,
    pub poll_interval_ms: Option<i64>,
    pub profile: Option<String>,
    pub retry_of: Option<String>,
    pub result: Option<String>,
    pub owner: Option<String>,
    /// The process running this call, while it runs (see `replicas`).
    pub replica: Option<String>,
}

impl Entry {
    /// The row of a new entry. `last_updated_at` is no earlier than
    /// `created_at`, which listings rely on (and both schemas check).
    pub(super) fn of(r: &TaskRecord) -> Entry {
        Entry {
            seq: 0,
            id: r.id.clone(),
            kind: r.kind.as_str().to_string(),
            server: r.server.clone(),
            upstream_id: r.upstream_id.clone(),
            method: r.method.clone(),
            tool: r.tool.clone(),
            params: r.params.to_string(),
            status: r.status.as_str().to_string(),
            status_message: r.status_message.clone(),
            created_at: r.created_at,
            last_updated_at: r.last_updated_at.max(r.created_at),
            ttl_ms: r.ttl_ms,
            poll_interval_ms: r.poll_interval_ms,
            profile: r.profile.clone(),
            retry_of: r.retry_of.clone(),
            result: r.result.as_ref().map(Value::to_string),
            owner: r.owner.clone(),
            replica: None,
        }
    }

    /// The entry and its `seq`, its text parsed; a value MCP Sieve would
    /// not have written is reported with the entry's id.
    pub(super) fn into_record(self, ledger: &Location) -> Result<(i64, TaskRecord), LedgerError> {
        let bad = |field: &'static str, detail: String| LedgerError::BadEntry {
            ledger: ledger.clone(),
            id: self.id.clone(),
            field,
            detail,
        };
        let json = |field, text: &str| -> Result<Value, LedgerError> {
            serde_json::from_str(text).map_err(|e| bad(field, e.to_string()))
        };
        let kind =
            EntryKind::parse(&self.kind).ok_or_else(|| bad("kind", format!("{:?}", self.kind)))?;
        let status = TaskStatus::parse(&self.status)
            .ok_or_else(|| bad("status", format!("{:?}", self.status)))?;
        let params = json("params", &self.params)?;
        let result = self
            .result
            .as_deref()
            .map(|text| json("result", text))
            .transpose()?;
        let record = TaskRecord {
            id: self.id,
            kind,
            server: self.server,
            upstream_id: self.upstream_id,
            method: self.method,
            tool: self.tool,
            params,
            status,
            status_message: self.status_message,
            created_at: self.created_at,
            last_updated_at: self.last_updated_at,
            ttl_ms: self.ttl_ms,
            poll_interval_ms: self.poll_interval_ms,
            profile: self.profile,
            retry_of: self.retry_of,
            owner: self.owner,
            result,
        };
        Ok((self.seq, record))
    }
}
