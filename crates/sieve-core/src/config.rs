//! `config.json`: upstream servers, concern definitions, overlays, settings.
//!
//! `mcpServers` has the shape of Claude Desktop's file, so a user can paste
//! theirs. Everything is validated when the text is parsed: a config that
//! loads is one the proxy can act on.

use crate::naming::{DEFAULT_SEPARATOR, is_valid_separator};
use crate::parse::{ParseError, decode, error_at};
use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The whole `config.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Config {
    /// Upstream servers by name, in Claude Desktop's shape.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mcp_servers: BTreeMap<String, ServerConfig>,
    /// The concerns a profile or host may set, with their values.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub concerns: Vec<ConcernDef>,
    /// Labels the user adds to primitives by exposed-name glob.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overlays: Vec<Overlay>,
    /// Everything else.
    #[serde(default, skip_serializing_if = "Settings::is_default")]
    pub settings: Settings,
}

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

    fn from_value(value: serde_json::Value) -> Result<Roots, String> {
        const SHAPE: &str = "\"roots\" is a list of folders (absolute paths or file:// URIs) \
                             the server may use, or \"host\" to pass on the roots of the hosts \
                             whose profile shows this server";
        match value {
            serde_json::Value::String(word) if word == "host" => Ok(Roots::Host),
            serde_json::Value::Array(items) => {
                let mut entries = Vec::with_capacity(items.len());
                for item in items {
                    let serde_json::Value::String(entry) = item else {
                        return Err(SHAPE.into());
                    };
                    root_of(&entry)?;
                    entries.push(entry);
                }
                Ok(Roots::Listed(entries))
            }
            _ => Err(SHAPE.into()),
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

/// The root an entry of `"roots"` names.
fn root_of(entry: &str) -> Result<Root, String> {
    let path = if let Some(rest) = entry.strip_prefix("file://") {
        if !rest.starts_with('/') {
            return Err(format!(
                "roots: {entry:?} is not a local file:// URI; write it as file:///path or as the path itself"
            ));
        }
        percent_encoding::percent_decode_str(rest)
            .decode_utf8()
            .map_err(|_| format!("roots: {entry:?} does not decode to a path"))?
            .into_owned()
    } else if entry.starts_with('/') {
        entry.to_string()
    } else {
        return Err(format!(
            "roots: {entry:?} is not an absolute path; write the whole path, starting with /"
        ));
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

/// `"oauth"` of an HTTP server: how MCP Sieve identifies itself when it
/// signs in (`mcp-sieve servers login NAME`) and the scopes to ask for. The
/// client is, in this order: the pre-registered one (`clientId`), the
/// Client ID Metadata Document at `clientMetadataUrl` where the server's
/// authorization server accepts those, else one registered dynamically.
/// Without scopes, those the server asks for. With `"grant":
/// "clientCredentials"` no person signs in: the client's own credentials
/// (`clientSecret`, or `privateKey` for a signed assertion) get the tokens,
/// as a service account does.
#[derive(Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OAuthClient {
    #[serde(default, skip_serializing_if = "Grant::is_authorization_code")]
    pub grant: Grant,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// A `${secret:NAME}` reference, like `env` and `headers` values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    /// The HTTPS address where a Client ID Metadata Document describing
    /// this MCP Sieve is published; it is then the client id itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_metadata_url: Option<String>,
    /// For `clientCredentials`: a `${secret:NAME}` reference to a PEM
    /// private key (RSA or EC, PKCS#8) that signs the client's assertion
    /// (`private_key_jwt`) instead of a client secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_key: Option<String>,
    /// The signature algorithm for `privateKey`: RS256, RS384, RS512, ES256
    /// (the default) or ES384.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signing_algorithm: Option<String>,
}

/// How the tokens of an HTTP server are got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Grant {
    /// A person signs in through the browser (`servers login`).
    #[default]
    AuthorizationCode,
    /// The client's own credentials, with no person (machine to machine).
    ClientCredentials,
}

impl Grant {
    fn is_authorization_code(&self) -> bool {
        *self == Grant::AuthorizationCode
    }
}

/// The signature algorithms a `privateKey` may use.
pub const SIGNING_ALGORITHMS: [&str; 5] = ["RS256", "RS384", "RS512", "ES256", "ES384"];

impl OAuthClient {
    /// The fields that hold secrets, by their names in `config.json`
    /// (`servers secret NAME oauth.<name>` names them so too).
    pub fn secret_fields(&self) -> [(&'static str, Option<&String>); 2] {
        [
            ("clientSecret", self.client_secret.as_ref()),
            ("privateKey", self.private_key.as_ref()),
        ]
    }

    /// [`OAuthClient::secret_fields`], to change.
    pub fn secret_fields_mut(&mut self) -> [(&'static str, &mut Option<String>); 2] {
        [
            ("clientSecret", &mut self.client_secret),
            ("privateKey", &mut self.private_key),
        ]
    }

    /// The combinations that cannot work, each said with what to do.
    pub fn check(&self) -> Result<(), String> {
        for (field, value) in self.secret_fields() {
            if let Some(value) = value {
                crate::secret_ref::references(value)
                    .map_err(|error| format!("oauth \"{field}\": {error}"))?;
            }
        }
        if let Some(address) = &self.client_metadata_url {
            check_client_metadata_url(address)
                .map_err(|error| format!("oauth \"clientMetadataUrl\" {error}"))?;
        }
        if let Some(algorithm) = &self.signing_algorithm
            && !SIGNING_ALGORITHMS.contains(&algorithm.as_str())
        {
            return Err(format!(
                "oauth \"signingAlgorithm\" {algorithm:?} is not one of {}",
                SIGNING_ALGORITHMS.join(", ")
            ));
        }
        match self.grant {
            Grant::AuthorizationCode => {
                if self.private_key.is_some() || self.signing_algorithm.is_some() {
                    return Err("oauth \"privateKey\" and \"signingAlgorithm\" are for \"grant\": \"clientCredentials\"; add that grant or remove them".into());
                }
            }
            Grant::ClientCredentials => {
                if self.client_id.is_none() {
                    return Err("oauth \"grant\": \"clientCredentials\" needs the \"clientId\" the authorization server gave this client".into());
                }
                if self.client_secret.is_some() == self.private_key.is_some() {
                    return Err("oauth \"grant\": \"clientCredentials\" needs either a \"clientSecret\" or a \"privateKey\" (one of the two)".into());
                }
                if self.signing_algorithm.is_some() && self.private_key.is_none() {
                    return Err("oauth \"signingAlgorithm\" is for a \"privateKey\"; remove it or give the key".into());
                }
            }
        }
        Ok(())
    }
}

/// Checks that `url` can be a Client ID Metadata Document's address (and
/// so a client id): an `https` URL with a path, no fragment, no user
/// name or password. The error says what is wrong with it.
pub fn check_client_metadata_url(url: &str) -> Result<(), String> {
    let parsed = url::Url::parse(url).map_err(|e| format!("{url:?} is not a URL ({e})"))?;
    let problem = if parsed.scheme() != "https" {
        Some("must start with https://")
    } else if parsed.path().trim_matches('/').is_empty() {
        Some("needs a path to the document, like https://example.com/mcp-sieve.json")
    } else if parsed.fragment().is_some() {
        Some("must not have a #fragment")
    } else if !parsed.username().is_empty() || parsed.password().is_some() {
        Some("must not hold a user name or password")
    } else {
        None
    };
    match problem {
        Some(problem) => Err(format!("{url:?} {problem}")),
        None => Ok(()),
    }
}

// The client secret is a secret: Debug says whether there is one only.
impl fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthClient")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "…"))
            .field("scopes", &self.scopes)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("grant", &self.grant)
            .field("private_key", &self.private_key.as_ref().map(|_| "…"))
            .field("signing_algorithm", &self.signing_algorithm)
            .finish()
    }
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
}

impl TryFrom<RawServer> for ServerConfig {
    type Error = String;

    fn try_from(raw: RawServer) -> Result<Self, String> {
        // `${secret:NAME}` references must be well formed (the value
        // itself may be a secret: only its key is named).
        for (section, map) in [("env", &raw.env), ("headers", &raw.headers)] {
            for (key, value) in map {
                crate::secret_ref::references(value)
                    .map_err(|error| format!("{section} {key:?}: {error}"))?;
            }
        }
        let kind = raw.kind.as_deref();
        let transport = match (kind, raw.command, raw.url) {
            (Some("stdio") | None, Some(command), None) => {
                if raw.oauth.is_some() {
                    return Err("\"oauth\" is for HTTP servers; remove it from this one".into());
                }
                if command.trim().is_empty() {
                    return Err("\"command\" is empty: name the program to start".into());
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
                    return Err(format!(
                        "\"url\" {url:?} is not an http:// or https:// address"
                    ));
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
            (Some("sse"), _, _) => {
                return Err(
                    "\"type\": \"sse\" (the old HTTP+SSE transport) is not supported; \
                     use the server's streamable HTTP endpoint with \"type\": \"http\""
                        .into(),
                );
            }
            (Some(other), _, _)
                if !matches!(
                    other,
                    "stdio" | "http" | "streamable-http" | "streamableHttp"
                ) =>
            {
                return Err(format!(
                    "unknown \"type\" {other:?}; expected \"stdio\" or \"http\""
                ));
            }
            (_, Some(_), Some(_)) => {
                return Err("has both \"command\" and \"url\"; keep one".into());
            }
            (Some("stdio"), None, _) => {
                return Err("\"type\": \"stdio\" needs a \"command\"".into());
            }
            (_, None, None) => {
                return Err("needs \"command\" (a program to start) or \"url\" \
                     (a streamable HTTP endpoint)"
                    .into());
            }
            (_, _, _) => return Err("\"type\" does not match \"command\"/\"url\"".into()),
        };
        let roots = match raw.roots {
            Some(value) => Roots::from_value(value)?,
            None => Roots::default(),
        };
        Ok(ServerConfig {
            transport,
            disabled: raw.disabled,
            roots,
        })
    }
}

impl From<ServerConfig> for RawServer {
    fn from(server: ServerConfig) -> Self {
        let mut raw = RawServer {
            disabled: server.disabled,
            roots: server.roots.to_value(),
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

/// A concern a profile or host can set, as in the concern proposal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConcernDef {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    pub values: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// Labels added to every primitive whose exposed name matches `match`,
/// and the title and description the host sees instead of the upstream's
/// (DESIGN §9: shorter descriptions save tokens).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Overlay {
    #[serde(rename = "match")]
    pub pattern: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub concerns: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Settings with defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Settings {
    /// Joins server and upstream name in exposed names.
    #[serde(
        default = "default_separator",
        skip_serializing_if = "is_default_separator"
    )]
    pub separator: String,
    /// Days the task ledger keeps finished entries.
    #[serde(
        default = "default_retention",
        skip_serializing_if = "is_default_retention"
    )]
    pub task_retention_days: u32,
    /// Seconds a `tools/call` may take before the proxy cancels it and
    /// records it as cut off (a task is not a call: it may run longer).
    #[serde(
        default = "default_call_timeout",
        skip_serializing_if = "is_default_call_timeout"
    )]
    pub call_timeout_seconds: u64,
    /// The profile of hosts that name none: the HTTP endpoint `/mcp` (the
    /// app's and `mcp-sieve serve --http`'s) and `mcp-sieve serve` without
    /// `--profile`. Switching it reaches connected hosts live.
    #[serde(
        default = "default_active_profile",
        skip_serializing_if = "is_default_active_profile"
    )]
    pub active_profile: String,
    /// The desktop app: closing its window keeps it (and the proxy it
    /// runs for hosts) in the tray rather than quitting.
    #[serde(
        default = "default_close_to_tray",
        skip_serializing_if = "is_default_close_to_tray"
    )]
    pub close_to_tray: bool,
    /// The largest message the proxy takes from a host, in bytes: a
    /// stdio line or an HTTP body. A bigger one is refused with an error
    /// naming this setting rather than buffered.
    #[serde(
        default = "default_max_message_bytes",
        skip_serializing_if = "is_default_max_message_bytes"
    )]
    pub max_message_bytes: u64,
    /// Quarantine of new and changed tools (DESIGN §9): on unless turned
    /// off here.
    #[serde(
        default = "default_quarantine",
        skip_serializing_if = "is_default_quarantine"
    )]
    pub quarantine: bool,
}

fn default_quarantine() -> bool {
    true
}

fn is_default_quarantine(value: &bool) -> bool {
    *value
}

fn default_close_to_tray() -> bool {
    true
}

/// The smallest `settings.maxMessageBytes`: an `initialize` must fit.
pub const MIN_MESSAGE_BYTES: u64 = 4096;

fn default_max_message_bytes() -> u64 {
    16 * 1024 * 1024
}

fn is_default_max_message_bytes(value: &u64) -> bool {
    *value == default_max_message_bytes()
}

// What `config.json` does not say is not written back: only the settings a
// person changed appear in the file.
fn is_default_separator(value: &str) -> bool {
    value == DEFAULT_SEPARATOR
}

fn is_default_retention(value: &u32) -> bool {
    *value == default_retention()
}

fn is_default_call_timeout(value: &u64) -> bool {
    *value == default_call_timeout()
}

fn is_default_active_profile(value: &str) -> bool {
    value == crate::profile::DEFAULT_PROFILE
}

fn is_default_close_to_tray(value: &bool) -> bool {
    *value == default_close_to_tray()
}

fn default_active_profile() -> String {
    crate::profile::DEFAULT_PROFILE.to_string()
}

fn default_call_timeout() -> u64 {
    600
}

fn default_separator() -> String {
    DEFAULT_SEPARATOR.to_string()
}

fn default_retention() -> u32 {
    30
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            separator: default_separator(),
            task_retention_days: default_retention(),
            call_timeout_seconds: default_call_timeout(),
            active_profile: default_active_profile(),
            close_to_tray: default_close_to_tray(),
            max_message_bytes: default_max_message_bytes(),
            quarantine: default_quarantine(),
        }
    }
}

impl Settings {
    fn is_default(&self) -> bool {
        *self == Settings::default()
    }
}

impl Config {
    /// Parses and validates `config.json` text read from `file`.
    pub fn parse(file: &str, text: &str) -> Result<Config, ParseError> {
        let config: Config = decode(file, text)?;
        config.validate(file, text)?;
        Ok(config)
    }

    /// The concern definition called `name`, if declared.
    pub fn concern(&self, name: &str) -> Option<&ConcernDef> {
        self.concerns.iter().find(|c| c.name == name)
    }

    /// Servers that are not disabled, by name.
    pub fn enabled_servers(&self) -> impl Iterator<Item = (&String, &ServerConfig)> {
        self.mcp_servers.iter().filter(|(_, s)| !s.disabled)
    }

    fn validate(&self, file: &str, text: &str) -> Result<(), ParseError> {
        let fail = |path: String, needle: &str, expected: String| {
            Err(error_at(file, text, &path, needle, expected))
        };
        // Numbers are located by their key: the first "0" in the file
        // could be anywhere.
        if self.settings.call_timeout_seconds == 0 {
            return fail(
                "settings.callTimeoutSeconds".into(),
                "callTimeoutSeconds",
                "must be at least 1 (seconds)".into(),
            );
        }
        if self.settings.max_message_bytes < MIN_MESSAGE_BYTES {
            return fail(
                "settings.maxMessageBytes".into(),
                "maxMessageBytes",
                format!("must be at least {MIN_MESSAGE_BYTES} (bytes)"),
            );
        }
        if !is_valid_separator(&self.settings.separator) {
            return fail(
                "settings.separator".into(),
                &self.settings.separator,
                format!(
                    "separator {:?} must be 1-4 of the characters A-Z a-z 0-9 _ . -",
                    self.settings.separator
                ),
            );
        }
        if !crate::profile::is_valid_profile_name(&self.settings.active_profile) {
            return fail(
                "settings.activeProfile".into(),
                &self.settings.active_profile,
                format!(
                    "{:?} cannot name a profile: use 1-64 of the characters A-Z a-z 0-9 _ -",
                    self.settings.active_profile
                ),
            );
        }
        for name in self.mcp_servers.keys() {
            if name.trim().is_empty() {
                return fail("mcpServers".into(), name, "a server name is empty".into());
            }
        }
        for (i, concern) in self.concerns.iter().enumerate() {
            let path = format!("concerns[{i}]");
            if concern.name.trim().is_empty() {
                return fail(path, &concern.name, "concern name is empty".into());
            }
            if self.concerns[..i].iter().any(|c| c.name == concern.name) {
                return fail(
                    path,
                    &concern.name,
                    format!("concern {:?} is declared twice", concern.name),
                );
            }
            if concern.values.is_empty() {
                return fail(
                    format!("{path}.values"),
                    &concern.name,
                    format!("concern {:?} has no values", concern.name),
                );
            }
            for (j, value) in concern.values.iter().enumerate() {
                if concern.values[..j].contains(value) {
                    return fail(
                        format!("{path}.values[{j}]"),
                        value,
                        format!("value {value:?} is listed twice"),
                    );
                }
            }
            if let Some(default) = &concern.default
                && !concern.values.contains(default)
            {
                return fail(
                    format!("{path}.default"),
                    default,
                    format!(
                        "default {default:?} is not one of the values {}",
                        concern.values.join(", ")
                    ),
                );
            }
        }
        for (i, overlay) in self.overlays.iter().enumerate() {
            if let Err(err) = compile_glob(&overlay.pattern) {
                return fail(format!("overlays[{i}].match"), &overlay.pattern, err);
            }
            for (name, value) in &overlay.concerns {
                if let Err(expected) = self.check_concern_value(name, value) {
                    return fail(format!("overlays[{i}].concerns.{name}"), value, expected);
                }
            }
        }
        Ok(())
    }

    /// Checks that `value` is allowed for concern `name` when the concern
    /// is declared; undeclared concerns may carry any value.
    pub fn check_concern_value(&self, name: &str, value: &str) -> Result<(), String> {
        match self.concern(name) {
            Some(def) if !def.values.iter().any(|v| v == value) => Err(format!(
                "{value:?} is not a value of concern {name:?}; expected one of {}",
                def.values.join(", ")
            )),
            _ => Ok(()),
        }
    }
}

/// Compiles one user glob, with a message that names the pattern.
pub fn compile_glob(pattern: &str) -> Result<Glob, String> {
    Glob::new(pattern).map_err(|e| format!("invalid glob {pattern:?}: {}", glob_reason(&e)))
}

fn glob_reason(err: &globset::Error) -> String {
    // globset's Display repeats the pattern; its kind alone is the reason.
    err.kind().to_string()
}

/// Overlays compiled for matching exposed names.
#[derive(Debug, Clone, Default)]
pub struct Overlays {
    compiled: Vec<(GlobSet, Overlay)>,
}

impl Overlays {
    /// Compiles the overlays of a validated config. A pattern that parses
    /// can still be too large to compile (globset's size limits); that is
    /// an error naming it, never a panic (`Glob::compile_matcher` panics).
    pub fn new(overlays: &[Overlay]) -> Result<Overlays, String> {
        let compiled = overlays
            .iter()
            .map(|o| {
                let set = GlobSetBuilder::new()
                    .add(compile_glob(&o.pattern)?)
                    .build()
                    .map_err(|e| {
                        format!(
                            "overlay pattern {:?} cannot be compiled: {}",
                            o.pattern,
                            glob_reason(&e)
                        )
                    })?;
                Ok((set, o.clone()))
            })
            .collect::<Result<_, String>>()?;
        Ok(Overlays { compiled })
    }

    /// The overlays that apply to `exposed_name`, in file order.
    pub fn matching<'a>(&'a self, exposed_name: &'a str) -> impl Iterator<Item = &'a Overlay> {
        self.compiled
            .iter()
            .filter(move |(m, _)| m.is_match(exposed_name))
            .map(|(_, o)| o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DESIGN_EXAMPLE: &str = r#"{
      "mcpServers": {
        "github":     { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": "secret-token"} },
        "everything": { "command": "node", "args": ["server-everything/dist/index.js", "stdio"] },
        "remote":     { "type": "http", "url": "https://example.test/mcp", "headers": {"Authorization": "Bearer secret-header"} }
      },
      "concerns": [
        { "name": "security", "description": "Security level required", "values": ["high", "medium", "low"], "default": "medium" },
        { "name": "cost",     "description": "Cost of running the tool", "values": ["minimal", "moderate", "high"], "default": "moderate" }
      ],
      "overlays": [
        { "match": "github__*delete*", "tags": ["destructive"], "concerns": {"security": "low"} },
        { "match": "github__*issue*",  "groups": ["issues"] }
      ]
    }"#;

    #[test]
    fn an_http_server_may_name_its_oauth_client() {
        let text = r#"{"mcpServers": {"corp": {"type": "http", "url": "https://corp.test/mcp",
            "oauth": {"clientId": "sieve", "clientSecret": "${secret:corp-client}", "scopes": ["read"],
                      "clientMetadataUrl": "https://sieve.test/client.json"}}}}"#;
        let config = Config::parse("config.json", text).expect("valid");
        let Transport::Http { oauth, .. } = &config.mcp_servers["corp"].transport else {
            panic!("an HTTP server");
        };
        let oauth = oauth.as_ref().expect("its oauth is kept");
        assert_eq!(oauth.client_id.as_deref(), Some("sieve"));
        assert_eq!(oauth.scopes, vec!["read".to_string()]);
        assert_eq!(
            oauth.client_metadata_url.as_deref(),
            Some("https://sieve.test/client.json")
        );
        let debug = format!("{:?}", config.mcp_servers["corp"]);
        assert!(!debug.contains("corp-client"), "{debug}");
        let again = serde_json::to_string(&config).unwrap();
        assert_eq!(
            Config::parse("again", &again).unwrap(),
            config,
            "round trip"
        );

        for (text, says) in [
            (
                r#"{"mcpServers": {"a": {"command": "x", "oauth": {}}}}"#,
                "\"oauth\" is for HTTP servers",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"clientSecret": "${secret:x"}}}}"#,
                "oauth \"clientSecret\"",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"clientid": "x"}}}}"#,
                "clientid",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"clientMetadataUrl": "http://a.test/c.json"}}}}"#,
                "oauth \"clientMetadataUrl\" \"http://a.test/c.json\" must start with https://",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"clientMetadataUrl": "https://a.test/"}}}}"#,
                "needs a path to the document",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"grant": "clientCredentials", "clientSecret": "s"}}}}"#,
                "needs the \"clientId\"",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"grant": "clientCredentials", "clientId": "c"}}}}"#,
                "needs either a \"clientSecret\" or a \"privateKey\"",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"grant": "clientCredentials", "clientId": "c", "privateKey": "${secret:k}", "signingAlgorithm": "HS256"}}}}"#,
                "\"signingAlgorithm\" \"HS256\" is not one of RS256",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"privateKey": "${secret:k}"}}}}"#,
                "are for \"grant\": \"clientCredentials\"",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"grant": "password"}}}}"#,
                "grant",
            ),
        ] {
            let error = Config::parse("config.json", text).unwrap_err().to_string();
            assert!(error.contains(says), "{error}");
        }
    }

    #[test]
    fn a_service_account_signs_in_with_its_own_credentials() {
        let text = r#"{"mcpServers": {"corp": {"url": "https://corp.test/mcp",
            "oauth": {"grant": "clientCredentials", "clientId": "robot",
                      "privateKey": "${secret:robot-key}", "signingAlgorithm": "ES256"}}}}"#;
        let config = Config::parse("config.json", text).expect("valid");
        let Transport::Http { oauth, .. } = &config.mcp_servers["corp"].transport else {
            panic!("an HTTP server");
        };
        let oauth = oauth.as_ref().expect("its oauth is kept");
        assert_eq!(oauth.grant, Grant::ClientCredentials);
        let debug = format!("{:?}", config.mcp_servers["corp"]);
        assert!(!debug.contains("robot-key"), "{debug}");
        let again = serde_json::to_string(&config).unwrap();
        assert!(again.contains(r#""grant":"clientCredentials""#), "{again}");
        assert_eq!(Config::parse("again", &again).unwrap(), config);
        // A person's sign-in is the default and is not written out.
        let person = Config::parse(
            "config.json",
            r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"clientId": "c"}}}}"#,
        )
        .unwrap();
        assert!(!serde_json::to_string(&person).unwrap().contains("grant"));
    }

    #[test]
    fn parses_the_design_example() {
        let config = Config::parse("config.json", DESIGN_EXAMPLE).expect("valid");
        assert_eq!(config.mcp_servers.len(), 3);
        assert!(matches!(
            &config.mcp_servers["remote"].transport,
            Transport::Http { url, .. } if url == "https://example.test/mcp"
        ));
        assert!(matches!(
            &config.mcp_servers["github"].transport,
            Transport::Stdio { command, env, .. } if command == "npx" && env.len() == 1
        ));
        assert_eq!(config.concern("cost").unwrap().values.len(), 3);
        assert_eq!(config.settings.separator, "__");
        let overlays = Overlays::new(&config.overlays).unwrap();
        let hits: Vec<_> = overlays.matching("github__delete_issue").collect();
        assert_eq!(hits.len(), 2, "both overlays match");
    }

    #[test]
    fn round_trips_in_claude_desktop_shape() {
        let config = Config::parse("config.json", DESIGN_EXAMPLE).unwrap();
        let text = serde_json::to_string_pretty(&config).unwrap();
        assert!(text.contains("\"type\": \"http\""), "{text}");
        assert!(!text.contains("\"type\": \"stdio\""), "{text}");
        assert_eq!(Config::parse("again", &text).unwrap(), config);
    }

    #[test]
    fn debug_output_hides_secrets() {
        let config = Config::parse("config.json", DESIGN_EXAMPLE).unwrap();
        let debug = format!("{config:?}");
        assert!(debug.contains("GITHUB_TOKEN"), "names are shown");
        assert!(!debug.contains("secret-token"), "{debug}");
        assert!(!debug.contains("secret-header"), "{debug}");
    }

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
    fn empty_document_is_an_empty_config() {
        let config = Config::parse("c", "{}").unwrap();
        assert!(config.mcp_servers.is_empty());
        assert_eq!(config.settings, Settings::default());
    }

    fn error_of(text: &str) -> ParseError {
        Config::parse("config.json", text).expect_err("must be rejected")
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

    #[test]
    fn unknown_top_level_keys_are_rejected() {
        let err = error_of(r#"{"overlay": []}"#);
        assert!(err.expected.contains("unknown field `overlay`"), "{err}");
        assert_eq!(err.line, 1);
    }

    #[test]
    fn concerns_are_validated() {
        let err = error_of(r#"{"concerns": [{"name": "s", "values": ["a"], "default": "b"}]}"#);
        assert_eq!(err.path, "concerns[0].default");
        assert!(err.expected.contains("not one of the values a"), "{err}");
        let err = error_of(
            r#"{"concerns": [{"name": "s", "values": ["a"]}, {"name": "s", "values": ["b"]}]}"#,
        );
        assert!(err.expected.contains("declared twice"), "{err}");
        let err = error_of(r#"{"concerns": [{"name": "s", "values": []}]}"#);
        assert!(err.expected.contains("no values"), "{err}");
    }

    #[test]
    fn an_overlay_too_large_to_compile_is_an_error_not_a_panic() {
        // Parses as a glob, but its automaton exceeds globset's size limit.
        let pattern = format!("*{}x*", "*?".repeat(60_000));
        let overlay = Overlay {
            pattern: pattern.clone(),
            groups: vec!["g".into()],
            tags: Vec::new(),
            concerns: BTreeMap::new(),
            ..Overlay::default()
        };
        assert!(compile_glob(&pattern).is_ok(), "the pattern itself parses");
        let error = Overlays::new(&[overlay]).expect_err("too large to compile");
        assert!(error.contains("cannot be compiled"), "{error}");
    }

    #[test]
    fn overlays_are_validated_with_position() {
        let text = "{\n \"overlays\": [\n  {\"match\": \"a[\", \"tags\": [\"x\"]}\n ]\n}";
        let err = error_of(text);
        assert_eq!(err.path, "overlays[0].match");
        assert_eq!(err.line, 3);
        assert!(err.expected.contains("invalid glob \"a[\""), "{err}");
        let text = r#"{"concerns": [{"name": "security", "values": ["high"]}],
                      "overlays": [{"match": "*", "concerns": {"security": "ultra"}}]}"#;
        let err = error_of(text);
        assert_eq!(err.path, "overlays[0].concerns.security");
        assert!(err.expected.contains("expected one of high"), "{err}");
    }

    #[test]
    fn separator_is_validated() {
        let err = error_of(r#"{"settings": {"separator": "/"}}"#);
        assert_eq!(err.path, "settings.separator");
    }

    #[test]
    fn the_active_profile_must_be_a_profile_name() {
        let err = error_of(r#"{"settings": {"activeProfile": "../work"}}"#);
        assert_eq!(err.path, "settings.activeProfile");
        assert!(err.expected.contains("cannot name a profile"), "{err}");
        let config = Config::parse("config.json", r#"{"settings": {"activeProfile": "work"}}"#)
            .expect("a profile name is accepted");
        assert_eq!(config.settings.active_profile, "work");
        assert_eq!(Config::default().settings.active_profile, "default");
    }
}
