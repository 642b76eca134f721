//! Labels of a primitive: groups, tags and concern values.
//!
//! Sources, merged in this order (later concern values win):
//! 1. what the upstream sends: top-level `groups`/`tags` (the groups-and-tags
//!    proposal), `_meta.groups`, `_meta.tags`, FastMCP's
//!    `_meta.fastmcp.tags` (and `_meta._fastmcp.tags` of its older
//!    releases), `_meta.concerns` (the concern proposal), a tag that
//!    names the tool's set (`toolset:jira_issues`, `category:...`) as a
//!    group of the server's, as does a `_meta` key of that name with one
//!    word (the Firebase CLI's `_meta.feature`), and our own
//!    `_meta["dev.mcp-sieve/..."]` keys so one Sieve can sit behind another;
//! 2. tags derived from tool annotations, with the spec's defaults for
//!    missing hints; for a server that sends no hints at all, from what
//!    each tool says it does instead ([`crate::action`]), marked derived;
//! 3. the implicit group `server:<name>`;
//! 4. the user's overlays.
//!
//! Each concern value carries its reason in words ("security high: the
//! server marks it read-only"); a value the proxy made rather than the
//! server or the user set is marked derived.

use crate::action::{Effect, Evidence, Stated};
use crate::config::{Overlay, SECURITY};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Why `security` is read from what a tool says it does rather than from
/// its annotations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Silence {
    /// The server sends no annotations at all.
    NoAnnotations,
    /// Its annotations never say whether a tool reads or destroys.
    NoEffectHints,
    /// It marks its destroying tools (`destructiveHint: true`) and says
    /// nothing of this one: by the spec's default it would destroy too,
    /// which the server's own marks contradict.
    Unmarked,
}

/// Tag of a tool whose `readOnlyHint` is true.
pub const TAG_READ_ONLY: &str = "read-only";
/// Tag of a tool that may destroy data: not read-only and `destructiveHint`
/// true or missing (the spec's default).
pub const TAG_DESTRUCTIVE: &str = "destructive";
/// Tag of a tool whose `idempotentHint` is true.
pub const TAG_IDEMPOTENT: &str = "idempotent";
/// Tag of a tool that reaches the outside world: `openWorldHint` true or
/// missing (the spec's default).
pub const TAG_OPEN_WORLD: &str = "open-world";

/// Prefix of the implicit per-server group.
pub const SERVER_GROUP_PREFIX: &str = "server:";

/// Between a server and one of its own groups: `github/issues`. A
/// server's own and derived groups are written so everywhere, so two
/// servers' `page` groups stay two groups; groups the user makes with
/// overlays stay bare and may span servers.
pub const GROUP_SEPARATOR: char = '/';

/// Group `group` of server `server`, as Sieve writes it.
pub fn server_group(server: &str, group: &str) -> String {
    format!("{server}{GROUP_SEPARATOR}{group}")
}

/// The server of a group written `server/group`, and the group's own name;
/// `None` for a bare group (the user's, or `server:NAME`).
pub fn split_group(group: &str) -> Option<(&str, &str)> {
    group.split_once(GROUP_SEPARATOR)
}

/// Whether a primitive's group `label` is the group a profile or request
/// names as `wanted`: the same name, or, for a bare `wanted` (profiles
/// written before groups belonged to servers, or one name meant for every
/// server), that group in any server.
pub fn group_matches(label: &str, wanted: &str) -> bool {
    label == wanted
        || (!wanted.contains(GROUP_SEPARATOR)
            && split_group(label).is_some_and(|(_, own)| own == wanted))
}

/// Prefix of the `_meta` keys the proxy writes and reads.
pub const META_PREFIX: &str = "dev.mcp-sieve/";

/// Groups, tags and concern values of one primitive.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Labels {
    pub groups: BTreeSet<String>,
    pub tags: BTreeSet<String>,
    pub concerns: BTreeMap<String, String>,
    /// Which of `groups` the proxy derived (DESIGN §3) rather than the
    /// server or the user set.
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub derived: BTreeSet<String>,
    /// Which of `tags` the proxy derived from what a tool says it does
    /// (`read-only`, `destructive` of a server that sends no annotations).
    /// Tags read from annotations are not: the server said them.
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub derived_tags: BTreeSet<String>,
    /// Which of `concerns` the proxy derived (`cost`; `security` of a
    /// server that sends no annotations).
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub derived_concerns: BTreeSet<String>,
    /// Why each of `concerns` has its value, in words, by concern name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub reasons: BTreeMap<String, String>,
    /// Why the tool is in each of its derived groups, in words, by group.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub group_reasons: BTreeMap<String, String>,
    /// For each of `concerns` that is ordered, its values from the
    /// strictest: a chosen value keeps this primitive when its own value
    /// is that one or listed before it.
    #[serde(skip)]
    pub ordered: BTreeMap<String, std::sync::Arc<[String]>>,
}

/// The words before `:` in a tag that make the rest of it a group: the
/// names servers give the sets their tools come in.
const GROUP_TAG_KINDS: [&str; 6] = ["toolset", "group", "category", "area", "module", "feature"];

/// The longest name of a set read from a tool's `_meta`: a sentence there
/// is a note, not a group.
const MAX_SET_NAME: usize = 64;

impl Labels {
    /// Labels from an upstream definition of a primitive of `server`.
    /// `is_tool` turns on annotation-derived tags.
    pub fn from_upstream(server: &str, definition: &Value, is_tool: bool) -> Labels {
        let mut labels = Labels::sent(server, definition);
        if is_tool {
            labels.add_annotation_tags(definition.get("annotations"));
        }
        labels
    }

    /// The labels the upstream sends with a definition, and the server's
    /// group: nothing read from annotations.
    pub fn sent(server: &str, definition: &Value) -> Labels {
        let mut labels = Labels::default();
        labels.add_names(definition.get("groups"), Field::Groups);
        // chrome-devtools-mcp's form: one category in the annotations.
        if let Some(category) = definition
            .pointer("/annotations/category")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|c| !c.is_empty())
        {
            labels.groups.insert(category.to_string());
        }
        labels.add_names(definition.get("tags"), Field::Tags);
        if let Some(meta) = definition.get("_meta") {
            for prefix in ["", META_PREFIX] {
                labels.add_names(meta.get(format!("{prefix}groups")), Field::Groups);
                labels.add_names(meta.get(format!("{prefix}tags")), Field::Tags);
                if let Some(Value::Object(concerns)) = meta.get(format!("{prefix}concerns")) {
                    for (name, value) in concerns {
                        if let Value::String(value) = value {
                            labels.set_concern(name, value, "the server says so");
                        }
                    }
                }
            }
            // FastMCP puts a tool's tags under its own key.
            for key in ["fastmcp", "_fastmcp"] {
                labels.add_names(meta.get(key).and_then(|m| m.get("tags")), Field::Tags);
            }
            // The set a tool comes in, named in one word of its `_meta`
            // (the Firebase CLI's `"feature": "crashlytics"`).
            for kind in GROUP_TAG_KINDS {
                if let Some(name) = meta
                    .get(kind)
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|name| !name.is_empty() && name.len() <= MAX_SET_NAME)
                {
                    labels.groups.insert(name.to_string());
                }
            }
        }
        // A tag that says which set of tools this one is in
        // (`toolset:jira_issues`, as mcp-atlassian sends through FastMCP)
        // names the server's own group.
        let named: Vec<String> = labels
            .tags
            .iter()
            .filter_map(|tag| {
                let (kind, name) = tag.split_once(':')?;
                let name = name.trim();
                (GROUP_TAG_KINDS.contains(&kind.trim().to_ascii_lowercase().as_str())
                    && !name.is_empty())
                .then(|| name.to_string())
            })
            .collect();
        labels.groups.extend(named);
        // The server's own groups are its own: `github/issues`.
        labels.groups = std::mem::take(&mut labels.groups)
            .into_iter()
            .map(|group| server_group(server, &group))
            .collect();
        labels
            .groups
            .insert(format!("{SERVER_GROUP_PREFIX}{server}"));
        labels
    }

    /// Adds the tags a tool's annotations imply ([`annotation_tags`]).
    pub fn add_annotation_tags(&mut self, annotations: Option<&Value>) {
        self.tags
            .extend(annotation_tags(annotations).into_iter().map(String::from));
    }

    /// For a tool of a server that never says whether its tools are
    /// read-only or destructive ([`has_effect_hints`]): the tags
    /// annotations would have given, from what the tool says it does
    /// (reads → `read-only`, destroys → `destructive`), marked derived.
    /// The spec's defaults would tag every such tool `destructive`, which
    /// says nothing and hides reads behind `tags.none: ["destructive"]`.
    /// The hints the tool does send (`annotations`) still count:
    /// `open-world` as its `openWorldHint` says (the spec's default, true,
    /// when it does not), `idempotent` when it says so of a tool that
    /// does not only read.
    pub fn derive_effect_tags(&mut self, effect: Effect, annotations: Option<&Value>) {
        let tag = match effect {
            Effect::Reads => Some(TAG_READ_ONLY),
            Effect::Changes => None,
            Effect::Destroys => Some(TAG_DESTRUCTIVE),
        };
        if let Some(tag) = tag
            && self.tags.insert(tag.to_string())
        {
            self.derived_tags.insert(tag.to_string());
        }
        // The tags its hints give, with the spec's defaults: all but the
        // effect, which the server left unsaid.
        for tag in annotation_tags(annotations) {
            let kept = tag == TAG_OPEN_WORLD || (tag == TAG_IDEMPOTENT && effect != Effect::Reads);
            if kept {
                self.tags.insert(tag.to_string());
            }
        }
    }

    /// Sets concern `name` to `value` as the server or the user said,
    /// with `why` (without the "name value: " that is put before it).
    pub fn set_concern(&mut self, name: &str, value: &str, why: &str) {
        self.concerns.insert(name.to_string(), value.to_string());
        self.derived_concerns.remove(name);
        self.reasons
            .insert(name.to_string(), format!("{name} {value}: {why}"));
    }

    /// Sets concern `name` to a value the proxy derived, unless the server
    /// set one. `why` is the whole explanation ("cost minimal: ...").
    pub fn derive_concern(&mut self, name: &str, value: &str, why: String) {
        if self.concerns.contains_key(name) {
            return;
        }
        self.concerns.insert(name.to_string(), value.to_string());
        self.derived_concerns.insert(name.to_string());
        self.reasons.insert(name.to_string(), why);
    }

    /// Why concern `name` has its value, if it has one.
    pub fn reason(&self, name: &str) -> Option<&str> {
        self.reasons.get(name).map(String::as_str)
    }

    /// Whether this primitive shows when concern `name` is set to
    /// `chosen`: it has no value for it, the same value, or for an
    /// ordered concern a stricter one.
    pub fn keeps(&self, name: &str, chosen: &str) -> bool {
        let Some(actual) = self.concerns.get(name) else {
            return true;
        };
        if actual == chosen {
            return true;
        }
        let Some(values) = self.ordered.get(name) else {
            return false;
        };
        let position = |value: &str| values.iter().position(|v| v == value);
        matches!((position(actual), position(chosen)), (Some(a), Some(c)) if a < c)
    }

    /// Whether this primitive's value of concern `name` is ordered.
    pub fn is_ordered(&self, name: &str) -> bool {
        self.ordered.contains_key(name)
    }

    /// Whether the server set groups of its own (beyond `server:<name>`).
    pub fn has_own_groups(&self) -> bool {
        self.groups
            .iter()
            .any(|g| !g.starts_with(SERVER_GROUP_PREFIX))
    }

    /// Whether this primitive is in group `wanted` ([`group_matches`]).
    pub fn in_group(&self, wanted: &str) -> bool {
        self.groups.contains(wanted)
            || (!wanted.contains(GROUP_SEPARATOR)
                && self.groups.iter().any(|g| group_matches(g, wanted)))
    }

    /// Adds a derived group (written `server/group`) and why the tool is
    /// in it.
    pub fn derive_group(&mut self, group: String, why: String) {
        self.groups.insert(group.clone());
        self.derived.insert(group.clone());
        self.group_reasons.insert(group, why);
    }

    /// Sets `security` from a tool's annotations when nothing set it
    /// (DESIGN §3): read-only → `high`, destructive → `low`, else
    /// `medium`, with the spec's defaults for missing hints. The value is
    /// what the server's hints say, so it is not marked derived; its
    /// reason names the hint.
    pub fn derive_security(&mut self, annotations: Option<&Value>) {
        if self.concerns.contains_key(SECURITY) {
            return;
        }
        let tags = annotation_tags(annotations);
        let said = |key: &str| {
            annotations
                .and_then(|a| a.get(key))
                .and_then(Value::as_bool)
        };
        let (level, why) = if tags.contains(&TAG_READ_ONLY) {
            ("high", "the server marks it read-only")
        } else if tags.contains(&TAG_DESTRUCTIVE) && said("destructiveHint") == Some(true) {
            ("low", "the server marks it destructive")
        } else if tags.contains(&TAG_DESTRUCTIVE) {
            (
                "low",
                "the server does not say it is read-only or harmless, so the spec counts it destructive",
            )
        } else {
            (
                "medium",
                "the server marks it neither read-only nor destructive",
            )
        };
        self.set_concern(SECURITY, level, why);
    }

    /// Sets `security` of a tool of a server that never says whether its
    /// tools are read-only or destructive from what the tool says it does
    /// (DESIGN §3): reads → `high`, changes → `medium`, destroys → `low`;
    /// marked derived. `other_hints`: the server sends other hints
    /// (`openWorldHint`, `idempotentHint`), which the reason says.
    pub fn derive_security_from(&mut self, stated: &Stated, silence: Silence) {
        let silent = match silence {
            Silence::NoAnnotations => "the server sends no annotations",
            Silence::NoEffectHints => {
                "the server's annotations do not say whether its tools read or change"
            }
            Silence::Unmarked => {
                "the server marks the tools that destroy and does not mark this one"
            }
        };
        let level = match stated.effect {
            Effect::Reads => "high",
            Effect::Changes => "medium",
            Effect::Destroys => "low",
        };
        let why = match &stated.evidence {
            Evidence::Nothing => format!(
                "security {level}: nothing in its name, title or description says what it does, \
                 so it may destroy data as the spec assumes ({silent})"
            ),
            evidence => format!(
                "security {level}: derived from {} ({silent})",
                evidence.describe()
            ),
        };
        self.derive_concern(SECURITY, level, why);
    }

    /// Adds the labels of an overlay that matched.
    pub fn apply(&mut self, overlay: &Overlay) {
        self.groups.extend(overlay.groups.iter().cloned());
        self.tags.extend(overlay.tags.iter().cloned());
        let why = format!("set by an overlay (`{}`)", overlay.pattern);
        for (name, value) in &overlay.concerns {
            self.set_concern(name, value, &why);
        }
        // What the user set by hand is no longer derived.
        for group in &overlay.groups {
            self.derived.remove(group);
            self.group_reasons.remove(group);
        }
        for tag in &overlay.tags {
            self.derived_tags.remove(tag);
        }
        for group in &overlay.remove_groups {
            // A bare name, as overlays written before groups belonged to
            // servers say it, takes the group out in whichever server.
            let gone: Vec<String> = self
                .groups
                .iter()
                .filter(|g| group_matches(g, group))
                .cloned()
                .collect();
            for g in gone {
                self.groups.remove(&g);
                self.derived.remove(&g);
                self.group_reasons.remove(&g);
            }
        }
        for tag in &overlay.remove_tags {
            self.tags.remove(tag);
            self.derived_tags.remove(tag);
        }
        for name in &overlay.remove_concerns {
            self.concerns.remove(name);
            self.derived_concerns.remove(name);
            self.reasons.remove(name);
        }
    }

    /// Renames groups as `config.json`'s `groupRenames` says (two names
    /// renamed to one merge); a derived group stays marked derived.
    pub fn rename_groups(&mut self, renames: &BTreeMap<String, String>) {
        if renames.is_empty() {
            return;
        }
        let renamed = |g: &String| -> String { renamed_group(g, renames) };
        self.groups = self.groups.iter().map(renamed).collect();
        self.derived = self.derived.iter().map(renamed).collect();
        self.group_reasons = std::mem::take(&mut self.group_reasons)
            .into_iter()
            .map(|(g, why)| (renamed(&g), why))
            .collect();
    }

    fn add_names(&mut self, value: Option<&Value>, field: Field) {
        let Some(Value::Array(items)) = value else {
            return;
        };
        let target = match field {
            Field::Groups => &mut self.groups,
            Field::Tags => &mut self.tags,
        };
        for item in items {
            // Plain names, or objects with a name as in `groups/list`.
            let name = match item {
                Value::String(name) => Some(name.as_str()),
                Value::Object(object) => object.get("name").and_then(Value::as_str),
                _ => None,
            };
            if let Some(name) = name.filter(|n| !n.is_empty()) {
                target.insert(name.to_string());
            }
        }
    }
}

enum Field {
    Groups,
    Tags,
}

/// What `groupRenames` makes of group `group`: its own entry
/// (`github/pull-requests` → `github/prs`), else the entry of its bare name
/// (written before groups belonged to servers: `issues` → `tickets` renames
/// that group in every server, `github/issues` to `github/tickets`); a new
/// name without a server stays in the group's server.
pub fn renamed_group(group: &str, renames: &BTreeMap<String, String>) -> String {
    if let Some(to) = renames.get(group) {
        return match (split_group(group), to.contains(GROUP_SEPARATOR)) {
            (Some((server, _)), false) => server_group(server, to),
            _ => to.clone(),
        };
    }
    match split_group(group) {
        Some((server, own)) => match renames.get(own) {
            Some(to) if to.contains(GROUP_SEPARATOR) => to.clone(),
            Some(to) => server_group(server, to),
            None => group.to_string(),
        },
        None => group.to_string(),
    }
}

/// Whether annotations carry any hint of what a tool does (read-only,
/// destructive, idempotent, open-world). A `title` alone says nothing.
pub fn has_hints(annotations: Option<&Value>) -> bool {
    says_any(
        annotations,
        &[
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ],
    )
}

/// Whether annotations say whether a tool is read-only or destructive:
/// `openWorldHint` or `idempotentHint` alone say nothing of what a call
/// changes (Brave's search server sends only those).
pub fn has_effect_hints(annotations: Option<&Value>) -> bool {
    says_any(annotations, &["readOnlyHint", "destructiveHint"])
}

/// Whether `annotations` give any of the boolean hints `keys`.
fn says_any(annotations: Option<&Value>, keys: &[&str]) -> bool {
    annotations.is_some_and(|a| {
        keys.iter()
            .any(|key| a.get(key).is_some_and(Value::is_boolean))
    })
}

/// Tags implied by a tool's annotations. The spec's defaults: a tool that
/// says nothing is not read-only, may be destructive, is not idempotent, and
/// is open-world. Destructive and idempotent hints mean something only for a
/// tool that is not read-only.
pub fn annotation_tags(annotations: Option<&Value>) -> Vec<&'static str> {
    let hint = |key: &str| {
        annotations
            .and_then(|a| a.get(key))
            .and_then(Value::as_bool)
    };
    let read_only = hint("readOnlyHint").unwrap_or(false);
    let mut tags = Vec::with_capacity(3);
    if read_only {
        tags.push(TAG_READ_ONLY);
    } else {
        if hint("destructiveHint").unwrap_or(true) {
            tags.push(TAG_DESTRUCTIVE);
        }
        if hint("idempotentHint").unwrap_or(false) {
            tags.push(TAG_IDEMPOTENT);
        }
    }
    if hint("openWorldHint").unwrap_or(true) {
        tags.push(TAG_OPEN_WORLD);
    }
    tags
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn no_annotations_follow_the_spec_defaults() {
        assert_eq!(annotation_tags(None), vec![TAG_DESTRUCTIVE, TAG_OPEN_WORLD]);
        assert_eq!(
            annotation_tags(Some(&json!({}))),
            vec![TAG_DESTRUCTIVE, TAG_OPEN_WORLD]
        );
    }

    #[test]
    fn read_only_ignores_destructive_and_idempotent_hints() {
        let a = json!({"readOnlyHint": true, "destructiveHint": true, "idempotentHint": true, "openWorldHint": false});
        assert_eq!(annotation_tags(Some(&a)), vec![TAG_READ_ONLY]);
    }

    #[test]
    fn explicit_hints_are_honoured() {
        let a = json!({"readOnlyHint": false, "destructiveHint": false, "idempotentHint": true});
        assert_eq!(
            annotation_tags(Some(&a)),
            vec![TAG_IDEMPOTENT, TAG_OPEN_WORLD]
        );
        let a = json!({"destructiveHint": "yes"});
        assert_eq!(
            annotation_tags(Some(&a)),
            vec![TAG_DESTRUCTIVE, TAG_OPEN_WORLD],
            "a non-boolean hint counts as missing"
        );
    }

    #[test]
    fn a_bare_group_name_means_that_group_in_every_server() {
        assert!(group_matches("github/issues", "issues"));
        assert!(group_matches("github/issues", "github/issues"));
        assert!(!group_matches("github/issues", "gitlab/issues"));
        assert!(!group_matches("server:github", "github"));
        assert!(group_matches("issues", "issues"), "a user's own group");
        let renames: BTreeMap<String, String> = [
            ("issues".to_string(), "tickets".to_string()),
            ("notion/page".to_string(), "notion/pages".to_string()),
            ("playwright/page".to_string(), "browser".to_string()),
        ]
        .into();
        assert_eq!(renamed_group("github/issues", &renames), "github/tickets");
        assert_eq!(renamed_group("notion/page", &renames), "notion/pages");
        assert_eq!(
            renamed_group("playwright/page", &renames),
            "playwright/browser"
        );
        assert_eq!(renamed_group("gitlab/page", &renames), "gitlab/page");
        assert_eq!(renamed_group("issues", &renames), "tickets");
    }

    #[test]
    fn upstream_fields_meta_and_server_group_merge() {
        let tool = json!({
            "name": "t",
            "groups": ["issues", {"name": "triage"}, 7],
            "tags": ["stable"],
            "annotations": {"readOnlyHint": true, "openWorldHint": false},
            "_meta": {
                "groups": ["extra"],
                "tags": ["beta"],
                "concerns": {"security": "high", "cost": 3},
                "dev.mcp-sieve/tags": ["chained"],
                "dev.mcp-sieve/concerns": {"cost": "minimal"}
            }
        });
        let labels = Labels::from_upstream("gh", &tool, true);
        // The server's own groups are written as its own.
        assert_eq!(
            labels.groups,
            set(&["gh/extra", "gh/issues", "gh/triage", "server:gh"])
        );
        assert_eq!(
            labels.tags,
            set(&["beta", "chained", "read-only", "stable"])
        );
        assert_eq!(
            labels.concerns.get("security").map(String::as_str),
            Some("high")
        );
        assert_eq!(
            labels.concerns.get("cost").map(String::as_str),
            Some("minimal")
        );
    }

    #[test]
    fn a_set_named_in_meta_is_the_server_s_group() {
        let tool = json!({"name": "crashlytics_get_issue",
            "_meta": {"requiresAuth": true, "feature": "crashlytics"}});
        let labels = Labels::sent("firebase", &tool);
        assert!(
            labels.groups.contains("firebase/crashlytics"),
            "{:?}",
            labels.groups
        );
        // Not a name: a number, an object, a sentence.
        let odd = json!({"name": "t", "_meta": {"category": 3, "module": {"x": 1},
            "area": "This tool belongs to the reporting part of the server and is read-only."}});
        let groups = Labels::sent("s", &odd).groups;
        assert_eq!(groups.into_iter().collect::<Vec<_>>(), ["server:s"]);
    }

    #[test]
    fn fastmcp_tags_are_read_in_both_forms() {
        let tool = json!({"name": "t", "_meta": {"fastmcp": {"tags": ["admin", "beta"]}}});
        assert_eq!(
            Labels::from_upstream("s", &tool, false).tags,
            set(&["admin", "beta"])
        );
        let older = json!({"name": "t", "_meta": {"_fastmcp": {"tags": ["legacy"]}}});
        assert_eq!(
            Labels::from_upstream("s", &older, false).tags,
            set(&["legacy"])
        );
        let odd = json!({"name": "t", "_meta": {"fastmcp": {"tags": "admin"}, "_fastmcp": 3}});
        assert!(Labels::from_upstream("s", &odd, false).tags.is_empty());
    }

    #[test]
    fn a_tag_that_names_the_tool_s_set_is_a_group_of_its_server() {
        let tool = json!({"name": "jira_search", "_meta": {"fastmcp": {"tags":
            ["jira", "read", "toolset:jira_issues", "Category: Boards", "toolset:", "note:x"]}}});
        let labels = Labels::from_upstream("atlassian", &tool, false);
        let own: Vec<&String> = labels
            .groups
            .iter()
            .filter(|g| !g.starts_with(SERVER_GROUP_PREFIX))
            .collect();
        assert_eq!(own, ["atlassian/Boards", "atlassian/jira_issues"]);
        assert!(labels.has_own_groups());
        assert!(
            labels.tags.contains("toolset:jira_issues"),
            "the tag stays a tag"
        );
    }

    #[test]
    fn concern_values_say_where_they_come_from() {
        let tool = json!({"name": "t", "_meta": {"concerns": {"cost": "high"}}});
        let mut labels = Labels::from_upstream("s", &tool, true);
        labels.derive_concern("cost", "minimal", "cost minimal: derived".into());
        assert_eq!(labels.concerns["cost"], "high", "the server's value stays");
        assert_eq!(labels.reason("cost"), Some("cost high: the server says so"));
        assert!(labels.derived_concerns.is_empty());

        let mut labels = Labels::from_upstream("s", &json!({"name": "t"}), true);
        labels.derive_concern("cost", "minimal", "cost minimal: derived".into());
        labels.derive_security(Some(&json!({"readOnlyHint": true})));
        assert_eq!(
            labels.reason("security"),
            Some("security high: the server marks it read-only")
        );
        assert!(labels.derived_concerns.contains("cost"));
        assert!(
            !labels.derived_concerns.contains("security"),
            "the server's hint said it"
        );
        labels.apply(&Overlay {
            pattern: "s__*".into(),
            concerns: [("cost".to_string(), "high".to_string())].into(),
            remove_concerns: vec!["security".into()],
            ..Overlay::default()
        });
        assert_eq!(labels.concerns["cost"], "high");
        assert_eq!(
            labels.reason("cost"),
            Some("cost high: set by an overlay (`s__*`)")
        );
        assert!(
            labels.derived_concerns.is_empty(),
            "what the user set is not derived"
        );
        assert_eq!(labels.reason("security"), None);
    }

    #[test]
    fn annotation_levels_explain_the_hint() {
        let level = |annotations: Value| {
            let mut labels = Labels::default();
            labels.derive_security(Some(&annotations));
            labels.reasons["security"].clone()
        };
        assert_eq!(
            level(json!({"destructiveHint": true})),
            "security low: the server marks it destructive"
        );
        assert_eq!(
            level(json!({"readOnlyHint": false})),
            "security low: the server does not say it is read-only or harmless, so the spec counts it destructive"
        );
        assert_eq!(
            level(json!({"destructiveHint": false})),
            "security medium: the server marks it neither read-only nor destructive"
        );
    }

    #[test]
    fn a_server_without_hints_gets_tags_from_what_tools_say() {
        let derive = |tool: Value| {
            let mut labels = Labels::sent("s", &tool);
            let stated = crate::action::stated(&tool);
            labels.derive_effect_tags(stated.effect, tool.get("annotations"));
            labels.derive_security_from(&stated, Silence::NoAnnotations);
            labels
        };
        let list = derive(json!({"name": "list_issues"}));
        assert_eq!(list.tags, set(&["open-world", "read-only"]));
        assert_eq!(list.derived_tags, set(&["read-only"]));
        assert_eq!(list.concerns["security"], "high");
        assert_eq!(
            list.reason("security"),
            Some(
                "security high: derived from `list` in its name (the server sends no annotations)"
            )
        );
        assert!(list.derived_concerns.contains("security"));
        let create = derive(json!({"name": "create_issue"}));
        assert_eq!(create.tags, set(&["open-world"]));
        assert_eq!(create.concerns["security"], "medium");
        let delete = derive(json!({"name": "x", "description": "Permanently deletes a branch."}));
        assert_eq!(delete.derived_tags, set(&["destructive"]));
        assert_eq!(
            delete.reason("security"),
            Some(
                "security low: derived from its description (\"Permanently deletes a branch\") (the server sends no annotations)"
            )
        );
        let own = derive(json!({"name": "list_x", "tags": ["read-only"]}));
        assert!(
            own.derived_tags.is_empty(),
            "the server's own tag is not derived"
        );
        let mut labels = derive(json!({"name": "get_x"}));
        labels.apply(&Overlay {
            pattern: "*".into(),
            tags: vec!["read-only".into()],
            ..Overlay::default()
        });
        assert!(labels.derived_tags.is_empty(), "the user confirmed it");
    }

    #[test]
    fn hints_are_booleans_of_the_four_keys() {
        assert!(!has_hints(None));
        assert!(!has_hints(Some(&json!({}))));
        assert!(!has_hints(Some(
            &json!({"title": "T", "readOnlyHint": "yes"})
        )));
        assert!(has_hints(Some(&json!({"openWorldHint": false}))));
    }

    #[test]
    fn new_fields_serialise_in_camel_case_only_when_set() {
        let plain = Labels::from_upstream("s", &json!({"name": "t"}), false);
        assert_eq!(
            serde_json::to_value(&plain).unwrap(),
            json!({"groups": ["server:s"], "tags": [], "concerns": {}})
        );
        let mut labels = plain;
        labels.derive_concern("cost", "minimal", "cost minimal: because".into());
        labels.derive_effect_tags(crate::action::Effect::Reads, None);
        let value = serde_json::to_value(&labels).unwrap();
        assert_eq!(value["derivedConcerns"], json!(["cost"]));
        assert_eq!(value["derivedTags"], json!(["read-only"]));
        assert_eq!(value["reasons"], json!({"cost": "cost minimal: because"}));
    }

    #[test]
    fn prompts_get_no_annotation_tags() {
        let labels = Labels::from_upstream("s", &json!({"name": "p"}), false);
        assert!(labels.tags.is_empty());
        assert_eq!(labels.groups, set(&["server:s"]));
    }

    #[test]
    fn overlays_add_labels_and_override_concerns() {
        let mut labels = Labels::from_upstream(
            "s",
            &json!({"_meta": {"concerns": {"security": "high"}}}),
            false,
        );
        labels.apply(&Overlay {
            pattern: "*".into(),
            groups: vec!["g".into()],
            tags: vec!["t".into()],
            concerns: [("security".to_string(), "low".to_string())].into(),
            ..Overlay::default()
        });
        assert!(labels.groups.contains("g") && labels.tags.contains("t"));
        assert_eq!(labels.concerns["security"], "low");
    }
}
