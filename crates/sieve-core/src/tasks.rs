//! Tasks as the ledger keeps them, and `tasks/list` queries over them.
//!
//! A [`TaskRecord`] is one entry of the ledger: a task an upstream created
//! (2025-11-25 `params.task` or a 2026-07-28 task result), or a plain
//! `tools/call` that failed or was cut off and can be retried. A
//! [`TaskQuery`] is what `tasks/list` (and `mcp-sieve tasks`) asks for:
//! the filters of the task-list proposal plus `servers`, an order, and a
//! keyset [`Cursor`]. Time is milliseconds since the Unix epoch here; the
//! wire uses RFC 3339 timestamps. `…After` and `…Before` bounds are
//! exclusive: `createdAfter: T` lists tasks created strictly after T.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::fmt;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// The states of a task (the spec's, both generations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    pub const ALL: [TaskStatus; 5] = [
        TaskStatus::Working,
        TaskStatus::InputRequired,
        TaskStatus::Completed,
        TaskStatus::Failed,
        TaskStatus::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<TaskStatus> {
        TaskStatus::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// Whether the task can change no more.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an entry of the ledger records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// A task an upstream created.
    Task,
    /// A plain call that failed or was cut off, kept for retry.
    Call,
}

impl EntryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Task => "task",
            EntryKind::Call => "call",
        }
    }

    pub fn parse(text: &str) -> Option<EntryKind> {
        match text {
            "task" => Some(EntryKind::Task),
            "call" => Some(EntryKind::Call),
            _ => None,
        }
    }
}

/// One entry of the task ledger.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRecord {
    /// The Sieve task id, unique across servers.
    pub id: String,
    pub kind: EntryKind,
    pub server: String,
    /// The upstream's own task id (tasks only).
    pub upstream_id: Option<String>,
    /// The request that started it, e.g. `tools/call`.
    pub method: String,
    /// The exposed name of the tool (or prompt) it called.
    pub tool: Option<String>,
    /// The params as the upstream received them, for retry.
    pub params: Value,
    pub status: TaskStatus,
    pub status_message: Option<String>,
    pub created_at: i64,
    pub last_updated_at: i64,
    pub ttl_ms: Option<i64>,
    pub poll_interval_ms: Option<i64>,
    /// The profile it ran under.
    pub profile: Option<String>,
    /// The entry this one retries.
    pub retry_of: Option<String>,
    /// The person who made it, as the team's identity provider names
    /// them (`sub`); `None` for a caller with the static token or on stdio.
    /// A signed-in caller sees only their own entries.
    pub owner: Option<String>,
    /// The final result or error, once there is one.
    pub result: Option<Value>,
}

/// `_meta` key prefix of the Sieve fields of a task on the wire.
const META: &str = "dev.mcp-sieve/";

impl TaskRecord {
    /// The task as `tasks/list` and `tasks/get` show it: the spec's fields
    /// and ours under `_meta`.
    pub fn to_wire(&self) -> Value {
        let mut task = json!({
            "taskId": self.id,
            "status": self.status.as_str(),
            "createdAt": format_timestamp(self.created_at),
            "lastUpdatedAt": format_timestamp(self.last_updated_at),
        });
        if let Some(message) = &self.status_message {
            task["statusMessage"] = json!(message);
        }
        if let Some(ttl) = self.ttl_ms {
            task["ttl"] = json!(ttl);
        }
        if let Some(poll) = self.poll_interval_ms {
            task["pollInterval"] = json!(poll);
        }
        let mut meta = json!({
            format!("{META}kind"): self.kind.as_str(),
            format!("{META}server"): self.server,
            format!("{META}method"): self.method,
        });
        for (key, value) in [
            ("tool", &self.tool),
            ("upstreamTaskId", &self.upstream_id),
            ("profile", &self.profile),
            ("retryOf", &self.retry_of),
            ("owner", &self.owner),
        ] {
            if let Some(value) = value {
                meta[format!("{META}{key}")] = json!(value);
            }
        }
        task["_meta"] = meta;
        task
    }
}

/// The order of a listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderBy {
    CreatedAt,
    LastUpdatedAt,
}

impl OrderBy {
    pub fn as_str(self) -> &'static str {
        match self {
            OrderBy::CreatedAt => "createdAt",
            OrderBy::LastUpdatedAt => "lastUpdatedAt",
        }
    }
}

/// Where a page ends: the order key and the ledger sequence number of the
/// last entry, so the next page starts strictly after it even when many
/// entries share one timestamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    pub key: i64,
    pub seq: i64,
}

impl Cursor {
    /// The opaque text hosts send back.
    pub fn encode(self) -> String {
        format!("s1.{}.{}", self.key, self.seq)
    }

    pub fn decode(text: &str) -> Option<Cursor> {
        let mut parts = text.strip_prefix("s1.")?.splitn(2, '.');
        let key = parts.next()?.parse().ok()?;
        let seq = parts.next()?.parse().ok()?;
        Some(Cursor { key, seq })
    }
}

/// Entries a page holds unless `limit` says otherwise.
pub const DEFAULT_LIMIT: u32 = 50;
/// The most entries one page may hold.
pub const MAX_LIMIT: u32 = 500;

/// A `tasks/list` query.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskQuery {
    pub methods: Vec<String>,
    pub task_ids: Vec<String>,
    pub statuses: Vec<TaskStatus>,
    pub servers: Vec<String>,
    pub created_after: Option<i64>,
    pub created_before: Option<i64>,
    pub last_updated_after: Option<i64>,
    pub last_updated_before: Option<i64>,
    pub order_by: OrderBy,
    /// Newest first.
    pub descending: bool,
    pub cursor: Option<Cursor>,
    pub limit: u32,
    /// Only this person's entries (see [`TaskRecord::owner`]). Set by the
    /// proxy for a signed-in caller; never read from a request.
    pub owner: Option<String>,
}

impl Default for TaskQuery {
    fn default() -> Self {
        TaskQuery {
            methods: Vec::new(),
            task_ids: Vec::new(),
            statuses: Vec::new(),
            servers: Vec::new(),
            created_after: None,
            created_before: None,
            last_updated_after: None,
            last_updated_before: None,
            order_by: OrderBy::LastUpdatedAt,
            descending: true,
            cursor: None,
            limit: DEFAULT_LIMIT,
            owner: None,
        }
    }
}

/// A bad `tasks/list` parameter: the field and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct ParamError {
    pub field: String,
    pub message: String,
}

fn bad(field: &str, message: impl Into<String>) -> ParamError {
    ParamError {
        field: field.to_string(),
        message: message.into(),
    }
}

/// The criteria `tasks/list` supports, as advertised in
/// `capabilities.experimental.tasksListFilter`.
pub fn supported_filters() -> Value {
    json!({
        "methods": ["tools/call"],
        "taskIds": true,
        "status": TaskStatus::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        "servers": true,
        "createdAt": {"before": true, "after": true},
        "lastUpdatedAt": {"before": true, "after": true},
        "order": {"by": ["createdAt", "lastUpdatedAt"], "direction": ["asc", "desc"]},
        "cursor": true,
        "limit": {"default": DEFAULT_LIMIT, "max": MAX_LIMIT}
    })
}

impl TaskQuery {
    /// Reads `tasks/list` params; every bad value names its field.
    pub fn from_params(params: &Value) -> Result<TaskQuery, ParamError> {
        let mut query = TaskQuery::default();
        let params = match params {
            Value::Null => return Ok(query),
            Value::Object(object) => object,
            _ => return Err(bad("params", "must be an object")),
        };
        query.methods = strings(params.get("methods"), "methods")?;
        query.task_ids = strings(params.get("taskIds"), "taskIds")?;
        query.servers = strings(params.get("servers"), "servers")?;
        let statuses = match params.get("status") {
            Some(Value::String(one)) => vec![one.clone()],
            other => strings(other, "status")?,
        };
        for status in statuses {
            let parsed = TaskStatus::parse(&status).ok_or_else(|| {
                bad(
                    "status",
                    format!(
                        "unknown status {status:?}; expected one of {}",
                        TaskStatus::ALL.map(|s| s.as_str()).join(", ")
                    ),
                )
            })?;
            query.statuses.push(parsed);
        }
        query.created_after = timestamp(params.get("createdAfter"), "createdAfter")?;
        query.created_before = timestamp(params.get("createdBefore"), "createdBefore")?;
        query.last_updated_after = timestamp(params.get("lastUpdatedAfter"), "lastUpdatedAfter")?;
        query.last_updated_before =
            timestamp(params.get("lastUpdatedBefore"), "lastUpdatedBefore")?;
        query.order_by = match params.get("orderBy") {
            None | Some(Value::Null) => OrderBy::LastUpdatedAt,
            Some(Value::String(s)) if s == "lastUpdatedAt" => OrderBy::LastUpdatedAt,
            Some(Value::String(s)) if s == "createdAt" => OrderBy::CreatedAt,
            Some(other) => {
                return Err(bad(
                    "orderBy",
                    format!("{other} is not createdAt or lastUpdatedAt"),
                ));
            }
        };
        query.descending = match params.get("order") {
            None | Some(Value::Null) => true,
            Some(Value::String(s)) if s == "desc" => true,
            Some(Value::String(s)) if s == "asc" => false,
            Some(other) => return Err(bad("order", format!("{other} is not asc or desc"))),
        };
        query.cursor = match params.get("cursor") {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) => Some(Cursor::decode(text).ok_or_else(|| {
                bad(
                    "cursor",
                    "not a cursor this server gave out; start again without one",
                )
            })?),
            Some(_) => return Err(bad("cursor", "must be a string")),
        };
        query.limit = match params.get("limit") {
            None | Some(Value::Null) => DEFAULT_LIMIT,
            Some(value) => match value.as_u64() {
                Some(n) if (1..=u64::from(MAX_LIMIT)).contains(&n) => n as u32,
                _ => {
                    return Err(bad(
                        "limit",
                        format!("must be a whole number from 1 to {MAX_LIMIT}"),
                    ));
                }
            },
        };
        Ok(query)
    }

    /// Whether `record` passes every filter (not the cursor). The ledger
    /// filters in SQL; this is the same rule for tests and for callers
    /// holding records in memory.
    pub fn matches(&self, record: &TaskRecord) -> bool {
        let any = |list: &[String], value: &str| list.is_empty() || list.iter().any(|v| v == value);
        any(&self.methods, &record.method)
            && any(&self.task_ids, &record.id)
            && any(&self.servers, &record.server)
            && (self.statuses.is_empty() || self.statuses.contains(&record.status))
            && self.created_after.is_none_or(|t| record.created_at > t)
            && self.created_before.is_none_or(|t| record.created_at < t)
            && self
                .last_updated_after
                .is_none_or(|t| record.last_updated_at > t)
            && self
                .last_updated_before
                .is_none_or(|t| record.last_updated_at < t)
            && self
                .owner
                .as_ref()
                .is_none_or(|o| record.owner.as_ref() == Some(o))
    }

    /// The order key of `record` under this query.
    pub fn key(&self, record: &TaskRecord) -> i64 {
        match self.order_by {
            OrderBy::CreatedAt => record.created_at,
            OrderBy::LastUpdatedAt => record.last_updated_at,
        }
    }
}

fn strings(value: Option<&Value>, field: &str) -> Result<Vec<String>, ParamError> {
    crate::parse::string_list(value, field).map_err(|_| bad(field, "must be a list of strings"))
}

fn timestamp(value: Option<&Value>, field: &str) -> Result<Option<i64>, ParamError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => parse_timestamp(text)
            .map(Some)
            .map_err(|error| bad(field, error.to_string())),
        Some(_) => Err(bad(field, "must be an ISO 8601 timestamp string")),
    }
}

/// A time a person wrote that is none of the forms taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TimeError {
    /// Not an ISO 8601 timestamp or date (a date is quoted as the
    /// timestamp it stands for).
    #[error(
        "{text:?} is not an ISO 8601 timestamp such as 2026-11-20T14:30:00Z or a date such as 2026-11-20"
    )]
    NotTimestamp { text: String },
    /// Not an age either.
    #[error(
        "{text:?} is neither an age such as 3h, 45m or 2d nor a timestamp such as 2026-11-20T14:30:00Z"
    )]
    NotAgeOrTimestamp { text: String },
}

/// Milliseconds since the epoch of an ISO 8601 (RFC 3339) timestamp, or of
/// a date (`2026-11-20`, midnight UTC).
pub fn parse_timestamp(text: &str) -> Result<i64, TimeError> {
    let full;
    let text = if text.len() == 10 && text.as_bytes().get(4) == Some(&b'-') {
        full = format!("{text}T00:00:00Z");
        &full
    } else {
        text
    };
    OffsetDateTime::parse(text, &Rfc3339)
        .map(|t| (t.unix_timestamp_nanos() / 1_000_000) as i64)
        .map_err(|_| TimeError::NotTimestamp {
            text: text.to_string(),
        })
}

/// The RFC 3339 form (UTC, milliseconds) of `ms` since the epoch.
pub fn format_timestamp(ms: i64) -> String {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_else(|| ms.to_string())
}

/// A start time given as an age (`90s`, `45m`, `3h`, `2d`) before `now_ms`,
/// or as a timestamp or date.
pub fn parse_since(text: &str, now_ms: i64) -> Result<i64, TimeError> {
    let text = text.trim();
    let units = [
        ('s', 1_000),
        ('m', 60_000),
        ('h', 3_600_000),
        ('d', 86_400_000),
        ('w', 604_800_000),
    ];
    if let Some(last) = text.chars().last()
        && let Some((_, factor)) = units.iter().find(|(u, _)| *u == last)
        && let Ok(count) = text[..text.len() - 1].parse::<i64>()
    {
        return Ok(now_ms - count * factor);
    }
    parse_timestamp(text).map_err(|_| TimeError::NotAgeOrTimestamp {
        text: text.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str, created: i64, updated: i64) -> TaskRecord {
        TaskRecord {
            id: id.into(),
            kind: EntryKind::Task,
            server: "demo".into(),
            upstream_id: Some(format!("up-{id}")),
            method: "tools/call".into(),
            tool: Some("demo__run_job".into()),
            params: json!({"name": "run_job"}),
            status: TaskStatus::Working,
            status_message: None,
            created_at: created,
            last_updated_at: updated,
            ttl_ms: Some(60_000),
            poll_interval_ms: Some(500),
            profile: Some("default".into()),
            retry_of: None,
            owner: None,
            result: None,
        }
    }

    #[test]
    fn defaults() {
        let q = TaskQuery::from_params(&json!({})).unwrap();
        assert_eq!(q, TaskQuery::default());
        assert_eq!(q.order_by, OrderBy::LastUpdatedAt);
        assert!(q.descending);
        assert_eq!(q.limit, 50);
        assert_eq!(
            TaskQuery::from_params(&Value::Null).unwrap(),
            TaskQuery::default()
        );
    }

    #[test]
    fn every_filter_parses() {
        let q = TaskQuery::from_params(&json!({
            "methods": ["tools/call"], "taskIds": ["a", "b"], "status": ["working", "failed"],
            "servers": ["demo"], "createdAfter": "2026-11-20T10:00:00Z", "createdBefore": "2026-11-21",
            "lastUpdatedAfter": "2026-11-20T10:00:00.250+01:00", "lastUpdatedBefore": "2026-11-22T00:00:00Z",
            "orderBy": "createdAt", "order": "asc", "cursor": "s1.17.4", "limit": 10
        }))
        .unwrap();
        assert_eq!(q.statuses, [TaskStatus::Working, TaskStatus::Failed]);
        assert_eq!(q.created_after, Some(1_795_168_800_000));
        assert_eq!(q.created_before, Some(1_795_219_200_000));
        assert_eq!(
            q.last_updated_after,
            Some(1_795_165_200_250),
            "offsets are honoured"
        );
        assert_eq!(q.order_by, OrderBy::CreatedAt);
        assert!(!q.descending);
        assert_eq!(q.cursor, Some(Cursor { key: 17, seq: 4 }));
        assert_eq!(q.limit, 10);
        assert_eq!(
            TaskQuery::from_params(&json!({"status": "completed"}))
                .unwrap()
                .statuses,
            [TaskStatus::Completed]
        );
    }

    #[test]
    fn bad_values_name_the_field() {
        for (params, field) in [
            (json!({"status": ["done"]}), "status"),
            (json!({"status": [1]}), "status"),
            (json!({"createdAfter": "yesterday"}), "createdAfter"),
            (json!({"createdBefore": 5}), "createdBefore"),
            (
                json!({"lastUpdatedAfter": "2026-13-01T00:00:00Z"}),
                "lastUpdatedAfter",
            ),
            (
                json!({"lastUpdatedBefore": "2026-11-20 10:00"}),
                "lastUpdatedBefore",
            ),
            (json!({"orderBy": "name"}), "orderBy"),
            (json!({"order": "up"}), "order"),
            (json!({"cursor": "garbage"}), "cursor"),
            (json!({"limit": 0}), "limit"),
            (json!({"limit": 501}), "limit"),
            (json!({"limit": "5"}), "limit"),
            (json!({"methods": "tools/call"}), "methods"),
            (json!({"taskIds": [true]}), "taskIds"),
            (json!({"servers": {}}), "servers"),
            (json!([1]), "params"),
        ] {
            assert_eq!(
                TaskQuery::from_params(&params).unwrap_err().field,
                field,
                "{params}"
            );
        }
        let err = TaskQuery::from_params(&json!({"status": ["done"]})).unwrap_err();
        assert_eq!(
            err.to_string(),
            "status: unknown status \"done\"; expected one of working, input_required, completed, failed, cancelled"
        );
    }

    #[test]
    fn bounds_are_exclusive() {
        let r = record("a", 1000, 2000);
        let q = |params: Value| TaskQuery::from_params(&params).unwrap();
        let at = |ms: i64| format_timestamp(ms);
        assert!(!q(json!({"createdAfter": at(1000)})).matches(&r));
        assert!(q(json!({"createdAfter": at(999)})).matches(&r));
        assert!(!q(json!({"createdBefore": at(1000)})).matches(&r));
        assert!(q(json!({"createdBefore": at(1001)})).matches(&r));
        assert!(!q(json!({"lastUpdatedAfter": at(2000)})).matches(&r));
        assert!(!q(json!({"lastUpdatedBefore": at(2000)})).matches(&r));
        assert!(
            q(json!({"lastUpdatedAfter": at(1999), "lastUpdatedBefore": at(2001)})).matches(&r)
        );
    }

    #[test]
    fn filters_match_lists_as_any() {
        let mut r = record("a", 1, 2);
        r.status = TaskStatus::Failed;
        let q = |params: Value| TaskQuery::from_params(&params).unwrap();
        assert!(q(json!({"status": ["working", "failed"]})).matches(&r));
        assert!(!q(json!({"status": ["working"]})).matches(&r));
        assert!(q(json!({"taskIds": ["x", "a"]})).matches(&r));
        assert!(!q(json!({"servers": ["other"]})).matches(&r));
        assert!(!q(json!({"methods": ["sampling/createMessage"]})).matches(&r));
    }

    #[test]
    fn timestamps_round_trip() {
        assert_eq!(format_timestamp(0), "1970-01-01T00:00:00Z");
        let ms = 1_795_168_800_123;
        assert_eq!(format_timestamp(ms), "2026-11-20T10:00:00.123Z");
        assert_eq!(parse_timestamp(&format_timestamp(ms)).unwrap(), ms);
    }

    #[test]
    fn since_takes_ages_and_dates() {
        let now = 10_000_000_000;
        assert_eq!(parse_since("3h", now).unwrap(), now - 3 * 3_600_000);
        assert_eq!(parse_since("45m", now).unwrap(), now - 45 * 60_000);
        assert_eq!(parse_since("2d", now).unwrap(), now - 2 * 86_400_000);
        assert_eq!(parse_since("2026-11-20", now).unwrap(), 1_795_132_800_000);
        assert!(
            parse_since("soon", now)
                .unwrap_err()
                .to_string()
                .contains("neither an age")
        );
    }

    #[test]
    fn cursors_round_trip() {
        let c = Cursor { key: -5, seq: 9 };
        assert_eq!(Cursor::decode(&c.encode()), Some(c));
        assert_eq!(Cursor::decode("s1.x.1"), None);
        assert_eq!(Cursor::decode("1.2"), None);
    }

    #[test]
    fn wire_form() {
        let mut r = record("t-1", 1_795_168_800_000, 1_795_168_860_000);
        r.status_message = Some("step 2 of 5".into());
        r.retry_of = Some("t-0".into());
        let wire = r.to_wire();
        assert_eq!(wire["taskId"], "t-1");
        assert_eq!(wire["status"], "working");
        assert_eq!(wire["createdAt"], "2026-11-20T10:00:00Z");
        assert_eq!(wire["lastUpdatedAt"], "2026-11-20T10:01:00Z");
        assert_eq!(wire["ttl"], 60_000);
        assert_eq!(wire["pollInterval"], 500);
        assert_eq!(wire["statusMessage"], "step 2 of 5");
        assert_eq!(wire["_meta"]["dev.mcp-sieve/retryOf"], "t-0");
        assert_eq!(wire["_meta"]["dev.mcp-sieve/upstreamTaskId"], "up-t-1");
        assert_eq!(wire["_meta"]["dev.mcp-sieve/kind"], "task");
    }
}
