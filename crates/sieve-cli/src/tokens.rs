//! `mcp-sieve tokens`: tokens of the tool list before and after the
//! profile, per server.

use crate::output::print_json;
use crate::source::{SourceArgs, listed};
use anyhow::Result;
use clap::Args;
use sieve_api::Store;
use sieve_api::TokenCount;
use std::io::Write;

#[derive(Debug, Args)]
pub struct TokensArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// Print JSON (documented in docs/cli.md).
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn run(store: &Store, args: &TokensArgs, out: &mut dyn Write) -> Result<()> {
    let (listed, profile) = listed(store, &args.source)?;
    let report = listed.tokens(&profile);
    if args.json {
        return print_json(out, &report);
    }
    let width = report
        .servers
        .keys()
        .map(String::len)
        .max()
        .unwrap_or(0)
        .max(6);
    writeln!(
        out,
        "{:width$}  {:>13}  {:>17}  saved",
        "server", "tools", "tokens"
    )?;
    let line = |name: &str, c: &TokenCount| {
        // Rounded down: a list that still costs tokens never shows 100 %.
        let saved = if c.before == 0 {
            0.0
        } else {
            (100.0 * c.before.saturating_sub(c.after) as f64 / c.before as f64).floor()
        };
        format!(
            "{name:width$}  {:>6} / {:<4}  {:>8} / {:<6}  {saved:.0}%",
            c.tools_after, c.tools_before, c.after, c.before
        )
    };
    for (server, count) in &report.servers {
        writeln!(out, "{}", line(server, count))?;
    }
    let total = TokenCount {
        tools_before: report.tools_before,
        tools_after: report.tools_after,
        before: report.before,
        after: report.after,
    };
    writeln!(out, "{}", line("total", &total))?;
    if let Some(search) = report.search {
        writeln!(
            out,
            "search mode: the host lists the proxy's 2 search tools ({search} tokens), counted in the total; \
             the profile's tools are found through them"
        )?;
    }
    writeln!(
        out,
        "tokens (o200k_base) of the tool definitions the model sees under profile {:?}",
        report.profile
    )?;
    Ok(())
}
