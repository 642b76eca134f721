//! `mcp-sieve scan`: what the tool-poisoning scanner finds in the
//! servers' tools and prompts, or in a catalog file's.

use crate::output::print_json;
use crate::source::{SourceArgs, listed};
use anyhow::Result;
use clap::Args;
use sieve_api::Store;
use std::io::Write;

#[derive(Debug, Args)]
pub struct ScanArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// Print JSON: `[{name, kind, findings: [{kind, field, excerpt, says}]}]`.
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn run(store: &Store, args: &ScanArgs, out: &mut dyn Write) -> Result<()> {
    let (listed, _) = listed(store, &args.source)?;
    // A catalog file's tools are that server's already.
    let server = args
        .source
        .server
        .as_deref()
        .filter(|_| args.source.catalogs.is_empty());
    let tools = sieve_api::scan::findings(&listed, server);
    if args.json {
        return print_json(out, &tools);
    }
    if tools.is_empty() {
        writeln!(
            out,
            "no findings: nothing in these tools' and prompts' definitions looks poisoned"
        )?;
    }
    for tool in &tools {
        match tool.kind {
            sieve_api::Kind::Prompt => writeln!(out, "{} (prompt)", tool.name)?,
            _ => writeln!(out, "{}", tool.name)?,
        }
        for f in &tool.findings {
            writeln!(out, "  {}: {}", f.kind.as_str(), f.reason())?;
            writeln!(out, "    {:?}", f.excerpt)?;
        }
    }
    Ok(())
}
