//! The AI hosts (DESIGN §11): which are on this machine and whether they
//! go through MCP Sieve; routing one or all of them through it (their
//! servers imported, secrets offered to the keychain, a profile per host)
//! and giving them back; the exact entry and snippet for each. The files
//! themselves are `sieve_store::hosts`'s; this adds the choices a person
//! makes and [`ApiError`](crate::ApiError)s.

use crate::{ApiError, ErrorCode, Result};
pub use sieve_store::hosts::route::{Left, RouteError, Routes};
pub use sieve_store::hosts::{
    Connection, ENTRY, HostDirs, HostKind, HostState, HostStatus, HostWrite, Platform, RouteReport,
    UnrouteReport, Via, profile_url,
};
use sieve_store::store::Store;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The HTTP endpoint the app serves, and `mcp-sieve serve --http
/// 127.0.0.1:8765` too: where HTTP entries point unless told otherwise.
pub const DEFAULT_HTTP_BASE: &str = "http://127.0.0.1:8765/mcp";

/// MCP Sieve's entry for `host`, as it goes under the server list.
pub fn entry(host: HostKind, connection: &Connection) -> Result<serde_json::Value> {
    Ok(sieve_store::hosts::entry(host, connection)?)
}

/// The snippet a person pastes into `host`'s file, in the file's format
/// (JSON, TOML or YAML).
pub fn snippet(host: HostKind, connection: &Connection) -> Result<String> {
    Ok(sieve_store::hosts::snippet(host, connection)?)
}

/// Where `host` keeps its user-wide config file.
pub fn default_path(host: HostKind) -> Result<PathBuf> {
    Ok(sieve_store::hosts::default_path(host)?)
}

/// Puts MCP Sieve's entry into `host`'s file at `path` (made when
/// missing), replacing an older `sieve` entry and keeping everything else.
pub fn write(host: HostKind, path: &Path, connection: &Connection) -> Result<HostWrite> {
    Ok(sieve_store::hosts::write(host, path, connection)?)
}

/// The folders hosts are looked for in: this user's, or with `home` (a
/// test's, or `--host-home`) that folder standing for the home folder,
/// its configuration folder where the platform puts it; then only files
/// count, not the programs on this machine's `PATH`, so what is found
/// depends on that folder alone.
pub fn dirs(home: Option<&Path>) -> Result<HostDirs> {
    let current = HostDirs::current().ok_or_else(|| {
        ApiError::new(
            ErrorCode::Io,
            "cannot find your home folder; pass --host-home DIR",
        )
    })?;
    let Some(home) = home else {
        return Ok(current);
    };
    let config_dir = match current.platform {
        Platform::Linux => home.join(".config"),
        Platform::MacOs => home.join("Library").join("Application Support"),
        Platform::Windows => home.join("AppData").join("Roaming"),
    };
    Ok(HostDirs {
        home_dir: home.to_path_buf(),
        config_dir,
        cwd: None,
        codex_home: None,
        path: Vec::new(),
        ..current
    })
}

/// Every host with where it stands, in the order a person is offered
/// them.
pub fn list(dirs: &HostDirs) -> Vec<HostStatus> {
    sieve_store::hosts::detect_all(dirs)
}

/// How routing reaches MCP Sieve and what it does with secrets.
#[derive(Debug, Clone)]
pub struct RouteOptions {
    /// The profile the host gets; default one named after it, made from
    /// what it had.
    pub profile: Option<String>,
    pub via: Via,
    /// Keep the env and header values of the imported servers in the
    /// secret store rather than in `config.json`.
    pub keep_secrets: bool,
}

/// Routes `host` through MCP Sieve: its servers imported, its profile,
/// its file rewritten to the single `sieve` entry. Twice changes nothing.
pub fn route(
    store: &Store,
    dirs: &HostDirs,
    host: HostKind,
    options: &RouteOptions,
) -> Result<RouteReport> {
    let path = host.user_path(dirs);
    let mut report =
        sieve_store::hosts::route(store, host, &path, options.profile.as_deref(), &options.via)?;
    if options.keep_secrets && !report.import.secrets.is_empty() {
        let secrets = crate::secrets::open(store)?;
        for value in report.import.secrets.clone() {
            let kept =
                crate::secrets::keep_secret(store, &secrets, &value.server, &value.key, None)?;
            report.import.kept_secrets.push(kept.secret);
        }
    }
    Ok(report)
}

/// One host's outcome in [`route_all`].
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Routed {
    pub host: HostKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<RouteReport>,
    /// Why it was not routed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ApiError>,
}

/// Routes every host on this machine (installed or routed already), each
/// with its own profile; one that fails (its file does not parse) does
/// not stop the others. Hosts that take only stdio entries get one when
/// `options.via` is HTTP with a stdio fallback.
pub fn route_all(store: &Store, dirs: &HostDirs, options: &RouteOptions) -> Vec<Routed> {
    list(dirs)
        .into_iter()
        .filter(|status| status.state != HostState::Absent)
        .map(|status| {
            let options = RouteOptions {
                // One profile per host: a name given for all would merge
                // them, so it applies to none.
                profile: None,
                ..options.clone()
            };
            match route(store, dirs, status.host, &options) {
                Ok(report) => Routed {
                    host: status.host,
                    report: Some(report),
                    error: None,
                },
                Err(error) => Routed {
                    host: status.host,
                    report: None,
                    error: Some(error),
                },
            }
        })
        .collect()
}

/// Gives `host` back the servers it had before it was routed.
pub fn unroute(store: &Store, dirs: &HostDirs, host: HostKind) -> Result<UnrouteReport> {
    Ok(sieve_store::hosts::unroute(
        store,
        host,
        &host.user_path(dirs),
    )?)
}

/// The hosts routed to each profile (for "used by Claude Code, Codex").
pub fn used_by(store: &Store) -> Result<BTreeMap<String, Vec<HostKind>>> {
    Ok(Routes::load(store)?.by_profile())
}

impl From<RouteError> for ApiError {
    fn from(error: RouteError) -> ApiError {
        match error {
            RouteError::HostFile(error) => ApiError::from(error),
            RouteError::Import(error) => ApiError::from(error),
            RouteError::Store(error) => ApiError::from(error),
            other => ApiError::invalid("transport", other),
        }
    }
}

/// Whether a host already hides MCP tools behind a tool search of its own
/// (issue 34), so a person knows when MCP Sieve's search mode
/// (`"disclosure": "search"`) helps. Each fact says where it was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ToolSearchKind {
    /// It defers MCP tools behind its own search unless told not to.
    Defers,
    /// It has a tool search of its own; whether it is on unless set was
    /// not confirmed.
    Has,
    /// No tool search was found in its program: it lists every tool.
    None,
    /// Not checked.
    Unknown,
}

/// What a host does itself about long tool lists, and the advice that
/// follows.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnToolSearch {
    pub kind: ToolSearchKind,
    /// The first version that deferred on its own, where found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<&'static str>,
    /// How it is switched, in the host's own words, where found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub how: Option<&'static str>,
    /// Where the fact was seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<&'static str>,
    /// Whether MCP Sieve's search mode is worth offering for this host.
    pub offer_search_mode: bool,
    /// One sentence for a person.
    pub advice: String,
}

/// What `host` does itself about long tool lists. The facts were read in
/// the hosts' own programs as `scripts/test-deps.sh` installs them
/// (Claude Code 2.1.331, Codex 0.169.0, Gemini CLI 0.61.0, Qwen Code
/// 0.24.4, opencode 1.18.33) and in public write-ups named in `source`.
pub fn own_tool_search(host: HostKind) -> OwnToolSearch {
    let (kind, since, how, source) = match host {
        HostKind::ClaudeCode => (
            ToolSearchKind::Defers,
            Some("2.1.7"),
            Some(
                "every MCP tool deferred behind ToolSearch (names listed, schemas loaded on demand), with 3 tools as with 40; ENABLE_TOOL_SEARCH=false turns it off",
            ),
            Some(
                "seen in Claude Code 2.1.331's first request to the model (tests/hosts_tool_search.rs); on without the variable since 2.1.7 per zenn.dev/him0/articles/8b6c82e592e30b",
            ),
        ),
        HostKind::Codex => (
            ToolSearchKind::Defers,
            None,
            Some(
                "every MCP tool deferred behind tool_search (BM25) for the models it knows to search (gpt-5.5), with 3 tools as with 300; a model it has no metadata for gets every tool",
            ),
            Some(
                "seen in Codex 0.169.0's first request to the model (tests/hosts_tool_search.rs); its feature tool_search_always_defer_mcp_tools is on and no longer a setting",
            ),
        ),
        HostKind::Qwen => (
            ToolSearchKind::Defers,
            None,
            Some(
                "tools.toolSearch.enabled (on unless set) keeps MCP tools behind its tool_search and tool_call bridge, with 3 tools as with 40; tools.toolSearch.threshold declares them when they fit in that share of the context",
            ),
            Some(
                "seen in Qwen Code 0.24.4's first request to the model (tests/hosts_tool_search.rs) and its bundled settings reference",
            ),
        ),
        HostKind::Opencode => (
            ToolSearchKind::None,
            None,
            None,
            Some(
                "seen in opencode 1.18.33's first request to the model through an OpenAI-compatible provider: every MCP tool, 300 of 300 (tests/hosts_tool_search.rs)",
            ),
        ),
        HostKind::VsCode => (
            ToolSearchKind::Has,
            None,
            None,
            Some("issue 34's report; not checked in VS Code's program (not installed here)"),
        ),
        HostKind::Gemini => (
            ToolSearchKind::None,
            None,
            None,
            Some("no tool search in Gemini CLI 0.61.0's package"),
        ),
        _ => (ToolSearchKind::Unknown, None, None, None),
    };
    let title = host.title();
    let advice = match kind {
        ToolSearchKind::Defers => format!(
            "{title} defers MCP tools behind its own tool search{}; MCP Sieve's search mode adds little there: keep the list mode and let the profile decide which tools exist",
            since.map(|v| format!(" (since {v})")).unwrap_or_default()
        ),
        ToolSearchKind::Has => format!(
            "{title} has a tool search of its own; use it or MCP Sieve's search mode, not both"
        ),
        ToolSearchKind::None => format!(
            "{title} shows the model every MCP tool: serve it a profile with \"disclosure\": \"search\" to show two tools instead"
        ),
        ToolSearchKind::Unknown => format!(
            "whether {title} defers MCP tools is not known; a profile with \"disclosure\": \"search\" shows the model two tools instead of all"
        ),
    };
    OwnToolSearch {
        kind,
        since,
        how,
        source,
        offer_search_mode: !matches!(kind, ToolSearchKind::Defers),
        advice,
    }
}

/// A host as `hosts list` shows it: where it stands, and what it does
/// itself about long tool lists.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostListing {
    #[serde(flatten)]
    pub status: HostStatus,
    pub tool_search: OwnToolSearch,
}

/// Every host with where it stands and its own tool search, in the order
/// a person is offered them.
pub fn listing(dirs: &HostDirs) -> Vec<HostListing> {
    list(dirs)
        .into_iter()
        .map(|status| HostListing {
            tool_search: own_tool_search(status.host),
            status,
        })
        .collect()
}

#[cfg(test)]
mod tool_search_tests {
    use super::*;

    #[test]
    fn each_host_says_whether_to_offer_search_mode() {
        let claude = own_tool_search(HostKind::ClaudeCode);
        assert_eq!(claude.kind, ToolSearchKind::Defers);
        assert_eq!(claude.since, Some("2.1.7"));
        assert!(!claude.offer_search_mode);
        assert!(claude.advice.contains("since 2.1.7"), "{}", claude.advice);
        let gemini = own_tool_search(HostKind::Gemini);
        assert!(gemini.offer_search_mode);
        assert!(gemini.advice.contains("\"disclosure\": \"search\""));
        let json = serde_json::to_value(own_tool_search(HostKind::VsCode)).unwrap();
        assert_eq!(json["kind"], "has");
        assert_eq!(json["offerSearchMode"], true);
        for host in HostKind::ALL {
            let said = own_tool_search(host);
            assert!(said.advice.contains(host.title()), "{}", said.advice);
            assert_eq!(said.source.is_some(), said.kind != ToolSearchKind::Unknown);
        }
    }
}
