//! The engine's changes as UI events: `sieve://changed` with `{what,
//! name?}`, so every screen reloads what changed and nothing polls.

use serde::Serialize;
use sieve_api::Change;
use tauri::{AppHandle, Emitter, Runtime};
use tokio::sync::broadcast;

/// The event every screen listens to.
pub const CHANGED: &str = "sieve://changed";

/// What changed, as the page reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Changed {
    /// `catalog`, `profile`, `config`, `status`, `tasks` or `approvals`.
    pub what: &'static str,
    /// The profile or server it is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl From<Change> for Changed {
    fn from(change: Change) -> Changed {
        let (what, name) = match change {
            Change::Catalog => ("catalog", None),
            // The page reloads the list either way, and the profile if it is
            // the one being edited.
            Change::Profile(name) | Change::ProfileFile(name) => ("profile", Some(name)),
            Change::Config => ("config", None),
            Change::Status(server) => ("status", Some(server)),
            Change::Tasks => ("tasks", None),
            Change::Approvals => ("approvals", None),
        };
        Changed { what, name }
    }
}

/// Forwards `changes` to the page for as long as the app runs.
pub fn forward<R: Runtime>(app: AppHandle<R>, mut changes: broadcast::Receiver<Change>) {
    tauri::async_runtime::spawn(async move {
        loop {
            let changed = match changes.recv().await {
                Ok(change) => Changed::from(change),
                // Missed changes: reload what depends on the catalog.
                Err(broadcast::error::RecvError::Lagged(_)) => Changed {
                    what: "catalog",
                    name: None,
                },
                Err(broadcast::error::RecvError::Closed) => return,
            };
            if let Err(error) = app.emit(CHANGED, changed) {
                tracing::warn!("a change did not reach the window: {error}");
            }
        }
    });
}
