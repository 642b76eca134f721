//! The Servers screen.

use super::Result;
use crate::AppState;
use sieve_api::ImportReport;
use sieve_api::servers::{self, NewServer};
use sieve_api::{ServerRow, hosts::HostKind};
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
        Some(sieve_api::secrets::open(&state.store)?)
    } else {
        None
    };
    sieve_api::secrets::add_server(&state.store, secrets.as_ref(), server)?;
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
    sieve_api::secrets::import(&state.store, host, path.as_deref(), keep_secrets)
}

/// "Sign in" on a server's row: the OAuth sign-in in the system browser
/// (`$BROWSER` when set, else the desktop's default), waiting for it to
/// come back; the running proxy then connects with it.
#[tauri::command]
pub async fn server_login(
    state: State<'_, AppState>,
    name: String,
) -> Result<sieve_api::login::SignedIn> {
    let open = |url: &str| {
        sieve_api::login::open_sign_in_page(url);
    };
    sieve_api::login::login(&state.store, &name, &open, sieve_api::login::WAIT).await
}
