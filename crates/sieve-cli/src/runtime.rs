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
