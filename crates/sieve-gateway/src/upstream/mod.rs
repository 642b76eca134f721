//! The upstream pool: one rmcp client connection per configured server,
//! shared by every host connection of this process.
//!
//! Each server has a supervisor task that connects (a stdio child process,
//! a streamable HTTP endpoint, or the built-in demo server in memory),
//! lists its tools, resources, templates and prompts, refreshes them on
//! `list_changed`, and reconnects with exponential backoff when the
//! connection ends. Servers start concurrently and never wait on each
//! other; while one is down its last listing is kept and calls to it fail
//! at once with an error that names it, its state and its last error
//! ([`Pool::unavailable`], also for a name of one that never listed). A
//! server that failed stays down, with that error, while it is tried
//! again. A host's list waits a little for servers starting
//! ([`Pool::started`]); nothing else does. An HTTP server that
//! wants a sign-in (401) and has none that works is `needs-login` instead,
//! and is tried again only when a sign-in may have been stored (see
//! `supervisor`); with a stored sign-in (`crate::oauth`) its connection
//! goes through rmcp's `AuthClient`, which sends and refreshes the token.
//!
//! Layout: this file holds the [`Pool`], what it reports ([`Status`],
//! [`State`], [`PoolEvent`]) and the requests it sends for the engine;
//!
//! * `supervisor`: keeping one server connected and its lists current;
//! * `connect`: one connection attempt, with either protocol generation's
//!   handshake;
//! * `child`: a stdio server's process, in its own process group, so `npx`
//!   and whatever it starts are stopped together (SIGTERM, then SIGKILL)
//!   and always reaped;
//! * `handler`: our side of a connection, forwarding what a server sends
//!   to the hosts;
//! * `http`: an HTTP server's answers shown to the connection's raw log
//!   before rmcp types them, as a stdio server's lines are;
//!
//! A request to a line connection (a child's stdio, the demo's) goes on
//! its lane (`crate::lane`), written and answered beside rmcp's client,
//! never typed; an HTTP server's through rmcp's client ([`Pool::send`]).

#![allow(deprecated)] // sampling, roots and logging: deprecated in 2026-07-28, live in 2025-11-25

mod child;
mod connect;
mod handler;
mod http;
mod supervisor;

use crate::lane::Lane;
use crate::sent::{Canceller, HostCall, Reply, Sent, answer_of, closed, unreadable};

use crate::clock::now_ms;
use crate::error::CallError;
use crate::hosts::Hosts;
use crate::sync::Locked;
use crate::tap::{RawLog, id_key, request_as_it_came};
use rmcp::RoleClient;
use rmcp::model::{ClientRequest, ServerResult};
use rmcp::service::{Peer, PeerRequestOptions};
use serde::Serialize;
use serde_json::{Value, json};
use sieve_core::{ServerConfig, ServerListing, Transport};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

/// How a server is reached.
#[derive(Debug, Clone)]
pub enum Endpoint {
    /// An entry of `config.json`.
    Configured(Box<ServerConfig>),
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

/// Which protocol generation's handshake a connection tries first; a
/// server that answers it with an error is tried with the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Handshake {
    /// 2025-11-25 `initialize`, which most servers speak: the pool's way.
    #[default]
    Initialize,
    /// 2026-07-28 `server/discover`, for a server known to speak it.
    Discover,
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
    /// In `config.json` but switched off: never started.
    Disabled,
    /// An HTTP server that wants a sign-in (it answered 401) and has no
    /// usable one: not retried until one is stored.
    #[serde(rename = "needs-login")]
    NeedsLogin,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Connecting => "connecting",
            State::Up => "up",
            State::Down => "down",
            State::Stopped => "stopped",
            State::Disabled => "disabled",
            State::NeedsLogin => "needs-login",
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
    /// While up: why one of its lists could not be read (the last good
    /// one is kept), e.g. a server that answers the handshake but wants a
    /// sign-in for `tools/list`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_error: Option<String>,
    /// The negotiated protocol version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// The server's name and version as it reports them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Value>,
    /// When the state last changed, in milliseconds since the Unix epoch.
    /// A server that is down stays down, with its error and this time,
    /// while it is tried again: only a connection that works changes it.
    pub since: i64,
    /// While down: when the next attempt to connect starts (in the past
    /// while one is under way), in milliseconds since the Unix epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_at: Option<i64>,
    /// The `WWW-Authenticate` header of the server's last 401 or 403, to
    /// sign in with (it says where the metadata is and which scopes).
    #[serde(skip)]
    pub challenge: Option<String>,
    pub tools: usize,
    pub prompts: usize,
    pub resources: usize,
}

impl Status {
    /// `state`, with nothing known yet; `since` is now.
    pub fn new(state: State) -> Status {
        Status {
            state,
            error: None,
            list_error: None,
            protocol_version: None,
            server_info: None,
            since: now_ms(),
            retry_at: None,
            challenge: None,
            tools: 0,
            prompts: 0,
            resources: 0,
        }
    }
}

/// One server of the pool.
struct Upstream {
    name: String,
    /// When it was added to the pool: a host's list waits for it until
    /// `settings.startupWaitMs` after this, at most.
    added: Instant,
    endpoint: Endpoint,
    /// Connect again when the connection fails or ends; off for a one-off
    /// connection ([`Pool::connect_once`]), whose first failure is its answer.
    reconnect: bool,
    /// The handshake tried first.
    handshake: Handshake,
    stop: CancellationToken,
    shared: Mutex<Shared>,
    supervisor: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl Upstream {
    fn shared(&self) -> MutexGuard<'_, Shared> {
        self.shared.locked()
    }

    /// Its URL and client when its tokens come from that client's own
    /// credentials, with no person (`"grant": "clientCredentials"`).
    fn service_account(&self) -> Option<(&str, &sieve_core::OAuthClient)> {
        let Endpoint::Configured(server) = &self.endpoint else {
            return None;
        };
        match &server.transport {
            Transport::Http {
                url,
                oauth: Some(oauth),
                ..
            } if oauth.grant == sieve_core::Grant::ClientCredentials => Some((url, oauth)),
            _ => None,
        }
    }

    /// Whether it is a [service account](Upstream::service_account).
    fn signs_in_unattended(&self) -> bool {
        self.service_account().is_some()
    }

    /// How messages name the server: an HTTP server by its URL, which says
    /// most, any other by its name.
    fn subject(&self) -> String {
        match &self.endpoint {
            Endpoint::Configured(server) => match &server.transport {
                Transport::Http { url, .. } => url.clone(),
                Transport::Stdio { .. } => format!("server {:?}", self.name),
            },
            Endpoint::InProcess(_) => format!("server {:?}", self.name),
        }
    }
}

struct Shared {
    status: Status,
    listing: ServerListing,
    peer: Option<Peer<RoleClient>>,
    /// The raw results of this connection (every transport is tapped).
    raw: Option<RawLog>,
    /// The connection's own requests, on a line connection.
    lane: Option<Lane>,
    /// Why each list method last failed on this connection, if it did.
    list_errors: BTreeMap<&'static str, String>,
    /// Has been up or down at least once since it was added.
    settled: bool,
    /// Ends the connection that is up, and why it was ended, when a
    /// request's failure means it cannot go on (a refused sign-in).
    connection: Option<CancellationToken>,
    ended_because: Option<String>,
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
    /// Looks up the `${secret:NAME}` values of `env` and `headers`; none
    /// set means there is no secret store (every reference fails).
    secrets: Mutex<Option<SecretLookup>>,
    /// Where each server's sign-in is kept; none set means no server is
    /// signed in to.
    credentials: Mutex<Option<CredentialsFor>>,
    /// Wakes the servers waiting for a sign-in.
    signed_in: tokio::sync::Notify,
}

/// The place of a server's sign-in, by server name.
pub type CredentialsFor = Arc<dyn Fn(&str) -> crate::oauth::Credentials + Send + Sync>;

/// Looks up a secret by name: `Ok(None)` when there is no such secret, an
/// error when the store cannot be read. It may block (the system keychain
/// is asked over D-Bus): it is called off the runtime.
pub type SecretLookup =
    Arc<dyn Fn(&str) -> Result<Option<String>, sieve_store::secrets::SecretError> + Send + Sync>;

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
                secrets: Mutex::new(None),
                credentials: Mutex::new(None),
                signed_in: tokio::sync::Notify::new(),
            }),
        }
    }

    /// Where the `${secret:NAME}` values of `env` and `headers` come from.
    pub fn set_secrets(&self, lookup: SecretLookup) {
        *self.inner.secrets.locked() = Some(lookup);
    }

    /// Where the servers' sign-ins are kept.
    pub fn set_credentials(&self, credentials: CredentialsFor) {
        *self.inner.credentials.locked() = Some(credentials);
    }

    /// A sign-in may have been stored: the servers waiting for one look
    /// at once instead of at their next check.
    pub fn retry_sign_ins(&self) {
        self.inner.signed_in.notify_waiters();
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
        let mut upstreams = self.inner.upstreams.locked();
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
            let up = self.start(&name, endpoint, true, Handshake::default());
            upstreams.insert(name, up);
        }
    }

    /// Adds server `name` and connects to it once: no reconnection, so a
    /// failed attempt stays `down` with its reason, and a connection that
    /// ends is not replaced (`mcp-sieve servers probe`). The connection and
    /// listing are the same as every pooled server's, starting with the
    /// `handshake` given. Replaces a server of that name.
    pub fn connect_once(&self, name: &str, endpoint: Endpoint, handshake: Handshake) {
        let up = self.start(name, endpoint, false, handshake);
        if let Some(old) = self.inner.upstreams.locked().insert(name.to_string(), up) {
            old.stop.cancel();
        }
    }

    /// A new server with its supervisor running.
    fn start(
        &self,
        name: &str,
        endpoint: Endpoint,
        reconnect: bool,
        handshake: Handshake,
    ) -> Arc<Upstream> {
        let up = Arc::new(Upstream {
            name: name.to_string(),
            added: Instant::now(),
            endpoint,
            reconnect,
            handshake,
            stop: CancellationToken::new(),
            shared: Mutex::new(Shared {
                status: Status::new(State::Connecting),
                listing: ServerListing {
                    server: name.to_string(),
                    ..ServerListing::default()
                },
                peer: None,
                raw: None,
                lane: None,
                list_errors: BTreeMap::new(),
                settled: false,
                connection: None,
                ended_because: None,
            }),
            supervisor: Mutex::new(None),
        });
        let task = tokio::spawn(supervisor::supervise(up.clone(), self.inner.clone()));
        *up.supervisor.locked() = Some(task);
        up
    }

    /// The last known listing of every server, down ones included.
    pub fn listings(&self) -> Vec<ServerListing> {
        self.upstreams()
            .iter()
            .map(|up| up.shared().listing.clone())
            .collect()
    }

    /// The state of every server.
    pub fn statuses(&self) -> BTreeMap<String, Status> {
        self.upstreams()
            .iter()
            .map(|up| {
                let status = up.shared().status.clone();
                (up.name.clone(), status)
            })
            .collect()
    }

    /// The server's connection, or an error that names it and says why it
    /// cannot be used now.
    pub fn peer(&self, server: &str) -> Result<Peer<RoleClient>, CallError> {
        self.connection(server).map(|(peer, _)| peer)
    }

    /// The server's connection and, on a line connection, its lane; or an
    /// error that names it and says why it cannot be used now.
    fn connection(&self, server: &str) -> Result<(Peer<RoleClient>, Option<Lane>), CallError> {
        let up = self.upstream(server).ok_or_else(|| {
            CallError::of_server(server, format!("server {server:?} is not configured"), None)
        })?;
        let shared = up.shared();
        match (&shared.peer, shared.status.state) {
            (Some(peer), State::Up) => Ok((peer.clone(), shared.lane.clone())),
            _ => Err(unavailable(&up, &shared, now_ms())),
        }
    }

    /// The lane of `server` when it is up on a line connection (a child's
    /// stdio, the built-in demo); `None` otherwise.
    pub(crate) fn lane(&self, server: &str) -> Option<Lane> {
        self.connection(server).ok()?.1
    }

    /// Why `server` cannot be used now (starting, down, signed out), or
    /// `None` when it is up or not in the pool: for a request naming a
    /// primitive of it that no catalog holds yet, or any more.
    pub fn unavailable(&self, server: &str) -> Option<CallError> {
        let up = self.upstream(server)?;
        let shared = up.shared();
        match (&shared.peer, shared.status.state) {
            (Some(_), State::Up) => None,
            _ => Some(unavailable(&up, &shared, now_ms())),
        }
    }

    /// The names of the servers in the pool.
    pub fn names(&self) -> Vec<String> {
        self.inner.upstreams.locked().keys().cloned().collect()
    }

    /// The servers that are up and whose capabilities pass `wanted`.
    pub fn capable(
        &self,
        wanted: impl Fn(&rmcp::model::ServerCapabilities) -> bool,
    ) -> Vec<String> {
        self.upstreams()
            .iter()
            .filter(|up| {
                let shared = up.shared();
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

    /// Sends `method` with `params` to `server`; [`Sent::answer`] yields
    /// the upstream's answer (see [`call_error`] for failures). On a line
    /// connection the request goes as it came, through the connection's
    /// [`Lane`]; over HTTP through rmcp's client, as it came too. Either
    /// way the result comes back as the text the server sent, but for an
    /// HTTP answer that came before it was awaited (rmcp's typed result).
    pub async fn send(
        &self,
        server: &str,
        method: &str,
        params: &Value,
    ) -> Result<Sent, CallError> {
        let (peer, lane) = self.connection(server)?;
        if let Some(lane) = lane {
            let pending = lane
                .request(method, params)
                .map_err(|e| self.request_failed(server, closed(e)))?;
            return Ok(on_lane(lane, pending));
        }
        // The request goes as it came, params rmcp's model does not name
        // included; rmcp's client adds its headers and session.
        let request =
            request_as_it_came(method, params.clone()).map_err(|e| CallError::Unsendable {
                method: method.to_string(),
                why: e.to_string(),
            })?;
        let handle = peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| self.request_failed(server, e))?;
        let id = serde_json::to_value(&handle.id).unwrap_or_default();
        // The result is taken as the server sent it before rmcp's client
        // types it, unless it came before this: then rmcp's typed result.
        let mut awaited = self
            .upstream(server)
            .and_then(|up| up.shared().raw.clone())
            .map(|raw| raw.await_result(id_key(&id)));
        Ok(Sent {
            id,
            progress_token: handle.progress_token.clone(),
            to: Canceller::Rmcp(peer),
            answer: Box::pin(async move {
                let typed = handle.await_response().await;
                // The result is handed over before rmcp's client is given
                // its stand-in, so it is here when rmcp's request ends.
                match awaited.as_mut().and_then(|a| a.taken()) {
                    Some(message) => answer_of(Ok(message)),
                    None => typed.map(|result| Reply::Typed(Box::new(result))),
                }
            }),
        })
    }

    /// Sends a host's plain `call` to `server`, with `meta` for its
    /// `_meta`: on a line connection its params go as the host wrote them,
    /// never read into JSON; over HTTP as [`Pool::send`] sends them.
    pub async fn send_call(
        &self,
        server: &str,
        call: &HostCall,
        meta: &serde_json::Map<String, Value>,
    ) -> Result<Sent, CallError> {
        let (_, lane) = self.connection(server)?;
        let Some(lane) = lane else {
            let mut params = call.to_json();
            if let Value::Object(object) = &mut params
                && !meta.is_empty()
            {
                object.insert("_meta".into(), Value::Object(meta.clone()));
            }
            return self.send(server, "tools/call", &params).await;
        };
        let pending = lane
            .request_with(
                "tools/call",
                call.params_bytes(),
                |out| call.write_members(out),
                meta,
            )
            .map_err(|e| self.request_failed(server, closed(e)))?;
        Ok(on_lane(lane, pending))
    }

    /// The JSON text of the result of request `id` to `server` as the
    /// server sent it, when its connection's tap kept it (a call's result:
    /// every field, those rmcp's model drops too). Taken once.
    pub fn raw_result(&self, server: &str, id: &Value) -> Option<String> {
        let raw = self.upstream(server)?.shared().raw.clone()?;
        raw.take_text(&id_key(id))
    }

    /// Sends `method` as it is (rmcp does not model it, or would drop part
    /// of it: 2025-11-25 task requests) and returns the raw result.
    pub async fn call_raw(
        &self,
        server: &str,
        method: &str,
        params: Value,
    ) -> Result<Value, CallError> {
        let sent = self.send(server, method, &params).await?;
        match sent.answer.await {
            Ok(Reply::Sent(message)) => message.result_as().map_err(|e| {
                self.request_failed(server, rmcp::ServiceError::McpError(unreadable(&e)))
            }),
            // An HTTP answer that came before it was awaited: as the tap
            // kept it, if it did.
            Ok(Reply::Typed(typed)) => Ok(self
                .raw_result(server, &sent.id)
                .and_then(|text| serde_json::from_str(&text).ok())
                .unwrap_or_else(|| serde_json::to_value(*typed).unwrap_or_default())),
            Err(error) => Err(self.request_failed(server, error)),
        }
    }

    /// Whether `server` speaks the 2026-07-28 tasks extension (else it has
    /// 2025-11-25 tasks, or none).
    pub fn modern_tasks(&self, server: &str) -> bool {
        self.upstream(server)
            .and_then(|up| up.shared().peer.clone())
            .and_then(|peer| peer.peer_info())
            .is_some_and(|info| info.capabilities.supports_tasks())
    }

    fn upstream(&self, server: &str) -> Option<Arc<Upstream>> {
        self.inner.upstreams.locked().get(server).cloned()
    }

    /// Sends a request and waits for the answer, with no host attached (a
    /// retry from the command line).
    pub async fn call(
        &self,
        server: &str,
        method: &str,
        params: Value,
    ) -> Result<ServerResult, CallError> {
        let sent = self.send(server, method, &params).await?;
        match sent.answer.await {
            Ok(reply) => reply
                .typed()
                .map(mark_complete)
                .map_err(|e| self.request_failed(server, e)),
            Err(error) => Err(self.request_failed(server, error)),
        }
    }

    /// The error a host gets when a request to `server` failed, once what
    /// the failure tells is taken in: a challenge to sign in with, and for
    /// a 401 the end of the connection, so that the server shows as signed
    /// out (and comes back when a sign-in works) instead of looking up
    /// while it refuses every request.
    pub fn request_failed(&self, server: &str, error: rmcp::ServiceError) -> CallError {
        self.note_challenge(server, &error);
        if connect::sign_in_refused(&error)
            && let Some(up) = self.upstream(server)
        {
            let why = connect::service_failure(&up.subject(), &error);
            let mut shared = up.shared();
            if let Some(connection) = shared.connection.take() {
                tracing::warn!("server {server:?} refused its sign-in; connecting again");
                shared.ended_because = Some(why.clone());
                connection.cancel();
            }
            return CallError::of_server(
                server,
                format!(
                    "server {server:?} is signed out ({why}; sign in with `mcp-sieve servers login {server}`)"
                ),
                Some(json!({"server": server, "state": State::NeedsLogin})),
            );
        }
        call_error(server, error)
    }

    /// Keeps the `WWW-Authenticate` header of a request's 401 or 403, to
    /// sign in (again) with.
    fn note_challenge(&self, server: &str, error: &rmcp::ServiceError) {
        if let Some(challenge) = connect::request_challenge(error)
            && let Some(up) = self.upstream(server)
        {
            up.shared().status.challenge = Some(challenge.clone());
            let credentials = self.inner.credentials.locked().as_ref().map(|f| f(server));
            if let Some(credentials) = credentials {
                let server = server.to_string();
                tokio::spawn(async move {
                    if let Err(why) = credentials.remember_challenge(&challenge).await {
                        tracing::warn!("server {server:?}: {why}");
                    }
                });
            }
        }
    }

    /// A host whose profile shows the servers `sees` says changed its
    /// roots: the servers that take their roots from hosts and that this
    /// host sees are told, and ask again.
    pub fn host_roots_changed(&self, sees: &(dyn Fn(&str) -> bool + Send + Sync)) {
        for up in self.upstreams() {
            let opted_in = matches!(
                &up.endpoint,
                Endpoint::Configured(server) if server.roots == sieve_core::Roots::Host
            );
            if !opted_in || !sees(&up.name) {
                continue;
            }
            if let Some(peer) = up.shared().peer.clone() {
                tokio::spawn(async move {
                    let _ = peer.notify_roots_list_changed().await;
                });
            }
        }
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
            let all = self.upstreams().iter().all(|up| up.shared().settled);
            if all {
                return;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || tokio::time::timeout(left, events.recv()).await.is_err() {
                return;
            }
        }
    }

    /// Waits while a server that is starting for the first time has not
    /// answered (been listed, or failed once), for at most `window` after
    /// it was added; the wait of a host's list. A server that has answered
    /// once, or was added longer ago, is not waited for.
    pub async fn started(&self, window: Duration) {
        self.started_where(window, |_| true).await;
    }

    /// [`Pool::started`] for the servers run in this process (the
    /// built-in demo), which answer in a moment.
    pub async fn in_process_started(&self, window: Duration) {
        self.started_where(window, |endpoint| {
            matches!(endpoint, Endpoint::InProcess(_))
        })
        .await;
    }

    async fn started_where(&self, window: Duration, which: impl Fn(&Endpoint) -> bool) {
        let mut events = self.events();
        loop {
            let deadline = self
                .upstreams()
                .iter()
                .filter(|up| which(&up.endpoint) && !up.shared().settled)
                .map(|up| up.added + window)
                .max();
            let Some(deadline) = deadline else { return };
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || tokio::time::timeout(left, events.recv()).await.is_err() {
                return;
            }
        }
    }

    /// Stops every server and waits until their processes are gone.
    pub async fn shutdown(&self) {
        let upstreams: Vec<_> = std::mem::take(&mut *self.inner.upstreams.locked())
            .into_values()
            .collect();
        for up in &upstreams {
            up.stop.cancel();
        }
        for up in upstreams {
            let task = up.supervisor.locked().take();
            if let Some(task) = task {
                let _ = task.await;
            }
        }
    }

    fn upstreams(&self) -> Vec<Arc<Upstream>> {
        self.inner.upstreams.locked().values().cloned().collect()
    }
}

/// Why `up` cannot be used now, as of `now` (ms): its state, since when,
/// its last error, and what happens next.
fn unavailable(up: &Upstream, shared: &Shared, now: i64) -> CallError {
    let server = &up.name;
    let status = &shared.status;
    let since = crate::clock::time_of_day(status.since);
    let error = status.error.as_deref();
    let message = match status.state {
        State::Connecting | State::Up if !shared.settled => format!(
            "server {server:?} is starting (no answer yet since {since}); it can be used once it answers"
        ),
        State::Connecting | State::Up => {
            format!("server {server:?} is connecting (since {since}); try again shortly")
        }
        State::NeedsLogin => format!(
            "server {server:?} is signed out ({})",
            error.unwrap_or("it wants a sign-in")
        ),
        State::Stopped => format!("server {server:?} was stopped"),
        State::Disabled => format!("server {server:?} is switched off in config.json"),
        State::Down => {
            let next = match status.retry_at {
                _ if !up.reconnect => "it is not tried again".to_string(),
                Some(at) if at > now => {
                    format!("MCP Sieve tries again in {} s", (at - now + 999) / 1000)
                }
                _ => "MCP Sieve is trying again now".to_string(),
            };
            format!(
                "server {server:?} is down since {since}: {}; {next}",
                error.unwrap_or("its connection ended")
            )
        }
    };
    let mut data = json!({"server": server, "state": status.state, "since": status.since});
    if let Some(error) = error {
        data["error"] = json!(error);
    }
    CallError::of_server(server, message, Some(data))
}

/// The error a host gets when a request to `server` fails.
fn call_error(server: &str, error: rmcp::ServiceError) -> CallError {
    match error {
        // The upstream's own answer goes to the host unchanged.
        rmcp::ServiceError::McpError(error) => CallError::upstream(server, error),
        rmcp::ServiceError::TransportClosed => CallError::of_server(
            server,
            format!(
                "server {server:?} closed its connection during the request; the proxy reconnects by itself, try again shortly"
            ),
            Some(json!({"server": server})),
        ),
        other => CallError::of_server(
            server,
            format!(
                "the request failed: {}",
                connect::service_failure(&format!("server {server:?}"), &other)
            ),
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

/// Sends `request` and returns its result as the server sent it: from the
/// connection's raw tap when it kept it (lists: it keeps fields rmcp's
/// model drops), else rmcp's typed result.
/// A request sent on `lane`, its answer `pending`.
fn on_lane(lane: crate::lane::Lane, pending: crate::lane::Pending) -> Sent {
    let id = pending.id().clone();
    Sent {
        progress_token: rmcp::model::ProgressToken(crate::sent::rmcp_id(&id)),
        id: id.to_value(),
        to: Canceller::Lane(lane),
        answer: Box::pin(async move { answer_of(pending.await) }),
    }
}

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
        Some(mut result) => {
            left_out_stay_out(&mut result, &typed);
            Ok(result)
        }
        None => Ok(serde_json::to_value(typed).unwrap_or_default()),
    }
}

/// The tools rmcp's transport left out of its typed list stay out of the
/// raw one: a 2026-07-28 client must not call a tool whose `x-mcp-header`
/// annotations are invalid, and rmcp drops those.
fn left_out_stay_out(raw: &mut Value, typed: &ServerResult) {
    let (ServerResult::ListToolsResult(list), Some(Value::Array(items))) =
        (typed, raw.get_mut("tools"))
    else {
        return;
    };
    if list.tools.len() == items.len() {
        return;
    }
    let kept: std::collections::HashSet<&str> =
        list.tools.iter().map(|tool| tool.name.as_ref()).collect();
    items.retain(|item| {
        item.get("name")
            .and_then(Value::as_str)
            .is_some_and(|name| kept.contains(name))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_rmcp_left_out_stays_out_and_the_rest_keep_their_fields() {
        let mut raw = json!({"tools": [
            {"name": "kept", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}},
            {"name": "refused", "inputSchema": {"type": "object"}},
        ]});
        let typed: ServerResult = serde_json::from_value(json!({
            "tools": [{"name": "kept", "inputSchema": {"type": "object"}}]
        }))
        .expect("a typed list");
        assert!(matches!(typed, ServerResult::ListToolsResult(_)));
        left_out_stay_out(&mut raw, &typed);
        let tools = raw["tools"].as_array().expect("tools");
        assert_eq!(tools.len(), 1, "{raw}");
        assert_eq!(tools[0]["execution"]["taskSupport"], "optional", "{raw}");
    }
}
