//! The quarantine of new and changed tools (DESIGN §9): what is held and
//! why, with the approved and the new definition side by side, and the
//! two decisions a person makes, approve or keep hidden.
//!
//! Everything here reads and writes `approvals.json` only: the proxy that
//! saw a definition recorded it there, so neither the command line nor the
//! app has to connect to a server, and an approval is of exactly the
//! definition shown. Every running proxy watches the file and lists the
//! approved tool again, with `list_changed`.

use super::{ApiError, ErrorCode, Result};
use serde::Serialize;
use serde_json::Value;
use sieve_core::approvals::{Pending, Why};
use sieve_core::scan::Finding;
use sieve_core::{Approvals, Config};
use sieve_store::store::Store;

/// One tool in quarantine.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuarantinedTool {
    pub server: String,
    /// The upstream's name.
    pub name: String,
    /// The name hosts would see.
    pub exposed_name: String,
    /// Why, as `--explain` and `hiddenBy` say it:
    /// `quarantined: description changed`.
    pub reason: String,
    /// Never approved (a tool that appeared after the server was first
    /// seen).
    pub new: bool,
    /// What differs from the approved definition: `description`, `input
    /// schema`, ... (empty for a new tool).
    pub changed: Vec<String>,
    /// A person looked at this definition and kept it hidden.
    pub kept_hidden: bool,
    /// The definition last approved (name, title, description, schemas,
    /// annotations); `null` for a new tool.
    pub approved: Option<Value>,
    /// The definition in quarantine.
    pub pending: Value,
    /// What the scanner found in it that no approval accepted; approving
    /// accepts these.
    pub findings: Vec<Finding>,
}

impl QuarantinedTool {
    fn of(pending: &Pending, separator: &str) -> QuarantinedTool {
        let (new, changed) = match &pending.quarantine.why {
            Why::New => (true, Vec::new()),
            Why::Scanned => (false, Vec::new()),
            Why::Changed(parts) => (false, parts.iter().map(|p| p.to_string()).collect()),
        };
        QuarantinedTool {
            server: pending.server.to_string(),
            name: pending.name.to_string(),
            exposed_name: sieve_core::naming::exposed_name(pending.server, pending.name, separator),
            reason: format!("quarantined: {}", pending.quarantine),
            new,
            changed,
            kept_hidden: pending.quarantine.kept_hidden,
            approved: pending.approved.cloned(),
            pending: pending.pending.clone(),
            findings: pending.quarantine.findings.clone(),
        }
    }
}

/// Every tool in quarantine on record, servers and tools in name order;
/// servers no longer in the config are left out (their tools cannot be
/// listed anyway).
pub fn rows(config: &Config, approvals: &Approvals) -> Vec<QuarantinedTool> {
    let configured = |server: &str| {
        config.mcp_servers.is_empty() && server == sieve_gateway::engine::BUILTIN_SERVER
            || config.mcp_servers.contains_key(server)
    };
    approvals
        .pending()
        .filter(|p| configured(p.server))
        .map(|p| QuarantinedTool::of(&p, &config.settings.separator))
        .collect()
}

/// The tools in quarantine, read from the files now.
pub fn list(store: &Store) -> Result<Vec<QuarantinedTool>> {
    Ok(rows(&store.load_config()?, &store.load_approvals()?))
}

/// Which tools a decision is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// These tools, by exposed name.
    Tools(Vec<String>),
    /// Every tool of this server in quarantine.
    Server(String),
    /// Every tool in quarantine.
    All,
}

/// What a decision changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// The exposed names of the tools decided on, in name order.
    pub tools: Vec<String>,
}

/// Approves the tools of `selection` as they are in quarantine: every
/// profile judges them by its own rules again. A name that is not in
/// quarantine fails the whole call and nothing is written.
pub fn approve(store: &Store, selection: &Selection) -> Result<Decision> {
    decide(store, selection, Approvals::approve)
}

/// Keeps the tools of `selection` hidden: they stay in quarantine, marked
/// as looked at, until their definition changes again.
pub fn keep_hidden(store: &Store, selection: &Selection) -> Result<Decision> {
    decide(store, selection, Approvals::keep_hidden)
}

fn decide(
    store: &Store,
    selection: &Selection,
    apply: fn(&mut Approvals, &str, &str) -> bool,
) -> Result<Decision> {
    let config = store.load_config()?;
    if let Selection::Server(server) = selection
        && !config.mcp_servers.contains_key(server)
        && !(config.mcp_servers.is_empty() && server == sieve_gateway::engine::BUILTIN_SERVER)
    {
        return Err(ApiError {
            field: Some("server".into()),
            ..super::servers::no_server(server)
        });
    }
    let (_, decided) = store.update_approvals(|approvals| {
        let held = rows(&config, approvals);
        let chosen: Vec<&QuarantinedTool> = match selection {
            Selection::All => held.iter().collect(),
            Selection::Server(server) => held.iter().filter(|t| &t.server == server).collect(),
            Selection::Tools(names) => {
                let mut chosen = Vec::new();
                for name in names {
                    let Some(tool) = held.iter().find(|t| &t.exposed_name == name) else {
                        return Err(ApiError {
                            field: Some("tools".into()),
                            ..ApiError::new(
                                ErrorCode::NotFound,
                                format!(
                                    "{name:?} is not in quarantine; `mcp-sieve tools quarantined` lists the tools that are"
                                ),
                            )
                        });
                    };
                    chosen.push(tool);
                }
                chosen
            }
        };
        let mut tools: Vec<String> = chosen
            .into_iter()
            .filter(|t| apply(approvals, &t.server, &t.name))
            .map(|t| t.exposed_name.clone())
            .collect();
        tools.sort();
        tools.dedup();
        Ok(Decision { tools })
    })?;
    decided
}
