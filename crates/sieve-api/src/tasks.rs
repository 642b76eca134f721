//! The task ledger as people browse it: filters, one entry with its retry
//! chain, retry and cancel.
//!
//! Entries keep the wire shape of `tasks/list` (`taskId`, `status`,
//! timestamps, our fields under `_meta["dev.mcp-sieve/..."]`), so the
//! command line's `--json`, the app and hosts all read the same thing.

use super::{ApiError, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sieve_core::tasks::{TaskQuery, TaskRecord, format_timestamp, parse_since};
use sieve_gateway::engine::Engine;
use sieve_ledger::Ledger;
use sieve_store::store::Store;

/// Filter values as a person gives them: statuses, an age or timestamp
/// for `since`/`until` (on the last update), servers, methods, order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TaskFilter {
    /// working, input_required, completed, failed, cancelled.
    pub status: Vec<String>,
    /// Updated since: an age (`90s`, `45m`, `3h`, `2d`) or a timestamp.
    pub since: Option<String>,
    /// Updated before: an age or a timestamp.
    pub until: Option<String>,
    pub servers: Vec<String>,
    pub methods: Vec<String>,
    /// `createdAt` or `lastUpdatedAt` (the default).
    pub order_by: Option<String>,
    /// Oldest first.
    pub ascending: bool,
    /// Page size, 1-500 (50 when absent).
    pub limit: Option<u32>,
    /// Where the page starts: a previous page's `nextCursor`.
    pub cursor: Option<String>,
    /// Only the entries of this person (their `sub`, on a team gateway
    /// with `settings.identity`).
    pub owner: Option<String>,
}

impl TaskFilter {
    /// The ledger query for these values at time `now_ms`. An error names
    /// the field (`status`, `since`, `until`, `orderBy`, `limit`, `cursor`).
    pub fn query(&self, now_ms: i64) -> Result<TaskQuery> {
        let mut params = json!({
            "status": self.status,
            "servers": self.servers,
            "methods": self.methods,
            "order": if self.ascending { "asc" } else { "desc" },
        });
        if let Some(order_by) = &self.order_by {
            params["orderBy"] = json!(order_by);
        }
        if let Some(limit) = self.limit {
            params["limit"] = json!(limit);
        }
        if let Some(cursor) = &self.cursor {
            params["cursor"] = json!(cursor);
        }
        for (field, bound, value) in [
            ("since", "lastUpdatedAfter", &self.since),
            ("until", "lastUpdatedBefore", &self.until),
        ] {
            if let Some(value) = value {
                let ms = parse_since(value, now_ms)
                    .map_err(|message| ApiError::invalid(field, message))?;
                // The bounds are exclusive; "since 3h" includes the edge.
                let ms = if field == "since" { ms - 1 } else { ms };
                params[bound] = json!(format_timestamp(ms));
            }
        }
        let mut query = TaskQuery::from_params(&params)
            .map_err(|error| ApiError::invalid(&error.field, error.message))?;
        query.owner.clone_from(&self.owner);
        Ok(query)
    }
}

/// One page of entries, newest first unless asked otherwise.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskPage {
    pub tasks: Vec<Value>,
    pub next_cursor: Option<String>,
}

/// The entries that match `filter` at time `now_ms`.
pub fn list(store: &Store, filter: &TaskFilter, now_ms: i64) -> Result<TaskPage> {
    let query = filter.query(now_ms)?;
    let page = super::ledger(store)?.list(&query, &|_| true)?;
    Ok(TaskPage {
        tasks: page.tasks.iter().map(TaskRecord::to_wire).collect(),
        next_cursor: page.next_cursor,
    })
}

/// Everything recorded about one entry: the wire fields, its `params` (what
/// a retry sends again), its `result` or error, and `retryChain`, the ids
/// of the entries it retried, newest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct TaskDetail(pub Value);

/// Entry `id`, or `not_found`.
pub fn record(store: &Store, id: &str) -> Result<TaskRecord> {
    record_in(&super::ledger(store)?, id)
}

fn record_in(ledger: &Ledger, id: &str) -> Result<TaskRecord> {
    ledger.get(id)?.ok_or_else(|| {
        ApiError::new(
            ErrorCode::NotFound,
            format!("there is no task {id:?}; `mcp-sieve tasks` lists them"),
        )
    })
}

/// Entry `id` in full.
pub fn show(store: &Store, id: &str) -> Result<TaskDetail> {
    let ledger = super::ledger(store)?;
    let record = record_in(&ledger, id)?;
    let mut detail = record.to_wire();
    detail["params"] = record.params.clone();
    if let Some(result) = &record.result {
        detail["result"] = result.clone();
    }
    let mut chain = Vec::new();
    let mut next = record.retry_of.clone();
    // Bounded: a chain never loops, but a damaged ledger must not hang us.
    while let Some(id) = next.take() {
        if chain.len() >= 1000 || chain.contains(&id) {
            break;
        }
        next = ledger.get(&id)?.and_then(|older| older.retry_of);
        chain.push(id);
    }
    if !chain.is_empty() {
        detail["retryChain"] = json!(chain);
    }
    Ok(TaskDetail(detail))
}

/// What a retry did: the new entry (pointing to the old one) and the
/// answer of the call, or its error.
#[derive(Debug, Clone)]
pub struct Retried {
    pub record: TaskRecord,
    pub answer: Result<Value>,
}

/// A retry (or the app's "Try") as the page and `--json` show it: the new
/// entry in its wire form, and the call's answer or its error.
#[derive(Debug, Clone, Serialize)]
pub struct RetryView {
    pub record: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ApiError>,
}

impl From<Retried> for RetryView {
    fn from(retried: Retried) -> RetryView {
        let (answer, error) = match retried.answer {
            Ok(answer) => (Some(answer), None),
            Err(error) => (None, Some(error)),
        };
        RetryView {
            record: TaskRecord::to_wire(&retried.record),
            answer,
            error,
        }
    }
}

/// Runs entry `id` again through `engine` under profile `profile` (whose
/// rules must show its tool). A completed or still running entry runs
/// again only with `force`.
pub async fn retry(engine: &Engine, id: &str, force: bool, profile: &str) -> Result<Retried> {
    let active = engine.profile(profile)?;
    let (record, answer) = engine.retry(id, force, &active, None).await?;
    Ok(Retried {
        record,
        answer: answer.map_err(ApiError::from),
    })
}

/// Calls tool `name` with `arguments` under `profile` (the app's "Try"):
/// refused with the profile's reasons when it hides the tool; else called
/// through the proxy's connection to its server and recorded in the
/// ledger. The answer is the tool's result or its error.
pub async fn try_tool(
    engine: &Engine,
    profile: &str,
    name: &str,
    arguments: Value,
) -> Result<Retried> {
    let arguments = match arguments {
        Value::Null => serde_json::Map::new(),
        Value::Object(object) => object,
        _ => {
            return Err(ApiError::invalid(
                "arguments",
                "the arguments are an object of the tool's parameters",
            ));
        }
    };
    let active = engine.profile(profile)?;
    let (record, answer) = engine.try_tool(&active, name, arguments).await?;
    Ok(Retried {
        record,
        answer: answer.map_err(ApiError::from),
    })
}

/// Asks the server of entry `id` to cancel it.
pub async fn cancel(engine: &Engine, id: &str) -> Result<()> {
    let record = record(engine.store(), id)?;
    engine.cancel(&record).await?;
    Ok(())
}
