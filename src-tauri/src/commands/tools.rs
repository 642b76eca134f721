//! The Tools screen and the token meter.

use super::Result;
use crate::AppState;
use sieve_api::ConcernDef;
use sieve_api::{Listed, PrimitiveRow, TokenReport, profiles};
use tauri::State;

#[tauri::command]
pub fn catalog_rows(state: State<'_, AppState>, profile: String) -> Result<Vec<PrimitiveRow>> {
    Listed::rows_of_engine(&state.engine, &profile)
}

#[tauri::command]
pub fn token_report(state: State<'_, AppState>, profile: String) -> Result<TokenReport> {
    Listed::tokens_of_engine(&state.engine, &profile)
}

#[tauri::command]
pub fn concern_definitions(state: State<'_, AppState>) -> Result<Vec<ConcernDef>> {
    profiles::concern_definitions(&state.store)
}

#[tauri::command]
pub fn tool_set_override(
    state: State<'_, AppState>,
    exposed_name: String,
    title: Option<String>,
    description: Option<String>,
) -> Result<()> {
    sieve_api::catalog::set_override(
        &state.store,
        &exposed_name,
        title.as_deref(),
        description.as_deref(),
    )
}
