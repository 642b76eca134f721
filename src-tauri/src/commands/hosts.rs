//! The "Connect a host" screen.

use super::Result;
use crate::AppState;
use serde::Deserialize;
use serde_json::Value;
use sieve_api::hosts::{self, Connection, HostKind, HostWrite};
use std::path::PathBuf;
use tauri::State;

/// How the host should reach MCP Sieve.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Transport {
    /// The host starts `mcp-sieve serve --profile NAME`.
    Stdio,
    /// The host connects to the app's proxy.
    Http,
}

/// The connection for `transport` and `profile`, from what the app runs.
fn connection(state: &AppState, transport: Transport, profile: &str) -> Connection {
    match transport {
        Transport::Stdio => Connection::Stdio {
            command: state.sieve_binary.clone(),
            profile: profile.to_string(),
            home: state.store.home().explicit().map(PathBuf::from),
        },
        Transport::Http => Connection::Http {
            url: hosts::profile_url(&state.http_url, profile),
            token: state.token.clone(),
        },
    }
}

#[tauri::command]
pub fn host_snippet(
    state: State<'_, AppState>,
    host: HostKind,
    transport: Transport,
    profile: String,
) -> Result<Value> {
    hosts::snippet(host, &connection(&state, transport, &profile))
}

#[tauri::command]
pub fn host_write(
    state: State<'_, AppState>,
    host: HostKind,
    transport: Transport,
    profile: String,
    path: Option<PathBuf>,
) -> Result<HostWrite> {
    let path = match path {
        Some(path) => path,
        None => hosts::default_path(host)?,
    };
    hosts::write(host, &path, &connection(&state, transport, &profile))
}
