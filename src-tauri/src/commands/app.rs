//! What the app itself is running.

use super::Result;
use crate::AppState;
use serde::Serialize;
use sieve_api::settings::{self, SettingsView};
use std::path::PathBuf;
use tauri::State;

/// The user's folder, the embedded proxy's endpoint and token, and the
/// `mcp-sieve` that stdio snippets start.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppInfo {
    pub home: PathBuf,
    pub http_url: String,
    pub token: String,
    pub binary: PathBuf,
}

#[tauri::command]
pub fn app_info(state: State<'_, AppState>) -> AppInfo {
    AppInfo {
        home: state.store.home().config_dir().to_path_buf(),
        http_url: state.http_url.clone(),
        token: state.token.clone(),
        binary: state.sieve_binary.clone(),
    }
}

/// What changed in the groups the profiles name since the app last
/// started (each a sentence), once the servers have answered.
#[tauri::command]
pub async fn start_notices(state: State<'_, AppState>) -> Result<Vec<String>> {
    sieve_api::notices::at_start(&state.engine, "app").await
}

/// A failure in the page (an uncaught error or a rejected promise) goes to
/// the app's log, so a window that stopped answering leaves a trace.
#[tauri::command]
pub fn page_error(message: String) {
    // A page could send anything; the log keeps a bounded line.
    let message: String = message.chars().take(2_000).collect();
    tracing::error!(target: "sieve_app::page", "the window failed: {message}");
}

#[tauri::command]
pub fn settings_show(state: State<'_, AppState>) -> Result<SettingsView> {
    settings::show(&state.store)
}

#[tauri::command]
pub fn settings_set_close_to_tray(state: State<'_, AppState>, on: bool) -> Result<SettingsView> {
    settings::set_close_to_tray(&state.store, on)
}

#[tauri::command]
pub fn settings_set_quarantine(state: State<'_, AppState>, on: bool) -> Result<SettingsView> {
    settings::set_quarantine(&state.store, on)
}
