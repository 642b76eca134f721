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
//! params come from a [`RawLog`] (stdio) or the raw body the HTTP layer
//! keeps ([`RawBody`]); `_meta` survives in the request context.

#![allow(deprecated)] // logging and subscriptions: deprecated in 2026-07-28, live in 2025-11-25

use crate::engine::{ActiveProfile, Change, Engine, HostForm, HostForms, call_outcome};
use crate::hosts::Flight;
use crate::hosts::HostId;
use crate::relay;
use crate::tap::{INITIALIZED, LEGACY_PREFIX, RawLog, id_key};
use crate::upstream::{call_error, mark_complete};
use rmcp::model::ClientResult;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams,
    CompleteResult, CustomRequest, CustomResult, ErrorCode, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, InitializeRequestParams, InitializeResult,
    JsonObject, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ServerCapabilities, ServerConfig, ServerResult,
    SetLevelRequestParams, SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::model::{CancelTaskParams, GetTaskParams, GetTaskResult, UpdateTaskParams};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use sieve_core::labels::{TAG_DESTRUCTIVE, TAG_IDEMPOTENT, TAG_OPEN_WORLD, TAG_READ_ONLY};
use sieve_core::rules::concern_map;
use sieve_core::tasks::{EntryKind, TaskQuery, TaskRecord};
use sieve_core::{Catalog, Kind, Narrowing, Primitive};
use std::collections::{BTreeMap, hash_map::DefaultHasher};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The ttl the proxy asks for when it starts a task a host did not ask for.
const DEFAULT_TASK_TTL_MS: i64 = 300_000;

/// How long a request waits for servers that are still connecting.
const READY_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// The raw JSON body of an HTTP request, kept by the HTTP layer.
#[derive(Debug, Clone)]
pub struct RawBody(pub Arc<Value>);

/// The profile of the HTTP endpoint a request came in on.
#[derive(Debug, Clone)]
pub struct EndpointProfile(pub String);

/// Serves one host connection.
#[derive(Clone)]
pub struct SieveServer {
    engine: Arc<Engine>,
    conn: Arc<Connection>,
}

struct Connection {
    /// The profile of a stdio proxy; HTTP requests carry theirs.
    fixed_profile: Option<String>,
    /// Raw request params seen on stdio.
    raw: Option<RawLog>,
    state: Mutex<ConnState>,
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

/// A listener's resource updates, set up before its acknowledgement.
type Following = (
    crate::hosts::Listening,
    tokio::sync::mpsc::UnboundedReceiver<String>,
);

#[derive(Default)]
struct ConnState {
    pending_listen: Option<PendingListen>,
    pending_follow: Option<Following>,
    profile: Option<String>,
    concerns: BTreeMap<String, String>,
    host: Option<HostId>,
    seen: Option<Fingerprints>,
}

/// Hashes of what a connection sees, per kind of list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Fingerprints {
    tools: u64,
    prompts: u64,
    resources: u64,
}

/// Keys of a host's `_meta` that belong to its own connection, not to the
/// request it makes: never forwarded upstream.
fn is_connection_meta(key: &str) -> bool {
    key == "progressToken" || key.starts_with("io.modelcontextprotocol/")
}

impl SieveServer {
    /// A server for one stdio host, on `profile`, with raw params from `raw`.
    pub fn stdio(engine: Arc<Engine>, profile: &str, raw: RawLog) -> SieveServer {
        SieveServer::new(engine, Some(profile.to_string()), Some(raw))
    }

    /// A server for HTTP, whose requests name their profile.
    pub fn http(engine: Arc<Engine>) -> SieveServer {
        SieveServer::new(engine, None, None)
    }

    fn new(engine: Arc<Engine>, fixed_profile: Option<String>, raw: Option<RawLog>) -> SieveServer {
        SieveServer {
            engine,
            conn: Arc::new(Connection {
                fixed_profile,
                raw,
                state: Mutex::new(ConnState::default()),
                seen_lock: Mutex::new(()),
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, ConnState> {
        self.conn.state.lock().expect("connection lock")
    }

    /// The profile this request is served under.
    fn profile_name(&self, extensions: &rmcp::model::Extensions) -> String {
        if let Some(fixed) = &self.conn.fixed_profile {
            return fixed.clone();
        }
        let from_endpoint = extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<EndpointProfile>())
            .map(|p| p.0.clone());
        let mut state = self.state();
        match from_endpoint {
            Some(name) => {
                state.profile = Some(name.clone());
                name
            }
            None => state
                .profile
                .clone()
                .unwrap_or_else(|| sieve_core::profile::DEFAULT_PROFILE.to_string()),
        }
    }

    fn active_profile(&self, name: &str) -> Result<Arc<ActiveProfile>, ErrorData> {
        self.engine.profile(name).map_err(|e| {
            ErrorData::internal_error(format!("profile {name:?} cannot be used: {e}"), None)
        })
    }

    /// The raw params of the request in `context`.
    fn raw_params(&self, context: &RequestContext<RoleServer>) -> Value {
        let id = id_key(&serde_json::to_value(&context.id).unwrap_or_default());
        if let Some(raw) = &self.conn.raw {
            return raw.take(&id).unwrap_or(Value::Null);
        }
        let body = context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<RawBody>());
        let Some(RawBody(body)) = body else {
            return Value::Null;
        };
        let messages: Vec<&Value> = match body.as_ref() {
            Value::Array(batch) => batch.iter().collect(),
            single => vec![single],
        };
        messages
            .into_iter()
            .find(|m| m.get("id").map(id_key).as_deref() == Some(id.as_str()))
            .and_then(|m| m.get("params").cloned())
            .unwrap_or(Value::Null)
    }

    /// What narrows this request: the connection's concerns, plus for list
    /// requests the host's filters, plus per-request `_meta` concerns.
    fn narrowing(
        &self,
        context: &RequestContext<RoleServer>,
        list: bool,
    ) -> Result<Narrowing, ErrorData> {
        let mut params = if list {
            self.raw_params(context)
        } else {
            Value::Null
        };
        if !params.is_object() {
            params = json!({});
        }
        params["_meta"] = serde_json::to_value(&context.meta).unwrap_or_default();
        if !list {
            // Filters shape lists; a call is judged by profile and concerns
            // (its raw params were not read, so only `_meta` can hold one).
            if let Some(meta) = params["_meta"].as_object_mut() {
                meta.remove(sieve_core::rules::META_FILTER);
            }
        }
        let narrowing =
            Narrowing::from_params(&params).map_err(|e| ErrorData::invalid_params(e, None))?;
        Ok(narrowing.concerns(&self.state().concerns))
    }

    /// The catalog, profile and narrowing a request is served with.
    fn view(&self, context: &RequestContext<RoleServer>, list: bool) -> Result<View, ErrorData> {
        let name = self.profile_name(&context.extensions);
        let (catalog, forms) = self.engine.published();
        Ok(View {
            catalog,
            forms,
            profile: self.active_profile(&name)?,
            narrowing: self.narrowing(context, list)?,
        })
    }

    /// Waits (a bounded time) until every server has answered once, so a
    /// host that lists right after connecting does not get a half-empty
    /// catalog; later changes reach it as `list_changed`.
    async fn ready(&self) {
        self.engine.pool().settled(READY_WAIT).await;
    }

    /// What this connection sees now (profile and connection concerns).
    fn fingerprints(&self) -> Option<Fingerprints> {
        let (name, concerns) = {
            let state = self.state();
            let name = self
                .conn
                .fixed_profile
                .clone()
                .or_else(|| state.profile.clone())
                .unwrap_or_else(|| sieve_core::profile::DEFAULT_PROFILE.to_string());
            (name, state.concerns.clone())
        };
        let profile = self.engine.profile(&name).ok()?;
        let narrowing = Narrowing::default().concerns(&concerns);
        let catalog = self.engine.catalog();
        let hash = |kinds: &[Kind]| {
            let mut hasher = DefaultHasher::new();
            for p in catalog.primitives() {
                if kinds.contains(&p.kind) && profile.rules.is_visible(p, Some(&narrowing)) {
                    p.host_definition().to_string().hash(&mut hasher);
                }
            }
            hasher.finish()
        };
        Some(Fingerprints {
            tools: hash(&[Kind::Tool]),
            prompts: hash(&[Kind::Prompt]),
            resources: hash(&[Kind::Resource, Kind::ResourceTemplate]),
        })
    }

    /// The kinds whose visible set changed since the last call.
    fn changed_kinds(&self) -> Vec<Kind> {
        let _seen = self.conn.seen_lock.lock().expect("seen lock");
        let Some(now) = self.fingerprints() else {
            return Vec::new();
        };
        let before = self.state().seen.replace(now);
        let Some(before) = before else {
            return Vec::new();
        };
        let mut kinds = Vec::new();
        if before.tools != now.tools {
            kinds.push(Kind::Tool);
        }
        if before.prompts != now.prompts {
            kinds.push(Kind::Prompt);
        }
        if before.resources != now.resources {
            kinds.push(Kind::Resource);
        }
        kinds
    }

    /// The change stream and baseline taken at `initialize` or before a
    /// listen acknowledgement (or taken now, if there are none); the
    /// baseline becomes what this connection has seen.
    fn take_pending_changes(&self) -> tokio::sync::broadcast::Receiver<Change> {
        let pending = self.state().pending_listen.take();
        match pending {
            Some((baseline, changes)) => {
                if self.state().seen.is_none() {
                    self.state().seen = baseline;
                }
                changes
            }
            None => {
                let changes = self.engine.subscribe();
                self.mark_seen();
                changes
            }
        }
    }

    /// Records the current view as seen, so later changes are diffed
    /// against it.
    fn mark_seen(&self) {
        let _seen = self.conn.seen_lock.lock().expect("seen lock");
        if let Some(now) = self.fingerprints() {
            self.state().seen = Some(now);
        }
    }

    /// Forwards a request to `server` on behalf of this host, cancelling it
    /// upstream if the host cancels, and routing its progress back.
    async fn forward(
        &self,
        server: &str,
        method: &str,
        mut params: Value,
        context: &RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        let meta: Map<String, Value> = context
            .meta
            .iter()
            .filter(|(k, _)| !is_connection_meta(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if let Value::Object(object) = &mut params {
            object.remove("_meta");
            if !meta.is_empty() {
                object.insert("_meta".into(), Value::Object(meta));
            }
        }
        let handle = self.engine.pool().send(server, method, params).await?;
        // A 2026-07-28 host takes questions only as `input_required`
        // results, so the questions of its calls come to this handler.
        let modern_host = context
            .protocol_version()
            .is_some_and(|v| !v.has_initialize());
        let (bridge, asked) = tokio::sync::mpsc::unbounded_channel();
        let tracked = self.engine.hosts().track_call(
            &context.peer,
            server,
            &handle.progress_token,
            context.meta.get_progress_token(),
            modern_host.then_some(bridge),
        );
        let flight = Flight {
            server: server.to_string(),
            id: handle.id.clone(),
            peer: handle.peer.clone(),
            upstream: tokio::spawn(handle.await_response()),
            asked,
            answers: Default::default(),
            tracked,
        };
        self.drive(flight, method, context).await
    }

    /// Waits for a call's answer. A question the upstream asks meanwhile
    /// (for a 2026-07-28 host) parks the call and answers the host with
    /// `input_required`; the host's retry resumes it (see `call_tool`).
    async fn drive(
        &self,
        mut flight: Flight,
        method: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        let limit = Duration::from_secs(self.engine.config().settings.call_timeout_seconds);
        let server = flight.server.clone();
        let cancel = |flight: &Flight, reason: &'static str| {
            let (peer, id) = (flight.peer.clone(), flight.id.clone());
            flight.upstream.abort();
            async move {
                let cancel: Result<rmcp::model::ClientNotification, _> =
                    serde_json::from_value(json!({
                        "method": "notifications/cancelled",
                        "params": {"requestId": id, "reason": reason}
                    }));
                if let Ok(cancel) = cancel {
                    let _ = peer.send_notification(cancel).await;
                }
            }
        };
        tokio::select! {
            joined = &mut flight.upstream => match joined {
                Ok(result) => result.map(mark_complete).map_err(|e| call_error(&server, e)),
                Err(_) => Err(ErrorData::internal_error(format!("the call to server {server:?} ended abruptly"), None)),
            },
            Some(first) = flight.asked.recv() => {
                let mut requests = rmcp::model::InputRequests::new();
                let mut next = Some(first);
                while let Some(asked) = next {
                    let key = format!("sieve-{}", flight.answers.len() + 1);
                    match serde_json::from_value::<rmcp::model::InputRequest>(asked.request.clone()) {
                        Ok(request) => {
                            requests.insert(key.clone(), request);
                            flight.answers.insert(key, asked.answer);
                        }
                        Err(error) => {
                            let _ = asked.answer.send(Err(ErrorData::internal_error(
                                format!("the host cannot be asked this: {error}"),
                                None,
                            )));
                        }
                    }
                    next = flight.asked.try_recv().ok();
                }
                let token = crate::ledger::Ledger::new_id().replacen("st-", "rs-", 1);
                self.engine.hosts().park(token.clone(), flight);
                Ok(ServerResult::InputRequiredResult(rmcp::model::InputRequiredResult::new(
                    Some(requests),
                    Some(token),
                )))
            }
            () = tokio::time::sleep(limit) => {
                cancel(&flight, "the proxy's call timeout passed").await;
                Err(ErrorData::internal_error(
                    format!("server {server:?} did not answer {method} within {}s (settings.callTimeoutSeconds); the call was cancelled", limit.as_secs()),
                    Some(json!({"server": server})),
                ))
            }
            () = context.ct.cancelled() => {
                cancel(&flight, "cancelled by the host").await;
                Err(ErrorData::internal_error("cancelled by the host", None))
            }
        }
    }

    /// Subscribes upstream to the resources a 2026-07-28 listener asks to
    /// follow and routes their updates to it. Done before rmcp sends the
    /// listen acknowledgement (see `accepted_subscription_filter`): once the
    /// host has it, an update must not be missed. Which of them the host may
    /// see is decided in `listen`, under the request's profile.
    async fn follow_resources(&self, uris: Vec<String>) -> Following {
        self.ready().await;
        let catalog = self.engine.catalog();
        let mut followed = std::collections::HashSet::new();
        for uri in uris {
            let Ok(resource) = self.resource_for(&catalog, &uri, true) else {
                continue;
            };
            let subscribed = self
                .engine
                .pool()
                .call(
                    &resource.server,
                    "resources/subscribe",
                    json!({ "uri": uri }),
                )
                .await;
            if subscribed.is_ok() {
                followed.insert(uri);
            }
        }
        self.engine.hosts().listen(followed)
    }

    /// The 2025-11-25 task requests the wire adapter renamed (see
    /// [`crate::tap::rename_legacy_task_request`]), answered in that
    /// revision's shapes.
    async fn legacy_task_request(
        &self,
        method: &str,
        params: Value,
        context: &RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let task_id = || {
            params
                .get("taskId")
                .and_then(Value::as_str)
                .map(String::from)
                .ok_or_else(|| ErrorData::invalid_params("params.taskId is required", None))
        };
        match &method[LEGACY_PREFIX.len()..] {
            "tools/call" => self.legacy_call(params.clone(), context).await,
            "tasks/get" => {
                let mut record = self.visible_task(&task_id()?, context).await?;
                if record.kind == EntryKind::Task && !record.status.is_terminal() {
                    record = relay::refresh(&self.engine, &record)
                        .await
                        .unwrap_or(record);
                }
                Ok(CustomResult(record.to_wire()))
            }
            "tasks/result" => {
                let mut record = self.visible_task(&task_id()?, context).await?;
                if !record.status.is_terminal() {
                    // tasks/result waits for the end, as 2025-11-25 says.
                    record = relay::follow(&self.engine, &record, &context.ct)
                        .await
                        .ok_or_else(|| {
                            ErrorData::internal_error("cancelled before the task ended", None)
                        })?;
                }
                let result = relay::outcome(&record)?;
                Ok(CustomResult(
                    serde_json::to_value(result).unwrap_or_default(),
                ))
            }
            "tasks/cancel" => {
                let record = self.visible_task(&task_id()?, context).await?;
                relay::cancel(&self.engine, &record).await?;
                let record = self
                    .engine
                    .ledger()?
                    .get(&record.id)
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
                    .unwrap_or(record);
                Ok(CustomResult(record.to_wire()))
            }
            other => Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("method {other:?} is not supported by the proxy"),
                None,
            )),
        }
    }

    /// A 2025-11-25 task-augmented `tools/call`: the upstream's own task
    /// (either generation) under a Sieve id, as `{"task": {...}}`; a tool
    /// that cannot run as a task answers with its plain result.
    async fn legacy_call(
        &self,
        params: Value,
        context: &RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        self.ready().await;
        let view = self.view(context, false)?;
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let tool = view.catalog.find_tool(name).ok_or_else(|| {
            ErrorData::invalid_params(
                format!(
                    "unknown tool {name:?}; tools/list shows the tools of profile {:?}",
                    view.profile.name
                ),
                None,
            )
        })?;
        self.check_visible(&view, tool)?;
        let (server, exposed) = (tool.server.clone(), tool.exposed_name.clone());
        let upstream = json!({"name": tool.name, "arguments": params.get("arguments").cloned().unwrap_or(json!({}))});
        let task = params.get("task").cloned().unwrap_or(json!({}));
        if !self.engine.pool().modern_tasks(&server)
            && relay::task_support(&tool.definition) != "forbidden"
        {
            let started = relay::start_legacy(
                &self.engine,
                &server,
                &exposed,
                &upstream,
                &view.profile.name,
                task,
            )
            .await?;
            return Ok(CustomResult(match started {
                relay::Started::Task(record) => {
                    self.engine
                        .hosts()
                        .watch_task(&record.id, &context.peer, true);
                    relay::spawn_follow(self.engine.clone(), (*record).clone());
                    json!({"task": record.to_wire()})
                }
                relay::Started::Done(result) => result,
            }));
        }
        let outcome = self
            .forward(&server, "tools/call", upstream.clone(), context)
            .await;
        if let Some(entry) = call_outcome(&outcome, context.ct.is_cancelled()) {
            self.engine.record_call(
                &server,
                &exposed,
                &upstream,
                &view.profile.name,
                entry,
                None,
            );
        }
        match outcome? {
            ServerResult::CreateTaskResult(created) => {
                let record = relay::record_task(
                    &self.engine,
                    &server,
                    &exposed,
                    &upstream,
                    &view.profile.name,
                    &created.task,
                )?;
                self.engine
                    .hosts()
                    .watch_task(&record.id, &context.peer, true);
                relay::spawn_follow(self.engine.clone(), record.clone());
                Ok(CustomResult(json!({"task": record.to_wire()})))
            }
            other => Ok(CustomResult(
                serde_json::to_value(other).unwrap_or_default(),
            )),
        }
    }

    /// Ledger entry `id`, if this caller's profile shows its tool.
    async fn visible_task(
        &self,
        id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<TaskRecord, ErrorData> {
        self.ready().await;
        let view = self.view(context, false)?;
        let record = self
            .engine
            .ledger()?
            .get(id)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        match record {
            Some(record)
                if Engine::task_visible(
                    &view.catalog,
                    &view.profile,
                    Some(&view.narrowing),
                    &record,
                ) =>
            {
                Ok(record)
            }
            // Hidden and unknown look the same: a hidden task is not there.
            _ => Err(ErrorData::invalid_params(
                format!("there is no task {id:?}; tasks/list shows them"),
                None,
            )),
        }
    }

    /// Refuses `p` when the profile hides it and enforces.
    fn check_visible(&self, view: &View, p: &Primitive) -> Result<(), ErrorData> {
        let reasons = view.profile.rules.explain(p, Some(&view.narrowing));
        if reasons.is_empty() || !view.profile.rules.enforce() {
            return Ok(());
        }
        let reasons: Vec<String> = reasons.iter().map(ToString::to_string).collect();
        Err(ErrorData::new(
            ErrorCode::INVALID_PARAMS,
            format!(
                "{} {:?} is hidden by profile {:?} ({}), so the proxy refuses it",
                p.kind,
                p.exposed_name,
                view.profile.name,
                reasons.join("; ")
            ),
            Some(json!({"profile": view.profile.name, "hiddenBy": reasons})),
        ))
    }

    /// The visible primitives of some kinds, as typed rmcp values.
    fn list<T>(&self, view: &View, kind: Kind, pick: impl Fn(&HostForm) -> Option<&T>) -> Vec<T>
    where
        T: Clone,
    {
        view.catalog
            .primitives()
            .iter()
            .zip(&view.forms.items)
            .filter(|(p, _)| {
                p.kind == kind && view.profile.rules.is_visible(p, Some(&view.narrowing))
            })
            .filter_map(|(_, form)| form.as_ref().and_then(&pick).cloned())
            .collect()
    }

    /// The resource (or template) that serves `uri`. A URI no server lists
    /// goes to the one server that could serve it (for subscriptions, the
    /// one that supports them), judged by the profile like any resource.
    fn resource_for(
        &self,
        catalog: &Catalog,
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
                &self.engine.config().settings.separator,
            )),
            [] => Err(ErrorData::resource_not_found(
                format!("no server offers resource {uri:?}"),
                Some(json!({"uri": uri})),
            )),
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

    fn experimental(&self) -> BTreeMap<String, JsonObject> {
        let config = self.engine.config();
        let object = |value: Value| match value {
            Value::Object(object) => object,
            _ => JsonObject::new(),
        };
        BTreeMap::from([
            (
                "filtering".to_string(),
                object(json!({"groups": {"listChanged": true}, "tags": {"listChanged": true}})),
            ),
            (
                "concerns".to_string(),
                object(json!({"definitions": config.concerns, "update": true})),
            ),
            (
                "tasksListFilter".to_string(),
                object(sieve_core::tasks::supported_filters()),
            ),
        ])
    }

    /// Applies concerns a host sent (`concerns/update`, `initialize`,
    /// `initialized`). Values must be among a declared concern's values.
    fn set_concerns(&self, value: &Value, field: &str) -> Result<(), ErrorData> {
        let concerns = concern_map(value, field).map_err(|e| ErrorData::invalid_params(e, None))?;
        let config = self.engine.config();
        for (name, value) in &concerns {
            config
                .check_concern_value(name, value)
                .map_err(|e| ErrorData::invalid_params(format!("{field}.{name}: {e}"), None))?;
        }
        self.state().concerns = concerns;
        Ok(())
    }

    /// Sends `list_changed` for each changed kind through `notify`.
    async fn announce<F, Fut>(&self, notify: F) -> bool
    where
        F: Fn(Kind) -> Fut,
        Fut: std::future::Future<Output = bool>,
    {
        for kind in self.changed_kinds() {
            if !notify(kind).await {
                return false;
            }
        }
        true
    }

    /// Keeps a 2025-11-25 connection told about changes until it closes.
    fn forward_changes(&self, peer: rmcp::service::Peer<RoleServer>) {
        let server = self.clone();
        let mut changes = self.take_pending_changes();
        tokio::spawn(async move {
            loop {
                match changes.recv().await {
                    Ok(Change::Status(_)) => continue,
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                }
                if peer.is_transport_closed() {
                    break;
                }
                let alive = server
                    .announce(|kind| {
                        let peer = peer.clone();
                        async move { notify_peer(&peer, kind).await }
                    })
                    .await;
                if !alive {
                    break;
                }
            }
            let host = server.state().host.take();
            if let Some(host) = host {
                server.engine.hosts().unregister(host);
            }
        });
    }
}

async fn notify_peer(peer: &rmcp::service::Peer<RoleServer>, kind: Kind) -> bool {
    let sent = match kind {
        Kind::Tool => peer.notify_tool_list_changed().await,
        Kind::Prompt => peer.notify_prompt_list_changed().await,
        _ => peer.notify_resource_list_changed().await,
    };
    sent.is_ok()
}

struct View {
    catalog: Arc<Catalog>,
    forms: Arc<HostForms>,
    profile: Arc<ActiveProfile>,
    narrowing: Narrowing,
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
pub fn template_matches(template: &str, uri: &str) -> bool {
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

fn tag_description(tag: &str) -> Option<&'static str> {
    match tag {
        TAG_READ_ONLY => Some("Does not change anything (readOnlyHint)"),
        TAG_DESTRUCTIVE => Some("May destroy or overwrite data (destructiveHint, or no hint)"),
        TAG_IDEMPOTENT => Some("Repeating a call has no further effect (idempotentHint)"),
        TAG_OPEN_WORLD => Some("Reaches outside systems (openWorldHint, or no hint)"),
        _ => None,
    }
}

impl ServerHandler for SieveServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_experimental_with(self.experimental())
            .enable_tools()
            .enable_tool_list_changed()
            .enable_prompts()
            .enable_prompts_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_resources_subscribe()
            .enable_completions()
            .enable_logging()
            .enable_tasks()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("mcp-sieve", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "MCP Sieve: the tools, resources and prompts of several MCP servers, \
                 named <server>__<name>, filtered by the user's profile.",
            )
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        self.profile_name(&context.extensions);
        let raw = self.raw_params(&context);
        if let Some(concerns) = raw.get("concerns") {
            self.set_concerns(concerns, "params.concerns")?;
        }
        context.peer.set_peer_info(request.clone());
        self.ready().await;
        // The baseline and the change stream are taken now: rmcp runs
        // handlers concurrently, so the host's first requests may be
        // handled before `initialized` is.
        {
            let _seen = self.conn.seen_lock.lock().expect("seen lock");
            let changes = self.engine.subscribe();
            let baseline = self.fingerprints();
            let mut state = self.state();
            state.seen = baseline;
            state.pending_listen = Some((baseline, changes));
        }
        self.negotiate_initialize(&request)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // Concerns in `initialized` (the concern proposal's option A).
        let raw = match &self.conn.raw {
            Some(raw) => raw.take(INITIALIZED),
            None => context
                .extensions
                .get::<http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<RawBody>())
                .and_then(|body| body.0.get("params").cloned()),
        };
        if let Some(concerns) = raw.as_ref().and_then(|p| p.get("concerns"))
            && let Err(error) = self.set_concerns(concerns, "params.concerns")
        {
            tracing::warn!("ignoring the host's concerns: {}", error.message);
        }
        let host = self.engine.hosts().register(context.peer.clone());
        self.state().host = Some(host);
        self.forward_changes(context.peer);
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let changes = self.engine.subscribe();
        let baseline = self.fingerprints();
        self.state().pending_listen = Some((baseline, changes));
        let uris = requested.resource_subscriptions.clone().unwrap_or_default();
        // This hook is synchronous, and the acknowledgement follows it: the
        // upstream subscriptions are made here, on a runtime that can wait.
        let can_wait = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        if !uris.is_empty() && can_wait {
            let following = tokio::task::block_in_place(|| {
                tokio::runtime::Handle::current().block_on(self.follow_resources(uris))
            });
            self.state().pending_follow = Some(following);
        }
        Some(requested.clone())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let mut changes = self.take_pending_changes();
        let sink = context.sink().clone();
        let pending = self.state().pending_follow.take();
        let uris = context
            .accepted()
            .resource_subscriptions
            .clone()
            .unwrap_or_default();
        let (_following, mut updates) = match pending {
            Some(following) => following,
            None => self.follow_resources(uris.clone()).await,
        };
        // The resources this host's profile shows.
        let visible: std::collections::HashSet<String> =
            match self.view(context.request_context(), false) {
                Ok(view) => uris
                    .into_iter()
                    .filter(|uri| {
                        self.resource_for(&view.catalog, uri, true)
                            .is_ok_and(|r| self.check_visible(&view, &r).is_ok())
                    })
                    .collect(),
                Err(_) => Default::default(),
            };
        if self.conn.fixed_profile.is_none() {
            // Over HTTP the profile comes with the request, which the
            // acknowledgement step did not see: the baseline is taken
            // again under the right profile, and anything that changed
            // meanwhile is announced rather than missed.
            self.profile_name(&context.request_context().extensions);
            self.mark_seen();
            if !changes.is_empty() {
                let _ = sink.notify_tool_list_changed().await;
                let _ = sink.notify_prompt_list_changed().await;
                let _ = sink.notify_resource_list_changed().await;
            }
        }
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                Some(uri) = updates.recv() => {
                    if visible.contains(&uri) {
                        let _ = sink.notify_resource_updated(uri).await;
                    }
                    continue;
                }
                change = changes.recv() => match change {
                    Ok(Change::Status(_)) => continue,
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return Ok(()),
                },
            }
            for kind in self.changed_kinds() {
                // A refusal only means the host did not ask for this kind.
                let _ = match kind {
                    Kind::Tool => sink.notify_tool_list_changed().await,
                    Kind::Prompt => sink.notify_prompt_list_changed().await,
                    _ => sink.notify_resource_list_changed().await,
                };
            }
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.ready().await;
        let view = self.view(&context, true)?;
        let tools = self.list(&view, Kind::Tool, |f| match f {
            HostForm::Tool(t) => Some(t),
            _ => None,
        });
        let mut result = ListToolsResult::with_all_items(tools);
        // What a profile shows is this user's: never cache it for others.
        result.cache_scope = Some(CacheScope::Private);
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.ready().await;
        let view = self.view(&context, false)?;
        let tool = view.catalog.find_tool(&request.name).ok_or_else(|| {
            ErrorData::invalid_params(
                format!(
                    "unknown tool {:?}; tools/list shows the tools of profile {:?}",
                    request.name, view.profile.name
                ),
                None,
            )
        })?;
        self.check_visible(&view, tool)?;
        if let Some(mut flight) = request
            .request_state
            .as_deref()
            .and_then(|token| self.engine.hosts().resume(token))
        {
            // The host answers the questions of a call the proxy parked.
            for (key, value) in request.input_responses.clone().unwrap_or_default() {
                if let Some(answer) = flight.answers.remove(&key) {
                    let _ =
                        answer.send(serde_json::from_value::<ClientResult>(value).map_err(|e| {
                            ErrorData::invalid_params(format!("inputResponses.{key}: {e}"), None)
                        }));
                }
            }
            return match self.drive(flight, "tools/call", &context).await? {
                ServerResult::InputRequiredResult(input) => {
                    Ok(CallToolResponse::InputRequired(input))
                }
                other => Ok(CallToolResponse::Complete(convert(
                    other,
                    "tools/call result",
                )?)),
            };
        }
        let mut params = to_params(&request);
        params["name"] = Value::String(tool.name.clone());
        if let Value::Object(object) = &mut params {
            object.remove("_meta");
        }
        let (server, exposed) = (tool.server.clone(), tool.exposed_name.clone());
        let host_takes_tasks = context
            .client_capabilities()
            .is_some_and(|caps| caps.supports_tasks());
        if relay::task_support(&tool.definition) == "required"
            && !self.engine.pool().modern_tasks(&server)
        {
            // A 2025-11-25 server runs this tool only as a task: the proxy
            // asks for one and relays it or waits for it.
            let started = relay::start_legacy(
                &self.engine,
                &server,
                &exposed,
                &params,
                &view.profile.name,
                json!({"ttl": DEFAULT_TASK_TTL_MS}),
            )
            .await?;
            return match started {
                relay::Started::Task(record) if host_takes_tasks => {
                    self.engine
                        .hosts()
                        .watch_task(&record.id, &context.peer, false);
                    relay::spawn_follow(self.engine.clone(), (*record).clone());
                    Ok(CallToolResponse::Task(relay::host_task(&record)))
                }
                relay::Started::Task(record) => Ok(CallToolResponse::Complete(
                    relay::finish(&self.engine, &record, &context.ct).await?,
                )),
                relay::Started::Done(result) => {
                    let mut result: CallToolResult = convert(result, "tools/call result")?;
                    result
                        .result_type
                        .get_or_insert(rmcp::model::ResultType::COMPLETE);
                    Ok(CallToolResponse::Complete(result))
                }
            };
        }
        let outcome = self
            .forward(&server, "tools/call", params.clone(), &context)
            .await;
        // A call that failed or was cut off goes to the ledger, for retry.
        if let Some(entry) = call_outcome(&outcome, context.ct.is_cancelled()) {
            self.engine
                .record_call(&server, &exposed, &params, &view.profile.name, entry, None);
        }
        match outcome? {
            ServerResult::CallToolResult(result) => Ok(CallToolResponse::Complete(result)),
            ServerResult::CreateTaskResult(created) => {
                let record = relay::record_task(
                    &self.engine,
                    &server,
                    &exposed,
                    &params,
                    &view.profile.name,
                    &created.task,
                )?;
                if host_takes_tasks {
                    self.engine
                        .hosts()
                        .watch_task(&record.id, &context.peer, false);
                    relay::spawn_follow(self.engine.clone(), record.clone());
                    Ok(CallToolResponse::Task(relay::host_task(&record)))
                } else {
                    // The host cannot poll a task: the proxy does, and
                    // answers the call with the task's result.
                    let result = relay::finish(&self.engine, &record, &context.ct).await?;
                    Ok(CallToolResponse::Complete(result))
                }
            }
            ServerResult::InputRequiredResult(input) => Ok(CallToolResponse::InputRequired(input)),
            other => Ok(CallToolResponse::Complete(convert::<CallToolResult>(
                other,
                "tools/call result",
            )?)),
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.ready().await;
        let view = self.view(&context, true)?;
        let prompts = self.list(&view, Kind::Prompt, |f| match f {
            HostForm::Prompt(p) => Some(p),
            _ => None,
        });
        let mut result = ListPromptsResult::with_all_items(prompts);
        result.cache_scope = Some(CacheScope::Private);
        Ok(result)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.ready().await;
        let view = self.view(&context, false)?;
        let prompt = view.catalog.find_prompt(&request.name).ok_or_else(|| {
            ErrorData::invalid_params(
                format!(
                    "unknown prompt {:?}; prompts/list shows the prompts of profile {:?}",
                    request.name, view.profile.name
                ),
                None,
            )
        })?;
        self.check_visible(&view, prompt)?;
        let mut params = to_params(&request);
        params["name"] = Value::String(prompt.name.clone());
        let server = prompt.server.clone();
        match self
            .forward(&server, "prompts/get", params, &context)
            .await?
        {
            ServerResult::GetPromptResult(result) => Ok(result.into()),
            ServerResult::InputRequiredResult(input) => Ok(input.into()),
            other => Ok(convert::<GetPromptResult>(other, "prompts/get result")?.into()),
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.ready().await;
        let view = self.view(&context, true)?;
        let resources = self.list(&view, Kind::Resource, |f| match f {
            HostForm::Resource(r) => Some(r),
            _ => None,
        });
        let mut result = ListResourcesResult::with_all_items(resources);
        result.cache_scope = Some(CacheScope::Private);
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.ready().await;
        let view = self.view(&context, true)?;
        let mut result = ListResourceTemplatesResult::with_all_items(self.list(
            &view,
            Kind::ResourceTemplate,
            |f| match f {
                HostForm::Template(t) => Some(t),
                _ => None,
            },
        ));
        result.cache_scope = Some(CacheScope::Private);
        Ok(result)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.ready().await;
        let view = self.view(&context, false)?;
        let resource = self.resource_for(&view.catalog, &request.uri, false)?;
        self.check_visible(&view, &resource)?;
        let server = resource.server.clone();
        match self
            .forward(&server, "resources/read", to_params(&request), &context)
            .await?
        {
            ServerResult::ReadResourceResult(result) => Ok(result.into()),
            ServerResult::InputRequiredResult(input) => Ok(input.into()),
            other => Ok(convert::<ReadResourceResult>(other, "resources/read result")?.into()),
        }
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.ready().await;
        let view = self.view(&context, false)?;
        let resource = self.resource_for(&view.catalog, &request.uri, true)?;
        self.check_visible(&view, &resource)?;
        let server = resource.server.clone();
        self.forward(
            &server,
            "resources/subscribe",
            to_params(&request),
            &context,
        )
        .await?;
        if let Some(host) = self.state().host {
            self.engine.hosts().subscribe(host, &request.uri);
        }
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if let Some(host) = self.state().host {
            self.engine.hosts().unsubscribe(host, &request.uri);
        }
        self.ready().await;
        let catalog = self.engine.catalog();
        let resource = self.resource_for(&catalog, &request.uri, true)?;
        // One upstream subscription serves every host of this process: it
        // is dropped only when no host is subscribed any more.
        if !self.engine.hosts().subscribed(&request.uri) {
            self.forward(
                &resource.server,
                "resources/unsubscribe",
                to_params(&request),
                &context,
            )
            .await?;
        }
        Ok(())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.ready().await;
        let view = self.view(&context, false)?;
        let mut params = to_params(&request);
        let reference = params.get("ref").cloned().unwrap_or_default();
        let target = match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => {
                let name = reference
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let prompt = view.catalog.find_prompt(name).ok_or_else(|| {
                    ErrorData::invalid_params(format!("unknown prompt {name:?}"), None)
                })?;
                params["ref"]["name"] = Value::String(prompt.name.clone());
                prompt
            }
            _ => {
                let uri = reference
                    .get("uri")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                view.catalog
                    .of_kind(Kind::ResourceTemplate)
                    .find(|t| t.uri == uri)
                    .ok_or_else(|| {
                        ErrorData::invalid_params(
                            format!("unknown resource template {uri:?}"),
                            None,
                        )
                    })?
            }
        };
        self.check_visible(&view, target)?;
        let server = target.server.clone();
        match self
            .forward(&server, "completion/complete", params, &context)
            .await?
        {
            ServerResult::CompleteResult(result) => Ok(result),
            other => convert(other, "completion result"),
        }
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if let Some(host) = self.state().host {
            self.engine.hosts().set_level(host, request.level);
        }
        // Upstreams log at the level last asked for; each host then gets
        // only what its own level lets through.
        let servers: Vec<String> = self.engine.pool().statuses().into_keys().collect();
        for server in servers {
            if let Ok(peer) = self.engine.pool().peer(&server)
                && peer
                    .peer_info()
                    .is_some_and(|i| i.capabilities.logging.is_some())
            {
                let _ = self
                    .forward(&server, "logging/setLevel", to_params(&request), &context)
                    .await;
            }
        }
        Ok(())
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let params = request.params.clone().unwrap_or(Value::Null);
        match request.method.as_str() {
            "groups/list" | "tags/list" => {
                self.ready().await;
                let view = self.view(&context, false)?;
                let groups = request.method == "groups/list";
                let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
                for p in view.catalog.of_kind(Kind::Tool) {
                    if view.profile.rules.is_visible(p, Some(&view.narrowing)) {
                        let labels = if groups {
                            &p.labels.groups
                        } else {
                            &p.labels.tags
                        };
                        for label in labels {
                            *counts.entry(label.as_str()).or_default() += 1;
                        }
                    }
                }
                let items: Vec<Value> = counts
                    .into_iter()
                    .map(|(name, count)| {
                        let mut item = json!({"name": name, "count": count});
                        let description = if groups {
                            name.strip_prefix(sieve_core::labels::SERVER_GROUP_PREFIX)
                                .map(|server| format!("Everything server {server:?} offers"))
                        } else {
                            tag_description(name).map(String::from)
                        };
                        if let Some(description) = description {
                            item["description"] = Value::String(description);
                        }
                        item
                    })
                    .collect();
                let key = if groups { "groups" } else { "tags" };
                Ok(CustomResult(json!({ key: items })))
            }
            "tasks/list" => {
                let query = TaskQuery::from_params(&params).map_err(|e| {
                    ErrorData::invalid_params(e.to_string(), Some(json!({"field": e.field})))
                })?;
                self.ready().await;
                let view = self.view(&context, false)?;
                let ledger = self.engine.ledger()?;
                let visible = |record: &TaskRecord| {
                    Engine::task_visible(
                        &view.catalog,
                        &view.profile,
                        Some(&view.narrowing),
                        record,
                    )
                };
                let page = ledger
                    .list(&query, &visible)
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                let tasks: Vec<Value> = page.tasks.iter().map(TaskRecord::to_wire).collect();
                let mut result = json!({ "tasks": tasks });
                if let Some(cursor) = page.next_cursor {
                    result["nextCursor"] = json!(cursor);
                }
                Ok(CustomResult(result))
            }
            "tasks/retry" => {
                let id = params
                    .get("taskId")
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        ErrorData::invalid_params(
                            "params.taskId is required: the task to run again",
                            None,
                        )
                    })?;
                let force = params
                    .get("force")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                self.ready().await;
                let view = self.view(&context, false)?;
                let (record, answer) = self.engine.retry(id, force, &view.profile).await?;
                let mut result = json!({ "task": record.to_wire() });
                match answer {
                    Ok(value) => result["result"] = value,
                    Err(error) => result["error"] = serde_json::to_value(error).unwrap_or_default(),
                }
                Ok(CustomResult(result))
            }
            method if method.starts_with(LEGACY_PREFIX) => {
                self.legacy_task_request(method, params, &context).await
            }
            "concerns/list" => Ok(CustomResult(
                json!({"concerns": self.engine.config().concerns}),
            )),
            "concerns/update" => {
                let sessionless = self.conn.fixed_profile.is_none()
                    && context
                        .protocol_version()
                        .is_some_and(|v| !v.has_initialize());
                if sessionless {
                    // A 2026-07-28 HTTP request stands alone: there is no
                    // connection whose view could be narrowed.
                    return Err(ErrorData::invalid_request(
                        format!(
                            "concerns/update needs a connection, and 2026-07-28 over HTTP has none; \
                             send the concerns with each request in _meta[\"{}\"]",
                            sieve_core::rules::META_CONCERNS
                        ),
                        None,
                    ));
                }
                let concerns = params.get("concerns").cloned().unwrap_or(Value::Null);
                if concerns.is_null() {
                    return Err(ErrorData::invalid_params(
                        "params.concerns is required: an object of concern name to value",
                        None,
                    ));
                }
                self.set_concerns(&concerns, "params.concerns")?;
                let peer = context.peer.clone();
                self.announce(|kind| {
                    let peer = peer.clone();
                    async move { notify_peer(&peer, kind).await }
                })
                .await;
                Ok(CustomResult(json!({})))
            }
            other => Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("method {other:?} is not supported by the proxy"),
                None,
            )),
        }
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let record = self.visible_task(&request.task_id, &context).await?;
        if record.kind == EntryKind::Task && !record.status.is_terminal() {
            // Fresh from the server; its last known state if it is down.
            if let Ok(state) = relay::refresh(&self.engine, &record).await {
                return Ok(relay::detailed(&state));
            }
        }
        Ok(relay::detailed(&record))
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let record = self.visible_task(&request.task_id, &context).await?;
        relay::cancel(&self.engine, &record).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let record = self.visible_task(&request.task_id, &context).await?;
        let upstream_id = record.upstream_id.clone().ok_or_else(|| {
            ErrorData::invalid_params(
                format!("{:?} is a call, not a task a server runs", record.id),
                None,
            )
        })?;
        let mut params = to_params(&request);
        params["taskId"] = Value::String(upstream_id);
        self.forward(&record.server, "tasks/update", params, &context)
            .await?;
        Ok(())
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
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
