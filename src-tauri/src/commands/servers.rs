//! The Servers screen.

use super::Result;
use crate::AppState;
use sieve_proxy::api::servers::{self, NewServer};
use sieve_proxy::api::{ServerRow, hosts::HostKind};
use sieve_proxy::import::ImportReport;
use std::path::PathBuf;
use tauri::State;

#[tauri::command]
pub fn servers_list(state: State<'_, AppState>) -> Vec<ServerRow> {
    servers::of_engine(&state.engine)
}

#[tauri::command]
pub fn server_add(
    state: State<'_, AppState>,
    server: NewServer,
    keep_secrets: bool,
) -> Result<Vec<ServerRow>> {
    let secrets = if keep_secrets {
        Some(
            sieve_proxy::secrets::Secrets::open(state.store.home()).map_err(|e| {
                sieve_proxy::api::ApiError::new(sieve_proxy::api::ErrorCode::Io, e.0)
            })?,
        )
    } else {
        None
    };
    sieve_proxy::api::secrets::add_server(&state.store, secrets.as_ref(), server)?;
    Ok(servers::of_engine(&state.engine))
}

#[tauri::command]
pub fn server_remove(state: State<'_, AppState>, name: String) -> Result<Vec<ServerRow>> {
    servers::remove(&state.store, &name)?;
    Ok(servers::of_engine(&state.engine))
}

#[tauri::command]
pub fn server_set_enabled(
    state: State<'_, AppState>,
    name: String,
    enabled: bool,
) -> Result<Vec<ServerRow>> {
    servers::set_enabled(&state.store, &name, enabled)?;
    Ok(servers::of_engine(&state.engine))
}

#[tauri::command]
pub fn servers_import_preview(
    state: State<'_, AppState>,
    host: HostKind,
    path: Option<PathBuf>,
) -> Result<ImportReport> {
    servers::import_preview(&state.store, host, path.as_deref())
}

#[tauri::command]
pub fn servers_import(
    state: State<'_, AppState>,
    host: HostKind,
    path: Option<PathBuf>,
    keep_secrets: bool,
) -> Result<ImportReport> {
    sieve_proxy::api::secrets::import(&state.store, host, path.as_deref(), keep_secrets)
}

/// "Sign in" on a server's row: the OAuth sign-in in the system browser
/// (`$BROWSER` when set, else the desktop's default), waiting for it to
/// come back; the running proxy then connects with it.
#[tauri::command]
pub async fn server_login(
    state: State<'_, AppState>,
    name: String,
) -> Result<sieve_proxy::api::login::SignedIn> {
    let open = |url: &str| {
        if !sieve_proxy::oauth::open_in_browser(url) {
            // The desktop's own choice of browser.
            match std::process::Command::new("xdg-open").arg(url).spawn() {
                Ok(mut child) => {
                    std::thread::spawn(move || child.wait());
                }
                Err(error) => tracing::warn!("cannot open the sign-in page: {error}"),
            }
        }
    };
    sieve_proxy::api::login::login(&state.store, &name, &open, sieve_proxy::api::login::WAIT).await
}
