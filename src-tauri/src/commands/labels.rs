//! The Labels screen, and the selection bar of the Tools screen: labels
//! written to `config.json` as overlays, group renames, concern
//! definitions and whether groups are derived. Each edit answers with the
//! labels as they now are on disk, over the catalog the engine has (it
//! follows the file a moment later, and the page hears of it).

use super::Result;
use crate::AppState;
use sieve_api::Listed;
use sieve_api::labels::{self, LabelEdit, LabelsView};
use tauri::State;

#[tauri::command]
pub fn labels_view(state: State<'_, AppState>) -> Result<LabelsView> {
    let listed = Listed::of_engine(&state.engine);
    labels::view(&listed.config, &listed.catalog)
}

#[tauri::command]
pub fn label_edit(state: State<'_, AppState>, edit: LabelEdit) -> Result<LabelsView> {
    let listed = Listed::of_engine(&state.engine);
    labels::edit(&state.store, &listed.catalog, &edit)?;
    labels::view(&state.store.load_config()?, &listed.catalog)
}

#[tauri::command]
pub fn labels_set_derive_groups(state: State<'_, AppState>, on: bool) -> Result<LabelsView> {
    labels::set_derive_groups(&state.store, on)?;
    let listed = Listed::of_engine(&state.engine);
    labels::view(&state.store.load_config()?, &listed.catalog)
}
