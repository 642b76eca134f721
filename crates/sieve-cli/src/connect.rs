//! `mcp-sieve connect`: the config entry that connects a host to MCP Sieve,
//! printed or written into the host's file.

use crate::hosts::host_kind_parser;
use anyhow::{Context, Result};
use clap::Args;
use sieve_api::HostKind;
use sieve_api::Store;
use sieve_api::{self as api, Connection};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct ConnectArgs {
    /// The host (`mcp-sieve hosts list` names them all).
    #[arg(value_parser = host_kind_parser())]
    pub host: HostKind,
    /// The profile the host gets (stdio).
    #[arg(long, short, default_value = "default", value_name = "NAME")]
    pub profile: String,
    /// Connect over HTTP to this URL (e.g. http://127.0.0.1:8765/mcp/p/work)
    /// with the bearer token, instead of starting `mcp-sieve serve`.
    #[arg(long, value_name = "URL")]
    pub http: Option<String>,
    /// Write the entry into the host's config file.
    #[arg(long)]
    pub write: bool,
    /// The host's config file (default: where the host keeps it).
    #[arg(long, value_name = "FILE", requires = "write")]
    pub path: Option<PathBuf>,
}

/// Prints the host's config entry, or writes it into the host's file.
pub(crate) fn run(store: &Store, args: &ConnectArgs, out: &mut dyn Write) -> Result<()> {
    let connection = match &args.http {
        Some(url) => Connection::Http {
            url: url.clone(),
            token: store.http_token()?,
        },
        None => Connection::Stdio {
            command: std::env::current_exe().context("cannot tell where mcp-sieve is installed")?,
            profile: args.profile.clone(),
            home: store.home().explicit().map(Path::to_path_buf),
        },
    };
    if !args.write {
        write!(out, "{}", api::hosts::snippet(args.host, &connection)?)?;
        return Ok(());
    }
    let path = match &args.path {
        Some(path) => path.clone(),
        None => api::hosts::default_path(args.host)?,
    };
    let written = api::hosts::write(args.host, &path, &connection)?;
    if !written.changed {
        writeln!(out, "{} has the sieve entry already", path.display())?;
        return Ok(());
    }
    writeln!(out, "wrote the sieve entry into {}", path.display())?;
    if let Some(backup) = &written.backup {
        writeln!(out, "the previous file is {}", backup.display())?;
    }
    writeln!(
        out,
        "restart {} to connect it to MCP Sieve",
        args.host.title()
    )?;
    Ok(())
}
