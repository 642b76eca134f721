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
use sieve_core::labels::{group_matches, server_group, split_group};
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
    /// Replaces overlay number `index` (0-based) with `overlay`, when it
    /// is still `was` (the overlay as the person saw it): an edit made
    /// against a list that has changed since is refused, never applied to
    /// another rule.
    ReplaceOverlay {
        index: usize,
        was: Box<Overlay>,
        overlay: Box<Overlay>,
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
            // Typed bare, a group of the same server is meant where it
            // has one (`github/issues` → `repositories`: github's).
            let to = match split_group(&from) {
                Some((server, _)) if split_group(&to).is_none() => {
                    let theirs = server_group(server, &to);
                    let exists = catalog
                        .of_kind(Kind::Tool)
                        .any(|p| p.labels.groups.contains(&theirs));
                    if exists { theirs } else { to }
                }
                _ => to,
            };
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
            let from = one_group(catalog, "from", &label_name("from", from)?)?;
            let to = label_name("to", to)?;
            // A server's group stays in its server: `github/prs`.
            let to = match (split_group(&from), split_group(&to)) {
                (Some((server, _)), None) => server_group(server, &to),
                (Some((server, _)), Some((other, _))) if server != other => {
                    return Err(ApiError::invalid(
                        "to",
                        format!(
                            "{from} is a group of server {server}, so it stays in it; rename it to {server}/NAME or a plain NAME"
                        ),
                    ));
                }
                _ => to,
            };
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
        LabelEdit::ReplaceOverlay {
            index,
            was,
            overlay,
        } => {
            let current = config.overlays.get(*index).ok_or_else(|| {
                ApiError::new(
                    ErrorCode::NotFound,
                    format!(
                        "config.json has {} overlays now, so there is no overlay number {} to edit; nothing was written: look at the rules again",
                        config.overlays.len(),
                        index + 1
                    ),
                )
            })?;
            if current != &**was {
                return Err(ApiError::new(
                    ErrorCode::NotFound,
                    format!(
                        "overlay number {} changed since it was read (it now matches {:?}); nothing was written: look at the rules again and edit it anew",
                        index + 1,
                        current.pattern
                    ),
                ));
            }
            config.overlays[*index] = checked_overlay(config, was, overlay)?;
            Ok(())
        }
    }
}

/// `overlay` as it will be written: names and text trimmed, lists without
/// repeats, blank text gone; refused, naming the field, when its pattern
/// is not a glob, a name is blank, a concern or its value is unknown, a
/// label is both added and taken away, or it would say nothing. A concern
/// the rule already named (`was`) may stay even when no longer defined,
/// as a load allows.
fn checked_overlay(config: &Config, was: &Overlay, overlay: &Overlay) -> Result<Overlay> {
    let pattern = overlay.pattern.trim();
    if pattern.is_empty() {
        return Err(ApiError::invalid(
            "match",
            "give the rule a match pattern: a glob on exposed names, such as github__*issue*",
        ));
    }
    Overlays::new(&[Overlay {
        pattern: pattern.to_string(),
        ..Overlay::default()
    }])
    .map_err(|error| {
        ApiError::invalid(
            "match",
            format!("the match pattern cannot be used: {error}"),
        )
    })?;
    let names = |field: &str, what: &str, list: &[String]| -> Result<Vec<String>> {
        let mut names = Vec::with_capacity(list.len());
        for name in list {
            let name = name.trim();
            if name.is_empty() {
                return Err(ApiError::invalid(
                    field,
                    format!("a {what} name in {field} is empty; give each {what} a name"),
                ));
            }
            push_new(&mut names, name);
        }
        Ok(names)
    };
    let known = |field: &str, name: &str| -> Result<()> {
        let had = was.concerns.contains_key(name) || was.remove_concerns.iter().any(|c| c == name);
        if had || config.concern(name).is_some() {
            return Ok(());
        }
        Err(ApiError::invalid(
            field,
            format!("there is no concern {name:?}; `mcp-sieve labels list` shows the concerns"),
        ))
    };
    let mut concerns = BTreeMap::new();
    for (name, value) in &overlay.concerns {
        let (name, value) = (name.trim(), value.trim());
        if name.is_empty() {
            return Err(ApiError::invalid(
                "concerns",
                "a concern name in concerns is empty; give each concern a name",
            ));
        }
        let field = format!("concerns.{name}");
        known(&field, name)?;
        config
            .check_concern_value(name, value)
            .map_err(|error| ApiError::invalid(&field, error))?;
        concerns.insert(name.to_string(), value.to_string());
    }
    let remove_concerns = names("removeConcerns", "concern", &overlay.remove_concerns)?;
    for name in &remove_concerns {
        known("removeConcerns", name)?;
    }
    let text = |value: &Option<String>| {
        value
            .as_deref()
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_string)
    };
    let checked = Overlay {
        pattern: pattern.to_string(),
        groups: names("groups", "group", &overlay.groups)?,
        tags: names("tags", "tag", &overlay.tags)?,
        concerns,
        remove_groups: names("removeGroups", "group", &overlay.remove_groups)?,
        remove_tags: names("removeTags", "tag", &overlay.remove_tags)?,
        remove_concerns,
        title: text(&overlay.title),
        description: text(&overlay.description),
    };
    let both = |field: &str, what: &str, added: &[String], removed: &[String]| -> Result<()> {
        match added.iter().find(|name| removed.contains(name)) {
            Some(name) => Err(ApiError::invalid(
                field,
                format!("{what} {name:?} is both added and taken away; keep it in one of the two"),
            )),
            None => Ok(()),
        }
    };
    both(
        "removeGroups",
        "group",
        &checked.groups,
        &checked.remove_groups,
    )?;
    both("removeTags", "tag", &checked.tags, &checked.remove_tags)?;
    let set: Vec<String> = checked.concerns.keys().cloned().collect();
    both("removeConcerns", "concern", &set, &checked.remove_concerns)?;
    if checked.is_empty() {
        return Err(ApiError::invalid(
            "overlay",
            "the rule would add nothing, take nothing away and replace no text; remove it instead",
        ));
    }
    Ok(checked)
}

/// `name` trimmed, refused when empty.
fn label_name(field: &str, name: &str) -> Result<String> {
    let name = name.trim();
    if name.is_empty() {
        return Err(ApiError::invalid(field, format!("give the {field} a name")));
    }
    Ok(name.to_string())
}

/// The group `name` names among the catalog's: itself when some tool is in
/// it (or no server has a group of that name: the user's own); for a bare
/// name one server has, that server's (`issues` → `github/issues`). A bare
/// name two servers have is refused, naming both.
fn one_group(catalog: &Catalog, field: &str, name: &str) -> Result<String> {
    let mut matching = BTreeSet::new();
    for p in catalog.of_kind(Kind::Tool) {
        for group in &p.labels.groups {
            if group == name {
                return Ok(name.to_string());
            }
            if group_matches(group, name) {
                matching.insert(group.as_str());
            }
        }
    }
    match matching.len() {
        0 => Err(ApiError::invalid(
            field,
            format!(
                "no server lists a group {name:?} now; `mcp-sieve labels list` shows the groups (a server that is down lists none)"
            ),
        )),
        1 => Ok(matching.into_iter().next().unwrap_or(name).to_string()),
        _ => Err(ApiError::invalid(
            field,
            format!(
                "{} servers have a group {name:?} ({}); name one as SERVER/GROUP",
                matching.len(),
                matching.into_iter().collect::<Vec<_>>().join(", ")
            ),
        )),
    }
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
    use serde_json::json;
    use sieve_core::catalog::{BuildOptions, ServerListing};

    /// Two servers that both send a group `page` (as Notion's and
    /// Playwright's derived groups are both `page`).
    fn two_pages() -> Catalog {
        let tools = |names: &[&str]| {
            names
                .iter()
                .map(|n| json!({"name": n, "groups": ["page"]}))
                .collect()
        };
        let listings = [
            ServerListing::tools("notion", tools(&["get_page", "update_page"])),
            ServerListing::tools("playwright", tools(&["page_click", "page_type"])),
        ];
        Catalog::build_with(
            &BuildOptions::new("__"),
            &Overlays::new(&[]).unwrap(),
            &listings,
        )
    }

    #[test]
    fn a_bare_group_two_servers_have_is_refused_naming_both() {
        let catalog = two_pages();
        let mut config = Config::default();
        let rename = |from: &str, to: &str| LabelEdit::RenameGroup {
            from: from.into(),
            to: to.into(),
        };
        let error = apply(&mut config, &catalog, &rename("page", "pages")).unwrap_err();
        assert_eq!(error.field.as_deref(), Some("from"));
        assert!(
            error.message.contains("notion/page") && error.message.contains("playwright/page"),
            "{}",
            error.message
        );
        assert!(config.group_renames.is_empty(), "nothing changed");

        // Named with its server, the new name stays in that server, and
        // the other server's group is left as it is.
        apply(
            &mut config,
            &catalog,
            &rename("playwright/page", "browser-page"),
        )
        .unwrap();
        assert_eq!(
            config.group_renames,
            [(
                "playwright/page".to_string(),
                "playwright/browser-page".to_string()
            )]
            .into()
        );
        let error = apply(
            &mut config,
            &catalog,
            &rename("notion/page", "playwright/x"),
        )
        .unwrap_err();
        assert_eq!(error.field.as_deref(), Some("to"), "{}", error.message);
    }

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

    /// A config.json of two overlays, with the built-in concerns.
    fn two_rules() -> Config {
        Config::parse(
            "config.json",
            r#"{"overlays": [
                {"match": "github__*issue*", "groups": ["tickets"]},
                {"match": "github__search_*", "concerns": {"cost": "high"}, "title": "Search"}
            ]}"#,
        )
        .expect("parses")
    }

    fn replace(config: &mut Config, index: usize, was: &Overlay, overlay: Overlay) -> Result<()> {
        let edit = LabelEdit::ReplaceOverlay {
            index,
            was: Box::new(was.clone()),
            overlay: Box::new(overlay),
        };
        apply(config, &Catalog::default(), &edit)
    }

    #[test]
    fn an_edited_overlay_is_written_trimmed_in_its_place_and_still_loads() {
        let mut config = two_rules();
        let was = config.overlays[1].clone();
        let edited = Overlay {
            pattern: " github__search_code ".into(),
            groups: vec![" search ".into(), "search".into()],
            tags: vec!["slow".into()],
            concerns: [(" cost".to_string(), "moderate ".to_string())].into(),
            remove_groups: vec!["code".into()],
            title: Some("  ".into()),
            description: Some(" Searches code. ".into()),
            ..Overlay::default()
        };
        replace(&mut config, 1, &was, edited).expect("the edit applies");

        assert_eq!(
            config.overlays[1],
            Overlay {
                pattern: "github__search_code".into(),
                groups: vec!["search".into()],
                tags: vec!["slow".into()],
                concerns: [("cost".to_string(), "moderate".to_string())].into(),
                remove_groups: vec!["code".into()],
                description: Some("Searches code.".into()),
                ..Overlay::default()
            },
            "trimmed, without repeats, blank text gone"
        );
        assert_eq!(
            config.overlays[0],
            two_rules().overlays[0],
            "the other rule is left"
        );
        let text = serde_json::to_string(&config).unwrap();
        Config::parse("config.json", &text).expect("what is written loads");
    }

    #[test]
    fn an_edit_against_a_rule_that_changed_or_went_is_refused() {
        let mut config = two_rules();
        let seen = config.overlays[0].clone();
        let edited = Overlay {
            groups: vec!["issues".into()],
            ..seen.clone()
        };
        // Another edit took the first rule away: number 1 is now the
        // search rule, which the person did not see.
        config.overlays.remove(0);
        let before = config.clone();

        let stale = replace(&mut config, 0, &seen, edited.clone()).expect_err("stale");
        assert_eq!(stale.code, ErrorCode::NotFound);
        assert!(
            stale
                .message
                .contains("overlay number 1 changed since it was read")
                && stale.message.contains("github__search_*"),
            "{}",
            stale.message
        );
        let gone = replace(&mut config, 1, &seen, edited).expect_err("no such rule");
        assert_eq!(gone.code, ErrorCode::NotFound);
        assert!(
            gone.message.contains("1 overlays now") && gone.message.contains("no overlay number 2"),
            "{}",
            gone.message
        );
        assert_eq!(config, before, "nothing changed");
    }

    #[test]
    fn an_edit_that_is_not_valid_is_refused_naming_the_field() {
        let seen = two_rules().overlays[0].clone();
        let with = |change: fn(&mut Overlay)| {
            let mut overlay = seen.clone();
            change(&mut overlay);
            overlay
        };
        let cases = [
            (
                with(|o| o.pattern = "github__[issue".into()),
                "match",
                "github__[issue",
            ),
            (
                with(|o| o.pattern = "  ".into()),
                "match",
                "give the rule a match pattern",
            ),
            (
                with(|o| o.concerns = [("cost".into(), "free".into())].into()),
                "concerns.cost",
                "expected one of minimal, moderate, high",
            ),
            (
                with(|o| o.concerns = [("speed".into(), "fast".into())].into()),
                "concerns.speed",
                "there is no concern \"speed\"",
            ),
            (
                with(|o| o.remove_concerns = vec!["speed".into()]),
                "removeConcerns",
                "there is no concern \"speed\"",
            ),
            (
                with(|o| o.groups.push(" ".into())),
                "groups",
                "a group name in groups is empty",
            ),
            (
                with(|o| o.remove_groups = vec!["tickets".into()]),
                "removeGroups",
                "group \"tickets\" is both added and taken away",
            ),
            (
                with(|o| o.groups.clear()),
                "overlay",
                "the rule would add nothing",
            ),
        ];
        for (overlay, field, says) in cases {
            let mut config = two_rules();
            let error = replace(&mut config, 0, &seen, overlay.clone())
                .expect_err(&format!("{overlay:?} is refused"));
            assert_eq!(error.code, ErrorCode::Invalid, "{error}");
            assert_eq!(error.field.as_deref(), Some(field), "{error}");
            assert!(
                error.message.contains(says),
                "{:?} says {says:?}",
                error.message
            );
            assert_eq!(config, two_rules(), "nothing changed for {overlay:?}");
        }
    }

    #[test]
    fn a_concern_no_longer_defined_may_stay_on_the_rule_that_had_it() {
        // Loads allow a value of a concern nobody declares; an edit of the
        // rule's groups must not be refused for it.
        let mut config = Config::parse(
            "config.json",
            r#"{"overlays": [{"match": "*", "concerns": {"legacy": "x"}}]}"#,
        )
        .expect("parses");
        let seen = config.overlays[0].clone();
        let edited = Overlay {
            groups: vec!["all".into()],
            ..seen.clone()
        };
        replace(&mut config, 0, &seen, edited.clone()).expect("the edit applies");
        assert_eq!(config.overlays, [edited]);
    }

    #[test]
    fn a_replacement_is_camel_case_json_tagged_like_the_other_edits() {
        let edit: LabelEdit = serde_json::from_value(serde_json::json!({
            "op": "replaceOverlay",
            "index": 2,
            "was": {"match": "a__*", "groups": ["x"]},
            "overlay": {"match": "a__b", "removeGroups": ["y"], "title": "B"}
        }))
        .expect("reads");
        assert_eq!(
            edit,
            LabelEdit::ReplaceOverlay {
                index: 2,
                was: Box::new(Overlay {
                    pattern: "a__*".into(),
                    groups: vec!["x".into()],
                    ..Overlay::default()
                }),
                overlay: Box::new(Overlay {
                    pattern: "a__b".into(),
                    remove_groups: vec!["y".into()],
                    title: Some("B".into()),
                    ..Overlay::default()
                }),
            }
        );
    }
}
