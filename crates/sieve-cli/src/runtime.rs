//! The async runtime the commands run on: started per command, an engine
//! for those that talk to servers and exit, and the signal that ends those
//! that run until stopped.

use anyhow::{Context, Result};
use sieve_api as api;
use sieve_api::Engine;
use sieve_api::Store;

pub(crate) fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Runtime::new().context("cannot start the async runtime")
}

/// The runtime of the proxy (`serve`): one worker thread for every two
/// cores, at least one, or `TOKIO_WORKER_THREADS`. A host's request crosses
/// several tasks (its HTTP connection, rmcp's session and service, the
/// handler, the upstream's connection), and every crossing to a task on
/// another worker wakes that worker: a system call and a context switch.
/// On 2 cores, which the proxy shares with its hosts and the upstreams it
/// runs, those wake-ups were the largest part of its CPU time per call
/// (docs/benchmarks.md, "HTTP against the peer gateway"); with one worker
/// a call crosses tasks on one thread.
///
/// Its LIFO slot is off (tokio's unstable option, which .cargo/config.toml
/// turns on): with it, the writer of a pipe, woken by each message put in
/// its queue, ran next, ahead of the tasks already waiting, and wrote each
/// message of a burst alone. Without it, the writer runs once the burst's
/// tasks have queued theirs, and writes them in one go: 0.3 writes a call
/// in place of 1.2 over stdio with 32 calls in flight, a third less CPU
/// (docs/benchmarks.md, "Writes in one go, futures a twentieth the size").
pub(crate) fn serving_runtime() -> Result<tokio::runtime::Runtime> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if std::env::var_os("TOKIO_WORKER_THREADS").is_none() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        builder.worker_threads((cores / 2).max(1));
    }
    #[cfg(tokio_unstable)]
    builder.disable_lifo_slot();
    builder
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Runs `work` on an engine whose servers have all answered (or failed)
/// once, then stops them: for commands that talk to servers and exit.
pub(crate) fn with_engine<T>(
    store: &Store,
    work: impl AsyncFnOnce(&Engine) -> Result<T>,
) -> Result<T> {
    runtime()?.block_on(async {
        let engine = Engine::start(store.clone())?;
        engine.settled(api::catalog::SETTLE).await;
        let outcome = work(&engine).await;
        engine.shutdown().await;
        outcome
    })
}

/// Resolves on Ctrl-C or SIGTERM.
pub(crate) async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => {
                    let _ = tokio::signal::ctrl_c().await;
                    return;
                }
            };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}
