//! The Connect screen: every AI host with where it stands, routing one or
//! all of them through MCP Sieve and giving them back, and the exact
//! entry for a host the person connects by hand.

use super::Result;
use crate::AppState;
use serde::Deserialize;
use sieve_api::hosts::{
    self, Connection, HostKind, HostWrite, RouteOptions, RouteReport, Routed, UnrouteReport, Via,
};
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

/// How routed hosts reach MCP Sieve: stdio, or the app's proxy (stdio
/// for the hosts that take nothing else).
fn via(state: &AppState, transport: Transport) -> Via {
    let stdio = Via::Stdio {
        command: state.sieve_binary.clone(),
        home: state.store.home().explicit().map(PathBuf::from),
    };
    match transport {
        Transport::Stdio => stdio,
        Transport::Http => Via::Http {
            base: state.http_url.clone(),
            token: state.token.clone(),
            fallback: Some(Box::new(stdio)),
        },
    }
}

#[tauri::command]
pub fn host_snippet(
    state: State<'_, AppState>,
    host: HostKind,
    transport: Transport,
    profile: String,
) -> Result<String> {
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
        None => hosts::dirs(state.host_home.as_deref()).map(|dirs| host.user_path(&dirs))?,
    };
    hosts::write(host, &path, &connection(&state, transport, &profile))
}

#[tauri::command]
pub fn hosts_list(state: State<'_, AppState>) -> Result<Vec<hosts::HostListing>> {
    Ok(hosts::listing(&hosts::dirs(state.host_home.as_deref())?))
}

#[tauri::command]
pub fn host_route(
    state: State<'_, AppState>,
    host: HostKind,
    transport: Transport,
    profile: Option<String>,
    keep_secrets: bool,
) -> Result<RouteReport> {
    let options = RouteOptions {
        profile,
        via: via(&state, transport),
        keep_secrets,
    };
    hosts::route(
        &state.store,
        &hosts::dirs(state.host_home.as_deref())?,
        host,
        &options,
    )
}

#[tauri::command]
pub fn hosts_route_all(
    state: State<'_, AppState>,
    transport: Transport,
    keep_secrets: bool,
) -> Result<Vec<Routed>> {
    let options = RouteOptions {
        profile: None,
        via: via(&state, transport),
        keep_secrets,
    };
    Ok(hosts::route_all(
        &state.store,
        &hosts::dirs(state.host_home.as_deref())?,
        &options,
    ))
}

#[tauri::command]
pub fn host_unroute(state: State<'_, AppState>, host: HostKind) -> Result<UnrouteReport> {
    hosts::unroute(
        &state.store,
        &hosts::dirs(state.host_home.as_deref())?,
        host,
    )
}
