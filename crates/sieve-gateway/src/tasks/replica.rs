//! One replica of a team gateway (DESIGN §12), as the shared ledger knows
//! it: a random id, a sign of life every [`BEAT`], and each plain call it
//! runs recorded as `working` while it runs, so a replica killed mid-call
//! leaves an entry the others mark failed ([`SILENT`] after its last sign
//! of life), never a call that is simply gone.
//!
//! On one machine (the SQLite ledger) none of this runs: a call is
//! recorded only when it fails, as before, and costs no write when it
//! succeeds.

use super::{Call, Running, Tasks, call_outcome};
use crate::clock::now_ms;
use rmcp::ErrorData;
use rmcp::model::ServerResult;
use serde_json::Value;
use sieve_core::tasks::{EntryKind, TaskRecord, TaskStatus};
use sieve_ledger::{Ledger, Location};
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// How often a replica says it is alive.
pub(crate) const BEAT: Duration = Duration::from_secs(2);

/// A replica not heard from for this long has stopped: its calls still
/// working are marked failed.
pub(crate) const SILENT: Duration = Duration::from_secs(10);

/// A plain call recorded as working: its entry's id.
pub(crate) struct InFlight {
    id: String,
}

/// The most changes one batch of [`Flights`] writes.
const BATCH: usize = 256;

/// A change of the calls in flight.
pub(crate) enum Op {
    /// A call started: its working entry.
    Start(Box<TaskRecord>),
    /// A call ended: its entry deleted (a success), or marked as it failed;
    /// `done` is told once that is written.
    End {
        id: String,
        failed: Option<(TaskStatus, String, Value)>,
        done: Option<oneshot::Sender<()>>,
    },
}

/// The writer of this replica's calls in flight: one thread that writes
/// whatever changes are waiting in one go (the starts in one insert, the
/// successes in one delete), so under load many calls share a round trip
/// and a commit instead of costing two each. A call whose start and
/// success wait in the same batch ended before its entry was written:
/// neither is written. A lone call is written at once, as before.
pub(crate) struct Flights {
    queue: mpsc::Sender<Op>,
}

impl Flights {
    /// Starts the writer of `replica`'s calls on `ledger`.
    pub(crate) fn start(ledger: Ledger, replica: String) -> Option<Flights> {
        let spawned = super::batch::writer("calls-in-flight", BATCH, move |batch: Vec<Op>| {
            write(&ledger, &replica, batch);
        });
        match spawned {
            Ok(queue) => Some(Flights { queue }),
            Err(error) => {
                tracing::warn!("calls in flight will not be recorded: no thread for it ({error})");
                None
            }
        }
    }

    fn send(&self, op: Op) {
        // The writer lives as long as `Tasks` does.
        let _ = self.queue.send(op);
    }
}

/// Writes one batch: the starts, then the successes' deletes, then the
/// failures, so an entry is always there before it is changed.
fn write(ledger: &Ledger, replica: &str, batch: Vec<Op>) {
    let mut starts = Vec::new();
    let mut ended_before_written = HashSet::new();
    let mut succeeded = Vec::new();
    let mut failed = Vec::new();
    let started: HashSet<String> = batch
        .iter()
        .filter_map(|op| match op {
            Op::Start(record) => Some(record.id.clone()),
            Op::End { .. } => None,
        })
        .collect();
    for op in batch {
        match op {
            Op::Start(record) => starts.push(*record),
            Op::End {
                id, failed: None, ..
            } if started.contains(&id) => {
                ended_before_written.insert(id);
            }
            Op::End {
                id, failed: None, ..
            } => succeeded.push(id),
            Op::End {
                id,
                failed: Some(how),
                done,
            } => failed.push((id, how, done)),
        }
    }
    starts.retain(|record| !ended_before_written.contains(&record.id));
    let warn = |error: sieve_ledger::LedgerError| tracing::warn!("{error}");
    if !starts.is_empty() {
        ledger
            .insert_running_all(&starts, replica)
            .unwrap_or_else(warn);
    }
    if !succeeded.is_empty() {
        ledger.delete_all(&succeeded).map(drop).unwrap_or_else(warn);
    }
    for (id, (status, message, result), done) in failed {
        ledger
            .update(&id, status, Some(&message), Some(&result), now_ms())
            .map(drop)
            .unwrap_or_else(warn);
        if let Some(done) = done {
            let _ = done.send(());
        }
    }
}

/// This process's id among the replicas, when its ledger is shared.
pub(crate) fn replica_id(ledger: Option<&Ledger>) -> Option<String> {
    match ledger?.location() {
        Location::Database(_) => Some(Ledger::new_id().replacen("st-", "r-", 1)),
        _ => None,
    }
}

/// Says every [`BEAT`] that `replica` is alive, and marks the calls of
/// replicas silent for [`SILENT`] cut off, until `stopping`.
pub(crate) fn keep_alive(ledger: Ledger, replica: String, stopping: CancellationToken) {
    tokio::spawn(async move {
        let mut beats = tokio::time::interval(BEAT);
        beats.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut failing = false;
        loop {
            tokio::select! {
                () = stopping.cancelled() => return,
                _ = beats.tick() => {}
            }
            let (ledger, replica) = (ledger.clone(), replica.clone());
            let swept = tokio::task::spawn_blocking(move || {
                let now = now_ms();
                ledger.beat(&replica, now)?;
                let silent = i64::try_from(SILENT.as_millis()).unwrap_or(i64::MAX);
                ledger.sweep(now - silent, now)
            })
            .await;
            match swept {
                Ok(Ok(marked)) => {
                    if marked > 0 {
                        tracing::warn!(
                            "{marked} calls of a gateway replica that stopped answering were marked failed (cut off); they can be retried"
                        );
                    }
                    failing = false;
                }
                Ok(Err(error)) if !failing => {
                    failing = true;
                    tracing::warn!("{error}; this replica's sign of life is not recorded");
                }
                _ => {}
            }
        }
    });
}

impl Tasks {
    /// Starts timing `call`, and records it as working on this replica,
    /// when the ledger is shared; the write goes beside the call, with
    /// those of the other calls made meanwhile ([`Flights`]).
    pub(crate) fn call_started(&self, call: &Call<'_>) -> Running {
        let flight = self.flights.as_ref().map(|flights| {
            let record = call.entry(EntryKind::Call, TaskStatus::Working, None, now_ms());
            let id = record.id.clone();
            flights.send(Op::Start(Box::new(record)));
            InFlight { id }
        });
        Running::new(flight)
    }

    /// Records how `call` ended: what a result measured (`measure`; `sent`
    /// gives the result's text as the server sent it, if it was kept); its
    /// working entry deleted on success, or marked failed or cancelled;
    /// without one (one machine), a failure recorded as before.
    pub(crate) async fn call_ended(
        &self,
        running: Running,
        call: &Call<'_>,
        outcome: &Result<ServerResult, ErrorData>,
        cancelled: bool,
        sent: impl FnOnce() -> Option<String>,
    ) {
        if let Ok(ServerResult::CallToolResult(result)) = outcome
            && self.measures(call)
        {
            // A result passed on as the server's text is typed with nothing
            // in it: its size is read from that text, off the call's path.
            // A typed result is counted as it is.
            let empty = result.content.is_empty() && result.structured_content.is_none();
            let size = match empty.then(sent).flatten() {
                Some(text) => super::measure::Size::Text(text),
                None => super::measure::Size::Counted(super::measure::result_bytes(result)),
            };
            self.measure(call, size, &running);
        }
        let (Some(flight), Some(flights)) = (running.flight, &self.flights) else {
            self.record_failed(call, outcome, cancelled);
            return;
        };
        match call_outcome(outcome.as_ref(), cancelled) {
            // A success's entry goes in the background: the host has its
            // answer.
            None => flights.send(Op::End {
                id: flight.id,
                failed: None,
                done: None,
            }),
            // A failure is in the ledger before the host hears of it.
            Some(failed) => {
                let (done, written) = oneshot::channel();
                flights.send(Op::End {
                    id: flight.id,
                    failed: Some(failed),
                    done: Some(done),
                });
                let _ = written.await;
            }
        }
    }

    /// Records that `call` ended with a plain result, as
    /// [`Tasks::call_ended`] does, without waiting: what the result
    /// measured (`sent` gives its text as the server sent it), and its
    /// working entry deleted in the background.
    pub(crate) fn call_succeeded(
        &self,
        running: Running,
        call: &Call<'_>,
        sent: impl FnOnce() -> String,
    ) {
        if self.measures(call) {
            self.measure(call, super::measure::Size::Text(sent()), &running);
        }
        if let (Some(flight), Some(flights)) = (running.flight, &self.flights) {
            flights.send(Op::End {
                id: flight.id,
                failed: None,
                done: None,
            });
        }
    }

    /// This replica stops: its calls still working are marked failed now,
    /// rather than when the others notice its silence.
    pub(crate) async fn leave(self: &Arc<Self>) {
        let (Some(ledger), Some(replica)) = (self.ledger.clone(), self.replica.clone()) else {
            return;
        };
        let left = tokio::task::spawn_blocking(move || ledger.leave(&replica, now_ms())).await;
        if let Ok(Err(error)) = left {
            tracing::warn!("{error}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str) -> TaskRecord {
        TaskRecord {
            id: id.into(),
            kind: EntryKind::Call,
            server: "demo".into(),
            upstream_id: None,
            method: "tools/call".into(),
            tool: Some("demo__echo".into()),
            params: json!({"name": "echo"}),
            status: TaskStatus::Working,
            status_message: None,
            created_at: 1,
            last_updated_at: 1,
            ttl_ms: None,
            poll_interval_ms: None,
            profile: Some("default".into()),
            retry_of: None,
            owner: None,
            result: None,
        }
    }

    #[test]
    fn a_batch_writes_starts_then_ends_and_skips_calls_that_ended_unwritten() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::open(&dir.path().join("tasks.db")).unwrap();
        write(&ledger, "r-1", vec![Op::Start(Box::new(call("earlier")))]);
        let (done, mut told) = oneshot::channel();
        let failure = (TaskStatus::Failed, "no such issue".to_string(), json!({}));
        write(
            &ledger,
            "r-1",
            vec![
                Op::Start(Box::new(call("quick"))),
                Op::Start(Box::new(call("failing"))),
                Op::Start(Box::new(call("long"))),
                Op::End {
                    id: "quick".into(),
                    failed: None,
                    done: None,
                },
                Op::End {
                    id: "failing".into(),
                    failed: Some(failure),
                    done: Some(done),
                },
                Op::End {
                    id: "earlier".into(),
                    failed: None,
                    done: None,
                },
            ],
        );
        assert_eq!(ledger.get("quick").unwrap(), None, "ended before written");
        assert_eq!(ledger.get("earlier").unwrap(), None, "deleted on success");
        let failing = ledger
            .get("failing")
            .unwrap()
            .expect("written, then marked");
        assert_eq!(failing.status, TaskStatus::Failed);
        assert_eq!(failing.status_message.as_deref(), Some("no such issue"));
        assert!(told.try_recv().is_ok(), "the failing call was told");
        let long = ledger.get("long").unwrap().expect("still running");
        assert_eq!(long.status, TaskStatus::Working);
    }
}
