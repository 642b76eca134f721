//! The audit as people read it (DESIGN §12): the calls recorded with
//! `settings.audit` on, newest first, with filters like the tasks' (since,
//! until, servers, statuses, tools, limit, cursor). The audit is in the
//! ledger's database: the SQLite file beside the tasks, or the team's
//! PostgreSQL database when the state is there.

use super::{ApiError, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sieve_core::tasks::{format_timestamp, parse_since};
use sieve_ledger::{AuditCursor, AuditQuery, AuditRecord, AuditStatus, MAX_AUDIT_LIMIT};
use sieve_store::store::Store;

/// Filter values as a person gives them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AuditFilter {
    /// Calls since: an age (`90s`, `45m`, `3h`, `2d`) or a timestamp.
    pub since: Option<String>,
    /// Calls before: an age or a timestamp.
    pub until: Option<String>,
    pub servers: Vec<String>,
    /// ok, error, refused, cancelled.
    pub status: Vec<String>,
    /// Tools by the name hosts call them.
    pub tools: Vec<String>,
    /// Page size, 1-1000 (50 when absent).
    pub limit: Option<u32>,
    /// Where the page starts: a previous page's `nextCursor`.
    pub cursor: Option<String>,
}

impl AuditFilter {
    /// The audit query for these values at time `now_ms`. An error names
    /// the field (`since`, `until`, `status`, `limit`, `cursor`).
    pub fn query(&self, now_ms: i64) -> Result<AuditQuery> {
        let time = |field: &str, value: &Option<String>| {
            value
                .as_deref()
                .map(|v| parse_since(v, now_ms).map_err(|m| ApiError::invalid(field, m)))
                .transpose()
        };
        let statuses = self
            .status
            .iter()
            .map(|s| {
                AuditStatus::parse(s).ok_or_else(|| {
                    ApiError::invalid(
                        "status",
                        format!("{s:?} is not a status; use ok, error, refused or cancelled"),
                    )
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let limit = self.limit.unwrap_or(50);
        if !(1..=MAX_AUDIT_LIMIT).contains(&limit) {
            return Err(ApiError::invalid(
                "limit",
                format!("{limit} is not a page size; use 1 to {MAX_AUDIT_LIMIT}"),
            ));
        }
        let cursor = self
            .cursor
            .as_deref()
            .map(|c| {
                AuditCursor::decode(c).ok_or_else(|| {
                    ApiError::invalid("cursor", "not a cursor a previous page gave; start over")
                })
            })
            .transpose()?;
        Ok(AuditQuery {
            since: time("since", &self.since)?,
            until: time("until", &self.until)?,
            servers: self.servers.clone(),
            tools: self.tools.clone(),
            statuses,
            limit,
            cursor,
        })
    }
}

/// One page of audited calls, newest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditPage {
    /// Each `{id, at, who, profile, server, tool, status, durationMs}`,
    /// and `arguments` when they were recorded.
    pub calls: Vec<Value>,
    pub next_cursor: Option<String>,
}

/// A record as the command line's `--json` and the app read it.
pub fn to_json(record: &AuditRecord) -> Value {
    let mut call = json!({
        "id": record.id,
        "at": format_timestamp(record.at),
        "who": record.who,
        "profile": record.profile,
        "server": record.server,
        "tool": record.tool,
        "status": record.status.as_str(),
        "durationMs": record.duration_ms,
    });
    if let Some(arguments) = &record.arguments {
        call["arguments"] = arguments.clone();
    }
    call
}

/// The audited calls that match `filter` at time `now_ms`.
pub fn list(store: &Store, filter: &AuditFilter, now_ms: i64) -> Result<AuditPage> {
    let query = filter.query(now_ms)?;
    let page = super::ledger(store)?.audit_list(&query)?;
    Ok(AuditPage {
        calls: page.records.iter().map(to_json).collect(),
        next_cursor: page.next_cursor,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_become_a_query_and_bad_values_name_their_field() {
        let now = 10_000_000;
        let filter = AuditFilter {
            since: Some("1h".into()),
            servers: vec!["github".into()],
            status: vec!["error".into(), "refused".into()],
            ..AuditFilter::default()
        };
        let query = filter.query(now).expect("valid");
        assert_eq!(query.since, Some(now - 3_600_000));
        assert_eq!(query.statuses, [AuditStatus::Error, AuditStatus::Refused]);
        assert_eq!(query.limit, 50);
        for (filter, field) in [
            (
                AuditFilter {
                    status: vec!["failed".into()],
                    ..AuditFilter::default()
                },
                "status",
            ),
            (
                AuditFilter {
                    since: Some("yesterday".into()),
                    ..AuditFilter::default()
                },
                "since",
            ),
            (
                AuditFilter {
                    limit: Some(0),
                    ..AuditFilter::default()
                },
                "limit",
            ),
            (
                AuditFilter {
                    cursor: Some("x".into()),
                    ..AuditFilter::default()
                },
                "cursor",
            ),
        ] {
            let error = filter.query(now).expect_err("refused");
            assert_eq!(error.field.as_deref(), Some(field), "{error}");
        }
    }
}
