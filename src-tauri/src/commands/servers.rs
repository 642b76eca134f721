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
