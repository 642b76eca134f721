//! One replica of a team gateway (DESIGN §12), as the shared ledger knows
//! it: a random id, a sign of life every [`BEAT`], and each plain call it
//! runs recorded as `working` while it runs, so a replica killed mid-call
//! leaves an entry the others mark failed ([`SILENT`] after its last sign
//! of life), never a call that is simply gone.
//!
//! On one machine (the SQLite ledger) none of this runs: a call is
//! recorded only when it fails, as before, and costs no write when it
//! succeeds.

use super::{Call, Tasks, call_outcome};
use crate::clock::now_ms;
use rmcp::ErrorData;
use rmcp::model::ServerResult;
use sieve_core::tasks::{EntryKind, TaskStatus};
use sieve_ledger::{Ledger, Location};
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// How often a replica says it is alive.
pub(crate) const BEAT: Duration = Duration::from_secs(2);

/// A replica not heard from for this long has stopped: its calls still
/// working are marked failed.
pub(crate) const SILENT: Duration = Duration::from_secs(10);

/// A plain call being recorded as working: its entry's id, and the write.
pub(crate) struct InFlight {
    id: String,
    written: JoinHandle<bool>,
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
    /// Records `call` as working on this replica, when the ledger is
    /// shared; the write runs beside the call, not before it.
    pub(crate) fn call_started(&self, call: &Call<'_>) -> Option<InFlight> {
        let (ledger, replica) = (self.ledger.clone()?, self.replica.clone()?);
        let record = call.entry(EntryKind::Call, TaskStatus::Working, None, now_ms());
        let id = record.id.clone();
        let written =
            tokio::task::spawn_blocking(move || match ledger.insert_running(&record, &replica) {
                Ok(()) => true,
                Err(error) => {
                    tracing::warn!("{error}");
                    false
                }
            });
        Some(InFlight { id, written })
    }

    /// Records how `call` ended: its working entry deleted on success, or
    /// marked failed or cancelled; without one (one machine), a failure
    /// recorded as before.
    pub(crate) async fn call_ended(
        &self,
        flight: Option<InFlight>,
        call: &Call<'_>,
        outcome: &Result<ServerResult, ErrorData>,
        cancelled: bool,
    ) {
        let (Some(flight), Some(ledger)) = (flight, self.ledger.clone()) else {
            self.record_failed(call, outcome, cancelled);
            return;
        };
        let ended = call_outcome(outcome.as_ref(), cancelled);
        let finish = async move {
            if !flight.written.await.unwrap_or(false) {
                return;
            }
            let id = flight.id;
            let _ = tokio::task::spawn_blocking(move || {
                let done = match ended {
                    None => ledger.delete(&id).map(drop),
                    Some((status, message, result)) => ledger
                        .update(&id, status, Some(&message), Some(&result), now_ms())
                        .map(drop),
                };
                if let Err(error) = done {
                    tracing::warn!("{error}");
                }
            })
            .await;
        };
        // A success's entry goes in the background: the host has its
        // answer. A failure is in the ledger before the host hears of it.
        if outcome.as_ref().is_ok_and(|r| !is_tool_error(r)) && !cancelled {
            tokio::spawn(finish);
        } else {
            finish.await;
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

fn is_tool_error(result: &ServerResult) -> bool {
    matches!(result, ServerResult::CallToolResult(r) if r.is_error == Some(true))
}
