//! The Audit screen.

use super::Result;
use crate::AppState;
use sieve_api::audit::{self, AuditFilter, AuditPage};
use sieve_api::now_ms;
use tauri::State;

#[tauri::command]
pub fn audit_list(state: State<'_, AppState>, filter: AuditFilter) -> Result<AuditPage> {
    audit::list(&state.store, &filter, now_ms())
}
