//! Profiles: `profiles/<name>.json`, what one host connection may see.
//!
//! Every field is optional and an empty profile shows everything. A profile
//! is checked when parsed (every glob must compile) and, when the config is
//! at hand, against it (a declared concern only takes its declared values).

use crate::config::Config;
use crate::glob::compile_glob;
use crate::parse::{ParseError, decode, error_at};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

// What a profile may be called is needed below profiles too (config.json
// names the active one), so it lives with the other names.
pub use crate::naming::{DEFAULT_PROFILE, is_valid_profile_name};

/// One profile file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Profile {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Servers whose primitives may show; absent means all, `[]` means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub servers: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Visibility::is_empty")]
    pub tools: Visibility,
    #[serde(default, skip_serializing_if = "Visibility::is_empty")]
    pub resources: Visibility,
    #[serde(default, skip_serializing_if = "Visibility::is_empty")]
    pub prompts: Visibility,
    /// Groups a primitive must be in (ANY) and must not be in (NONE).
    #[serde(default, skip_serializing_if = "GroupRule::is_empty")]
    pub groups: GroupRule,
    #[serde(default, skip_serializing_if = "TagRule::is_empty")]
    pub tags: TagRule,
    /// Concern values the primitive must match (if it has the concern).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub concerns: BTreeMap<String, String>,
    /// URI prefixes, ANY of which must match; absent means no constraint,
    /// `[]` means nothing matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri_prefixes: Option<Vec<String>>,
    /// Refuse calls to hidden primitives (the default) instead of only
    /// hiding them from lists.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enforce: bool,
    /// How hosts learn the tools: all of them in `tools/list` (the
    /// default), or only the pinned ones plus a search (DESIGN §9).
    #[serde(default, skip_serializing_if = "Disclosure::is_list")]
    pub disclosure: Disclosure,
    /// In search mode, the tools still listed (globs on exposed names).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pinned: Vec<String>,
}

/// How a profile discloses its tools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Disclosure {
    /// `tools/list` shows every tool the profile allows.
    #[default]
    List,
    /// `tools/list` shows the pinned tools and the proxy's two search
    /// tools; every tool the profile allows is found and called through
    /// them.
    Search,
}

impl Disclosure {
    fn is_list(&self) -> bool {
        *self == Disclosure::List
    }
}

fn yes() -> bool {
    true
}

fn is_true(value: &bool) -> bool {
    *value
}

impl Default for Profile {
    fn default() -> Self {
        Profile {
            description: String::new(),
            servers: None,
            tools: Visibility::default(),
            resources: Visibility::default(),
            prompts: Visibility::default(),
            groups: GroupRule::default(),
            tags: TagRule::default(),
            concerns: BTreeMap::new(),
            uri_prefixes: None,
            enforce: true,
            disclosure: Disclosure::List,
            pinned: Vec::new(),
        }
    }
}

/// Allow and deny globs on exposed names. No allow (or `allow: []`) means
/// everything passes the allow step; deny then removes what it matches.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Visibility {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<String>,
}

impl Visibility {
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.deny.is_empty()
    }
}

/// A primitive must be in ANY of `any` (empty: no constraint) and in NONE
/// of `none`. In a file it is a plain list (that list is `any`) or
/// `{"any": [...], "none": [...]}`; it is written back as a list while
/// `none` is empty, so files that never used `none` keep their shape.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupRule {
    pub any: Vec<String>,
    pub none: Vec<String>,
}

impl GroupRule {
    /// Only `any`, as a plain list says.
    pub fn any(groups: Vec<String>) -> GroupRule {
        GroupRule {
            any: groups,
            none: Vec::new(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.any.is_empty() && self.none.is_empty()
    }
}

/// The object form of [`GroupRule`].
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct GroupObject {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    any: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    none: Vec<String>,
}

impl Serialize for GroupRule {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.none.is_empty() {
            self.any.serialize(serializer)
        } else {
            GroupObject {
                any: self.any.clone(),
                none: self.none.clone(),
            }
            .serialize(serializer)
        }
    }
}

impl<'de> Deserialize<'de> for GroupRule {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Shape;
        impl<'de> serde::de::Visitor<'de> for Shape {
            type Value = GroupRule;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(r#"a list of group names, or {"any": [...], "none": [...]}"#)
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                seq: A,
            ) -> Result<GroupRule, A::Error> {
                let any = Vec::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))?;
                Ok(GroupRule::any(any))
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<GroupRule, A::Error> {
                let object =
                    GroupObject::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(GroupRule {
                    any: object.any,
                    none: object.none,
                })
            }
        }
        deserializer.deserialize_any(Shape)
    }
}

/// A primitive must have ALL of `all`, NONE of `none`, and satisfy `expr`
/// (a tag expression, see [`crate::tagexpr`]); all must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TagRule {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub all: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub none: Vec<String>,
    /// As written; it parses (checked when the profile is read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expr: Option<String>,
}

impl TagRule {
    pub fn is_empty(&self) -> bool {
        self.all.is_empty() && self.none.is_empty() && self.expr.is_none()
    }
}

impl Profile {
    /// Parses profile text read from `file`; every glob must compile.
    pub fn parse(file: &str, text: &str) -> Result<Profile, ParseError> {
        let profile: Profile = decode(file, text)?;
        if let Some(expr) = &profile.tags.expr
            && let Err(error) = crate::tagexpr::TagExpr::parse(expr)
        {
            let mut located = error_at(file, text, "tags.expr", expr, error.message.clone());
            // At the character in the expression when the string is
            // written without escapes; else at its opening quote, with the
            // column in the expression said.
            if located.line > 0 && text.contains(&format!("\"{expr}\"")) {
                located.column += error.column;
            } else {
                located.expected = error.to_string();
            }
            return Err(located);
        }
        for (i, pattern) in profile.pinned.iter().enumerate() {
            if let Err(expected) = compile_glob(pattern) {
                return Err(error_at(
                    file,
                    text,
                    &format!("pinned[{i}]"),
                    pattern,
                    expected.to_string(),
                ));
            }
        }
        for (section, visibility) in profile.sections() {
            for (list, patterns) in [("allow", &visibility.allow), ("deny", &visibility.deny)] {
                for (i, pattern) in patterns.iter().enumerate() {
                    if let Err(expected) = compile_glob(pattern) {
                        let path = format!("{section}.{list}[{i}]");
                        return Err(error_at(file, text, &path, pattern, expected.to_string()));
                    }
                }
            }
        }
        Ok(profile)
    }

    /// Checks the profile against the config: a concern the config declares
    /// only takes one of its values. `text` is the profile's own source, to
    /// point at the value.
    pub fn check_against(&self, config: &Config, file: &str, text: &str) -> Result<(), ParseError> {
        for (name, value) in &self.concerns {
            if let Err(expected) = config.check_concern_value(name, value) {
                return Err(error_at(
                    file,
                    text,
                    &format!("concerns.{name}"),
                    value,
                    expected.to_string(),
                ));
            }
        }
        Ok(())
    }

    /// Things worth telling the user that are not errors: servers and
    /// concerns the config does not know.
    pub fn warnings(&self, config: &Config) -> Vec<String> {
        let mut warnings = Vec::new();
        for server in self.servers.iter().flatten() {
            if !config.mcp_servers.contains_key(server) {
                warnings.push(format!(
                    "servers: {server:?} is not a server in config.json; nothing of it will show"
                ));
            }
        }
        for name in self.concerns.keys() {
            if config.concern(name).is_none() {
                warnings.push(format!(
                    "concerns: {name:?} is not declared in config.json; it filters only primitives whose upstream sets it"
                ));
            }
        }
        warnings
    }

    /// The three glob sections with their names.
    pub fn sections(&self) -> [(&'static str, &Visibility); 3] {
        [
            ("tools", &self.tools),
            ("resources", &self.resources),
            ("prompts", &self.prompts),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DESIGN_EXAMPLE: &str = r#"{
      "description": "Everyday work, nothing destructive",
      "servers": ["github", "everything"],
      "tools":     { "allow": ["github__*", "everything__echo"], "deny": ["*_delete_*"] },
      "resources": { "allow": [], "deny": [] },
      "prompts":   { "allow": [], "deny": [] },
      "groups": ["issues", "pull_requests"],
      "tags": { "all": ["stable"], "none": ["destructive", "experimental"] },
      "concerns": { "security": "high", "cost": "minimal" },
      "uriPrefixes": ["mcp://tools/github/"],
      "enforce": true
    }"#;

    #[test]
    fn parses_the_design_example() {
        let p = Profile::parse("work.json", DESIGN_EXAMPLE).unwrap();
        assert_eq!(p.servers.as_deref().unwrap(), ["github", "everything"]);
        assert_eq!(p.tools.deny, ["*_delete_*"]);
        assert_eq!(p.tags.none, ["destructive", "experimental"]);
        assert_eq!(p.concerns["cost"], "minimal");
        assert!(p.enforce);
    }

    #[test]
    fn empty_profile_is_the_default() {
        assert_eq!(Profile::parse("p", "{}").unwrap(), Profile::default());
        assert_eq!(serde_json::to_string(&Profile::default()).unwrap(), "{}");
    }

    #[test]
    fn round_trips() {
        let p = Profile::parse("p", DESIGN_EXAMPLE).unwrap();
        let text = serde_json::to_string_pretty(&p).unwrap();
        assert_eq!(Profile::parse("p", &text).unwrap(), p);
        let off = Profile {
            enforce: false,
            servers: Some(vec![]),
            ..Profile::default()
        };
        let text = serde_json::to_string(&off).unwrap();
        assert_eq!(text, r#"{"servers":[],"enforce":false}"#);
    }

    #[test]
    fn invalid_glob_is_a_load_error_naming_it() {
        let text = "{\n  \"tools\": {\"deny\": [\"ok_*\", \"bad[\"]}\n}";
        let err = Profile::parse("profiles/work.json", text).unwrap_err();
        assert_eq!(err.path, "tools.deny[1]");
        assert_eq!((err.line, err.column), (2, 30));
        assert!(err.expected.contains("invalid glob \"bad[\""), "{err}");
        assert!(
            err.to_string()
                .starts_with("profiles/work.json:2:30: tools.deny[1]"),
            "{err}"
        );
    }

    #[test]
    fn typos_are_load_errors() {
        let err = Profile::parse("p", r#"{"tool": {"deny": ["x"]}}"#).unwrap_err();
        assert!(err.expected.contains("unknown field `tool`"), "{err}");
        let err = Profile::parse("p", r#"{"tags": {"any": ["x"]}}"#).unwrap_err();
        assert_eq!(err.path, "tags.any");
        let err = Profile::parse("p", r#"{"groups": "issues"}"#).unwrap_err();
        // `groups` takes a list or an {any, none} object (DESIGN §2).
        assert!(
            err.expected.contains("expected a list of group names"),
            "{err}"
        );
    }

    #[test]
    fn concern_values_are_checked_against_the_config() {
        let config = Config::parse(
            "c",
            r#"{"concerns": [{"name": "security", "values": ["high", "low"]}]}"#,
        )
        .unwrap();
        let text = r#"{"concerns": {"security": "ultra", "mood": "calm"}}"#;
        let p = Profile::parse("p", text).unwrap();
        let err = p.check_against(&config, "p", text).unwrap_err();
        assert_eq!(err.path, "concerns.security");
        assert!(err.expected.contains("expected one of high, low"), "{err}");
        let warnings = p.warnings(&config);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("\"mood\""));
    }

    #[test]
    fn a_tag_expression_error_points_into_the_expression() {
        let text = "{\n  \"tags\": {\"expr\": \"read-only and (a or\"}\n}";
        let error = Profile::parse("p.json", text).unwrap_err();
        assert_eq!(error.path, "tags.expr");
        // Line 2: `  "tags": {"expr": "` is 20 characters; the end of the
        // 19-character expression is its column 20.
        assert_eq!((error.line, error.column), (2, 40), "{error}");
        assert!(error.expected.contains("found the end"), "{error}");
        let good = Profile::parse("p.json", r#"{"tags": {"expr": "a and not b"}}"#).unwrap();
        assert_eq!(good.tags.expr.as_deref(), Some("a and not b"));
    }
}
