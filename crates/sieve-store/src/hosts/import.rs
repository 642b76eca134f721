//! `mcp-sieve servers import HOST [PATH]`: copies the MCP servers a host
//! is configured with into `config.json`.
//!
//! Three steps, the first two pure:
//!
//! * [`parse_host_config`] reads a host's file (JSON with comments, TOML or
//!   YAML, each host's shape: see [`super::shape`]) into [`HostEntry`]s.
//!   Each entry goes through `sieve-core`'s own `config.json` parser, so an imported
//!   server is validated exactly like one written by hand, and one that
//!   cannot be used (`"type": "sse"`, a `${input:..}` variable) is kept with
//!   the reason instead of failing the whole file.
//! * [`merge`] adds the entries to a [`Config`] and says what it did in an
//!   [`ImportReport`]. It never drops or changes an entry the user has.
//! * [`import`] does the I/O: finds the host's file, reads it, loads
//!   `config.json` through the [`Store`] (which refuses to replace a file
//!   that does not parse) and saves it when something was added.
//!
//! Running an import twice adds nothing the second time: every server is
//! then already present.

use super::document::{self, ServerList};
use super::kind::{HostDirs, HostKind};
use super::shape;
use crate::store::{Store, StoreError};
use serde::Serialize;
use serde_json::{Map, Value, json};
use sieve_core::naming::{MAX_SERVER_KEY_LEN, short_server_key, unique_key};
use sieve_core::{Config, ParseError, ServerConfig, Transport};
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// One server as the host file lists it, converted or not.
#[derive(Debug, Clone, PartialEq)]
pub struct HostEntry {
    /// The server's name in the host file.
    pub name: String,
    /// The server, or why it cannot be imported.
    pub server: Result<ServerConfig, EntryError>,
}

/// Why a host's server entry cannot be imported as it is written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EntryError {
    #[error("the entry is not an object")]
    NotObject,
    /// The host writes it in a way `config.json` has no words for.
    #[error("{detail}")]
    Host { detail: String },
    /// It holds a `${..}` variable its host fills in.
    #[error(
        "it uses {variable}, which {} fills in when it starts the server and \
         mcp-sieve does not; add it to config.json with the value written out",
        .host.title()
    )]
    Variable { host: HostKind, variable: String },
    /// It reads its environment from a file (`envFile`, as JSON text).
    #[error(
        "it reads its environment from \"envFile\" {env_file}, which mcp-sieve does \
         not; add it to config.json with the variables under \"env\""
    )]
    EnvFile { env_file: String },
    /// `config.json`'s own rules refuse it: what they expected.
    #[error("{}", .error.expected)]
    Config { error: ParseError },
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    /// The host the servers came from.
    pub source: HostKind,
    /// The file they were read from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// Servers added under their own name.
    pub added: Vec<String>,
    /// Servers added under another key: a short one for a name that is no
    /// key ([`server_key`]), or one with `-2`, `-3`, ... because a
    /// different server has the key already.
    pub renamed: Vec<Renamed>,
    /// Servers not added, each with the reason.
    pub skipped: Vec<Skipped>,
    /// The env and header values of the servers added that are written out
    /// in the file (names only): what the import offers to keep in the
    /// system keychain instead of `config.json`.
    pub secrets: Vec<PlainValue>,
    /// The names of the secrets kept, when the import was asked to.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kept_secrets: Vec<String>,
}

/// An env or header value written out in `config.json` (its name only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlainValue {
    /// The server's name in `config.json`.
    pub server: String,
    /// `env` or `headers`.
    pub section: &'static str,
    pub key: String,
}

/// A server added under a key other than its name in the host file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Renamed {
    /// Its name in the host file.
    pub from: String,
    /// Its key in config.json.
    pub to: String,
    /// The key it would have had ([`server_key`] of `from`), when a
    /// different server in config.json has it already; `to` is then that
    /// key with `-2`, `-3`, ... added.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub taken: Option<String>,
    /// What happened, as a sentence: `imported "Azure MCP Server" as azure`.
    pub message: String,
}

impl Renamed {
    fn new(from: String, wanted: String, to: String) -> Renamed {
        let taken = (wanted != to).then_some(wanted);
        let mut message = format!("imported {from:?} as {to}");
        if let Some(taken) = &taken {
            message.push_str(&format!(": config.json has a different {taken:?}"));
        }
        Renamed {
            from,
            to,
            taken,
            message,
        }
    }
}

/// The key a server that a host (or a person) calls `name` gets in
/// config.json: `name` itself when it is a key already, else
/// [`short_server_key`] of it. "Azure MCP Server" becomes `azure`,
/// "@modelcontextprotocol/server-github" `github`,
/// "io.github.upstash/context7" `context7`, "GitHub" `github`; `github`,
/// `everything`, `my-server`, `mcp-server-git` and `my_files` stay as they
/// are.
///
/// A key is 1 to [`MAX_SERVER_KEY_LEN`] lowercase ASCII letters, digits,
/// `-` and `_`, starting with a letter or a digit, without `__` (which
/// would make exposed names `<server>__<name>` ambiguous). A name that is
/// one was chosen by a person and reads well, so it is kept even where
/// [`short_server_key`] would drop words from it (`my-server` would become
/// `my`).
pub fn server_key(name: &str) -> String {
    if is_server_key(name) {
        name.to_string()
    } else {
        short_server_key(name)
    }
}

/// Whether `name` is a key as [`server_key`] keeps it.
pub fn is_server_key(name: &str) -> bool {
    let lower_word = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    name.len() <= MAX_SERVER_KEY_LEN
        && name.starts_with(lower_word)
        && name.chars().all(|c| lower_word(c) || c == '-' || c == '_')
        && !name.contains("__")
}

/// A server not added.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// Its name in the host file.
    pub name: String,
    #[serde(flatten)]
    pub reason: SkipReason,
    /// The reason as a sentence.
    pub message: String,
}

impl Skipped {
    fn new(name: String, reason: SkipReason) -> Skipped {
        let message = reason.to_string();
        Skipped {
            name,
            reason,
            message,
        }
    }
}

/// Why a server was not added. In JSON, `reason` is the variant's name and
/// the fields sit beside it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    tag = "reason",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum SkipReason {
    /// config.json already has a server that starts the same way, under
    /// `existing`; a second copy would only duplicate every tool.
    AlreadyPresent { existing: String },
    /// It starts mcp-sieve itself: the proxy would start itself, forever.
    SelfReference,
    /// mcp-sieve cannot use it as written.
    Unsupported { detail: String },
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::AlreadyPresent { existing } => {
                write!(f, "already in config.json as {existing:?}")
            }
            SkipReason::SelfReference => f.write_str(
                "it runs mcp-sieve itself, and the proxy cannot be one of its own servers",
            ),
            SkipReason::Unsupported { detail } => f.write_str(detail),
        }
    }
}

impl ImportReport {
    fn new(source: HostKind) -> ImportReport {
        ImportReport {
            source,
            file: None,
            added: Vec::new(),
            renamed: Vec::new(),
            skipped: Vec::new(),
            secrets: Vec::new(),
            kept_secrets: Vec::new(),
        }
    }

    /// Whether config.json gained a server.
    pub fn changed(&self) -> bool {
        !self.added.is_empty() || !self.renamed.is_empty()
    }
}

/// One line per server, for people.
impl fmt::Display for ImportReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let from = match &self.file {
            Some(file) => file.display().to_string(),
            None => format!("the {} config", self.source.title()),
        };
        if !self.changed() && self.skipped.is_empty() {
            return writeln!(f, "no servers in {from}");
        }
        for name in &self.added {
            writeln!(f, "added {name:?}")?;
        }
        for renamed in &self.renamed {
            writeln!(f, "{}", renamed.message)?;
        }
        for skipped in &self.skipped {
            writeln!(f, "skipped {:?}: {}", skipped.name, skipped.message)?;
        }
        if !self.kept_secrets.is_empty() {
            writeln!(
                f,
                "kept {} env/header value(s) out of config.json: {}",
                self.kept_secrets.len(),
                self.kept_secrets.join(", ")
            )?;
        } else if !self.secrets.is_empty() {
            writeln!(
                f,
                "config.json now holds {} env/header value(s) of these servers; --keep-secrets (or `mcp-sieve servers secret NAME KEY`) keeps them in the system keychain instead",
                self.secrets.len()
            )?;
        }
        Ok(())
    }
}

/// What can stop an import. Nothing is written when one happens.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    #[error("{}", not_found_message(*.kind, .tried, *.explicit))]
    NotFound {
        kind: HostKind,
        tried: Vec<PathBuf>,
        /// The user named the file or folder.
        explicit: bool,
    },
    #[error("cannot read {path}")]
    Read { path: PathBuf, source: io::Error },
    #[error(
        "{file}:{line}:{column}: {message}; the {} config must be {}, fix it and import again",
        .kind.title(),
        format_words(*.kind)
    )]
    Syntax {
        kind: HostKind,
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: {message}; is this a {} config?", .kind.title())]
    Shape {
        kind: HostKind,
        file: String,
        message: String,
    },
    #[error("{error}; fix config.json and import again (nothing was imported)")]
    UserConfig { error: ParseError },
    #[error(transparent)]
    Store(StoreError),
    #[error("cannot find your home folder; pass the path of the host's config file")]
    NoHome,
}

fn format_words(kind: HostKind) -> &'static str {
    match kind.format() {
        document::Format::Json => "JSON (comments allowed)",
        document::Format::Toml => "TOML",
        document::Format::Yaml => "YAML",
    }
}

fn not_found_message(kind: HostKind, tried: &[PathBuf], explicit: bool) -> String {
    let list = tried
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" or ");
    if explicit {
        format!(
            "there is no {} config at {list}; check the path",
            kind.title()
        )
    } else {
        format!(
            "found no {} config at {list}; if it is elsewhere, pass its path: \
             `mcp-sieve servers import {kind} PATH`",
            kind.title()
        )
    }
}

impl From<StoreError> for ImportError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Parse(error) | StoreError::Unparseable { error, .. } => {
                ImportError::UserConfig { error }
            }
            other => ImportError::Store(other),
        }
    }
}

/// Reads the servers of a host config file. `file` names it in messages.
///
/// Fails only when the file as a whole cannot be read in its format or
/// its server list is not one; a server that cannot be imported becomes
/// an entry with the reason. A file without servers (a fresh Claude
/// Desktop config) yields no entries. The server list is looked for in
/// each of the places the host reads ([`HostKind::server_lists`]), and,
/// for a JSON file handed to the "wrong" host, in the other common
/// ones, so that it still imports.
pub fn parse_host_config(
    kind: HostKind,
    file: &str,
    text: &str,
) -> Result<Vec<HostEntry>, ImportError> {
    let document =
        super::file::parse_document(kind.format(), text).map_err(|e| ImportError::Syntax {
            kind,
            file: file.to_string(),
            line: e.line,
            column: e.column,
            message: e.message,
        })?;
    const JSON_LISTS: [ServerList; 3] = [
        ServerList::Map(&["mcpServers"]),
        ServerList::Map(&["servers"]),
        ServerList::Map(&["mcp", "servers"]),
    ];
    let mut lists = kind.server_lists().to_vec();
    if kind.format() == document::Format::Json {
        for list in JSON_LISTS {
            if !lists.contains(&list) {
                lists.push(list);
            }
        }
    }
    for list in lists {
        let found = document.servers(list).map_err(|error| ImportError::Shape {
            kind,
            file: file.to_string(),
            message: error.0,
        })?;
        if let Some(servers) = found {
            return Ok(servers
                .into_iter()
                .map(|(name, raw)| host_entry(kind, file, name, &raw))
                .collect());
        }
    }
    Ok(Vec::new())
}

/// One server of `kind`'s file, as the file writes it, converted.
pub fn host_entry(kind: HostKind, file: &str, name: String, raw: &Value) -> HostEntry {
    let server = shape::to_config(kind, raw)
        .map_err(|error| EntryError::Host { detail: error.0 })
        .and_then(|entry| convert(kind, file, &name, &entry));
    HostEntry { name, server }
}

/// One host entry as a [`ServerConfig`], or why it cannot be one.
fn convert(
    kind: HostKind,
    file: &str,
    name: &str,
    entry: &Value,
) -> Result<ServerConfig, EntryError> {
    if !entry.is_object() {
        return Err(EntryError::NotObject);
    }
    if kind.expands_variables()
        && let Some(variable) = find_variable(entry)
    {
        return Err(EntryError::Variable {
            host: kind,
            variable,
        });
    }
    if let Some(env_file) = entry.get("envFile") {
        return Err(EntryError::EnvFile {
            env_file: env_file.to_string(),
        });
    }
    // The entry goes through the parser of config.json itself, so whatever
    // config.json accepts is importable and every rule lives in one place.
    let mut servers = Map::new();
    servers.insert(name.to_string(), entry.clone());
    let text = json!({ "mcpServers": servers }).to_string();
    let mut config = Config::parse(file, &text).map_err(|error| EntryError::Config { error })?;
    let (_, server) = config
        .mcp_servers
        .pop_first()
        .expect("a config parsed from one server has that server");
    Ok(server)
}

/// The first `${..}` in any string of `value`.
fn find_variable(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => {
            let start = s.find("${")?;
            let end = s[start..].find('}').map_or(s.len(), |i| start + i + 1);
            Some(s[start..end].to_string())
        }
        Value::Array(items) => items.iter().find_map(find_variable),
        Value::Object(map) => map.values().find_map(find_variable),
        _ => None,
    }
}

/// Adds `imported` to `config` and reports what happened to each entry.
///
/// The user's entries are never dropped or changed. For each imported
/// server, in order:
///
/// * one that could not be converted is skipped with its reason;
/// * one that starts mcp-sieve (the host already goes through the proxy)
///   is skipped, since the proxy would start itself;
/// * one that starts the same way as a server config.json has, under any
///   name, is skipped as already present: importing twice changes nothing,
///   and a server the user renamed or disabled is not added a second time;
/// * otherwise it is added under its key ([`server_key`]: its own name
///   when that is a key, else a short one a person reads), or, when
///   config.json has a different server under that key, under the key with
///   `-2` (then `-3`, ...). Adding under a new key, rather than refusing,
///   imports everything in one go; the report lists each server added
///   under a key other than its name, so the person knows what to call it,
///   and both servers' tools stay apart because exposed names carry the
///   key.
pub fn merge(config: &mut Config, imported: Vec<HostEntry>, source: HostKind) -> ImportReport {
    let mut report = ImportReport::new(source);
    for HostEntry { name, server } in imported {
        let server = match server {
            Ok(server) => server,
            Err(error) => {
                let reason = SkipReason::Unsupported {
                    detail: error.to_string(),
                };
                report.skipped.push(Skipped::new(name, reason));
                continue;
            }
        };
        if runs_mcp_sieve(&server.transport) {
            report
                .skipped
                .push(Skipped::new(name, SkipReason::SelfReference));
            continue;
        }
        let wanted = server_key(&name);
        if let Some(existing) = same_server(config, &wanted, &server) {
            let reason = SkipReason::AlreadyPresent { existing };
            report.skipped.push(Skipped::new(name, reason));
            continue;
        }
        let target = unique_key(&wanted, &|key| config.mcp_servers.contains_key(key));
        let (section, values) = match &server.transport {
            Transport::Stdio { env, .. } => ("env", env),
            Transport::Http { headers, .. } => ("headers", headers),
        };
        for (key, value) in values {
            let referenced =
                sieve_core::secret_ref::references(value).is_ok_and(|refs| !refs.is_empty());
            if !referenced && !value.is_empty() {
                report.secrets.push(PlainValue {
                    server: target.clone(),
                    section,
                    key: key.clone(),
                });
            }
        }
        config.mcp_servers.insert(target.clone(), server);
        if target == name {
            report.added.push(name);
        } else {
            report.renamed.push(Renamed::new(name, wanted, target));
        }
    }
    report
}

/// The name of a server in `config` that starts like `server`, preferring
/// `name` itself. `disabled` is the user's choice, not part of the server.
fn same_server(config: &Config, name: &str, server: &ServerConfig) -> Option<String> {
    if config
        .mcp_servers
        .get(name)
        .is_some_and(|s| starts_alike(&s.transport, &server.transport))
    {
        return Some(name.to_string());
    }
    config
        .mcp_servers
        .iter()
        .find(|(_, s)| starts_alike(&s.transport, &server.transport))
        .map(|(n, _)| n.clone())
}

/// Whether `imported` starts as `existing` does. A value `existing` keeps
/// in the secret store (`${secret:..}`) stands for the plain value the
/// host file still writes, so a server imported from a second host after
/// its secrets were kept is the same server, not a copy.
fn starts_alike(existing: &Transport, imported: &Transport) -> bool {
    let values_alike = |kept: &std::collections::BTreeMap<String, String>,
                        plain: &std::collections::BTreeMap<String, String>| {
        kept.len() == plain.len()
            && kept.iter().all(|(key, value)| {
                plain.get(key).is_some_and(|other| {
                    other == value
                        || sieve_core::secret_ref::references(value)
                            .is_ok_and(|refs| !refs.is_empty())
                })
            })
    };
    match (existing, imported) {
        (
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            },
            Transport::Stdio {
                command: command2,
                args: args2,
                env: env2,
                cwd: cwd2,
            },
        ) => command == command2 && args == args2 && cwd == cwd2 && values_alike(env, env2),
        (
            Transport::Http {
                url,
                headers,
                oauth,
            },
            Transport::Http {
                url: url2,
                headers: headers2,
                oauth: oauth2,
            },
        ) => url == url2 && oauth == oauth2 && values_alike(headers, headers2),
        _ => false,
    }
}

/// Whether the server is MCP Sieve's own proxy (`mcp-sieve ... serve`,
/// see [`super::entry::serves_sieve`]).
fn runs_mcp_sieve(transport: &Transport) -> bool {
    match transport {
        Transport::Stdio { command, args, .. } => {
            super::entry::serves_sieve(command, args).is_some()
        }
        Transport::Http { .. } => false,
    }
}

/// Imports the servers of host `kind` into the config.json of `store`.
///
/// `path` is the host's file, or a folder holding it (`~/.cursor`, a
/// project with `.vscode/mcp.json`); without it, the host's usual places
/// are tried ([`HostKind::default_paths`]). config.json is written only
/// when a server was added, and never when it does not parse.
pub fn import(
    store: &Store,
    kind: HostKind,
    path: Option<&Path>,
) -> Result<ImportReport, ImportError> {
    let (file, entries) = read_host(kind, path)?;
    // Merged under config.json's lock, into the file as it is then, so
    // servers another process adds meanwhile are kept.
    store.update_config(|config| {
        let mut report = merge(config, entries, kind);
        report.file = Some(file);
        Ok(report)
    })
}

/// What [`import`] would do, without writing: the config as it would be,
/// and the report. The app shows the report before the person agrees.
pub fn plan(
    store: &Store,
    kind: HostKind,
    path: Option<&Path>,
) -> Result<(Config, ImportReport), ImportError> {
    let (file, entries) = read_host(kind, path)?;
    let mut config = store.load_config()?;
    let mut report = merge(&mut config, entries, kind);
    report.file = Some(file);
    Ok((config, report))
}

/// The host's file and the servers it holds.
fn read_host(
    kind: HostKind,
    path: Option<&Path>,
) -> Result<(PathBuf, Vec<HostEntry>), ImportError> {
    let file = locate(kind, path)?;
    let text = fs::read_to_string(&file).map_err(|source| ImportError::Read {
        path: file.clone(),
        source,
    })?;
    let entries = parse_host_config(kind, &file.display().to_string(), &text)?;
    Ok((file, entries))
}

fn locate(kind: HostKind, path: Option<&Path>) -> Result<PathBuf, ImportError> {
    let (tried, explicit) = match path {
        Some(dir) if dir.is_dir() => (kind.paths_in_folder(dir), true),
        Some(file) => (vec![file.to_path_buf()], true),
        None => (
            kind.default_paths(&HostDirs::current().ok_or(ImportError::NoHome)?),
            false,
        ),
    };
    match tried.iter().find(|p| p.is_file()) {
        Some(found) => Ok(found.clone()),
        None => Err(ImportError::NotFound {
            kind,
            tried,
            explicit,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::home::Home;

    fn entries(kind: HostKind, text: &str) -> Vec<HostEntry> {
        parse_host_config(kind, "host.json", text).expect("the host file parses")
    }

    fn names(entries: &[HostEntry]) -> Vec<&str> {
        entries.iter().map(|e| e.name.as_str()).collect()
    }

    fn stdio(command: &str, args: &[&str]) -> ServerConfig {
        ServerConfig {
            transport: Transport::Stdio {
                command: command.into(),
                args: args.iter().map(|a| a.to_string()).collect(),
                env: Default::default(),
                cwd: None,
            },
            disabled: false,
            roots: Default::default(),
            origin: None,
        }
    }

    fn entry(name: &str, server: ServerConfig) -> HostEntry {
        HostEntry {
            name: name.into(),
            server: Ok(server),
        }
    }

    const CLAUDE: &str = r#"{
      "mcpServers": {
        "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                    "env": {"GITHUB_TOKEN": "t"} },
        "files":  { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/u"] },
        "remote": { "type": "http", "url": "https://example.test/mcp", "headers": {"Authorization": "Bearer x"} }
      },
      "globalShortcut": "Ctrl+Space"
    }"#;

    #[test]
    fn claude_desktop_servers_are_read_in_file_order() {
        let found = entries(HostKind::ClaudeDesktop, CLAUDE);
        assert_eq!(names(&found), ["github", "files", "remote"]);
        let github = found[0].server.as_ref().expect("github converts");
        assert!(
            matches!(&github.transport, Transport::Stdio { command, env, .. }
                if command == "npx" && env["GITHUB_TOKEN"] == "t"),
            "{github:?}"
        );
        assert!(
            matches!(&found[2].server, Ok(ServerConfig { transport: Transport::Http { url, .. }, .. })
                if url == "https://example.test/mcp"),
            "{:?}",
            found[2]
        );
    }

    #[test]
    fn cursor_servers_and_foreign_keys() {
        let text = r#"{"mcpServers": {
            "linear": {"url": "https://mcp.linear.app/mcp"},
            "db": {"command": "uvx", "args": ["mcp-server-sqlite"], "autoApprove": ["query"]}
        }}"#;
        let found = entries(HostKind::Cursor, text);
        assert_eq!(names(&found), ["linear", "db"]);
        assert!(
            found.iter().all(|e| e.server.is_ok()),
            "foreign keys such as autoApprove are ignored: {found:?}"
        );
    }

    #[test]
    fn vscode_jsonc_with_comments_trailing_commas_and_inputs() {
        let text = r#"{
          // Servers for this workspace.
          "inputs": [
            { "type": "promptString", "id": "token", "description": "API token", "password": true },
          ],
          "servers": {
            /* a local one */
            "fetch": { "type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"], },
            "remote": { "type": "http", "url": "https://example.test/mcp" },
            "legacy": { "type": "sse", "url": "https://example.test/sse" },
            "secret": { "type": "stdio", "command": "npx", "args": ["server"],
                        "env": { "TOKEN": "${input:token}" } },
            "dotenv": { "command": "node", "args": ["s.js"], "envFile": "${workspaceFolder}/.env" },
          },
        }"#;
        let found = entries(HostKind::VsCode, text);
        assert_eq!(
            names(&found),
            ["fetch", "remote", "legacy", "secret", "dotenv"]
        );
        assert!(found[0].server.is_ok(), "{:?}", found[0]);
        assert!(found[1].server.is_ok(), "{:?}", found[1]);
        let legacy = found[2]
            .server
            .as_ref()
            .expect_err("sse is refused")
            .to_string();
        assert!(legacy.contains("\"sse\""), "the core's reason: {legacy}");
        let secret = found[3]
            .server
            .as_ref()
            .expect_err("variables are refused")
            .to_string();
        assert!(secret.contains("${input:token}"), "{secret}");
        assert!(secret.contains("VS Code"), "{secret}");
        let dotenv = found[4]
            .server
            .as_ref()
            .expect_err("envFile is refused")
            .to_string();
        assert!(dotenv.contains("${workspaceFolder}"), "{dotenv}");
    }

    #[test]
    fn vscode_settings_json_shape_is_read() {
        let text = r#"{ "editor.fontSize": 14, "mcp": { "servers": { "git": { "command": "uvx", "args": ["mcp-server-git"] } } } }"#;
        assert_eq!(names(&entries(HostKind::VsCode, text)), ["git"]);
    }

    #[test]
    fn claude_desktop_keeps_dollar_strings_as_written() {
        let text = r#"{"mcpServers": {"a": {"command": "run", "args": ["${HOME}"]}}}"#;
        let found = entries(HostKind::ClaudeDesktop, text);
        assert!(
            found[0].server.is_ok(),
            "Claude Desktop does not expand variables, so neither do we: {found:?}"
        );
        let found = entries(HostKind::Cursor, text);
        assert!(found[0].server.is_err(), "Cursor does: {found:?}");
    }

    #[test]
    fn a_host_file_without_servers_yields_nothing() {
        assert!(entries(HostKind::ClaudeDesktop, "").is_empty());
        assert!(entries(HostKind::ClaudeDesktop, r#"{"globalShortcut": ""}"#).is_empty());
        assert!(entries(HostKind::VsCode, r#"{"inputs": []}"#).is_empty());
    }

    #[test]
    fn bad_entries_are_kept_with_their_reason() {
        let text = r#"{"mcpServers": {
            "": {"command": "x"},
            "nothing": {},
            "both": {"command": "x", "url": "https://y"},
            "number": 3,
            "ok": {"command": "x"}
        }}"#;
        let found = entries(HostKind::ClaudeDesktop, text);
        let reasons: Vec<_> = found
            .iter()
            .map(|e| e.server.as_ref().err().map(ToString::to_string))
            .collect();
        assert_eq!(reasons[0].as_deref(), Some("a server name is empty"));
        assert!(
            reasons[1].as_deref().unwrap().contains("needs \"command\""),
            "{reasons:?}"
        );
        assert!(
            reasons[2].as_deref().unwrap().contains("both"),
            "{reasons:?}"
        );
        assert_eq!(reasons[3].as_deref(), Some("the entry is not an object"));
        assert_eq!(reasons[4], None);
    }

    #[test]
    fn syntax_errors_name_file_line_and_column() {
        let err = parse_host_config(HostKind::Cursor, "mcp.json", "{\n  \"mcpServers\": {,}\n}")
            .expect_err("a stray comma is not JSONC");
        assert!(
            matches!(err, ImportError::Syntax { line: 2, .. }),
            "{err:?}"
        );
        assert!(err.to_string().starts_with("mcp.json:2:"), "{err}");
        let err = parse_host_config(HostKind::Cursor, "mcp.json", "{'a': 1}")
            .expect_err("JSON5 is more than hosts accept");
        assert!(matches!(err, ImportError::Syntax { .. }), "{err:?}");
        let err = parse_host_config(HostKind::Cursor, "mcp.json", "[]").unwrap_err();
        assert!(err.to_string().contains("not a JSON object"), "{err}");
        let err =
            parse_host_config(HostKind::Cursor, "mcp.json", r#"{"mcpServers": []}"#).unwrap_err();
        assert!(
            err.to_string().contains("\"mcpServers\" is not an object"),
            "{err}"
        );
    }

    #[test]
    fn merge_adds_new_servers() {
        let mut config = Config::default();
        let report = merge(
            &mut config,
            entries(HostKind::ClaudeDesktop, CLAUDE),
            HostKind::ClaudeDesktop,
        );
        assert_eq!(report.added, ["github", "files", "remote"]);
        assert!(
            report.renamed.is_empty() && report.skipped.is_empty(),
            "{report:?}"
        );
        assert!(report.changed());
        assert_eq!(config.mcp_servers.len(), 3);
    }

    #[test]
    fn merging_twice_adds_nothing() {
        let mut config = Config::default();
        let imported = entries(HostKind::ClaudeDesktop, CLAUDE);
        merge(&mut config, imported.clone(), HostKind::ClaudeDesktop);
        let before = config.clone();
        let report = merge(&mut config, imported, HostKind::ClaudeDesktop);
        assert!(!report.changed(), "{report:?}");
        assert_eq!(config, before);
        assert_eq!(report.skipped.len(), 3);
        assert_eq!(
            report.skipped[0].reason,
            SkipReason::AlreadyPresent {
                existing: "github".into()
            }
        );
    }

    #[test]
    fn the_same_server_under_another_name_or_disabled_is_present() {
        let mut config = Config::default();
        let mut mine = stdio("uvx", &["mcp-server-git"]);
        mine.disabled = true;
        config.mcp_servers.insert("my-git".into(), mine.clone());
        let report = merge(
            &mut config,
            vec![entry("git", stdio("uvx", &["mcp-server-git"]))],
            HostKind::Cursor,
        );
        assert_eq!(
            report.skipped[0].reason,
            SkipReason::AlreadyPresent {
                existing: "my-git".into()
            }
        );
        assert_eq!(config.mcp_servers.len(), 1, "nothing added");
        assert_eq!(
            config.mcp_servers["my-git"], mine,
            "the user's entry is untouched"
        );
    }

    #[test]
    fn a_different_server_with_a_taken_name_is_added_renamed() {
        let mut config = Config::default();
        let mine = stdio("my-files", &[]);
        config.mcp_servers.insert("files".into(), mine.clone());
        config
            .mcp_servers
            .insert("files-2".into(), stdio("other", &[]));
        let theirs = stdio("npx", &["-y", "@modelcontextprotocol/server-filesystem"]);
        let report = merge(
            &mut config,
            vec![entry("files", theirs.clone())],
            HostKind::Cursor,
        );
        assert_eq!(
            report.renamed,
            [Renamed {
                from: "files".into(),
                to: "files-3".into(),
                taken: Some("files".into()),
                message: "imported \"files\" as files-3: config.json has a different \"files\""
                    .into(),
            }]
        );
        assert_eq!(config.mcp_servers["files"], mine, "never overwritten");
        assert_eq!(config.mcp_servers["files-3"], theirs);

        let again = merge(&mut config, vec![entry("files", theirs)], HostKind::Cursor);
        assert_eq!(
            again.skipped[0].reason,
            SkipReason::AlreadyPresent {
                existing: "files-3".into()
            },
            "a renamed import is recognised the next time"
        );
    }

    #[test]
    fn keys_are_kept_when_they_are_keys_and_shortened_when_not() {
        for kept in [
            "github",
            "everything",
            "my-server",
            "mcp-server-git",
            "my_files",
            "context7",
            "a",
        ] {
            assert_eq!(server_key(kept), kept, "{kept} is a key already");
        }
        for (name, key) in [
            ("Azure MCP Server", "azure"),
            ("@modelcontextprotocol/server-github", "github"),
            ("io.github.upstash/context7", "context7"),
            ("GitHub", "github"),
            ("my__files", "my-files"),
            ("-x", "x"),
            (
                "the quite long name of a tool we use every day",
                "the-quite-long-name-of-a-tool-we",
            ),
        ] {
            assert_eq!(server_key(name), key, "{name}");
            assert!(is_server_key(&server_key(name)), "{key} is a key itself");
        }
    }

    #[test]
    fn a_long_or_spaced_name_is_imported_under_a_short_key_and_said_so() {
        let mut config = Config::default();
        let mine = stdio("my-azure", &[]);
        config.mcp_servers.insert("azure".into(), mine.clone());
        let azure = stdio("npx", &["-y", "@azure/mcp@latest", "server", "start"]);
        let github = stdio("npx", &["-y", "@modelcontextprotocol/server-github"]);
        let context7 = Transport::Http {
            url: "https://mcp.context7.com/mcp".into(),
            headers: Default::default(),
            oauth: None,
        };
        let report = merge(
            &mut config,
            vec![
                entry("Azure MCP Server", azure.clone()),
                entry("@modelcontextprotocol/server-github", github.clone()),
                entry(
                    "io.github.upstash/context7",
                    ServerConfig {
                        transport: context7,
                        disabled: false,
                        roots: Default::default(),
                        origin: None,
                    },
                ),
                entry("everything", stdio("npx", &["server-everything"])),
            ],
            HostKind::Cursor,
        );
        assert_eq!(report.added, ["everything"], "a key stays as it is");
        let said: Vec<(&str, &str, &str)> = report
            .renamed
            .iter()
            .map(|r| (r.from.as_str(), r.to.as_str(), r.message.as_str()))
            .collect();
        assert_eq!(
            said,
            [
                (
                    "Azure MCP Server",
                    "azure-2",
                    "imported \"Azure MCP Server\" as azure-2: config.json has a different \"azure\""
                ),
                (
                    "@modelcontextprotocol/server-github",
                    "github",
                    "imported \"@modelcontextprotocol/server-github\" as github"
                ),
                (
                    "io.github.upstash/context7",
                    "context7",
                    "imported \"io.github.upstash/context7\" as context7"
                ),
            ]
        );
        assert_eq!(report.renamed[0].taken.as_deref(), Some("azure"));
        assert_eq!(report.renamed[1].taken, None, "nothing was in the way");
        assert_eq!(config.mcp_servers["azure"], mine, "never replaced");
        assert_eq!(config.mcp_servers["azure-2"], azure);
        assert_eq!(config.mcp_servers["github"], github);
        assert_eq!(
            serde_json::to_value(&report.renamed[1]).unwrap(),
            json!({"from": "@modelcontextprotocol/server-github", "to": "github",
                   "message": "imported \"@modelcontextprotocol/server-github\" as github"})
        );
        let text = report.to_string();
        assert!(
            text.contains("imported \"io.github.upstash/context7\" as context7\n"),
            "{text}"
        );

        let again = merge(
            &mut config,
            vec![entry("Azure MCP Server", azure)],
            HostKind::VsCode,
        );
        assert_eq!(
            again.skipped[0].reason,
            SkipReason::AlreadyPresent {
                existing: "azure-2".into()
            },
            "importing again finds it under its short key"
        );
    }

    #[test]
    fn servers_that_run_mcp_sieve_are_skipped() {
        let sieves = [
            stdio("mcp-sieve", &["serve", "--profile", "work"]),
            stdio("/home/u/.cargo/bin/mcp-sieve", &["serve"]),
            stdio(r"C:\Program Files\MCP Sieve\MCP-Sieve.exe", &["serve"]),
            stdio("npx", &["-y", "mcp-sieve@0.1.0", "serve"]),
        ];
        let imported = sieves
            .iter()
            .enumerate()
            .map(|(i, s)| entry(&format!("sieve{i}"), s.clone()))
            .chain([entry("neighbour", stdio("mcp-sieve-helper", &[]))])
            .collect();
        let mut config = Config::default();
        let report = merge(&mut config, imported, HostKind::ClaudeDesktop);
        assert_eq!(report.skipped.len(), 4, "{report:?}");
        assert!(
            report
                .skipped
                .iter()
                .all(|s| s.reason == SkipReason::SelfReference),
            "{report:?}"
        );
        assert_eq!(report.added, ["neighbour"], "only the exact name counts");
    }

    #[test]
    fn unconvertible_entries_are_reported_and_the_rest_imported() {
        let mut config = Config::default();
        let report = merge(
            &mut config,
            vec![
                HostEntry {
                    name: "legacy".into(),
                    server: Err(EntryError::EnvFile {
                        env_file: "\".env\"".into(),
                    }),
                },
                entry("ok", stdio("x", &[])),
            ],
            HostKind::VsCode,
        );
        assert_eq!(report.added, ["ok"]);
        assert_eq!(report.skipped[0].name, "legacy");
        assert_eq!(
            report.skipped[0].message,
            "it reads its environment from \"envFile\" \".env\", which mcp-sieve does not; add it to config.json with the variables under \"env\""
        );
    }

    #[test]
    fn report_json_is_stable() {
        let mut config = Config::default();
        config.mcp_servers.insert("a".into(), stdio("mine", &[]));
        let mut report = merge(
            &mut config,
            vec![
                entry("a", stdio("theirs", &[])),
                entry("b", stdio("mine", &[])),
                entry("c", stdio("mcp-sieve", &["serve"])),
                HostEntry {
                    name: "d".into(),
                    server: Err(EntryError::NotObject),
                },
                entry("e", stdio("new", &[])),
            ],
            HostKind::ClaudeDesktop,
        );
        report.file = Some("/h/claude.json".into());
        assert_eq!(
            serde_json::to_value(&report).unwrap(),
            json!({
                "source": "claude-desktop",
                "file": "/h/claude.json",
                "added": ["e"],
                "renamed": [{"from": "a", "to": "a-2", "taken": "a",
                             "message": "imported \"a\" as a-2: config.json has a different \"a\""}],
                "skipped": [
                    {"name": "b", "reason": "alreadyPresent", "existing": "a",
                     "message": "already in config.json as \"a\""},
                    {"name": "c", "reason": "selfReference",
                     "message": "it runs mcp-sieve itself, and the proxy cannot be one of its own servers"},
                    {"name": "d", "reason": "unsupported", "detail": "the entry is not an object",
                     "message": "the entry is not an object"}
                ],
                "secrets": []
            })
        );
        let text = report.to_string();
        assert!(text.contains("added \"e\"\n"), "{text}");
        assert!(
            text.contains("imported \"a\" as a-2: config.json has a different \"a\"\n"),
            "{text}"
        );
        assert!(
            text.contains("skipped \"d\": the entry is not an object\n"),
            "{text}"
        );
    }

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let store = Store::new(Home::at(&dir.path().join("home")));
        (dir, store)
    }

    #[test]
    fn a_server_whose_secrets_were_kept_is_not_imported_again() {
        let mut config = Config::parse(
            "c",
            r#"{"mcpServers": {"github": {"command": "gh-mcp",
                "env": {"TOKEN": "${secret:github.TOKEN}"}}}}"#,
        )
        .unwrap();
        let host = r#"{"mcpServers": {"github": {"command": "gh-mcp", "env": {"TOKEN": "ghp_x"}},
            "other": {"command": "gh-mcp", "env": {"TOKEN": "ghp_x", "MORE": "1"}}}}"#;
        let report = merge(
            &mut config,
            entries(HostKind::Cursor, host),
            HostKind::Cursor,
        );
        assert_eq!(report.added, ["other"], "{report:?}");
        assert!(matches!(
            &report.skipped[0].reason,
            SkipReason::AlreadyPresent { existing } if existing == "github"
        ));
    }

    #[test]
    fn import_writes_config_json_once() {
        let (dir, store) = store();
        let host = dir.path().join("claude_desktop_config.json");
        fs::write(&host, CLAUDE).unwrap();
        let report = import(&store, HostKind::ClaudeDesktop, Some(&host)).expect("imports");
        assert_eq!(report.added.len(), 3, "{report:?}");
        assert_eq!(report.file.as_deref(), Some(host.as_path()));
        let config = store.load_config().expect("the written config parses");
        assert_eq!(config.mcp_servers.len(), 3);

        let written = fs::read_to_string(store.home().config_file()).unwrap();
        let again = import(&store, HostKind::ClaudeDesktop, Some(dir.path()))
            .expect("a folder holding the file works too");
        assert!(!again.changed(), "{again:?}");
        assert_eq!(
            fs::read_to_string(store.home().config_file()).unwrap(),
            written
        );
        assert!(
            !crate::store::backup_path(&store.home().config_file()).exists(),
            "an import that adds nothing does not write"
        );
    }

    #[test]
    fn import_finds_a_workspace_file_in_a_folder() {
        let (dir, store) = store();
        let project = dir.path().join("project");
        fs::create_dir_all(project.join(".vscode")).unwrap();
        fs::write(
            project.join(".vscode/mcp.json"),
            "{\"servers\": {\"git\": {\"command\": \"uvx\", \"args\": [\"mcp-server-git\"]},},}",
        )
        .unwrap();
        let report = import(&store, HostKind::VsCode, Some(&project)).expect("imports");
        assert_eq!(report.added, ["git"]);
        assert_eq!(
            report.file.as_deref(),
            Some(project.join(".vscode/mcp.json").as_path())
        );
    }

    #[test]
    fn a_missing_host_file_is_named_with_what_to_do() {
        let (dir, store) = store();
        let missing = dir.path().join("nope.json");
        let err = import(&store, HostKind::Cursor, Some(&missing)).unwrap_err();
        let message = err.to_string();
        assert!(matches!(err, ImportError::NotFound { .. }), "{err:?}");
        assert!(
            message.contains(&missing.display().to_string()),
            "{message}"
        );
        assert!(message.contains("check the path"), "{message}");

        let defaults = not_found_message(
            HostKind::ClaudeDesktop,
            &[PathBuf::from("/cfg/Claude/claude_desktop_config.json")],
            false,
        );
        assert!(
            defaults.contains("/cfg/Claude/claude_desktop_config.json")
                && defaults.contains("mcp-sieve servers import claude-desktop PATH"),
            "{defaults}"
        );
    }

    #[test]
    fn an_unparseable_user_config_is_left_untouched() {
        let (dir, store) = store();
        let host = dir.path().join("mcp.json");
        fs::write(&host, CLAUDE).unwrap();
        let config_file = store.home().config_file();
        fs::create_dir_all(config_file.parent().unwrap()).unwrap();
        let broken = "{\"mcpServers\": {\"mine\": {\"command\": \"x\"},}}";
        fs::write(&config_file, broken).unwrap();
        let err = import(&store, HostKind::Cursor, Some(&host)).unwrap_err();
        assert!(matches!(err, ImportError::UserConfig { .. }), "{err:?}");
        let message = err.to_string();
        assert!(message.contains("config.json:1:"), "{message}");
        assert!(message.contains("nothing was imported"), "{message}");
        assert_eq!(fs::read_to_string(&config_file).unwrap(), broken);
        assert!(!crate::store::backup_path(&config_file).exists());
    }

    #[test]
    fn a_broken_host_file_changes_nothing() {
        let (dir, store) = store();
        let host = dir.path().join("mcp.json");
        fs::write(&host, "{\"servers\": {").unwrap();
        let err = import(&store, HostKind::VsCode, Some(&host)).unwrap_err();
        assert!(matches!(err, ImportError::Syntax { .. }), "{err:?}");
        assert!(err.to_string().contains("mcp.json:1:"), "{err}");
        assert!(!store.home().config_file().exists());
    }
}
