//! Server rows: what each upstream is, how it is doing, never its secrets.

use super::catalog::SETTLE;
use super::{ApiError, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use sieve_core::{Config, ServerConfig, Transport};
use sieve_gateway::engine::{BUILTIN_SERVER, Engine, State, Status};
use sieve_store::hosts::HostKind;
use sieve_store::import::{ImportError, ImportReport};
use sieve_store::store::Store;
use std::collections::BTreeMap;
use std::path::Path;

/// One server as the command line and the app show it: what it is, and
/// its [`Status`] (state, error, protocol, counts). Environment and header
/// values are secrets: only their names are here.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerRow {
    pub name: String,
    /// `stdio`, `http`, or `builtin` (the demo server standing in for an
    /// empty config).
    pub transport: &'static str,
    /// The command line, or the URL.
    pub target: String,
    pub enabled: bool,
    #[serde(flatten)]
    pub status: Status,
    /// Names of the environment variables set for a stdio server.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    /// Names of the headers sent to an HTTP server.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<String>,
    /// The registry entry it was added from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<sieve_core::Origin>,
    /// A newer version its registry has published (see
    /// `registry::with_newer_versions`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub newer_version: Option<String>,
}

/// The rows of every server of `config` (the built-in demo when it lists
/// none), with the live state of those in `statuses`.
pub fn rows(config: &Config, statuses: &BTreeMap<String, Status>) -> Vec<ServerRow> {
    if config.mcp_servers.is_empty() {
        return vec![ServerRow {
            name: BUILTIN_SERVER.into(),
            transport: "builtin",
            target: "the built-in demo server".into(),
            enabled: true,
            status: statuses
                .get(BUILTIN_SERVER)
                .cloned()
                .unwrap_or_else(|| Status::new(State::Stopped)),
            env: Vec::new(),
            headers: Vec::new(),
            origin: None,
            newer_version: None,
        }];
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
                    // As a shell reads it back, so it can be copied.
                    std::iter::once(command)
                        .chain(args)
                        .map(|word| sieve_core::registry::shell_word(word))
                        .collect::<Vec<_>>()
                        .join(" "),
                    env.keys().cloned().collect(),
                    Vec::new(),
                ),
                Transport::Http { url, headers, .. } => (
                    "http",
                    url.clone(),
                    Vec::new(),
                    headers.keys().cloned().collect(),
                ),
            };
            let status = match statuses.get(name) {
                _ if server.disabled => Status::new(State::Disabled),
                Some(status) => status.clone(),
                None => Status::new(State::Stopped),
            };
            ServerRow {
                name: name.clone(),
                transport,
                target,
                enabled: !server.disabled,
                status,
                env,
                headers,
                origin: server.origin.clone(),
                newer_version: None,
            }
        })
        .collect()
}

/// Connects to every server once, reads their rows, and stops them.
pub async fn probe(store: &Store) -> Result<Vec<ServerRow>> {
    let config = store.load_config()?;
    let engine = Engine::start(store.clone())?;
    engine.settled(SETTLE).await;
    let statuses = engine.statuses();
    engine.shutdown().await;
    Ok(rows(&config, &statuses))
}

/// The rows of a running engine's servers (the app's view, live).
pub fn of_engine(engine: &Engine) -> Vec<ServerRow> {
    rows(&engine.config(), &engine.statuses())
}

/// A server a person adds: a command to start, or a URL to reach.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(
    tag = "transport",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum NewServer {
    Stdio {
        name: String,
        command: String,
        #[serde(default)]
        args: Vec<String>,
        #[serde(default)]
        env: BTreeMap<String, String>,
    },
    Http {
        name: String,
        url: String,
        #[serde(default)]
        headers: BTreeMap<String, String>,
        /// How to sign in to it, as `"oauth"` in `config.json`.
        #[serde(default)]
        oauth: Option<sieve_core::OAuthClient>,
    },
}

/// What the command line says of a server to add: its name, then an HTTP
/// server's `--url` or a command (with its arguments) that speaks MCP on
/// stdio, `--env KEY=VALUE` for a command, `--header 'Name: value'` for a
/// URL.
#[derive(Debug, Default)]
pub struct ServerArgs<'a> {
    pub name: &'a str,
    pub url: Option<&'a str>,
    pub command: &'a [String],
    pub env: &'a [String],
    pub headers: &'a [String],
    pub oauth: Option<sieve_core::OAuthClient>,
}

impl ServerArgs<'_> {
    /// The server these arguments describe, or the one sentence that says
    /// which argument is wrong and how to write it.
    pub fn new_server(&self) -> Result<NewServer> {
        let name = self.name.to_string();
        match (self.url, self.command.split_first()) {
            (Some(_), Some(_)) => Err(ApiError::invalid(
                "url",
                "give either --url or a command after --, not both",
            )),
            (None, None) => Err(ApiError::invalid(
                "command",
                "give the command that starts the server after -- (for example: \
                 -- npx -y @modelcontextprotocol/server-memory), or an HTTP server's --url",
            )),
            (Some(url), None) => {
                if !self.env.is_empty() {
                    return Err(ApiError::invalid(
                        "env",
                        "--env is for a server started by a command; an HTTP server takes --header",
                    ));
                }
                Ok(NewServer::Http {
                    name,
                    url: url.to_string(),
                    headers: parse_headers(self.headers)?,
                    oauth: self.oauth.clone(),
                })
            }
            (None, Some((command, args))) => {
                if !self.headers.is_empty() || self.oauth.is_some() {
                    return Err(ApiError::invalid(
                        "header",
                        "--header and sign-in options are for an HTTP server (--url); a command's server takes --env",
                    ));
                }
                Ok(NewServer::Stdio {
                    name,
                    command: command.clone(),
                    args: args.to_vec(),
                    env: parse_env(self.env)?,
                })
            }
        }
    }
}

/// `KEY=VALUE` pairs, as `--env` gives them.
fn parse_env(pairs: &[String]) -> Result<BTreeMap<String, String>> {
    let mut env = BTreeMap::new();
    for pair in pairs {
        let Some((key, value)) = pair
            .split_once('=')
            .filter(|(key, _)| !key.trim().is_empty())
        else {
            return Err(ApiError::invalid(
                "env",
                format!("--env {pair:?} is not a variable; write it as KEY=VALUE"),
            ));
        };
        env.insert(key.trim().to_string(), value.to_string());
    }
    Ok(env)
}

/// `Name: value` headers, as `--header` gives them.
pub fn parse_headers(headers: &[String]) -> Result<BTreeMap<String, String>> {
    let mut parsed = BTreeMap::new();
    for header in headers {
        let Some((name, value)) = header.split_once(':') else {
            return Err(ApiError::invalid(
                "header",
                format!("header {header:?} has no colon; write it as 'Name: value'"),
            ));
        };
        let name = name.trim();
        if name.is_empty() {
            return Err(ApiError::invalid(
                "header",
                format!("header {header:?} has no name; write it as 'Name: value'"),
            ));
        }
        parsed.insert(name.to_string(), value.trim().to_string());
    }
    Ok(parsed)
}

/// Adds a server to `config.json`; a running proxy starts it live.
/// Returns the key it was added under: the name given when that is a key,
/// else a short one made from it (see [`new_key`]).
pub fn add(store: &Store, server: NewServer) -> Result<String> {
    let (name, transport) = match server {
        NewServer::Stdio {
            name,
            command,
            args,
            env,
        } => {
            if command.trim().is_empty() {
                return Err(ApiError::invalid(
                    "command",
                    "give the command that starts the server",
                ));
            }
            let transport = Transport::Stdio {
                command,
                args,
                env,
                cwd: None,
            };
            (name, transport)
        }
        NewServer::Http {
            name,
            url,
            headers,
            oauth,
        } => {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(ApiError::invalid(
                    "url",
                    format!("{url:?} is not an http:// or https:// URL"),
                ));
            }
            // An empty section says nothing: left out.
            let oauth = oauth.filter(|o| *o != sieve_core::OAuthClient::default());
            if let Some(oauth) = &oauth {
                oauth
                    .check()
                    .map_err(|why| ApiError::invalid("oauth", why))?;
            }
            (
                name,
                Transport::Http {
                    url,
                    headers,
                    oauth,
                },
            )
        }
    };
    store.update_config(|config| {
        let key = new_key(config, &name)?;
        let server = ServerConfig {
            transport,
            disabled: false,
            roots: Default::default(),
            origin: None,
        };
        config.mcp_servers.insert(key.clone(), server);
        Ok(key)
    })
}

/// The key in `config` of a new server a person calls `name`, as import
/// gives one ([`sieve_store::import::server_key`]): a name that is a key
/// already is kept, and refused when `config` has it; any other name gets
/// a short key, with `-2`, `-3`, ... when that is taken, so an entry is
/// never replaced.
pub(super) fn new_key(config: &Config, name: &str) -> Result<String> {
    let name = name.trim();
    if name.is_empty() {
        return Err(ApiError::invalid("name", "give the server a name"));
    }
    let taken = |key: &str| config.mcp_servers.contains_key(key);
    let key = sieve_store::import::server_key(name);
    if key == name {
        if taken(name) {
            return Err(name_taken(name));
        }
        return Ok(key);
    }
    Ok(sieve_core::naming::unique_key(&key, &taken))
}

/// Removes server `name` from `config.json`.
pub fn remove(store: &Store, name: &str) -> Result<()> {
    store.update_config(|config| {
        config
            .mcp_servers
            .remove(name)
            .map(|_| ())
            .ok_or_else(|| no_server(name))
    })
}

/// Enables or disables server `name`; a disabled one stays in the file
/// but is not started.
pub fn set_enabled(store: &Store, name: &str, enabled: bool) -> Result<()> {
    store.update_config(|config| {
        let server = config
            .mcp_servers
            .get_mut(name)
            .ok_or_else(|| no_server(name))?;
        server.disabled = !enabled;
        Ok(())
    })
}

/// The error for a server `config.json` does not have.
pub(super) fn no_server(name: &str) -> ApiError {
    ApiError::new(
        ErrorCode::NotFound,
        format!(
            "there is no server {name:?} in config.json; `mcp-sieve servers list` shows the servers"
        ),
    )
}

/// The error for a new server whose name `config.json` has already.
pub(super) fn name_taken(name: &str) -> ApiError {
    ApiError {
        field: Some("name".into()),
        ..ApiError::new(
            ErrorCode::Exists,
            format!("there is a server {name:?} already; pick another name"),
        )
    }
}

/// What importing `host`'s servers would add, rename and skip; nothing is
/// written.
pub fn import_preview(store: &Store, host: HostKind, path: Option<&Path>) -> Result<ImportReport> {
    Ok(sieve_store::import::plan(store, host, path)?.1)
}

/// Adds `host`'s servers to `config.json` (entries there are never
/// changed).
pub fn import(store: &Store, host: HostKind, path: Option<&Path>) -> Result<ImportReport> {
    Ok(sieve_store::import::import(store, host, path)?)
}

impl From<ImportError> for ApiError {
    fn from(error: ImportError) -> ApiError {
        let code = match error {
            ImportError::Store(error) => return ApiError::from(error),
            ImportError::NotFound { .. } => ErrorCode::NotFound,
            ImportError::Syntax { .. }
            | ImportError::Shape { .. }
            | ImportError::UserConfig { .. } => ErrorCode::BrokenFile,
            _ => ErrorCode::Io,
        };
        let message = match &error {
            ImportError::Read { source, .. } => format!("{error}: {source}"),
            _ => error.to_string(),
        };
        ApiError::new(code, message)
    }
}
