//! The upstream pool: one rmcp client connection per configured server,
//! shared by every host connection of this process.
//!
//! Each server has a supervisor task that connects (a stdio child process,
//! a streamable HTTP endpoint, or the built-in demo server in memory),
//! lists its tools, resources, templates and prompts, refreshes them on
//! `list_changed`, and reconnects with exponential backoff when the
//! connection ends. Servers start concurrently and never wait on each
//! other; while one is down its last listing is kept and calls to it fail
//! at once with an error that names it and says why.
//!
//! Child processes run in their own process group, so `npx` and whatever it
//! starts are stopped together (SIGTERM, then SIGKILL) and always reaped.

#![allow(deprecated)] // sampling, roots and logging: deprecated in 2026-07-28, live in 2025-11-25

use crate::clock::now_ms;
use crate::hosts::Hosts;
use crate::tap::{Keep, LineTap, RawLog, id_key};
use rmcp::model::{
    ClientCapabilities, ClientConfig, ClientRequest, ClientResult, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, Implementation, ListRootsResult,
    LoggingMessageNotificationParam, ProgressNotificationParam, ProtocolVersion,
    ResourceUpdatedNotificationParam, ServerNotification, ServerRequest, ServerResult,
};
use rmcp::service::{ClientInitializeError, ClientLifecycleMode, ClientServiceExt};
use rmcp::service::{NotificationContext, Peer, PeerRequestOptions, RequestContext};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde::Serialize;
use serde_json::{Value, json};
use sieve_core::{ServerConfig, ServerListing, Transport};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

/// How long a connection attempt (spawn or connect, then handshake) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one list request may take.
const LIST_TIMEOUT: Duration = Duration::from_secs(30);
/// First and longest wait between reconnection attempts.
const BACKOFF_MIN: Duration = Duration::from_millis(250);
const BACKOFF_MAX: Duration = Duration::from_secs(30);
/// A connection that lived this long resets the backoff.
const STABLE_AFTER: Duration = Duration::from_secs(30);
/// Lines of a child's stderr kept to explain why it died.
const STDERR_TAIL: usize = 12;

/// How a server is reached.
#[derive(Debug, Clone)]
pub enum Endpoint {
    /// An entry of `config.json`.
    Configured(ServerConfig),
    /// A server run in this process (the built-in demo): the function
    /// serves one connection on the stream it is handed.
    InProcess(fn(tokio::io::DuplexStream)),
}

impl PartialEq for Endpoint {
    fn eq(&self, other: &Endpoint) -> bool {
        match (self, other) {
            (Endpoint::Configured(a), Endpoint::Configured(b)) => a == b,
            (Endpoint::InProcess(a), Endpoint::InProcess(b)) => std::ptr::fn_addr_eq(*a, *b),
            _ => false,
        }
    }
}

/// The lists a `list_changed` notification refreshes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ListKind {
    Tools,
    Prompts,
    /// Resources and resource templates.
    Resources,
}

/// Where the pool reports the task states upstreams announce (both
/// generations' status notifications): the server, and the task as it
/// sent it. A callback, so the pool needs to know nothing of the ledger.
pub type TaskStatusSink = Arc<dyn Fn(&str, &Value) + Send + Sync>;

/// What the pool tells its listeners.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PoolEvent {
    /// A server's listing changed: connected, refreshed, or removed.
    Listing { server: String },
    /// A server's connection state changed.
    Status { server: String },
}

/// The connection state of one server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Connecting,
    Up,
    Down,
    Stopped,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Connecting => "connecting",
            State::Up => "up",
            State::Down => "down",
            State::Stopped => "stopped",
        }
    }
}

/// What `mcp-sieve servers list` and the app show about a server.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub state: State,
    /// Why it is down (connect error, exit status, last stderr line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The negotiated protocol version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// The server's name and version as it reports them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Value>,
    /// When the state last changed, in milliseconds since the Unix epoch.
    pub since: i64,
    pub tools: usize,
    pub prompts: usize,
    pub resources: usize,
}

impl Status {
    fn new(state: State) -> Status {
        Status {
            state,
            error: None,
            protocol_version: None,
            server_info: None,
            since: now_ms(),
            tools: 0,
            prompts: 0,
            resources: 0,
        }
    }
}

/// One server of the pool.
struct Upstream {
    name: String,
    endpoint: Endpoint,
    stop: CancellationToken,
    shared: Mutex<Shared>,
    supervisor: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

struct Shared {
    status: Status,
    listing: ServerListing,
    peer: Option<Peer<RoleClient>>,
    /// The raw results of this connection (stdio and built-in servers).
    raw: Option<RawLog>,
    /// Has been up or down at least once since it was added.
    settled: bool,
}

/// The upstream servers of this process.
#[derive(Clone)]
pub struct Pool {
    inner: Arc<PoolInner>,
}

struct PoolInner {
    upstreams: Mutex<BTreeMap<String, Arc<Upstream>>>,
    events: broadcast::Sender<PoolEvent>,
    hosts: Arc<Hosts>,
    /// Counts listing changes, so a reader can tell its copy is stale.
    generation: std::sync::atomic::AtomicU64,
    /// Where task status notifications of upstreams go.
    on_task_status: TaskStatusSink,
}

impl PoolInner {
    fn emit(&self, event: PoolEvent) {
        if matches!(event, PoolEvent::Listing { .. }) {
            self.generation
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        // Nobody listening is fine: the state is read on demand.
        let _ = self.events.send(event);
    }
}

impl Pool {
    /// An empty pool whose server-to-client traffic goes to `hosts` and
    /// whose task status notifications go to `on_task_status`.
    pub fn new(hosts: Arc<Hosts>, on_task_status: TaskStatusSink) -> Pool {
        let (events, _) = broadcast::channel(256);
        Pool {
            inner: Arc::new(PoolInner {
                upstreams: Mutex::new(BTreeMap::new()),
                events,
                hosts,
                generation: std::sync::atomic::AtomicU64::new(0),
                on_task_status,
            }),
        }
    }

    /// Changes with every listing change; see [`Pool::listings`].
    pub fn generation(&self) -> u64 {
        self.inner
            .generation
            .load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Makes the pool serve exactly `servers`: new ones are started, removed
    /// ones stopped, changed ones restarted; unchanged ones keep their
    /// connection.
    pub fn apply(&self, servers: BTreeMap<String, Endpoint>) {
        let mut upstreams = self.inner.upstreams.lock().expect("pool lock");
        let stale: Vec<String> = upstreams
            .iter()
            .filter(|(name, up)| servers.get(*name) != Some(&up.endpoint))
            .map(|(name, _)| name.clone())
            .collect();
        for name in stale {
            if let Some(up) = upstreams.remove(&name) {
                tracing::info!(server = %name, "stopping server");
                up.stop.cancel();
                self.inner.emit(PoolEvent::Listing { server: name });
            }
        }
        for (name, endpoint) in servers {
            if upstreams.contains_key(&name) {
                continue;
            }
            let up = Arc::new(Upstream {
                name: name.clone(),
                endpoint,
                stop: CancellationToken::new(),
                shared: Mutex::new(Shared {
                    status: Status::new(State::Connecting),
                    listing: ServerListing {
                        server: name.clone(),
                        ..ServerListing::default()
                    },
                    peer: None,
                    raw: None,
                    settled: false,
                }),
                supervisor: Mutex::new(None),
            });
            let task = tokio::spawn(supervise(up.clone(), self.inner.clone()));
            *up.supervisor.lock().expect("supervisor lock") = Some(task);
            upstreams.insert(name, up);
        }
    }

    /// The last known listing of every server, down ones included.
    pub fn listings(&self) -> Vec<ServerListing> {
        self.upstreams()
            .iter()
            .map(|up| up.shared.lock().expect("upstream lock").listing.clone())
            .collect()
    }

    /// The state of every server.
    pub fn statuses(&self) -> BTreeMap<String, Status> {
        self.upstreams()
            .iter()
            .map(|up| {
                let status = up.shared.lock().expect("upstream lock").status.clone();
                (up.name.clone(), status)
            })
            .collect()
    }

    /// The server's connection, or an error that names it and says why it
    /// cannot be used now.
    pub fn peer(&self, server: &str) -> Result<Peer<RoleClient>, ErrorData> {
        let up = self
            .inner
            .upstreams
            .lock()
            .expect("pool lock")
            .get(server)
            .cloned()
            .ok_or_else(|| {
                ErrorData::internal_error(format!("server {server:?} is not configured"), None)
            })?;
        let shared = up.shared.lock().expect("upstream lock");
        match (&shared.peer, shared.status.state) {
            (Some(peer), State::Up) => Ok(peer.clone()),
            (_, state) => {
                let why = shared
                    .status
                    .error
                    .clone()
                    .unwrap_or_else(|| "it is still connecting".into());
                let what = match state {
                    State::Connecting => "is not connected yet",
                    State::Stopped => "was stopped",
                    _ => "is down",
                };
                Err(ErrorData::internal_error(
                    format!(
                        "server {server:?} {what} ({why}); the proxy reconnects by itself, try again shortly"
                    ),
                    Some(json!({"server": server, "state": state})),
                ))
            }
        }
    }

    /// The servers that are up and whose capabilities pass `wanted`.
    pub fn capable(
        &self,
        wanted: impl Fn(&rmcp::model::ServerCapabilities) -> bool,
    ) -> Vec<String> {
        self.upstreams()
            .iter()
            .filter(|up| {
                let shared = up.shared.lock().expect("upstream lock");
                shared.status.state == State::Up
                    && shared
                        .peer
                        .as_ref()
                        .and_then(|peer| peer.peer_info())
                        .is_some_and(|info| wanted(&info.capabilities))
            })
            .map(|up| up.name.clone())
            .collect()
    }

    /// Sends `method` with `params` to `server`; the handle yields the
    /// upstream's answer (see [`call_error`] for failures).
    pub async fn send(
        &self,
        server: &str,
        method: &str,
        params: Value,
    ) -> Result<rmcp::service::RequestHandle<RoleClient>, ErrorData> {
        let peer = self.peer(server)?;
        let request: ClientRequest =
            serde_json::from_value(json!({"method": method, "params": params})).map_err(|e| {
                ErrorData::invalid_params(format!("cannot forward {method}: {e}"), None)
            })?;
        peer.send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| call_error(server, e))
    }

    /// Sends `method` as it is (rmcp does not model it, or would drop part
    /// of it: 2025-11-25 task requests) and returns the raw result.
    pub async fn call_raw(
        &self,
        server: &str,
        method: &str,
        params: Value,
    ) -> Result<Value, ErrorData> {
        let peer = self.peer(server)?;
        let raw = self
            .upstream(server)
            .and_then(|up| up.shared.lock().expect("upstream lock").raw.clone());
        let request =
            ClientRequest::CustomRequest(rmcp::model::CustomRequest::new(method, Some(params)));
        request_raw(
            &peer,
            raw.as_ref(),
            request,
            PeerRequestOptions::no_options(),
        )
        .await
        .map_err(|e| call_error(server, e))
    }

    /// Whether `server` speaks the 2026-07-28 tasks extension (else it has
    /// 2025-11-25 tasks, or none).
    pub fn modern_tasks(&self, server: &str) -> bool {
        self.upstream(server)
            .and_then(|up| up.shared.lock().expect("upstream lock").peer.clone())
            .and_then(|peer| peer.peer_info())
            .is_some_and(|info| info.capabilities.supports_tasks())
    }

    fn upstream(&self, server: &str) -> Option<Arc<Upstream>> {
        self.inner
            .upstreams
            .lock()
            .expect("pool lock")
            .get(server)
            .cloned()
    }

    /// Sends a request and waits for the answer, with no host attached (a
    /// retry from the command line).
    pub async fn call(
        &self,
        server: &str,
        method: &str,
        params: Value,
    ) -> Result<ServerResult, ErrorData> {
        let handle = self.send(server, method, params).await?;
        handle
            .await_response()
            .await
            .map(mark_complete)
            .map_err(|e| call_error(server, e))
    }

    /// Pool events from now on.
    pub fn events(&self) -> broadcast::Receiver<PoolEvent> {
        self.inner.events.subscribe()
    }

    /// Waits until every server has been listed or has failed once, or
    /// `limit` passes; for commands that list once and exit.
    pub async fn settled(&self, limit: Duration) {
        let mut events = self.events();
        let deadline = Instant::now() + limit;
        loop {
            let all = self
                .upstreams()
                .iter()
                .all(|up| up.shared.lock().expect("upstream lock").settled);
            if all {
                return;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || tokio::time::timeout(left, events.recv()).await.is_err() {
                return;
            }
        }
    }

    /// Stops every server and waits until their processes are gone.
    pub async fn shutdown(&self) {
        let upstreams: Vec<_> =
            std::mem::take(&mut *self.inner.upstreams.lock().expect("pool lock"))
                .into_values()
                .collect();
        for up in &upstreams {
            up.stop.cancel();
        }
        for up in upstreams {
            let task = up.supervisor.lock().expect("supervisor lock").take();
            if let Some(task) = task {
                let _ = task.await;
            }
        }
    }

    fn upstreams(&self) -> Vec<Arc<Upstream>> {
        self.inner
            .upstreams
            .lock()
            .expect("pool lock")
            .values()
            .cloned()
            .collect()
    }
}

/// The error a host gets when a request to `server` fails.
pub fn call_error(server: &str, error: rmcp::ServiceError) -> ErrorData {
    match error {
        // The upstream's own answer goes to the host unchanged.
        rmcp::ServiceError::McpError(error) => error,
        rmcp::ServiceError::TransportClosed => ErrorData::internal_error(
            format!(
                "server {server:?} closed its connection during the request; the proxy reconnects by itself, try again shortly"
            ),
            Some(json!({"server": server})),
        ),
        other => ErrorData::internal_error(
            format!("server {server:?} failed the request: {other}"),
            Some(json!({"server": server})),
        ),
    }
}

/// A 2025-11-25 upstream sends results without `resultType`, which a
/// 2026-07-28 host requires; rmcp strips it again for 2025-11-25 hosts.
pub fn mark_complete(mut result: ServerResult) -> ServerResult {
    let result_type = match &mut result {
        ServerResult::CallToolResult(r) => &mut r.result_type,
        ServerResult::GetPromptResult(r) => &mut r.result_type,
        ServerResult::ReadResourceResult(r) => &mut r.result_type,
        ServerResult::CompleteResult(r) => &mut r.result_type,
        _ => return result,
    };
    result_type.get_or_insert(rmcp::model::ResultType::COMPLETE);
    result
}

/// Keeps one server connected for as long as it is in the pool.
async fn supervise(up: Arc<Upstream>, pool: Arc<PoolInner>) {
    let mut backoff = BACKOFF_MIN;
    loop {
        set_state(&up, &pool, State::Connecting, None);
        let attempt = tokio::select! {
            () = up.stop.cancelled() => break,
            attempt = connect(&up, &pool) => attempt,
        };
        match attempt {
            Ok((connection, refresh)) => {
                let started = Instant::now();
                let ended = run_connection(&up, &pool, connection, refresh).await;
                if up.stop.is_cancelled() {
                    break;
                }
                set_state(&up, &pool, State::Down, Some(ended));
                if started.elapsed() >= STABLE_AFTER {
                    backoff = BACKOFF_MIN;
                }
            }
            Err(error) => set_state(&up, &pool, State::Down, Some(error)),
        }
        tracing::info!("server {:?}: reconnecting in {backoff:?}", up.name);
        tokio::select! {
            () = up.stop.cancelled() => break,
            () = tokio::time::sleep(backoff) => {}
        }
        backoff = (backoff * 2).min(BACKOFF_MAX);
    }
    set_state(&up, &pool, State::Stopped, None);
}

fn set_state(up: &Upstream, pool: &PoolInner, state: State, error: Option<String>) {
    {
        let mut shared = up.shared.lock().expect("upstream lock");
        if state != State::Up {
            shared.peer = None;
        }
        if state == State::Down {
            shared.settled = true;
        }
        let keep = shared.status.clone();
        shared.status = Status {
            error: error.clone(),
            // Counts describe the last listing, which is kept while down.
            tools: keep.tools,
            prompts: keep.prompts,
            resources: keep.resources,
            protocol_version: if state == State::Up {
                keep.protocol_version
            } else {
                None
            },
            server_info: keep.server_info,
            ..Status::new(state)
        };
    }
    match &error {
        Some(error) => tracing::warn!("server {:?} is {}: {error}", up.name, state.as_str()),
        None => tracing::info!("server {:?} is {}", up.name, state.as_str()),
    }
    pool.emit(PoolEvent::Status {
        server: up.name.clone(),
    });
}

/// A live connection to one server.
struct Connection {
    service: rmcp::service::RunningService<RoleClient, UpstreamHandler>,
    raw: RawLog,
    child: Option<ChildProcess>,
}

/// Serves one connection until it ends or the server is stopped; returns
/// why it ended.
async fn run_connection(
    up: &Upstream,
    pool: &PoolInner,
    connection: Connection,
    mut refresh: mpsc::UnboundedReceiver<ListKind>,
) -> String {
    let Connection {
        service,
        raw,
        mut child,
    } = connection;
    let peer = service.peer().clone();
    let info = peer.peer_info();
    {
        let mut shared = up.shared.lock().expect("upstream lock");
        shared.peer = Some(peer.clone());
        shared.raw = Some(raw.clone());
        shared.status.protocol_version = info.as_ref().map(|i| i.protocol_version.to_string());
        shared.status.server_info = info
            .as_ref()
            .and_then(|i| serde_json::to_value(&i.server_info).ok());
    }
    set_state(up, pool, State::Up, None);
    for kind in [ListKind::Tools, ListKind::Prompts, ListKind::Resources] {
        refresh_list(up, pool, &peer, &raw, kind).await;
    }
    // A 2026-07-28 server sends list changes only on a subscription.
    if info
        .as_ref()
        .is_some_and(|i| !i.protocol_version.has_initialize())
    {
        listen_for_changes(
            up.name.clone(),
            peer.clone(),
            service.service().refresh.clone(),
            pool.hosts.clone(),
        );
    }
    // Settled once its lists are in, so one-shot commands see them.
    up.shared.lock().expect("upstream lock").settled = true;
    pool.emit(PoolEvent::Status {
        server: up.name.clone(),
    });
    let cancel = service.cancellation_token();
    let mut ended = tokio::spawn(service.waiting());
    let reason = loop {
        tokio::select! {
            () = up.stop.cancelled() => {
                cancel.cancel();
                let _ = (&mut ended).await;
                break "stopped".to_string();
            }
            result = &mut ended => {
                break match result {
                    Ok(reason) => format!("connection closed ({reason:?})"),
                    Err(error) => format!("connection task failed: {error}"),
                };
            }
            Some(kind) = refresh.recv() => {
                refresh_list(up, pool, &peer, &raw, kind).await;
            }
        }
    };
    match child.take() {
        Some(child) => {
            let exit = child.stop().await;
            if reason == "stopped" { reason } else { exit }
        }
        None => reason,
    }
}

/// Opens a `subscriptions/listen` stream on a 2026-07-28 server and turns
/// what it sends into refreshes (and resource updates for the hosts),
/// until the connection ends.
fn listen_for_changes(
    server: String,
    peer: Peer<RoleClient>,
    refresh: mpsc::UnboundedSender<ListKind>,
    hosts: Arc<Hosts>,
) {
    tokio::spawn(async move {
        let filter = rmcp::model::SubscriptionFilter::builder()
            .tools_list_changed()
            .prompts_list_changed()
            .resources_list_changed()
            .build();
        let mut subscription = match peer.listen(filter).await {
            Ok(subscription) => subscription,
            Err(error) => {
                tracing::warn!(
                    "server {server:?} would not let us listen for list changes: {error}"
                );
                return;
            }
        };
        while let Ok(Some(notification)) = subscription.next().await {
            let kind = match notification {
                ServerNotification::ToolListChangedNotification(_) => ListKind::Tools,
                ServerNotification::PromptListChangedNotification(_) => ListKind::Prompts,
                ServerNotification::ResourceListChangedNotification(_) => ListKind::Resources,
                ServerNotification::ResourceUpdatedNotification(update) => {
                    hosts.resource_updated(update.params);
                    continue;
                }
                _ => continue,
            };
            if refresh.send(kind).is_err() {
                return;
            }
        }
    });
}

/// Re-lists one kind and publishes the new listing.
async fn refresh_list(
    up: &Upstream,
    pool: &PoolInner,
    peer: &Peer<RoleClient>,
    raw: &RawLog,
    kind: ListKind,
) {
    let capabilities = peer
        .peer_info()
        .map(|i| i.capabilities.clone())
        .unwrap_or_default();
    let lists: &[(&str, &str)] = match kind {
        ListKind::Tools if capabilities.tools.is_some() => &[("tools/list", "tools")],
        ListKind::Prompts if capabilities.prompts.is_some() => &[("prompts/list", "prompts")],
        ListKind::Resources if capabilities.resources.is_some() => &[
            ("resources/list", "resources"),
            ("resources/templates/list", "resourceTemplates"),
        ],
        _ => &[],
    };
    let mut fetched = Vec::new();
    for (method, key) in lists {
        match list_pages(peer, raw, method, key).await {
            Ok(items) => fetched.push((*key, items)),
            Err(error) => {
                // Keep the last good list: a failed refresh is not an empty one.
                tracing::warn!(server = %up.name, "{method} failed: {error}");
                return;
            }
        }
    }
    {
        let mut shared = up.shared.lock().expect("upstream lock");
        for (key, items) in fetched {
            match key {
                "tools" => shared.listing.tools = items,
                "prompts" => shared.listing.prompts = items,
                "resources" => shared.listing.resources = items,
                _ => shared.listing.resource_templates = items,
            }
        }
        shared.status.tools = shared.listing.tools.len();
        shared.status.prompts = shared.listing.prompts.len();
        shared.status.resources = shared.listing.resources.len();
    }
    pool.emit(PoolEvent::Listing {
        server: up.name.clone(),
    });
}

/// All pages of one list method, as the raw JSON the server sent.
/// Sends `request` and returns its result as the server sent it: from the
/// raw tap when the connection has one (it keeps fields rmcp's model
/// drops), else rmcp's typed result (HTTP).
async fn request_raw(
    peer: &Peer<RoleClient>,
    raw: Option<&RawLog>,
    request: ClientRequest,
    options: PeerRequestOptions,
) -> Result<Value, rmcp::ServiceError> {
    let handle = peer.send_request_with_option(request, options).await?;
    let id = id_key(&serde_json::to_value(&handle.id).unwrap_or_default());
    let typed = handle.await_response().await?;
    match raw.and_then(|raw| raw.take(&id)) {
        Some(result) => Ok(result),
        None => Ok(serde_json::to_value(typed).unwrap_or_default()),
    }
}

async fn list_pages(
    peer: &Peer<RoleClient>,
    raw: &RawLog,
    method: &str,
    key: &str,
) -> Result<Vec<Value>, String> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    // A server that keeps returning cursors must not hold us forever.
    for _ in 0..1000 {
        let params = match &cursor {
            Some(cursor) => json!({ "cursor": cursor }),
            None => json!({}),
        };
        let request: ClientRequest =
            serde_json::from_value(json!({"method": method, "params": params}))
                .map_err(|e| format!("cannot build {method}: {e}"))?;
        let mut options = PeerRequestOptions::no_options();
        options.timeout = Some(LIST_TIMEOUT);
        let result = request_raw(peer, Some(raw), request, options)
            .await
            .map_err(|e| e.to_string())?;
        if let Some(Value::Array(page)) = result.get(key) {
            items.extend(page.iter().cloned());
        }
        cursor = result
            .get("nextCursor")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(String::from);
        if cursor.is_none() {
            return Ok(items);
        }
    }
    Err(format!("{method} returned more than 1000 pages"))
}

/// Connects to a server: spawn or dial, then the MCP handshake. The
/// 2025-11-25 handshake (`initialize`) comes first, since most servers
/// speak it; a server that answers it with an error is tried again with
/// 2026-07-28 discovery, which a server built for that revision alone
/// requires.
async fn connect(
    up: &Upstream,
    pool: &PoolInner,
) -> Result<(Connection, mpsc::UnboundedReceiver<ListKind>), String> {
    let (refresh_tx, refresh_rx) = mpsc::unbounded_channel();
    let handler = UpstreamHandler {
        server: up.name.clone(),
        hosts: pool.hosts.clone(),
        refresh: refresh_tx,
        on_task_status: pool.on_task_status.clone(),
    };
    let connection = match attempt(up, handler.clone(), Lifecycle::Initialize).await {
        Err(Refusal::Answered(error)) => {
            tracing::info!(
                "server {:?} refused initialize ({error}); trying 2026-07-28 discovery",
                up.name
            );
            attempt(up, handler, Lifecycle::Discover)
                .await
                .map_err(|e| format!("{}; and with 2026-07-28 discovery: {}", error, e.message()))?
        }
        other => other.map_err(|e| e.message().to_string())?,
    };
    Ok((connection, refresh_rx))
}

/// Which handshake to try.
#[derive(Debug, Clone, Copy)]
enum Lifecycle {
    Initialize,
    Discover,
}

/// Why a connection attempt failed.
enum Refusal {
    /// The server answered the handshake with a JSON-RPC error: it is there
    /// but may want the other protocol generation.
    Answered(String),
    /// Anything else: it could not be started or reached, or it went away.
    Failed(String),
}

impl Refusal {
    fn message(&self) -> &str {
        match self {
            Refusal::Answered(m) | Refusal::Failed(m) => m,
        }
    }
}

/// One connection attempt with one handshake.
async fn attempt(
    up: &Upstream,
    handler: UpstreamHandler,
    lifecycle: Lifecycle,
) -> Result<Connection, Refusal> {
    let raw = RawLog::new(Keep::ListResults);
    match &up.endpoint {
        Endpoint::InProcess(serve) => {
            let (ours, theirs) = tokio::io::duplex(1 << 20);
            serve(theirs);
            let (read, write) = tokio::io::split(ours);
            let service =
                handshake(handler, (LineTap::new(read, raw.clone()), write), lifecycle).await?;
            Ok(Connection {
                service,
                raw,
                child: None,
            })
        }
        Endpoint::Configured(config) => match &config.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let mut child = ChildProcess::spawn(&up.name, command, args, env, cwd.as_deref())
                    .map_err(Refusal::Failed)?;
                let (stdout, stdin) = child.pipes().map_err(Refusal::Failed)?;
                match handshake(
                    handler,
                    (LineTap::new(stdout, raw.clone()), stdin),
                    lifecycle,
                )
                .await
                {
                    Ok(service) => Ok(Connection {
                        service,
                        raw,
                        child: Some(child),
                    }),
                    Err(Refusal::Answered(error)) => {
                        child.stop().await;
                        Err(Refusal::Answered(error))
                    }
                    Err(Refusal::Failed(error)) => {
                        let exit = child.stop().await;
                        Err(Refusal::Failed(format!("{error}; {exit}")))
                    }
                }
            }
            Transport::Http { url, headers } => {
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                let mut custom = HashMap::new();
                for (name, value) in headers {
                    if name.eq_ignore_ascii_case("authorization")
                        && let Some(token) = value.strip_prefix("Bearer ")
                    {
                        config = config.auth_header(token.to_string());
                        continue;
                    }
                    // Header values are secrets: errors name the header only.
                    let header = http::HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                        Refusal::Failed(format!("header name {name:?} is not valid"))
                    })?;
                    let value = http::HeaderValue::from_str(value).map_err(|_| {
                        Refusal::Failed(format!("the value of header {name:?} is not valid"))
                    })?;
                    custom.insert(header, value);
                }
                let config = config.custom_headers(custom);
                let transport = StreamableHttpClientTransport::from_config(config);
                let service = handshake(handler, transport, lifecycle).await?;
                Ok(Connection {
                    service,
                    raw,
                    child: None,
                })
            }
        },
    }
}

async fn handshake<T, E, A>(
    handler: UpstreamHandler,
    transport: T,
    lifecycle: Lifecycle,
) -> Result<rmcp::service::RunningService<RoleClient, UpstreamHandler>, Refusal>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let mode = match lifecycle {
        Lifecycle::Initialize => ClientLifecycleMode::Initialize,
        Lifecycle::Discover => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    };
    match tokio::time::timeout(
        CONNECT_TIMEOUT,
        handler.serve_with_lifecycle(transport, mode),
    )
    .await
    {
        Ok(Ok(service)) => Ok(service),
        Ok(Err(ClientInitializeError::JsonRpcError(error))) => Err(Refusal::Answered(format!(
            "the server answered the handshake with error {}: {}",
            error.code.0, error.message
        ))),
        Ok(Err(error)) => Err(Refusal::Failed(format!("MCP handshake failed: {error}"))),
        Err(_) => Err(Refusal::Failed(format!(
            "no MCP handshake within {}s",
            CONNECT_TIMEOUT.as_secs()
        ))),
    }
}

/// A child process in its own process group, with its stderr tail kept.
struct ChildProcess {
    child: tokio::process::Child,
    pid: Option<u32>,
    stderr: Arc<Mutex<std::collections::VecDeque<String>>>,
    stderr_reader: Option<tokio::task::JoinHandle<()>>,
}

impl ChildProcess {
    fn spawn(
        server: &str,
        command: &str,
        args: &[String],
        env: &BTreeMap<String, String>,
        cwd: Option<&str>,
    ) -> Result<ChildProcess, String> {
        let mut cmd = tokio::process::Command::new(command);
        cmd.args(args)
            .envs(env)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        if let Some(cwd) = cwd {
            cmd.current_dir(cwd);
        }
        #[cfg(unix)]
        cmd.process_group(0);
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {command:?}: {e}"))?;
        let stderr = Arc::new(Mutex::new(std::collections::VecDeque::new()));
        let mut stderr_reader = None;
        if let Some(pipe) = child.stderr.take() {
            let tail = stderr.clone();
            let server = server.to_string();
            stderr_reader = Some(tokio::spawn(async move {
                let mut lines = BufReader::new(pipe).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    tracing::debug!(server = %server, "stderr: {line}");
                    let mut tail = tail.lock().expect("stderr lock");
                    tail.push_back(line);
                    if tail.len() > STDERR_TAIL {
                        tail.pop_front();
                    }
                }
            }));
        }
        Ok(ChildProcess {
            pid: child.id(),
            child,
            stderr,
            stderr_reader,
        })
    }

    fn pipes(
        &mut self,
    ) -> Result<(tokio::process::ChildStdout, tokio::process::ChildStdin), String> {
        match (self.child.stdout.take(), self.child.stdin.take()) {
            (Some(out), Some(input)) => Ok((out, input)),
            _ => Err("the child process has no stdin/stdout".into()),
        }
    }

    /// Stops the whole process group (SIGTERM, then SIGKILL after 2 s) and
    /// reaps the child; returns how it ended, with its last stderr line.
    async fn stop(mut self) -> String {
        self.signal(Signal::Terminate);
        let status = match tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await {
            Ok(status) => status,
            Err(_) => {
                self.signal(Signal::Kill);
                self.child.wait().await
            }
        };
        // Whatever else is left in the group goes too.
        self.signal(Signal::Kill);
        // Its last words may still be in the pipe; a grandchild holding the
        // pipe open must not hold us up, hence the bound.
        if let Some(reader) = self.stderr_reader.take() {
            let _ = tokio::time::timeout(Duration::from_millis(500), reader).await;
        }
        let last = self
            .stderr
            .lock()
            .expect("stderr lock")
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .cloned();
        let status = match status {
            Ok(status) => format!("process {status}"),
            Err(error) => format!("process could not be waited for: {error}"),
        };
        match last {
            Some(line) => format!("{status}; its last words: {line}"),
            None => status,
        }
    }

    fn signal(&self, signal: Signal) {
        #[cfg(unix)]
        if let Some(pid) = self.pid {
            let signal = match signal {
                Signal::Terminate => libc::SIGTERM,
                Signal::Kill => libc::SIGKILL,
            };
            // SAFETY: killpg only sends a signal; the group id is the pid
            // of a child we started with `process_group(0)`, so it is the
            // leader of its own group and never ours.
            unsafe {
                libc::killpg(pid as libc::pid_t, signal);
            }
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Signal {
    Terminate,
    Kill,
}

/// Our side of one upstream connection: list changes refresh the listing;
/// progress, logs, resource updates and server-to-client requests go to the
/// hosts.
#[derive(Clone)]
struct UpstreamHandler {
    server: String,
    hosts: Arc<Hosts>,
    refresh: mpsc::UnboundedSender<ListKind>,
    on_task_status: TaskStatusSink,
}

impl UpstreamHandler {
    async fn ask_host(&self, method: &str, params: Value) -> Result<ClientResult, ErrorData> {
        let request: ServerRequest =
            serde_json::from_value(json!({"method": method, "params": params})).map_err(|e| {
                ErrorData::internal_error(format!("cannot forward {method}: {e}"), None)
            })?;
        self.hosts.request(&self.server, request).await
    }
}

fn unexpected(method: &str) -> ErrorData {
    ErrorData::internal_error(
        format!("the host answered {method} with something else"),
        None,
    )
}

impl ClientHandler for UpstreamHandler {
    fn get_info(&self) -> ClientConfig {
        // Tasks too: the proxy records them and relays or waits for them.
        let capabilities = ClientCapabilities::builder()
            .enable_sampling()
            .enable_elicitation()
            .enable_roots()
            .enable_tasks()
            .build();
        ClientConfig::new(
            capabilities,
            Implementation::new("mcp-sieve", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.refresh.send(ListKind::Tools);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.refresh.send(ListKind::Prompts);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.refresh.send(ListKind::Resources);
    }

    async fn on_custom_notification(
        &self,
        notification: rmcp::model::CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        // 2025-11-25 servers announce task states on their own method.
        if notification.method == "notifications/tasks/status"
            && let Some(params) = &notification.params
        {
            (self.on_task_status)(&self.server, params);
        }
    }

    async fn on_task_status(
        &self,
        params: rmcp::model::TaskStatusNotificationParams,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Ok(task) = serde_json::to_value(&params) {
            (self.on_task_status)(&self.server, &task);
        }
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.hosts.progress(&self.server, params);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.hosts.logging(&self.server, params);
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.hosts.resource_updated(params);
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let params = serde_json::to_value(params).unwrap_or_default();
        match self.ask_host("sampling/createMessage", params).await? {
            ClientResult::CreateMessageResult(result) => Ok(*result),
            _ => Err(unexpected("sampling/createMessage")),
        }
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let params = serde_json::to_value(request).unwrap_or_default();
        match self.ask_host("elicitation/create", params).await? {
            ClientResult::ElicitResult(result) => Ok(result),
            _ => Err(unexpected("elicitation/create")),
        }
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        match self.ask_host("roots/list", json!({})).await? {
            ClientResult::ListRootsResult(result) => Ok(result),
            _ => Err(unexpected("roots/list")),
        }
    }
}
