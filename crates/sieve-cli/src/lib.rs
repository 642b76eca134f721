//! The `mcp-sieve` command line (DESIGN §7).
//!
//! Parsing and printing only: each subcommand turns its flags into a call
//! of `sieve_api` (the functions the desktop app calls too) and
//! prints what comes back as a table or, with `--json`, the stable JSON
//! documented in docs/cli.md. Errors propagate as `anyhow` chains that
//! `main` prints as one line.
//!
//! [`Cli`] is the parser's root; [`run`] hands each [`Command`] to the
//! module of its group, which holds the group's clap types and the code
//! that runs it and prints what comes back:
//!
//! * `tools`: the tool list, and the review of tools held in quarantine
//!   (`quarantined`, `approve`, `keep-hidden`);
//! * `tokens`: tokens of the tool list before and after the profile;
//! * `labels`: derived groups, overlays and concerns, and labelling tools;
//! * `profiles`: list, show, create, rename, activate and delete profiles;
//! * `serve`: the proxy a host connects to, and `demo-server`;
//! * `servers`: the upstream servers (`list`, `secret`, `login`, `probe`,
//!   `import`);
//! * `tasks`: the task ledger (list, `show`, `retry`, `cancel`);
//! * `audit`: the calls recorded with `settings.audit` on;
//! * `connect`: the config entry that connects a host;
//! * `registry`: servers of an MCP registry (`search`, `show`, `add`).
//!
//! What several groups share lives in modules that use no group module
//! (and no group module uses another):
//!
//! * `source`: `--profile`, `--catalog` and `--server`, and what they list;
//! * `hosts`: the host names clap offers and checks;
//! * `output`: printing JSON;
//! * `runtime`: the async runtime, an engine for one command, and the
//!   shutdown signal;
//! * `logging`: logs on stderr.

mod audit;
mod connect;
mod hosts;
mod labels;
mod logging;
mod output;
mod profiles;
mod registry;
mod runtime;
mod scan;
mod serve;
mod servers;
mod source;
mod tasks;
mod tokens;
mod tools;

use anyhow::Result;
use clap::{Parser, Subcommand};
use connect::ConnectArgs;
use profiles::ProfilesCommand;
use scan::ScanArgs;
use serve::{DemoServerArgs, ServeArgs};
use servers::ServersCommand;
use sieve_api::Home;
use sieve_api::Store;
use std::io::Write;
use std::path::PathBuf;
use tasks::TasksArgs;
use tokens::TokensArgs;
use tools::ToolsCommand;

/// Shows your AI host only the MCP tools you choose.
#[derive(Debug, Parser)]
#[command(name = "mcp-sieve", version, propagate_version = true)]
pub struct Cli {
    /// Keep config, profiles and the task ledger in DIR instead of the
    /// platform's folders.
    #[arg(long, global = true, env = "MCP_SIEVE_HOME", value_name = "DIR")]
    pub home: Option<PathBuf>,

    /// Keep config, profiles, approvals and the task ledger in a team's
    /// PostgreSQL database (postgres://USER:PASSWORD@HOST:PORT/DB) instead
    /// of files; settings.state in this machine's config.json says the same.
    #[arg(
        long,
        global = true,
        env = "MCP_SIEVE_STATE",
        value_name = "URL",
        hide_env_values = true
    )]
    pub state: Option<String>,

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
    /// What the tool-poisoning scanner finds in the servers' tools (or a
    /// catalog file's): hidden instructions, shadowing, hidden text.
    Scan(ScanArgs),
    /// Groups, tags and concern values for the tools: derived groups,
    /// overlays, concerns.
    Labels(labels::LabelsArgs),
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
    /// The calls recorded with settings.audit on, newest first.
    Audit(audit::AuditArgs),
    /// Print the config entry that connects a host to MCP Sieve, or write it
    /// into the host's file (the old file is kept as .bak).
    Connect(ConnectArgs),
    /// The AI hosts on this machine: list them, route them through MCP
    /// Sieve (one profile each), give them back.
    Hosts(hosts::HostsArgs),
    /// Servers of an MCP registry: search, show one, add one to config.json.
    Registry(registry::RegistryArgs),
    /// Run the built-in demo MCP server (about 40 tools) on stdio or HTTP.
    DemoServer(DemoServerArgs),
}

/// The whole program: parse the command line, run it, print an error as
/// one line on stderr and exit non-zero.
pub fn main() -> std::process::ExitCode {
    use clap::error::ErrorKind;
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error)
            if matches!(
                error.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) =>
        {
            error.exit()
        }
        Err(error) => {
            eprintln!("{}", usage_error(&error.to_string()));
            return std::process::ExitCode::from(2);
        }
    };
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

/// A mistake on the command line as one line: clap's message, with its
/// hints on the same line and the usage left to `--help`.
fn usage_error(text: &str) -> String {
    // clap writes the mistake, its hints, then the usage (which may take
    // several lines) and where to read more.
    let parts = text
        .lines()
        .map(str::trim)
        .take_while(|line| !line.starts_with("Usage:") && !line.starts_with("For more information"))
        .filter(|line| !line.is_empty())
        .map(|line| {
            let line = line.strip_prefix("tip: ").unwrap_or(line);
            line.strip_prefix('[')
                .and_then(|l| l.strip_suffix(']'))
                .unwrap_or(line)
        });
    let mut said = String::new();
    for part in parts {
        if !said.is_empty() {
            said.push_str(if said.ends_with(':') { " " } else { "; " });
        }
        said.push_str(part);
    }
    format!("{said}; --help shows how to write it")
}

/// Runs the parsed command line, printing to `out`.
pub fn run(cli: Cli, out: &mut dyn Write) -> Result<()> {
    let store = Store::open(Home::resolve(cli.home.as_deref())?, cli.state.as_deref())?;
    match cli.command {
        Command::Tools(command) => tools::run(&store, command, out),
        Command::Tokens(args) => tokens::run(&store, &args, out),
        Command::Scan(args) => scan::run(&store, &args, out),
        Command::Labels(args) => labels::run(&store, args, out),
        Command::Profiles(command) => profiles::run(&store, command, out),
        Command::DemoServer(args) => serve::demo_server(&args, out),
        Command::Serve(args) => serve::serve(store, &args, out),
        Command::Tasks(args) => tasks::run(store, args, out),
        Command::Audit(args) => audit::run(&store, args, out),
        Command::Servers(command) => servers::run(&store, command, out),
        Command::Connect(args) => connect::run(&store, &args, out),
        Command::Hosts(args) => hosts::run(&store, args, out),
        Command::Registry(args) => registry::run(&store, args, out),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_usage_mistake_is_one_line() {
        let said = super::usage_error(
            "error: invalid value 'bogus' for '<MODE>'\n  [possible values: list, search]\n\nFor more information, try '--help'.\n",
        );
        assert_eq!(
            said,
            "error: invalid value 'bogus' for '<MODE>'; possible values: list, search; --help shows how to write it"
        );
        let said = super::usage_error(
            "error: the following required arguments were not provided:\n  <NAME>\n\nUsage: mcp-sieve servers remove <NAME>\n       mcp-sieve servers remove --x\n\nFor more information, try '--help'.\n",
        );
        assert_eq!(
            said,
            "error: the following required arguments were not provided: <NAME>; --help shows how to write it"
        );
    }
}
