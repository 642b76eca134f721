//! `mcp-sieve registry`: search an MCP registry, show a server of it, and
//! add one to config.json. Adding asks on a terminal: for each required
//! value not given (secrets without echo), then whether to add the command
//! it shows; elsewhere it takes `--yes`.

use crate::output::print_json;
use crate::runtime::runtime;
use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use sieve_api::Store;
use sieve_api::registry::{self as api, Request};
use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};

#[derive(Debug, Args)]
pub struct RegistryArgs {
    #[command(subcommand)]
    command: RegistryCommand,
    /// The registry's base URL, instead of the first of settings.registries
    /// (or the official registry).
    #[arg(long, global = true, value_name = "URL")]
    registry: Option<String>,
}

#[derive(Debug, Subcommand)]
enum RegistryCommand {
    /// The servers whose name holds TEXT, at their latest version.
    Search {
        text: String,
        /// Print JSON (documented in docs/cli.md).
        #[arg(long)]
        json: bool,
    },
    /// A server's versions, packages, remotes and the values it asks for.
    #[command(disable_version_flag = true)]
    Show {
        /// Its name in the registry, e.g. io.github.upstash/context7.
        name: String,
        /// A version other than the latest.
        #[arg(long)]
        version: Option<String>,
        /// Print JSON (documented in docs/cli.md).
        #[arg(long)]
        json: bool,
    },
    /// Add a server to config.json, its version pinned; secret values go to
    /// the system keychain (or a file only you can read).
    #[command(disable_version_flag = true)]
    Add {
        /// Its name in the registry, e.g. io.github.upstash/context7.
        name: String,
        /// A version other than the latest.
        #[arg(long)]
        version: Option<String>,
        /// The key in config.json, instead of a short one made from its name
        /// (an existing entry is never replaced).
        #[arg(long = "as", value_name = "KEY")]
        key: Option<String>,
        /// An environment variable it declares (repeatable).
        #[arg(long = "env", value_name = "NAME=VALUE")]
        env: Vec<String>,
        /// A header it declares, as 'Name: value' (repeatable).
        #[arg(long = "header", value_name = "'NAME: VALUE'")]
        headers: Vec<String>,
        /// An argument or a variable it declares, by name (repeatable).
        #[arg(long = "arg", value_name = "NAME=VALUE")]
        args: Vec<String>,
        /// Add without asking (the only way where stdin is no terminal).
        #[arg(long, short = 'y')]
        yes: bool,
        /// Print JSON (documented in docs/cli.md).
        #[arg(long)]
        json: bool,
    },
}

/// Runs `registry` and its subcommands.
pub(crate) fn run(store: &Store, args: RegistryArgs, out: &mut dyn Write) -> Result<()> {
    let registry = args.registry.as_deref();
    match args.command {
        RegistryCommand::Search { text, json } => {
            let found = runtime()?.block_on(api::search(store, registry, &text))?;
            if json {
                return print_json(out, &found);
            }
            if found.servers.is_empty() {
                writeln!(
                    out,
                    "{} has no server whose name holds {text:?}",
                    found.registry
                )?;
            }
            for server in &found.servers {
                writeln!(
                    out,
                    "{}  {}  {}",
                    server.name, server.version, server.description
                )?;
            }
            Ok(())
        }
        RegistryCommand::Show {
            name,
            version,
            json,
        } => {
            let shown =
                runtime()?.block_on(api::show(store, registry, &name, version.as_deref()))?;
            if json {
                return print_json(out, &shown);
            }
            print_shown(&shown, out)
        }
        RegistryCommand::Add {
            name,
            version,
            key,
            env,
            headers,
            args,
            yes,
            json,
        } => {
            let mut request = Request {
                name,
                version,
                key,
                registry: args_registry(registry),
                env: pairs(&env, '=', "--env", "NAME=VALUE")?,
                headers: pairs(&headers, ':', "--header", "'NAME: VALUE'")?,
                args: pairs(&args, '=', "--arg", "NAME=VALUE")?,
            };
            let asking = !yes && std::io::stdin().is_terminal();
            if !yes && !asking {
                bail!(
                    "adding a server needs your confirmation: run it on a terminal, or pass --yes to add without being asked"
                );
            }
            let rt = runtime()?;
            if asking {
                ask_missing(&rt, store, &mut request, registry)?;
            }
            let prepared = rt.block_on(api::prepare(store, &request))?;
            if asking {
                eprintln!(
                    "{} {} will be added as {:?} and run as:\n\n  {}\n",
                    prepared.name, prepared.version, prepared.key, prepared.command
                );
                if let Some(missing) = &prepared.runner_missing {
                    eprintln!("note: {missing}\n");
                }
                if !confirm("Add it? [y/N] ")? {
                    bail!("nothing was added");
                }
            }
            let added = api::add(store, prepared)?;
            if json {
                return print_json(out, &added);
            }
            writeln!(
                out,
                "added {} {} as {:?}: {}",
                added.name, added.version, added.key, added.command
            )?;
            crate::output::print_kept(out, &added.secrets)?;
            if let Some(missing) = &added.runner_missing {
                eprintln!("note: {missing}");
            }
            Ok(())
        }
    }
}

fn args_registry(registry: Option<&str>) -> Option<String> {
    registry.map(String::from)
}

/// `NAME=VALUE` (or `Name: value`) flags as a map.
fn pairs(
    values: &[String],
    separator: char,
    flag: &str,
    shape: &str,
) -> Result<BTreeMap<String, String>> {
    values
        .iter()
        .map(|pair| match pair.split_once(separator) {
            Some((name, value)) if !name.trim().is_empty() => {
                Ok((name.trim().to_string(), value.trim_start().to_string()))
            }
            _ => bail!("{flag} {pair:?} is not {shape}"),
        })
        .collect()
}

/// Asks on the terminal for each required value not given; secrets are
/// read without echo.
fn ask_missing(
    rt: &tokio::runtime::Runtime,
    store: &Store,
    request: &mut Request,
    registry: Option<&str>,
) -> Result<()> {
    let shown = rt.block_on(api::show(
        store,
        registry,
        &request.name,
        request.version.as_deref(),
    ))?;
    for asked in shown.asked.iter().filter(|a| a.required) {
        let map = match asked.section {
            sieve_api::registry::Section::Env => &mut request.env,
            sieve_api::registry::Section::Header => &mut request.headers,
            sieve_api::registry::Section::Arg => &mut request.args,
        };
        if map.keys().any(|k| k.eq_ignore_ascii_case(&asked.name)) {
            continue;
        }
        let about = if asked.description.is_empty() {
            String::new()
        } else {
            format!(" ({})", asked.description)
        };
        let prompt = format!("{}{about}: ", asked.name);
        let value = if asked.secret {
            read_secret(&prompt)?
        } else {
            read_line(&prompt)?
        };
        if !value.is_empty() {
            map.insert(asked.name.clone(), value);
        }
    }
    Ok(())
}

fn read_line(prompt: &str) -> Result<String> {
    eprint!("{prompt}");
    std::io::stderr().flush()?;
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("cannot read from the terminal")?;
    Ok(line.trim_end_matches(['\n', '\r']).to_string())
}

/// A line read with the terminal's echo off (`stty -echo`), then on again.
fn read_secret(prompt: &str) -> Result<String> {
    let stty = |arg: &str| {
        std::process::Command::new("stty")
            .arg(arg)
            .stdin(std::process::Stdio::inherit())
            .status()
            .is_ok_and(|s| s.success())
    };
    let quiet = stty("-echo");
    let line = read_line(prompt);
    if quiet {
        stty("echo");
        eprintln!();
    }
    line
}

fn confirm(prompt: &str) -> Result<bool> {
    let answer = read_line(prompt)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes"))
}

fn print_shown(shown: &api::Shown, out: &mut dyn Write) -> Result<()> {
    let entry = &shown.entry;
    writeln!(out, "{} {} ({})", entry.name, entry.version, shown.registry)?;
    if let Some(title) = &entry.title {
        writeln!(out, "  {title}")?;
    }
    if !entry.description.is_empty() {
        writeln!(out, "  {}", entry.description)?;
    }
    writeln!(
        out,
        "versions: {} (latest {})",
        shown.versions.join(", "),
        shown.latest
    )?;
    for (n, package) in entry.packages.iter().enumerate() {
        let version = package
            .version
            .as_ref()
            .map(|v| format!("@{v}"))
            .unwrap_or_default();
        let used = shown.source == Some(sieve_api::registry::Source::Package(n));
        writeln!(
            out,
            "package: {} {}{version} over {}{}",
            package.registry_type,
            package.identifier,
            package.transport.kind,
            if used { " (added)" } else { "" }
        )?;
    }
    for (n, remote) in entry.remotes.iter().enumerate() {
        let used = shown.source == Some(sieve_api::registry::Source::Remote(n));
        writeln!(
            out,
            "remote: {} {}{}",
            remote.kind,
            remote.url,
            if used { " (added)" } else { "" }
        )?;
    }
    for asked in &shown.asked {
        let mut notes = Vec::new();
        if asked.required {
            notes.push("required".to_string());
        }
        if asked.secret {
            notes.push("secret".to_string());
        }
        if let Some(default) = &asked.default {
            notes.push(format!("default {default}"));
        }
        writeln!(
            out,
            "asks: {}  {}{}",
            asked.section.flag(&asked.name),
            asked.description,
            if notes.is_empty() {
                String::new()
            } else {
                format!(" [{}]", notes.join(", "))
            }
        )?;
    }
    if let Some(refused) = &shown.refused {
        writeln!(out, "cannot be added: {refused}")?;
    }
    Ok(())
}
