//! Labels of a primitive: groups, tags and concern values.
//!
//! Sources, merged in this order (later concern values win):
//! 1. what the upstream sends: top-level `groups`/`tags` (the groups-and-tags
//!    proposal), `_meta.groups`, `_meta.tags`, `_meta.concerns` (the concern
//!    proposal), and our own `_meta["dev.mcp-sieve/..."]` keys so one Sieve
//!    can sit behind another;
//! 2. tags derived from tool annotations, with the spec's defaults for
//!    missing hints;
//! 3. the implicit group `server:<name>`;
//! 4. the user's overlays.

use crate::config::{Overlay, SECURITY};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

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

/// Prefix of the `_meta` keys the proxy writes and reads.
pub const META_PREFIX: &str = "dev.mcp-sieve/";

/// Groups, tags and concern values of one primitive.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Labels {
    pub groups: BTreeSet<String>,
    pub tags: BTreeSet<String>,
    pub concerns: BTreeMap<String, String>,
    /// Which of `groups` the proxy derived (DESIGN §3) rather than the
    /// server or the user set.
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub derived: BTreeSet<String>,
    /// For each of `concerns` that is ordered, its values from the
    /// strictest: a chosen value keeps this primitive when its own value
    /// is that one or listed before it.
    #[serde(skip)]
    pub ordered: BTreeMap<String, std::sync::Arc<[String]>>,
}

impl Labels {
    /// Labels from an upstream definition of a primitive of `server`.
    /// `is_tool` turns on annotation-derived tags.
    pub fn from_upstream(server: &str, definition: &Value, is_tool: bool) -> Labels {
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
                            labels.concerns.insert(name.clone(), value.clone());
                        }
                    }
                }
            }
        }
        if is_tool {
            labels.tags.extend(
                annotation_tags(definition.get("annotations"))
                    .into_iter()
                    .map(String::from),
            );
        }
        labels
            .groups
            .insert(format!("{SERVER_GROUP_PREFIX}{server}"));
        labels
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

    /// Adds a derived group.
    pub fn derive_group(&mut self, group: String) {
        self.groups.insert(group.clone());
        self.derived.insert(group);
    }

    /// Sets `security` from a tool's annotations when nothing set it
    /// (DESIGN §3): read-only → `high`, destructive → `low`, else
    /// `medium`, with the spec's defaults for missing hints.
    pub fn derive_security(&mut self, annotations: Option<&Value>) {
        if self.concerns.contains_key(SECURITY) {
            return;
        }
        let tags = annotation_tags(annotations);
        let level = if tags.contains(&TAG_READ_ONLY) {
            "high"
        } else if tags.contains(&TAG_DESTRUCTIVE) {
            "low"
        } else {
            "medium"
        };
        self.concerns
            .insert(SECURITY.to_string(), level.to_string());
    }

    /// Adds the labels of an overlay that matched.
    pub fn apply(&mut self, overlay: &Overlay) {
        self.groups.extend(overlay.groups.iter().cloned());
        self.tags.extend(overlay.tags.iter().cloned());
        for (name, value) in &overlay.concerns {
            self.concerns.insert(name.clone(), value.clone());
        }
        // What the user set by hand is no longer derived.
        for group in &overlay.groups {
            self.derived.remove(group);
        }
        for group in &overlay.remove_groups {
            self.groups.remove(group);
            self.derived.remove(group);
        }
        for tag in &overlay.remove_tags {
            self.tags.remove(tag);
        }
        for name in &overlay.remove_concerns {
            self.concerns.remove(name);
        }
    }

    /// Renames groups as `config.json`'s `groupRenames` says (two names
    /// renamed to one merge); a derived group stays marked derived.
    pub fn rename_groups(&mut self, renames: &BTreeMap<String, String>) {
        if renames.is_empty() {
            return;
        }
        let rename = |set: &BTreeSet<String>| -> BTreeSet<String> {
            set.iter()
                .map(|g| renames.get(g).cloned().unwrap_or_else(|| g.clone()))
                .collect()
        };
        self.groups = rename(&self.groups);
        self.derived = rename(&self.derived);
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
        assert_eq!(
            labels.groups,
            set(&["extra", "issues", "server:gh", "triage"])
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
