//! The audit (DESIGN §12): with `settings.audit` on, every `tools/call`
//! any proxy answers is one record, kept beside the task ledger (the
//! `audit` table of the same SQLite file, or `sieve_audit` in the team's
//! database) and purged with it.
//!
//! A record says who called (the caller as the proxy knows it), under
//! which profile, which server's tool, how it ended ([`AuditStatus`]), how
//! long it took, and its arguments only when the settings ask for them.
//!
//! A listing is newest first, keyset-paginated on `(at, id)`: `id` is the
//! record's insertion number (never reused after a purge), so a cursor
//! names a position exactly however many calls share a millisecond. It
//! walks the index led by its one filtered server or status, or the one by
//! time, and the SQL is written once and spelt per dialect, as the task
//! ledger's listings are ([`Dialect::sql`]).

use super::query::{Arg, Dialect, distinct, placeholders, text};
use super::{Backend, Ledger, LedgerError};
use serde_json::Value;
use std::fmt;

/// Records a listing returns at most.
pub const MAX_AUDIT_LIMIT: u32 = 1_000;

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuditStatus {
    /// The server answered with a result (even one saying the tool
    /// failed: that is the tool's answer, not the call's failure).
    Ok,
    /// The call failed: the server refused it, died or timed out.
    Error,
    /// The profile does not let this caller call that tool.
    Refused,
    /// The host cancelled it.
    Cancelled,
}

impl AuditStatus {
    pub const ALL: [AuditStatus; 4] = [
        AuditStatus::Ok,
        AuditStatus::Error,
        AuditStatus::Refused,
        AuditStatus::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AuditStatus::Ok => "ok",
            AuditStatus::Error => "error",
            AuditStatus::Refused => "refused",
            AuditStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<AuditStatus> {
        AuditStatus::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

impl fmt::Display for AuditStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One audited call.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditRecord {
    /// Its insertion number; 0 for a record not yet written.
    pub id: i64,
    /// When the call came in, in ms since the Unix epoch.
    pub at: i64,
    /// The caller as the proxy knows it: the host's name and version, and
    /// over HTTP how it authenticated.
    pub who: String,
    pub profile: String,
    pub server: String,
    /// The tool's exposed name, as the host called it.
    pub tool: String,
    pub status: AuditStatus,
    pub duration_ms: i64,
    /// Only when `settings.audit` asks for arguments.
    pub arguments: Option<Value>,
}

/// A position in the newest-first order: the last record of a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditCursor {
    pub at: i64,
    pub id: i64,
}

impl AuditCursor {
    pub fn encode(self) -> String {
        format!("{}.{}", self.at, self.id)
    }

    /// `None` for text no listing gave out.
    pub fn decode(text: &str) -> Option<AuditCursor> {
        let (at, id) = text.split_once('.')?;
        Some(AuditCursor {
            at: at.parse().ok()?,
            id: id.parse().ok()?,
        })
    }
}

/// What to list, newest first. Empty lists filter nothing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AuditQuery {
    /// Calls at or after this time (ms).
    pub since: Option<i64>,
    /// Calls before this time (ms).
    pub until: Option<i64>,
    pub servers: Vec<String>,
    pub tools: Vec<String>,
    pub statuses: Vec<AuditStatus>,
    /// Records per page, 1 to [`MAX_AUDIT_LIMIT`].
    pub limit: u32,
    /// Continue after this record.
    pub cursor: Option<AuditCursor>,
}

/// One page of a listing.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditPage {
    pub records: Vec<AuditRecord>,
    /// Where the next page starts, when more records follow.
    pub next_cursor: Option<String>,
}

/// The columns of a select, in [`AuditRow`]'s order.
const AUDIT_COLUMNS: &str = "id, at, who, profile, server, tool, status, duration_ms, arguments";

/// A record as its row holds it.
/// The [`AuditRow`] of a row of the audit's select, read with the driver's
/// `$get`, as [`entry_of_row`](super::schema::entry_of_row) does.
macro_rules! audit_of_row {
    ($row:expr, $get:ident) => {
        $crate::audit::AuditRow {
            id: $row.$get(0)?,
            at: $row.$get(1)?,
            who: $row.$get(2)?,
            profile: $row.$get(3)?,
            server: $row.$get(4)?,
            tool: $row.$get(5)?,
            status: $row.$get(6)?,
            duration_ms: $row.$get(7)?,
            arguments: $row.$get(8)?,
        }
    };
}
pub(super) use audit_of_row;

pub(super) struct AuditRow {
    pub id: i64,
    pub at: i64,
    pub who: String,
    pub profile: String,
    pub server: String,
    pub tool: String,
    pub status: String,
    pub duration_ms: i64,
    pub arguments: Option<String>,
}

fn table(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Sqlite => "audit",
        Dialect::Postgres => "sieve_audit",
    }
}

impl Ledger {
    /// Writes one audit record.
    pub fn audit(&self, record: &AuditRecord) -> Result<(), LedgerError> {
        self.audit_all(std::slice::from_ref(record))
    }

    /// Writes `records` in one statement: all of them, or none. Many
    /// calls' records written together cost one round trip and one commit
    /// (and, on a team's database, one notice to the replicas).
    pub fn audit_all(&self, records: &[AuditRecord]) -> Result<(), LedgerError> {
        if records.is_empty() {
            return Ok(());
        }
        let dialect = self.dialect();
        let row = format!("({})", placeholders(8));
        let sql = dialect.sql(&format!(
            "INSERT INTO {} (at, who, profile, server, tool, status, duration_ms, arguments) \
             VALUES {}",
            table(dialect),
            vec![row.as_str(); records.len()].join(", ")
        ));
        let args: Vec<Arg> = records
            .iter()
            .flat_map(|record| {
                [
                    Arg::Int(record.at),
                    text(&record.who),
                    text(&record.profile),
                    text(&record.server),
                    text(&record.tool),
                    text(record.status.as_str()),
                    Arg::Int(record.duration_ms.max(0)),
                    Arg::MaybeText(record.arguments.as_ref().map(Value::to_string)),
                ]
            })
            .collect();
        self.execute(&sql, &args, "recording audited calls")
            .map(drop)
    }

    /// Deletes audit records of calls before `before_ms`, returning how
    /// many.
    pub(super) fn purge_audit(&self, before_ms: i64) -> Result<usize, LedgerError> {
        let dialect = self.dialect();
        let sql = dialect.sql(&format!("DELETE FROM {} WHERE at < ?", table(dialect)));
        self.execute(&sql, &[Arg::Int(before_ms)], "purging old audit records")
    }

    /// One page of audited calls matching `query`, newest first.
    pub fn audit_list(&self, query: &AuditQuery) -> Result<AuditPage, LedgerError> {
        let limit = query.limit.clamp(1, MAX_AUDIT_LIMIT) as usize;
        let (sql, args) = list_sql(query, limit + 1, self.dialect());
        let action = "listing audited calls";
        let rows = match &self.backend {
            Backend::Sqlite(b) => b.select_audit(&sql, &args, action)?,
            Backend::Postgres(b) => b.select_audit(&sql, &args, action)?,
        };
        let mut records = rows
            .into_iter()
            .map(|row| self.audit_record(row))
            .collect::<Result<Vec<_>, _>>()?;
        let next_cursor = (records.len() > limit).then(|| {
            records.truncate(limit);
            let last = records.last().expect("a full page");
            AuditCursor {
                at: last.at,
                id: last.id,
            }
            .encode()
        });
        Ok(AuditPage {
            records,
            next_cursor,
        })
    }

    fn audit_record(&self, row: AuditRow) -> Result<AuditRecord, LedgerError> {
        let bad = |field: &'static str, detail: String| LedgerError::BadEntry {
            ledger: self.location().clone(),
            id: format!("audit {}", row.id),
            field,
            detail,
        };
        let status = AuditStatus::parse(&row.status)
            .ok_or_else(|| bad("status", format!("{:?}", row.status)))?;
        let arguments = match &row.arguments {
            Some(text) => {
                Some(serde_json::from_str(text).map_err(|e| bad("arguments", e.to_string()))?)
            }
            None => None,
        };
        Ok(AuditRecord {
            id: row.id,
            at: row.at,
            who: row.who,
            profile: row.profile,
            server: row.server,
            tool: row.tool,
            status,
            duration_ms: row.duration_ms,
            arguments,
        })
    }
}

/// The select of one page (`rows` rows) of `query`. A single server or
/// status is an equality leading its index; the cursor bounds `at` so the
/// walk starts there (`at <= ?`), and ties on its millisecond are settled
/// by `id`.
fn list_sql(query: &AuditQuery, rows: usize, dialect: Dialect) -> (String, Vec<Arg>) {
    let mut terms: Vec<String> = Vec::new();
    let mut args: Vec<Arg> = Vec::new();
    let mut one_of = |column: &str, values: Vec<&str>| {
        if !values.is_empty() {
            terms.push(format!("{column} IN ({})", placeholders(values.len())));
            args.extend(values.into_iter().map(text));
        }
    };
    one_of("server", distinct(query.servers.iter().map(String::as_str)));
    one_of(
        "status",
        distinct(query.statuses.iter().map(|s| s.as_str())),
    );
    one_of("tool", distinct(query.tools.iter().map(String::as_str)));
    if let Some(since) = query.since {
        terms.push("at >= ?".into());
        args.push(Arg::Int(since));
    }
    if let Some(until) = query.until {
        terms.push("at < ?".into());
        args.push(Arg::Int(until));
    }
    if let Some(c) = query.cursor {
        terms.push("at <= ? AND (at < ? OR id < ?)".into());
        args.extend([Arg::Int(c.at), Arg::Int(c.at), Arg::Int(c.id)]);
    }
    let filter = if terms.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", terms.join(" AND "))
    };
    let sql = dialect.sql(&format!(
        "SELECT {AUDIT_COLUMNS} FROM {}{filter} ORDER BY at DESC, id DESC LIMIT {rows}",
        table(dialect)
    ));
    (sql, args)
}
