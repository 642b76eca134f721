//! `mcp-sieve profiles`: list, show, create, rename, activate, change and
//! delete profiles.

use crate::output::print_json;
use anyhow::Result;
use clap::Subcommand;
use sieve_api as api;
use sieve_api::{Doc, Store};
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
    /// Change a profile as the app's Profiles and Tools screens do: switch
    /// groups, require or exclude tags, set concerns, allow or deny tools,
    /// choose how tools are disclosed. Written at once; running proxies
    /// apply it live.
    Set {
        name: String,
        #[command(subcommand)]
        change: SetCommand,
        /// Print the profile as written, as JSON.
        #[arg(long, global = true)]
        json: bool,
    },
}

/// What `profiles set` changes.
#[derive(Debug, Subcommand)]
pub enum SetCommand {
    /// Switch groups on or off (off: into `groups.none`).
    Group {
        switch: Switch,
        #[arg(required = true, value_name = "GROUP")]
        groups: Vec<String>,
    },
    /// Require tags (`tags.all`), exclude them (`tags.none`), or neither.
    Tag {
        /// (Not `state`, which is the global `--state`.)
        choice: TagChoice,
        #[arg(required = true, value_name = "TAG")]
        tags: Vec<String>,
    },
    /// Set a concern to one of its values, or `any` to clear it.
    Concern { concern: String, value: String },
    /// Add globs to `tools.allow` (only matching tools show).
    Allow {
        #[arg(required = true, value_name = "GLOB")]
        globs: Vec<String>,
    },
    /// Add globs to `tools.deny` (matching tools are hidden).
    Deny {
        #[arg(required = true, value_name = "GLOB")]
        globs: Vec<String>,
    },
    /// Take globs out of `tools.allow`.
    Unallow {
        #[arg(required = true, value_name = "GLOB")]
        globs: Vec<String>,
    },
    /// Take globs out of `tools.deny`.
    Undeny {
        #[arg(required = true, value_name = "GLOB")]
        globs: Vec<String>,
    },
    /// List every tool the profile allows (`list`), or only the pinned
    /// ones and the two search tools (`search`).
    Disclosure { mode: DisclosureChoice },
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Switch {
    On,
    Off,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum TagChoice {
    Require,
    Exclude,
    Neither,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum DisclosureChoice {
    List,
    Search,
}

impl SetCommand {
    /// The edits this change makes, as the app's controls make them.
    fn edits(self) -> Vec<api::ProfileEdit> {
        use api::ProfileEdit as Edit;
        let patterns = |list: api::PatternList, globs: Vec<String>, add: bool| {
            globs
                .into_iter()
                .map(|pattern| {
                    let section = "tools".to_string();
                    if add {
                        Edit::AddPattern {
                            section,
                            list,
                            pattern,
                        }
                    } else {
                        Edit::RemovePattern {
                            section,
                            list,
                            pattern,
                        }
                    }
                })
                .collect()
        };
        match self {
            SetCommand::Group { switch, groups } => groups
                .into_iter()
                .map(|group| Edit::SetGroup {
                    group,
                    on: matches!(switch, Switch::On),
                })
                .collect(),
            SetCommand::Tag { choice, tags } => {
                let state = match choice {
                    TagChoice::Require => api::TagState::Require,
                    TagChoice::Exclude => api::TagState::Exclude,
                    TagChoice::Neither => api::TagState::Ignore,
                };
                tags.into_iter()
                    .map(|tag| Edit::SetTag { tag, state })
                    .collect()
            }
            SetCommand::Concern { concern, value } => vec![Edit::SetConcern {
                concern,
                value: (value != "any").then_some(value),
            }],
            SetCommand::Allow { globs } => patterns(api::PatternList::Allow, globs, true),
            SetCommand::Deny { globs } => patterns(api::PatternList::Deny, globs, true),
            SetCommand::Unallow { globs } => patterns(api::PatternList::Allow, globs, false),
            SetCommand::Undeny { globs } => patterns(api::PatternList::Deny, globs, false),
            SetCommand::Disclosure { mode } => vec![Edit::SetDisclosure {
                disclosure: match mode {
                    DisclosureChoice::List => api::Disclosure::List,
                    DisclosureChoice::Search => api::Disclosure::Search,
                },
            }],
        }
    }
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
            if profile.profile.disclosure == api::Disclosure::Search {
                writeln!(out, "search: {}", api::profiles::search_ranking().says)?;
            }
            // Groups no server has: only asked of the servers when the
            // profile names groups at all.
            let groups = &profile.profile.groups;
            if !groups.any.is_empty() || !groups.none.is_empty() {
                let listed = crate::runtime::runtime()?.block_on(api::Listed::live(store))?;
                for warning in api::profiles::unknown_groups(&profile.profile, &listed.catalog) {
                    writeln!(out, "warning: {warning}")?;
                }
            }
        }
        ProfilesCommand::New { name, from } => {
            api::profiles::create(store, &name, from.as_deref())?;
            writeln!(
                out,
                "created {}",
                store.location(&Doc::Profile(name.clone())).display()
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
        ProfilesCommand::Set { name, change, json } => {
            let edits = change.edits();
            // A server's group switched on where the profile switches the
            // name off bare needs the groups the servers have now.
            let listed =
                if api::profiles::edits_need_groups(&api::profiles::show(store, &name)?, &edits) {
                    Some(crate::runtime::runtime()?.block_on(api::Listed::live(store))?)
                } else {
                    None
                };
            let catalog = listed.as_ref().map(|listed| &*listed.catalog);
            let profile =
                api::profiles::edit_all_in(store, &name, &edits, catalog).map_err(|error| {
                    match &error.field {
                        Some(field) => anyhow::anyhow!("{} ({field})", error.message),
                        None => error.into(),
                    }
                })?;
            if json {
                return print_json(out, &profile);
            }
            for edit in &edits {
                match edit {
                    api::ProfileEdit::AddPattern { list, pattern, .. } => {
                        let list = match list {
                            api::PatternList::Allow => "allow",
                            api::PatternList::Deny => "deny",
                        };
                        writeln!(out, "Add \"{pattern}\" to tools.{list}")?
                    }
                    edit => writeln!(out, "{}", edit.label())?,
                }
            }
            writeln!(
                out,
                "profile {name:?} written; running proxies apply it now"
            )?;
            // What it names that nothing has is said now, not first at
            // `profiles show`: a concern the config does not define, a
            // group no server lists.
            let config = store.load_config()?;
            let compiled = api::profiles::compile(store, &name, &config)?;
            for warning in &compiled.warnings {
                writeln!(out, "warning: {warning}")?;
            }
            if edits
                .iter()
                .any(|edit| matches!(edit, api::ProfileEdit::SetGroup { .. }))
            {
                let listed = match listed {
                    Some(listed) => listed,
                    None => crate::runtime::runtime()?.block_on(api::Listed::live(store))?,
                };
                for warning in api::profiles::unknown_groups(&compiled.profile, &listed.catalog) {
                    writeln!(out, "warning: {warning}")?;
                }
            }
        }
        ProfilesCommand::Delete { name } => {
            api::profiles::delete(store, &name)?;
            writeln!(
                out,
                "deleted profile {name:?} (its last version is {})",
                store.previous_location(&Doc::Profile(name.clone()))
            )?;
        }
    }
    Ok(())
}
