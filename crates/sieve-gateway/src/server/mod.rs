//! The MCP server a host connects to: every upstream's tools, resources,
//! templates and prompts under exposed names, filtered by the profile, with
//! calls to hidden ones refused.
//!
//! One [`SieveServer`] value serves one host connection (a stdio process,
//! or a 2025-11-25 HTTP session; a 2026-07-28 HTTP request gets a fresh
//! one). Its connection state is what the host narrowed with
//! `concerns/update` (or concerns in `initialize`/`initialized`), and the
//! fingerprints of what it last saw, so `list_changed` goes out for exactly
//! the kinds whose visible set changed.
//!
//! rmcp's typed params drop `filter`, `filters` and `concerns`, so the raw
//! params come with the request from the proxy's own message layer
//! ([`RawParams`]); `_meta` is the request's own.
//!
//! Layout: this file holds the connection, what a request is served with
//! (its [`View`]) and the `ServerHandler` entry points, which hand each
//! request to the file of its kind:
//!
//! * `lists`: the four list methods, one generic handler;
//! * `audit`: `tools/call` recorded in the audit when `settings.audit` is
//!   on, around the call `calls` serves;
//! * `calls`: `tools/call`, `prompts/get`, `resources/read`, subscriptions,
//!   completion, log level;
//! * `express`: a stdio host's plain call, where it may go and how it is
//!   answered when it does not end plainly (`crate::front` carries it);
//! * `forward`: a request on its way upstream and back (cancellation,
//!   progress, questions a 2026-07-28 host answers later, timeout);
//! * `methods`: the added methods (`groups/list`, `tags/list`,
//!   `concerns/*`) and the dispatch of custom requests;
//! * `task_requests`: hosts' task requests of both generations, answered
//!   by [`crate::tasks`];
//! * `notifications`: the connection's lifecycle and `list_changed`.

#![allow(deprecated)] // logging and subscriptions: deprecated in 2026-07-28, live in 2025-11-25

mod audit;
mod calls;
mod dispatch;
pub(crate) mod express;
mod forward;
mod info;
mod lists;
mod methods;
mod notifications;
mod task_requests;

pub use dispatch::{Answer, HostParams, Opening, RawParams};

use crate::engine::{ActiveProfile, Change, Engine, HostForms};
use crate::hosts::HostId;
use crate::link::HostRequest;
use crate::sync::Locked;
use notifications::{Fingerprints, Following};
use rmcp::ErrorData;
use rmcp::model::{InitializeRequestParams, InitializeResult, ProtocolVersion, ServerConfig};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use sieve_core::rules::concern_map;
use sieve_core::{Catalog, Kind, Narrowing, Primitive};
use sieve_store::store::StoreError;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Where a 2026-07-28 request names its protocol version in `_meta`.
pub(crate) const PROTOCOL_VERSION_META: &str = "io.modelcontextprotocol/protocolVersion";
/// Where a 2026-07-28 request names its client (name, version).
pub(crate) const CLIENT_INFO_META: &str = "io.modelcontextprotocol/clientInfo";

/// Why profile `name` cannot serve a host, for a person.
pub fn unusable_profile(name: &str, error: &StoreError) -> String {
    format!("profile {name:?} cannot be used: {error}")
}

/// Which profile an endpoint or a stdio proxy serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProfileChoice {
    /// This one, by name (`/mcp/p/<name>`, `serve --profile <name>`).
    Named(String),
    /// Whichever is active (`settings.activeProfile`) at each request:
    /// `/mcp` and `serve` without `--profile`. A switch reaches the host as
    /// `list_changed`.
    Active,
}

impl ProfileChoice {
    /// The profile's name as things are now.
    pub fn resolve(&self, engine: &Engine) -> String {
        match self {
            ProfileChoice::Named(name) => name.clone(),
            ProfileChoice::Active => engine.active_profile(),
        }
    }
}

/// The profile of the HTTP endpoint a request came in on.
#[derive(Debug, Clone)]
pub struct EndpointProfile(pub ProfileChoice);

/// Serves one host connection.
#[derive(Clone)]
pub struct SieveServer {
    engine: Arc<Engine>,
    conn: Arc<Connection>,
}

struct Connection {
    /// The profile of a stdio proxy; HTTP requests carry theirs.
    fixed_profile: Option<ProfileChoice>,
    state: Mutex<ConnState>,
    /// Where this host's plain calls go, as last judged.
    routes: Mutex<express::Routes>,
    /// Held while a view is computed and recorded as seen, so two tasks
    /// (the change forwarder, a `concerns/update`) cannot interleave and
    /// leave a stale view recorded.
    seen_lock: Mutex<()>,
}

/// A `subscriptions/listen` being set up: its baseline and change stream,
/// taken before the acknowledgement so nothing in between is missed.
type PendingListen = (
    Option<Fingerprints>,
    tokio::sync::broadcast::Receiver<Change>,
);

#[derive(Default)]
struct ConnState {
    pending_listen: Option<PendingListen>,
    pending_follow: Option<Following>,
    profile: Option<ProfileChoice>,
    concerns: BTreeMap<String, String>,
    host: Option<HostId>,
    seen: Option<Fingerprints>,
    /// Who opened this connection over HTTP: a signed-in person's subject,
    /// or `None` for the static token. A 2025-11-25 session serves only
    /// them.
    caller: Option<Option<String>>,
}

/// What a request is served with.
struct View {
    /// The config the request was made under: its separator, timeouts and
    /// concern definitions, the same for the whole request.
    config: Arc<sieve_core::Config>,
    catalog: Arc<Catalog>,
    forms: Arc<HostForms>,
    profile: Arc<ActiveProfile>,
    narrowing: Narrowing,
    /// The signed-in person making the request: they see only their own
    /// entries, and what they start is theirs.
    owner: Option<String>,
}

impl View {
    /// Who sees tasks here: a task is as visible as its tool.
    fn viewer(&self) -> crate::tasks::Viewer<'_> {
        crate::tasks::Viewer {
            catalog: &self.catalog,
            rules: &self.profile.rules,
            narrowing: Some(&self.narrowing),
            owner: self.owner.as_deref(),
        }
    }
}

impl SieveServer {
    /// A server for one stdio host, on `profile`.
    pub fn stdio(engine: Arc<Engine>, profile: ProfileChoice) -> SieveServer {
        SieveServer::new(engine, Some(profile))
    }

    /// A server for an HTTP connection, whose requests name their profile.
    pub fn http(engine: Arc<Engine>) -> SieveServer {
        SieveServer::new(engine, None)
    }

    fn new(engine: Arc<Engine>, fixed_profile: Option<ProfileChoice>) -> SieveServer {
        SieveServer {
            engine,
            conn: Arc::new(Connection {
                fixed_profile,
                state: Mutex::new(ConnState::default()),
                routes: Mutex::default(),
                seen_lock: Mutex::new(()),
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, ConnState> {
        self.conn.state.locked()
    }

    /// The profile this request is served under. An HTTP request names its
    /// endpoint's choice, which the connection keeps for its change
    /// forwarder.
    fn profile_name(&self, extensions: &rmcp::model::Extensions) -> String {
        if self.conn.fixed_profile.is_none()
            && let Some(endpoint) = extensions
                .get::<http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<EndpointProfile>())
        {
            self.state().profile = Some(endpoint.0.clone());
        }
        self.current_profile()
    }

    /// The connection's profile now: its fixed one (stdio), else the last
    /// endpoint it was reached on (HTTP), else the active one.
    fn current_profile(&self) -> String {
        let choice = match &self.conn.fixed_profile {
            Some(fixed) => fixed.clone(),
            None => self
                .state()
                .profile
                .clone()
                .unwrap_or(ProfileChoice::Active),
        };
        choice.resolve(&self.engine)
    }

    fn active_profile(&self, name: &str) -> Result<Arc<ActiveProfile>, ErrorData> {
        self.engine
            .profile(name)
            .map_err(|e| ErrorData::internal_error(unusable_profile(name, &e), None))
    }

    /// The raw params of the request in `context`.
    fn raw_params(&self, context: &HostRequest) -> Value {
        match context.extensions.get() {
            Some(dispatch::RawParams(params)) => params.clone(),
            None => Value::Null,
        }
    }

    /// What narrows this request: the connection's concerns, plus for list
    /// requests the host's filters, plus per-request `_meta` concerns.
    fn narrowing(&self, context: &HostRequest, list: bool) -> Result<Narrowing, ErrorData> {
        if !list && context.meta.get(sieve_core::rules::META_CONCERNS).is_none() {
            // A call is narrowed by its connection's concerns alone.
            return Ok(Narrowing::default().concerns(&self.state().concerns));
        }
        let mut params = if list {
            self.raw_params(context)
        } else {
            Value::Null
        };
        if !params.is_object() {
            params = json!({});
        }
        // Filters shape lists; a call is judged by profile and concerns
        // (its raw params were not read, so only `_meta` could hold one).
        let read: &[&str] = if list {
            &[
                sieve_core::rules::META_FILTER,
                sieve_core::rules::META_CONCERNS,
            ]
        } else {
            &[sieve_core::rules::META_CONCERNS]
        };
        let meta: serde_json::Map<String, Value> = read
            .iter()
            .filter_map(|key| Some((key.to_string(), context.meta.get(*key)?.clone())))
            .collect();
        params["_meta"] = Value::Object(meta);
        let narrowing = Narrowing::from_params(&params)
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        Ok(narrowing.concerns(&self.state().concerns))
    }

    /// Refuses a request on a connection another caller opened: a
    /// session id is no credential, so a person's session serves only
    /// their own token.
    fn same_caller(&self, extensions: &rmcp::model::Extensions) -> Result<(), ErrorData> {
        if self.conn.fixed_profile.is_some() {
            return Ok(());
        }
        let subject = signed_in(extensions).map(|p| p.subject.clone());
        let mut state = self.state();
        match &state.caller {
            None => {
                state.caller = Some(subject);
                Ok(())
            }
            Some(first) if *first == subject => Ok(()),
            Some(_) => Err(ErrorData::invalid_request(
                "this session was opened by someone else; open a session of your own",
                None,
            )),
        }
    }

    /// The catalog, profile and narrowing a request is served with.
    fn view(&self, context: &HostRequest, list: bool) -> Result<View, ErrorData> {
        self.same_caller(&context.extensions)?;
        let name = self.profile_name(&context.extensions);
        let published = self.engine.published();
        Ok(View {
            config: published.config,
            catalog: published.catalog,
            forms: published.forms,
            profile: self.active_profile(&name)?,
            narrowing: self.narrowing(context, list)?,
            owner: signed_in(&context.extensions).map(|p| p.subject.clone()),
        })
    }

    /// Waits, at most `settings.startupWaitMs` after a server was added,
    /// while servers starting for the first time have not answered, so a
    /// host that lists right after connecting does not get a half-empty
    /// catalog; the rest reach it as `list_changed`. For lists only:
    /// `initialize` and calls never wait on a server.
    async fn started(&self) {
        let window = self.engine.config().settings.startup_wait_ms;
        self.engine
            .pool()
            .started(std::time::Duration::from_millis(window))
            .await;
    }

    /// The error for a `kind` the host named `name` that no catalog holds:
    /// when the name is of a server this profile shows that cannot answer
    /// now (still starting, or down since before it listed), what state
    /// that server is in and why; else that there is no such thing.
    fn not_found(&self, view: &View, kind: Kind, name: &str) -> ErrorData {
        let pool = self.engine.pool();
        let names = pool.names();
        let server = sieve_core::naming::server_of(
            name,
            &view.config.settings.separator,
            names.iter().map(String::as_str),
        );
        if let Some(server) = server
            && view.profile.rules.allows_server(server)
            && let Some(error) = pool.unavailable(server)
        {
            return error.into();
        }
        // In search mode the list holds the two search tools: the profile's
        // tools are found by searching.
        let shown_by = if kind == Kind::Tool && view.profile.rules.search_mode() {
            let find = sieve_core::search::search_tool_name(
                sieve_core::search::FIND_TOOLS,
                &view.config.settings.separator,
            );
            format!("{find} finds")
        } else {
            format!("{kind}s/list shows")
        };
        ErrorData::invalid_params(
            format!(
                "unknown {kind} {name:?}; {shown_by} the {kind}s of profile {:?}",
                view.profile.name
            ),
            None,
        )
    }

    /// Why each server the connection's profile shows cannot answer now,
    /// one sentence each: for a URI no server that is up serves.
    fn servers_not_up(&self) -> Vec<String> {
        let Ok(profile) = self.engine.profile(&self.current_profile()) else {
            return Vec::new();
        };
        let pool = self.engine.pool();
        pool.names()
            .iter()
            .filter(|server| profile.rules.allows_server(server))
            .filter_map(|server| pool.unavailable(server))
            .map(|error| error.to_string())
            .collect()
    }

    /// Refuses `p` when the profile hides it and enforces, or it is in
    /// quarantine.
    fn check_visible(&self, view: &View, p: &Primitive) -> Result<(), ErrorData> {
        match crate::engine::refused(&view.profile, p, Some(&view.narrowing)) {
            Some(error) => Err(error.into()),
            None => Ok(()),
        }
    }

    /// Tool `name` (exposed name or URI), if the profile lets it be
    /// called.
    fn callable_tool<'v>(&self, view: &'v View, name: &str) -> Result<&'v Primitive, ErrorData> {
        let tool = view
            .catalog
            .find_tool(name)
            .ok_or_else(|| self.not_found(view, Kind::Tool, name))?;
        self.check_visible(view, tool)?;
        Ok(tool)
    }

    /// The resource (or template) that serves `uri`. A URI no server lists
    /// goes to the one server that could serve it (for subscriptions, the
    /// one that supports them), judged by the profile like any resource.
    fn resource_for(
        &self,
        catalog: &Catalog,
        config: &sieve_core::Config,
        uri: &str,
        subscribe: bool,
    ) -> Result<Primitive, ErrorData> {
        let listed = catalog
            .find_uri(uri)
            .filter(|p| p.kind == Kind::Resource)
            .or_else(|| {
                catalog
                    .of_kind(Kind::ResourceTemplate)
                    .find(|t| template_matches(&t.uri, uri))
            });
        if let Some(listed) = listed {
            return Ok(listed.clone());
        }
        let servers = self.engine.pool().capable(|caps| {
            caps.resources
                .as_ref()
                .is_some_and(|r| !subscribe || r.subscribe == Some(true))
        });
        match servers.as_slice() {
            [server] => Ok(Primitive::unlisted_resource(
                server,
                uri,
                &config.settings.separator,
            )),
            [] => {
                // A server that is not up may be the one that serves it.
                let not_up = self.servers_not_up();
                let message = if not_up.is_empty() {
                    format!("no server offers resource {uri:?}")
                } else {
                    format!(
                        "no server that is up offers resource {uri:?}; {}",
                        not_up.join("; ")
                    )
                };
                Err(ErrorData::resource_not_found(
                    message,
                    Some(json!({"uri": uri})),
                ))
            }
            several => Err(ErrorData::resource_not_found(
                format!(
                    "no server lists resource {uri:?}, and {} could serve it ({}); the proxy cannot tell which",
                    several.len(),
                    several.join(", ")
                ),
                Some(json!({"uri": uri})),
            )),
        }
    }

    /// Applies concerns a host sent (`concerns/update`, `initialize`,
    /// `initialized`). Values must be among a declared concern's values.
    fn set_concerns(&self, value: &Value, field: &str) -> Result<(), ErrorData> {
        let concerns = concern_map(value, field)
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        let config = self.engine.config();
        for (name, value) in &concerns {
            config
                .check_concern_value(name, value)
                .map_err(|e| ErrorData::invalid_params(format!("{field}.{name}: {e}"), None))?;
        }
        self.state().concerns = concerns;
        Ok(())
    }
}

/// The person an HTTP request's token signed in, if it was one.
fn signed_in(extensions: &rmcp::model::Extensions) -> Option<&crate::identity::Person> {
    extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<crate::identity::SignedIn>())
        .map(|signed| signed.0.as_ref())
}

fn convert<T: DeserializeOwned>(value: impl serde::Serialize, what: &str) -> Result<T, ErrorData> {
    serde_json::to_value(value)
        .and_then(serde_json::from_value)
        .map_err(|e| {
            ErrorData::internal_error(format!("the upstream's {what} is not valid MCP: {e}"), None)
        })
}

fn to_params(value: impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap_or_else(|_| json!({}))
}

/// Whether `uri` is an expansion of the RFC 6570 `template` (variables match
/// any non-empty text; enough to route a read to the server that offers it).
fn template_matches(template: &str, uri: &str) -> bool {
    let mut literals = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        literals.push(&rest[..open]);
        match rest[open..].find('}') {
            Some(close) => rest = &rest[open + close + 1..],
            None => return false,
        }
    }
    literals.push(rest);
    if literals.len() == 1 {
        return template == uri;
    }
    let (first, last) = (literals[0], literals[literals.len() - 1]);
    if !uri.starts_with(first) || !uri.ends_with(last) || uri.len() < first.len() + last.len() {
        return false;
    }
    let mut middle = &uri[first.len()..uri.len() - last.len()];
    for literal in &literals[1..literals.len() - 1] {
        // Each variable takes at least one character before the next literal.
        match middle.get(1..).and_then(|m| m.find(literal)) {
            Some(at) => middle = &middle[1 + at + literal.len()..],
            None => return false,
        }
    }
    !middle.is_empty()
}

/// The entry points rmcp calls; each hands the request to the file of its
/// kind (see the module's layout). Each handler's future is boxed: rmcp
/// moves every request's future into a task of its own, and unboxed it
/// would be as large as the largest handler's, kilobytes copied per
/// request.
impl SieveServer {
    /// What the proxy says of itself: its name, capabilities and
    /// instructions.
    pub(crate) fn get_info(&self) -> ServerConfig {
        info::server_info(&self.engine.config())
    }

    /// The protocol revisions the proxy speaks.
    pub(crate) fn supported_protocol_versions(
        &self,
    ) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
    }

    /// The answer to `initialize` before the connection's own part: the
    /// revision the host asked for when the proxy speaks it and it still
    /// has `initialize`, else the newest that does.
    pub(crate) fn negotiate_initialize(
        &self,
        request: &InitializeRequestParams,
    ) -> Result<InitializeResult, ErrorData> {
        let mut info = self.get_info();
        let known = ProtocolVersion::KNOWN_VERSIONS;
        let asked = &request.protocol_version;
        if asked.has_initialize() && known.contains(asked) {
            info.protocol_version = asked.clone();
        } else if !info.protocol_version.has_initialize() {
            info.protocol_version = known
                .iter()
                .filter(|version| version.has_initialize())
                .max_by(|a, b| a.as_str().cmp(b.as_str()))
                .cloned()
                .ok_or_else(|| ErrorData::unsupported_protocol_version(asked.clone(), known))?;
        }
        Ok(info)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_their_expansions() {
        assert!(template_matches(
            "demo://files/{path}",
            "demo://files/docs/readme.md"
        ));
        assert!(template_matches("demo://issues/{id}", "demo://issues/7"));
        assert!(!template_matches("demo://issues/{id}", "demo://issues/"));
        assert!(!template_matches("demo://issues/{id}", "demo://users/7"));
        assert!(template_matches("x://{a}/b/{c}.json", "x://1/b/2.json"));
        assert!(!template_matches("x://{a}/b/{c}.json", "x://1/c/2.json"));
        assert!(template_matches("file:///plain", "file:///plain"));
        assert!(!template_matches("x://{broken", "x://anything"));
    }
}
