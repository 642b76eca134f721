//! The audit's writes (DESIGN §12), committed in groups: each audited
//! call hands its record to one writer thread and waits until it is
//! written, so a record is in the ledger before the host has its answer;
//! the writer writes whatever records are waiting in one statement. Under
//! load many calls share one round trip and one commit (and, on a team's
//! database, one notice to the replicas) instead of one each; a lone call
//! waits no longer than it did.
//!
//! A call never fails for its audit: a record that cannot be written is
//! logged, once until one is written again.

use super::Tasks;
use sieve_ledger::{AuditRecord, Ledger};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use tokio::sync::oneshot;

/// The most records one statement writes.
const BATCH: usize = 64;

/// A record waiting to be written, and who waits for it.
type Pending = (AuditRecord, oneshot::Sender<()>);

/// The writer thread's queue; the thread ends when this is dropped.
pub(crate) struct AuditWriter {
    queue: mpsc::Sender<Pending>,
}

impl AuditWriter {
    /// Starts the writer of `ledger`; `None` if no thread could be made
    /// (records are then written by each call itself).
    pub(crate) fn start(ledger: Ledger, failed: Arc<AtomicBool>) -> Option<AuditWriter> {
        let spawned = super::batch::writer("audit-writer", BATCH, move |batch: Vec<Pending>| {
            let (records, written): (Vec<AuditRecord>, Vec<oneshot::Sender<()>>) =
                batch.into_iter().unzip();
            report(
                ledger.audit_all(&records).map_err(|e| e.to_string()),
                &failed,
            );
            for done in written {
                let _ = done.send(());
            }
        });
        match spawned {
            Ok(queue) => Some(AuditWriter { queue }),
            Err(error) => {
                tracing::warn!(
                    "the audit's writer could not start ({error}); each call writes its own record"
                );
                None
            }
        }
    }
}

/// Says a failed write once, until one succeeds again.
fn report(written: Result<(), String>, failed: &AtomicBool) {
    match written {
        Ok(()) => failed.store(false, Ordering::Relaxed),
        Err(error) => {
            if !failed.swap(true, Ordering::Relaxed) {
                tracing::error!("{error}; calls are not being audited");
            }
        }
    }
}

impl Tasks {
    /// Writes an audit record, and returns once it is written (or could
    /// not be, which is logged).
    pub(crate) async fn audit(&self, record: AuditRecord) {
        let Some(ledger) = self.ledger.clone() else {
            let error = format!("the task ledger {} could not be opened", self.db.display());
            report(Err(error), &self.audit_failed);
            return;
        };
        if let Some(writer) = &self.audit_writer {
            let (done, written) = oneshot::channel();
            // The writer lives as long as `Tasks` does.
            if writer.queue.send((record, done)).is_ok() {
                let _ = written.await;
            }
            return;
        }
        let failed = self.audit_failed.clone();
        let _ = tokio::task::spawn_blocking(move || {
            report(ledger.audit(&record).map_err(|e| e.to_string()), &failed);
        })
        .await;
    }
}
