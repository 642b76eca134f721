//! Where `tools` and `tokens` take the tools from (the servers, or catalog
//! files) and which profile filters them.

use crate::runtime::runtime;
use anyhow::Result;
use clap::Args;
use sieve_api::Store;
use sieve_api::profiles::CompiledProfile;
use sieve_api::{self as api, Listed};
use std::path::PathBuf;

/// Where the tools come from and which profile filters them.
#[derive(Debug, Args)]
pub struct SourceArgs {
    /// Profile to apply (default: the active one).
    #[arg(long, short, value_name = "NAME")]
    pub profile: Option<String>,
    /// Read tools from FILE (a JSON array of MCP tools, or a tools/list
    /// result) instead of the servers; repeat for several servers.
    #[arg(long = "catalog", value_name = "FILE")]
    pub catalogs: Vec<PathBuf>,
    /// With one --catalog, the server's name (default: the file's stem);
    /// without --catalog, only this configured server's tools.
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,
}

/// What the servers (or catalog files) list, with the profile compiled;
/// warnings go to stderr.
pub(crate) fn listed(store: &Store, source: &SourceArgs) -> Result<(Listed, CompiledProfile)> {
    let config = store.load_config()?;
    let name = source
        .profile
        .clone()
        .unwrap_or_else(|| config.settings.active_profile.clone());
    let profile = api::profiles::compile(store, &name, &config)?;
    for warning in &profile.warnings {
        eprintln!("warning: profile {}: {warning}", profile.name);
    }
    let listed = if source.catalogs.is_empty() {
        if let Some(server) = &source.server
            && !config.mcp_servers.contains_key(server)
        {
            let names: Vec<&str> = config.mcp_servers.keys().map(String::as_str).collect();
            anyhow::bail!(
                "--server: there is no server {server:?} in config.json{}; `mcp-sieve servers list` shows them, or give a file with --catalog",
                if names.is_empty() {
                    String::new()
                } else {
                    format!(" (there are {})", names.join(", "))
                }
            );
        }
        runtime()?.block_on(Listed::live(store))?
    } else {
        Listed::from_files(store, &source.catalogs, source.server.as_deref())?
    };
    for warning in &listed.warnings {
        eprintln!("warning: {warning}");
    }
    Ok((listed, profile))
}
