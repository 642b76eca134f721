//! Tasks and failed calls: everything the proxy keeps in the task ledger.
//! This module is the only one that writes task state there.
//!
//! * Here: [`Tasks`], the ledger of this process with the upstream pool
//!   and the hosts its tasks live between; recording the calls that failed
//!   or were cut off (for retry) and the tasks upstreams create; which
//!   entries a profile shows; `tasks/list`, retry and cancel; the
//!   audit's records (`settings.audit`), written beside the tasks; and
//!   what calls measured (`measure`), for the concern `cost`.
//! * [`wire`]: an entry in the shapes of both protocol generations.
//! * [`follow`]: keeping a live task's status current (polling at the
//!   server's interval, resumed after a restart), telling the host that
//!   holds it, and answering a host's call that became a task.
//! * [`legacy`]: 2025-11-25 tasks: task-augmented calls to servers of that
//!   revision, and that revision's `tasks/*` requests from hosts.
//!
//! Upstreams' status notifications come in through the pool's callback
//! ([`on_upstream_status`]): the pool knows nothing of the ledger.

mod audit;
mod batch;
mod follow;
mod legacy;
mod measure;
mod replica;
pub(crate) mod wire;

pub(crate) use legacy::{Started, task_required};
pub(crate) use measure::MeasuredSink;

use crate::clock::now_ms;
use crate::error::CallError;
use crate::hosts::Hosts;
use crate::upstream::{Pool, TaskStatusSink};
use rmcp::ErrorData;
use rmcp::model::{ServerResult, Task};
use serde_json::{Value, json};
use sieve_core::tasks::{EntryKind, TaskQuery, TaskRecord, TaskStatus, parse_timestamp};
use sieve_core::{Catalog, Kind, Narrowing, Primitive, Rules};
use sieve_ledger::Ledger;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use tokio_util::sync::CancellationToken;
use wire::Created;

/// The task ledger of this process, and the servers and hosts its tasks
/// run between.
pub(crate) struct Tasks {
    /// `None` when the ledger could not be opened: the proxy works on,
    /// without recording.
    ledger: Option<Ledger>,
    /// Where the ledger is, to say so when it could not be opened.
    db: PathBuf,
    pool: Pool,
    hosts: Arc<Hosts>,
    /// Ends the background following of tasks when the engine stops.
    stopping: CancellationToken,
    /// An audit record could not be written, and that was said: a
    /// database that stays away is said once, not at every call.
    audit_failed: Arc<AtomicBool>,
    /// Writes the audit's records in groups (`audit`).
    audit_writer: Option<audit::AuditWriter>,
    /// This process's id among a team gateway's replicas (`replica`),
    /// when the ledger is shared.
    replica: Option<String>,
    /// The writer of this replica's calls in flight, when it is one.
    flights: Option<replica::Flights>,
    /// The writer of what calls measured (`measure`).
    measurer: Option<measure::Measurer>,
}

/// Opens the ledger at `db` and drops entries older than `retention_days`.
/// The proxy works without a ledger (tasks are then not recorded), so a
/// failure is logged.
pub(crate) fn open_ledger(
    db: &Path,
    team: Option<&sieve_postgres::Database>,
    retention_days: u32,
) -> Option<Ledger> {
    // A team's ledger is in its database, beside its documents.
    match Ledger::of_state(db, team) {
        Ok(ledger) => {
            let keep = i64::from(retention_days) * 86_400_000;
            if let Err(error) = ledger.purge(now_ms() - keep) {
                tracing::warn!("{error}");
            }
            Some(ledger)
        }
        Err(error) => {
            tracing::error!("{error}; tasks and failed calls will not be recorded");
            None
        }
    }
}

/// The pool's callback for task states upstreams announce (both
/// generations' notifications). Only progress is taken from them; a
/// task's end is recorded by polling, which also fetches its result.
pub(crate) fn on_upstream_status(ledger: Option<Ledger>) -> TaskStatusSink {
    Arc::new(move |server: &str, task: &Value| {
        let (Some(ledger), Some(id)) = (&ledger, task.get("taskId").and_then(Value::as_str)) else {
            return;
        };
        let status = task
            .get("status")
            .and_then(Value::as_str)
            .and_then(TaskStatus::parse);
        let Some(status) = status.filter(|s| !s.is_terminal()) else {
            return;
        };
        let message = task.get("statusMessage").and_then(Value::as_str);
        if let Ok(Some(record)) = ledger.find_upstream(server, id) {
            let _ = ledger.update(&record.id, status, message, None, now_ms());
        }
    })
}

/// A plain call on its way upstream: when it started, and its entry among
/// a team gateway's calls in flight.
pub(crate) struct Running {
    pub(super) flight: Option<replica::InFlight>,
    pub(super) started: Instant,
    /// When it came in, in ms since the Unix epoch.
    pub(super) at: i64,
}

impl Running {
    pub(super) fn new(flight: Option<replica::InFlight>) -> Running {
        Running {
            flight,
            started: Instant::now(),
            at: now_ms(),
        }
    }
}

/// A host's `tools/call` as the ledger records it.
pub(crate) struct Call<'a> {
    pub server: &'a str,
    /// The tool's exposed name: an entry is as visible as its tool.
    pub tool: &'a str,
    /// The params sent upstream, to send them again on retry.
    pub params: crate::sent::Params<'a>,
    /// The profile the call was made under.
    pub profile: &'a str,
    /// The signed-in person who made it.
    pub owner: Option<&'a str>,
    /// The server runs inside this process or as its child (stdio, the
    /// built-in demo), so a task it runs ends when this replica does.
    pub local: bool,
}

impl Call<'_> {
    /// Whether `server` of `config` runs as this process's child or inside
    /// it: any server but an HTTP one.
    pub(crate) fn is_local(config: &sieve_core::Config, server: &str) -> bool {
        !matches!(
            config.mcp_servers.get(server).map(|s| &s.transport),
            Some(sieve_core::config::Transport::Http { .. })
        )
    }
}

impl Call<'_> {
    /// A new entry for this call, created `now`.
    fn entry(
        &self,
        kind: EntryKind,
        status: TaskStatus,
        message: Option<String>,
        now: i64,
    ) -> TaskRecord {
        TaskRecord {
            id: Ledger::new_id(),
            kind,
            server: self.server.to_string(),
            upstream_id: None,
            method: "tools/call".into(),
            tool: Some(self.tool.to_string()),
            params: self.params.to_json(),
            status,
            status_message: message,
            created_at: now,
            last_updated_at: now,
            ttl_ms: None,
            poll_interval_ms: None,
            profile: Some(self.profile.to_string()),
            retry_of: None,
            owner: self.owner.map(str::to_string),
            result: None,
        }
    }
}

/// What a caller sees: a task is as visible as the tool that started it,
/// and a signed-in person's own entries only.
pub(crate) struct Viewer<'a> {
    pub catalog: &'a Catalog,
    pub rules: &'a Rules,
    /// What the request narrows, beyond the profile.
    pub narrowing: Option<&'a Narrowing>,
    /// The signed-in person asking, if one is; `None` sees every entry.
    pub owner: Option<&'a str>,
}

impl Viewer<'_> {
    pub(crate) fn sees(&self, record: &TaskRecord) -> bool {
        self.owns(record) && self.rules.is_visible(&self.task(record), self.narrowing)
    }

    fn owns(&self, record: &TaskRecord) -> bool {
        self.owner
            .is_none_or(|owner| record.owner.as_deref() == Some(owner))
    }

    /// Why a call of `record`'s tool is refused (hidden under a profile
    /// that enforces, or in quarantine); empty when it is not.
    pub(crate) fn refusal(&self, record: &TaskRecord) -> Vec<String> {
        let task = self.task(record);
        self.rules
            .refusal(&task, self.narrowing)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn task(&self, record: &TaskRecord) -> Primitive {
        let name = record.tool.as_deref().unwrap_or_default();
        let tool = self
            .catalog
            .find(Kind::Tool, name)
            .cloned()
            .unwrap_or_else(|| Primitive::unlisted_tool(&record.server, name));
        Primitive::task(
            &tool,
            record.upstream_id.as_deref().unwrap_or_default(),
            &record.id,
        )
    }
}

/// How a finished call ends up in the ledger: `None` for a success, which
/// needs no retry.
fn call_outcome(
    outcome: Result<&ServerResult, &ErrorData>,
    cancelled: bool,
) -> Option<(TaskStatus, String, Value)> {
    match outcome {
        Ok(ServerResult::CallToolResult(result)) if result.is_error == Some(true) => {
            let value = serde_json::to_value(result).unwrap_or_default();
            let message = first_text(&value).unwrap_or_else(|| "the tool reported an error".into());
            Some((TaskStatus::Failed, message, value))
        }
        Ok(_) => None,
        Err(error) if cancelled => Some((
            TaskStatus::Cancelled,
            "cancelled by the host".into(),
            serde_json::to_value(error).unwrap_or_default(),
        )),
        Err(error) => Some((
            TaskStatus::Failed,
            error.message.to_string(),
            serde_json::to_value(error).unwrap_or_default(),
        )),
    }
}

/// The status message of a task that ended (`status` is terminal) without
/// one of its own, from what it ended with (`payload`: its result, or the
/// error it failed with).
pub(crate) fn ended_message(status: TaskStatus, payload: Option<&Value>) -> String {
    match status {
        TaskStatus::Failed => payload
            .and_then(|p| {
                // A JSON-RPC error, or a tool result that says it failed.
                p.get("message")
                    .and_then(Value::as_str)
                    .map(|m| m.chars().take(500).collect())
                    .or_else(|| first_text(p))
            })
            .map_or_else(|| "failed".to_string(), |why| format!("failed: {why}")),
        TaskStatus::Cancelled => "cancelled".into(),
        _ => "completed".into(),
    }
}

/// The first text of a tool result, to say why it failed.
fn first_text(result: &Value) -> Option<String> {
    result["content"]
        .as_array()?
        .iter()
        .find_map(|c| c["text"].as_str())
        .map(|t| t.chars().take(500).collect())
}

/// The params of a host's request about task `record` for the upstream
/// that runs it: the upstream's task id in place of ours.
pub(crate) fn for_upstream(record: &TaskRecord, mut params: Value) -> Result<Value, CallError> {
    params["taskId"] = Value::String(upstream_id(record)?.to_string());
    Ok(params)
}

/// The upstream's id of a task; a plain call has none.
fn upstream_id(record: &TaskRecord) -> Result<&str, CallError> {
    record
        .upstream_id
        .as_deref()
        .ok_or_else(|| CallError::NotATask {
            id: record.id.clone(),
        })
}

impl Tasks {
    pub(crate) fn new(
        ledger: Option<Ledger>,
        db: PathBuf,
        pool: Pool,
        hosts: Arc<Hosts>,
        stopping: CancellationToken,
        measured: MeasuredSink,
    ) -> Arc<Tasks> {
        let replica = replica::replica_id(ledger.as_ref());
        let mut flights = None;
        if let (Some(ledger), Some(id)) = (&ledger, &replica) {
            replica::keep_alive(ledger.clone(), id.clone(), stopping.clone());
            flights = replica::Flights::start(ledger.clone(), id.clone());
        }
        let audit_failed = Arc::new(AtomicBool::new(false));
        let audit_writer = ledger
            .clone()
            .and_then(|ledger| audit::AuditWriter::start(ledger, audit_failed.clone()));
        let measurer = ledger
            .clone()
            .and_then(|ledger| measure::Measurer::start(ledger, measured));
        Arc::new(Tasks {
            ledger,
            db,
            pool,
            hosts,
            stopping,
            audit_failed,
            audit_writer,
            replica,
            flights,
            measurer,
        })
    }

    /// The task ledger, or why there is none.
    pub(crate) fn ledger(&self) -> Result<&Ledger, CallError> {
        self.ledger.as_ref().ok_or_else(|| CallError::NoLedger {
            path: self.db.clone(),
        })
    }

    /// Records a call that failed or was cut off (`cancelled` by the
    /// host), so it can be retried; a success is not recorded.
    pub(crate) fn record_failed(
        &self,
        call: &Call<'_>,
        outcome: &Result<ServerResult, ErrorData>,
        cancelled: bool,
    ) {
        let (Some(ledger), Some((status, message, result))) =
            (&self.ledger, call_outcome(outcome.as_ref(), cancelled))
        else {
            return;
        };
        let record = TaskRecord {
            result: Some(result),
            ..call.entry(EntryKind::Call, status, Some(message), now_ms())
        };
        if let Err(error) = ledger.insert(&record) {
            tracing::warn!("{error}");
        }
    }

    /// Records the task a 2026-07-28 upstream created for `call`.
    pub(crate) fn record_task(
        &self,
        call: &Call<'_>,
        task: &Task,
    ) -> Result<TaskRecord, CallError> {
        self.record(call, Created::from_modern(task))
    }

    /// Records the task an upstream created for `call`, under a Sieve task
    /// id (so ids never collide across servers).
    fn record(&self, call: &Call<'_>, created: Created) -> Result<TaskRecord, CallError> {
        let now = now_ms();
        let record = TaskRecord {
            upstream_id: Some(created.upstream_id),
            created_at: created
                .created_at
                .and_then(|t| parse_timestamp(&t).ok())
                .unwrap_or(now),
            ttl_ms: created.ttl_ms,
            poll_interval_ms: created.poll_interval_ms,
            ..call.entry(EntryKind::Task, created.status, created.message, now)
        };
        // A task of a child server dies with this replica: it is marked
        // as this replica's, so the others mark it cut off if it does.
        match (&self.replica, call.local) {
            (Some(replica), true) => self.ledger()?.insert_running(&record, replica)?,
            _ => self.ledger()?.insert(&record)?,
        }
        Ok(record)
    }

    /// Entry `id`, if `viewer` sees it.
    pub(crate) fn find(&self, id: &str, viewer: &Viewer<'_>) -> Result<TaskRecord, CallError> {
        match self.ledger()?.get(id)? {
            Some(record) if viewer.sees(&record) => Ok(record),
            // Hidden and unknown look the same: a hidden task is not there.
            _ => Err(CallError::NoTask { id: id.to_string() }),
        }
    }

    /// `tasks/list`: one page of the entries `viewer` sees.
    pub(crate) fn list(&self, query: &TaskQuery, viewer: &Viewer<'_>) -> Result<Value, CallError> {
        // A person's listing walks their own slice of the ledger.
        let query = TaskQuery {
            owner: viewer.owner.map(str::to_string),
            ..query.clone()
        };
        let page = self
            .ledger()?
            .list(&query, &|record: &TaskRecord| viewer.sees(record))?;
        let tasks: Vec<Value> = page.tasks.iter().map(TaskRecord::to_wire).collect();
        let mut result = json!({ "tasks": tasks });
        if let Some(cursor) = page.next_cursor {
            result["nextCursor"] = json!(cursor);
        }
        Ok(result)
    }

    /// Runs entry `id` again: the recorded request to the same server, as
    /// a new entry of `profile` that points to the old one. A completed
    /// entry (or one still running) is only run again with `force`; a
    /// profile that enforces must show the tool, and it must not be in
    /// quarantine.
    pub(crate) async fn retry(
        &self,
        id: &str,
        force: bool,
        profile: &str,
        viewer: &Viewer<'_>,
    ) -> Result<(TaskRecord, Result<Value, CallError>), CallError> {
        let ledger = self.ledger()?;
        // Another person's entry is not there, as a hidden one is not.
        let old = ledger
            .get(id)?
            .filter(|old| viewer.owns(old))
            .ok_or_else(|| CallError::NoTask { id: id.to_string() })?;
        if !force && old.status == TaskStatus::Completed {
            return Err(CallError::Completed { id: id.to_string() });
        }
        if !force && !old.status.is_terminal() {
            return Err(CallError::StillRunning {
                id: id.to_string(),
                status: old.status,
            });
        }
        let refusal = viewer.refusal(&old);
        if !refusal.is_empty() {
            return Err(CallError::RetryRefused {
                id: id.to_string(),
                profile: profile.to_string(),
                hidden_by: refusal,
            });
        }
        let now = now_ms();
        let record = TaskRecord {
            id: Ledger::new_id(),
            kind: EntryKind::Call,
            upstream_id: None,
            status: TaskStatus::Working,
            status_message: Some(format!("retry of {id}")),
            created_at: now,
            last_updated_at: now,
            retry_of: Some(id.to_string()),
            profile: Some(profile.to_string()),
            // A retry stays the person's: theirs, or the static token's
            // retry of it.
            owner: viewer.owner.map(str::to_string).or(old.owner.clone()),
            result: None,
            ..old.clone()
        };
        self.run_recorded(record, &old.server, &old.method, old.params.clone())
            .await
    }

    /// Records `record` as working, makes its call, and records how it
    /// ended, success included: the entry and the call's answer.
    async fn run_recorded(
        &self,
        mut record: TaskRecord,
        server: &str,
        method: &str,
        params: Value,
    ) -> Result<(TaskRecord, Result<Value, CallError>), CallError> {
        let ledger = self.ledger()?;
        match &self.replica {
            Some(replica) => ledger.insert_running(&record, replica)?,
            None => ledger.insert(&record)?,
        }
        let outcome = self.pool.call(server, method, params).await;
        // The ledger keeps a failure as the JSON-RPC error a host is given.
        let answered = outcome.as_ref().map_err(|e| ErrorData::from(e.clone()));
        let (status, message, result) = call_outcome(answered.as_ref().copied(), false)
            .unwrap_or_else(|| {
                let value = outcome
                    .as_ref()
                    .map(|r| serde_json::to_value(r).unwrap_or_default())
                    .unwrap_or_default();
                (TaskStatus::Completed, "completed".to_string(), value)
            });
        let _ = ledger.update(&record.id, status, Some(&message), Some(&result), now_ms());
        record.status = status;
        record.status_message = Some(message);
        record.result = Some(result.clone());
        record.last_updated_at = now_ms();
        Ok((record, outcome.map(|_| result)))
    }

    /// Makes `call` (the app's "Try" on a tool's row) and records it in the
    /// ledger whatever its outcome, like a retry: working first, then how
    /// it ended. The caller has checked that the profile lets it through.
    pub(crate) async fn try_call(
        &self,
        call: &Call<'_>,
    ) -> Result<(TaskRecord, Result<Value, CallError>), CallError> {
        let record = call.entry(
            EntryKind::Call,
            TaskStatus::Working,
            Some("tried from the app".into()),
            now_ms(),
        );
        self.run_recorded(record, call.server, "tools/call", call.params.to_json())
            .await
    }

    /// Cancels a task upstream and records it.
    pub(crate) async fn cancel(&self, record: &TaskRecord) -> Result<(), CallError> {
        if record.status.is_terminal() {
            return Err(CallError::AlreadyEnded {
                id: record.id.clone(),
                status: record.status,
            });
        }
        let upstream_id = upstream_id(record)?;
        self.pool
            .call(
                &record.server,
                "tasks/cancel",
                json!({ "taskId": upstream_id }),
            )
            .await?;
        self.ledger()?.update(
            &record.id,
            TaskStatus::Cancelled,
            Some("cancelled"),
            None,
            now_ms(),
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::ended_message;
    use sieve_core::tasks::TaskStatus;

    #[test]
    fn a_task_that_ends_without_a_message_says_how_it_ended() {
        let error =
            serde_json::json!({"code": -32603, "message": "job failed, as it was asked to"});
        assert_eq!(
            ended_message(TaskStatus::Failed, Some(&error)),
            "failed: job failed, as it was asked to"
        );
        let result = serde_json::json!({"isError": true, "content": [{"type": "text", "text": "no such issue"}]});
        assert_eq!(
            ended_message(TaskStatus::Failed, Some(&result)),
            "failed: no such issue"
        );
        assert_eq!(ended_message(TaskStatus::Failed, None), "failed");
        assert_eq!(ended_message(TaskStatus::Cancelled, None), "cancelled");
        assert_eq!(
            ended_message(TaskStatus::Completed, Some(&result)),
            "completed",
            "a completed task's message is not its result's text"
        );
    }
}
