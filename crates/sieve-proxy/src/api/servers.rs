//! Server rows: what each upstream is, how it is doing, never its secrets.

use super::Result;
use super::catalog::SETTLE;
use crate::engine::{BUILTIN_SERVER, Engine};
use crate::store::Store;
use crate::upstream::Status;
use serde::Serialize;
use serde_json::Value;
use sieve_core::{Config, Transport};
use std::collections::BTreeMap;

/// One server as the command line and the app show it. Environment and
/// header values are secrets: only their names are here.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerRow {
    pub name: String,
    /// `stdio`, `http`, or `builtin` (the demo server standing in for an
    /// empty config).
    pub transport: &'static str,
    /// The command line, or the URL.
    pub target: String,
    pub enabled: bool,
    /// `connecting`, `up`, `down`, `stopped`, or `disabled`.
    pub state: String,
    /// Why it is down: the connect error, exit status, last stderr line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Value>,
    /// When the state last changed (ms since the Unix epoch); 0 when the
    /// server is not run.
    pub since: i64,
    pub tools: usize,
    pub prompts: usize,
    pub resources: usize,
    /// Names of the environment variables set for a stdio server.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    /// Names of the headers sent to an HTTP server.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<String>,
}

/// The rows of every server of `config` (the built-in demo when it lists
/// none), with the live state of those in `statuses`.
pub fn rows(config: &Config, statuses: &BTreeMap<String, Status>) -> Vec<ServerRow> {
    if config.mcp_servers.is_empty() {
        let row = ServerRow {
            transport: "builtin",
            target: "the built-in demo server".into(),
            ..ServerRow::empty(BUILTIN_SERVER)
        };
        return vec![row.with_status(statuses.get(BUILTIN_SERVER))];
    }
    config
        .mcp_servers
        .iter()
        .map(|(name, server)| {
            let (transport, target, env, headers) = match &server.transport {
                Transport::Stdio {
                    command, args, env, ..
                } => (
                    "stdio",
                    std::iter::once(command.as_str())
                        .chain(args.iter().map(String::as_str))
                        .collect::<Vec<_>>()
                        .join(" "),
                    env.keys().cloned().collect(),
                    Vec::new(),
                ),
                Transport::Http { url, headers } => (
                    "http",
                    url.clone(),
                    Vec::new(),
                    headers.keys().cloned().collect(),
                ),
            };
            let row = ServerRow {
                transport,
                target,
                enabled: !server.disabled,
                env,
                headers,
                ..ServerRow::empty(name)
            };
            if server.disabled {
                ServerRow {
                    state: "disabled".into(),
                    ..row
                }
            } else {
                row.with_status(statuses.get(name))
            }
        })
        .collect()
}

/// Connects to every server once, reads their rows, and stops them.
pub async fn probe(store: &Store) -> Result<Vec<ServerRow>> {
    let config = store.load_config()?;
    let engine = Engine::start(store.clone())?;
    engine.pool().settled(SETTLE).await;
    let statuses = engine.pool().statuses();
    engine.shutdown().await;
    Ok(rows(&config, &statuses))
}

/// The rows of a running engine's servers (the app's view, live).
pub fn of_engine(engine: &Engine) -> Vec<ServerRow> {
    rows(&engine.config(), &engine.pool().statuses())
}

impl ServerRow {
    fn empty(name: &str) -> ServerRow {
        ServerRow {
            name: name.to_string(),
            transport: "stdio",
            target: String::new(),
            enabled: true,
            state: "stopped".into(),
            error: None,
            protocol_version: None,
            server_info: None,
            since: 0,
            tools: 0,
            prompts: 0,
            resources: 0,
            env: Vec::new(),
            headers: Vec::new(),
        }
    }

    fn with_status(self, status: Option<&Status>) -> ServerRow {
        let Some(status) = status else { return self };
        ServerRow {
            state: status.state.as_str().to_string(),
            error: status.error.clone(),
            protocol_version: status.protocol_version.clone(),
            server_info: status.server_info.clone(),
            since: status.since,
            tools: status.tools,
            prompts: status.prompts,
            resources: status.resources,
            ..self
        }
    }
}
