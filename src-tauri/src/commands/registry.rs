//! The Servers screen's registry: search, show a server, check what adding
//! it will run, add it.

use super::Result;
use crate::AppState;
use sieve_api::registry::{self, Prepared, Request, Searched, Shown};
use sieve_api::{ApiError, ErrorCode, ServerRow, servers};
use tauri::State;

#[tauri::command]
pub async fn registry_search(
    state: State<'_, AppState>,
    text: String,
    registry: Option<String>,
) -> Result<Searched> {
    registry::search(&state.store, registry.as_deref(), &text).await
}

#[tauri::command]
pub async fn registry_show(
    state: State<'_, AppState>,
    name: String,
    version: Option<String>,
    registry: Option<String>,
) -> Result<Shown> {
    registry::show(&state.store, registry.as_deref(), &name, version.as_deref()).await
}

/// The servers whose registry has published a newer version since they
/// were added, key to version; asked once the rows are shown, as a
/// registry may be slow or unreachable (then nothing is said).
#[tauri::command]
pub async fn servers_newer(
    state: State<'_, AppState>,
) -> Result<std::collections::BTreeMap<String, String>> {
    let config = state.engine.config();
    Ok(registry::newer(&config).await)
}

/// What adding `request` writes and runs, for the person to confirm;
/// nothing is written.
#[tauri::command]
pub async fn registry_prepare(state: State<'_, AppState>, request: Request) -> Result<Prepared> {
    registry::prepare(&state.store, &request).await
}

/// "Add" once confirmed: the entry is read again and written; the running
/// proxy starts the server.
#[tauri::command]
pub async fn registry_add(state: State<'_, AppState>, request: Request) -> Result<Vec<ServerRow>> {
    let prepared = registry::prepare(&state.store, &request).await?;
    let store = state.store.clone();
    // The keychain is reached over D-Bus, blocking.
    tauri::async_runtime::spawn_blocking(move || registry::add(&store, prepared))
        .await
        .map_err(|error| {
            ApiError::new(ErrorCode::Io, format!("adding the server stopped: {error}"))
        })??;
    Ok(servers::of_engine(&state.engine))
}
