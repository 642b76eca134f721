//! Servers from an MCP registry (API v0.1): search one, show a server's
//! versions, packages and remotes, and add one to `config.json` with its
//! version pinned, its secrets in the keychain and where it came from
//! kept in its entry (`"origin"`), so a newer version can be announced.
//!
//! The registry is the first of `settings.registries`, else the official
//! one; `--registry` (the page's choice) names another. What an entry
//! becomes is [`sieve_core::registry`]'s pure work; here is the network,
//! the keychain and the file. Nothing is started: adding writes the entry,
//! and a running proxy starts it as it starts any new server.

use super::secrets::{SecretKept, secret_name};
use super::{ApiError, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use sieve_core::registry::{self as entries, Given, Plan};
pub use sieve_core::registry::{Asked, Entry, OFFICIAL, Section, Source};
use sieve_core::secret_ref::reference;
use sieve_core::{Config, Origin, ServerConfig, Transport};
use sieve_store::store::Store;
use std::collections::BTreeMap;
use std::time::Duration;

/// How long a registry may take to answer one request.
const TIMEOUT: Duration = Duration::from_secs(20);
/// How long `servers list` waits to learn of newer versions.
const NEWER_TIMEOUT: Duration = Duration::from_secs(4);
/// Pages a search follows at most (the official registry pages by 100).
const MAX_PAGES: usize = 200;

/// The registries `config` names, the official one where it names none.
pub fn registries(config: &Config) -> Vec<String> {
    if config.settings.registries.is_empty() {
        vec![OFFICIAL.to_string()]
    } else {
        config.settings.registries.clone()
    }
}

/// The registry to ask: `asked`, else the first of `config`'s.
fn registry_of(config: &Config, asked: Option<&str>) -> Result<String> {
    let url = match asked {
        Some(url) => url.trim().to_string(),
        None => registries(config).remove(0),
    };
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(ApiError::invalid(
            "registry",
            format!("the registry {url:?} is not an http:// or https:// address"),
        ));
    }
    Ok(url.trim_end_matches('/').to_string())
}

/// One server a search found, at its latest version.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Found {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub description: String,
    pub version: String,
    /// Each package as `type identifier@version`.
    pub packages: Vec<String>,
    /// Each remote as `type url`.
    pub remotes: Vec<String>,
}

impl Found {
    fn of(entry: &Entry) -> Found {
        Found {
            name: entry.name.clone(),
            title: entry.title.clone(),
            description: entry.description.clone(),
            version: entry.version.clone(),
            packages: entry
                .packages
                .iter()
                .map(|p| match &p.version {
                    Some(version) => format!("{} {}@{version}", p.registry_type, p.identifier),
                    None => format!("{} {}", p.registry_type, p.identifier),
                })
                .collect(),
            remotes: entry
                .remotes
                .iter()
                .map(|r| format!("{} {}", r.kind, r.url))
                .collect(),
        }
    }
}

/// What a search found, and where.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Searched {
    pub registry: String,
    pub servers: Vec<Found>,
}

/// The servers of the registry whose name holds `text`, at their latest
/// version, each once: every page is read.
pub async fn search(store: &Store, registry: Option<&str>, text: &str) -> Result<Searched> {
    let registry = registry_of(&store.load_config()?, registry)?;
    let client = client()?;
    let mut servers: Vec<Found> = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let mut query = vec![("version", "latest"), ("limit", "100")];
        if !text.trim().is_empty() {
            query.push(("search", text.trim()));
        }
        if let Some(cursor) = &cursor {
            query.push(("cursor", cursor));
        }
        let url = format!("{registry}/v0.1/servers");
        let page: ServerList = get(&client, &registry, &url, &query, || {
            format!("the registry {registry} has no server list")
        })
        .await?;
        for item in page.servers {
            if !servers.iter().any(|s| s.name == item.server.name) {
                servers.push(Found::of(&item.server));
            }
        }
        cursor = page.metadata.next_cursor.filter(|c| !c.is_empty());
        if cursor.is_none() {
            break;
        }
    }
    Ok(Searched { registry, servers })
}

/// One server of a registry: a version of its entry, every version
/// published (newest first), what adding it would use and ask for.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Shown {
    pub registry: String,
    pub entry: Entry,
    pub versions: Vec<String>,
    pub latest: String,
    /// The package or remote adding it uses; none when it cannot be added.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// Why it cannot be added, where it cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    pub asked: Vec<Asked>,
}

/// Server `name` of the registry at `version` (the latest without one).
pub async fn show(
    store: &Store,
    registry: Option<&str>,
    name: &str,
    version: Option<&str>,
) -> Result<Shown> {
    let registry = registry_of(&store.load_config()?, registry)?;
    let client = client()?;
    let versions = versions(&client, &registry, name).await?;
    let latest = versions
        .iter()
        .find(|v| v.meta.official.as_ref().is_some_and(|o| o.is_latest))
        .or(versions.first())
        .map(|v| v.server.version.clone())
        .unwrap_or_default();
    let entry = entry(&client, &registry, name, version).await?;
    let (source, refused, asked) = match entries::choose(&entry) {
        Ok(source) => (Some(source), None, entries::asked(&entry, source)),
        Err(why) => (None, Some(why.to_string()), Vec::new()),
    };
    Ok(Shown {
        registry,
        versions: versions.into_iter().map(|v| v.server.version).collect(),
        latest,
        entry,
        source,
        refused,
        asked,
    })
}

/// What a person asks to add.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    pub name: String,
    #[serde(default)]
    pub version: Option<String>,
    /// The key to add it under, instead of a short one made from its name.
    #[serde(default, rename = "as")]
    pub key: Option<String>,
    #[serde(default)]
    pub registry: Option<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default)]
    pub args: BTreeMap<String, String>,
}

impl Request {
    fn given(&self) -> Given {
        Given {
            env: self.env.clone(),
            headers: self.headers.clone(),
            args: self.args.clone(),
        }
    }
}

/// An entry ready to add: what will be written and run, for the person to
/// confirm. Nothing is written until [`add`].
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Prepared {
    pub registry: String,
    pub name: String,
    pub version: String,
    /// The key it will be added under.
    pub key: String,
    /// The command it will run or the URL it will reach, secrets hidden.
    pub command: String,
    /// The env variables or headers that go to the keychain.
    pub secrets: Vec<String>,
    /// The runner is not on this machine: which, and how to get it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runner_missing: Option<String>,
    #[serde(skip)]
    plan: Option<Plan>,
}

/// Reads the entry `request` names and builds the server it becomes; a
/// required value not given is refused by name.
pub async fn prepare(store: &Store, request: &Request) -> Result<Prepared> {
    let config = store.load_config()?;
    let registry = registry_of(&config, request.registry.as_deref())?;
    let client = client()?;
    let entry = entry(
        &client,
        &registry,
        &request.name,
        request.version.as_deref(),
    )
    .await?;
    let source = entries::choose(&entry).map_err(|why| ApiError::new(ErrorCode::Invalid, why))?;
    let plan = entries::plan(&entry, source, &request.given())
        .map_err(|why| ApiError::new(ErrorCode::Invalid, why))?;
    let key = match &request.key {
        Some(key) => exact_key(&config, key)?,
        None => super::servers::new_key(&config, &entry.name)?,
    };
    Ok(Prepared {
        registry,
        name: entry.name.clone(),
        version: entry.version.clone(),
        key,
        command: plan.shown(),
        secrets: plan.secrets.clone(),
        runner_missing: plan.runner.and_then(missing_runner),
        plan: Some(plan),
    })
}

/// `--as KEY`: that key, never one that replaces an entry.
fn exact_key(config: &Config, key: &str) -> Result<String> {
    let key = key.trim();
    if !sieve_store::import::is_server_key(key) {
        return Err(ApiError::invalid(
            "as",
            format!(
                "{key:?} cannot be a server's key; use lower-case letters, digits, - and _ (at most {} characters)",
                sieve_core::naming::MAX_SERVER_KEY_LEN
            ),
        ));
    }
    if config.mcp_servers.contains_key(key) {
        return Err(super::servers::name_taken(key));
    }
    Ok(key.to_string())
}

/// What [`add`] did.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Added {
    pub key: String,
    pub name: String,
    pub version: String,
    pub command: String,
    pub secrets: Vec<SecretKept>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runner_missing: Option<String>,
}

/// Writes `prepared` into `config.json`: its secrets in the keychain first
/// (`config.json` holds `${secret:...}` only), its origin in the entry. A
/// key taken meanwhile is refused, nothing replaced. Talks to D-Bus, so
/// call it outside async code.
pub fn add(store: &Store, prepared: Prepared) -> Result<Added> {
    let plan = prepared
        .plan
        .expect("a Prepared is made by prepare, with its plan");
    let key = prepared.key;
    if store.load_config()?.mcp_servers.contains_key(&key) {
        return Err(super::servers::name_taken(&key));
    }
    let mut transport = plan.transport;
    let mut kept = Vec::new();
    if !plan.secrets.is_empty() {
        let secrets = super::secrets::open(store)?;
        let (section, values) = match &mut transport {
            Transport::Stdio { env, .. } => ("env", env),
            Transport::Http { headers, .. } => ("headers", headers),
        };
        for name in &plan.secrets {
            let Some(value) = values.get_mut(name) else {
                continue;
            };
            let secret = secret_name(&key, section, name);
            secrets.set(&secret, value)?;
            *value = reference(&secret);
            kept.push(SecretKept {
                server: key.clone(),
                section,
                key: name.clone(),
                secret,
                location: secrets.location(),
                moved: false,
            });
        }
    }
    let server = ServerConfig {
        transport,
        disabled: false,
        roots: Default::default(),
        origin: Some(Origin {
            registry: prepared.registry,
            name: prepared.name.clone(),
            version: prepared.version.clone(),
        }),
    };
    store.update_config(|config| {
        if config.mcp_servers.contains_key(&key) {
            return Err(super::servers::name_taken(&key));
        }
        config.mcp_servers.insert(key.clone(), server);
        Ok(())
    })?;
    Ok(Added {
        key,
        name: prepared.name,
        version: prepared.version,
        command: prepared.command,
        secrets: kept,
        runner_missing: prepared.runner_missing,
    })
}

/// The servers of `config` added from a registry that has published a
/// newer version since, key to that version. A registry that does not
/// answer in a few seconds says nothing: this is a notice, not a check.
pub async fn newer(config: &Config) -> BTreeMap<String, String> {
    let Ok(client) = client() else {
        return BTreeMap::new();
    };
    let mut asks = tokio::task::JoinSet::new();
    for (key, server) in &config.mcp_servers {
        let Some(origin) = server.origin.clone() else {
            continue;
        };
        let (client, key) = (client.clone(), key.clone());
        asks.spawn(async move {
            let base = origin.registry.trim_end_matches('/');
            let latest = entry(&client, base, &origin.name, None).await.ok()?;
            entries::is_newer(&latest.version, &origin.version).then_some((key, latest.version))
        });
    }
    let mut found = BTreeMap::new();
    let _ = tokio::time::timeout(NEWER_TIMEOUT, async {
        while let Some(done) = asks.join_next().await {
            if let Ok(Some((key, version))) = done {
                found.insert(key, version);
            }
        }
    })
    .await;
    found
}

/// `rows` with the newer versions their registries have published since
/// they were added; a registry that does not answer says nothing.
pub async fn with_newer_versions(
    config: &Config,
    mut rows: Vec<super::ServerRow>,
) -> Vec<super::ServerRow> {
    let newer = newer(config).await;
    for row in &mut rows {
        row.newer_version = newer.get(&row.name).cloned();
    }
    rows
}

/// The sentence for a runner not on `PATH`, or none when it is there.
fn missing_runner(runner: &str) -> Option<String> {
    let found = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(runner).is_file()));
    if found {
        return None;
    }
    let how = match runner {
        "npx" => "install Node.js (it brings npm and npx), e.g. from https://nodejs.org",
        "uvx" => {
            "install uv (it brings uvx), e.g. `pipx install uv` or from https://docs.astral.sh/uv"
        }
        _ => {
            "install Docker, or Podman with its docker command, e.g. from https://docs.docker.com/get-docker"
        }
    };
    Some(format!(
        "{runner} is not installed on this machine, and the server will not start until it is: {how}"
    ))
}

// The registry's answers (API v0.1), as far as they are read.

#[derive(Debug, Deserialize)]
struct ServerList {
    #[serde(default)]
    servers: Vec<Item>,
    #[serde(default)]
    metadata: Metadata,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Metadata {
    #[serde(default)]
    next_cursor: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Item {
    server: Entry,
    #[serde(default, rename = "_meta")]
    meta: Meta,
}

#[derive(Debug, Default, Deserialize)]
struct Meta {
    #[serde(default, rename = "io.modelcontextprotocol.registry/official")]
    official: Option<Official>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Official {
    #[serde(default)]
    is_latest: bool,
}

fn client() -> Result<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(TIMEOUT)
        .connect_timeout(Duration::from_secs(5))
        .user_agent(concat!("mcp-sieve/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|error| {
            ApiError::new(
                ErrorCode::Io,
                format!("cannot make an HTTP client: {error}"),
            )
        })
}

/// A path segment of the API: a server name has a slash to escape.
fn segment(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC).to_string()
}

/// Every version of `name`.
async fn versions(client: &reqwest::Client, registry: &str, name: &str) -> Result<Vec<Item>> {
    let url = format!("{registry}/v0.1/servers/{}/versions", segment(name));
    let list: ServerList = get(client, registry, &url, &[], || {
        not_found(registry, name, None)
    })
    .await?;
    Ok(list.servers)
}

/// Version `version` of `name` (`latest` without one).
async fn entry(
    client: &reqwest::Client,
    registry: &str,
    name: &str,
    version: Option<&str>,
) -> Result<Entry> {
    let url = format!(
        "{registry}/v0.1/servers/{}/versions/{}",
        segment(name),
        segment(version.unwrap_or("latest"))
    );
    let item: Item = get(client, registry, &url, &[], || {
        not_found(registry, name, version)
    })
    .await?;
    Ok(item.server)
}

fn not_found(registry: &str, name: &str, version: Option<&str>) -> String {
    match version {
        Some(version) => format!(
            "the registry {registry} has no version {version:?} of {name:?}; `mcp-sieve registry show {name}` lists its versions"
        ),
        None => format!(
            "the registry {registry} has no server {name:?}; `mcp-sieve registry search WORD` finds servers by name"
        ),
    }
}

/// GETs `url` and reads its JSON; `missing` says what a 404 means.
async fn get<T: serde::de::DeserializeOwned>(
    client: &reqwest::Client,
    registry: &str,
    url: &str,
    query: &[(&str, &str)],
    missing: impl FnOnce() -> String,
) -> Result<T> {
    let unreachable = |error: reqwest::Error| {
        // The innermost cause says it: "Connection refused", "dns error".
        let mut cause: &dyn std::error::Error = &error;
        while let Some(inner) = cause.source() {
            cause = inner;
        }
        ApiError::new(
            ErrorCode::Upstream,
            format!(
                "the registry {registry} cannot be reached ({cause}); check the network connection, or name another registry with --registry or settings.registries"
            ),
        )
    };
    let mut url = url.to_string();
    for (n, (name, value)) in query.iter().enumerate() {
        url.push(if n == 0 { '?' } else { '&' });
        url.push_str(&format!("{name}={}", segment(value)));
    }
    let url = url.as_str();
    let response = client.get(url).send().await.map_err(unreachable)?;
    let status = response.status();
    if status == reqwest::StatusCode::NOT_FOUND {
        return Err(ApiError::new(ErrorCode::NotFound, missing()));
    }
    if !status.is_success() {
        return Err(ApiError::new(
            ErrorCode::Upstream,
            format!("the registry {registry} answered {status} to {url}; try again later"),
        ));
    }
    let body = response.bytes().await.map_err(unreachable)?;
    serde_json::from_slice(&body).map_err(|error| {
        ApiError::new(
            ErrorCode::Upstream,
            format!(
                "the registry {registry} answered {url} with something that is not an MCP registry's (API v0.1) answer: {error}"
            ),
        )
    })
}
