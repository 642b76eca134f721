//! The Quarantine screen: tools held because they are new or changed since
//! approved, and the person's decision on each.

use super::Result;
use crate::AppState;
use sieve_api::quarantine::{self, Decision, QuarantinedTool, Selection};
use tauri::State;

#[tauri::command]
pub fn quarantine_list(state: State<'_, AppState>) -> Result<Vec<QuarantinedTool>> {
    quarantine::list(&state.store)
}

#[tauri::command]
pub fn quarantine_approve(state: State<'_, AppState>, tools: Vec<String>) -> Result<Decision> {
    let decision = quarantine::approve(&state.store, &Selection::Tools(tools))?;
    // The watcher would bring it too; this window need not wait for it.
    state.engine.reload_approvals();
    Ok(decision)
}

#[tauri::command]
pub fn quarantine_keep_hidden(state: State<'_, AppState>, tools: Vec<String>) -> Result<Decision> {
    let decision = quarantine::keep_hidden(&state.store, &Selection::Tools(tools))?;
    state.engine.reload_approvals();
    Ok(decision)
}
