//! The Profiles screen, and the switches of the Tools screen (they edit
//! the profile being edited).

use super::Result;
use crate::AppState;
use sieve_api::profiles::{self, ProfileEdit, ProfileSummary, ProfileView};
use tauri::State;

#[tauri::command]
pub fn profiles_list(state: State<'_, AppState>) -> Result<Vec<ProfileSummary>> {
    profiles::summaries(&state.store)
}

#[tauri::command]
pub fn profile_show(state: State<'_, AppState>, name: String) -> Result<ProfileView> {
    profiles::view_in(&state.store, &name, &state.engine.catalog())
}

#[tauri::command]
pub fn profile_create(
    state: State<'_, AppState>,
    name: String,
    from: Option<String>,
) -> Result<Vec<ProfileSummary>> {
    profiles::create(&state.store, &name, from.as_deref())?;
    profiles::summaries(&state.store)
}

#[tauri::command]
pub fn profile_rename(
    state: State<'_, AppState>,
    from: String,
    to: String,
) -> Result<Vec<ProfileSummary>> {
    profiles::rename(&state.store, &from, &to)?;
    profiles::summaries(&state.store)
}

#[tauri::command]
pub fn profile_make_active(
    state: State<'_, AppState>,
    name: String,
) -> Result<Vec<ProfileSummary>> {
    profiles::set_active(&state.store, &name)?;
    profiles::summaries(&state.store)
}

#[tauri::command]
pub fn profile_delete(state: State<'_, AppState>, name: String) -> Result<Vec<ProfileSummary>> {
    profiles::delete(&state.store, &name)?;
    profiles::summaries(&state.store)
}

#[tauri::command]
pub fn profile_edit(
    state: State<'_, AppState>,
    name: String,
    edit: ProfileEdit,
) -> Result<ProfileView> {
    let catalog = state.engine.catalog();
    profiles::edit_all_in(&state.store, &name, &[edit], Some(&catalog)).map(ProfileView::from)
}

#[tauri::command]
pub fn pattern_check(pattern: String) -> Result<()> {
    profiles::check_pattern(&pattern)
}
