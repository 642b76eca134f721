//! The filter: one rule, everywhere (DESIGN §4).
//!
//! A primitive is visible when all of these hold: its server is listed,
//! its exposed name passes the allow/deny globs of its section, it is in ANY
//! of the profile's groups, it has ALL of `tags.all` and NONE of
//! `tags.none`, its value of every set concern (if it has one) equals the
//! set value, and its URI starts with ANY of `uriPrefixes`.
//!
//! Before any of that, a tool in quarantine (new or changed since the user
//! approved it, [`crate::approvals`]) is hidden whatever the profile says.
//!
//! A host may narrow per request ([`Narrowing`]); narrowing only adds
//! constraints, so it can never show what the profile hides.
//!
//! [`Rules::is_visible`] is the hot path and allocates nothing;
//! [`Rules::explain`] runs the same checks and reports every rule that hid
//! the primitive.

use crate::approvals::Quarantine;
use crate::catalog::{Kind, Primitive};
use crate::glob::{GlobError, compile_glob, too_large};
use crate::parse::{StringListError, string_list};
use crate::profile::{Profile, Visibility};
use crate::tagexpr::{TagExpr, TagExprError};
use globset::{Candidate, GlobSet, GlobSetBuilder};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

/// A profile compiled for evaluation.
#[derive(Debug, Clone)]
pub struct Rules {
    /// The pinned tools of a profile in search mode; `None` in list mode.
    pinned: Option<GlobSet>,
    servers: Option<Vec<String>>,
    sections: [Globs; 3],
    constraints: Vec<Constraint>,
    enforce: bool,
}

#[derive(Debug, Clone)]
struct Globs {
    section: &'static str,
    allow: Vec<String>,
    allow_set: Option<GlobSet>,
    deny: Vec<String>,
    deny_set: Option<GlobSet>,
}

impl Globs {
    fn compile(section: &'static str, visibility: &Visibility) -> Result<Globs, GlobError> {
        Ok(Globs {
            section,
            allow: visibility.allow.clone(),
            allow_set: glob_set(&visibility.allow)?,
            deny: visibility.deny.clone(),
            deny_set: glob_set(&visibility.deny)?,
        })
    }
}

fn glob_set(patterns: &[String]) -> Result<Option<GlobSet>, GlobError> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        builder.add(compile_glob(pattern)?);
    }
    builder.build().map(Some).map_err(|e| too_large(&e))
}

/// A profile that cannot be compiled. Its globs and expression were
/// checked when it was parsed; what is left is a list of patterns too
/// large to compile, which the message names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RulesError {
    /// `tags.expr` does not parse.
    #[error("tags.expr: {0}")]
    TagExpr(TagExprError),
    /// A glob of `allow` or `deny`, or one of those lists as a whole.
    #[error(transparent)]
    Glob(#[from] GlobError),
    /// A glob of `pinned`, or the list as a whole.
    #[error("pinned: {0}")]
    Pinned(GlobError),
}

/// A label or URI constraint, from the profile or from a request.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Constraint {
    GroupsAny(Vec<String>),
    GroupsNone(Vec<String>),
    TagsAll(Vec<String>),
    TagsNone(Vec<String>),
    /// `tags.expr` of the profile, `filter.tagExpr` of a request.
    TagExpr(TagExpr),
    Concern(String, String),
    UriAny(Vec<String>),
}

impl Constraint {
    /// Checks `p`; on failure reports why through `hide` and returns
    /// whether to keep checking.
    fn check<'a>(
        &'a self,
        p: &'a Primitive,
        by_request: bool,
        hide: &mut impl FnMut(Reason<'a>) -> bool,
    ) -> bool {
        let mut report = |rule| hide(Reason { rule, by_request });
        match self {
            Constraint::GroupsAny(groups) => {
                if groups.is_empty() || groups.iter().any(|g| p.labels.in_group(g)) {
                    true
                } else {
                    report(Rule::Groups { any_of: groups })
                }
            }
            Constraint::GroupsNone(groups) => {
                for group in groups {
                    if p.labels.in_group(group) && !report(Rule::GroupForbidden { group }) {
                        return false;
                    }
                }
                true
            }
            Constraint::TagsAll(tags) => {
                for tag in tags {
                    if !p.labels.tags.contains(tag) && !report(Rule::TagMissing { tag }) {
                        return false;
                    }
                }
                true
            }
            Constraint::TagsNone(tags) => {
                for tag in tags {
                    if p.labels.tags.contains(tag) && !report(Rule::TagForbidden { tag }) {
                        return false;
                    }
                }
                true
            }
            Constraint::TagExpr(expr) => {
                if expr.matches(&|tag| p.labels.tags.iter().any(|t| t == tag)) {
                    true
                } else {
                    report(Rule::TagExpr { expr })
                }
            }
            Constraint::Concern(name, wanted) => match p.labels.concerns.get(name) {
                Some(actual) if !p.labels.keeps(name, wanted) => report(Rule::Concern {
                    name,
                    wanted,
                    actual,
                    ordered: p.labels.is_ordered(name),
                }),
                _ => true,
            },
            Constraint::UriAny(prefixes) => {
                if prefixes
                    .iter()
                    .any(|prefix| p.uri.starts_with(prefix.as_str()))
                {
                    true
                } else {
                    report(Rule::UriPrefix { any_of: prefixes })
                }
            }
        }
    }
}

/// Why a primitive is hidden.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reason<'a> {
    pub rule: Rule<'a>,
    /// The rule came from the host's request, not the profile.
    pub by_request: bool,
}

/// The rule that hid a primitive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rule<'a> {
    /// The tool is new or changed since the user approved it (DESIGN §9);
    /// this hides it in every profile, and its calls are refused even
    /// where the profile does not enforce.
    Quarantined { quarantine: &'a Quarantine },
    /// Its server is not in `servers`.
    Server { server: &'a str },
    /// `allow` is set and no pattern matches.
    NotAllowed {
        section: &'static str,
        patterns: &'a [String],
    },
    /// A `deny` pattern matches.
    Denied {
        section: &'static str,
        pattern: &'a str,
    },
    /// It is in none of the groups.
    Groups { any_of: &'a [String] },
    /// It is in a group of `groups.none` (a group switched off).
    GroupForbidden { group: &'a str },
    /// It lacks a tag of `tags.all`.
    TagMissing { tag: &'a str },
    /// It has a tag of `tags.none`.
    TagForbidden { tag: &'a str },
    /// Its tags do not satisfy the tag expression.
    TagExpr { expr: &'a TagExpr },
    /// Its concern value differs from the one set, or for an ordered
    /// concern is less strict.
    Concern {
        name: &'a str,
        wanted: &'a str,
        actual: &'a str,
        ordered: bool,
    },
    /// Its URI starts with none of the prefixes.
    UriPrefix { any_of: &'a [String] },
}

impl fmt::Display for Reason<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.by_request {
            f.write_str("request filter: ")?;
        }
        match self.rule {
            Rule::Quarantined { quarantine } => write!(f, "quarantined: {quarantine}"),
            Rule::Server { server } => write!(f, "servers: {server:?} is not listed"),
            Rule::NotAllowed { section, patterns } => {
                write!(f, "{section}.allow: matches none of {}", quoted(patterns))
            }
            Rule::Denied { section, pattern } => write!(f, "{section}.deny {pattern:?}"),
            Rule::Groups { any_of } => write!(f, "groups: in none of {}", any_of.join(", ")),
            Rule::GroupForbidden { group } => write!(f, "groups.none {group}"),
            Rule::TagMissing { tag } => write!(f, "tags.all {tag} (missing)"),
            Rule::TagForbidden { tag } => write!(f, "tags.none {tag}"),
            Rule::TagExpr { expr } => write!(f, "tags.expr \"{expr}\" does not hold"),
            Rule::Concern {
                name,
                wanted,
                actual,
                ordered: false,
            } => write!(f, "concern {name}={wanted} vs {actual}"),
            Rule::Concern {
                name,
                wanted,
                actual,
                ordered: true,
            } => write!(f, "{name} {actual} is below the chosen {wanted}"),
            Rule::UriPrefix { any_of } => {
                if any_of.is_empty() {
                    f.write_str("uriPrefixes: [] lets nothing through")
                } else {
                    write!(f, "uriPrefixes: starts with none of {}", any_of.join(", "))
                }
            }
        }
    }
}

fn quoted(patterns: &[String]) -> String {
    patterns
        .iter()
        .map(|p| format!("{p:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Rules {
    /// Compiles a profile. Globs were checked when the profile was parsed;
    /// an error here names the pattern all the same.
    pub fn new(profile: &Profile) -> Result<Rules, RulesError> {
        let mut constraints = Vec::new();
        if !profile.groups.any.is_empty() {
            constraints.push(Constraint::GroupsAny(profile.groups.any.clone()));
        }
        if !profile.groups.none.is_empty() {
            constraints.push(Constraint::GroupsNone(profile.groups.none.clone()));
        }
        if !profile.tags.all.is_empty() {
            constraints.push(Constraint::TagsAll(profile.tags.all.clone()));
        }
        if !profile.tags.none.is_empty() {
            constraints.push(Constraint::TagsNone(profile.tags.none.clone()));
        }
        if let Some(expr) = &profile.tags.expr {
            let expr = TagExpr::parse(expr).map_err(RulesError::TagExpr)?;
            constraints.push(Constraint::TagExpr(expr));
        }
        for (name, value) in &profile.concerns {
            constraints.push(Constraint::Concern(name.clone(), value.clone()));
        }
        if let Some(prefixes) = &profile.uri_prefixes {
            constraints.push(Constraint::UriAny(prefixes.clone()));
        }
        let pinned = match profile.disclosure {
            crate::profile::Disclosure::List => None,
            crate::profile::Disclosure::Search => {
                let mut set = GlobSetBuilder::new();
                for pattern in &profile.pinned {
                    set.add(compile_glob(pattern).map_err(RulesError::Pinned)?);
                }
                Some(set.build().map_err(|e| RulesError::Pinned(too_large(&e)))?)
            }
        };
        Ok(Rules {
            pinned,
            servers: profile.servers.clone(),
            sections: [
                Globs::compile("tools", &profile.tools)?,
                Globs::compile("resources", &profile.resources)?,
                Globs::compile("prompts", &profile.prompts)?,
            ],
            constraints,
            enforce: profile.enforce,
        })
    }

    /// Whether the profile lets its hosts reach server `server` at all: its
    /// `servers` list names it, or it has none.
    pub fn allows_server(&self, server: &str) -> bool {
        self.servers
            .as_ref()
            .is_none_or(|servers| servers.iter().any(|s| s == server))
    }

    /// Whether the profile is in search mode (DESIGN §9): `tools/list`
    /// shows only the pinned tools, plus the proxy's search tools.
    pub fn search_mode(&self) -> bool {
        self.pinned.is_some()
    }

    /// Whether `p` goes into its list: visible, and in search mode a tool
    /// only when pinned (the others are found and called through search).
    pub fn listed(&self, p: &Primitive, narrowing: Option<&Narrowing>) -> bool {
        let pinned = match (&self.pinned, p.kind) {
            (Some(pinned), Kind::Tool) => pinned.is_match(p.glob_name()),
            _ => true,
        };
        pinned && self.is_visible(p, narrowing)
    }

    /// Whether calls to hidden primitives are refused.
    pub fn enforce(&self) -> bool {
        self.enforce
    }

    /// Whether `p` is visible under the profile and the optional request
    /// narrowing.
    pub fn is_visible(&self, p: &Primitive, narrowing: Option<&Narrowing>) -> bool {
        let mut visible = true;
        self.check(p, narrowing, &mut |_| {
            visible = false;
            false
        });
        visible
    }

    /// Every rule that hides `p`; empty when it is visible.
    pub fn explain<'a>(
        &'a self,
        p: &'a Primitive,
        narrowing: Option<&'a Narrowing>,
    ) -> Vec<Reason<'a>> {
        let mut reasons = Vec::new();
        self.check(p, narrowing, &mut |reason| {
            reasons.push(reason);
            true
        });
        reasons
    }

    /// Why a call to (or read of) `p` is refused: the reasons it is
    /// hidden when the profile enforces, or whenever the tool is in
    /// quarantine; empty when it may be called.
    pub fn refusal<'a>(
        &'a self,
        p: &'a Primitive,
        narrowing: Option<&'a Narrowing>,
    ) -> Vec<Reason<'a>> {
        let reasons = self.explain(p, narrowing);
        let quarantined = || {
            reasons
                .iter()
                .any(|r| matches!(r.rule, Rule::Quarantined { .. }))
        };
        if self.enforce || quarantined() {
            reasons
        } else {
            Vec::new()
        }
    }

    /// Visible primitives of `kind`, in catalog order.
    pub fn visible<'a>(
        &'a self,
        primitives: impl IntoIterator<Item = &'a Primitive> + 'a,
        kind: Kind,
        narrowing: Option<&'a Narrowing>,
    ) -> impl Iterator<Item = &'a Primitive> + 'a {
        primitives
            .into_iter()
            .filter(move |p| p.kind == kind && self.is_visible(p, narrowing))
    }

    /// Runs every check in order; `hide` gets each failure and returns
    /// whether to go on.
    fn check<'a>(
        &'a self,
        p: &'a Primitive,
        narrowing: Option<&'a Narrowing>,
        hide: &mut impl FnMut(Reason<'a>) -> bool,
    ) {
        let profile = |rule| Reason {
            rule,
            by_request: false,
        };
        if let Some(quarantine) = &p.quarantine
            && !hide(profile(Rule::Quarantined { quarantine }))
        {
            return;
        }
        if let Some(servers) = &self.servers
            && !servers.contains(&p.server)
            && !hide(profile(Rule::Server { server: &p.server }))
        {
            return;
        }
        let globs = match p.kind {
            Kind::Tool | Kind::Task => &self.sections[0],
            Kind::Resource | Kind::ResourceTemplate => &self.sections[1],
            Kind::Prompt => &self.sections[2],
        };
        // One candidate for both sets: building it is a good part of a match.
        let name = Candidate::new(p.glob_name());
        if let Some(allow) = &globs.allow_set
            && !allow.is_match_candidate(&name)
            && !hide(profile(Rule::NotAllowed {
                section: globs.section,
                patterns: &globs.allow,
            }))
        {
            return;
        }
        if let Some(deny) = &globs.deny_set
            && deny.is_match_candidate(&name)
        {
            for index in deny.matches_candidate(&name) {
                let rule = Rule::Denied {
                    section: globs.section,
                    pattern: &globs.deny[index],
                };
                if !hide(profile(rule)) {
                    return;
                }
            }
        }
        for constraint in &self.constraints {
            if !constraint.check(p, false, hide) {
                return;
            }
        }
        if let Some(narrowing) = narrowing {
            for constraint in &narrowing.constraints {
                if !constraint.check(p, true, hide) {
                    return;
                }
            }
        }
    }
}

/// A host's per-request narrowing: more constraints on top of the profile.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Narrowing {
    constraints: Vec<Constraint>,
}

/// `_meta` key of a request filter object.
pub const META_FILTER: &str = "dev.mcp-sieve/filter";
/// `_meta` key of per-request concerns.
pub const META_CONCERNS: &str = "dev.mcp-sieve/concerns";

impl Narrowing {
    /// Whether the narrowing adds nothing.
    pub fn is_empty(&self) -> bool {
        self.constraints.is_empty()
    }

    /// Groups: ANY of them. Empty adds nothing.
    pub fn groups(mut self, groups: Vec<String>) -> Self {
        if !groups.is_empty() {
            self.constraints.push(Constraint::GroupsAny(groups));
        }
        self
    }

    /// Tags: ALL of them.
    pub fn tags(mut self, tags: Vec<String>) -> Self {
        if !tags.is_empty() {
            self.constraints.push(Constraint::TagsAll(tags));
        }
        self
    }

    /// URI prefixes: ANY of them. Empty adds nothing.
    pub fn uri_paths(mut self, prefixes: Vec<String>) -> Self {
        if !prefixes.is_empty() {
            self.constraints.push(Constraint::UriAny(prefixes));
        }
        self
    }

    /// Concern values, as in `concerns/update` or per-request `_meta`.
    pub fn concerns(mut self, concerns: &BTreeMap<String, String>) -> Self {
        for (name, value) in concerns {
            self.constraints
                .push(Constraint::Concern(name.clone(), value.clone()));
        }
        self
    }

    /// Adds all constraints of `other`.
    pub fn and(mut self, other: &Narrowing) -> Self {
        self.constraints.extend(other.constraints.iter().cloned());
        self
    }

    /// Reads the narrowing of a list request's params: `filter {groups,
    /// tags}`, `filters {uri_paths}`, and the same under
    /// `_meta["dev.mcp-sieve/filter"]` plus `_meta["dev.mcp-sieve/concerns"]`.
    /// An error names the offending parameter.
    pub fn from_params(params: &Value) -> Result<Narrowing, NarrowingError> {
        let mut narrowing = Narrowing::default();
        narrowing = narrowing.filter_object(params.get("filter"), "filter")?;
        narrowing = narrowing.filters_object(params.get("filters"), "filters")?;
        if let Some(meta) = params.get("_meta") {
            let path = format!("_meta[\"{META_FILTER}\"]");
            let object = meta.get(META_FILTER);
            narrowing = narrowing.filter_object(object, &path)?;
            narrowing = narrowing.filters_object(object, &path)?;
            if let Some(concerns) = meta.get(META_CONCERNS) {
                let path = format!("_meta[\"{META_CONCERNS}\"]");
                narrowing = narrowing.concerns(&concern_map(concerns, &path)?);
            }
        }
        Ok(narrowing)
    }

    fn filter_object(self, object: Option<&Value>, path: &str) -> Result<Self, NarrowingError> {
        let Some(object) = non_null(object, path)? else {
            return Ok(self);
        };
        let groups = string_list(object.get("groups"), &format!("{path}.groups"))?;
        let tags = string_list(object.get("tags"), &format!("{path}.tags"))?;
        let mut narrowing = self.groups(groups).tags(tags);
        match object.get("tagExpr") {
            None | Some(Value::Null) => {}
            Some(Value::String(text)) => {
                let expr = TagExpr::parse(text).map_err(|error| NarrowingError::TagExpr {
                    path: path.to_string(),
                    error,
                })?;
                narrowing.constraints.push(Constraint::TagExpr(expr));
            }
            Some(_) => {
                return Err(NarrowingError::TagExprNotString {
                    path: path.to_string(),
                });
            }
        }
        Ok(narrowing)
    }

    fn filters_object(self, object: Option<&Value>, path: &str) -> Result<Self, NarrowingError> {
        let Some(object) = non_null(object, path)? else {
            return Ok(self);
        };
        let uri_paths = string_list(object.get("uri_paths"), &format!("{path}.uri_paths"))?;
        Ok(self.uri_paths(uri_paths))
    }
}

/// A request's narrowing (or concern settings) that cannot be read: the
/// parameter, by its path in the params, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NarrowingError {
    #[error("{path} must be an object")]
    NotObject { path: String },
    #[error(transparent)]
    NotStringList(#[from] StringListError),
    #[error("{path}.tagExpr: {error}")]
    TagExpr { path: String, error: TagExprError },
    #[error("{path}.tagExpr must be a string, e.g. \"read-only and not experimental\"")]
    TagExprNotString { path: String },
    #[error("{path} must be an object of concern name to value")]
    ConcernsNotObject { path: String },
    #[error("{path}.{name} must be a string")]
    ConcernNotString { path: String, name: String },
}

fn non_null<'a>(value: Option<&'a Value>, path: &str) -> Result<Option<&'a Value>, NarrowingError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(object @ Value::Object(_)) => Ok(Some(object)),
        Some(_) => Err(NarrowingError::NotObject {
            path: path.to_string(),
        }),
    }
}

/// Reads `{"name": "value", ...}` concern settings.
pub fn concern_map(value: &Value, path: &str) -> Result<BTreeMap<String, String>, NarrowingError> {
    let Value::Object(object) = value else {
        return Err(NarrowingError::ConcernsNotObject {
            path: path.to_string(),
        });
    };
    object
        .iter()
        .map(|(name, value)| match value {
            Value::String(value) => Ok((name.clone(), value.clone())),
            _ => Err(NarrowingError::ConcernNotString {
                path: path.to_string(),
                name: name.clone(),
            }),
        })
        .collect()
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
