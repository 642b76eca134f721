//! Labelling as a person does it (DESIGN §3, §8): selected tools put in or
//! taken out of a group, tags added or removed, a concern's value set or
//! cleared, groups renamed or merged (derived ones too), concerns defined
//! and removed. Each edit is written to `config.json` as the fewest
//! overlays that say it, one glob when the selection is every tool of a
//! server (or of all), else one exact name per tool, added to the overlay
//! that already names it, under the file's lock and checked as a load
//! would. What the user decides wins over what was derived; every running
//! proxy applies it live.

use super::{ApiError, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use sieve_core::{Catalog, ConcernDef, Config, Kind, Overlay, Overlays};
use sieve_store::store::Store;
use std::collections::{BTreeMap, BTreeSet};

/// One labelling edit. `tools` are exposed names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum LabelEdit {
    /// Puts the tools in `group`.
    AddToGroup {
        group: String,
        tools: Vec<String>,
    },
    /// Takes the tools out of `group`, wherever it came from.
    RemoveFromGroup {
        group: String,
        tools: Vec<String>,
    },
    /// Takes the tools out of `from` and puts them in `to`.
    MoveToGroup {
        from: String,
        to: String,
        tools: Vec<String>,
    },
    AddTag {
        tag: String,
        tools: Vec<String>,
    },
    RemoveTag {
        tag: String,
        tools: Vec<String>,
    },
    /// Sets (or with `None` clears) the tools' value of `concern`.
    SetConcern {
        concern: String,
        value: Option<String>,
        tools: Vec<String>,
    },
    /// Renames `from` to `to` everywhere; onto an existing group, merges
    /// them.
    RenameGroup {
        from: String,
        to: String,
    },
    /// Adds a concern, or replaces the one of that name.
    DefineConcern {
        concern: ConcernDef,
    },
    /// Removes a concern's definition.
    RemoveConcern {
        name: String,
    },
    /// Removes overlay number `index` (0-based) of `config.json`.
    RemoveOverlay {
        index: usize,
    },
}

/// Applies `edit` to `config.json`: `catalog` is what the servers list
/// now, which names the tools and tells when a selection is a whole
/// server. Nothing is written when the edit or the result is not valid.
pub fn edit(store: &Store, catalog: &Catalog, edit: &LabelEdit) -> Result<()> {
    store.update_config(|config| apply(config, catalog, edit))
}

/// The pure part of [`edit`].
pub fn apply(config: &mut Config, catalog: &Catalog, edit: &LabelEdit) -> Result<()> {
    match edit {
        LabelEdit::AddToGroup { group, tools } => {
            let group = label_name("group", group)?;
            change_tools(config, catalog, tools, |o| {
                o.remove_groups.retain(|g| *g != group);
                push_new(&mut o.groups, &group);
            })
        }
        LabelEdit::RemoveFromGroup { group, tools } => {
            let group = label_name("group", group)?;
            change_tools(config, catalog, tools, |o| {
                o.groups.retain(|g| *g != group);
                push_new(&mut o.remove_groups, &group);
            })
        }
        LabelEdit::MoveToGroup { from, to, tools } => {
            let (from, to) = (label_name("from", from)?, label_name("to", to)?);
            change_tools(config, catalog, tools, |o| {
                o.groups.retain(|g| *g != from);
                push_new(&mut o.remove_groups, &from);
                o.remove_groups.retain(|g| *g != to);
                push_new(&mut o.groups, &to);
            })
        }
        LabelEdit::AddTag { tag, tools } => {
            let tag = label_name("tag", tag)?;
            change_tools(config, catalog, tools, |o| {
                o.remove_tags.retain(|t| *t != tag);
                push_new(&mut o.tags, &tag);
            })
        }
        LabelEdit::RemoveTag { tag, tools } => {
            let tag = label_name("tag", tag)?;
            change_tools(config, catalog, tools, |o| {
                o.tags.retain(|t| *t != tag);
                push_new(&mut o.remove_tags, &tag);
            })
        }
        LabelEdit::SetConcern {
            concern,
            value,
            tools,
        } => {
            let def = config.concern(concern).ok_or_else(|| {
                ApiError::invalid(
                    "concern",
                    format!(
                        "there is no concern {concern:?}; `mcp-sieve labels list` shows the concerns"
                    ),
                )
            })?;
            if let Some(value) = value {
                config
                    .check_concern_value(&def.name, value)
                    .map_err(|error| ApiError::invalid("value", error))?;
            }
            let concern = concern.clone();
            change_tools(config, catalog, tools, |o| match value {
                Some(value) => {
                    o.remove_concerns.retain(|c| *c != concern);
                    o.concerns.insert(concern.clone(), value.clone());
                }
                None => {
                    o.concerns.remove(&concern);
                    push_new(&mut o.remove_concerns, &concern);
                }
            })
        }
        LabelEdit::RenameGroup { from, to } => {
            let (from, to) = (label_name("from", from)?, label_name("to", to)?);
            if from == to {
                return Ok(());
            }
            // A rename of a rename follows it: a → b, then b → c is a → c.
            for target in config.group_renames.values_mut() {
                if *target == from {
                    *target = to.clone();
                }
            }
            config.group_renames.insert(from, to);
            config.group_renames.retain(|old, new| old != new);
            Ok(())
        }
        LabelEdit::DefineConcern { concern } => {
            let name = label_name("name", &concern.name)?;
            let mut concerns = config.concerns_in_force().to_vec();
            match concerns.iter_mut().find(|c| c.name == name) {
                Some(existing) => *existing = concern.clone(),
                None => concerns.push(concern.clone()),
            }
            config.concerns = concerns;
            Ok(())
        }
        LabelEdit::RemoveConcern { name } => {
            let mut concerns = config.concerns_in_force().to_vec();
            let before = concerns.len();
            concerns.retain(|c| c.name != *name);
            if concerns.len() == before {
                return Err(ApiError::new(
                    ErrorCode::NotFound,
                    format!(
                        "there is no concern {name:?}; `mcp-sieve labels list` shows the concerns"
                    ),
                ));
            }
            if concerns.is_empty() {
                return Err(ApiError::invalid(
                    "name",
                    "the last concern cannot be removed: with none declared, the built-in security and cost come back",
                ));
            }
            config.concerns = concerns;
            Ok(())
        }
        LabelEdit::RemoveOverlay { index } => {
            if *index >= config.overlays.len() {
                return Err(ApiError::new(
                    ErrorCode::NotFound,
                    format!(
                        "config.json has {} overlays; there is no overlay number {}",
                        config.overlays.len(),
                        index + 1
                    ),
                ));
            }
            config.overlays.remove(*index);
            Ok(())
        }
    }
}

/// `name` trimmed, refused when empty.
fn label_name(field: &str, name: &str) -> Result<String> {
    let name = name.trim();
    if name.is_empty() {
        return Err(ApiError::invalid(field, format!("give the {field} a name")));
    }
    Ok(name.to_string())
}

fn push_new(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|i| i == item) {
        list.push(item.to_string());
    }
}

/// Applies `change` to the overlays that name `tools`: one glob when they
/// are every tool of a server (or of the catalog), else one per tool; an
/// overlay with that exact pattern is changed rather than another added,
/// and one left empty is removed.
fn change_tools(
    config: &mut Config,
    catalog: &Catalog,
    tools: &[String],
    change: impl Fn(&mut Overlay),
) -> Result<()> {
    let patterns = patterns_for(catalog, &config.settings.separator, tools)?;
    for pattern in patterns {
        let index = match config
            .overlays
            .iter()
            .position(|o| o.pattern == pattern && o.title.is_none() && o.description.is_none())
        {
            Some(index) => index,
            None => {
                config.overlays.push(Overlay {
                    pattern,
                    ..Overlay::default()
                });
                config.overlays.len() - 1
            }
        };
        change(&mut config.overlays[index]);
        if config.overlays[index].is_empty() {
            config.overlays.remove(index);
        }
    }
    Ok(())
}

/// The fewest patterns that match exactly `tools` (exposed names).
fn patterns_for(catalog: &Catalog, separator: &str, tools: &[String]) -> Result<Vec<String>> {
    if tools.is_empty() {
        return Err(ApiError::invalid("tools", "select at least one tool"));
    }
    let wanted: BTreeSet<&str> = tools.iter().map(String::as_str).collect();
    let all: Vec<&sieve_core::Primitive> = catalog.of_kind(Kind::Tool).collect();
    let unknown: Vec<&str> = wanted
        .iter()
        .copied()
        .filter(|name| !all.iter().any(|p| p.exposed_name == *name))
        .collect();
    if !unknown.is_empty() {
        return Err(ApiError::invalid(
            "tools",
            format!(
                "no server lists {}; `mcp-sieve tools` shows the tools",
                unknown.join(", ")
            ),
        ));
    }
    if all.len() == wanted.len() {
        return Ok(vec!["*".to_string()]);
    }
    let mut by_server: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for p in &all {
        let entry = by_server.entry(&p.server).or_default();
        entry.0 += 1;
        entry.1 += usize::from(wanted.contains(p.exposed_name.as_str()));
    }
    let mut patterns = Vec::new();
    let mut covered: BTreeSet<&str> = BTreeSet::new();
    for (server, (total, chosen)) in by_server {
        if total == chosen && total > 1 {
            patterns.push(format!("{server}{separator}*"));
            covered.insert(server);
        }
    }
    for p in &all {
        if wanted.contains(p.exposed_name.as_str()) && !covered.contains(p.server.as_str()) {
            patterns.push(p.exposed_name.clone());
        }
    }
    Ok(patterns)
}

/// What `labels list` and the Labels screen show.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelsView {
    /// Derived groups, with how many tools each holds.
    pub derived: Vec<GroupCount>,
    /// Every overlay as a rule: what it matches, how many primitives,
    /// what it adds and takes away.
    pub overlays: Vec<OverlayRule>,
    /// Groups renamed, old name to new.
    pub renames: BTreeMap<String, String>,
    /// The concerns in force, and whether they are the built-in ones.
    pub concerns: Vec<ConcernDef>,
    pub builtin_concerns: bool,
    /// Whether groups are derived (`settings.deriveGroups`).
    pub derive_groups: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct GroupCount {
    pub group: String,
    pub tools: usize,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OverlayRule {
    pub index: usize,
    pub overlay: Overlay,
    /// How many primitives it matches now.
    pub matches: usize,
    /// What it adds, in words (`group tickets`, `#slow`, `cost=high`).
    pub adds: Vec<String>,
    /// What it takes away (`group issues`, `security's value`).
    pub removes: Vec<String>,
    /// The text hosts see instead of the server's (`title "Issues"`).
    pub text: Vec<String>,
}

impl OverlayRule {
    fn of(index: usize, overlay: &Overlay, matches: usize) -> OverlayRule {
        let groups = |list: &[String]| {
            list.iter()
                .map(|g| format!("group {g}"))
                .collect::<Vec<_>>()
        };
        let tags = |list: &[String]| list.iter().map(|t| format!("#{t}")).collect::<Vec<_>>();
        let mut adds = groups(&overlay.groups);
        adds.extend(tags(&overlay.tags));
        adds.extend(
            overlay
                .concerns
                .iter()
                .map(|(name, value)| format!("{name}={value}")),
        );
        let mut removes = groups(&overlay.remove_groups);
        removes.extend(tags(&overlay.remove_tags));
        removes.extend(
            overlay
                .remove_concerns
                .iter()
                .map(|c| format!("{c}'s value")),
        );
        let mut text = Vec::new();
        if let Some(title) = &overlay.title {
            text.push(format!("title {title:?}"));
        }
        if overlay.description.is_some() {
            text.push("its own description".to_string());
        }
        OverlayRule {
            index,
            overlay: overlay.clone(),
            matches,
            adds,
            removes,
            text,
        }
    }
}

/// The labels of `config` over `catalog`.
pub fn view(config: &Config, catalog: &Catalog) -> Result<LabelsView> {
    let mut derived: BTreeMap<&str, usize> = BTreeMap::new();
    for p in catalog.of_kind(Kind::Tool) {
        for group in &p.labels.derived {
            *derived.entry(group).or_default() += 1;
        }
    }
    let mut overlays = Vec::with_capacity(config.overlays.len());
    for (index, overlay) in config.overlays.iter().enumerate() {
        let compiled = Overlays::new(std::slice::from_ref(overlay))
            .map_err(|error| ApiError::new(ErrorCode::BrokenFile, error))?;
        let matches = catalog
            .primitives()
            .iter()
            .filter(|p| compiled.matching(&p.exposed_name).next().is_some())
            .count();
        overlays.push(OverlayRule::of(index, overlay, matches));
    }
    Ok(LabelsView {
        derived: derived
            .into_iter()
            .map(|(group, tools)| GroupCount {
                group: group.to_string(),
                tools,
            })
            .collect(),
        overlays,
        renames: config.group_renames.clone(),
        concerns: config.concerns_in_force().to_vec(),
        builtin_concerns: config.concerns.is_empty(),
        derive_groups: config.settings.derive_groups,
    })
}

/// Turns derived groups on or off (`settings.deriveGroups`).
pub fn set_derive_groups(store: &Store, on: bool) -> Result<()> {
    store.update_config(|config| {
        config.settings.derive_groups = on;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_says_what_its_overlay_adds_and_takes_away() {
        let overlay = Overlay {
            pattern: "github__*issue*".into(),
            groups: vec!["tickets".into()],
            tags: vec!["slow".into()],
            concerns: [("cost".to_string(), "high".to_string())].into(),
            remove_groups: vec!["issues".into()],
            remove_concerns: vec!["security".into()],
            title: Some("Issues".into()),
            ..Overlay::default()
        };
        let rule = OverlayRule::of(0, &overlay, 3);
        assert_eq!(rule.adds, ["group tickets", "#slow", "cost=high"]);
        assert_eq!(rule.removes, ["group issues", "security's value"]);
        assert_eq!(rule.text, ["title \"Issues\""]);
        let bare = OverlayRule::of(1, &Overlay::default(), 0);
        assert!(bare.adds.is_empty() && bare.removes.is_empty() && bare.text.is_empty());
    }
}
