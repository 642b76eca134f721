//! The Tasks screen.

use super::Result;
use crate::AppState;
use serde_json::Value;
use sieve_api::now_ms;
use sieve_api::tasks::{self, RetryView, TaskDetail, TaskFilter, TaskPage};
use tauri::State;

#[tauri::command]
pub fn tasks_list(state: State<'_, AppState>, filter: TaskFilter) -> Result<TaskPage> {
    tasks::list(&state.store, &filter, now_ms())
}

#[tauri::command]
pub fn task_show(state: State<'_, AppState>, id: String) -> Result<TaskDetail> {
    tasks::show(&state.store, &id)
}

#[tauri::command]
pub async fn task_retry(
    state: State<'_, AppState>,
    id: String,
    force: bool,
    profile: String,
) -> Result<RetryView> {
    Ok(tasks::retry(&state.engine, &id, force, &profile)
        .await?
        .into())
}

/// The app's "Try" on a tool's row: the call under the profile being
/// edited, recorded in the ledger; answered like a retry.
#[tauri::command]
pub async fn tool_try(
    state: State<'_, AppState>,
    profile: String,
    name: String,
    arguments: Value,
) -> Result<RetryView> {
    Ok(tasks::try_tool(&state.engine, &profile, &name, arguments)
        .await?
        .into())
}

#[tauri::command]
pub async fn task_cancel(state: State<'_, AppState>, id: String) -> Result<()> {
    tasks::cancel(&state.engine, &id).await
}
