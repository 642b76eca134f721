//! `mcp-sieve tools`: the tools with their labels, what the profile hides
//! and why, and the review of the tools held in quarantine (`quarantined`,
//! `approve`, `keep-hidden`).

use crate::output::print_json;
use crate::source::{SourceArgs, listed};
use anyhow::Result;
use clap::{Args, Subcommand};
use sieve_api::Kind;
use sieve_api::Store;
use sieve_api::{self as api, PrimitiveRow};
use std::io::Write;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ToolsCommand {
    #[command(subcommand)]
    pub action: Option<ToolsAction>,
    #[command(flatten)]
    pub list: ToolsArgs,
}

/// Decisions on tools that are new or changed since approved.
#[derive(Debug, Subcommand)]
pub enum ToolsAction {
    /// Approve tools held in quarantine, as they are shown there: every
    /// profile then judges them by its own rules again.
    #[command(group(clap::ArgGroup::new("which").required(true).args(["names", "server", "all"])))]
    Approve {
        /// Exposed names, as `tools quarantined` prints them.
        #[arg(value_name = "NAME")]
        names: Vec<String>,
        /// Every tool of this server in quarantine.
        #[arg(long, value_name = "SERVER", conflicts_with_all = ["names", "all"])]
        server: Option<String>,
        /// Every tool in quarantine.
        #[arg(long, conflicts_with = "names")]
        all: bool,
        /// Print JSON (documented in docs/cli.md).
        #[arg(long)]
        json: bool,
    },
    /// Keep tools in quarantine as looked at, until they change again.
    KeepHidden {
        /// Exposed names, as `tools quarantined` prints them.
        #[arg(value_name = "NAME", required = true)]
        names: Vec<String>,
        /// Print JSON (documented in docs/cli.md).
        #[arg(long)]
        json: bool,
    },
    /// List the tools held in quarantine because they are new or changed
    /// since approved, and what changed.
    Quarantined {
        /// Print JSON (documented in docs/cli.md), with both definitions.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Args)]
pub struct ToolsArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// Also list the tools the profile hides.
    #[arg(long)]
    pub hidden: bool,
    /// Say which rule hides each hidden tool (implies --hidden).
    #[arg(long)]
    pub explain: bool,
    /// Print JSON (documented in docs/cli.md).
    #[arg(long)]
    pub json: bool,
}

/// Runs `tools`: the review of the quarantine when a subcommand is given,
/// else the tool list.
pub(crate) fn run(store: &Store, command: ToolsCommand, out: &mut dyn Write) -> Result<()> {
    match command.action {
        Some(action) => quarantine(store, action, out),
        None => list(store, &command.list, out),
    }
}

fn list(store: &Store, args: &ToolsArgs, out: &mut dyn Write) -> Result<()> {
    let (listed, profile) = listed(store, &args.source)?;
    let show_hidden = args.hidden || args.explain;
    let mut rows = listed.rows(&profile, &[Kind::Tool]);
    // One live server's tools (a catalog file's are that server's already).
    if let (Some(server), true) = (&args.source.server, args.source.catalogs.is_empty()) {
        rows.retain(|r| r.server == *server);
    }
    let total = rows.len();
    let visible = rows.iter().filter(|r| r.visible).count();
    let shown: Vec<&PrimitiveRow> = rows.iter().filter(|r| show_hidden || r.visible).collect();
    if args.json {
        return print_json(out, &shown);
    }
    let name_width = shown
        .iter()
        .map(|r| r.exposed_name.len())
        .max()
        .unwrap_or(0);
    for r in &shown {
        let mark = if r.visible { " " } else { "-" };
        writeln!(
            out,
            "{mark} {:name_width$}  tags: {}  groups: {}  concerns: {}",
            r.exposed_name,
            join(r.tags.iter()),
            join(r.groups.iter()),
            join(r.concerns.iter().map(|(k, v)| format!("{k}={v}")))
        )?;
        if args.explain && !r.visible {
            writeln!(out, "    hidden by: {}", r.hidden_by.join("; "))?;
        }
    }
    let hint = if total > visible && !show_hidden {
        " (--hidden lists the others, --explain says why)"
    } else {
        ""
    };
    writeln!(
        out,
        "{visible} of {total} tools visible under profile {:?}{hint}",
        profile.name
    )?;
    Ok(())
}

fn quarantine(store: &Store, action: ToolsAction, out: &mut dyn Write) -> Result<()> {
    use api::quarantine::{self, Selection};
    let (decision, json, verb) = match action {
        ToolsAction::Quarantined { json } => {
            let held = quarantine::list(store)?;
            if json {
                return print_json(out, &held);
            }
            if held.is_empty() {
                writeln!(out, "no tool is in quarantine")?;
                return Ok(());
            }
            for tool in &held {
                writeln!(out, "{}  {}", tool.exposed_name, tool.reason)?;
                for part in ["title", "description"] {
                    let before = tool.approved.as_ref().and_then(|d| d.get(part));
                    let after = tool.pending.get(part);
                    if before != after {
                        let text = |v: Option<&serde_json::Value>| {
                            v.and_then(serde_json::Value::as_str)
                                .map_or_else(|| "(none)".to_string(), |s| format!("{s:?}"))
                        };
                        if before.is_some() {
                            writeln!(out, "    {part} was: {}", text(before))?;
                        }
                        writeln!(out, "    {part} now: {}", text(after))?;
                    }
                }
            }
            let n = held.len();
            writeln!(
                out,
                "{n} tool{} in quarantine: `mcp-sieve tools approve NAME...` shows one again (`--json` prints both definitions in full)",
                if n == 1 { "" } else { "s" }
            )?;
            return Ok(());
        }
        ToolsAction::Approve {
            names,
            server,
            all,
            json,
        } => {
            let selection = match (server, all) {
                (Some(server), _) => Selection::Server(server),
                (None, true) => Selection::All,
                (None, false) => Selection::Tools(names),
            };
            (quarantine::approve(store, &selection)?, json, "approved")
        }
        ToolsAction::KeepHidden { names, json } => (
            quarantine::keep_hidden(store, &Selection::Tools(names))?,
            json,
            "kept hidden",
        ),
    };
    if json {
        return print_json(out, &decision);
    }
    if decision.tools.is_empty() {
        writeln!(out, "no tool was in quarantine; nothing changed")?;
    }
    for tool in &decision.tools {
        writeln!(out, "{verb}: {tool}")?;
    }
    Ok(())
}

/// Comma-separated items, or `-` for none.
fn join<T: AsRef<str>>(items: impl Iterator<Item = T>) -> String {
    let joined = items
        .map(|s| s.as_ref().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if joined.is_empty() {
        "-".into()
    } else {
        joined
    }
}
