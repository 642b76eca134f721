//! The MCP Sieve desktop app: a thin Tauri 2 shell over `sieve_api`.
//!
//! * [`commands`]: one Tauri command per library function, one file per
//!   domain (servers, tools, labels, profiles, tasks, hosts, the app
//!   itself); each calls the function and hands back its result or its
//!   `{code, message}` error. Nothing is computed here.
//! * [`AppState`]: the user's [`Store`], the [`Engine`] of this process
//!   (its upstream pool feeds the Servers and Tools screens) and the
//!   embedded HTTP proxy hosts can connect to while the app is open.
//! * [`events`]: the engine's changes (profile and config edits from any
//!   process, server states, upstream lists) become `sieve://changed`
//!   events for the page, so every screen is live without polling.
//! * [`tray`]: the tray icon, and closing the window into it.
//!
//! [`run`] reads `--home` (and `--host-home`, where the AI hosts' files
//! are looked for), starts the engine and the proxy, and hands a
//! builder to [`build`], which tests drive with `tauri::test::mock_builder()`.

pub mod commands;
pub mod events;
pub mod tray;

use sieve_api::Engine;
use sieve_api::Home;
use sieve_api::Store;
use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use tauri::{Manager, Runtime};
use tokio_util::sync::CancellationToken;

/// Where the embedded proxy listens unless `MCP_SIEVE_APP_PORT` says
/// otherwise; a busy port falls back to a free one (the app shows which).
const DEFAULT_PORT: u16 = 8765;

/// What every command works on.
pub struct AppState {
    pub store: Store,
    pub engine: Arc<Engine>,
    /// The embedded HTTP proxy: `http://127.0.0.1:PORT/mcp`.
    pub http_url: String,
    pub token: String,
    /// `mcp-sieve`, for the stdio snippets: installed beside the app.
    pub sieve_binary: PathBuf,
    /// Stops the embedded proxy when the app quits.
    pub stop: CancellationToken,
    /// `--host-home DIR`: the folder that stands for the home folder when
    /// looking for the AI hosts' files (tests; the app is given no
    /// environment by WebDriver). `None`: the user's own.
    pub host_home: Option<PathBuf>,
}

/// `--home DIR` or `--home=DIR` among the program's arguments.
fn home_argument(args: impl IntoIterator<Item = OsString>) -> Option<PathBuf> {
    folder_argument(args, "--home")
}

/// `FLAG VALUE` or `FLAG=VALUE` among the program's arguments, as text.
fn string_argument(args: impl IntoIterator<Item = OsString>, flag: &str) -> Option<String> {
    folder_argument(args, flag).map(|value| value.to_string_lossy().into_owned())
}

/// `FLAG DIR` or `FLAG=DIR` among the program's arguments.
fn folder_argument(args: impl IntoIterator<Item = OsString>, flag: &str) -> Option<PathBuf> {
    let mut args = args.into_iter();
    let prefix = format!("{flag}=");
    while let Some(arg) = args.next() {
        if arg == flag {
            return args.next().map(PathBuf::from);
        }
        if let Some(dir) = arg.to_str().and_then(|a| a.strip_prefix(prefix.as_str())) {
            return Some(PathBuf::from(dir));
        }
    }
    None
}

/// Starts the engine on `home`'s files and the embedded proxy on loopback.
pub async fn start(home: Home, port: u16) -> anyhow::Result<AppState> {
    start_store(Store::new(home), port).await
}

/// Starts the engine on `store` (files, or a team's database) and the
/// embedded proxy on loopback.
pub async fn start_store(store: Store, port: u16) -> anyhow::Result<AppState> {
    let engine = Engine::start(store.clone())?;
    engine.watch_files()?;
    let token = store.http_token()?;
    let stop = CancellationToken::new();
    let bound = match serve(&engine, port, &token, &stop).await {
        Ok(bound) => bound,
        // Another proxy has the port: take a free one rather than fail.
        Err(_) if port != 0 => serve(&engine, 0, &token, &stop).await?,
        Err(error) => return Err(error),
    };
    let sieve_binary = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("mcp-sieve")))
        .unwrap_or_else(|| PathBuf::from("mcp-sieve"));
    Ok(AppState {
        store,
        http_url: format!("http://{bound}/mcp"),
        token,
        engine,
        sieve_binary,
        stop,
        host_home: None,
    })
}

async fn serve(
    engine: &Arc<Engine>,
    port: u16,
    token: &str,
    stop: &CancellationToken,
) -> anyhow::Result<SocketAddr> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    sieve_api::serve::serve_http(
        engine.clone(),
        addr,
        token.to_string(),
        stop.clone().cancelled_owned(),
    )
    .await
}

/// Registers the state, the commands and the event bridge on `builder`.
pub fn build<R: Runtime>(
    builder: tauri::Builder<R>,
    state: AppState,
    also: impl FnOnce(&tauri::AppHandle<R>) + Send + 'static,
) -> tauri::Builder<R> {
    let changes = state.engine.subscribe();
    // One setup hook: a later `.setup()` would replace this one.
    builder
        .manage(state)
        .invoke_handler(commands::handler())
        .setup(move |app| {
            events::forward(app.handle().clone(), changes);
            also(app.handle());
            Ok(())
        })
}

/// The whole program.
pub fn run() -> std::process::ExitCode {
    init_logging();
    let home = match Home::resolve(home_argument(std::env::args_os()).as_deref()) {
        Ok(home) => home,
        Err(error) => {
            eprintln!("error: {error:#}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let port = std::env::var("MCP_SIEVE_APP_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(DEFAULT_PORT);
    // `--state URL` (or MCP_SIEVE_STATE, or settings.state): a team's
    // database instead of this machine's files.
    let state_url = string_argument(std::env::args_os(), "--state")
        .or_else(|| std::env::var("MCP_SIEVE_STATE").ok());
    let store = match Store::open(home, state_url.as_deref()) {
        Ok(store) => store,
        Err(error) => {
            eprintln!("error: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let state = match tauri::async_runtime::block_on(start_store(store, port)) {
        Ok(state) => AppState {
            host_home: folder_argument(std::env::args_os(), "--host-home"),
            ..state
        },
        Err(error) => {
            eprintln!("error: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    tracing::info!(
        "the app's proxy serves {} (and {}/p/NAME)",
        state.http_url,
        state.http_url
    );
    // The single-instance plugin first: a second launch only focuses us.
    let builder = tauri::Builder::default()
        .plugin(tauri_plugin_single_instance::init(|app, _args, _cwd| {
            tray::show_window(app);
        }))
        .on_window_event(tray::on_window_event);
    let app = build(builder, state, |app| {
        // Desktops without a tray still get the window.
        if let Err(error) = tray::install(app) {
            tracing::warn!("no tray icon: {error}");
        }
    })
    .build(tauri::generate_context!());
    match app {
        Ok(app) => {
            app.run(|handle, event| {
                if let tauri::RunEvent::Exit = event {
                    let state = handle.state::<AppState>();
                    state.stop.cancel();
                    tauri::async_runtime::block_on(state.engine.shutdown());
                }
            });
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: the window could not be opened: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Logs to stderr; `MCP_SIEVE_LOG` sets the filter as for `mcp-sieve`.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("MCP_SIEVE_LOG")
        .unwrap_or_else(|_| {
            tracing_subscriber::EnvFilter::new(format!("{},sieve_app=info", sieve_api::DEFAULT_LOG))
        })
        .add_directive(sieve_api::LOG_FLOOR.parse().expect("a valid directive"));
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_comes_from_either_spelling() {
        let args = |list: &[&str]| list.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            home_argument(args(&["app", "--home", "/h"])),
            Some(PathBuf::from("/h"))
        );
        assert_eq!(
            home_argument(args(&["app", "--home=/h"])),
            Some(PathBuf::from("/h"))
        );
        assert_eq!(home_argument(args(&["app"])), None);
    }
}
