//! The `mcp-sieve` command line (DESIGN §7).
//!
//! Each subcommand parses its arguments with clap, does its work through
//! [`Store`] and sieve-core, and prints a table or, with `--json`, the
//! stable JSON documented in the README. Errors propagate as `anyhow`
//! chains that `main` prints as one line.

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use serde::Serialize;
use serde_json::json;
use sieve_core::profile::DEFAULT_PROFILE;
use sieve_core::tasks::{TaskQuery, TaskRecord, format_timestamp, parse_since};
use sieve_core::{Catalog, Kind, Overlays, Primitive, Rules, ServerListing, parse_tool_list};
use sieve_proxy::engine::{Engine, now_ms};
use sieve_proxy::home::Home;
use sieve_proxy::import::HostKind;
use sieve_proxy::ledger::Ledger;
use sieve_proxy::serve::{serve_http, serve_stdio};
use sieve_proxy::store::Store;
use sieve_proxy::upstream::State;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use tokio_util::sync::CancellationToken;

/// Shows your AI host only the MCP tools you choose.
#[derive(Debug, Parser)]
#[command(name = "mcp-sieve", version, propagate_version = true)]
pub struct Cli {
    /// Keep config, profiles and the task ledger in DIR instead of the
    /// platform's folders.
    #[arg(long, global = true, env = "MCP_SIEVE_HOME", value_name = "DIR")]
    pub home: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List tools with their labels, and what the profile hides and why.
    Tools(ToolsArgs),
    /// Tokens of the tool list before and after the profile, per server.
    Tokens(TokensArgs),
    /// List, show, create and delete profiles.
    #[command(subcommand)]
    Profiles(ProfilesCommand),
    /// Run the proxy a host connects to: stdio, or streamable HTTP with --http.
    Serve(ServeArgs),
    /// The upstream servers of config.json.
    #[command(subcommand)]
    Servers(ServersCommand),
    /// The task ledger: list, show, retry and cancel tasks and failed calls.
    Tasks(TasksArgs),
    /// Run the built-in demo MCP server (about 40 tools) on stdio or HTTP.
    DemoServer {
        /// Serve streamable HTTP at ADDR (endpoint /mcp) instead of stdio.
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// Speak only protocol 2026-07-28 (refuse `initialize`), on stdio.
        #[arg(long, conflicts_with = "http")]
        modern_only: bool,
    },
}

/// Where the tools come from and which profile filters them.
#[derive(Debug, Args)]
pub struct SourceArgs {
    /// Profile to apply.
    #[arg(long, short, default_value = "default", value_name = "NAME")]
    pub profile: String,
    /// Read tools from FILE (a JSON array of MCP tools, or a tools/list
    /// result) instead of the servers; repeat for several servers.
    #[arg(long = "catalog", value_name = "FILE")]
    pub catalogs: Vec<PathBuf>,
    /// Server name for a single --catalog (default: the file's stem).
    #[arg(long, value_name = "NAME", requires = "catalogs")]
    pub server: Option<String>,
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
    /// Print JSON (documented in the README).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct TokensArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// Print JSON (documented in the README).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Profile to serve over stdio (HTTP endpoints name theirs:
    /// /mcp is "default", /mcp/p/NAME is NAME).
    #[arg(long, short, value_name = "NAME", conflicts_with = "http")]
    pub profile: Option<String>,
    /// Serve streamable HTTP on ADDR (e.g. 127.0.0.1:8765) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,
    /// Print the HTTP bearer token (made on first use) and exit.
    #[arg(long)]
    pub print_token: bool,
}

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
    /// Order by createdAt or lastUpdatedAt (the default).
    #[arg(long, value_name = "FIELD", default_value = "lastUpdatedAt")]
    pub order_by: String,
    /// Oldest first.
    #[arg(long)]
    pub asc: bool,
    /// At most this many (1-500).
    #[arg(long, default_value_t = 50)]
    pub limit: u32,
    /// Print JSON (documented in the README).
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
        /// Check visibility against this profile.
        #[arg(long, short, default_value = "default", value_name = "NAME")]
        profile: String,
        /// Print JSON (documented in the README).
        #[arg(long)]
        json: bool,
    },
    /// Ask the server to cancel a running task.
    Cancel { id: String },
}

#[derive(Debug, Subcommand)]
pub enum ServersCommand {
    /// Connect to every server once and show its state.
    List {
        /// Print JSON (documented in the README).
        #[arg(long)]
        json: bool,
    },
    /// Add the MCP servers of Claude Desktop, Cursor or VS Code to config.json
    /// (existing entries are never changed or lost).
    Import {
        /// Whose config to read: claude-desktop, cursor or vscode.
        #[arg(value_parser = host_kind_parser())]
        from: HostKind,
        /// The file (or folder) to read instead of the host's usual place.
        path: Option<PathBuf>,
        /// Print JSON (documented in the README).
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum ProfilesCommand {
    /// List the profiles.
    List {
        /// Print JSON (documented in the README).
        #[arg(long)]
        json: bool,
    },
    /// Print a profile.
    Show {
        name: String,
        /// Print JSON (documented in the README).
        #[arg(long)]
        json: bool,
    },
    /// Create a profile, empty or as a copy.
    New {
        name: String,
        /// Copy this profile.
        #[arg(long, value_name = "NAME")]
        from: Option<String>,
    },
    /// Delete a profile (its last version stays as NAME.json.bak).
    Delete { name: String },
}

/// Host names as clap offers and checks them.
fn host_kind_parser() -> impl clap::builder::TypedValueParser<Value = HostKind> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(HostKind::ALL.map(HostKind::as_str))
        .map(|name| name.parse::<HostKind>().expect("offered names parse"))
}

/// The whole program: parse the command line, run it, print an error as
/// one line on stderr and exit non-zero.
pub fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    // Not locked for the whole run: `serve` and `demo-server` speak MCP on
    // stdout from other threads.
    let mut stdout = std::io::stdout();
    match run(cli, &mut stdout) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            // The context chain reads as a sentence from the outside in
            // ("cannot read catalog x.json: No such file or directory").
            let message: Vec<String> = err.chain().map(ToString::to_string).collect();
            eprintln!("error: {}", message.join(": "));
            std::process::ExitCode::FAILURE
        }
    }
}

/// Runs the parsed command line, printing to `out`.
pub fn run(cli: Cli, out: &mut dyn Write) -> Result<()> {
    let store = Store::new(Home::resolve(cli.home.as_deref())?);
    match cli.command {
        Command::Tools(args) => tools(&store, &args, out),
        Command::Tokens(args) => tokens(&store, &args, out),
        Command::Profiles(command) => profiles(&store, command, out),
        Command::DemoServer { http, modern_only } => demo_server(http, modern_only, out),
        Command::Serve(args) => serve(store, &args, out),
        Command::Tasks(args) => tasks(store, args, out),
        Command::Servers(ServersCommand::List { json }) => servers_list(&store, json, out),
        Command::Servers(ServersCommand::Import { from, path, json }) => {
            let report = sieve_proxy::import::import(&store, from, path.as_deref())?;
            if json {
                serde_json::to_writer_pretty(&mut *out, &report)?;
                writeln!(out)?;
            } else {
                write!(out, "{report}")?;
            }
            Ok(())
        }
    }
}

/// The catalog and compiled profile a listing command works on.
struct Filtered {
    profile: String,
    catalog: Catalog,
    rules: Rules,
}

fn filtered(store: &Store, source: &SourceArgs) -> Result<Filtered> {
    let config = store.load_config()?;
    let loaded = store.load_profile(&source.profile, Some(&config))?;
    for warning in loaded.profile.warnings(&config) {
        eprintln!("warning: profile {}: {warning}", loaded.name);
    }
    let rules = Rules::new(&loaded.profile).map_err(anyhow::Error::msg)?;
    let listings = if !source.catalogs.is_empty() {
        catalog_listings(source)?
    } else if config.mcp_servers.is_empty() {
        // Nothing configured: the embedded default is the demo server.
        vec![builtin_listing()]
    } else {
        live_listings(store)?
    };
    let overlays = Overlays::new(&config.overlays).map_err(anyhow::Error::msg)?;
    let catalog = Catalog::build(&config.settings.separator, &overlays, &listings);
    Ok(Filtered {
        profile: loaded.name,
        catalog,
        rules,
    })
}

fn catalog_listings(source: &SourceArgs) -> Result<Vec<ServerListing>> {
    if source.server.is_some() && source.catalogs.len() > 1 {
        bail!(
            "--server names the server of a single --catalog; with several files each is named after its file"
        );
    }
    source
        .catalogs
        .iter()
        .map(|path| {
            let server = match &source.server {
                Some(server) => server.clone(),
                None => file_stem(path)?,
            };
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read catalog {}", path.display()))?;
            let tools = parse_tool_list(&path.display().to_string(), &text)?;
            Ok(ServerListing::tools(server, tools))
        })
        .collect()
}

fn file_stem(path: &Path) -> Result<String> {
    path.file_stem()
        .and_then(|s| s.to_str())
        .map(String::from)
        .with_context(|| {
            format!(
                "cannot name a server after {}; pass --server NAME",
                path.display()
            )
        })
}

/// How long one-shot commands wait for the servers to answer.
const SETTLE: std::time::Duration = std::time::Duration::from_secs(20);

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Runtime::new().context("cannot start the async runtime")
}

/// Runs `work` once every configured server has connected (or failed)
/// once, then stops them: for commands that talk to the servers and exit.
fn with_servers<T>(store: &Store, work: impl AsyncFnOnce(&Engine) -> Result<T>) -> Result<T> {
    runtime()?.block_on(async {
        let engine = Engine::start(store.clone())?;
        engine.pool().settled(SETTLE).await;
        let outcome = work(&engine).await;
        engine.shutdown().await;
        outcome
    })
}

/// Connects to every configured server once and returns what they list,
/// with a warning for each one that is not up.
fn live_listings(store: &Store) -> Result<Vec<ServerListing>> {
    with_servers(store, async |engine| {
        for (name, status) in engine.pool().statuses() {
            if status.state != State::Up {
                eprintln!(
                    "warning: server {name:?} is {}: {}",
                    status.state.as_str(),
                    status.error.as_deref().unwrap_or("no answer yet")
                );
            }
        }
        Ok(engine.pool().listings())
    })
}

fn servers_list(store: &Store, json: bool, out: &mut dyn Write) -> Result<()> {
    let config = store.load_config()?;
    let statuses = with_servers(store, async |engine| Ok(engine.pool().statuses()))?;
    let rows: Vec<serde_json::Value> = statuses
        .iter()
        .map(|(name, status)| {
            let mut row = serde_json::to_value(status).unwrap_or_default();
            // Commands and URLs only: env and header values are secrets.
            let (transport, target) = match config.mcp_servers.get(name).map(|s| &s.transport) {
                Some(sieve_core::Transport::Stdio { command, args, .. }) => (
                    "stdio",
                    std::iter::once(command.clone())
                        .chain(args.iter().cloned())
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                Some(sieve_core::Transport::Http { url, .. }) => ("http", url.clone()),
                None => ("builtin", "the built-in demo server".to_string()),
            };
            row["name"] = json!(name);
            row["transport"] = json!(transport);
            row["target"] = json!(target);
            row
        })
        .collect();
    if json {
        serde_json::to_writer_pretty(&mut *out, &rows)?;
        writeln!(out)?;
        return Ok(());
    }
    let width = rows
        .iter()
        .map(|r| r["name"].as_str().unwrap_or("").len())
        .max()
        .unwrap_or(4);
    for row in &rows {
        writeln!(
            out,
            "{:width$}  {:10}  {:>3} tools  {}{}",
            row["name"].as_str().unwrap_or(""),
            row["state"].as_str().unwrap_or(""),
            row["tools"],
            row["target"].as_str().unwrap_or(""),
            row["error"]
                .as_str()
                .map(|e| format!("\n{:width$}  error: {e}", ""))
                .unwrap_or_default(),
        )?;
    }
    Ok(())
}

fn open_ledger(store: &Store) -> Result<Ledger> {
    Ok(Ledger::open(&store.home().tasks_db())?)
}

fn tasks(store: Store, args: TasksArgs, out: &mut dyn Write) -> Result<()> {
    match args.action {
        None => {
            let now = now_ms();
            let mut params = json!({
                "status": args.status,
                "servers": args.server,
                "methods": args.method,
                "orderBy": args.order_by,
                "order": if args.asc { "asc" } else { "desc" },
                "limit": args.limit,
            });
            for (flag, field, value) in [
                ("--since", "lastUpdatedAfter", &args.since),
                ("--until", "lastUpdatedBefore", &args.until),
            ] {
                if let Some(value) = value {
                    let ms = parse_since(value, now).map_err(|e| anyhow::anyhow!("{flag}: {e}"))?;
                    // The bounds are exclusive; "since 3h" includes the edge.
                    let ms = if field == "lastUpdatedAfter" {
                        ms - 1
                    } else {
                        ms
                    };
                    params[field] = json!(format_timestamp(ms));
                }
            }
            let query = TaskQuery::from_params(&params).map_err(|e| {
                let flag = match e.field.as_str() {
                    "status" => "--status",
                    "orderBy" => "--order-by",
                    "limit" => "--limit",
                    other => other,
                };
                anyhow::anyhow!("{flag}: {}", e.message)
            })?;
            let page = open_ledger(&store)?.list(&query, &|_| true)?;
            if args.json {
                let tasks: Vec<serde_json::Value> =
                    page.tasks.iter().map(TaskRecord::to_wire).collect();
                serde_json::to_writer_pretty(
                    &mut *out,
                    &json!({"tasks": tasks, "nextCursor": page.next_cursor}),
                )?;
                writeln!(out)?;
                return Ok(());
            }
            if page.tasks.is_empty() {
                writeln!(out, "no tasks match")?;
                return Ok(());
            }
            for task in &page.tasks {
                writeln!(
                    out,
                    "{}  {:14}  {:24}  {}  {}",
                    task.id,
                    task.status.as_str(),
                    task.tool.as_deref().unwrap_or(&task.method),
                    format_timestamp(task.last_updated_at),
                    task.status_message.as_deref().unwrap_or("")
                )?;
            }
            if page.next_cursor.is_some() {
                writeln!(out, "(more: raise --limit or narrow the filters)")?;
            }
            Ok(())
        }
        Some(TaskAction::Show { id }) => {
            let record = open_ledger(&store)?.get(&id)?.with_context(|| {
                format!("there is no task {id:?}; `mcp-sieve tasks` lists them")
            })?;
            let mut wire = record.to_wire();
            wire["params"] = record.params.clone();
            if let Some(result) = &record.result {
                wire["result"] = result.clone();
            }
            serde_json::to_writer_pretty(&mut *out, &wire)?;
            writeln!(out)?;
            Ok(())
        }
        Some(TaskAction::Retry {
            id,
            force,
            profile,
            json,
        }) => {
            let (record, answer) = with_servers(&store, async |engine| {
                let active = engine.profile(&profile)?;
                let outcome = engine.retry(&id, force, &active).await;
                outcome.map_err(|e| anyhow::anyhow!("{}", e.message))
            })?;
            if json {
                let mut wire = record.to_wire();
                wire["result"] = record.result.clone().unwrap_or_default();
                serde_json::to_writer_pretty(&mut *out, &wire)?;
                writeln!(out)?;
            } else {
                writeln!(out, "{} (retry of {id}): {}", record.id, record.status)?;
                if let Some(message) = &record.status_message {
                    writeln!(out, "{message}")?;
                }
            }
            match answer {
                Ok(_) => Ok(()),
                Err(error) => Err(anyhow::anyhow!("the retry failed too: {}", error.message)),
            }
        }
        Some(TaskAction::Cancel { id }) => {
            let record = open_ledger(&store)?.get(&id)?.with_context(|| {
                format!("there is no task {id:?}; `mcp-sieve tasks` lists them")
            })?;
            with_servers(&store, async |engine| {
                sieve_proxy::relay::cancel(engine, &record)
                    .await
                    .map_err(|e| anyhow::anyhow!("{}", e.message))
            })?;
            writeln!(out, "cancelled {id}")?;
            Ok(())
        }
    }
}

/// Logs to stderr (stdout may be the MCP channel); `MCP_SIEVE_LOG` sets the
/// filter, e.g. `debug` or `sieve_proxy=debug`.
fn init_logging() {
    use std::io::IsTerminal;
    // rmcp narrates every handshake at info; ours is what a user wants.
    let filter = tracing_subscriber::EnvFilter::try_from_env("MCP_SIEVE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,rmcp=error,sieve_proxy=info"));
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(filter)
        .try_init();
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => {
                    let _ = tokio::signal::ctrl_c().await;
                    return;
                }
            };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}

fn serve(store: Store, args: &ServeArgs, out: &mut dyn Write) -> Result<()> {
    if args.print_token {
        writeln!(out, "{}", store.http_token()?)?;
        return Ok(());
    }
    init_logging();
    let profile = args
        .profile
        .clone()
        .unwrap_or_else(|| DEFAULT_PROFILE.to_string());
    runtime()?.block_on(async {
        let engine = Engine::start(store.clone())?;
        // A missing or broken profile is an error now, not at the first request.
        engine.profile(&profile)?;
        engine.watch_files()?;
        match args.http {
            None => serve_stdio(engine.clone(), &profile, shutdown_signal()).await?,
            Some(addr) => {
                if !addr.ip().is_loopback() {
                    tracing::warn!("listening on {addr}, which other machines can reach; the bearer token is all that protects it");
                }
                let token = store.http_token()?;
                let stop = CancellationToken::new();
                let bound = serve_http(engine.clone(), addr, token, stop.clone().cancelled_owned()).await?;
                eprintln!(
                    "MCP Sieve is serving http://{bound}/mcp (profile \"default\") and http://{bound}/mcp/p/NAME (profile NAME)"
                );
                eprintln!(
                    "hosts must send \"Authorization: Bearer <token>\"; the token is in {} (`mcp-sieve serve --print-token`)",
                    store.home().token_file().display()
                );
                shutdown_signal().await;
                stop.cancel();
            }
        }
        engine.shutdown().await;
        anyhow::Ok(())
    })
}

/// The demo server's tools, as if listed by a server called `demo`.
fn builtin_listing() -> ServerListing {
    let tools = sieve_demo::demo_tools()
        .into_iter()
        .map(|tool| serde_json::to_value(tool).expect("tools serialise"))
        .collect();
    ServerListing::tools(sieve_proxy::engine::BUILTIN_SERVER, tools)
}

fn demo_server(
    http: Option<std::net::SocketAddr>,
    modern_only: bool,
    out: &mut dyn Write,
) -> Result<()> {
    runtime()?.block_on(async {
        match http {
            None => sieve_demo::serve_stdio(modern_only).await,
            Some(addr) => {
                let stop = CancellationToken::new();
                let bound = sieve_proxy::serve::serve_handler_http(
                    addr,
                    sieve_demo::DemoServer::new,
                    stop.clone().cancelled_owned(),
                )
                .await?;
                writeln!(out, "demo server at http://{bound}/mcp")?;
                out.flush()?;
                shutdown_signal().await;
                stop.cancel();
                Ok(())
            }
        }
    })
}

/// One tool in `mcp-sieve tools --json`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolRow<'a> {
    exposed_name: &'a str,
    name: &'a str,
    server: &'a str,
    uri: &'a str,
    groups: &'a std::collections::BTreeSet<String>,
    tags: &'a std::collections::BTreeSet<String>,
    concerns: &'a BTreeMap<String, String>,
    visible: bool,
    hidden_by: Vec<String>,
}

fn tools(store: &Store, args: &ToolsArgs, out: &mut dyn Write) -> Result<()> {
    let f = filtered(store, &args.source)?;
    let show_hidden = args.hidden || args.explain;
    let rows: Vec<ToolRow> = f
        .catalog
        .of_kind(Kind::Tool)
        .map(|p| row(&f.rules, p))
        .collect();
    let total = rows.len();
    let visible = rows.iter().filter(|r| r.visible).count();
    let shown: Vec<&ToolRow> = rows.iter().filter(|r| show_hidden || r.visible).collect();
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &shown)?;
        writeln!(out)?;
        return Ok(());
    }
    let name_width = shown
        .iter()
        .map(|r| r.exposed_name.len())
        .max()
        .unwrap_or(0);
    for r in &shown {
        let mark = if r.visible { " " } else { "-" };
        let labels = [
            join(r.groups.iter()),
            join(r.tags.iter()),
            join(r.concerns.iter().map(|(k, v)| format!("{k}={v}"))),
        ];
        writeln!(
            out,
            "{mark} {:name_width$}  tags: {}  groups: {}  concerns: {}",
            r.exposed_name, labels[1], labels[0], labels[2]
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
        f.profile
    )?;
    Ok(())
}

fn row<'a>(rules: &Rules, p: &'a Primitive) -> ToolRow<'a> {
    let hidden_by: Vec<String> = rules
        .explain(p, None)
        .iter()
        .map(ToString::to_string)
        .collect();
    ToolRow {
        exposed_name: &p.exposed_name,
        name: &p.name,
        server: &p.server,
        uri: &p.uri,
        groups: &p.labels.groups,
        tags: &p.labels.tags,
        concerns: &p.labels.concerns,
        visible: hidden_by.is_empty(),
        hidden_by,
    }
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

fn tokens(store: &Store, args: &TokensArgs, out: &mut dyn Write) -> Result<()> {
    let f = filtered(store, &args.source)?;
    let report = sieve_core::tokens::estimate(f.catalog.primitives(), &f.rules, None);
    if args.json {
        let value = json!({
            "profile": f.profile,
            "before": report.total.before,
            "after": report.total.after,
            "toolsBefore": report.total.tools_before,
            "toolsAfter": report.total.tools_after,
            "servers": report.servers,
        });
        serde_json::to_writer_pretty(&mut *out, &value)?;
        writeln!(out)?;
        return Ok(());
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
    let line = |name: &str, c: &sieve_core::TokenCount| {
        let saved = if c.before == 0 {
            0.0
        } else {
            100.0 * (c.before - c.after) as f64 / c.before as f64
        };
        format!(
            "{name:width$}  {:>6} / {:<4}  {:>8} / {:<6}  {saved:.0}%",
            c.tools_after, c.tools_before, c.after, c.before
        )
    };
    for (server, count) in &report.servers {
        writeln!(out, "{}", line(server, count))?;
    }
    writeln!(out, "{}", line("total", &report.total))?;
    writeln!(
        out,
        "tokens (o200k_base) of the tool definitions the model sees under profile {:?}",
        f.profile
    )?;
    Ok(())
}

fn profiles(store: &Store, command: ProfilesCommand, out: &mut dyn Write) -> Result<()> {
    match command {
        ProfilesCommand::List { json } => {
            let config = store.load_config()?;
            let mut entries = Vec::new();
            for name in store.profile_names()? {
                let entry = match store.load_profile(&name, Some(&config)) {
                    Ok(loaded) => {
                        json!({"name": name, "description": loaded.profile.description, "valid": true})
                    }
                    Err(err) => json!({"name": name, "valid": false, "error": err.to_string()}),
                };
                entries.push(entry);
            }
            if json {
                serde_json::to_writer_pretty(&mut *out, &entries)?;
                writeln!(out)?;
            } else {
                let width = entries
                    .iter()
                    .map(|e| e["name"].as_str().unwrap_or("").len())
                    .max()
                    .unwrap_or(0);
                for e in &entries {
                    let name = e["name"].as_str().unwrap_or("");
                    match e["error"].as_str() {
                        Some(error) => writeln!(out, "{name:width$}  (broken) {error}")?,
                        None => writeln!(
                            out,
                            "{name:width$}  {}",
                            e["description"].as_str().unwrap_or("")
                        )?,
                    }
                }
            }
        }
        ProfilesCommand::Show { name, json } => {
            let config = store.load_config()?;
            let loaded = store.load_profile(&name, Some(&config))?;
            if json {
                serde_json::to_writer_pretty(&mut *out, &loaded.profile)?;
                writeln!(out)?;
            } else {
                writeln!(out, "# {}", loaded.path.display())?;
                writeln!(out, "{}", serde_json::to_string_pretty(&loaded.profile)?)?;
                for warning in loaded.profile.warnings(&config) {
                    writeln!(out, "warning: {warning}")?;
                }
            }
        }
        ProfilesCommand::New { name, from } => {
            store.new_profile(&name, from.as_deref())?;
            writeln!(
                out,
                "created {}",
                store.home().profile_file(&name).display()
            )?;
        }
        ProfilesCommand::Delete { name } => {
            store.delete_profile(&name)?;
            let path = store.home().profile_file(&name);
            writeln!(
                out,
                "deleted profile {name:?} (its last version is {})",
                sieve_proxy::store::backup_path(&path).display()
            )?;
        }
    }
    Ok(())
}
