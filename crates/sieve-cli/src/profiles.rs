//! `mcp-sieve profiles`: list, show, create, rename, activate and delete
//! profiles.

use crate::output::print_json;
use anyhow::Result;
use clap::Subcommand;
use sieve_api as api;
use sieve_api::Store;
use std::io::Write;

#[derive(Debug, Subcommand)]
pub enum ProfilesCommand {
    /// List the profiles.
    List {
        /// Print JSON (documented in docs/cli.md).
        #[arg(long)]
        json: bool,
    },
    /// Print a profile.
    Show {
        name: String,
        /// Print JSON (documented in docs/cli.md).
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

pub(crate) fn run(store: &Store, command: ProfilesCommand, out: &mut dyn Write) -> Result<()> {
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
                let used_by = match s.used_by.as_slice() {
                    [] => String::new(),
                    hosts => format!(
                        " (used by {})",
                        hosts
                            .iter()
                            .map(|h| h.title())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                match &s.error {
                    Some(error) => {
                        writeln!(out, "{mark} {:width$}  (broken) {error}{used_by}", s.name)?
                    }
                    None => writeln!(
                        out,
                        "{mark} {:width$}  {}{used_by}",
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
                sieve_api::backup_path(&path).display()
            )?;
        }
    }
    Ok(())
}
