//! The settings of `config.json` a person changes from the app (the
//! active profile has its own functions in [`super::profiles`]).

use super::Result;
use serde::Serialize;
use sieve_core::config::Settings;
use sieve_store::store::Store;

/// Every setting with its value in force, defaults included (the file
/// leaves out what is at its default; a view never does).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingsView {
    pub separator: String,
    pub task_retention_days: u32,
    pub call_timeout_seconds: u64,
    pub active_profile: String,
    pub close_to_tray: bool,
    /// New and changed tools are held until approved (DESIGN §9).
    pub quarantine: bool,
}

impl From<Settings> for SettingsView {
    fn from(settings: Settings) -> SettingsView {
        SettingsView {
            separator: settings.separator,
            task_retention_days: settings.task_retention_days,
            call_timeout_seconds: settings.call_timeout_seconds,
            active_profile: settings.active_profile,
            close_to_tray: settings.close_to_tray,
            quarantine: settings.quarantine,
        }
    }
}

/// The settings in force on disk (defaults where `config.json` says
/// nothing).
pub fn show(store: &Store) -> Result<SettingsView> {
    Ok(store.load_config()?.settings.into())
}

/// Whether closing the app's window keeps it serving from the tray;
/// written atomically, and only when it changes.
pub fn set_close_to_tray(store: &Store, on: bool) -> Result<SettingsView> {
    store.update_config(|config| {
        config.settings.close_to_tray = on;
        Ok(config.settings.clone().into())
    })
}

/// Whether new and changed tools are held in quarantine until approved;
/// written atomically, and only when it changes. Every running proxy
/// applies it live.
pub fn set_quarantine(store: &Store, on: bool) -> Result<SettingsView> {
    store.update_config(|config| {
        config.settings.quarantine = on;
        Ok(config.settings.clone().into())
    })
}
