//! Live tasks: their status kept current by polling at the server's
//! interval (and resumed after a restart, for every task the ledger has as
//! live), the host that holds one told when it changes, and a host's call
//! that became a task answered: with the task itself if the host declared
//! the tasks extension, else by waiting for the task and answering with
//! its final result.

use super::Tasks;
use super::wire::{self, Created};
use crate::clock::now_ms;
use crate::error::CallError;
use crate::link::HostLink;
use crate::link::HostRequest;
use rmcp::ErrorData;
use rmcp::model::{CallToolResponse, CallToolResult, GetTaskResult, ServerResult, TaskPayload};
use serde_json::{Value, json};
use sieve_core::tasks::{EntryKind, TaskRecord, TaskStatus};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Bounds on how often a live task is polled.
const POLL_MIN: Duration = Duration::from_millis(100);
const POLL_MAX: Duration = Duration::from_secs(30);
const POLL_DEFAULT: Duration = Duration::from_secs(1);

/// How long a restarted proxy waits for servers before following the
/// tasks it left.
const RESUME_WAIT: Duration = Duration::from_secs(30);

fn poll_interval(record: &TaskRecord) -> Duration {
    record
        .poll_interval_ms
        .map(|ms| Duration::from_millis(ms.max(0) as u64))
        .unwrap_or(POLL_DEFAULT)
        .clamp(POLL_MIN, POLL_MAX)
}

impl Tasks {
    /// Asks the upstream for the task's state once, stores it, tells the
    /// host that holds the task if it changed, and returns the updated
    /// entry.
    pub(crate) async fn refresh(&self, record: &TaskRecord) -> Result<TaskRecord, CallError> {
        let upstream_id = super::upstream_id(record)?;
        let asked = json!({ "taskId": upstream_id });
        let (status, message, payload) = if self.pool.modern_tasks(&record.server) {
            let answer = self.pool.call(&record.server, "tasks/get", asked).await?;
            let result: GetTaskResult = match answer {
                ServerResult::GetTaskResult(result) => result,
                other => serde_json::to_value(other)
                    .and_then(serde_json::from_value)
                    .map_err(|e| {
                        CallError::of_server(
                            &record.server,
                            format!("tasks/get answer is not valid: {e}"),
                            None,
                        )
                    })?,
            };
            let payload = match &result.task.payload {
                TaskPayload::Completed { result } => Some(Value::Object(result.clone())),
                TaskPayload::Failed { error } => Some(Value::Object(error.clone())),
                _ => None,
            };
            (
                wire::status_of(&result.task.task.status),
                result.task.task.status_message.clone(),
                payload,
            )
        } else {
            let state = self
                .pool
                .call_raw(&record.server, "tasks/get", asked.clone())
                .await?;
            let state = Created::from_legacy(&state).ok_or_else(|| {
                CallError::of_server(
                    &record.server,
                    format!("tasks/get answer is not a task: {state}"),
                    None,
                )
            })?;
            // A finished 2025-11-25 task hands over its outcome on tasks/result.
            let payload = if state.status.is_terminal() && state.status != TaskStatus::Cancelled {
                let outcome = self
                    .pool
                    .call_raw(&record.server, "tasks/result", asked)
                    .await;
                Some(match outcome {
                    Ok(result) => result,
                    Err(error) => serde_json::to_value(ErrorData::from(error)).unwrap_or_default(),
                })
            } else {
                None
            };
            (state.status, state.message, payload)
        };
        // A task that ends without a word of its own must not keep the
        // message it had while working ("... is running"): servers leave
        // it as it was (rmcp's task manager does), or send none.
        let stale = message.is_none() || message == record.status_message;
        let message = if status.is_terminal() && stale && !record.status.is_terminal() {
            Some(super::ended_message(status, payload.as_ref()))
        } else {
            message
        };
        let ledger = self.ledger()?;
        ledger.update(
            &record.id,
            status,
            message.as_deref(),
            payload.as_ref(),
            now_ms(),
        )?;
        let updated = ledger
            .get(&record.id)?
            .ok_or_else(|| CallError::LeftLedger {
                id: record.id.clone(),
            })?;
        if (updated.status, &updated.status_message) != (record.status, &record.status_message) {
            self.tell_host(&updated);
        }
        Ok(updated)
    }

    /// Tells the host that holds `record` that it changed, in the shape of
    /// the host's generation.
    fn tell_host(&self, record: &TaskRecord) {
        let Some((peer, legacy)) = self
            .hosts
            .task_watcher(&record.id, record.status.is_terminal())
        else {
            tracing::debug!("task {} changed; no host is watching it", record.id);
            return;
        };
        if let Some(notification) = wire::changed(record, legacy) {
            tokio::spawn(async move {
                // A host that went away cannot be told; it polls when back.
                if let Err(error) = peer.notify(notification).await {
                    tracing::debug!("a task notification was not delivered: {error}");
                }
            });
        }
    }

    /// Entry `record` as it is now: a live task fresh from its server, or
    /// its last known state if the server is down.
    pub(crate) async fn current(&self, record: TaskRecord) -> TaskRecord {
        if record.kind == EntryKind::Task
            && !record.status.is_terminal()
            && let Ok(state) = self.refresh(&record).await
        {
            return state;
        }
        record
    }

    /// Polls the task until it ends (or `stop` fires); returns its last
    /// state. A server that is down is asked again at the next interval; a
    /// task past its ttl that no server will report on is marked failed.
    pub(crate) async fn follow(
        &self,
        record: &TaskRecord,
        stop: &CancellationToken,
    ) -> Option<TaskRecord> {
        let mut current = record.clone();
        loop {
            tokio::select! {
                () = stop.cancelled() => return None,
                () = tokio::time::sleep(poll_interval(record)) => {}
            }
            match self.refresh(&current).await {
                Ok(state) if state.status.is_terminal() => return Some(state),
                Ok(state) => current = state,
                Err(error) => {
                    let expired = record
                        .ttl_ms
                        .is_some_and(|ttl| now_ms() > record.created_at + ttl);
                    if expired {
                        let message = format!(
                            "no word from server {:?} within the task's ttl: {error}",
                            record.server
                        );
                        let _ = self.ledger().map(|l| {
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

    /// Keeps a task's status current in the background, until it ends or
    /// the engine stops.
    pub(crate) fn spawn_follow(self: &Arc<Self>, record: TaskRecord) {
        let tasks = self.clone();
        tokio::spawn(async move {
            tasks.follow(&record, &tasks.stopping).await;
        });
    }

    /// Follows again every task the ledger has as live (after a restart, or
    /// tasks another proxy process started and left), once servers answer.
    pub(crate) fn resume(self: &Arc<Self>) {
        let Some(ledger) = self.ledger.clone() else {
            return;
        };
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            let live = match ledger.live() {
                Ok(live) if !live.is_empty() => live,
                Ok(_) => return,
                Err(error) => {
                    tracing::warn!("{error}");
                    return;
                }
            };
            let Some(tasks) = weak.upgrade() else { return };
            tasks.pool.settled(RESUME_WAIT).await;
            let servers = tasks.pool.statuses();
            for record in live {
                if servers.contains_key(&record.server) {
                    tasks.spawn_follow(record);
                }
            }
        });
    }

    /// Hands task `record` to the host at `peer`: the host is told when it
    /// changes (in the 2025-11-25 shape if `legacy`), and the proxy keeps
    /// its status current.
    pub(crate) fn relay(self: &Arc<Self>, record: &TaskRecord, peer: &HostLink, legacy: bool) {
        self.hosts.watch_task(&record.id, peer, legacy);
        self.spawn_follow(record.clone());
    }

    /// Answers a host's `tools/call` that became task `record`: a host
    /// that takes tasks gets the task; for any other the proxy waits for
    /// it and answers with its result.
    pub(crate) async fn answer(
        self: &Arc<Self>,
        record: &TaskRecord,
        context: &HostRequest,
    ) -> Result<CallToolResponse, ErrorData> {
        if context.takes_tasks() {
            self.relay(record, &context.link, false);
            Ok(CallToolResponse::Task(wire::host_task(record)))
        } else {
            Ok(CallToolResponse::Complete(
                self.finish(record, &context.ct).await?,
            ))
        }
    }

    /// Waits for a task and returns its result, cancelling it upstream if
    /// the host cancels the call.
    async fn finish(
        &self,
        record: &TaskRecord,
        host: &CancellationToken,
    ) -> Result<CallToolResult, ErrorData> {
        match self.follow(record, host).await {
            Some(done) => wire::outcome(&done),
            None => {
                if host.is_cancelled() {
                    let _ = self.cancel(record).await;
                }
                Err(ErrorData::internal_error(
                    format!("task {} did not finish", record.id),
                    None,
                ))
            }
        }
    }
}
