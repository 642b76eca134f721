//! What the servers list, and what a profile makes of it: rows and tokens.

use super::profiles::{CompiledProfile, PatternList, ProfileEdit, TagState};
use super::{ApiError, ErrorCode, Result};
use serde::Serialize;
use serde_json::Value;
use sieve_core::{
    BuildOptions, Catalog, Config, Kind, Measurements, Overlays, Primitive, Reason, Rule,
    ServerListing, TokenCount,
};
use sieve_gateway::engine::State;
use sieve_gateway::engine::{BUILTIN_SERVER, Engine};
use sieve_store::store::Store;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// How long a one-shot view waits for every server to answer once.
pub const SETTLE: Duration = Duration::from_secs(20);

/// Every primitive the servers list, named and labelled under the config
/// it was built with, plus what is worth telling about how it was read
/// (servers that are down).
#[derive(Debug)]
pub struct Listed {
    pub config: Config,
    /// Shared with the engine that published it: a view never copies it.
    pub catalog: Arc<Catalog>,
    pub warnings: Vec<String>,
}

impl Listed {
    /// Builds the catalog of `listings` under `config` (its separator and
    /// overlays), `cost` judged from the tools' definitions alone.
    pub fn build(config: Config, listings: &[ServerListing]) -> Result<Listed> {
        Listed::build_measured(config, listings, Arc::default())
    }

    /// [`Listed::build`] with what calls through Sieve `measured`.
    fn build_measured(
        config: Config,
        listings: &[ServerListing],
        measured: Arc<Measurements>,
    ) -> Result<Listed> {
        let overlays = Overlays::new(&config.overlays).map_err(|error| {
            ApiError::new(
                ErrorCode::BrokenFile,
                format!("config.json: an overlay pattern does not compile ({error}); fix it"),
            )
        })?;
        let options = BuildOptions {
            measured,
            ..BuildOptions::of(&config)
        };
        let catalog = Catalog::build_with(&options, &overlays, listings);
        Ok(Listed {
            config,
            catalog: Arc::new(catalog),
            warnings: Vec::new(),
        })
    }

    /// [`Listed::build`] with what calls through Sieve measured, from the
    /// ledger of `store`'s state; a ledger that cannot be read is said in
    /// the warnings, and `cost` is then judged from the definitions.
    fn build_for(store: &Store, config: Config, listings: &[ServerListing]) -> Result<Listed> {
        let measured = super::ledger(store).and_then(|ledger| Ok(ledger.measured()?));
        let warning = measured
            .as_ref()
            .err()
            .map(|error| format!("{error}; cost is judged from the tools' definitions alone"));
        let mut listed =
            Listed::build_measured(config, listings, Arc::new(measured.unwrap_or_default()))?;
        listed.warnings.extend(warning);
        Ok(listed)
    }

    /// The rows of every primitive a running engine lists, as profile
    /// `profile` (read from disk now) sees them: the app's Tools screen.
    pub fn rows_of_engine(engine: &Engine, profile: &str) -> Result<Vec<PrimitiveRow>> {
        let listed = Listed::of_engine(engine);
        let compiled = super::profiles::compile(engine.store(), profile, &listed.config)?;
        Ok(listed.rows(&compiled, &[]))
    }

    /// The token report of a running engine's tools under `profile`: the
    /// app's meter.
    pub fn tokens_of_engine(engine: &Engine, profile: &str) -> Result<TokenReport> {
        let listed = Listed::of_engine(engine);
        let compiled = super::profiles::compile(engine.store(), profile, &listed.config)?;
        Ok(listed.tokens(&compiled))
    }

    /// What a running engine has now: the app's view, live.
    pub fn of_engine(engine: &Engine) -> Listed {
        Listed {
            config: (*engine.config()).clone(),
            catalog: engine.catalog(),
            warnings: Vec::new(),
        }
    }

    /// Tool lists read from files (a JSON array of tools or a `tools/list`
    /// result each), one server per file, named after the file's stem or
    /// `server` when there is one file.
    pub fn from_files(store: &Store, files: &[PathBuf], server: Option<&str>) -> Result<Listed> {
        if server.is_some() && files.len() > 1 {
            return Err(ApiError::invalid(
                "server",
                "a server name goes with a single catalog file; with several, each is named after its file",
            ));
        }
        let listings = files
            .iter()
            .map(|path| {
                let server = match server {
                    Some(server) => server.to_string(),
                    None => file_stem(path)?,
                };
                let text = std::fs::read_to_string(path).map_err(|error| {
                    ApiError::new(
                        ErrorCode::Io,
                        format!("cannot read catalog {}: {error}", path.display()),
                    )
                })?;
                let tools = sieve_core::parse_tool_list(&path.display().to_string(), &text)
                    .map_err(|error| ApiError::new(ErrorCode::BrokenFile, error.to_string()))?;
                Ok(ServerListing::tools(server, tools))
            })
            .collect::<Result<Vec<_>>>()?;
        Listed::build_for(store, store.load_config()?, &listings)
    }

    /// What the configured servers list: each is connected once and
    /// stopped again. With none configured, the built-in demo server's
    /// tools, without starting it.
    pub async fn live(store: &Store) -> Result<Listed> {
        let config = store.load_config()?;
        if config.mcp_servers.is_empty() {
            return Listed::build_for(store, config, &[builtin_listing()]);
        }
        let engine = Engine::start(store.clone())?;
        engine.settled(SETTLE).await;
        // The engine's catalog: judged by the approvals (quarantine).
        let catalog = engine.catalog();
        let warnings = engine
            .statuses()
            .into_iter()
            .filter(|(_, status)| status.state != State::Up)
            .map(|(name, status)| {
                format!(
                    "server {name:?} is {}: {}",
                    status.state.as_str(),
                    status.error.as_deref().unwrap_or("no answer yet")
                )
            })
            .collect();
        engine.shutdown().await;
        Ok(Listed {
            config: (*engine.config()).clone(),
            catalog,
            warnings,
        })
    }

    /// The rows of every primitive of `kinds` (all kinds but tasks when
    /// empty), in catalog order, as `profile` sees them.
    pub fn rows(&self, profile: &CompiledProfile, kinds: &[Kind]) -> Vec<PrimitiveRow> {
        self.catalog
            .primitives()
            .iter()
            .filter(|p| p.kind != Kind::Task)
            .filter(|p| kinds.is_empty() || kinds.contains(&p.kind))
            .map(|p| PrimitiveRow::of(p, profile))
            .collect()
    }

    /// Tokens of the tool definitions before and after `profile`, in all,
    /// per server and per group.
    pub fn tokens(&self, profile: &CompiledProfile) -> TokenReport {
        // One pass, each definition counted once: counting is the costly
        // part (o200k_base over the whole definition).
        let mut total = TokenCount::default();
        let mut servers: BTreeMap<String, TokenCount> = BTreeMap::new();
        let mut groups: BTreeMap<String, TokenCount> = BTreeMap::new();
        for tool in self.catalog.of_kind(Kind::Tool) {
            let tokens = tool.tokens();
            // What tools/list carries: in search mode, the pinned tools.
            let visible = profile.rules.listed(tool, None);
            total.add(tokens, visible);
            servers
                .entry(tool.server.clone())
                .or_default()
                .add(tokens, visible);
            for group in &tool.labels.groups {
                groups
                    .entry(group.clone())
                    .or_default()
                    .add(tokens, visible);
            }
        }
        // In search mode the host also gets the proxy's two search tools.
        let search = profile.rules.search_mode().then(|| {
            sieve_core::search::search_tools(&self.config.settings.separator)
                .iter()
                .map(sieve_core::tokens::definition_tokens)
                .sum::<usize>()
        });
        TokenReport {
            profile: profile.name.clone(),
            before: total.before,
            after: total.after + search.unwrap_or(0),
            tools_before: total.tools_before,
            tools_after: total.tools_after + if search.is_some() { 2 } else { 0 },
            search,
            servers,
            groups,
        }
    }
}

fn file_stem(path: &Path) -> Result<String> {
    path.file_stem()
        .and_then(|s| s.to_str())
        .map(String::from)
        .ok_or_else(|| {
            ApiError::invalid(
                "server",
                format!(
                    "cannot name a server after {}; give the server's name",
                    path.display()
                ),
            )
        })
}

/// The demo server's tools, as if listed by the built-in server.
pub fn builtin_listing() -> ServerListing {
    let tools = sieve_demo::demo_tools()
        .into_iter()
        .map(|tool| serde_json::to_value(tool).expect("rmcp tools serialise"))
        .collect();
    ServerListing::tools(BUILTIN_SERVER, tools)
}

/// One tool, prompt, resource or resource template as a profile sees it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrimitiveRow {
    pub kind: Kind,
    pub exposed_name: String,
    /// The upstream's own name (a resource's: its name field).
    pub name: String,
    pub server: String,
    pub uri: String,
    /// What the host sees: an overlay's title, else the upstream's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the host sees: an overlay's description, else the upstream's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The upstream's own title and description, when an overlay replaces
    /// them (`null` inside: the upstream had none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upstream: Option<UpstreamText>,
    pub groups: BTreeSet<String>,
    /// Which of `groups` were derived from the tool's subject (DESIGN §3).
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub derived_groups: BTreeSet<String>,
    /// Why the tool is in each of its derived groups, in words.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub group_reasons: BTreeMap<String, String>,
    pub tags: BTreeSet<String>,
    /// Which of `tags` were derived from what the tool says it does (a
    /// server that sends no annotations).
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub derived_tags: BTreeSet<String>,
    pub concerns: BTreeMap<String, String>,
    /// Which of `concerns` the proxy derived (DESIGN §3), and why each
    /// value is what it is, in words ("cost moderate: ...").
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub derived_concerns: BTreeSet<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub concern_reasons: BTreeMap<String, String>,
    /// A tool's annotations as the upstream sent them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// A tool's input schema, from which the app builds its "Try" form.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
    /// Tokens of a tool's definition (o200k_base); 0 for other kinds.
    pub tokens: usize,
    /// Why a tool is in quarantine (`description changed`, `new tool`):
    /// hidden in every profile until approved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quarantine: Option<String>,
    pub visible: bool,
    /// Every rule that hides it, e.g. `tools.deny "*_delete_*"`.
    pub hidden_by: Vec<String>,
    /// The same rules, each with the profile edit that lifts it where the
    /// profile can (not for `servers`, `groups.any` or `uriPrefixes`):
    /// what a hidden row's switch offers.
    pub reasons: Vec<HiddenReason>,
    /// What the row's switch writes, on and off.
    pub switch: Switch,
}

/// The profile edits of a row's switch (DESIGN §8): a tool's exposed name
/// out of or into `tools.deny` (`setTool`); a prompt's or resource's the
/// same in its own section's deny list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Switch {
    pub on: ProfileEdit,
    pub off: ProfileEdit,
}

impl Switch {
    fn of(p: &Primitive) -> Switch {
        let edit = |on: bool| {
            if p.kind == Kind::Tool {
                return ProfileEdit::SetTool {
                    exposed_name: p.exposed_name.clone(),
                    on,
                };
            }
            let section = p.kind.section().to_string();
            let pattern = p.exposed_name.clone();
            let list = PatternList::Deny;
            if on {
                ProfileEdit::RemovePattern {
                    section,
                    list,
                    pattern,
                }
            } else {
                ProfileEdit::AddPattern {
                    section,
                    list,
                    pattern,
                }
            }
        };
        Switch {
            on: edit(true),
            off: edit(false),
        }
    }
}

/// The upstream's text of a primitive whose title or description an
/// overlay replaces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UpstreamText {
    pub title: Option<String>,
    pub description: Option<String>,
}

/// One rule that hides a row, and the edit that would lift it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HiddenReason {
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<ProfileEdit>,
    /// What the button that makes `fix` says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The rule is the row's own entry, the one its switch writes: the
    /// switch itself lifts it.
    pub own: bool,
    /// The quarantine (DESIGN §9): no profile edit lifts it, an approval
    /// on the Quarantine screen does.
    pub quarantine: bool,
}

impl HiddenReason {
    fn of(reason: &Reason, p: &Primitive, switch: &Switch) -> HiddenReason {
        let fix = fix(reason, p);
        let own = fix.as_ref() == Some(&switch.on);
        HiddenReason {
            text: reason.to_string(),
            label: fix.as_ref().map(|edit| {
                if own {
                    "Switch it on".to_string()
                } else {
                    edit.label()
                }
            }),
            fix,
            own,
            quarantine: matches!(reason.rule, Rule::Quarantined { .. }),
        }
    }
}

/// The profile edit that lifts `reason` for `p`.
fn fix(reason: &Reason, p: &Primitive) -> Option<ProfileEdit> {
    if reason.by_request {
        return None;
    }
    let edit = match reason.rule {
        // The row's own entry is what its switch writes.
        Rule::Denied { section, pattern }
            if section == "tools" && p.kind == Kind::Tool && pattern == p.exposed_name =>
        {
            ProfileEdit::SetTool {
                exposed_name: p.exposed_name.clone(),
                on: true,
            }
        }
        Rule::Denied { section, pattern } => ProfileEdit::RemovePattern {
            section: section.to_string(),
            list: PatternList::Deny,
            pattern: pattern.to_string(),
        },
        Rule::NotAllowed { section, .. } => ProfileEdit::AddPattern {
            section: section.to_string(),
            list: PatternList::Allow,
            pattern: p.glob_name().to_string(),
        },
        Rule::GroupForbidden { group } => ProfileEdit::SetGroup {
            group: group.to_string(),
            on: true,
        },
        Rule::TagForbidden { tag } | Rule::TagMissing { tag } => ProfileEdit::SetTag {
            tag: tag.to_string(),
            state: TagState::Ignore,
        },
        Rule::TagExpr { .. } => ProfileEdit::SetTagExpr { expr: None },
        Rule::Concern { name, .. } => ProfileEdit::SetConcern {
            concern: name.to_string(),
            value: None,
        },
        _ => return None,
    };
    Some(edit)
}

impl PrimitiveRow {
    fn of(p: &Primitive, profile: &CompiledProfile) -> PrimitiveRow {
        let switch = Switch::of(p);
        let reasons: Vec<HiddenReason> = profile
            .rules
            .explain(p, None)
            .iter()
            .map(|reason| HiddenReason::of(reason, p, &switch))
            .collect();
        let hidden_by: Vec<String> = reasons.iter().map(|r| r.text.clone()).collect();
        let upstream = |key: &str| p.definition[key].as_str().map(String::from);
        let shown = |key: &str, over: &Option<String>| over.clone().or_else(|| upstream(key));
        PrimitiveRow {
            kind: p.kind,
            exposed_name: p.exposed_name.clone(),
            name: p.name.clone(),
            server: p.server.clone(),
            uri: p.uri.clone(),
            title: shown("title", &p.overrides.title),
            description: shown("description", &p.overrides.description),
            upstream: (!p.overrides.is_empty()).then(|| UpstreamText {
                title: upstream("title"),
                description: upstream("description"),
            }),
            groups: p.labels.groups.clone(),
            derived_groups: p.labels.derived.clone(),
            group_reasons: p.labels.group_reasons.clone(),
            tags: p.labels.tags.clone(),
            derived_tags: p.labels.derived_tags.clone(),
            concerns: p.labels.concerns.clone(),
            derived_concerns: p.labels.derived_concerns.clone(),
            concern_reasons: p.labels.reasons.clone(),
            annotations: p.definition.get("annotations").cloned(),
            input_schema: p.definition.get("inputSchema").cloned(),
            tokens: if p.kind == Kind::Tool { p.tokens() } else { 0 },
            quarantine: p.quarantine.as_ref().map(ToString::to_string),
            visible: hidden_by.is_empty(),
            hidden_by,
            reasons,
            switch,
        }
    }
}

/// Tokens of the tool list before and after a profile.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenReport {
    pub profile: String,
    pub before: usize,
    pub after: usize,
    pub tools_before: usize,
    pub tools_after: usize,
    /// In search mode, the tokens of the proxy's two search tools, which
    /// `after` and `toolsAfter` include.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search: Option<usize>,
    pub servers: BTreeMap<String, TokenCount>,
    /// Per group (a tool counts in each of its groups).
    pub groups: BTreeMap<String, TokenCount>,
}

/// Sets the title and description the host sees for `exposed_name`
/// instead of the upstream's (DESIGN §9), as an overlay of `config.json`
/// matching that one name; `None` or blank gives the upstream's back. An
/// overlay left with nothing to do is removed; overlays that match by
/// pattern are not touched, and a later one of them still wins.
pub fn set_override(
    store: &Store,
    exposed_name: &str,
    title: Option<&str>,
    description: Option<&str>,
) -> Result<()> {
    let valid = !exposed_name.is_empty()
        && exposed_name.len() <= sieve_core::naming::MAX_NAME_LEN
        && exposed_name.chars().all(sieve_core::naming::is_name_char);
    if !valid {
        return Err(ApiError::invalid(
            "exposedName",
            format!("{exposed_name:?} is not an exposed name such as github__create_issue"),
        ));
    }
    let text = |value: Option<&str>| {
        value
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(String::from)
    };
    let (title, description) = (text(title), text(description));
    store.update_config(|config| {
        let overlays = &mut config.overlays;
        let at = overlays.iter().position(|o| o.pattern == exposed_name);
        match at {
            Some(at) => {
                let overlay = &mut overlays[at];
                overlay.title = title;
                overlay.description = description;
                let idle = overlay.title.is_none()
                    && overlay.description.is_none()
                    && overlay.groups.is_empty()
                    && overlay.tags.is_empty()
                    && overlay.concerns.is_empty();
                if idle {
                    overlays.remove(at);
                }
            }
            None if title.is_some() || description.is_some() => {
                overlays.push(sieve_core::Overlay {
                    pattern: exposed_name.to_string(),
                    title,
                    description,
                    ..sieve_core::Overlay::default()
                });
            }
            None => {}
        }
        Ok(())
    })
}
