//! The settings of `config.json` a person changes from the app (the
//! active profile has its own functions in [`super::profiles`]).

use super::Result;
use crate::store::Store;
use sieve_core::config::Settings;

/// The settings in force on disk (defaults where `config.json` says
/// nothing).
pub fn show(store: &Store) -> Result<Settings> {
    Ok(store.load_config()?.settings)
}

/// Whether closing the app's window keeps it serving from the tray;
/// written atomically, and only when it changes.
pub fn set_close_to_tray(store: &Store, on: bool) -> Result<Settings> {
    let mut config = store.load_config()?;
    if config.settings.close_to_tray != on {
        config.settings.close_to_tray = on;
        store.save_config(&config)?;
    }
    Ok(config.settings)
}
