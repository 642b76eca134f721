//! The tray icon: the proxy's address, Open and Quit; closing the window
//! hides it into the tray, so the proxy keeps serving hosts.

use crate::AppState;
use tauri::menu::{Menu, MenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Manager, Runtime, Window, WindowEvent};

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
pub fn install<R: Runtime>(app: &AppHandle<R>) -> Result<(), String> {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| build(app)));
    match outcome {
        Ok(result) => result.map_err(|e| e.to_string()),
        Err(_) => Err("the system's appindicator library could not be loaded".into()),
    }
}

fn build<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<()> {
    let url = app.state::<AppState>().http_url.clone();
    let serving = MenuItem::with_id(
        app,
        "serving",
        format!("Serving {url}"),
        false,
        None::<&str>,
    )?;
    let open = MenuItem::with_id(app, "open", "Open MCP Sieve", true, None::<&str>)?;
    let quit = MenuItem::with_id(app, "quit", "Quit (stops the proxy)", true, None::<&str>)?;
    let menu = Menu::with_items(app, &[&serving, &open, &quit])?;
    let mut tray = TrayIconBuilder::with_id("main")
        .tooltip("MCP Sieve")
        .menu(&menu)
        .on_menu_event(|app, event| match event.id().as_ref() {
            "open" => show_window(app),
            "quit" => app.exit(0),
            _ => {}
        });
    if let Some(icon) = app.default_window_icon() {
        tray = tray.icon(icon.clone());
    }
    tray.build(app)?;
    Ok(())
}

/// Closing the main window hides it while a tray icon can bring it back.
pub fn on_window_event<R: Runtime>(window: &Window<R>, event: &WindowEvent) {
    if let WindowEvent::CloseRequested { api, .. } = event
        && window.app_handle().tray_by_id("main").is_some()
    {
        api.prevent_close();
        let _ = window.hide();
    }
}
