//! A server entry of `config.json`: how the proxy reaches it (a command or
//! an HTTP endpoint) and the roots it is told. The file shape is Claude
//! Desktop's, and its variants from Cursor and VS Code read too.

use super::oauth::{OAuthClient, OAuthClientError};
use crate::secret_ref::SecretRefError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// One upstream server.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawServer", into = "RawServer")]
pub struct ServerConfig {
    /// How to reach it.
    pub transport: Transport,
    /// A disabled server stays in the file but is not started.
    pub disabled: bool,
    /// What the server is told when it asks for roots.
    pub roots: Roots,
    /// The registry entry it was added from, where it was.
    pub origin: Option<Origin>,
}

/// Where a server added from an MCP registry came from: `"origin"` in its
/// entry, so a newer version published there can be announced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Origin {
    /// The registry's base URL.
    pub registry: String,
    /// The server's name there, e.g. `io.github.upstash/context7`.
    pub name: String,
    /// The version added.
    pub version: String,
}

/// What an upstream is told when it asks the proxy for its roots
/// (`roots/list`). One upstream connection serves every host, so by default
/// the answer comes from `config.json` alone: the same from the first
/// request on, whichever host is connected or was connected when the server
/// (re)started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Roots {
    /// These folders (absolute paths or `file://` URIs, as written), or
    /// none: `"roots": [...]`, and the default.
    Listed(Vec<String>),
    /// The user opted in to hosts' roots (`"roots": "host"`): those of the
    /// host whose call the server is serving, else of the most recent host
    /// whose profile shows this server; none while there is no such host.
    Host,
}

impl Default for Roots {
    fn default() -> Self {
        Roots::Listed(Vec::new())
    }
}

/// One root as the protocol carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// The folder's own name, for people.
    pub name: Option<String>,
}

/// Characters a path keeps in a `file://` URI: the unreserved ones and `/`.
const PATH_KEEPS: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'/')
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

impl Roots {
    /// The roots a `Listed` setting answers with (none for `Host`).
    pub fn listed(&self) -> Vec<Root> {
        match self {
            Roots::Listed(entries) => entries
                .iter()
                .filter_map(|entry| root_of(entry).ok())
                .collect(),
            Roots::Host => Vec::new(),
        }
    }

    fn from_value(value: serde_json::Value) -> Result<Roots, RootsError> {
        match value {
            serde_json::Value::String(word) if word == "host" => Ok(Roots::Host),
            serde_json::Value::Array(items) => {
                let mut entries = Vec::with_capacity(items.len());
                for item in items {
                    let serde_json::Value::String(entry) = item else {
                        return Err(RootsError::Shape);
                    };
                    root_of(&entry)?;
                    entries.push(entry);
                }
                Ok(Roots::Listed(entries))
            }
            _ => Err(RootsError::Shape),
        }
    }

    fn to_value(&self) -> Option<serde_json::Value> {
        match self {
            Roots::Listed(entries) if entries.is_empty() => None,
            Roots::Listed(entries) => Some(serde_json::json!(entries)),
            Roots::Host => Some(serde_json::json!("host")),
        }
    }
}

/// A `"roots"` setting that names no local folders.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RootsError {
    /// Neither a list of strings nor `"host"`.
    #[error(
        "\"roots\" is a list of folders (absolute paths or file:// URIs) \
         the server may use, or \"host\" to pass on the roots of the hosts \
         whose profile shows this server"
    )]
    Shape,
    /// A `file://` URI of another machine.
    #[error(
        "roots: {entry:?} is not a local file:// URI; write it as file:///path or as the path itself"
    )]
    NotLocal { entry: String },
    /// A `file://` URI whose escapes are no UTF-8 path.
    #[error("roots: {entry:?} does not decode to a path")]
    Undecodable { entry: String },
    /// A relative path.
    #[error("roots: {entry:?} is not an absolute path; write the whole path, starting with /")]
    NotAbsolute { entry: String },
}

/// The root an entry of `"roots"` names.
fn root_of(entry: &str) -> Result<Root, RootsError> {
    let path = if let Some(rest) = entry.strip_prefix("file://") {
        if !rest.starts_with('/') {
            return Err(RootsError::NotLocal {
                entry: entry.to_string(),
            });
        }
        percent_encoding::percent_decode_str(rest)
            .decode_utf8()
            .map_err(|_| RootsError::Undecodable {
                entry: entry.to_string(),
            })?
            .into_owned()
    } else if entry.starts_with('/') {
        entry.to_string()
    } else {
        return Err(RootsError::NotAbsolute {
            entry: entry.to_string(),
        });
    };
    let trimmed = if path.len() > 1 {
        path.trim_end_matches('/')
    } else {
        &path
    };
    let name = std::path::Path::new(trimmed)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    Ok(Root {
        uri: format!(
            "file://{}",
            percent_encoding::utf8_percent_encode(trimmed, PATH_KEEPS)
        ),
        name,
    })
}

/// How the proxy reaches an upstream server.
#[derive(Clone, PartialEq)]
pub enum Transport {
    /// A child process speaking MCP on stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<String>,
    },
    /// A streamable HTTP endpoint.
    Http {
        url: String,
        headers: BTreeMap<String, String>,
        /// A client registered with the server's authorization server ahead
        /// of time, for servers that offer no dynamic registration.
        oauth: Option<OAuthClient>,
    },
}

// Environment and header values are secrets (tokens, keys): Debug shows
// their names only, so a logged config never leaks them.
impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", args)
                .field("env", &env.keys().collect::<Vec<_>>())
                .field("cwd", cwd)
                .finish(),
            Transport::Http {
                url,
                headers,
                oauth,
            } => f
                .debug_struct("Http")
                .field("url", url)
                .field("headers", &headers.keys().collect::<Vec<_>>())
                .field("oauth", oauth)
                .finish(),
        }
    }
}

impl fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerConfig")
            .field("transport", &self.transport)
            .field("disabled", &self.disabled)
            .field("roots", &self.roots)
            .field("origin", &self.origin)
            .finish()
    }
}

/// The file shape of a server entry (Claude Desktop, Cursor and VS Code
/// all write a variant of it). Unknown keys such as `autoApprove` are kept
/// out of our model but do not fail the load.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawServer {
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    command: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    args: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    url: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    headers: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    disabled: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    roots: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    oauth: Option<OAuthClient>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    origin: Option<Origin>,
}

/// A server entry of `config.json` that cannot be used, said with what
/// to do. (Its place in the file is the [`crate::ParseError`]'s.)
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ServerEntryError {
    /// An `env` or `headers` value with a `${secret:...}` that is not well
    /// formed (only its key is named: the value may be a secret).
    #[error("{section} {key:?}: {error}")]
    SecretRef {
        section: &'static str,
        key: String,
        error: SecretRefError,
    },
    #[error("\"oauth\" is for HTTP servers; remove it from this one")]
    OAuthOnStdio,
    #[error("\"command\" is empty: name the program to start")]
    EmptyCommand,
    #[error("\"url\" {url:?} is not an http:// or https:// address")]
    NotHttp { url: String },
    #[error(transparent)]
    OAuth(#[from] OAuthClientError),
    #[error(
        "\"type\": \"sse\" (the old HTTP+SSE transport) is not supported; \
         use the server's streamable HTTP endpoint with \"type\": \"http\""
    )]
    Sse,
    #[error("unknown \"type\" {kind:?}; expected \"stdio\" or \"http\"")]
    UnknownType { kind: String },
    #[error("has both \"command\" and \"url\"; keep one")]
    CommandAndUrl,
    #[error("\"type\": \"stdio\" needs a \"command\"")]
    StdioWithoutCommand,
    #[error(
        "needs \"command\" (a program to start) or \"url\" \
         (a streamable HTTP endpoint)"
    )]
    NoCommandOrUrl,
    #[error("\"type\" does not match \"command\"/\"url\"")]
    TypeMismatch,
    #[error(transparent)]
    Roots(#[from] RootsError),
}

impl TryFrom<RawServer> for ServerConfig {
    type Error = ServerEntryError;

    fn try_from(raw: RawServer) -> Result<Self, ServerEntryError> {
        // `${secret:NAME}` references must be well formed (the value
        // itself may be a secret: only its key is named).
        for (section, map) in [("env", &raw.env), ("headers", &raw.headers)] {
            for (key, value) in map {
                crate::secret_ref::references(value).map_err(|error| {
                    ServerEntryError::SecretRef {
                        section,
                        key: key.clone(),
                        error,
                    }
                })?;
            }
        }
        let kind = raw.kind.as_deref();
        let transport = match (kind, raw.command, raw.url) {
            (Some("stdio") | None, Some(command), None) => {
                if raw.oauth.is_some() {
                    return Err(ServerEntryError::OAuthOnStdio);
                }
                if command.trim().is_empty() {
                    return Err(ServerEntryError::EmptyCommand);
                }
                Transport::Stdio {
                    command,
                    args: raw.args,
                    env: raw.env,
                    cwd: raw.cwd,
                }
            }
            (Some("http" | "streamable-http" | "streamableHttp") | None, None, Some(url)) => {
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(ServerEntryError::NotHttp { url });
                }
                if let Some(oauth) = &raw.oauth {
                    oauth.check()?;
                }
                Transport::Http {
                    url,
                    headers: raw.headers,
                    oauth: raw.oauth,
                }
            }
            (Some("sse"), _, _) => return Err(ServerEntryError::Sse),
            (Some(other), _, _)
                if !matches!(
                    other,
                    "stdio" | "http" | "streamable-http" | "streamableHttp"
                ) =>
            {
                return Err(ServerEntryError::UnknownType {
                    kind: other.to_string(),
                });
            }
            (_, Some(_), Some(_)) => return Err(ServerEntryError::CommandAndUrl),
            (Some("stdio"), None, _) => return Err(ServerEntryError::StdioWithoutCommand),
            (_, None, None) => return Err(ServerEntryError::NoCommandOrUrl),
            (_, _, _) => return Err(ServerEntryError::TypeMismatch),
        };
        let roots = match raw.roots {
            Some(value) => Roots::from_value(value)?,
            None => Roots::default(),
        };
        Ok(ServerConfig {
            transport,
            disabled: raw.disabled,
            roots,
            origin: raw.origin,
        })
    }
}

impl From<ServerConfig> for RawServer {
    fn from(server: ServerConfig) -> Self {
        let mut raw = RawServer {
            disabled: server.disabled,
            roots: server.roots.to_value(),
            origin: server.origin,
            ..RawServer::default()
        };
        match server.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                raw.command = Some(command);
                raw.args = args;
                raw.env = env;
                raw.cwd = cwd;
            }
            Transport::Http {
                url,
                headers,
                oauth,
            } => {
                raw.kind = Some("http".into());
                raw.url = Some(url);
                raw.headers = headers;
                raw.oauth = oauth;
            }
        }
        raw
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::config::tests::error_of;

    #[test]
    fn roots_are_folders_or_the_hosts_own() {
        let config = Config::parse(
            "config.json",
            r#"{"mcpServers": {
                "files": {"command": "x", "roots": ["/home/me/My Notes/", "file:///srv/data%20set"]},
                "open":  {"command": "x", "roots": "host"},
                "plain": {"command": "x"}
            }}"#,
        )
        .unwrap();
        let files = &config.mcp_servers["files"].roots;
        assert_eq!(
            files.listed(),
            [
                Root {
                    uri: "file:///home/me/My%20Notes".into(),
                    name: Some("My Notes".into())
                },
                Root {
                    uri: "file:///srv/data%20set".into(),
                    name: Some("data set".into())
                },
            ]
        );
        assert_eq!(config.mcp_servers["open"].roots, Roots::Host);
        assert_eq!(config.mcp_servers["plain"].roots, Roots::Listed(vec![]));
        // What was written is written back; no roots, no key.
        let text = serde_json::to_string(&config).unwrap();
        assert!(
            text.contains(r#""roots":["/home/me/My Notes/","file:///srv/data%20set"]"#),
            "{text}"
        );
        assert!(text.contains(r#""roots":"host""#), "{text}");
        assert_eq!(text.matches("roots").count(), 2, "{text}");
        assert_eq!(Config::parse("again", &text).unwrap(), config);
    }

    #[test]
    fn a_root_that_is_no_local_folder_is_refused_by_name() {
        for (roots, says) in [
            (r#"["notes"]"#, "\"notes\" is not an absolute path"),
            (r#"["file://server/share"]"#, "not a local file:// URI"),
            (r#""all""#, "or \"host\""),
            (r#"[1]"#, "list of folders"),
        ] {
            let text =
                format!(r#"{{"mcpServers": {{"files": {{"command": "x", "roots": {roots}}}}}}}"#);
            let error = error_of(&text).to_string();
            assert!(
                error.contains("files") && error.contains(says),
                "{roots}: {error}"
            );
        }
    }

    #[test]
    fn bad_servers_are_explained() {
        let err = error_of(r#"{"mcpServers": {"x": {"args": []}}}"#);
        assert_eq!(err.path, "mcpServers.x");
        assert!(err.expected.contains("needs \"command\""), "{err}");
        let err = error_of(r#"{"mcpServers": {"x": {"command": "a", "url": "http://b"}}}"#);
        assert!(err.expected.contains("both"), "{err}");
        let err = error_of(r#"{"mcpServers": {"x": {"type": "sse", "url": "http://b"}}}"#);
        assert!(err.expected.contains("not supported"), "{err}");
        let err = error_of(r#"{"mcpServers": {"x": {"type": "ws", "url": "http://b"}}}"#);
        assert!(err.expected.contains("unknown \"type\""), "{err}");
        let err = error_of(r#"{"mcpServers": {"x": {"url": "ftp://b"}}}"#);
        assert!(err.expected.contains("not an http"), "{err}");
    }

    #[test]
    fn foreign_keys_in_server_entries_are_tolerated() {
        let text =
            r#"{"mcpServers": {"x": {"command": "a", "autoApprove": ["t"], "disabled": true}}}"#;
        let config = Config::parse("c", text).unwrap();
        assert!(config.mcp_servers["x"].disabled);
        assert_eq!(config.enabled_servers().count(), 0);
    }
}
