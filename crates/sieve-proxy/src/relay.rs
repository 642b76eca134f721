//! Tasks relayed between hosts and upstreams, across both generations:
//! the 2026-07-28 tasks extension (SEP-2663, as rmcp models it) and the
//! 2025-11-25 tasks (`params.task`, `tasks/get`, `tasks/result`), which the
//! proxy speaks as raw JSON since rmcp does not model them.
//!
//! When an upstream answers a `tools/call` with a task, the proxy records
//! it in the ledger under a Sieve task id (so ids never collide across
//! servers) and then either hands the task to the host (if the host
//! declared the tasks extension) and keeps its status current by polling
//! at the server's interval, or, for a host that cannot take a task, waits
//! for the task itself and answers the call with its final result. After a
//! restart the proxy resumes following every live task of the ledger.

use crate::engine::{Engine, now_ms};
use crate::ledger::Ledger;
use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, CreateTaskResult, DetailedTask, GetTaskResult, ServerResult, Task, TaskPayload,
};
use serde_json::{Value, json};
use sieve_core::tasks::{EntryKind, TaskRecord, TaskStatus, format_timestamp, parse_timestamp};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Bounds on how often a live task is polled.
const POLL_MIN: Duration = Duration::from_millis(100);
const POLL_MAX: Duration = Duration::from_secs(30);
const POLL_DEFAULT: Duration = Duration::from_secs(1);

/// Our status for rmcp's.
pub fn status_of(status: &rmcp::model::TaskStatus) -> TaskStatus {
    use rmcp::model::TaskStatus as Up;
    match status {
        Up::Working => TaskStatus::Working,
        Up::InputRequired => TaskStatus::InputRequired,
        Up::Completed => TaskStatus::Completed,
        Up::Failed => TaskStatus::Failed,
        Up::Cancelled => TaskStatus::Cancelled,
        // rmcp's enum is open to statuses of later revisions; an unknown
        // one is not final, so keep following the task.
        _ => TaskStatus::Working,
    }
}

fn rmcp_status(status: TaskStatus) -> rmcp::model::TaskStatus {
    use rmcp::model::TaskStatus as Up;
    match status {
        TaskStatus::Working => Up::Working,
        TaskStatus::InputRequired => Up::InputRequired,
        TaskStatus::Completed => Up::Completed,
        TaskStatus::Failed => Up::Failed,
        TaskStatus::Cancelled => Up::Cancelled,
    }
}

/// What a task looked like when an upstream created it.
pub struct Created {
    pub upstream_id: String,
    pub status: TaskStatus,
    pub message: Option<String>,
    pub created_at: Option<String>,
    pub ttl_ms: Option<i64>,
    pub poll_interval_ms: Option<i64>,
}

impl Created {
    fn from_modern(task: &Task) -> Created {
        Created {
            upstream_id: task.task_id.clone(),
            status: status_of(&task.status),
            message: task.status_message.clone(),
            created_at: Some(task.created_at.clone()),
            ttl_ms: task.ttl_ms.map(|t| t as i64),
            poll_interval_ms: task.poll_interval_ms.map(|p| p as i64),
        }
    }

    /// A 2025-11-25 task object (`{taskId, status, ttl, pollInterval, ...}`).
    fn from_legacy(task: &Value) -> Option<Created> {
        Some(Created {
            upstream_id: task.get("taskId")?.as_str()?.to_string(),
            status: task
                .get("status")
                .and_then(Value::as_str)
                .and_then(TaskStatus::parse)
                .unwrap_or(TaskStatus::Working),
            message: task
                .get("statusMessage")
                .and_then(Value::as_str)
                .map(String::from),
            created_at: task
                .get("createdAt")
                .and_then(Value::as_str)
                .map(String::from),
            ttl_ms: task.get("ttl").and_then(Value::as_i64),
            poll_interval_ms: task.get("pollInterval").and_then(Value::as_i64),
        })
    }
}

/// Records the task an upstream created for a call of `tool` (exposed
/// name); returns the ledger entry.
pub fn record(
    engine: &Engine,
    server: &str,
    tool: &str,
    params: &Value,
    profile: &str,
    created: Created,
) -> Result<TaskRecord, ErrorData> {
    let now = now_ms();
    let record = TaskRecord {
        id: Ledger::new_id(),
        kind: EntryKind::Task,
        server: server.to_string(),
        upstream_id: Some(created.upstream_id),
        method: "tools/call".into(),
        tool: Some(tool.to_string()),
        params: params.clone(),
        status: created.status,
        status_message: created.message,
        created_at: created
            .created_at
            .and_then(|t| parse_timestamp(&t).ok())
            .unwrap_or(now),
        last_updated_at: now,
        ttl_ms: created.ttl_ms,
        poll_interval_ms: created.poll_interval_ms,
        profile: Some(profile.to_string()),
        retry_of: None,
        result: None,
    };
    engine
        .ledger()?
        .insert(&record)
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    Ok(record)
}

/// Records a task a 2026-07-28 upstream created.
pub fn record_task(
    engine: &Engine,
    server: &str,
    tool: &str,
    params: &Value,
    profile: &str,
    task: &Task,
) -> Result<TaskRecord, ErrorData> {
    record(
        engine,
        server,
        tool,
        params,
        profile,
        Created::from_modern(task),
    )
}

/// What a task-augmented call to a 2025-11-25 upstream gave.
pub enum Started {
    Task(Box<TaskRecord>),
    /// The server ran it as a plain call after all.
    Done(Value),
}

/// Calls `tool` on a 2025-11-25 upstream as a task (`params.task`).
pub async fn start_legacy(
    engine: &Engine,
    server: &str,
    tool: &str,
    params: &Value,
    profile: &str,
    task: Value,
) -> Result<Started, ErrorData> {
    let mut augmented = params.clone();
    augmented["task"] = task;
    let result = engine
        .pool()
        .call_raw(server, "tools/call", augmented)
        .await?;
    match result.get("task").and_then(Created::from_legacy) {
        Some(created) => {
            let record = record(engine, server, tool, params, profile, created)?;
            Ok(Started::Task(Box::new(record)))
        }
        None => Ok(Started::Done(result)),
    }
}

/// A tool's `execution.taskSupport` as its server lists it.
pub fn task_support(definition: &Value) -> &str {
    definition
        .pointer("/execution/taskSupport")
        .and_then(Value::as_str)
        .unwrap_or("forbidden")
}

/// A ledger entry as a 2026-07-28 task result for the host: the Sieve id
/// in place of the upstream's.
pub fn host_task(record: &TaskRecord) -> CreateTaskResult {
    CreateTaskResult::new(detailed(record).task.task)
}

/// A ledger entry as a `tasks/get` answer, with its stored payload.
pub fn detailed(record: &TaskRecord) -> GetTaskResult {
    let mut task = Task::new(
        record.id.clone(),
        rmcp_status(record.status),
        format_timestamp(record.created_at),
        format_timestamp(record.last_updated_at),
    );
    task.status_message = record.status_message.clone();
    task.ttl_ms = record.ttl_ms.map(|t| t.max(0) as u64);
    task.poll_interval_ms = record.poll_interval_ms.map(|p| p.max(0) as u64);
    let object = |value: &Option<Value>| match value {
        Some(Value::Object(object)) => object.clone(),
        _ => Default::default(),
    };
    let payload = match record.status {
        TaskStatus::Working => TaskPayload::Working,
        TaskStatus::InputRequired => TaskPayload::Working,
        TaskStatus::Completed => TaskPayload::Completed {
            result: object(&record.result),
        },
        TaskStatus::Failed => TaskPayload::Failed {
            error: object(&record.result),
        },
        TaskStatus::Cancelled => TaskPayload::Cancelled,
    };
    GetTaskResult::new(DetailedTask::new(task, payload))
}

/// Asks the upstream for the task's state once, stores it, and returns
/// the updated entry.
pub async fn refresh(engine: &Engine, record: &TaskRecord) -> Result<TaskRecord, ErrorData> {
    let upstream_id = record.upstream_id.as_deref().ok_or_else(|| {
        ErrorData::invalid_params(format!("{:?} is a call, not a task", record.id), None)
    })?;
    let (status, message, payload) = if engine.pool().modern_tasks(&record.server) {
        let answer = engine
            .pool()
            .call(
                &record.server,
                "tasks/get",
                json!({ "taskId": upstream_id }),
            )
            .await?;
        let result: GetTaskResult = match answer {
            ServerResult::GetTaskResult(result) => result,
            other => serde_json::to_value(other)
                .and_then(serde_json::from_value)
                .map_err(|e| {
                    ErrorData::internal_error(format!("tasks/get answer is not valid: {e}"), None)
                })?,
        };
        let payload = match &result.task.payload {
            TaskPayload::Completed { result } => Some(Value::Object(result.clone())),
            TaskPayload::Failed { error } => Some(Value::Object(error.clone())),
            _ => None,
        };
        (
            status_of(&result.task.task.status),
            result.task.task.status_message.clone(),
            payload,
        )
    } else {
        let state = engine
            .pool()
            .call_raw(
                &record.server,
                "tasks/get",
                json!({ "taskId": upstream_id }),
            )
            .await?;
        let state = Created::from_legacy(&state).ok_or_else(|| {
            ErrorData::internal_error(format!("tasks/get answer is not a task: {state}"), None)
        })?;
        // A finished 2025-11-25 task hands over its outcome on tasks/result.
        let payload = if state.status.is_terminal() && state.status != TaskStatus::Cancelled {
            let outcome = engine
                .pool()
                .call_raw(
                    &record.server,
                    "tasks/result",
                    json!({ "taskId": upstream_id }),
                )
                .await;
            Some(match outcome {
                Ok(result) => result,
                Err(error) => serde_json::to_value(error).unwrap_or_default(),
            })
        } else {
            None
        };
        (state.status, state.message, payload)
    };
    let ledger = engine.ledger()?;
    ledger
        .update(
            &record.id,
            status,
            message.as_deref(),
            payload.as_ref(),
            now_ms(),
        )
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    let updated = ledger
        .get(&record.id)
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
        .ok_or_else(|| {
            ErrorData::internal_error(format!("task {} left the ledger", record.id), None)
        })?;
    if (updated.status, &updated.status_message) != (record.status, &record.status_message) {
        let detailed = serde_json::to_value(&detailed(&updated).task).unwrap_or_default();
        engine.hosts().task_changed(
            &updated.id,
            updated.status.is_terminal(),
            updated.to_wire(),
            detailed,
        );
    }
    Ok(updated)
}

fn poll_interval(record: &TaskRecord) -> Duration {
    record
        .poll_interval_ms
        .map(|ms| Duration::from_millis(ms.max(0) as u64))
        .unwrap_or(POLL_DEFAULT)
        .clamp(POLL_MIN, POLL_MAX)
}

/// Polls the task until it ends (or `stop` fires); returns its last state.
/// A server that is down is asked again at the next interval; a task past
/// its ttl that no server will report on is marked failed.
pub async fn follow(
    engine: &Engine,
    record: &TaskRecord,
    stop: &CancellationToken,
) -> Option<TaskRecord> {
    let mut current = record.clone();
    loop {
        tokio::select! {
            () = stop.cancelled() => return None,
            () = tokio::time::sleep(poll_interval(record)) => {}
        }
        match refresh(engine, &current).await {
            Ok(state) if state.status.is_terminal() => return Some(state),
            Ok(state) => current = state,
            Err(error) => {
                let expired = record
                    .ttl_ms
                    .is_some_and(|ttl| now_ms() > record.created_at + ttl);
                if expired {
                    let message = format!(
                        "no word from server {:?} within the task's ttl: {}",
                        record.server, error.message
                    );
                    let _ = engine.ledger().map(|l| {
                        l.update(
                            &record.id,
                            TaskStatus::Failed,
                            Some(&message),
                            None,
                            now_ms(),
                        )
                    });
                    return None;
                }
            }
        }
    }
}

/// Keeps a task's status current in the background.
pub fn spawn_follow(engine: Arc<Engine>, record: TaskRecord) {
    tokio::spawn(async move {
        let stop = engine.stopping();
        follow(&engine, &record, &stop).await;
    });
}

/// For a host that cannot take a task: waits for it and answers the call
/// with its result, cancelling it upstream if the host cancels the call.
pub async fn finish(
    engine: &Engine,
    record: &TaskRecord,
    host: &CancellationToken,
) -> Result<CallToolResult, ErrorData> {
    match follow(engine, record, host).await {
        Some(done) => outcome(&done),
        None => {
            if host.is_cancelled() {
                let _ = cancel(engine, record).await;
            }
            Err(ErrorData::internal_error(
                format!("task {} did not finish", record.id),
                None,
            ))
        }
    }
}

/// The call result of a finished task: its result, or its error.
pub fn outcome(record: &TaskRecord) -> Result<CallToolResult, ErrorData> {
    outcome_of(record).map(|mut result| {
        // For a 2026-07-28 host; rmcp strips it again for older ones.
        result
            .result_type
            .get_or_insert(rmcp::model::ResultType::COMPLETE);
        result
    })
}

fn outcome_of(record: &TaskRecord) -> Result<CallToolResult, ErrorData> {
    let stored = record.result.clone().unwrap_or_default();
    match record.status {
        TaskStatus::Completed => serde_json::from_value(stored).map_err(|e| {
            ErrorData::internal_error(format!("the task's result is not a tool result: {e}"), None)
        }),
        TaskStatus::Failed => {
            // An error object, or a tool result that says what went wrong.
            if let Ok(result) = serde_json::from_value::<CallToolResult>(stored.clone()) {
                return Ok(result);
            }
            Err(serde_json::from_value(stored.clone()).unwrap_or_else(|_| {
                ErrorData::internal_error(format!("task {} failed: {stored}", record.id), None)
            }))
        }
        _ => Err(ErrorData::internal_error(
            format!("task {} was {}", record.id, record.status),
            None,
        )),
    }
}

/// Cancels a task upstream and records it.
pub async fn cancel(engine: &Engine, record: &TaskRecord) -> Result<(), ErrorData> {
    if record.status.is_terminal() {
        return Err(ErrorData::invalid_params(
            format!(
                "task {:?} is already {}; nothing to cancel",
                record.id, record.status
            ),
            None,
        ));
    }
    let upstream_id = record.upstream_id.as_deref().ok_or_else(|| {
        ErrorData::invalid_params(
            format!("{:?} is a call, not a task a server runs", record.id),
            None,
        )
    })?;
    engine
        .pool()
        .call(
            &record.server,
            "tasks/cancel",
            json!({ "taskId": upstream_id }),
        )
        .await?;
    engine
        .ledger()?
        .update(
            &record.id,
            TaskStatus::Cancelled,
            Some("cancelled"),
            None,
            now_ms(),
        )
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    Ok(())
}
