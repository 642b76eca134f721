//! Ledger entries in the shapes of both protocol generations: the
//! 2026-07-28 tasks extension as rmcp models it, and 2025-11-25 tasks as
//! raw JSON (`{taskId, status, ttl, pollInterval, ...}`), which rmcp does
//! not model. The proxy shows hosts its own Sieve task ids, never the
//! upstream's.

use crate::tap::typed_message;
use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, CreateTaskResult, DetailedTask, GetTaskResult, ServerNotification, Task,
    TaskPayload,
};
use serde_json::{Value, json};
use sieve_core::tasks::{TaskRecord, TaskStatus, format_timestamp};

/// Our status for rmcp's.
pub(crate) fn status_of(status: &rmcp::model::TaskStatus) -> TaskStatus {
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

/// A task as an upstream describes it, in either generation.
pub(crate) struct Created {
    pub upstream_id: String,
    pub status: TaskStatus,
    pub message: Option<String>,
    pub created_at: Option<String>,
    pub ttl_ms: Option<i64>,
    pub poll_interval_ms: Option<i64>,
}

impl Created {
    pub(crate) fn from_modern(task: &Task) -> Created {
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
    pub(crate) fn from_legacy(task: &Value) -> Option<Created> {
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

/// A ledger entry as a 2026-07-28 task result for the host.
pub(crate) fn host_task(record: &TaskRecord) -> CreateTaskResult {
    CreateTaskResult::new(detailed(record).task.task)
}

/// A ledger entry as a `tasks/get` answer, with its stored payload.
pub(crate) fn detailed(record: &TaskRecord) -> GetTaskResult {
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

/// The notification that tells a host `record` changed: 2025-11-25's
/// `notifications/tasks/status` with the task, if `legacy`, else
/// 2026-07-28's `notifications/tasks` with the detailed task.
pub(crate) fn changed(record: &TaskRecord, legacy: bool) -> Option<ServerNotification> {
    let (method, params) = if legacy {
        ("notifications/tasks/status", record.to_wire())
    } else {
        (
            "notifications/tasks",
            serde_json::to_value(&detailed(record).task).unwrap_or_default(),
        )
    };
    typed_message(method, params).ok()
}

/// The call result of a finished task: its result, or its error.
pub(crate) fn outcome(record: &TaskRecord) -> Result<CallToolResult, ErrorData> {
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

/// The answer to `tasks/retry`: the new entry, and the call's result or
/// error.
pub(crate) fn retried(record: &TaskRecord, answer: Result<Value, ErrorData>) -> Value {
    let mut result = json!({ "task": record.to_wire() });
    match answer {
        Ok(value) => result["result"] = value,
        Err(error) => result["error"] = serde_json::to_value(error).unwrap_or_default(),
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_notifications_of_both_revisions_are_built() {
        let record = TaskRecord {
            id: "st-1".into(),
            kind: sieve_core::tasks::EntryKind::Task,
            server: "demo".into(),
            upstream_id: Some("up-1".into()),
            method: "tools/call".into(),
            tool: Some("demo__slow".into()),
            params: json!({}),
            status: TaskStatus::Working,
            status_message: None,
            created_at: 1_700_000_000_000,
            last_updated_at: 1_700_000_000_000,
            ttl_ms: None,
            poll_interval_ms: None,
            profile: None,
            retry_of: None,
            owner: None,
            result: None,
        };
        for (legacy, method) in [
            (true, "notifications/tasks/status"),
            (false, "notifications/tasks"),
        ] {
            let built = changed(&record, legacy).unwrap_or_else(|| panic!("{method} is built"));
            let wire = serde_json::to_value(&built).unwrap();
            assert_eq!(wire["method"], method, "{wire}");
            assert_eq!(wire["params"]["taskId"], "st-1", "{wire}");
        }
    }
}
