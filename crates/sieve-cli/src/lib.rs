//! The `mcp-sieve` command line (DESIGN §7).
//!
//! Parsing and printing only: each subcommand turns its flags into a call
//! of `sieve_proxy::api` (the functions the desktop app calls too) and
//! prints what comes back as a table or, with `--json`, the stable JSON
//! documented in the README. Errors propagate as `anyhow` chains that
//! `main` prints as one line.

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use serde::Serialize;
use sieve_core::{Kind, TokenCount};
use sieve_proxy::api::profiles::CompiledProfile;
use sieve_proxy::api::{self, Connection, Listed, PrimitiveRow, ServerRow, TaskFilter};
use sieve_proxy::engine::{Engine, now_ms};
use sieve_proxy::home::Home;
use sieve_proxy::import::HostKind;
use sieve_proxy::serve::{ProfileChoice, serve_http, serve_stdio};
use sieve_proxy::store::Store;
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
    /// List tools with their labels, and what the profile hides and why;
    /// review the tools held in quarantine.
    Tools(ToolsCommand),
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
    /// Print the config entry that connects a host to MCP Sieve, or write it
    /// into the host's file (the old file is kept as .bak).
    Connect(ConnectArgs),
    /// Run the built-in demo MCP server (about 40 tools) on stdio or HTTP.
    DemoServer {
        /// Serve streamable HTTP at ADDR (endpoint /mcp) instead of stdio.
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// Speak only protocol 2026-07-28 (refuse `initialize`), on stdio.
        #[arg(long, conflicts_with = "http")]
        modern_only: bool,
        /// Serve release N of the tool list: 1 (the default), or 2, an
        /// update in which `search` says something new (to try quarantine).
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
        release: u8,
    },
}

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
    /// Server name for a single --catalog (default: the file's stem).
    #[arg(long, value_name = "NAME", requires = "catalogs")]
    pub server: Option<String>,
}

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
        /// Print JSON (documented in the README).
        #[arg(long)]
        json: bool,
    },
    /// Keep tools in quarantine as looked at, until they change again.
    KeepHidden {
        /// Exposed names, as `tools quarantined` prints them.
        #[arg(value_name = "NAME", required = true)]
        names: Vec<String>,
        /// Print JSON (documented in the README).
        #[arg(long)]
        json: bool,
    },
    /// List the tools held in quarantine because they are new or changed
    /// since approved, and what changed.
    Quarantined {
        /// Print JSON (documented in the README), with both definitions.
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
    /// Profile to serve over stdio (default: the active one, followed
    /// live). HTTP endpoints name theirs: /mcp is the active profile,
    /// /mcp/p/NAME is NAME.
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

#[derive(Debug, Args)]
pub struct ConnectArgs {
    /// The host: claude-desktop, cursor or vscode.
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
    /// Keep an env variable or header of a server out of config.json: in
    /// the system keychain, or a file only you can read where there is
    /// none. config.json then says ${secret:NAME} where the value was.
    Secret {
        /// The server's name in config.json.
        name: String,
        /// The env variable (stdio server) or header (HTTP server), or
        /// oauth.clientSecret / oauth.privateKey (an HTTP server's client).
        key: String,
        /// Read the value from stdin (a new value, or one to replace the
        /// kept one) instead of moving the one in config.json.
        #[arg(long)]
        stdin: bool,
        /// Print JSON (documented in the README).
        #[arg(long)]
        json: bool,
    },
    /// Sign in to an HTTP server of config.json (OAuth): opens the sign-in
    /// page with $BROWSER, or prints its address, and keeps the sign-in in
    /// the system keychain (or a file only you can read).
    Login {
        /// The server's name in config.json.
        name: String,
        /// Print JSON (documented in the README).
        #[arg(long)]
        json: bool,
    },
    /// Connect to one streamable HTTP server as the proxy would, list what
    /// it offers, and print it (config.json is not read).
    Probe {
        /// The server's MCP endpoint, e.g. http://127.0.0.1:3000/mcp.
        url: String,
        /// Send this header with every request, as 'Name: value'
        /// (repeatable).
        #[arg(long = "header", short = 'H', value_name = "'NAME: VALUE'")]
        headers: Vec<String>,
        /// Start with this protocol revision's handshake: 2026-07-28
        /// (discovery) or an earlier one (initialize, the proxy's way); the
        /// other is tried if the server refuses it.
        #[arg(
            long,
            value_name = "REVISION",
            env = "MCP_CONFORMANCE_PROTOCOL_VERSION"
        )]
        protocol: Option<String>,
        /// Sign in with the Client ID Metadata Document published at this
        /// https:// address where the authorization server takes those (a
        /// server's oauth.clientMetadataUrl in config.json).
        #[arg(long, value_name = "URL")]
        client_metadata_url: Option<String>,
        /// Print JSON (documented in the README).
        #[arg(long)]
        json: bool,
        /// A client scenario of the MCP conformance suite to act out after
        /// listing; the suite's runner sets it.
        #[arg(long, env = "MCP_CONFORMANCE_SCENARIO", hide = true)]
        scenario: Option<String>,
        /// The scenario's context (JSON), as the suite's runner sets it.
        #[arg(
            long,
            env = "MCP_CONFORMANCE_CONTEXT",
            hide = true,
            requires = "scenario"
        )]
        scenario_context: Option<String>,
    },
    /// Add the MCP servers of Claude Desktop, Cursor or VS Code to config.json
    /// (existing entries are never changed or lost).
    Import {
        /// Whose config to read: claude-desktop, cursor or vscode.
        #[arg(value_parser = host_kind_parser())]
        from: HostKind,
        /// The file (or folder) to read instead of the host's usual place.
        path: Option<PathBuf>,
        /// Keep the env and header values of the servers added in the
        /// system keychain (or a file only you can read), not in
        /// config.json.
        #[arg(long)]
        keep_secrets: bool,
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
    /// Rename a profile.
    Rename { from: String, to: String },
    /// Make a profile the active one: hosts that name no profile (the HTTP
    /// endpoint /mcp, `serve` without --profile) get it, live.
    Use { name: String },
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
        Command::Tools(ToolsCommand {
            action: Some(action),
            ..
        }) => quarantine(&store, action, out),
        Command::Tools(ToolsCommand { list, .. }) => tools(&store, &list, out),
        Command::Tokens(args) => tokens(&store, &args, out),
        Command::Profiles(command) => profiles(&store, command, out),
        Command::DemoServer {
            http,
            modern_only,
            release,
        } => {
            let demo = if modern_only {
                sieve_demo::DemoServer::modern_only()
            } else {
                sieve_demo::DemoServer::new()
            };
            demo_server(http, demo.release(release), out)
        }
        Command::Serve(args) => serve(store, &args, out),
        Command::Tasks(args) => tasks(store, args, out),
        Command::Servers(ServersCommand::List { json }) => {
            let rows = runtime()?.block_on(api::servers::probe(&store))?;
            if json {
                return print_json(out, &rows);
            }
            print_servers(&rows, out)
        }
        Command::Servers(ServersCommand::Secret {
            name,
            key,
            stdin,
            json,
        }) => {
            let value = if stdin {
                let mut text = String::new();
                std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                    .context("cannot read the value from stdin")?;
                Some(text.trim_end_matches(['\n', '\r']).to_string())
            } else {
                None
            };
            let secrets = sieve_proxy::secrets::Secrets::open(store.home())
                .map_err(|error| anyhow::anyhow!("{error}"))?;
            let kept = api::secrets::keep_secret(&store, &secrets, &name, &key, value.as_deref())?;
            if json {
                return print_json(out, &kept);
            }
            writeln!(
                out,
                "{} {} {:?} of server {:?} is kept in {}; config.json now says ${{secret:{}}}",
                if kept.moved { "moved:" } else { "stored:" },
                kept.section,
                kept.key,
                kept.server,
                kept.location,
                kept.secret
            )?;
            Ok(())
        }
        Command::Servers(ServersCommand::Login { name, json }) => {
            let open = |url: &str| {
                if !sieve_proxy::oauth::open_in_browser(url) {
                    eprintln!("Open this address in your browser to sign in:\n\n  {url}\n");
                }
            };
            let signed_in =
                runtime()?.block_on(api::login::login(&store, &name, &open, api::login::WAIT))?;
            if json {
                return print_json(out, &signed_in);
            }
            writeln!(
                out,
                "signed in to server {:?} ({}); the sign-in is kept in {}",
                signed_in.server, signed_in.url, signed_in.location
            )?;
            Ok(())
        }
        Command::Servers(ServersCommand::Probe {
            url,
            headers,
            protocol,
            client_metadata_url,
            json,
            scenario,
            scenario_context,
        }) => {
            // Quiet unless asked: the report is the answer, and a failure
            // its one sentence.
            if std::env::var_os("MCP_SIEVE_LOG").is_some() {
                init_logging();
            }
            let target = api::probe::Target::new(&url, &headers, protocol.as_deref())?
                .with_client_metadata_url(client_metadata_url.as_deref())?;
            let scenario = scenario
                .map(|name| api::probe::Scenario::new(&name, scenario_context.as_deref()))
                .transpose()?;
            let found = runtime()?.block_on(api::probe::probe(&target, scenario.as_ref()))?;
            if json {
                print_json(out, &found)?;
            } else {
                print_probe(&found, out)?;
            }
            // The report says what happened to every call; the exit status
            // says whether all went well.
            let failed: Vec<_> = found.scenario.iter().flat_map(|s| s.failed()).collect();
            match failed.first() {
                None => Ok(()),
                Some(first) => anyhow::bail!(
                    "{} of the scenario's {} calls failed; the first, {} {:?}: {}",
                    failed.len(),
                    found.scenario.as_ref().map_or(0, |s| s.calls.len()),
                    first.method,
                    first.name,
                    first.error.as_deref().unwrap_or("no reason given")
                ),
            }
        }
        Command::Servers(ServersCommand::Import {
            from,
            path,
            keep_secrets,
            json,
        }) => {
            let report = api::secrets::import(&store, from, path.as_deref(), keep_secrets)?;
            if json {
                return print_json(out, &report);
            }
            write!(out, "{report}")?;
            Ok(())
        }
        Command::Connect(args) => connect(&store, &args, out),
    }
}

fn print_json(out: &mut dyn Write, value: &impl Serialize) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Runtime::new().context("cannot start the async runtime")
}

/// What the servers (or catalog files) list, with the profile compiled;
/// warnings go to stderr.
fn listed(store: &Store, source: &SourceArgs) -> Result<(Listed, CompiledProfile)> {
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
        runtime()?.block_on(Listed::live(store))?
    } else {
        Listed::from_files(store, &source.catalogs, source.server.as_deref())?
    };
    for warning in &listed.warnings {
        eprintln!("warning: {warning}");
    }
    Ok((listed, profile))
}

fn print_servers(rows: &[ServerRow], out: &mut dyn Write) -> Result<()> {
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(4);
    for row in rows {
        writeln!(
            out,
            "{:width$}  {:11}  {:>3} tools  {}",
            row.name,
            row.status.state.as_str(),
            row.status.tools,
            row.target
        )?;
        if let Some(error) = &row.status.error {
            writeln!(out, "{:width$}  error: {error}", "")?;
        }
        if let Some(error) = &row.status.list_error {
            writeln!(out, "{:width$}  error: {error}", "")?;
        }
    }
    Ok(())
}

fn print_probe(found: &api::probe::Probe, out: &mut dyn Write) -> Result<()> {
    let info = &found.server_info;
    let name = info["name"].as_str().unwrap_or("a server with no name");
    let version = info["version"].as_str().unwrap_or("");
    writeln!(
        out,
        "{}: {name} {version}, protocol {}",
        found.url, found.protocol_version
    )?;
    for (what, names) in [
        ("tool", &found.tools),
        ("prompt", &found.prompts),
        ("resource", &found.resources),
        ("resource template", &found.resource_templates),
    ] {
        let plural = if names.len() == 1 { "" } else { "s" };
        let colon = if names.is_empty() { "" } else { ": " };
        writeln!(
            out,
            "{} {what}{plural}{colon}{}",
            names.len(),
            names.join(", ")
        )?;
    }
    if let Some(scenario) = &found.scenario {
        writeln!(out, "scenario {}:", scenario.name)?;
        for call in &scenario.calls {
            match &call.error {
                None => writeln!(out, "  {} {} ({})", call.method, call.name, call.outcome)?,
                Some(why) => writeln!(out, "  {} {} (failed: {why})", call.method, call.name)?,
            }
        }
    }
    Ok(())
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

fn tasks(store: Store, args: TasksArgs, out: &mut dyn Write) -> Result<()> {
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
                    "{}  {:14}  {:24}  {}  {}",
                    task["taskId"].as_str().unwrap_or_default(),
                    task["status"].as_str().unwrap_or_default(),
                    meta(task, "tool")
                        .or_else(|| meta(task, "method"))
                        .unwrap_or_default(),
                    task["lastUpdatedAt"].as_str().unwrap_or_default(),
                    task["statusMessage"].as_str().unwrap_or_default()
                )?;
            }
            if page.next_cursor.is_some() {
                writeln!(out, "(more: raise --limit or narrow the filters)")?;
            }
            Ok(())
        }
        Some(TaskAction::Show { id }) => print_json(out, &api::tasks::show(&store, &id)?.0),
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

/// Runs `work` on an engine whose servers have all answered (or failed)
/// once, then stops them: for commands that talk to servers and exit.
fn with_engine<T>(store: &Store, work: impl AsyncFnOnce(&Engine) -> Result<T>) -> Result<T> {
    runtime()?.block_on(async {
        let engine = Engine::start(store.clone())?;
        engine.settled(api::catalog::SETTLE).await;
        let outcome = work(&engine).await;
        engine.shutdown().await;
        outcome
    })
}

/// Logs to stderr (stdout may be the MCP channel); `MCP_SIEVE_LOG` sets the
/// filter, e.g. `debug` or `sieve_proxy=debug`.
fn init_logging() {
    use std::io::IsTerminal;
    // rmcp narrates every handshake at info; ours is what a user wants.
    let filter = tracing_subscriber::EnvFilter::try_from_env("MCP_SIEVE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,rmcp=error,sieve_proxy=info"))
        // rmcp's sign-in narrates codes and token responses at debug: never
        // below info there, whatever was asked for.
        .add_directive(
            "rmcp::transport::auth=info"
                .parse()
                .expect("a valid directive"),
        );
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
    // Without --profile, the active profile, followed live.
    let choice = match &args.profile {
        Some(name) => ProfileChoice::Named(name.clone()),
        None => ProfileChoice::Active,
    };
    runtime()?.block_on(async {
        let engine = Engine::start(store.clone())?;
        // A missing or broken profile is an error now, not at the first request.
        let profile = choice.resolve(&engine);
        engine.profile(&profile)?;
        engine.watch_files()?;
        match args.http {
            None => serve_stdio(engine.clone(), choice, shutdown_signal()).await?,
            Some(addr) => {
                if !addr.ip().is_loopback() {
                    tracing::warn!("listening on {addr}, which other machines can reach; the bearer token is all that protects it");
                }
                let token = store.http_token()?;
                let stop = CancellationToken::new();
                let bound = serve_http(engine.clone(), addr, token, stop.clone().cancelled_owned()).await?;
                eprintln!(
                    "MCP Sieve is serving http://{bound}/mcp (the active profile, now {profile:?}) and http://{bound}/mcp/p/NAME (profile NAME)"
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

fn demo_server(
    http: Option<std::net::SocketAddr>,
    demo: sieve_demo::DemoServer,
    out: &mut dyn Write,
) -> Result<()> {
    runtime()?.block_on(async {
        match http {
            None => sieve_demo::serve_stdio(demo).await,
            Some(addr) => {
                let stop = CancellationToken::new();
                // Clones share one world: every session sees the same tasks.
                let bound = sieve_proxy::serve::serve_handler_http(
                    addr,
                    move || demo.clone(),
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

fn tools(store: &Store, args: &ToolsArgs, out: &mut dyn Write) -> Result<()> {
    let (listed, profile) = listed(store, &args.source)?;
    let show_hidden = args.hidden || args.explain;
    let rows = listed.rows(&profile, &[Kind::Tool]);
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

fn tokens(store: &Store, args: &TokensArgs, out: &mut dyn Write) -> Result<()> {
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
    let total = TokenCount {
        tools_before: report.tools_before,
        tools_after: report.tools_after,
        before: report.before,
        after: report.after,
    };
    writeln!(out, "{}", line("total", &total))?;
    writeln!(
        out,
        "tokens (o200k_base) of the tool definitions the model sees under profile {:?}",
        report.profile
    )?;
    Ok(())
}

fn profiles(store: &Store, command: ProfilesCommand, out: &mut dyn Write) -> Result<()> {
    match command {
        ProfilesCommand::List { json } => {
            let summaries = api::profiles::summaries(store)?;
            if json {
                return print_json(out, &summaries);
            }
            let width = summaries.iter().map(|s| s.name.len()).max().unwrap_or(0);
            // The active profile is marked, as git marks the current branch.
            for s in &summaries {
                let mark = if s.active { '*' } else { ' ' };
                match &s.error {
                    Some(error) => writeln!(out, "{mark} {:width$}  (broken) {error}", s.name)?,
                    None => writeln!(
                        out,
                        "{mark} {:width$}  {}",
                        s.name,
                        s.description.as_deref().unwrap_or("")
                    )?,
                }
            }
        }
        ProfilesCommand::Show { name, json } => {
            let config = store.load_config()?;
            let profile = api::profiles::compile(store, &name, &config)?;
            if json {
                return print_json(out, &profile.profile);
            }
            writeln!(out, "# {}", profile.path.display())?;
            writeln!(out, "{}", serde_json::to_string_pretty(&profile.profile)?)?;
            for warning in &profile.warnings {
                writeln!(out, "warning: {warning}")?;
            }
        }
        ProfilesCommand::New { name, from } => {
            api::profiles::create(store, &name, from.as_deref())?;
            writeln!(
                out,
                "created {}",
                store.home().profile_file(&name).display()
            )?;
        }
        ProfilesCommand::Use { name } => {
            api::profiles::set_active(store, &name)?;
            writeln!(
                out,
                "profile {name:?} is active: hosts that name no profile get it"
            )?;
        }
        ProfilesCommand::Rename { from, to } => {
            api::profiles::rename(store, &from, &to)?;
            writeln!(out, "renamed profile {from:?} to {to:?}")?;
        }
        ProfilesCommand::Delete { name } => {
            api::profiles::delete(store, &name)?;
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

/// Prints the host's config entry, or writes it into the host's file.
fn connect(store: &Store, args: &ConnectArgs, out: &mut dyn Write) -> Result<()> {
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
        return print_json(out, &api::hosts::snippet(args.host, &connection)?);
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
