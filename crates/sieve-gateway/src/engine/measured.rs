//! What calls through Sieve measured, put in force for the concern `cost`
//! of the catalog (sieve-core's `cost`). Read from the ledger when the
//! engine starts, then kept current two ways:
//!
//! * after each write, the writer of this process's measurements
//!   (`tasks::measure`) sends what the tools it wrote measure now, from
//!   every call the ledger keeps of them;
//! * when the ledger is written by another process (a host's own
//!   `mcp-sieve serve`, another replica of a team gateway), every tool's
//!   measurements are read again [`RELOAD_AFTER`] later, once for all the
//!   writes meanwhile.
//!
//! A change that moves a tool's `cost` (a large result makes it
//! `moderate`, the third small call `minimal`) rebuilds the catalog at
//! once, so hosts that filter on `cost` are told; a change of the figures
//! alone (the numbers in the reason) is built in with the next rebuild,
//! at the latest [`REASONS_AFTER`] later, so a busy proxy does not rebuild
//! its catalog at every call.

use super::Engine;
use crate::sync::ReadWrite;
use sieve_core::action::{Naming, naming};
use sieve_core::cost::{Measured, Measurements, judge_in};
use sieve_core::{Catalog, Kind, Primitive};
use sieve_ledger::Ledger;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::mpsc::UnboundedReceiver;

/// How long after another process wrote the ledger every tool's
/// measurements are read again.
const RELOAD_AFTER: Duration = Duration::from_secs(10);

/// How long a change of measured figures that moves no tool's `cost` may
/// wait to be built into the catalog.
const REASONS_AFTER: Duration = Duration::from_secs(30);

/// Work put off for a while, each at most once at a time.
#[derive(Default)]
pub(super) struct Later {
    reload: AtomicBool,
    rebuild: AtomicBool,
}

/// What the calls the ledger keeps measured, when the engine starts; none
/// without a ledger, or when it cannot be read (which is logged).
pub(super) fn load(ledger: Option<&Ledger>) -> Arc<Measurements> {
    let measured = ledger
        .map(Ledger::measured)
        .transpose()
        .unwrap_or_else(|error| {
            tracing::warn!(
                "{error}; cost is judged from tool definitions alone until calls are measured"
            );
            None
        });
    Arc::new(measured.unwrap_or_default())
}

/// Puts in force what the writer of this process's measurements sends,
/// for as long as the engine lives.
pub(super) fn follow(engine: &Arc<Engine>, mut measurements: UnboundedReceiver<Measurements>) {
    let weak = Arc::downgrade(engine);
    tokio::spawn(async move {
        while let Some(mut update) = measurements.recv().await {
            // What came meanwhile is put in force with it.
            while let Ok(more) = measurements.try_recv() {
                merge(&mut update, more);
            }
            let Some(engine) = weak.upgrade() else { return };
            engine.apply_measured(update, false);
        }
    });
}

impl Engine {
    /// The ledger was written, maybe by another process that measured
    /// calls: every tool's measurements are read again in a while.
    pub(super) fn reload_measured_soon(self: &Arc<Self>) {
        let Ok(ledger) = self.ledger() else { return };
        if self.measured_later.reload.swap(true, Ordering::Relaxed) {
            return;
        }
        let ledger = ledger.clone();
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            tokio::time::sleep(RELOAD_AFTER).await;
            match weak.upgrade() {
                // Writes from now on ask for another reading.
                Some(engine) => engine.measured_later.reload.store(false, Ordering::Relaxed),
                None => return,
            }
            match tokio::task::spawn_blocking(move || ledger.measured()).await {
                Ok(Ok(all)) => {
                    if let Some(engine) = weak.upgrade() {
                        engine.apply_measured(all, true);
                    }
                }
                Ok(Err(error)) => tracing::warn!("{error}; measured calls were not read again"),
                Err(_) => {}
            }
        });
    }

    /// Puts `update` in force: some tools' measurements, or with `whole`
    /// every tool's.
    fn apply_measured(self: &Arc<Self>, update: Measurements, whole: bool) {
        let moved = {
            let mut state = self.state.writing();
            let mut measured = match whole {
                true => Measurements::new(),
                false => (*state.measured).clone(),
            };
            merge(&mut measured, update);
            if measured == *state.measured {
                return;
            }
            let moved = costs_move(&state.catalog, &state.measured, &measured);
            state.measured = Arc::new(measured);
            if moved {
                state.generation = u64::MAX;
            }
            moved
        };
        if moved {
            self.rebuild_catalog();
        } else {
            self.rebuild_later();
        }
    }

    /// Rebuilds the catalog [`REASONS_AFTER`] from now, unless a rebuild
    /// is already due.
    fn rebuild_later(self: &Arc<Self>) {
        if self.measured_later.rebuild.swap(true, Ordering::Relaxed) {
            return;
        }
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            tokio::time::sleep(REASONS_AFTER).await;
            let Some(engine) = weak.upgrade() else { return };
            engine
                .measured_later
                .rebuild
                .store(false, Ordering::Relaxed);
            engine.state.writing().generation = u64::MAX;
            engine.rebuild_catalog();
        });
    }
}

/// Adds `update` to `into`, each tool's measurements replacing its old.
fn merge(into: &mut Measurements, update: Measurements) {
    for (server, tools) in update {
        into.entry(server).or_default().extend(tools);
    }
}

/// Whether a tool of `catalog` is judged another `cost` with `new` than
/// with `old`. Judging a tool reads its definition's words, so only the
/// tools whose measurements changed are judged.
fn costs_move(catalog: &Catalog, old: &Measurements, new: &Measurements) -> bool {
    let of = |measured: &Measurements, tool: &Primitive| -> Option<Measured> {
        measured.get(&tool.server)?.get(&tool.name).copied()
    };
    // Each server's way of naming its tools, as the catalog reads them.
    let mut namings: std::collections::BTreeMap<&str, Naming> = Default::default();
    catalog.of_kind(Kind::Tool).any(|tool| {
        let (before, after) = (of(old, tool), of(new, tool));
        if before == after {
            return false;
        }
        let naming = *namings.entry(tool.server.as_str()).or_insert_with(|| {
            naming(
                catalog
                    .of_kind(Kind::Tool)
                    .filter(|t| t.server == tool.server)
                    .map(|t| t.name.as_str()),
            )
        });
        judge_in(&tool.definition, naming, before.as_ref()).value
            != judge_in(&tool.definition, naming, after.as_ref()).value
    })
}
