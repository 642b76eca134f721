//! The tray icon: what the proxy serves, a switch of the profile of its
//! `/mcp` endpoint (the active profile), whether closing the window keeps
//! the app in the tray, Open and Quit. The menu is rebuilt from the library
//! whenever a profile or `config.json` changes, in this process or another.

use crate::AppState;
use sieve_api::Change;
use sieve_api::{profiles, settings};
use tauri::menu::{CheckMenuItem, Menu, MenuItem, PredefinedMenuItem, Submenu};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Manager, Runtime, Window, WindowEvent};
use tokio::sync::broadcast;

const TRAY: &str = "main";
/// Menu ids of the profiles start with this.
const PROFILE: &str = "profile:";
const CLOSE_TO_TRAY: &str = "close-to-tray";

/// Shows and focuses the main window (a second launch, the tray's Open).
pub fn show_window<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
}

/// Adds the tray icon with its menu. Without the system's appindicator
/// library the tray crate panics when it loads it; that becomes an error,
/// and the app goes on without a tray.
pub fn install<R: Runtime>(app: &AppHandle<R>) -> anyhow::Result<()> {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| build(app)));
    match outcome {
        Ok(result) => result?,
        Err(_) => anyhow::bail!("the system's appindicator library could not be loaded"),
    }
    follow(app.clone(), app.state::<AppState>().engine.subscribe());
    Ok(())
}

fn build<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<()> {
    let mut tray = TrayIconBuilder::with_id(TRAY)
        .tooltip("MCP Sieve")
        .menu(&menu(app)?)
        .on_menu_event(|app, event| on_menu(app, event.id().as_ref()));
    if let Some(icon) = app.default_window_icon() {
        tray = tray.icon(icon.clone());
    }
    tray.build(app)?;
    Ok(())
}

/// The menu as the library sees things now.
fn menu<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<Menu<R>> {
    let state = app.state::<AppState>();
    let serving = MenuItem::with_id(
        app,
        "serving",
        format!("Serving {}", state.http_url),
        false,
        None::<&str>,
    )?;
    let switch = Submenu::with_id(app, "profiles", "Profile of /mcp", true)?;
    match profiles::summaries(&state.store) {
        Ok(summaries) => {
            for summary in summaries {
                let item = CheckMenuItem::with_id(
                    app,
                    format!("{PROFILE}{}", summary.name),
                    &summary.name,
                    summary.valid,
                    summary.active,
                    None::<&str>,
                )?;
                switch.append(&item)?;
            }
        }
        Err(error) => {
            let item =
                MenuItem::with_id(app, "profiles-error", error.message, false, None::<&str>)?;
            switch.append(&item)?;
        }
    }
    let close_to_tray = settings::show(&state.store)
        .map(|s| s.close_to_tray)
        .unwrap_or(true);
    let keep = CheckMenuItem::with_id(
        app,
        CLOSE_TO_TRAY,
        "Keep serving when the window closes",
        true,
        close_to_tray,
        None::<&str>,
    )?;
    let open = MenuItem::with_id(app, "open", "Open MCP Sieve", true, None::<&str>)?;
    let quit = MenuItem::with_id(app, "quit", "Quit (stops the proxy)", true, None::<&str>)?;
    let separator = PredefinedMenuItem::separator(app)?;
    Menu::with_items(app, &[&serving, &switch, &keep, &separator, &open, &quit])
}

fn on_menu<R: Runtime>(app: &AppHandle<R>, id: &str) {
    let state = app.state::<AppState>();
    let outcome = if let Some(name) = id.strip_prefix(PROFILE) {
        profiles::set_active(&state.store, name).map(|_| ())
    } else {
        match id {
            CLOSE_TO_TRAY => {
                let on = settings::show(&state.store).map(|s| !s.close_to_tray);
                on.and_then(|on| settings::set_close_to_tray(&state.store, on))
                    .map(|_| ())
            }
            "open" => {
                show_window(app);
                Ok(())
            }
            "quit" => {
                app.exit(0);
                Ok(())
            }
            _ => Ok(()),
        }
    };
    match outcome {
        // The file watcher brings the change back as an event, which
        // rebuilds the menu; a check item toggles itself meanwhile.
        Ok(()) => {}
        Err(error) => {
            tracing::warn!("{}", error.message);
            refresh(app);
        }
    }
}

/// Rebuilds the menu when a profile or `config.json` changes.
fn follow<R: Runtime>(app: AppHandle<R>, mut changes: broadcast::Receiver<Change>) {
    tauri::async_runtime::spawn(async move {
        loop {
            match changes.recv().await {
                Ok(Change::Profile(_) | Change::ProfileFile(_) | Change::Config)
                | Err(broadcast::error::RecvError::Lagged(_)) => refresh(&app),
                Ok(_) => {}
                Err(broadcast::error::RecvError::Closed) => return,
            }
        }
    });
}

fn refresh<R: Runtime>(app: &AppHandle<R>) {
    let Some(tray) = app.tray_by_id(TRAY) else {
        return;
    };
    match menu(app) {
        Ok(menu) => {
            if let Err(error) = tray.set_menu(Some(menu)) {
                tracing::warn!("the tray menu could not be updated: {error}");
            }
        }
        Err(error) => tracing::warn!("the tray menu could not be built: {error}"),
    }
}

/// Closing the main window hides it while a tray icon can bring it back
/// and the user keeps that on (`settings.closeToTray`); else the app quits.
pub fn on_window_event<R: Runtime>(window: &Window<R>, event: &WindowEvent) {
    if let WindowEvent::CloseRequested { api, .. } = event {
        let app = window.app_handle();
        let keep = app
            .state::<AppState>()
            .engine
            .config()
            .settings
            .close_to_tray;
        if keep && app.tray_by_id(TRAY).is_some() {
            api.prevent_close();
            let _ = window.hide();
        }
    }
}
