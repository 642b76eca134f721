//! The host connections of one proxy process, as seen from the upstream
//! side: where a progress notification, a log message, a resource update or
//! a server-to-client request (sampling, elicitation, roots) must go.
//!
//! One upstream connection is shared by every host connection, so upstream
//! progress tokens are rmcp's own (unique per upstream peer) and are mapped
//! back to the host's token of the call that caused them; a server-to-client
//! request goes to the host with a call in flight to that server (the most
//! recent one), since that call is what the server is asking about.

#![allow(deprecated)] // sampling, roots and logging are deprecated in 2026-07-28 but live in 2025-11-25

use crate::link::HostLink;
use crate::sync::Locked;
use rmcp::ErrorData;
use rmcp::model::{
    ClientResult, LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam,
    ProgressToken, ResourceUpdatedNotificationParam, ServerNotification, ServerRequest,
};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Identifies one host connection.
pub type HostId = u64;

/// Every live host connection and what is in flight for it.
#[derive(Default)]
pub struct Hosts {
    next: AtomicU64,
    inner: Mutex<Inner>,
    parked: Mutex<HashMap<String, Flight>>,
    /// Answers the server-to-client requests no host can take, where the
    /// person is at hand instead of a host (`mcp-sieve servers probe`).
    local: Mutex<Option<LocalAnswer>>,
}

/// An answer to a server-to-client request given in this process rather
/// than by a host; see [`Hosts::answer_locally`].
pub type LocalAnswer = Arc<dyn Fn(&ServerRequest) -> Result<ClientResult, ErrorData> + Send + Sync>;

impl std::fmt::Debug for Hosts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hosts").finish_non_exhaustive()
    }
}

#[derive(Default)]
struct Inner {
    conns: BTreeMap<HostId, Conn>,
    /// (server, upstream progress token) -> where that call's progress goes.
    progress: HashMap<(String, String), ProgressRoute>,
    /// Calls in flight: (call, host peer, server, bridge), newest last. A
    /// call of a 2026-07-28 host has a bridge: server-to-client requests
    /// for it become `input_required` results (see [`Asked`]).
    calls: Vec<(u64, HostLink, String, Option<Bridge>)>,
    /// 2026-07-28 `subscriptions/listen` streams and the resources they
    /// follow, by listener id.
    listeners: HashMap<u64, (tokio::sync::mpsc::UnboundedSender<String>, HashSet<String>)>,
    /// Hosts to tell when a task they hold changes: Sieve task id ->
    /// (host, whether it speaks 2025-11-25 tasks).
    task_watchers: HashMap<String, (HostLink, bool)>,
    next_call: u64,
}

impl Inner {
    /// Records a call in flight from `peer` to `server`; gives its number.
    fn track(&mut self, peer: &HostLink, server: &str, bridge: Option<Bridge>) -> u64 {
        self.next_call += 1;
        let call = self.next_call;
        self.calls
            .push((call, peer.clone(), server.to_string(), bridge));
        call
    }
}

struct Conn {
    peer: HostLink,
    outbox: Outbox,
    /// Whether the host's profile shows a server, as things are now.
    sees: Sees,
    subscriptions: HashSet<String>,
    level: Option<LoggingLevel>,
}

/// Notifications for one host, sent in the order they were queued by a
/// task of their own, so a flood from a server neither reorders them nor
/// holds up the upstream connection. A host that falls more than
/// [`OUTBOX_CAPACITY`] behind loses log and progress messages of the
/// overflow (with a warning), rather than the proxy's memory growing
/// without bound; list changes, updates and cancellations still arrive.
#[derive(Clone)]
pub struct Outbox(tokio::sync::mpsc::Sender<ServerNotification>);

/// How many notifications may wait for one host.
const OUTBOX_CAPACITY: usize = 8192;

impl Outbox {
    fn new(peer: HostLink) -> Outbox {
        let (queue, mut queued) = tokio::sync::mpsc::channel(OUTBOX_CAPACITY);
        tokio::spawn(async move {
            while let Some(notification) = queued.recv().await {
                if peer.notify(notification).await.is_err() {
                    break;
                }
            }
        });
        Outbox(queue)
    }

    /// Whether a notification would be queued now.
    fn has_room(&self) -> bool {
        self.0.capacity() > 0
    }

    /// A log or progress message dropped because the host is too far behind.
    fn overflowed(&self) {
        tracing::warn!(
            "a host is more than {OUTBOX_CAPACITY} notifications behind; dropping a log or progress message"
        );
    }

    fn send(&self, notification: ServerNotification) {
        let Err(tokio::sync::mpsc::error::TrySendError::Full(notification)) =
            self.0.try_send(notification)
        else {
            return;
        };
        match notification {
            // What a flood is made of: the host can do without some.
            ServerNotification::LoggingMessageNotification(_)
            | ServerNotification::ProgressNotification(_) => self.overflowed(),
            // A list change, an update or a cancellation must arrive, if
            // after the queue ahead of it.
            notification => {
                let queue = self.0.clone();
                tokio::spawn(async move {
                    let _ = queue.send(notification).await;
                });
            }
        }
    }
}

/// Where one call's progress goes, and how far it got.
struct ProgressRoute {
    /// The host's side of the call.
    peer: HostLink,
    /// Made with the call's first progress: most calls have none, and an
    /// outbox (a queue and a task) for each would hold kilobytes per call
    /// for as long as the route is kept.
    outbox: Option<Outbox>,
    /// The call's own response, when the HTTP front answers it: progress
    /// goes there rather than to `peer`.
    sink: Option<CallProgress>,
    /// The host's own token.
    token: ProgressToken,
    /// The last progress passed on. rmcp handles each notification in a
    /// task of its own, so two that arrive close together may reach us out
    /// of order; progress must only increase, so a late one is dropped.
    last: Option<f64>,
}

/// Whether a host's profile shows server `name` (its `servers` list names
/// it, or it has none), asked afresh each time since profiles change live.
/// What a server sends outside a call (log messages, questions) goes only
/// to hosts that see the server.
pub type Sees = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// A 2026-07-28 listener's registration; dropping it ends it.
#[must_use]
pub struct Listening {
    hosts: Arc<Hosts>,
    id: u64,
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.hosts.lock().listeners.remove(&self.id);
    }
}

/// A server-to-client request for a call whose host cannot be asked
/// directly (2026-07-28 hosts take questions only as `input_required`
/// results): the call's own handler relays it and sends the answer back.
pub struct Asked {
    /// The request as JSON-RPC `{method, params}`.
    pub request: serde_json::Value,
    pub answer: tokio::sync::oneshot::Sender<Result<ClientResult, ErrorData>>,
}

/// Where a call's questions go.
pub type Bridge = tokio::sync::mpsc::UnboundedSender<Asked>;

/// Where the progress of a call goes when the proxy's own front answers
/// the call (stdio's `crate::front`, HTTP's `crate::direct`): ahead of its
/// answer and never after it, instead of through the host's queue. It
/// rides in the call's request context.
#[derive(Clone)]
pub struct CallProgress(pub tokio::sync::mpsc::UnboundedSender<ProgressNotificationParam>);

/// Removes what it tracks when dropped, so a finished or failed call never
/// leaves routing state behind.
#[must_use]
pub struct Tracked {
    hosts: Arc<Hosts>,
    progress: Option<(String, String)>,
    call: u64,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let mut inner = self.hosts.lock();
        inner.calls.retain(|(id, _, _, _)| *id != self.call);
        let Some(key) = self.progress.take() else {
            return;
        };
        if inner
            .progress
            .get(&key)
            .is_some_and(|route| route.sink.is_some())
        {
            // The call's response is over: later progress has nowhere to go.
            inner.progress.remove(&key);
            return;
        }
        drop(inner);
        // rmcp runs notification handlers concurrently with the response,
        // so the last progress of a call may be handled just after the
        // call ended: its route stays a moment longer.
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                let hosts = self.hosts.clone();
                runtime.spawn(async move {
                    tokio::time::sleep(PROGRESS_GRACE).await;
                    hosts.lock().progress.remove(&key);
                });
            }
            Err(_) => {
                self.hosts.lock().progress.remove(&key);
            }
        }
    }
}

/// How long a finished call's progress route is kept.
const PROGRESS_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

fn token_key(token: &ProgressToken) -> String {
    serde_json::to_string(&token.0).unwrap_or_default()
}

impl Hosts {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.locked()
    }

    /// Registers a host connection whose profile shows the servers `sees`
    /// says; call [`Hosts::unregister`] when it ends.
    pub fn register(&self, peer: HostLink, sees: Sees) -> HostId {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock().conns.insert(
            id,
            Conn {
                outbox: Outbox::new(peer.clone()),
                peer,
                sees,
                subscriptions: HashSet::new(),
                level: None,
            },
        );
        id
    }

    pub fn unregister(&self, host: HostId) {
        self.lock().conns.remove(&host);
    }

    /// Has `answer` take the server-to-client requests that no connected
    /// host can (instead of refusing them with -32601).
    pub fn answer_locally(&self, answer: LocalAnswer) {
        *self.local.locked() = Some(answer);
    }

    /// Records a call from the host at `peer` to `server`, and where its
    /// progress goes: to `sink` if the call has one, else to `peer`. A peer
    /// rather than a [`HostId`], because a 2026-07-28 request has a peer of
    /// its own and no session to register.
    pub fn track_call(
        self: &Arc<Self>,
        peer: &HostLink,
        server: &str,
        upstream_token: &ProgressToken,
        host_token: Option<ProgressToken>,
        bridge: Option<Bridge>,
        sink: Option<CallProgress>,
    ) -> Tracked {
        let mut inner = self.lock();
        let call = inner.track(peer, server, bridge);
        let mut progress = None;
        if let Some(host_token) = host_token {
            let key = (server.to_string(), token_key(upstream_token));
            inner.progress.insert(
                key.clone(),
                ProgressRoute {
                    peer: peer.clone(),
                    outbox: None,
                    sink,
                    token: host_token,
                    last: None,
                },
            );
            progress = Some(key);
        }
        Tracked {
            hosts: self.clone(),
            progress,
            call,
        }
    }

    /// Records a call from the host at `peer` to `server` that takes no
    /// progress and no questions as `input_required` (a 2025-11-25 host's
    /// call without a progress token).
    pub fn track_plain_call(self: &Arc<Self>, peer: &HostLink, server: &str) -> Tracked {
        let call = self.lock().track(peer, server, None);
        Tracked {
            hosts: self.clone(),
            progress: None,
            call,
        }
    }

    /// Sets the log level a host asked for; `None` means all.
    pub fn set_level(&self, host: HostId, level: LoggingLevel) {
        if let Some(conn) = self.lock().conns.get_mut(&host) {
            conn.level = Some(level);
        }
    }

    pub fn subscribe(&self, host: HostId, uri: &str) {
        if let Some(conn) = self.lock().conns.get_mut(&host) {
            conn.subscriptions.insert(uri.to_string());
        }
    }

    /// Whether any host is subscribed to `uri`.
    pub fn subscribed(&self, uri: &str) -> bool {
        self.lock()
            .conns
            .values()
            .any(|c| c.subscriptions.contains(uri))
    }

    pub fn unsubscribe(&self, host: HostId, uri: &str) {
        if let Some(conn) = self.lock().conns.get_mut(&host) {
            conn.subscriptions.remove(uri);
        }
    }

    /// Upstream progress: to the host whose call it belongs to, with the
    /// host's token; never a value below one already passed on.
    pub fn progress(&self, server: &str, mut params: ProgressNotificationParam) {
        let key = (server.to_string(), token_key(&params.progress_token));
        let mut inner = self.lock();
        let Some(route) = inner.progress.get_mut(&key) else {
            return;
        };
        if route.last.is_some_and(|last| params.progress <= last) {
            return;
        }
        route.last = Some(params.progress);
        params.progress_token = route.token.clone();
        if let Some(sink) = &route.sink {
            // Gone only with the call's response: nothing to tell then.
            let _ = sink.0.send(params);
            return;
        }
        let peer = &route.peer;
        route
            .outbox
            .get_or_insert_with(|| Outbox::new(peer.clone()))
            .send(ServerNotification::ProgressNotification(
                rmcp::model::Notification::new(params),
            ));
    }

    /// Upstream log messages: to every host whose profile shows the server
    /// and whose level lets them through, with the server named in
    /// `logger`.
    pub fn logging(&self, server: &str, mut params: LoggingMessageNotificationParam) {
        params.logger = Some(match params.logger.take() {
            Some(logger) => format!("{server}/{logger}"),
            None => server.to_string(),
        });
        let candidates: Vec<_> = self
            .lock()
            .conns
            .values()
            .filter(|c| c.level.is_none_or(|min| rank(params.level) >= rank(min)))
            .map(|c| (c.outbox.clone(), c.sees.clone()))
            .collect();
        // Asked outside the lock: a profile may have to be loaded. A host
        // whose outbox is full loses the message anyway, so its profile is
        // not asked: a flood costs each message little, and a host's next
        // request does not wait behind thousands of dear ones.
        for (outbox, sees) in candidates {
            if !outbox.has_room() {
                outbox.overflowed();
                continue;
            }
            if sees(server) {
                outbox.send(ServerNotification::LoggingMessageNotification(
                    rmcp::model::Notification::new(params.clone()),
                ));
            }
        }
    }

    /// Follows `uris` for a 2026-07-28 listener until the returned guard is
    /// dropped (the listen stream ends); their updates come on the receiver.
    pub fn listen(
        self: &Arc<Self>,
        uris: HashSet<String>,
    ) -> (Listening, tokio::sync::mpsc::UnboundedReceiver<String>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (updates, received) = tokio::sync::mpsc::unbounded_channel();
        self.lock().listeners.insert(id, (updates, uris));
        let listening = Listening {
            hosts: self.clone(),
            id,
        };
        (listening, received)
    }

    /// A resource update: to the hosts subscribed to its URI.
    pub fn resource_updated(&self, params: ResourceUpdatedNotificationParam) {
        for (updates, uris) in self.lock().listeners.values() {
            if uris.contains(&params.uri) {
                let _ = updates.send(params.uri.clone());
            }
        }
        for conn in self.lock().conns.values() {
            if conn.subscriptions.contains(&params.uri) {
                conn.outbox
                    .send(ServerNotification::ResourceUpdatedNotification(
                        rmcp::model::Notification::new(params.clone()),
                    ));
            }
        }
    }

    /// The hosts whose profile shows `server`, most recent first.
    pub fn seeing(&self, server: &str) -> Vec<HostLink> {
        let candidates: Vec<_> = self
            .lock()
            .conns
            .values()
            .rev()
            .map(|c| (c.peer.clone(), c.sees.clone()))
            .collect();
        candidates
            .into_iter()
            .filter(|(_, sees)| sees(server))
            .map(|(peer, _)| peer)
            .collect()
    }

    /// A server-to-client request from `server`: to the host with the most
    /// recent call in flight to it, else to the most recent host whose
    /// profile shows the server, among the hosts that declared the
    /// capability the request needs. A host that cannot see a server is
    /// never asked on its behalf.
    pub async fn request(
        &self,
        server: &str,
        request: ServerRequest,
    ) -> Result<ClientResult, ErrorData> {
        let method = serde_json::to_value(&request)
            .ok()
            .and_then(|v| v.get("method").and_then(|m| m.as_str()).map(String::from))
            .unwrap_or_default();
        let able = |peer: &HostLink| {
            // A host without initialize info (2026-07-28) is asked anyway:
            // rmcp refuses what that generation does not allow.
            peer.client().is_none_or(|info| {
                let caps = &info.capabilities;
                match method.as_str() {
                    "roots/list" => caps.roots.is_some(),
                    "sampling/createMessage" => caps.sampling.is_some(),
                    "elicitation/create" => caps.elicitation.is_some(),
                    _ => true,
                }
            })
        };
        // A host calling the server sees it: its profile let the call by.
        let caller = self
            .lock()
            .calls
            .iter()
            .rev()
            .find(|(_, peer, s, _)| s == server && able(peer))
            .map(|(_, peer, _, bridge)| (peer.clone(), bridge.clone()));
        let (peer, bridge) = match caller {
            Some((peer, bridge)) => (Some(peer), bridge),
            None => (
                self.seeing(server).into_iter().find(|peer| able(peer)),
                None,
            ),
        };
        if let Some(bridge) = bridge {
            let (answer, answered) = tokio::sync::oneshot::channel();
            let request = serde_json::to_value(&request).unwrap_or_default();
            bridge
                .send(Asked { request, answer })
                .map_err(|_| ErrorData::internal_error("the host's call has ended", None))?;
            return answered.await.unwrap_or_else(|_| {
                Err(ErrorData::internal_error("the host did not answer", None))
            });
        }
        let local = self.local.locked().clone();
        if peer.is_none()
            && let Some(answer) = local
        {
            return answer(&request);
        }
        let peer = peer.ok_or_else(|| {
            ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                format!("no connected host that sees server {server:?} supports {method}"),
                None,
            )
        })?;
        peer.ask(request).await.map_err(|e| match e {
            rmcp::ServiceError::McpError(error) => error,
            other => ErrorData::internal_error(format!("the host did not answer: {other}"), None),
        })
    }
}

impl Hosts {
    /// Tells `peer` about changes of task `id` from now on, in the
    /// 2025-11-25 shape (`notifications/tasks/status`) if `legacy`, else as
    /// `notifications/tasks`.
    pub fn watch_task(&self, id: &str, peer: &HostLink, legacy: bool) {
        self.lock()
            .task_watchers
            .insert(id.to_string(), (peer.clone(), legacy));
    }

    /// The host to tell about a change of task `id`, and whether it speaks
    /// 2025-11-25 tasks. A `finished` task is told once more and then
    /// forgotten.
    pub fn task_watcher(&self, id: &str, finished: bool) -> Option<(HostLink, bool)> {
        let mut inner = self.lock();
        if finished {
            inner.task_watchers.remove(id)
        } else {
            inner.task_watchers.get(id).cloned()
        }
    }
}

/// Severity order of log levels (rmcp's `LoggingLevel` is not `Ord`).
pub fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// A call to an upstream that a 2026-07-28 host has to answer questions
/// for: parked between the host's `input_required` result and its retry.
pub struct Flight {
    pub server: String,
    /// The upstream request's id, to cancel it.
    pub id: serde_json::Value,
    /// The connection it went on.
    pub to: crate::sent::Canceller,
    /// The upstream's answer, awaited where the call is driven (not in a
    /// task of its own, one more hop per call); dropping it gives up on it.
    pub upstream: std::pin::Pin<
        Box<
            dyn std::future::Future<Output = Result<crate::sent::Reply, rmcp::ServiceError>> + Send,
        >,
    >,
    /// The upstream's questions for a 2026-07-28 host, which takes them as
    /// `input_required` results; `None` for a host asked directly.
    pub asked: Option<tokio::sync::mpsc::UnboundedReceiver<Asked>>,
    /// Answers owed to the upstream, by the key the host was given.
    pub answers: std::collections::BTreeMap<
        String,
        tokio::sync::oneshot::Sender<Result<ClientResult, ErrorData>>,
    >,
    /// Kept for as long as the call is in flight or parked: dropping it
    /// removes the call's routes.
    pub tracked: Tracked,
}

/// How long a parked call waits for the host to come back.
const PARKED_FOR: std::time::Duration = std::time::Duration::from_secs(600);

impl Hosts {
    /// Parks `flight` under `token` until the host retries with it; a call
    /// the host never comes back for is cancelled upstream.
    pub fn park(self: &Arc<Self>, token: String, flight: Flight) {
        self.parked.locked().insert(token.clone(), flight);
        let hosts = Arc::downgrade(self);
        tokio::spawn(async move {
            tokio::time::sleep(PARKED_FOR).await;
            // Dropped: its answer is no longer awaited.
            drop(hosts.upgrade().and_then(|h| h.resume(&token)));
        });
    }

    /// The call parked under `token`, if any.
    pub fn resume(&self, token: &str) -> Option<Flight> {
        self.parked.locked().remove(token)
    }
}
