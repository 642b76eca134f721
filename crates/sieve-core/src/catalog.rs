//! The primitive catalog: every tool, resource, resource template and
//! prompt of every upstream server, under its exposed name and URI, with
//! its labels.
//!
//! A [`Catalog`] is built from [`ServerListing`]s (what each server's list
//! methods returned) and is immutable; the proxy builds a new one when a
//! server's lists change. Lookups by exposed name and by URI are hash
//! lookups, so a call is routed in constant time however many servers
//! there are.

use crate::action::{naming, stated_in};
use crate::approvals::{Approvals, Quarantine};
use crate::config::{COST, ConcernDef, Overlays, builtin_concerns};
use crate::cost::{Measurements, judge_stated};
use crate::labels::{Labels, META_PREFIX, Silence, has_effect_hints, has_hints, server_group};
use crate::naming::{HASH_LEN, exposed_name_with_hash, prompt_uri, tool_uri};
use crate::parse::{ParseError, decode};
use crate::subjects::{Derived, ToolText, derive_for};
use crate::tokenizer::definition_tokens;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

pub use crate::scan::Findings;

/// The kinds of primitive that pass through the proxy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    Tool,
    Resource,
    ResourceTemplate,
    Prompt,
    Task,
}

impl Kind {
    /// The profile section whose allow/deny globs apply to this kind.
    pub fn section(self) -> &'static str {
        match self {
            Kind::Tool | Kind::Task => "tools",
            Kind::Resource | Kind::ResourceTemplate => "resources",
            Kind::Prompt => "prompts",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Tool => "tool",
            Kind::Resource => "resource",
            Kind::ResourceTemplate => "resource template",
            Kind::Prompt => "prompt",
            Kind::Task => "task",
        })
    }
}

/// One primitive as the proxy sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Primitive {
    pub kind: Kind,
    /// The upstream server's name in `config.json`.
    pub server: String,
    /// The name the upstream uses (for a task: its upstream task id).
    pub name: String,
    /// The name the host sees and calls (for a task: the Sieve task id).
    pub exposed_name: String,
    /// `mcp://tools/..`, `mcp://prompts/..`, or a resource's own URI.
    pub uri: String,
    pub labels: Labels,
    /// For a task, the exposed name of the tool that started it; the tool
    /// rules of the profile apply to that name.
    pub via_tool: Option<String>,
    /// The definition exactly as the upstream sent it.
    pub definition: Value,
    /// The title and description the overlays set, which the host sees
    /// instead of the upstream's.
    pub overrides: Overrides,
    /// Set when the tool is new or changed since the user approved it
    /// ([`Catalog::quarantine`]): hidden and refused in every profile.
    pub quarantine: Option<Quarantine>,
    /// Its tokens, counted once when first asked (see [`Primitive::tokens`]).
    tokens: TokenCache,
}

/// Text an overlay puts in place of the upstream's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    pub title: Option<String>,
    pub description: Option<String>,
}

impl Overrides {
    pub fn is_empty(&self) -> bool {
        self.title.is_none() && self.description.is_none()
    }
}

/// A count computed at most once per primitive. It is derived from the
/// definition, so it takes no part in comparisons.
#[derive(Debug, Clone, Default)]
struct TokenCache(std::sync::OnceLock<usize>);

impl PartialEq for TokenCache {
    fn eq(&self, _: &TokenCache) -> bool {
        true
    }
}

impl Primitive {
    /// The name the `tools` / `resources` / `prompts` globs match against.
    pub fn glob_name(&self) -> &str {
        self.via_tool.as_deref().unwrap_or(&self.exposed_name)
    }

    /// A task started by `tool`: it carries the tool's labels and
    /// quarantine, so whatever hides the tool hides its tasks.
    pub fn task(tool: &Primitive, upstream_task_id: &str, sieve_task_id: &str) -> Primitive {
        Primitive {
            kind: Kind::Task,
            server: tool.server.clone(),
            name: upstream_task_id.to_string(),
            exposed_name: sieve_task_id.to_string(),
            uri: format!("mcp://tasks/{}/{}", tool.server, sieve_task_id),
            labels: tool.labels.clone(),
            via_tool: Some(tool.exposed_name.clone()),
            definition: Value::Null,
            overrides: Overrides::default(),
            quarantine: tool.quarantine.clone(),
            tokens: TokenCache::default(),
        }
    }

    /// A resource a server serves but does not list (a subscription to a
    /// URI that appears later, a read of a URI the host learned elsewhere).
    /// It has only the labels every primitive of the server has, and the
    /// profile judges it like any other resource.
    pub fn unlisted_resource(server: &str, uri: &str, separator: &str) -> Primitive {
        let definition = serde_json::json!({ "uri": uri, "name": uri });
        Primitive {
            kind: Kind::Resource,
            server: server.to_string(),
            name: uri.to_string(),
            exposed_name: crate::naming::exposed_name(server, uri, separator),
            uri: uri.to_string(),
            labels: Labels::from_upstream(server, &definition, false),
            via_tool: None,
            definition,
            overrides: Overrides::default(),
            quarantine: None,
            tokens: TokenCache::default(),
        }
    }

    /// A tool known only by its exposed name (say, of a task recorded
    /// before its server dropped the tool): the server's labels only, so a
    /// profile that restricts tools by anything else hides it.
    pub fn unlisted_tool(server: &str, exposed_name: &str) -> Primitive {
        Primitive {
            kind: Kind::Tool,
            server: server.to_string(),
            name: exposed_name.to_string(),
            exposed_name: exposed_name.to_string(),
            uri: tool_uri(server, exposed_name),
            labels: Labels::from_upstream(server, &Value::Null, false),
            via_tool: None,
            definition: Value::Null,
            overrides: Overrides::default(),
            quarantine: None,
            tokens: TokenCache::default(),
        }
    }

    /// The definition as the host receives it: the exposed name in place of
    /// the upstream one (tools and prompts; resources keep theirs), the
    /// overlays' title and description, and our labels and URI under
    /// `_meta["dev.mcp-sieve/..."]`. Nothing else is changed.
    pub fn host_definition(&self) -> Value {
        let mut definition = match &self.definition {
            Value::Object(object) => object.clone(),
            _ => Map::new(),
        };
        if matches!(self.kind, Kind::Tool | Kind::Prompt) {
            definition.insert("name".into(), Value::String(self.exposed_name.clone()));
        }
        for (key, text) in [
            ("title", &self.overrides.title),
            ("description", &self.overrides.description),
        ] {
            if let Some(text) = text {
                definition.insert(key.into(), Value::String(text.clone()));
            }
        }
        let meta = definition
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if !meta.is_object() {
            *meta = Value::Object(Map::new());
        }
        if let Value::Object(meta) = meta {
            let labels = &self.labels;
            for (key, value) in [
                ("server", json!(self.server)),
                ("name", json!(self.name)),
                ("uri", json!(self.uri)),
                ("groups", json!(labels.groups)),
                ("tags", json!(labels.tags)),
                ("concerns", json!(labels.concerns)),
            ] {
                meta.insert(format!("{META_PREFIX}{key}"), value);
            }
        }
        Value::Object(definition)
    }

    /// What a host puts into the model's context for this primitive: the
    /// host definition without `_meta`, which hosts keep to themselves.
    pub fn model_definition(&self) -> Value {
        let mut definition = self.host_definition();
        if let Value::Object(object) = &mut definition {
            object.remove("_meta");
        }
        definition
    }

    /// The tokens of its model definition (what the model receives, see
    /// [`definition_tokens`]), counted on the first call and kept: a catalog
    /// is shared by every view of it, and counting is the costly part of a
    /// token report.
    pub fn tokens(&self) -> usize {
        *self
            .tokens
            .0
            .get_or_init(|| definition_tokens(&self.model_definition()))
    }
}

/// What one upstream server listed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerListing {
    pub server: String,
    pub tools: Vec<Value>,
    pub resources: Vec<Value>,
    pub resource_templates: Vec<Value>,
    pub prompts: Vec<Value>,
}

impl ServerListing {
    /// A listing of tools only, as in a catalog file.
    pub fn tools(server: impl Into<String>, tools: Vec<Value>) -> ServerListing {
        ServerListing {
            server: server.into(),
            tools,
            ..ServerListing::default()
        }
    }

    /// The list of one kind (a listing holds no tasks).
    pub fn items_mut(&mut self, kind: Kind) -> Option<&mut Vec<Value>> {
        match kind {
            Kind::Tool => Some(&mut self.tools),
            Kind::Resource => Some(&mut self.resources),
            Kind::ResourceTemplate => Some(&mut self.resource_templates),
            Kind::Prompt => Some(&mut self.prompts),
            Kind::Task => None,
        }
    }
}

/// Reads a catalog file: a JSON array of MCP Tool objects, or a
/// `tools/list` result (`{"tools": [...]}`, also inside a JSON-RPC
/// response's `result`). Each entry must be an object with a string `name`.
pub fn parse_tool_list(file: &str, text: &str) -> Result<Vec<Value>, ParseError> {
    let document: Value = decode(file, text)?;
    let tools = match document {
        Value::Array(tools) => tools,
        Value::Object(mut object) => {
            let mut list = object.remove("tools");
            if list.is_none()
                && let Some(Value::Object(mut result)) = object.remove("result")
            {
                list = result.remove("tools");
            }
            match list {
                Some(Value::Array(tools)) => tools,
                _ => {
                    return Err(whole_document(
                        file,
                        "expected a JSON array of tools or a tools/list result with a \"tools\" array",
                    ));
                }
            }
        }
        _ => {
            return Err(whole_document(
                file,
                "expected a JSON array of tools or a tools/list result",
            ));
        }
    };
    for (i, tool) in tools.iter().enumerate() {
        if tool.get("name").and_then(Value::as_str).is_none() {
            return Err(ParseError {
                file: file.to_string(),
                line: 0,
                column: 0,
                path: format!("[{i}]"),
                expected: "expected a tool object with a string \"name\"".into(),
            });
        }
    }
    Ok(tools)
}

fn whole_document(file: &str, expected: &str) -> ParseError {
    ParseError {
        file: file.to_string(),
        line: 1,
        column: 1,
        path: String::new(),
        expected: expected.to_string(),
    }
}

/// How a catalog is built: the exposed names' separator, whether groups
/// are derived, the concerns in force, and what calls measured.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub separator: String,
    /// Derive groups for servers that send none (`settings.deriveGroups`).
    pub derive_groups: bool,
    /// Set `security` from annotations where nothing else sets it (from
    /// what each tool says it does, for a server that sends no
    /// annotations): the concern in force is called `security` and has
    /// the built-in values.
    pub security_from_annotations: bool,
    /// Set `cost` of every tool where nothing else sets it ([`crate::cost`]):
    /// the concern in force is called `cost` and has the built-in values.
    pub cost_derived: bool,
    /// What the calls of each tool through Sieve measured, by server and
    /// upstream tool name, from the ledger; empty until the caller fills
    /// it. Shared, as every rebuild of the catalog reads the same map.
    pub measured: Arc<Measurements>,
    /// The value lists of the ordered concerns in force, by name.
    pub ordered: BTreeMap<String, Arc<[String]>>,
    /// `groupRenames` of `config.json`.
    pub group_renames: BTreeMap<String, String>,
}

impl BuildOptions {
    /// With `separator`, derived groups and the built-in concerns.
    pub fn new(separator: &str) -> BuildOptions {
        BuildOptions::with(separator, true, crate::config::builtin_concerns())
    }

    /// As `config` says.
    pub fn of(config: &crate::Config) -> BuildOptions {
        BuildOptions {
            group_renames: config.group_renames.clone(),
            ..BuildOptions::with(
                &config.settings.separator,
                config.settings.derive_groups,
                config.concerns_in_force(),
            )
        }
    }

    fn with(separator: &str, derive_groups: bool, concerns: &[ConcernDef]) -> BuildOptions {
        // A built-in concern, or one declared the same way: its values are
        // the ones the proxy knows how to derive.
        let in_force = |name: &str| {
            let builtin = builtin_concerns().iter().find(|c| c.name == name);
            builtin.is_some_and(|b| {
                concerns
                    .iter()
                    .any(|c| c.name == b.name && c.ordered && c.values == b.values)
            })
        };
        BuildOptions {
            separator: separator.to_string(),
            derive_groups,
            security_from_annotations: in_force(crate::config::SECURITY),
            cost_derived: in_force(COST),
            measured: Arc::default(),
            ordered: concerns
                .iter()
                .filter(|c| c.ordered)
                .map(|c| (c.name.clone(), c.values.clone().into()))
                .collect(),
            group_renames: BTreeMap::new(),
        }
    }

    /// The labels of every tool of `server`, index for index: what the
    /// server sends, the tags and `security` its annotations imply (or,
    /// when none of its tools says whether it is read-only or
    /// destructive, what each tool says it does), `cost`, and derived
    /// groups. Overlays come later, and win.
    fn tool_labels(&self, server: &str, tools: &[Value]) -> Vec<Labels> {
        // A server that says of no tool whether it reads or destroys has
        // its tools read for it, whatever other hints it sends.
        let hinted = tools.iter().any(|t| has_effect_hints(t.get("annotations")));
        let other_hints = !hinted && tools.iter().any(|t| has_hints(t.get("annotations")));
        // A server that marks the tools that destroy says of those it
        // leaves unmarked that they do not: they are read too.
        let marks_destroying = tools.iter().any(|t| {
            t.pointer("/annotations/destructiveHint")
                .and_then(Value::as_bool)
                == Some(true)
        });
        let measured = self.measured.get(server);
        // Where this server's names put their verbs, read once for all.
        let naming = naming(
            tools
                .iter()
                .filter_map(|t| t.get("name").and_then(Value::as_str)),
        );
        let mut labels: Vec<Labels> = tools
            .iter()
            .map(|tool| {
                let mut labels = Labels::sent(server, tool);
                let annotations = tool.get("annotations");
                let unmarked = hinted && marks_destroying && !has_effect_hints(annotations);
                let annotated = hinted && !unmarked;
                // What the tool says it does, read once for `security`
                // (a tool its annotations leave unsaid) and `cost` alike.
                let said = (!annotated || self.cost_derived).then(|| stated_in(tool, naming));
                if annotated {
                    labels.add_annotation_tags(annotations);
                    if self.security_from_annotations {
                        labels.derive_security(annotations);
                    }
                } else if let Some(said) = &said {
                    labels.derive_effect_tags(said.effect, annotations);
                    if self.security_from_annotations {
                        let silence = if unmarked {
                            Silence::Unmarked
                        } else if other_hints {
                            Silence::NoEffectHints
                        } else {
                            Silence::NoAnnotations
                        };
                        labels.derive_security_from(said, silence);
                    }
                }
                if let (true, Some(said)) = (self.cost_derived, said) {
                    let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
                    let judged = judge_stated(tool, said, measured.and_then(|m| m.get(name)));
                    labels.derive_concern(COST, judged.value.as_str(), judged.why);
                }
                labels
            })
            .collect();
        self.derive_groups_of(server, tools, &mut labels);
        labels
    }

    /// Gives each tool of a server its derived group (`labels` are the
    /// tools' upstream labels, index for index), unless derivation is off
    /// or the server sends categories of its own.
    fn derive_groups_of(&self, server: &str, tools: &[Value], labels: &mut [Labels]) {
        if !self.derive_groups || labels.iter().any(Labels::has_own_groups) {
            return;
        }
        let texts: Vec<ToolText> = tools.iter().map(ToolText::of).collect();
        for (labels, derived) in labels.iter_mut().zip(derive_for(server, &texts)) {
            if let Some(Derived { group, why }) = derived {
                labels.derive_group(server_group(server, &group), why);
            }
        }
    }

    /// Gives `labels` the value lists of its ordered concerns.
    fn order(&self, labels: &mut Labels) {
        for name in labels.concerns.keys() {
            if let Some(values) = self.ordered.get(name) {
                labels.ordered.insert(name.clone(), values.clone());
            }
        }
    }
}

/// Every primitive of every server, indexed.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    primitives: Vec<Primitive>,
    /// Each kind's primitives by exposed name, a map per kind so that a
    /// lookup (every call a host makes) hashes the name it is given and
    /// makes no key of its own, with a fast seeded hasher.
    by_name: [foldhash::HashMap<String, usize>; 5],
    by_uri: foldhash::HashMap<String, usize>,
}

/// `kind`'s map in [`Catalog`]'s `by_name`.
fn slot(kind: Kind) -> usize {
    match kind {
        Kind::Tool => 0,
        Kind::Resource => 1,
        Kind::ResourceTemplate => 2,
        Kind::Prompt => 3,
        Kind::Task => 4,
    }
}

impl Catalog {
    /// Builds the catalog. Servers are taken in name order and entries in
    /// upstream order, so the result does not depend on which server
    /// answered first. Entries without a usable `name` (or `uri` for
    /// resources) are skipped: the host could not address them.
    pub fn build(separator: &str, overlays: &Overlays, listings: &[ServerListing]) -> Catalog {
        Catalog::build_with(&BuildOptions::new(separator), overlays, listings)
    }

    /// [`Catalog::build`] with every option: derived groups, the concerns
    /// in force (`security` from annotations or what tools say they do,
    /// `cost` from definitions and measurements, ordered values).
    pub fn build_with(
        options: &BuildOptions,
        overlays: &Overlays,
        listings: &[ServerListing],
    ) -> Catalog {
        let mut sorted: Vec<&ServerListing> = listings.iter().collect();
        sorted.sort_by(|a, b| a.server.cmp(&b.server));
        let mut catalog = Catalog::default();
        for listing in sorted {
            let kinds = [
                (Kind::Tool, &listing.tools),
                (Kind::Resource, &listing.resources),
                (Kind::ResourceTemplate, &listing.resource_templates),
                (Kind::Prompt, &listing.prompts),
            ];
            for (kind, definitions) in kinds {
                // The upstream's labels, read once: derivation looks at
                // every tool's before any tool is added.
                let labels: Vec<Labels> = if kind == Kind::Tool {
                    options.tool_labels(&listing.server, definitions)
                } else {
                    definitions
                        .iter()
                        .map(|d| Labels::from_upstream(&listing.server, d, false))
                        .collect()
                };
                for (definition, labels) in definitions.iter().zip(labels) {
                    catalog.add(kind, &listing.server, definition, labels, options, overlays);
                }
            }
        }
        catalog
    }

    fn add(
        &mut self,
        kind: Kind,
        server: &str,
        definition: &Value,
        mut labels: Labels,
        options: &BuildOptions,
        overlays: &Overlays,
    ) {
        let separator = options.separator.as_str();
        let Some(name) = definition.get("name").and_then(Value::as_str) else {
            return;
        };
        let uri = match kind {
            Kind::Tool => tool_uri(server, name),
            Kind::Prompt => prompt_uri(server, name),
            Kind::Resource => match definition.get("uri").and_then(Value::as_str) {
                Some(uri) => uri.to_string(),
                None => return,
            },
            Kind::ResourceTemplate => match definition.get("uriTemplate").and_then(Value::as_str) {
                Some(uri) => uri.to_string(),
                None => return,
            },
            Kind::Task => return,
        };
        let mut exposed = exposed_name_with_hash(server, name, separator, HASH_LEN);
        if self.by_name[slot(kind)].contains_key(&exposed) {
            if kind == Kind::Resource || kind == Kind::ResourceTemplate {
                // Resource names are labels, not identities: two may share
                // one. They are addressed by URI, so the first keeps the name.
            } else {
                // Only a hash collision gets here; a full-length hash
                // separates the pair.
                exposed = exposed_name_with_hash(server, name, separator, 32);
            }
        }
        let mut overrides = Overrides::default();
        for overlay in overlays.matching(&exposed) {
            labels.apply(overlay);
            // A later overlay's text wins, as its labels add up.
            if overlay.title.is_some() {
                overrides.title.clone_from(&overlay.title);
            }
            if overlay.description.is_some() {
                overrides.description.clone_from(&overlay.description);
            }
        }
        labels.rename_groups(&options.group_renames);
        options.order(&mut labels);
        let index = self.primitives.len();
        self.by_name[slot(kind)]
            .entry(exposed.clone())
            .or_insert(index);
        // Two servers may offer the same resource URI; the first (in server
        // order) is the one a read goes to.
        self.by_uri.entry(uri.clone()).or_insert(index);
        self.primitives.push(Primitive {
            kind,
            server: server.to_string(),
            name: name.to_string(),
            exposed_name: exposed,
            uri,
            labels,
            via_tool: None,
            definition: definition.clone(),
            overrides,
            quarantine: None,
            tokens: TokenCache::default(),
        });
    }

    /// Judges every tool against `approvals` (DESIGN §9): a tool that is
    /// new or changed since it was approved gets its [`Quarantine`].
    /// Servers `approvals` does not know are left alone (their first
    /// listing is trusted by whoever records it).
    ///
    /// Every tool is scanned too ([`crate::scan`], knowing the other
    /// servers' tools): a finding no approval accepted quarantines it and
    /// sets its `security` to `low`, above any overlay.
    pub fn quarantine(&mut self, approvals: &Approvals) {
        self.judge(approvals, true);
    }

    /// [`Catalog::quarantine`], holding tools back only when `hold`
    /// (`settings.quarantine`): without it a finding still sets `security:
    /// low`.
    pub fn judge(&mut self, approvals: &Approvals, hold: bool) {
        let findings = self.scan();
        self.judge_found(approvals, hold, &findings);
    }

    /// [`Catalog::judge`] with the findings of a scan made before
    /// ([`Catalog::scan`] or [`crate::scan::scan_servers`] over the same
    /// listings): a proxy scans each listing once, not at every build.
    pub fn judge_found(&mut self, approvals: &Approvals, hold: bool, findings: &Findings) {
        for p in &mut self.primitives {
            if p.kind != Kind::Tool {
                continue;
            }
            let found = findings
                .get(&(p.server.clone(), p.name.clone()))
                .cloned()
                .unwrap_or_default();
            if hold {
                p.quarantine = approvals.judge(&p.server, &p.definition, &found);
            }
            let open = approvals.unaccepted(&p.server, &p.name, &found);
            if let Some(first) = open.first()
                && p.labels.concerns.contains_key("security")
            {
                p.labels.concerns.insert("security".into(), "low".into());
                p.labels.derived_concerns.remove("security");
                p.labels.reasons.insert(
                    "security".into(),
                    format!(
                        "security low until approved: the scanner found that {}",
                        first.reason()
                    ),
                );
            }
        }
    }

    /// Every tool's findings, by server and upstream name, each tool
    /// scanned with the other servers' tool names.
    pub fn scan(&self) -> Findings {
        let mut by_server: BTreeMap<&str, Vec<&Value>> = BTreeMap::new();
        for p in self.of_kind(Kind::Tool) {
            by_server.entry(&p.server).or_default().push(&p.definition);
        }
        let servers: Vec<crate::scan::ServerTools> = by_server
            .into_iter()
            .map(|(server, tools)| crate::scan::ServerTools { server, tools })
            .collect();
        crate::scan::findings_of(&servers)
    }

    /// All primitives, servers in name order.
    pub fn primitives(&self) -> &[Primitive] {
        &self.primitives
    }

    /// The primitives of one kind.
    pub fn of_kind(&self, kind: Kind) -> impl Iterator<Item = &Primitive> {
        self.primitives.iter().filter(move |p| p.kind == kind)
    }

    /// The primitive of `kind` exposed as `name`.
    pub fn find(&self, kind: Kind, exposed_name: &str) -> Option<&Primitive> {
        self.by_name[slot(kind)]
            .get(exposed_name)
            .map(|&i| &self.primitives[i])
    }

    /// The primitive with this URI (`mcp://tools/..`, `mcp://prompts/..`,
    /// or a resource URI).
    pub fn find_uri(&self, uri: &str) -> Option<&Primitive> {
        self.by_uri.get(uri).map(|&i| &self.primitives[i])
    }

    /// A tool by exposed name or by `mcp://tools/` URI, as hosts may call
    /// either.
    pub fn find_tool(&self, name_or_uri: &str) -> Option<&Primitive> {
        self.find(Kind::Tool, name_or_uri)
            .or_else(|| self.find_uri(name_or_uri).filter(|p| p.kind == Kind::Tool))
    }

    /// A prompt by exposed name or by `mcp://prompts/` URI.
    pub fn find_prompt(&self, name_or_uri: &str) -> Option<&Primitive> {
        self.find(Kind::Prompt, name_or_uri).or_else(|| {
            self.find_uri(name_or_uri)
                .filter(|p| p.kind == Kind::Prompt)
        })
    }

    /// Number of primitives.
    pub fn len(&self) -> usize {
        self.primitives.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.primitives.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;
    use crate::config::Overlay;
    use crate::cost::Measured;
    use serde_json::json;

    fn listing() -> Vec<ServerListing> {
        vec![
            ServerListing {
                server: "beta".into(),
                tools: vec![json!({"name": "echo", "inputSchema": {"type": "object"}})],
                resources: vec![
                    json!({"name": "readme", "uri": "file:///readme"}),
                    json!({"name": "readme", "uri": "file:///readme2"}),
                    json!({"name": "no-uri"}),
                ],
                resource_templates: vec![json!({"name": "file", "uriTemplate": "file:///{path}"})],
                prompts: vec![json!({"name": "greet"})],
            },
            ServerListing::tools(
                "alpha",
                vec![
                    json!({"name": "echo", "annotations": {"readOnlyHint": true}}),
                    json!({"description": "no name"}),
                ],
            ),
        ]
    }

    #[test]
    fn builds_in_server_order_with_names_and_uris() {
        let catalog = Catalog::build("__", &Overlays::default(), &listing());
        let names: Vec<_> = catalog
            .primitives()
            .iter()
            .map(|p| p.exposed_name.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "alpha__echo",
                "beta__echo",
                "beta__readme",
                "beta__readme",
                "beta__file",
                "beta__greet"
            ]
        );
        let echo = catalog.find(Kind::Tool, "alpha__echo").unwrap();
        assert_eq!(echo.uri, "mcp://tools/alpha/echo");
        assert!(echo.labels.tags.contains("read-only"));
        assert_eq!(
            catalog.find_uri("file:///readme2").unwrap().kind,
            Kind::Resource
        );
        assert_eq!(
            catalog
                .find_prompt("mcp://prompts/beta/greet")
                .unwrap()
                .name,
            "greet"
        );
        assert_eq!(
            catalog.find_tool("mcp://tools/beta/echo").unwrap().server,
            "beta"
        );
        assert!(
            catalog.find_tool("mcp://prompts/beta/greet").is_none(),
            "kind is checked"
        );
        assert!(catalog.find_tool("beta__greet").is_none());
    }

    #[test]
    fn overlays_apply_by_exposed_name() {
        let overlays = Overlays::new(&[Overlay {
            pattern: "beta__*".into(),
            groups: vec!["b".into()],
            tags: vec![],
            concerns: Default::default(),
            ..Overlay::default()
        }])
        .unwrap();
        let catalog = Catalog::build("__", &overlays, &listing());
        assert!(
            catalog
                .find(Kind::Tool, "beta__echo")
                .unwrap()
                .labels
                .groups
                .contains("b")
        );
        assert!(
            !catalog
                .find(Kind::Tool, "alpha__echo")
                .unwrap()
                .labels
                .groups
                .contains("b")
        );
    }

    #[test]
    fn overrides_reach_the_host_and_the_token_count_but_not_the_definition() {
        let plain = Catalog::build("__", &Overlays::default(), &listing());
        let overlays = Overlays::new(&[
            Overlay {
                pattern: "beta__*".into(),
                description: Some("first".into()),
                ..Overlay::default()
            },
            Overlay {
                pattern: "beta__echo".into(),
                title: Some("Echo".into()),
                description: Some("Says it back.".into()),
                ..Overlay::default()
            },
        ])
        .unwrap();
        let catalog = Catalog::build("__", &overlays, &listing());
        let echo = catalog.find(Kind::Tool, "beta__echo").unwrap();
        assert_eq!(echo.overrides.title.as_deref(), Some("Echo"));
        assert_eq!(
            echo.overrides.description.as_deref(),
            Some("Says it back."),
            "the later overlay wins"
        );
        let host = echo.host_definition();
        assert_eq!(host["title"], "Echo");
        assert_eq!(host["description"], "Says it back.");
        let upstream = plain.find(Kind::Tool, "beta__echo").unwrap();
        assert_eq!(
            echo.definition, upstream.definition,
            "the upstream's definition is kept as it was"
        );
        assert_ne!(
            echo.tokens(),
            upstream.tokens(),
            "the count follows what the host sees"
        );
        assert!(
            catalog
                .find(Kind::Tool, "alpha__echo")
                .unwrap()
                .overrides
                .is_empty()
        );
    }

    #[test]
    fn host_definition_renames_and_labels_only() {
        let catalog = Catalog::build("__", &Overlays::default(), &listing());
        let echo = catalog.find(Kind::Tool, "beta__echo").unwrap();
        let host = echo.host_definition();
        assert_eq!(host["name"], "beta__echo");
        assert_eq!(host["inputSchema"], json!({"type": "object"}));
        assert_eq!(host["_meta"]["dev.mcp-sieve/uri"], "mcp://tools/beta/echo");
        assert_eq!(host["_meta"]["dev.mcp-sieve/name"], "echo");
        // `beta` sends no annotations: `echo` reads, by its name.
        assert_eq!(
            host["_meta"]["dev.mcp-sieve/tags"],
            json!(["open-world", "read-only"])
        );
        let resource = catalog
            .find_uri("file:///readme")
            .unwrap()
            .host_definition();
        assert_eq!(resource["name"], "readme", "resources keep their name");
        assert!(echo.model_definition().get("_meta").is_none());
    }

    #[test]
    fn concerns_are_derived_per_server_and_overlays_win() {
        let listings = [
            // No tool of `plain` carries a hint: what each says decides.
            ServerListing::tools(
                "plain",
                vec![
                    json!({"name": "list_issues"}),
                    json!({"name": "delete_branch", "annotations": {"title": "Delete"}}),
                ],
            ),
            // `hinted` sends hints for one tool: the spec's defaults apply
            // to the other.
            ServerListing::tools(
                "hinted",
                vec![
                    json!({"name": "list_issues"}),
                    json!({"name": "get_me", "annotations": {"readOnlyHint": true}}),
                ],
            ),
            // `worldly` says whether its tools reach the world, never
            // whether they read or destroy (as Brave's search server does):
            // what each says decides that, its own hints the rest.
            ServerListing::tools(
                "worldly",
                vec![
                    json!({"name": "web_search", "annotations": {"title": "Search", "openWorldHint": true}}),
                    json!({"name": "purge_cache", "annotations": {"openWorldHint": false, "idempotentHint": true}}),
                ],
            ),
        ];
        let overlays = Overlays::new(&[Overlay {
            pattern: "plain__delete_*".into(),
            concerns: [("cost".to_string(), "high".to_string())].into(),
            ..Overlay::default()
        }])
        .unwrap();
        let mut options = BuildOptions::new("__");
        options.measured = Arc::new(BTreeMap::from([(
            "plain".to_string(),
            BTreeMap::from([(
                "list_issues".to_string(),
                Measured {
                    calls: 4,
                    median_tokens: 100,
                    p90_tokens: 200,
                    median_ms: 50,
                    p90_ms: 90,
                },
            )]),
        )]));
        let catalog = Catalog::build_with(&options, &overlays, &listings);
        let labels = |name: &str| &catalog.find(Kind::Tool, name).unwrap().labels;

        let list = labels("plain__list_issues");
        assert_eq!(list.concerns["security"], "high");
        assert!(list.derived_concerns.contains("security") && list.tags.contains("read-only"));
        assert_eq!(list.concerns["cost"], "minimal", "measured small");
        assert!(
            list.reasons["cost"].contains("4 calls"),
            "{}",
            list.reasons["cost"]
        );

        let delete = labels("plain__delete_branch");
        assert_eq!(delete.concerns["security"], "low");
        assert_eq!(delete.derived_tags, ["destructive".to_string()].into());
        assert_eq!(delete.concerns["cost"], "high", "the overlay wins");
        assert!(!delete.derived_concerns.contains("cost"));

        let hinted = labels("hinted__list_issues");
        assert_eq!(hinted.concerns["security"], "low", "the spec's defaults");
        assert!(hinted.tags.contains("destructive") && hinted.derived_tags.is_empty());
        assert!(!hinted.derived_concerns.contains("security"));
        assert_eq!(hinted.concerns["cost"], "moderate", "not measured");
        assert!(hinted.is_ordered("cost"));

        let search = labels("worldly__web_search");
        assert_eq!(search.concerns["security"], "high");
        assert_eq!(
            search.tags,
            ["open-world", "read-only"].map(String::from).into()
        );
        assert_eq!(
            search.reasons["security"],
            "security high: derived from `search` in its name (the server's annotations do not say whether its tools read or change)"
        );
        let purge = labels("worldly__purge_cache");
        assert_eq!(purge.concerns["security"], "low");
        assert_eq!(
            purge.tags,
            ["destructive", "idempotent"].map(String::from).into(),
            "its own hints: not open-world, idempotent"
        );

        let custom = Config::parse(
            "config.json",
            r#"{"concerns": [{"name": "cost", "values": ["free", "paid"]}]}"#,
        )
        .unwrap();
        let catalog = Catalog::build_with(&BuildOptions::of(&custom), &overlays, &listings);
        let list = &catalog
            .find(Kind::Tool, "plain__list_issues")
            .unwrap()
            .labels;
        assert!(
            list.concerns.is_empty(),
            "a concern of the user's own is not derived"
        );
        assert!(
            list.tags.contains("read-only"),
            "tags do not depend on concerns"
        );
    }

    #[test]
    fn a_server_s_way_of_naming_reads_each_name() {
        let names =
            |names: &[&str]| -> Vec<Value> { names.iter().map(|n| json!({"name": n})).collect() };
        let listings = [
            // Verbs first: `schedule` after `get` is the thing read.
            ServerListing::tools(
                "first",
                names(&[
                    "get_pipeline_schedule",
                    "list_pipelines",
                    "create_pipeline",
                    "delete_pipeline",
                ]),
            ),
            // Verbs last: `deploy` before `get` is the area.
            ServerListing::tools(
                "last",
                names(&[
                    "deploy_plan_get",
                    "compute_vm_create",
                    "storage_account_list",
                    "keyvault_secret_delete",
                ]),
            ),
        ];
        let catalog = Catalog::build("__", &Overlays::default(), &listings);
        let security = |name: &str| {
            let labels = &catalog.find(Kind::Tool, name).unwrap().labels;
            (
                labels.concerns["security"].clone(),
                labels.reasons["security"].clone(),
            )
        };
        assert_eq!(
            security("first__get_pipeline_schedule"),
            (
                "high".to_string(),
                "security high: derived from `get` in its name (the server sends no annotations)"
                    .to_string()
            )
        );
        assert_eq!(security("last__deploy_plan_get").0, "high");
        assert_eq!(security("last__compute_vm_create").0, "medium");
        assert_eq!(security("last__keyvault_secret_delete").0, "low");
    }

    #[test]
    fn tool_list_files_in_both_shapes() {
        let array = parse_tool_list("a.json", r#"[{"name": "x"}]"#).unwrap();
        let result = parse_tool_list(
            "b.json",
            r#"{"tools": [{"name": "x"}], "nextCursor": null}"#,
        )
        .unwrap();
        let rpc = parse_tool_list(
            "c.json",
            r#"{"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "x"}]}}"#,
        )
        .unwrap();
        assert_eq!(array, result);
        assert_eq!(array, rpc);
        let err = parse_tool_list("d.json", r#"{"prompts": []}"#).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("d.json:1:1: expected a JSON array"),
            "{err}"
        );
        let err = parse_tool_list("e.json", r#"[{"name": "x"}, {"title": "y"}]"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "e.json: [1]: expected a tool object with a string \"name\""
        );
        let err = parse_tool_list("f.json", "[{").unwrap_err();
        assert_eq!(err.line, 1);
    }

    #[test]
    fn tasks_follow_their_tool() {
        let catalog = Catalog::build("__", &Overlays::default(), &listing());
        let tool = catalog.find(Kind::Tool, "alpha__echo").unwrap();
        let task = Primitive::task(tool, "up-1", "t-9");
        assert_eq!(task.glob_name(), "alpha__echo");
        assert_eq!(task.labels, tool.labels);
        assert_eq!(task.kind.section(), "tools");
    }
}
