//! 2025-11-25 tasks, which rmcp does not model: a call to a server of that
//! revision made as a task (`params.task`), and that revision's `tasks/get`,
//! `tasks/result` and `tasks/cancel` from hosts (told apart by
//! `server::dispatch`), answered in that revision's shapes.

use super::wire::{self, Created};
use super::{Call, Tasks};
use crate::error::CallError;
use crate::link::HostLink;
use rmcp::ErrorData;
use serde_json::{Value, json};
use sieve_core::tasks::TaskRecord;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The ttl the proxy asks for when it starts a task a host did not ask for.
const DEFAULT_TTL_MS: i64 = 300_000;

/// What a task-augmented call to a 2025-11-25 upstream gave.
pub(crate) enum Started {
    Task(Box<TaskRecord>),
    /// The server ran it as a plain call after all.
    Done(Value),
}

/// A tool's `execution.taskSupport` as its server lists it.
fn task_support(definition: &Value) -> &str {
    // Looked up member by member: `Value::pointer` would make a string
    // of each part of its path, at every call.
    definition
        .get("execution")
        .and_then(|execution| execution.get("taskSupport"))
        .and_then(Value::as_str)
        .unwrap_or("forbidden")
}

/// Whether the tool listed as `definition` runs only as a task.
pub(crate) fn task_required(definition: &Value) -> bool {
    task_support(definition) == "required"
}

impl Tasks {
    /// Whether a call of the tool listed as `definition` goes to `server`
    /// as a 2025-11-25 task: the server does not speak 2026-07-28 tasks,
    /// and the tool runs as a task when the host asked for one, or only
    /// as a task (then the proxy asks for one itself).
    pub(crate) fn runs_as_legacy_task(
        &self,
        server: &str,
        definition: &Value,
        host_asked: bool,
    ) -> bool {
        let support = task_support(definition);
        let wanted = if host_asked {
            support != "forbidden"
        } else {
            support == "required"
        };
        wanted && !self.pool.modern_tasks(server)
    }

    /// Makes `call` on a 2025-11-25 upstream as a task: `task` is the
    /// host's `params.task`, or `None` when the proxy asks on its own.
    pub(crate) async fn start_legacy(
        &self,
        call: &Call<'_>,
        task: Option<Value>,
    ) -> Result<Started, CallError> {
        let mut augmented = call.params.to_json();
        augmented["task"] = task.unwrap_or_else(|| json!({ "ttl": DEFAULT_TTL_MS }));
        let result = self
            .pool
            .call_raw(call.server, "tools/call", augmented)
            .await?;
        match result.get("task").and_then(Created::from_legacy) {
            Some(created) => Ok(Started::Task(Box::new(self.record(call, created)?))),
            None => Ok(Started::Done(result)),
        }
    }

    /// Answers a host's 2025-11-25 task-augmented call with task `record`
    /// (`{"task": {...}}`), and tells the host when it changes.
    pub(crate) fn answer_legacy(self: &Arc<Self>, record: &TaskRecord, peer: &HostLink) -> Value {
        self.relay(record, peer, true);
        json!({"task": record.to_wire()})
    }

    /// 2025-11-25 `tasks/get`.
    pub(crate) async fn legacy_get(&self, record: TaskRecord) -> Value {
        self.current(record).await.to_wire()
    }

    /// 2025-11-25 `tasks/result`: waits for the end, as that revision
    /// says, unless the host gives up (`host`).
    pub(crate) async fn legacy_result(
        &self,
        record: TaskRecord,
        host: &CancellationToken,
    ) -> Result<Value, ErrorData> {
        let record = if record.status.is_terminal() {
            record
        } else {
            self.follow(&record, host)
                .await
                .ok_or_else(|| ErrorData::internal_error("cancelled before the task ended", None))?
        };
        let result = wire::outcome(&record)?;
        Ok(serde_json::to_value(result).unwrap_or_default())
    }

    /// 2025-11-25 `tasks/cancel`: the task as it is after cancelling.
    pub(crate) async fn legacy_cancel(&self, record: TaskRecord) -> Result<Value, CallError> {
        self.cancel(&record).await?;
        let record = self.ledger()?.get(&record.id)?.unwrap_or(record);
        Ok(record.to_wire())
    }
}
