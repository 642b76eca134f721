//! The Tasks screen.

use super::Result;
use crate::AppState;
use serde::Serialize;
use serde_json::Value;
use sieve_api::ApiError;
use sieve_api::TaskRecord;
use sieve_api::now_ms;
use sieve_api::tasks::{self, TaskFilter, TaskPage};
use tauri::State;

#[tauri::command]
pub fn tasks_list(state: State<'_, AppState>, filter: TaskFilter) -> Result<TaskPage> {
    tasks::list(&state.store, &filter, now_ms())
}

#[tauri::command]
pub fn task_show(state: State<'_, AppState>, id: String) -> Result<Value> {
    Ok(tasks::show(&state.store, &id)?.0)
}

/// A retry as the page shows it: the new entry, and the call's answer or
/// its error.
#[derive(Debug, Serialize)]
pub struct Retry {
    record: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    answer: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ApiError>,
}

impl From<tasks::Retried> for Retry {
    fn from(retried: tasks::Retried) -> Retry {
        let (answer, error) = match retried.answer {
            Ok(answer) => (Some(answer), None),
            Err(error) => (None, Some(error)),
        };
        Retry {
            record: TaskRecord::to_wire(&retried.record),
            answer,
            error,
        }
    }
}

#[tauri::command]
pub async fn task_retry(
    state: State<'_, AppState>,
    id: String,
    force: bool,
    profile: String,
) -> Result<Retry> {
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
) -> Result<Retry> {
    Ok(tasks::try_tool(&state.engine, &profile, &name, arguments)
        .await?
        .into())
}

#[tauri::command]
pub async fn task_cancel(state: State<'_, AppState>, id: String) -> Result<()> {
    tasks::cancel(&state.engine, &id).await
}
