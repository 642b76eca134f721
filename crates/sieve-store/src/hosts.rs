//! Connecting a host: the exact entry Claude Desktop, Cursor or VS Code
//! needs to reach MCP Sieve, and a writer that puts it into the host's file.
//!
//! The writer edits the file's syntax tree, so the user's comments, order
//! and other servers stay as they were; the old file is kept as `.bak`
//! first; a file that does not parse is left alone; an entry that is
//! already there as it should be is not written again.

pub use crate::import::HostKind;
use crate::store::{StoreError, atomic_write, backup_path};
use jsonc_parser::cst::{CstInputValue, CstRootNode};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// What can go wrong with a host's entry or file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostFileError {
    /// The stdio entry names `mcp-sieve` by a relative path.
    #[error(
        "{} is not an absolute path; hosts start servers from their own folder, so give the full path of mcp-sieve",
        command.display()
    )]
    NotAbsolute { command: PathBuf },
    /// An HTTP entry for a host that reads only stdio entries.
    #[error(
        "Claude Desktop starts its local servers itself and does not read HTTP entries from its config file; use the stdio entry"
    )]
    StdioOnly,
    #[error("cannot find your home folder; name the host's file")]
    NoHome,
    #[error("cannot tell where {host} keeps its config; name the file")]
    UnknownPath { host: &'static str },
    #[error("cannot read {}: {cause}", path.display())]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
    /// The host's file does not parse; it is left as it is.
    #[error(
        "{} does not parse ({reason}), so it was left as it is; fix it in {host}, then try again",
        path.display()
    )]
    Broken {
        path: PathBuf,
        reason: String,
        host: &'static str,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl HostFileError {
    /// The field of the caller's request at fault, where one is.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            HostFileError::NotAbsolute { .. } => Some("command"),
            HostFileError::StdioOnly => Some("transport"),
            _ => None,
        }
    }
}

type Result<T, E = HostFileError> = std::result::Result<T, E>;

/// The name of MCP Sieve's entry in a host's server list.
pub const ENTRY: &str = "sieve";

/// How a host reaches MCP Sieve.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "transport", rename_all = "camelCase")]
pub enum Connection {
    /// The host starts `COMMAND [--home HOME] serve --profile PROFILE`.
    Stdio {
        /// The absolute path of `mcp-sieve`.
        command: PathBuf,
        profile: String,
        /// Set when the user's files are not in the platform's folders,
        /// so the host's proxy reads the same ones.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        home: Option<PathBuf>,
    },
    /// The host connects to a running HTTP proxy with its bearer token.
    Http { url: String, token: String },
}

/// The endpoint of `profile` on an HTTP proxy whose base endpoint is
/// `base` (`http://127.0.0.1:8765/mcp`): always `/mcp/p/NAME`, since `/mcp`
/// serves whichever profile is active and a host's entry names its own.
pub fn profile_url(base: &str, profile: &str) -> String {
    format!("{}/p/{profile}", base.trim_end_matches('/'))
}

/// The key of the server list in `host`'s file.
fn servers_key(host: HostKind) -> &'static str {
    match host {
        HostKind::VsCode => "servers",
        HostKind::ClaudeDesktop | HostKind::Cursor => "mcpServers",
    }
}

/// MCP Sieve's entry for `host`, as it goes under the server list.
pub fn entry(host: HostKind, connection: &Connection) -> Result<Value> {
    let mut entry = match connection {
        Connection::Stdio {
            command,
            profile,
            home,
        } => {
            if !command.is_absolute() {
                return Err(HostFileError::NotAbsolute {
                    command: command.clone(),
                });
            }
            let mut args = Vec::new();
            if let Some(home) = home {
                args.extend([json!("--home"), json!(home)]);
            }
            args.extend([json!("serve"), json!("--profile"), json!(profile)]);
            json!({"command": command, "args": args})
        }
        Connection::Http { url, token } => {
            if host == HostKind::ClaudeDesktop {
                return Err(HostFileError::StdioOnly);
            }
            json!({"url": url, "headers": {"Authorization": format!("Bearer {token}")}})
        }
    };
    if host == HostKind::VsCode {
        // VS Code wants the kind first; JSON objects here keep their order.
        let kind = match connection {
            Connection::Stdio { .. } => "stdio",
            Connection::Http { .. } => "http",
        };
        let mut typed = serde_json::Map::new();
        typed.insert("type".into(), json!(kind));
        typed.extend(
            entry
                .as_object_mut()
                .map(std::mem::take)
                .unwrap_or_default(),
        );
        entry = Value::Object(typed);
    }
    Ok(entry)
}

/// The snippet a person pastes into `host`'s file: the server list with
/// MCP Sieve's entry in it.
pub fn snippet(host: HostKind, connection: &Connection) -> Result<Value> {
    Ok(json!({ servers_key(host): { ENTRY: entry(host, connection)? } }))
}

/// Where `host` keeps its config file for this user (Claude Desktop's
/// and VS Code's in the platform's config folder, Cursor's in the home
/// folder).
pub fn default_path(host: HostKind) -> Result<PathBuf> {
    let dirs = crate::import::HostDirs::current().map_err(|_| HostFileError::NoHome)?;
    host.default_paths(&dirs)
        .into_iter()
        .next()
        .ok_or(HostFileError::UnknownPath { host: host.title() })
}

/// What [`write()`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostWrite {
    pub path: PathBuf,
    /// The previous file, when there was one and it changed.
    pub backup: Option<PathBuf>,
    /// False when the entry was there already, exactly so.
    pub changed: bool,
}

/// Puts MCP Sieve's entry into `host`'s file at `path` (made when
/// missing), replacing an older `sieve` entry and keeping everything else.
pub fn write(host: HostKind, path: &Path, connection: &Connection) -> Result<HostWrite> {
    let wanted = entry(host, connection)?;
    let text = match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(cause) => {
            return Err(HostFileError::Read {
                path: path.to_path_buf(),
                cause,
            });
        }
    };
    let source = text.as_deref().unwrap_or("{}");
    let broken = |reason: String| HostFileError::Broken {
        path: path.to_path_buf(),
        reason,
        host: host.title(),
    };
    let options = crate::import::jsonc_options();
    let current: Value = jsonc_parser::parse_to_serde_value(source, &options)
        .map_err(|error| broken(error.to_string()))?;
    if !current.is_object() {
        return Err(broken("it is not a JSON object".into()));
    }
    let key = servers_key(host);
    if current[key][ENTRY] == wanted {
        return Ok(HostWrite {
            path: path.to_path_buf(),
            backup: None,
            changed: false,
        });
    }
    if !current[key].is_null() && !current[key].is_object() {
        return Err(broken(format!("its {key:?} is not an object")));
    }
    let root = CstRootNode::parse(source, &options).map_err(|error| broken(error.to_string()))?;
    let servers = root.object_value_or_set().object_value_or_set(key);
    match servers.get(ENTRY) {
        Some(old) => old.set_value(cst_value(&wanted)),
        None => {
            servers.append(ENTRY, cst_value(&wanted));
        }
    }
    let mut written = root.to_string();
    if !written.ends_with('\n') {
        written.push('\n');
    }
    atomic_write(path, written.as_bytes())?;
    Ok(HostWrite {
        path: path.to_path_buf(),
        backup: text.map(|_| backup_path(path)),
        changed: true,
    })
}

fn cst_value(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(cst_value).collect()),
        Value::Object(map) => CstInputValue::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), cst_value(value)))
                .collect(),
        ),
    }
}
