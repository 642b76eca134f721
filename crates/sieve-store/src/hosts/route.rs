//! Routing a host through MCP Sieve, and giving it back.
//!
//! [`route`] moves what a host had behind MCP Sieve in one step: its
//! servers are imported into `config.json`, a profile named after the host
//! is made from them (so the host can still do everything it could, and
//! nothing more), its file is rewritten to the single `sieve` entry, and
//! the servers taken out are recorded in `hosts.json` exactly as the file
//! wrote them. [`unroute`] puts those entries back and takes MCP Sieve's
//! out. Both run under `hosts.json`'s lock, so two of them never
//! interleave; doing either twice changes nothing the second time.
//!
//! Entries MCP Sieve cannot run for the host (a built-in Goose extension,
//! an SSE server, a `${input:..}` variable only the host fills in) stay in
//! the host's file, so routing never takes anything away.

use super::entry::{Connection, ENTRY, entry, profile_url, sieve_profile};
use super::error::HostFileError;
use super::file::{HostFile, HostWrite};
use super::import::{self, ImportReport, SkipReason};
use super::kind::HostKind;
use crate::store::{Absent, Store, StoreError, WriteWhen, update_locked};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sieve_core::Profile;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `hosts.json`: the hosts routed through MCP Sieve.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Routes {
    #[serde(default)]
    pub hosts: BTreeMap<HostKind, Route>,
}

/// One routed host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Route {
    /// The host's file that was rewritten.
    pub path: PathBuf,
    /// The profile the host gets.
    pub profile: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// The servers taken out of the host's file, as it wrote them.
    #[serde(default)]
    pub servers: Vec<HeldServer>,
}

/// A server taken out of a host's file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HeldServer {
    /// Its name in the host's file.
    pub name: String,
    /// Its entry, exactly as the host's file had it.
    pub entry: Value,
    /// Its name in `config.json`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_name: Option<String>,
}

impl Routes {
    /// Parses `hosts.json`; `file` names it in messages.
    pub fn parse(file: &str, text: &str) -> Result<Routes, sieve_core::ParseError> {
        sieve_core::parse::decode(file, text)
    }

    /// Reads `store`'s `hosts.json`; none routed when there is no file.
    pub fn load(store: &Store) -> Result<Routes, StoreError> {
        let path = store.home().hosts_file();
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(Routes::parse(&path.display().to_string(), &text)?),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Routes::default()),
            Err(error) => Err(StoreError::Io {
                action: "read",
                path,
                cause: error,
            }),
        }
    }

    /// The hosts routed to each profile.
    pub fn by_profile(&self) -> BTreeMap<String, Vec<HostKind>> {
        let mut by_profile: BTreeMap<String, Vec<HostKind>> = BTreeMap::new();
        for (host, route) in &self.hosts {
            by_profile
                .entry(route.profile.clone())
                .or_default()
                .push(*host);
        }
        by_profile
    }
}

/// How routed hosts reach MCP Sieve; the profile is chosen per host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Via {
    /// The host starts `COMMAND [--home HOME] serve --profile NAME`.
    Stdio {
        command: PathBuf,
        home: Option<PathBuf>,
    },
    /// The host connects to `BASE/p/NAME` with the bearer token. Hosts
    /// that take only stdio entries (Claude Desktop) get `fallback`.
    Http {
        base: String,
        token: String,
        fallback: Option<Box<Via>>,
    },
}

impl Via {
    fn connection(&self, host: HostKind, profile: &str) -> Option<Connection> {
        match self {
            Via::Stdio { command, home } => Some(Connection::Stdio {
                command: command.clone(),
                profile: profile.to_string(),
                home: home.clone(),
            }),
            Via::Http { base, token, .. } if host.takes_http() => Some(Connection::Http {
                url: profile_url(base, profile),
                token: token.clone(),
            }),
            Via::Http { fallback, .. } => fallback.as_ref()?.connection(host, profile),
        }
    }
}

/// A server left in the host's file, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Left {
    pub name: String,
    pub reason: String,
}

/// What [`route`] did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteReport {
    pub host: HostKind,
    pub path: PathBuf,
    /// The profile the host now gets.
    pub profile: String,
    /// Whether that profile was made now.
    pub profile_created: bool,
    /// What importing the host's servers did to `config.json`.
    pub import: ImportReport,
    /// The servers taken out of the host's file now (kept in `hosts.json`).
    pub moved: Vec<String>,
    /// The servers left in the host's file, each with the reason.
    pub left: Vec<Left>,
    /// What writing the host's file did.
    pub write: HostWrite,
}

/// What [`unroute`] did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnrouteReport {
    pub host: HostKind,
    pub path: PathBuf,
    /// The servers put back into the host's file.
    pub restored: Vec<String>,
    /// Recorded servers not put back because the file has a server of
    /// that name again.
    pub kept: Vec<String>,
    /// False when `hosts.json` had no record of the host: only MCP
    /// Sieve's entry was taken out.
    pub recorded: bool,
    pub write: HostWrite,
}

/// Errors of routing: the host's file, or MCP Sieve's own files.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RouteError {
    #[error(transparent)]
    HostFile(#[from] HostFileError),
    #[error(transparent)]
    Import(#[from] import::ImportError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Claude Desktop and `--http` without a stdio fallback.
    #[error("{host} reads only stdio entries; route it without --http")]
    NeedsStdio { host: &'static str },
}

fn update_routes<R>(
    store: &Store,
    change: impl FnOnce(&mut Routes) -> Result<R, RouteError>,
) -> Result<R, RouteError> {
    let path = store.home().hosts_file();
    let file = path.display().to_string();
    update_locked(
        &path,
        (Absent::Empty, WriteWhen::Changed),
        |text| Routes::parse(&file, text),
        |routes| {
            let mut text = serde_json::to_string_pretty(routes).expect("routes serialise");
            text.push('\n');
            Ok(text)
        },
        change,
    )
}

/// Routes `host`, whose file is at `path`, through MCP Sieve with
/// `profile` (default: one named after the host, made from the host's
/// servers).
pub fn route(
    store: &Store,
    host: HostKind,
    path: &Path,
    profile: Option<&str>,
    via: &Via,
) -> Result<RouteReport, RouteError> {
    update_routes(store, |routes| {
        let mut file = HostFile::open(host, path)?;
        let previous = routes.hosts.get(&host).cloned();
        let profile_name = profile
            .map(str::to_string)
            .or_else(|| previous.as_ref().map(|route| route.profile.clone()))
            .unwrap_or_else(|| host.as_str().to_string());
        let connection = via
            .connection(host, &profile_name)
            .ok_or(RouteError::NeedsStdio { host: host.title() })?;
        let file_name = path.display().to_string();

        // What the host has besides MCP Sieve's own entry, converted.
        let mut left = Vec::new();
        let mut movable = Vec::new();
        for (name, raw) in file.servers()? {
            if name == ENTRY && sieve_profile(host, &raw).is_some() {
                continue;
            }
            let converted = import::host_entry(host, &file_name, name.clone(), &raw);
            match &converted.server {
                Ok(_) => movable.push((converted, raw)),
                Err(error) => left.push(Left {
                    name,
                    reason: error.to_string(),
                }),
            }
        }
        let entries = movable.iter().map(|(entry, _)| entry.clone()).collect();
        let mut report = store
            .update_config(|config| Ok::<_, StoreError>(import::merge(config, entries, host)))?;
        report.file = Some(path.to_path_buf());

        // Where each moved server is in config.json now.
        let config_name = |name: &str| -> Option<String> {
            if report.added.iter().any(|added| added == name) {
                return Some(name.to_string());
            }
            if let Some(renamed) = report.renamed.iter().find(|r| r.from == name) {
                return Some(renamed.to.clone());
            }
            report
                .skipped
                .iter()
                .find_map(|skipped| match &skipped.reason {
                    SkipReason::AlreadyPresent { existing } if skipped.name == name => {
                        Some(existing.clone())
                    }
                    _ => None,
                })
        };
        let mut held = previous
            .as_ref()
            .map(|route| route.servers.clone())
            .unwrap_or_default();
        let mut moved = Vec::new();
        for (entry, raw) in &movable {
            if let Some(slot) = held.iter_mut().find(|held| held.name == entry.name) {
                // The host has this name again (added after routing): the
                // newer entry is what it had last.
                slot.entry = raw.clone();
                slot.config_name = config_name(&entry.name);
            } else {
                held.push(HeldServer {
                    name: entry.name.clone(),
                    entry: raw.clone(),
                    config_name: config_name(&entry.name),
                });
            }
            moved.push(entry.name.clone());
        }

        // The host's profile: made from what it had, or grown by what it
        // gained since it was routed; a profile the person named is used
        // as it is.
        let servers: Vec<String> = held.iter().filter_map(|h| h.config_name.clone()).collect();
        let owned =
            profile.is_none() || previous.as_ref().is_some_and(|r| r.profile == profile_name);
        let profile_created = match store.load_profile(&profile_name, None) {
            Ok(_) if owned => {
                store.update_profile(&profile_name, |existing: &mut Profile| {
                    if let Some(list) = existing.servers.as_mut() {
                        for server in &servers {
                            if !list.contains(server) {
                                list.push(server.clone());
                            }
                        }
                    }
                    Ok::<_, StoreError>(())
                })?;
                false
            }
            Ok(_) => false,
            Err(StoreError::NoProfile { .. }) => {
                store.new_profile(&profile_name, None)?;
                store.update_profile(&profile_name, |made: &mut Profile| {
                    made.description = format!(
                        "What {} had before it was routed through MCP Sieve",
                        host.title()
                    );
                    made.servers = Some(servers.clone());
                    Ok::<_, StoreError>(())
                })?;
                true
            }
            Err(error) => return Err(error.into()),
        };

        // The host's file: its servers out, MCP Sieve's entry in.
        for name in &moved {
            file.remove(name)?;
        }
        let wanted = entry(host, &connection)?;
        if file.server(ENTRY)?.as_ref() != Some(&wanted) {
            file.set(ENTRY, &wanted)?;
        }
        let write = file.save()?;
        routes.hosts.insert(
            host,
            Route {
                path: path.to_path_buf(),
                profile: profile_name.clone(),
                transport: match connection {
                    Connection::Stdio { .. } => "stdio".into(),
                    Connection::Http { .. } => "http".into(),
                },
                servers: held,
            },
        );
        Ok(RouteReport {
            host,
            path: path.to_path_buf(),
            profile: profile_name,
            profile_created,
            import: report,
            moved,
            left,
            write,
        })
    })
}

/// Gives `host` back the servers it had: the entries recorded when it was
/// routed go back into its file (at `path`, or where it was routed), and
/// MCP Sieve's entry comes out.
pub fn unroute(store: &Store, host: HostKind, path: &Path) -> Result<UnrouteReport, RouteError> {
    update_routes(store, |routes| {
        let record = routes.hosts.remove(&host);
        let path = record.as_ref().map_or(path, |route| route.path.as_path());
        let mut file = HostFile::open(host, path)?;
        if file
            .server(ENTRY)?
            .is_some_and(|entry| sieve_profile(host, &entry).is_some())
        {
            file.remove(ENTRY)?;
        }
        let present: Vec<String> = file.servers()?.into_iter().map(|(name, _)| name).collect();
        let mut restored = Vec::new();
        let mut kept = Vec::new();
        for held in record.iter().flat_map(|route| &route.servers) {
            if present.contains(&held.name) {
                kept.push(held.name.clone());
            } else {
                file.set(&held.name, &held.entry)?;
                restored.push(held.name.clone());
            }
        }
        let write = file.save()?;
        Ok(UnrouteReport {
            host,
            path: path.to_path_buf(),
            restored,
            kept,
            recorded: record.is_some(),
            write,
        })
    })
}
