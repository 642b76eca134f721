//! `mcp-sieve servers`: the upstream servers of config.json; list, add,
//! remove, enable and disable them, keep their secrets, sign in, probe one,
//! and import a host's servers.

use crate::hosts::host_kind_parser;
use crate::logging::init_logging;
use crate::output::print_json;
use crate::runtime::runtime;
use anyhow::{Context, Result};
use clap::Subcommand;
use sieve_api::HostKind;
use sieve_api::Store;
use sieve_api::{self as api, ServerRow};
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum ServersCommand {
    /// Connect to every server once and show its state.
    List {
        /// Print JSON (documented in docs/cli.md).
        #[arg(long)]
        json: bool,
    },
    /// Add a server to config.json: a command that speaks MCP on stdio
    /// (after --), or an HTTP server's --url. A running proxy starts it at
    /// once.
    #[command(
        after_help = "Examples:\n  mcp-sieve servers add memory -- npx -y @modelcontextprotocol/server-memory\n  mcp-sieve servers add github --env GITHUB_TOKEN=... --keep-secrets -- npx -y @modelcontextprotocol/server-github\n  mcp-sieve servers add notion --url https://mcp.notion.com/mcp"
    )]
    Add {
        /// What to call it. A name that is not a short key gets one
        /// ("Azure MCP Server" becomes azure), and the key is printed.
        name: String,
        /// The server's streamable HTTP endpoint, instead of a command.
        #[arg(long, value_name = "URL")]
        url: Option<String>,
        /// An environment variable for the command, as KEY=VALUE
        /// (repeatable).
        #[arg(long = "env", short = 'e', value_name = "KEY=VALUE")]
        env: Vec<String>,
        /// A header to send to the HTTP server, as 'Name: value'
        /// (repeatable).
        #[arg(long = "header", short = 'H', value_name = "'NAME: VALUE'")]
        headers: Vec<String>,
        /// Keep the env and header values in the system keychain (or a
        /// file only you can read): config.json then names them as
        /// ${secret:NAME}.
        #[arg(long)]
        keep_secrets: bool,
        /// Sign in to the HTTP server as this pre-registered OAuth client
        /// (then `servers login NAME`; its secret, if it has one, with
        /// `servers secret NAME oauth.clientSecret --stdin`).
        #[arg(long, value_name = "ID", requires = "url")]
        client_id: Option<String>,
        /// An OAuth scope to ask for when signing in (repeatable).
        #[arg(long = "scope", value_name = "SCOPE", requires = "url")]
        scopes: Vec<String>,
        /// Sign in with the Client ID Metadata Document published at this
        /// https:// address.
        #[arg(long, value_name = "URL", requires = "url")]
        client_metadata_url: Option<String>,
        /// Print JSON (documented in docs/cli.md).
        #[arg(long)]
        json: bool,
        /// The command that starts the server and its arguments, after --.
        #[arg(last = true, value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// Remove a server from config.json (its kept secrets stay in the
    /// keychain).
    Remove {
        /// The server's name in config.json.
        name: String,
    },
    /// Start using a server that was disabled.
    Enable {
        /// The server's name in config.json.
        name: String,
    },
    /// Stop using a server without removing it from config.json.
    Disable {
        /// The server's name in config.json.
        name: String,
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
        /// Print JSON (documented in docs/cli.md).
        #[arg(long)]
        json: bool,
    },
    /// Sign in to an HTTP server of config.json (OAuth): opens the sign-in
    /// page with $BROWSER, or prints its address, and keeps the sign-in in
    /// the system keychain (or a file only you can read).
    Login {
        /// The server's name in config.json.
        name: String,
        /// Print JSON (documented in docs/cli.md).
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
        /// Print JSON (documented in docs/cli.md).
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
        /// Print JSON (documented in docs/cli.md).
        #[arg(long)]
        json: bool,
    },
}

/// Runs `servers` and its subcommands.
pub(crate) fn run(store: &Store, command: ServersCommand, out: &mut dyn Write) -> Result<()> {
    match command {
        ServersCommand::List { json } => {
            let config = store.load_config()?;
            let rows = runtime()?.block_on(async {
                let rows = api::servers::probe(store).await?;
                api::Result::<_, api::ApiError>::Ok(
                    api::registry::with_newer_versions(&config, rows).await,
                )
            })?;
            if json {
                return print_json(out, &rows);
            }
            print_servers(&rows, out)
        }
        ServersCommand::Add {
            name,
            url,
            env,
            headers,
            keep_secrets,
            client_id,
            scopes,
            client_metadata_url,
            json,
            command,
        } => {
            let oauth = (client_id.is_some()
                || !scopes.is_empty()
                || client_metadata_url.is_some())
            .then(|| api::OAuthClient {
                client_id,
                scopes,
                client_metadata_url,
                ..Default::default()
            });
            let server = api::servers::ServerArgs {
                name: &name,
                url: url.as_deref(),
                command: &command,
                env: &env,
                headers: &headers,
                oauth,
            }
            .new_server()?;
            let secrets = keep_secrets
                .then(|| api::secrets::open(store))
                .transpose()?;
            let added = api::secrets::add_server(store, secrets.as_ref(), server)?;
            if json {
                return print_json(out, &added);
            }
            if added.server == name {
                writeln!(out, "added server {:?} to config.json", added.server)?;
            } else {
                writeln!(
                    out,
                    "added {name:?} to config.json as server {:?}: tools are named {}__TOOL, and commands take that name",
                    added.server, added.server
                )?;
            }
            crate::output::print_kept(out, &added.kept)
        }
        ServersCommand::Remove { name } => {
            api::servers::remove(store, &name)?;
            writeln!(out, "removed server {name:?} from config.json")?;
            Ok(())
        }
        ServersCommand::Enable { name } => {
            api::servers::set_enabled(store, &name, true)?;
            writeln!(out, "server {name:?} is enabled")?;
            Ok(())
        }
        ServersCommand::Disable { name } => {
            api::servers::set_enabled(store, &name, false)?;
            writeln!(
                out,
                "server {name:?} is disabled: it stays in config.json and is not started"
            )?;
            Ok(())
        }
        ServersCommand::Secret {
            name,
            key,
            stdin,
            json,
        } => {
            let value = if stdin {
                let mut text = String::new();
                std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                    .context("cannot read the value from stdin")?;
                Some(text.trim_end_matches(['\n', '\r']).to_string())
            } else {
                None
            };
            let secrets = api::secrets::open(store)?;
            let kept = api::secrets::keep_secret(store, &secrets, &name, &key, value.as_deref())?;
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
        ServersCommand::Login { name, json } => {
            let open = |url: &str| {
                if !api::login::open_sign_in_page(url) {
                    eprintln!("Open this address in your browser to sign in:\n\n  {url}\n");
                }
            };
            let signed_in =
                runtime()?.block_on(api::login::login(store, &name, &open, api::login::WAIT))?;
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
        ServersCommand::Probe {
            url,
            headers,
            protocol,
            client_metadata_url,
            json,
            scenario,
            scenario_context,
        } => {
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
        ServersCommand::Import {
            from,
            path,
            keep_secrets,
            json,
        } => {
            let report = api::secrets::import(store, from, path.as_deref(), keep_secrets)?;
            if json {
                return print_json(out, &report);
            }
            write!(out, "{report}")?;
            Ok(())
        }
    }
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
        if let (Some(newer), Some(origin)) = (&row.newer_version, &row.origin) {
            writeln!(
                out,
                "{:width$}  {} {newer} is published (this is {}): `mcp-sieve registry add {} --as NEW-KEY` adds it",
                "", origin.name, origin.version, origin.name
            )?;
        }
        if let Some(error) = &row.status.error {
            writeln!(out, "{:width$}  error: {error}", "")?;
        } else if row.status.state.as_str() == "connecting" {
            writeln!(
                out,
                "{:width$}  no answer to its initialize within {} s; a running proxy keeps waiting for it",
                "",
                api::catalog::SETTLE.as_secs()
            )?;
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
