//! `mcp-sieve hosts`: the AI hosts on this machine, routing them through
//! MCP Sieve and giving them back (DESIGN §11); and host names as clap
//! offers and checks them.

use crate::output::print_json;
use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use sieve_api::HostKind;
use sieve_api::Store;
use sieve_api::hosts::{
    self, DEFAULT_HTTP_BASE, HostDirs, HostState, RouteOptions, RouteReport, UnrouteReport, Via,
};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Host names as clap offers and checks them.
pub(crate) fn host_kind_parser() -> impl clap::builder::TypedValueParser<Value = HostKind> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(HostKind::ALL.map(HostKind::as_str))
        .map(|name| name.parse::<HostKind>().expect("offered names parse"))
}

#[derive(Debug, Args)]
pub struct HostsArgs {
    /// Look for the hosts' files under DIR as if it were your home folder
    /// (its .config inside it), instead of your own.
    #[arg(long, global = true, env = "MCP_SIEVE_HOST_HOME", value_name = "DIR")]
    pub host_home: Option<PathBuf>,
    #[command(subcommand)]
    pub command: HostsCommand,
}

#[derive(Debug, Subcommand)]
pub enum HostsCommand {
    /// Every host with its state: absent, installed, or routed (with its
    /// profile).
    List {
        /// Print JSON (documented in docs/cli.md).
        #[arg(long)]
        json: bool,
    },
    /// Route a host (or --all) through MCP Sieve: its servers go into
    /// config.json, a profile named after it is made from them, and its
    /// file keeps only the `sieve` entry (the old file is kept as .bak).
    Route {
        /// The host; or --all.
        #[arg(value_parser = host_kind_parser(), required_unless_present = "all")]
        host: Option<HostKind>,
        /// Every host on this machine, each with its own profile.
        #[arg(long, conflicts_with_all = ["host", "profile"])]
        all: bool,
        /// The profile the host gets (default: one named after the host,
        /// made from the servers it had).
        #[arg(long, short, value_name = "NAME")]
        profile: Option<String>,
        /// Connect over HTTP to a running proxy (`mcp-sieve serve --http
        /// 127.0.0.1:8765`, or the app) with the bearer token, where the
        /// host takes HTTP entries; Claude Desktop stays stdio.
        #[arg(long)]
        http: bool,
        /// The proxy's endpoint for --http.
        #[arg(long, value_name = "URL", requires = "http", default_value = DEFAULT_HTTP_BASE)]
        url: String,
        /// Keep the env and header values of the imported servers in the
        /// system keychain instead of config.json.
        #[arg(long)]
        keep_secrets: bool,
        /// Print JSON (documented in docs/cli.md).
        #[arg(long)]
        json: bool,
    },
    /// Give a routed host back the servers it had, and take the `sieve`
    /// entry out of its file.
    Unroute {
        #[arg(value_parser = host_kind_parser())]
        host: HostKind,
        /// Print JSON (documented in docs/cli.md).
        #[arg(long)]
        json: bool,
    },
}

pub(crate) fn run(store: &Store, args: HostsArgs, out: &mut dyn Write) -> Result<()> {
    let dirs = hosts::dirs(args.host_home.as_deref())?;
    match args.command {
        HostsCommand::List { json } => list(&dirs, json, out),
        HostsCommand::Route {
            host,
            all,
            profile,
            http,
            url,
            keep_secrets,
            json,
        } => {
            let stdio = Via::Stdio {
                command: std::env::current_exe()
                    .context("cannot tell where mcp-sieve is installed")?,
                home: store.home().explicit().map(Path::to_path_buf),
            };
            let via = if http {
                Via::Http {
                    base: url,
                    token: store.http_token()?,
                    fallback: Some(Box::new(stdio)),
                }
            } else {
                stdio
            };
            let options = RouteOptions {
                profile,
                via,
                keep_secrets,
            };
            match host {
                Some(host) if !all => {
                    let report = hosts::route(store, &dirs, host, &options)?;
                    if json {
                        return print_json(out, &report);
                    }
                    say_routed(out, &report)
                }
                _ => route_all(store, &dirs, &options, json, out),
            }
        }
        HostsCommand::Unroute { host, json } => {
            let report = hosts::unroute(store, &dirs, host)?;
            if json {
                return print_json(out, &report);
            }
            say_unrouted(out, &report)
        }
    }
}

fn list(dirs: &HostDirs, json: bool, out: &mut dyn Write) -> Result<()> {
    let listing = hosts::listing(dirs);
    if json {
        return print_json(out, &listing);
    }
    let hosts: Vec<&hosts::HostStatus> = listing.iter().map(|l| &l.status).collect();
    let width = hosts
        .iter()
        .map(|h| h.host.as_str().len())
        .max()
        .unwrap_or(0);
    let states: Vec<String> = hosts
        .iter()
        .map(|status| match status.state {
            HostState::Absent => "absent".to_string(),
            HostState::Installed => format!("installed, {} server(s)", status.servers.len()),
            HostState::Routed => format!(
                "routed, profile {} ({}){}",
                status.profile.as_deref().unwrap_or("default"),
                status.transport.unwrap_or("stdio"),
                match status.servers.len() {
                    0 => String::new(),
                    n => format!(", {n} other server(s)"),
                }
            ),
        })
        .collect();
    let state_width = states.iter().map(String::len).max().unwrap_or(0);
    for (status, state) in hosts.iter().zip(&states) {
        writeln!(
            out,
            "{:width$}  {state:state_width$}  {}",
            status.host.as_str(),
            status.path.display()
        )?;
        if let Some(problem) = &status.problem {
            writeln!(out, "{:width$}  {problem}", "")?;
        }
    }
    writeln!(
        out,
        "\nTool search (whether to serve a host a search profile):"
    )?;
    for host in &listing {
        writeln!(
            out,
            "{:width$}  {}",
            host.status.host.as_str(),
            host.tool_search.advice
        )?;
    }
    Ok(())
}

fn route_all(
    store: &Store,
    dirs: &HostDirs,
    options: &RouteOptions,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let routed = hosts::route_all(store, dirs, options);
    if json {
        print_json(out, &routed)?;
    } else {
        if routed.is_empty() {
            writeln!(out, "found no AI host on this machine")?;
        }
        for outcome in &routed {
            match (&outcome.report, &outcome.error) {
                (Some(report), _) => say_routed(out, report)?,
                (None, Some(error)) => {
                    writeln!(out, "{}: not routed: {}", outcome.host.title(), error)?
                }
                (None, None) => {}
            }
        }
    }
    let failed: Vec<&str> = routed
        .iter()
        .filter(|outcome| outcome.error.is_some())
        .map(|outcome| outcome.host.as_str())
        .collect();
    if !failed.is_empty() {
        bail!("{} could not be routed; see above", failed.join(", "));
    }
    Ok(())
}

fn say_routed(out: &mut dyn Write, report: &RouteReport) -> Result<()> {
    let title = report.host.title();
    if !report.write.changed && report.moved.is_empty() {
        writeln!(
            out,
            "{title} goes through MCP Sieve already, with profile {}",
            report.profile
        )?;
    } else {
        writeln!(
            out,
            "{title} now goes through MCP Sieve with profile {}{}",
            report.profile,
            if report.profile_created {
                " (made from what it had)"
            } else {
                ""
            }
        )?;
        if !report.moved.is_empty() {
            writeln!(out, "  moved into config.json: {}", report.moved.join(", "))?;
        }
        writeln!(out, "  wrote {}", report.write.path.display())?;
        if let Some(backup) = &report.write.backup {
            writeln!(out, "  the previous file is {}", backup.display())?;
        }
    }
    for renamed in &report.import.renamed {
        writeln!(out, "  {}", renamed.message)?;
    }
    for left in &report.left {
        writeln!(out, "  left {:?} in its file: {}", left.name, left.reason)?;
    }
    if !report.import.kept_secrets.is_empty() {
        writeln!(
            out,
            "  kept {} value(s) in the system keychain: {}",
            report.import.kept_secrets.len(),
            report.import.kept_secrets.join(", ")
        )?;
    } else if !report.import.secrets.is_empty() {
        writeln!(
            out,
            "  config.json now holds {} env/header value(s) of these servers; --keep-secrets keeps them in the system keychain instead",
            report.import.secrets.len()
        )?;
    }
    if report.write.changed {
        writeln!(out, "  restart {title} to connect it")?;
    }
    Ok(())
}

fn say_unrouted(out: &mut dyn Write, report: &UnrouteReport) -> Result<()> {
    let title = report.host.title();
    if !report.recorded {
        writeln!(
            out,
            "{title} was not routed by MCP Sieve, so there are no servers to give back{}",
            if report.write.changed {
                "; took the sieve entry out of its file"
            } else {
                ""
            }
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "{title} has its own servers again: {}",
        if report.restored.is_empty() {
            "none to give back".to_string()
        } else {
            report.restored.join(", ")
        }
    )?;
    for name in &report.kept {
        writeln!(
            out,
            "  {name:?} was not put back: its file has a server of that name again"
        )?;
    }
    if report.write.changed {
        writeln!(
            out,
            "  wrote {}; restart {title}",
            report.write.path.display()
        )?;
    }
    Ok(())
}
