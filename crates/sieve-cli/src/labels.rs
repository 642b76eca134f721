//! `mcp-sieve labels`: groups, tags and concern values for the tools of
//! real servers (DESIGN §3, §7), each edit written to config.json as the
//! fewest overlays that say it; the same library functions the app's
//! Labels screen and Tools bar call.

use crate::output::print_json;
use crate::source::{SourceArgs, listed};
use anyhow::Result;
use clap::{Args, Subcommand};
use sieve_api::Store;
use sieve_api::labels::{self, LabelEdit};
use std::io::Write;

#[derive(Debug, Args)]
pub struct LabelsArgs {
    #[command(subcommand)]
    pub command: LabelsCommand,
    #[command(flatten)]
    pub source: SourceArgs,
}

#[derive(Debug, Subcommand)]
pub enum LabelsCommand {
    /// Derived groups, every overlay as a rule, group renames and the
    /// concerns in force.
    List {
        /// Print JSON (documented in docs/cli.md).
        #[arg(long)]
        json: bool,
    },
    /// Put tools in a group, take them out, move them, or rename a group.
    #[command(subcommand)]
    Group(GroupCommand),
    /// Add a tag to tools or take it away.
    #[command(subcommand)]
    Tag(TagCommand),
    /// Set the value of a concern on tools (`none` clears it).
    #[command(subcommand)]
    Concern(ConcernCommand),
    /// Define or remove a concern.
    #[command(subcommand)]
    Concerns(ConcernsCommand),
    /// Remove overlay number N of config.json (as `labels list` numbers them).
    RemoveOverlay { number: usize },
    /// Change overlay number N of config.json (as `labels list` numbers
    /// them): each option given replaces that part of the rule, the rest
    /// stays; a list option given "" empties it.
    EditOverlay(EditOverlayArgs),
    /// Derive groups for servers that send none (`on`), or not (`off`).
    Derive {
        #[arg(value_parser = ["on", "off"])]
        state: String,
    },
}

#[derive(Debug, Args)]
pub struct EditOverlayArgs {
    number: usize,
    /// The glob on exposed names the rule applies to.
    #[arg(long = "match", value_name = "GLOB")]
    pattern: Option<String>,
    /// Groups it adds, separated by commas.
    #[arg(long, value_name = "GROUP,...")]
    groups: Option<String>,
    /// Tags it adds, separated by commas.
    #[arg(long, value_name = "TAG,...")]
    tags: Option<String>,
    /// Concern values it sets, NAME=VALUE separated by commas.
    #[arg(long, value_name = "NAME=VALUE,...")]
    concerns: Option<String>,
    /// Groups it takes away, separated by commas.
    #[arg(long, value_name = "GROUP,...")]
    remove_groups: Option<String>,
    /// Tags it takes away, separated by commas.
    #[arg(long, value_name = "TAG,...")]
    remove_tags: Option<String>,
    /// Concerns whose value it clears, separated by commas.
    #[arg(long, value_name = "NAME,...")]
    remove_concerns: Option<String>,
    /// The title hosts see instead of the server's ("" gives it back).
    #[arg(long)]
    title: Option<String>,
    /// The description hosts see instead of the server's ("" gives it back).
    #[arg(long)]
    description: Option<String>,
}

impl EditOverlayArgs {
    /// The edit of the rule as config.json holds it now: the library
    /// refuses it if the rule changes before it is written.
    fn edit(self, store: &Store) -> Result<LabelEdit> {
        let config = store.load_config()?;
        let index = self.number.checked_sub(1);
        let Some((index, was)) = index.and_then(|i| Some((i, config.overlays.get(i)?.clone())))
        else {
            anyhow::bail!(
                "config.json has {} overlays; there is no overlay number {} (`mcp-sieve labels list` numbers them)",
                config.overlays.len(),
                self.number
            );
        };
        let list = |text: &str| -> Vec<String> {
            text.split(',')
                .map(str::trim)
                .filter(|item| !item.is_empty())
                .map(str::to_string)
                .collect()
        };
        let mut overlay = was.clone();
        if let Some(pattern) = self.pattern {
            overlay.pattern = pattern;
        }
        for (given, field) in [
            (self.groups, &mut overlay.groups),
            (self.tags, &mut overlay.tags),
            (self.remove_groups, &mut overlay.remove_groups),
            (self.remove_tags, &mut overlay.remove_tags),
            (self.remove_concerns, &mut overlay.remove_concerns),
        ] {
            if let Some(text) = given {
                *field = list(&text);
            }
        }
        if let Some(text) = self.concerns {
            overlay.concerns = list(&text)
                .into_iter()
                .map(|pair| match pair.split_once('=') {
                    Some((name, value)) => Ok((name.to_string(), value.to_string())),
                    None => Err(anyhow::anyhow!(
                        "--concerns takes NAME=VALUE pairs separated by commas (cost=high,security=low); {pair:?} has no ="
                    )),
                })
                .collect::<Result<_>>()?;
        }
        if let Some(title) = self.title {
            overlay.title = Some(title);
        }
        if let Some(description) = self.description {
            overlay.description = Some(description);
        }
        Ok(LabelEdit::ReplaceOverlay {
            index,
            was: Box::new(was),
            overlay: Box::new(overlay),
        })
    }
}

#[derive(Debug, Subcommand)]
pub enum GroupCommand {
    /// Put TOOLs (exposed names) in GROUP.
    Add {
        group: String,
        #[arg(required = true)]
        tools: Vec<String>,
    },
    /// Take TOOLs out of GROUP, wherever it came from.
    Remove {
        group: String,
        #[arg(required = true)]
        tools: Vec<String>,
    },
    /// Take TOOLs out of FROM and put them in TO.
    Move {
        from: String,
        to: String,
        #[arg(required = true)]
        tools: Vec<String>,
    },
    /// Rename group FROM (derived ones too) to TO; onto an existing group,
    /// merge them.
    Rename { from: String, to: String },
}

#[derive(Debug, Subcommand)]
pub enum TagCommand {
    /// Add TAG to TOOLs.
    Add {
        tag: String,
        #[arg(required = true)]
        tools: Vec<String>,
    },
    /// Take TAG away from TOOLs.
    Remove {
        tag: String,
        #[arg(required = true)]
        tools: Vec<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum ConcernCommand {
    /// Set concern NAME to VALUE (or `none`) on TOOLs.
    Set {
        name: String,
        value: String,
        #[arg(required = true)]
        tools: Vec<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum ConcernsCommand {
    /// Define concern NAME with VALUEs (strictest first with --ordered),
    /// or replace its definition.
    Add {
        name: String,
        #[arg(required = true)]
        values: Vec<String>,
        /// A chosen value keeps that level and the stricter ones.
        #[arg(long)]
        ordered: bool,
        #[arg(long)]
        description: Option<String>,
        #[arg(long)]
        default: Option<String>,
    },
    /// Remove concern NAME.
    Remove { name: String },
}

pub(crate) fn run(store: &Store, args: LabelsArgs, out: &mut dyn Write) -> Result<()> {
    let edit = match args.command {
        LabelsCommand::List { json } => return list(store, &args.source, json, out),
        LabelsCommand::Derive { state } => {
            labels::set_derive_groups(store, state == "on")?;
            writeln!(out, "derived groups are {state}")?;
            return Ok(());
        }
        LabelsCommand::Group(GroupCommand::Add { group, tools }) => {
            LabelEdit::AddToGroup { group, tools }
        }
        LabelsCommand::Group(GroupCommand::Remove { group, tools }) => {
            LabelEdit::RemoveFromGroup { group, tools }
        }
        LabelsCommand::Group(GroupCommand::Move { from, to, tools }) => {
            LabelEdit::MoveToGroup { from, to, tools }
        }
        LabelsCommand::Group(GroupCommand::Rename { from, to }) => {
            LabelEdit::RenameGroup { from, to }
        }
        LabelsCommand::Tag(TagCommand::Add { tag, tools }) => LabelEdit::AddTag { tag, tools },
        LabelsCommand::Tag(TagCommand::Remove { tag, tools }) => {
            LabelEdit::RemoveTag { tag, tools }
        }
        LabelsCommand::Concern(ConcernCommand::Set { name, value, tools }) => {
            LabelEdit::SetConcern {
                concern: name,
                value: (value != "none").then_some(value),
                tools,
            }
        }
        LabelsCommand::Concerns(ConcernsCommand::Add {
            name,
            values,
            ordered,
            description,
            default,
        }) => LabelEdit::DefineConcern {
            concern: sieve_api::ConcernDef {
                name,
                description: description.unwrap_or_default(),
                values,
                default,
                ordered,
            },
        },
        LabelsCommand::Concerns(ConcernsCommand::Remove { name }) => {
            LabelEdit::RemoveConcern { name }
        }
        LabelsCommand::RemoveOverlay { number } => LabelEdit::RemoveOverlay {
            index: number.saturating_sub(1),
        },
        LabelsCommand::EditOverlay(edit) => edit.edit(store)?,
    };
    let (listed, _) = listed(store, &args.source)?;
    labels::edit(store, &listed.catalog, &edit)?;
    writeln!(out, "config.json updated; running proxies apply it now")?;
    Ok(())
}

fn list(store: &Store, source: &SourceArgs, json: bool, out: &mut dyn Write) -> Result<()> {
    let (listed, _) = listed(store, source)?;
    let view = labels::view(&listed.config, &listed.catalog)?;
    if json {
        return print_json(out, &view);
    }
    let derivation = if view.derive_groups { "on" } else { "off" };
    writeln!(out, "derived groups ({derivation}):")?;
    for group in &view.derived {
        writeln!(out, "  {} ({} tools)", group.group, group.tools)?;
    }
    for (from, to) in &view.renames {
        writeln!(out, "renamed: {from} -> {to}")?;
    }
    writeln!(out, "overlays:")?;
    for rule in &view.overlays {
        let mut says = Vec::new();
        if !rule.adds.is_empty() {
            says.push(format!("adds {}", rule.adds.join(", ")));
        }
        if !rule.removes.is_empty() {
            says.push(format!("takes away {}", rule.removes.join(", ")));
        }
        says.extend(rule.text.iter().cloned());
        writeln!(
            out,
            "  {}. {:?} ({} matched): {}",
            rule.index + 1,
            rule.overlay.pattern,
            rule.matches,
            says.join("; ")
        )?;
    }
    let origin = if view.builtin_concerns {
        " (built in)"
    } else {
        ""
    };
    writeln!(out, "concerns{origin}:")?;
    for concern in &view.concerns {
        let order = if concern.ordered { ", ordered" } else { "" };
        writeln!(
            out,
            "  {}: {}{order}",
            concern.name,
            concern.values.join(", ")
        )?;
    }
    Ok(())
}
