//! The `mcp-sieve` command line (DESIGN §7).
//!
//! Each subcommand parses its arguments with clap, does its work through
//! [`Store`] and sieve-core, and prints a table or, with `--json`, the
//! stable JSON documented in the README. Errors propagate as `anyhow`
//! chains that `main` prints as one line.

use crate::home::Home;
use crate::store::Store;
use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use serde::Serialize;
use serde_json::json;
use sieve_core::{Catalog, Kind, Overlays, Primitive, Rules, ServerListing, parse_tool_list};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Shows your AI host only the MCP tools you choose.
#[derive(Debug, Parser)]
#[command(name = "mcp-sieve", version, about, propagate_version = true)]
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
    /// Run the built-in demo MCP server (about 40 tools) on stdio or HTTP.
    DemoServer {
        /// Serve streamable HTTP at ADDR (endpoint /mcp) instead of stdio.
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
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

#[derive(Debug, Subcommand)]
pub enum ProfilesCommand {
    /// List the profiles.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Print a profile.
    Show {
        name: String,
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
        Command::DemoServer { http } => demo_server(http, out),
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
    let listings = if source.catalogs.is_empty() && config.mcp_servers.is_empty() {
        // Nothing configured: the embedded default is the demo server.
        vec![builtin_listing()]
    } else {
        catalog_listings(source)?
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
    if source.catalogs.is_empty() {
        bail!(
            "listing the live servers of config.json is not built yet; pass --catalog FILE \
             (a JSON array of MCP tools or a tools/list result)"
        );
    }
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

/// The name of the built-in demo server when it stands in for an empty
/// config.
pub const BUILTIN_SERVER: &str = "demo";

/// The demo server's tools, as if listed by a server called `demo`.
fn builtin_listing() -> ServerListing {
    let tools = crate::demo::demo_tools()
        .into_iter()
        .map(|tool| serde_json::to_value(tool).expect("tools serialise"))
        .collect();
    ServerListing::tools(BUILTIN_SERVER, tools)
}

fn demo_server(http: Option<std::net::SocketAddr>, out: &mut dyn Write) -> Result<()> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async {
        match http {
            None => crate::demo::serve_stdio().await,
            Some(addr) => {
                let bound = crate::demo::serve_http(addr, async {
                    let _ = tokio::signal::ctrl_c().await;
                })
                .await?;
                writeln!(out, "demo server at http://{bound}/mcp")?;
                out.flush()?;
                std::future::pending::<()>().await;
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
                crate::store::backup_path(&path).display()
            )?;
        }
    }
    Ok(())
}
