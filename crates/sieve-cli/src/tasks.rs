//! `mcp-sieve tasks`: the task ledger; list, show, retry and cancel tasks
//! and failed calls.

use crate::output::print_json;
use crate::runtime::with_engine;
use anyhow::Result;
use clap::{Args, Subcommand};
use sieve_api::Store;
use sieve_api::now_ms;
use sieve_api::{self as api, TaskFilter};
use std::io::Write;

#[derive(Debug, Args)]
pub struct TasksArgs {
    #[command(subcommand)]
    pub action: Option<TaskAction>,
    /// Only these statuses (working, input_required, completed, failed,
    /// cancelled), comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "S,...")]
    pub status: Vec<String>,
    /// Only tasks updated since: an age (90s, 45m, 3h, 2d) or a timestamp.
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Only tasks updated before: an age or a timestamp.
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,
    /// Only tasks of this server (repeatable).
    #[arg(long, value_name = "NAME")]
    pub server: Vec<String>,
    /// Only tasks of this method, e.g. tools/call (repeatable).
    #[arg(long, value_name = "M")]
    pub method: Vec<String>,
    /// Only the tasks of this signed-in person (their `sub`).
    #[arg(long, value_name = "SUB")]
    pub owner: Option<String>,
    /// Order by createdAt or lastUpdatedAt (the default).
    #[arg(long, value_name = "FIELD", default_value = "lastUpdatedAt")]
    pub order_by: String,
    /// Oldest first.
    #[arg(long)]
    pub asc: bool,
    /// At most this many (1-500).
    #[arg(long, default_value_t = 50)]
    pub limit: u32,
    /// Print JSON (documented in docs/cli.md).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum TaskAction {
    /// Everything recorded about one entry.
    Show { id: String },
    /// Run an entry's request again, as a new entry pointing to it.
    Retry {
        id: String,
        /// Run it even if it completed (or is still running).
        #[arg(long)]
        force: bool,
        /// Check visibility against this profile (default: the active one).
        #[arg(long, short, value_name = "NAME")]
        profile: Option<String>,
        /// Print JSON (documented in docs/cli.md).
        #[arg(long)]
        json: bool,
    },
    /// Ask the server to cancel a running task.
    Cancel { id: String },
}

/// Names the command line's flag for a field of the task filter.
fn flag_of(field: &str) -> &str {
    match field {
        "status" => "--status",
        "since" => "--since",
        "until" => "--until",
        "orderBy" => "--order-by",
        "limit" => "--limit",
        other => other,
    }
}

pub(crate) fn run(store: Store, args: TasksArgs, out: &mut dyn Write) -> Result<()> {
    match args.action {
        None => {
            let filter = TaskFilter {
                status: args.status,
                since: args.since,
                until: args.until,
                servers: args.server,
                methods: args.method,
                order_by: Some(args.order_by),
                ascending: args.asc,
                limit: Some(args.limit),
                cursor: None,
                owner: args.owner,
            };
            let page = api::tasks::list(&store, &filter, now_ms()).map_err(|error| match &error
                .field
            {
                Some(field) => anyhow::anyhow!("{}: {}", flag_of(field), error.message),
                None => error.into(),
            })?;
            if args.json {
                return print_json(out, &page);
            }
            if page.tasks.is_empty() {
                writeln!(out, "no tasks match")?;
                return Ok(());
            }
            let meta = |task: &serde_json::Value, key: &str| {
                task["_meta"][format!("dev.mcp-sieve/{key}")]
                    .as_str()
                    .map(String::from)
            };
            for task in &page.tasks {
                writeln!(
                    out,
                    "{}  {:14}  {:24}  {}  {}{}",
                    task["taskId"].as_str().unwrap_or_default(),
                    task["status"].as_str().unwrap_or_default(),
                    meta(task, "tool")
                        .or_else(|| meta(task, "method"))
                        .unwrap_or_default(),
                    task["lastUpdatedAt"].as_str().unwrap_or_default(),
                    meta(task, "owner").map_or_else(String::new, |o| format!("[{o}] ")),
                    task["statusMessage"].as_str().unwrap_or_default()
                )?;
            }
            if page.next_cursor.is_some() {
                writeln!(out, "(more: raise --limit or narrow the filters)")?;
            }
            Ok(())
        }
        Some(TaskAction::Show { id }) => print_json(out, &api::tasks::show(&store, &id)?),
        Some(TaskAction::Retry {
            id,
            force,
            profile,
            json,
        }) => {
            let profile = match profile {
                Some(name) => name,
                None => api::profiles::active(&store)?,
            };
            let retried = with_engine(&store, async |engine| {
                Ok(api::tasks::retry(engine, &id, force, &profile).await?)
            })?;
            let record = &retried.record;
            if json {
                let mut wire = record.to_wire();
                wire["result"] = record.result.clone().unwrap_or_default();
                print_json(out, &wire)?;
            } else {
                writeln!(out, "{} (retry of {id}): {}", record.id, record.status)?;
                if let Some(message) = &record.status_message {
                    writeln!(out, "{message}")?;
                }
            }
            match retried.answer {
                Ok(_) => Ok(()),
                Err(error) => Err(anyhow::anyhow!("the retry failed too: {}", error.message)),
            }
        }
        Some(TaskAction::Cancel { id }) => {
            // Unknown ids fail before any server is started.
            api::tasks::record(&store, &id)?;
            with_engine(&store, async |engine| {
                Ok(api::tasks::cancel(engine, &id).await?)
            })?;
            writeln!(out, "cancelled {id}")?;
            Ok(())
        }
    }
}
