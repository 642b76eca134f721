//! `mcp-sieve audit`: the calls recorded with `settings.audit` on, newest
//! first, filtered like `mcp-sieve tasks`.

use crate::output::print_json;
use anyhow::Result;
use clap::Args;
use sieve_api::audit::AuditFilter;
use sieve_api::{self as api, Store, now_ms};
use std::io::Write;

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Only calls since: an age (90s, 45m, 3h, 2d) or a timestamp.
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Only calls before: an age or a timestamp.
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,
    /// Only calls to this server (repeatable).
    #[arg(long, value_name = "NAME")]
    pub server: Vec<String>,
    /// Only calls that ended so (ok, error, refused, cancelled),
    /// comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "S,...")]
    pub status: Vec<String>,
    /// Only calls of this tool, by the name hosts call it (repeatable).
    #[arg(long, value_name = "NAME")]
    pub tool: Vec<String>,
    /// At most this many (1-1000).
    #[arg(long, default_value_t = 50)]
    pub limit: u32,
    /// Continue after a previous page (its nextCursor).
    #[arg(long, value_name = "CURSOR")]
    pub cursor: Option<String>,
    /// Print JSON (documented in docs/cli.md).
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn run(store: &Store, args: AuditArgs, out: &mut dyn Write) -> Result<()> {
    let filter = AuditFilter {
        since: args.since,
        until: args.until,
        servers: args.server,
        status: args.status,
        tools: args.tool,
        limit: Some(args.limit),
        cursor: args.cursor,
    };
    let page = api::audit::list(store, &filter, now_ms()).map_err(|error| {
        match error.field.as_deref() {
            Some(field) => anyhow::anyhow!("--{field}: {}", error.message),
            None => error.into(),
        }
    })?;
    if args.json {
        return print_json(out, &page);
    }
    if page.calls.is_empty() {
        writeln!(
            out,
            "no audited calls match (settings.audit turns the audit on)"
        )?;
        return Ok(());
    }
    let text =
        |call: &serde_json::Value, key: &str| call[key].as_str().unwrap_or_default().to_string();
    for call in &page.calls {
        writeln!(
            out,
            "{}  {:9}  {:>7} ms  {:28}  {:12}  {}",
            text(call, "at"),
            text(call, "status"),
            call["durationMs"].as_i64().unwrap_or_default(),
            text(call, "tool"),
            text(call, "profile"),
            text(call, "who"),
        )?;
    }
    if let Some(cursor) = &page.next_cursor {
        writeln!(out, "(more: --cursor {cursor})")?;
    }
    Ok(())
}
