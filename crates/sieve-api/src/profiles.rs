//! Profiles: summaries, the compiled profile a view filters with, and the
//! edits a person makes, each validated before it is written.
//!
//! An edit reads the profile as it is on disk (a file that does not parse
//! is refused and left alone), changes one thing, checks the result (globs
//! compile, concern values are declared ones) and writes it atomically; a
//! running proxy picks the new file up live.

use super::{ApiError, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use sieve_core::config::compile_glob;
use sieve_core::labels::split_group;
use sieve_core::{Config, Disclosure, Profile, Rules, Visibility};
use sieve_store::store::Store;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// A profile read from disk and compiled, ready to filter.
#[derive(Debug)]
pub struct CompiledProfile {
    pub name: String,
    pub path: PathBuf,
    pub profile: Profile,
    pub rules: Rules,
    /// Servers and concerns it names that the config does not know.
    pub warnings: Vec<String>,
}

/// Loads profile `name` (the default one is made on first use), checked
/// against `config`, and compiles it.
pub fn compile(store: &Store, name: &str, config: &Config) -> Result<CompiledProfile> {
    let loaded = store.load_profile(name, Some(config))?;
    let rules = rules_of(&loaded.name, &loaded.profile)?;
    Ok(CompiledProfile {
        warnings: loaded.profile.warnings(config),
        name: loaded.name,
        path: loaded.path,
        profile: loaded.profile,
        rules,
    })
}

fn rules_of(name: &str, profile: &Profile) -> Result<Rules> {
    Rules::new(profile).map_err(|error| {
        ApiError::new(
            ErrorCode::Invalid,
            format!("profile {name:?} cannot be used: {error}; simplify its patterns"),
        )
    })
}

/// One profile in a list: valid with its description, or why it is not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileSummary {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub valid: bool,
    /// Whether it is the profile of hosts that name none.
    pub active: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The hosts routed through MCP Sieve with this profile.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub used_by: Vec<crate::HostKind>,
}

/// Every profile, in name order, `default` included.
pub fn summaries(store: &Store) -> Result<Vec<ProfileSummary>> {
    let config = store.load_config()?;
    // A hosts.json that does not parse says so where hosts are routed;
    // the profiles are listed without it.
    let mut used_by = sieve_store::hosts::Routes::load(store)
        .map(|routes| routes.by_profile())
        .unwrap_or_default();
    let summaries = store
        .profile_names()?
        .into_iter()
        .map(|name| {
            let active = name == config.settings.active_profile;
            match store.load_profile(&name, Some(&config)) {
                Ok(loaded) => ProfileSummary {
                    used_by: used_by.remove(&name).unwrap_or_default(),
                    name,
                    description: Some(loaded.profile.description),
                    valid: true,
                    active,
                    error: None,
                },
                Err(error) => ProfileSummary {
                    used_by: used_by.remove(&name).unwrap_or_default(),
                    name,
                    description: None,
                    valid: false,
                    active,
                    error: Some(error.to_string()),
                },
            }
        })
        .collect();
    Ok(summaries)
}

/// Profile `name` as it is on disk (the default one is made on first use).
pub fn show(store: &Store, name: &str) -> Result<Profile> {
    let config = store.load_config()?;
    Ok(store.load_profile(name, Some(&config))?.profile)
}

/// A profile as the app shows it: the document, and what its fields mean
/// with their defaults filled in, so no caller reads `groups`' two shapes
/// (a list, or `{any, none}`) or assumes a default of its own.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileView {
    /// The file's content.
    pub document: Profile,
    /// Only what is in one of these groups shows (`groups` as a list, or
    /// `groups.any`); empty: no such limit.
    pub groups_only: Vec<String>,
    /// Groups switched off (`groups.none`).
    pub groups_off: Vec<String>,
    /// Each tag the profile requires or excludes, with which.
    pub tags: BTreeMap<String, TagState>,
    /// Whether hidden primitives are refused when called (default on).
    pub enforce: bool,
    /// Groups the profile names that no server has now (derived names
    /// change as derivation improves, and servers go away): each a
    /// sentence. Empty when the servers were not asked.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown_groups: Vec<String>,
    /// How `sieve__find_tools` ranks, for a profile in search mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_ranking: Option<SearchRanking>,
}

/// How a search profile's `sieve__find_tools` ranks tools on this
/// machine: by words and meaning when the sentence model is where the
/// proxy looks for it, else by words alone.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchRanking {
    /// Whether the sentence model was found.
    pub meaning: bool,
    /// One sentence that says which, and where the model is or what to do.
    pub says: String,
}

/// `text` with its first letter a capital.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// How search profiles rank on this machine. Only looks for the model's
/// files: nothing is loaded.
pub fn search_ranking() -> SearchRanking {
    match sieve_sentence::locate() {
        Ok(folder) => SearchRanking {
            meaning: true,
            says: format!(
                "sieve__find_tools ranks tools by their words and by what they mean, with the sentence model {} in {}.",
                sieve_sentence::MODEL_NAME,
                folder.display()
            ),
        },
        // The error already says that the search ranks by words alone.
        Err(missing @ sieve_sentence::ModelError::Missing { .. }) => SearchRanking {
            meaning: false,
            says: capitalised(&format!("{missing}.")),
        },
        Err(other) => SearchRanking {
            meaning: false,
            says: format!("sieve__find_tools ranks tools by their words alone: {other}."),
        },
    }
}

/// The groups `profile` names (`groups.any`, `groups.none`) that no
/// primitive of `catalog` is in, each said as a warning. A bare name
/// counts as that group in any server.
pub fn unknown_groups(profile: &Profile, catalog: &sieve_core::Catalog) -> Vec<String> {
    // A group in both lists is said once.
    let named: std::collections::BTreeSet<&String> = profile
        .groups
        .any
        .iter()
        .chain(&profile.groups.none)
        .collect();
    named
        .into_iter()
        .filter(|group| {
            !catalog
                .primitives()
                .iter()
                .any(|p| p.labels.in_group(group))
        })
        .map(|group| {
            format!(
                "groups: no server has a group {group:?} now; derived groups are named anew as derivation improves, so switch the group you mean on the Tools screen or with `mcp-sieve profiles set NAME group on|off SERVER/GROUP`"
            )
        })
        .collect()
}

impl From<Profile> for ProfileView {
    fn from(document: Profile) -> ProfileView {
        let required = document.tags.all.iter().map(|t| (t, TagState::Require));
        let excluded = document.tags.none.iter().map(|t| (t, TagState::Exclude));
        ProfileView {
            groups_only: document.groups.any.clone(),
            groups_off: document.groups.none.clone(),
            tags: required
                .chain(excluded)
                .map(|(tag, state)| (tag.clone(), state))
                .collect(),
            enforce: document.enforce,
            unknown_groups: Vec::new(),
            search_ranking: (document.disclosure == Disclosure::Search).then(search_ranking),
            document,
        }
    }
}

/// [`show`], as a [`ProfileView`].
pub fn view(store: &Store, name: &str) -> Result<ProfileView> {
    show(store, name).map(ProfileView::from)
}

/// [`view`], with the groups it names that no server of `catalog` has.
pub fn view_in(store: &Store, name: &str, catalog: &sieve_core::Catalog) -> Result<ProfileView> {
    let mut view = view(store, name)?;
    view.unknown_groups = unknown_groups(&view.document, catalog);
    Ok(view)
}

/// The concerns `config.json` declares, for the app's dropdowns.
pub fn concern_definitions(store: &Store) -> Result<Vec<sieve_core::ConcernDef>> {
    Ok(store.load_config()?.concerns_in_force().to_vec())
}

/// Creates profile `name`, empty or as a copy of `from` (clone).
pub fn create(store: &Store, name: &str, from: Option<&str>) -> Result<Profile> {
    Ok(store.new_profile(name, from)?)
}

/// Deletes profile `name` (its last version stays beside it as `.bak`).
pub fn delete(store: &Store, name: &str) -> Result<()> {
    Ok(store.delete_profile(name)?)
}

/// Makes profile `name` the one hosts that name no profile get (the
/// `/mcp` endpoint, `mcp-sieve serve` without `--profile`); connected
/// hosts see the switch live.
pub fn set_active(store: &Store, name: &str) -> Result<()> {
    Ok(store.set_active_profile(name)?)
}

/// The profile hosts that name none get.
pub fn active(store: &Store) -> Result<String> {
    Ok(store.active_profile()?)
}

/// Renames profile `from` to `to`; a taken name is refused.
pub fn rename(store: &Store, from: &str, to: &str) -> Result<()> {
    Ok(store.rename_profile(from, to)?)
}

/// Which list of a section a pattern goes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PatternList {
    Allow,
    Deny,
}

impl PatternList {
    fn as_str(self) -> &'static str {
        match self {
            PatternList::Allow => "allow",
            PatternList::Deny => "deny",
        }
    }
}

/// What a profile asks of one tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TagState {
    /// `tags.all`: only what has it shows.
    Require,
    /// `tags.none`: what has it is hidden.
    Exclude,
    /// Neither.
    Ignore,
}

/// One change to a profile, as the app's switches and the command line
/// make them. In JSON: `{"op": "setGroup", "group": "billing", "on": false}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum ProfileEdit {
    /// Sets a concern's value; `None` clears it (the app's `any`).
    SetConcern {
        concern: String,
        value: Option<String>,
    },
    /// Switches a group off (into `groups.none`, out of `groups.any`) or
    /// on (out of `groups.none`).
    SetGroup {
        group: String,
        on: bool,
    },
    /// Switches a tool off (its exposed name into `tools.deny`) or on
    /// (that entry out again).
    SetTool {
        exposed_name: String,
        on: bool,
    },
    /// Adds a glob to `<section>.allow` or `.deny` (section: tools,
    /// resources or prompts).
    AddPattern {
        section: String,
        list: PatternList,
        pattern: String,
    },
    /// Removes a glob from `<section>.allow` or `.deny`.
    RemovePattern {
        section: String,
        list: PatternList,
        pattern: String,
    },
    /// Requires, excludes or ignores a tag.
    SetTag {
        tag: String,
        state: TagState,
    },
    /// Sets `tags.expr` (a tag expression such as `read-only and not
    /// experimental`); `None` or blank clears it. One that does not parse
    /// is refused, saying at which column.
    SetTagExpr {
        expr: Option<String>,
    },
    /// Lists every tool the profile allows (`list`) or only the pinned
    /// ones plus the search tools (`search`).
    SetDisclosure {
        disclosure: sieve_core::Disclosure,
    },
    /// Replaces the pinned globs (search mode); each must compile.
    SetPinned {
        patterns: Vec<String>,
    },
    SetDescription {
        description: String,
    },
    SetEnforce {
        enforce: bool,
    },
}

impl ProfileEdit {
    /// What a button that makes this edit says ("Switch it on", "Take
    /// \"*delete*\" out of tools.deny"): the app's fix buttons show it.
    pub fn label(&self) -> String {
        match self {
            ProfileEdit::SetTool { on, .. } => {
                format!("Switch it {}", if *on { "on" } else { "off" })
            }
            ProfileEdit::RemovePattern {
                section,
                list,
                pattern,
            } => format!("Take \"{pattern}\" out of {section}.{}", list.as_str()),
            ProfileEdit::AddPattern { section, list, .. } => {
                format!("Add it to {section}.{}", list.as_str())
            }
            ProfileEdit::SetGroup { group, on } => {
                format!("Switch group {group} {}", if *on { "on" } else { "off" })
            }
            ProfileEdit::SetTag { tag, state } => match state {
                TagState::Ignore => format!("Neither require nor exclude tag {tag}"),
                TagState::Require => format!("Require tag {tag}"),
                TagState::Exclude => format!("Exclude tag {tag}"),
            },
            ProfileEdit::SetTagExpr { expr: Some(expr) } if !expr.trim().is_empty() => {
                format!("Set the tag expression to {expr}")
            }
            ProfileEdit::SetTagExpr { .. } => "Clear the tag expression".to_string(),
            ProfileEdit::SetConcern { concern, value } => {
                format!("Set {concern} to {}", value.as_deref().unwrap_or("any"))
            }
            ProfileEdit::SetDescription { .. }
            | ProfileEdit::SetEnforce { .. }
            | ProfileEdit::SetDisclosure { .. }
            | ProfileEdit::SetPinned { .. } => "Change the profile".to_string(),
        }
    }
}

/// Applies `edit` to profile `name` and writes it; returns the profile as
/// written. Nothing is written when the edit or the file is not valid.
pub fn edit(store: &Store, name: &str, edit: &ProfileEdit) -> Result<Profile> {
    edit_all(store, name, std::slice::from_ref(edit))
}

/// Applies every one of `edits` to profile `name`, in order, and writes
/// them in one change: all of them, or (when one is not valid) none.
pub fn edit_all(store: &Store, name: &str, edits: &[ProfileEdit]) -> Result<Profile> {
    edit_all_in(store, name, edits, None)
}

/// [`edit_all`], knowing the groups the servers have now (`catalog`): a
/// server's group switched on in a profile that switches that name off
/// bare (written before groups belonged to servers, so off in every
/// server) keeps it off in the others by naming each of them instead.
/// Without a catalog the bare name stays, and the group stays off.
pub fn edit_all_in(
    store: &Store,
    name: &str,
    edits: &[ProfileEdit],
    catalog: Option<&sieve_core::Catalog>,
) -> Result<Profile> {
    let groups = catalog.map(groups_of);
    let config = store.load_config()?;
    // A profile that does not load under the config is not edited: the
    // load says where it goes wrong.
    store.load_profile(name, Some(&config))?;
    store.update_profile(name, |profile| {
        for edit in edits {
            apply_in(profile, edit, &config, groups.as_ref())?;
        }
        rules_of(name, profile)?;
        Ok(profile.clone())
    })
}

/// Every group a primitive of `catalog` is in.
pub fn groups_of(catalog: &sieve_core::Catalog) -> BTreeSet<String> {
    catalog
        .primitives()
        .iter()
        .flat_map(|p| p.labels.groups.iter().cloned())
        .collect()
}

/// Whether [`edit_all_in`] needs the servers' groups for `edits` on
/// `profile`: one switches a server's group on while the profile switches
/// that name off bare.
pub fn edits_need_groups(profile: &Profile, edits: &[ProfileEdit]) -> bool {
    edits.iter().any(|edit| match edit {
        ProfileEdit::SetGroup { group, on: true } => {
            split_group(group).is_some_and(|(_, own)| profile.groups.none.iter().any(|g| g == own))
        }
        _ => false,
    })
}

/// The pure part of [`edit`].
pub fn apply(profile: &mut Profile, edit: &ProfileEdit, config: &Config) -> Result<()> {
    apply_in(profile, edit, config, None)
}

/// [`apply`], knowing every group the servers have now (`groups`; see
/// [`edit_all_in`]).
pub fn apply_in(
    profile: &mut Profile,
    edit: &ProfileEdit,
    config: &Config,
    groups: Option<&BTreeSet<String>>,
) -> Result<()> {
    match edit {
        ProfileEdit::SetConcern { concern, value } => {
            let field = format!("concerns.{concern}");
            match value {
                None => {
                    profile.concerns.remove(concern);
                }
                Some(value) => {
                    config
                        .check_concern_value(concern, value)
                        .map_err(|message| ApiError::invalid(&field, message))?;
                    profile.concerns.insert(concern.clone(), value.clone());
                }
            }
        }
        ProfileEdit::SetGroup { group, on } => {
            if let (true, Some(known), Some((_, own))) = (*on, groups, split_group(group)) {
                name_bare_group_per_server(profile, group, own, known);
            }
            let groups = &mut profile.groups;
            groups.none.retain(|g| g != group);
            if !on {
                groups.any.retain(|g| g != group);
                groups.none.push(group.clone());
            }
        }
        ProfileEdit::SetTool { exposed_name, on } => {
            let deny = &mut profile.tools.deny;
            deny.retain(|pattern| pattern != exposed_name);
            if !on {
                deny.push(exposed_name.clone());
            }
        }
        ProfileEdit::AddPattern {
            section,
            list,
            pattern,
        } => {
            let field = format!("{section}.{}", list.as_str());
            compile_glob(pattern).map_err(|message| ApiError::invalid(&field, message))?;
            let patterns = patterns(profile, section, *list)?;
            if !patterns.contains(pattern) {
                patterns.push(pattern.clone());
            }
        }
        ProfileEdit::RemovePattern {
            section,
            list,
            pattern,
        } => {
            let patterns = patterns(profile, section, *list)?;
            let before = patterns.len();
            patterns.retain(|p| p != pattern);
            if patterns.len() == before {
                return Err(ApiError {
                    field: Some(format!("{section}.{}", list.as_str())),
                    ..ApiError::new(
                        ErrorCode::NotFound,
                        format!("{section}.{} has no pattern {pattern:?}", list.as_str()),
                    )
                });
            }
        }
        ProfileEdit::SetTag { tag, state } => {
            let tags = &mut profile.tags;
            tags.all.retain(|t| t != tag);
            tags.none.retain(|t| t != tag);
            match state {
                TagState::Require => tags.all.push(tag.clone()),
                TagState::Exclude => tags.none.push(tag.clone()),
                TagState::Ignore => {}
            }
        }
        ProfileEdit::SetTagExpr { expr } => {
            let expr = expr.as_deref().map(str::trim).filter(|e| !e.is_empty());
            if let Some(text) = expr {
                sieve_core::TagExpr::parse(text).map_err(|error| {
                    ApiError::invalid(
                        "tags.expr",
                        format!("the tag expression {text:?} does not read at {error}"),
                    )
                })?;
            }
            profile.tags.expr = expr.map(String::from);
        }
        ProfileEdit::SetDisclosure { disclosure } => profile.disclosure = *disclosure,
        ProfileEdit::SetPinned { patterns } => {
            let mut pinned = Vec::new();
            for pattern in patterns.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
                compile_glob(pattern).map_err(|message| ApiError::invalid("pinned", message))?;
                if !pinned.iter().any(|p| p == pattern) {
                    pinned.push(pattern.to_string());
                }
            }
            profile.pinned = pinned;
        }
        ProfileEdit::SetDescription { description } => {
            profile.description = description.trim().to_string();
        }
        ProfileEdit::SetEnforce { enforce } => profile.enforce = *enforce,
    }
    Ok(())
}

/// Replaces the bare `own` in `groups.none` (that group off in every
/// server) with each other server's group of that name, so switching
/// `group` on leaves the rest as they were.
fn name_bare_group_per_server(
    profile: &mut Profile,
    group: &str,
    own: &str,
    known: &BTreeSet<String>,
) {
    let none = &mut profile.groups.none;
    if !none.iter().any(|g| g == own) {
        return;
    }
    none.retain(|g| g != own);
    let others = known
        .iter()
        .filter(|k| *k != group && split_group(k).is_some_and(|(_, o)| o == own));
    for other in others {
        if !none.contains(other) {
            none.push(other.clone());
        }
    }
}

fn patterns<'a>(
    profile: &'a mut Profile,
    section: &str,
    list: PatternList,
) -> Result<&'a mut Vec<String>> {
    let visibility: &mut Visibility = match section {
        "tools" => &mut profile.tools,
        "resources" => &mut profile.resources,
        "prompts" => &mut profile.prompts,
        other => {
            return Err(ApiError::invalid(
                "section",
                format!("{other:?} is not a section of a profile; use tools, resources or prompts"),
            ));
        }
    };
    Ok(match list {
        PatternList::Allow => &mut visibility.allow,
        PatternList::Deny => &mut visibility.deny,
    })
}

/// Checks a glob as the app's pattern field types it, without writing:
/// `Ok` or the reason it does not compile.
pub fn check_pattern(pattern: &str) -> Result<()> {
    compile_glob(pattern)
        .map(|_| ())
        .map_err(|message| ApiError::invalid("pattern", message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_edit_says_what_its_button_does() {
        let labels: Vec<String> = [
            ProfileEdit::AddPattern {
                section: "tools".into(),
                list: PatternList::Allow,
                pattern: "gh__delete_repo".into(),
            },
            ProfileEdit::SetGroup {
                group: "admin".into(),
                on: true,
            },
            ProfileEdit::SetTag {
                tag: "destructive".into(),
                state: TagState::Ignore,
            },
            ProfileEdit::SetConcern {
                concern: "security".into(),
                value: None,
            },
            ProfileEdit::SetTagExpr { expr: None },
        ]
        .iter()
        .map(ProfileEdit::label)
        .collect();
        assert_eq!(
            labels,
            [
                "Add it to tools.allow",
                "Switch group admin on",
                "Neither require nor exclude tag destructive",
                "Set security to any",
                "Clear the tag expression",
            ]
        );
    }

    #[test]
    fn a_view_reads_both_shapes_of_groups() {
        let listed: Profile = serde_json::from_str(r#"{"groups": ["issues"]}"#).unwrap();
        let object: Profile =
            serde_json::from_str(r#"{"groups": {"any": ["issues"], "none": ["admin"]}, "tags": {"all": ["stable"], "none": ["destructive"]}, "enforce": false}"#)
                .unwrap();
        let listed = ProfileView::from(listed);
        assert_eq!(listed.groups_only, ["issues"]);
        assert!(listed.groups_off.is_empty());
        assert!(listed.enforce, "enforce is on unless the profile says off");
        let object = ProfileView::from(object);
        assert_eq!(object.groups_only, ["issues"]);
        assert_eq!(object.groups_off, ["admin"]);
        assert_eq!(object.tags["stable"], TagState::Require);
        assert_eq!(object.tags["destructive"], TagState::Exclude);
        assert!(!object.enforce);
    }
}
