//! A host connection as the proxy's handlers see it: [`HostLink`], the way
//! back to the host (notifications, server-to-host requests, what the host
//! said of itself), and [`HostRequest`], one request being served (its id,
//! `_meta`, cancellation, the HTTP request's parts, the link it came on).
//!
//! Handlers, the host registry and the task relays use only these, never
//! the transport under them: every link is a [`Wire`] of the proxy's own
//! message layer (`crate::front`), over stdio or HTTP.

use crate::sync::{Locked, ReadWrite};
use rmcp::model::{
    ClientCapabilities, ClientResult, Extensions, GetMeta, InitializeRequestParams,
    NotificationMetaObject, ProtocolVersion, RequestId, RequestMetaObject, ServerJsonRpcMessage,
    ServerNotification, ServerRequest, SubscriptionFilter, SubscriptionsAcknowledgedNotification,
    SubscriptionsAcknowledgedNotificationParams,
};
use rmcp::{ErrorData, ServiceError};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// The way back to one host connection, which the proxy's own message
/// layer runs ([`Wire`]).
#[derive(Clone)]
pub struct HostLink(Arc<Wire>);

/// How many notifications may wait for a host's writer. Answers do not
/// count: they wait behind at most these.
const NOTICES_QUEUED: usize = 256;

/// One encoded message on its way to the host; a notification holds its
/// place among [`NOTICES_QUEUED`] until it is written.
pub struct Outgoing {
    pub line: Vec<u8>,
    _slot: Option<tokio::sync::OwnedSemaphorePermit>,
}

/// The way back of a connection the proxy's own message layer runs: the
/// lines it writes to the host, and its requests waiting for the host's
/// answer.
pub struct Wire {
    out: tokio::sync::mpsc::UnboundedSender<Outgoing>,
    /// Room for notifications between the host's outbox and its writer:
    /// a flood waits here (and the outbox drops its overflow) rather than
    /// piling up ahead of the answers.
    notices: Arc<tokio::sync::Semaphore>,
    waiting: Mutex<HashMap<String, oneshot::Sender<Result<ClientResult, ServiceError>>>>,
    next_id: AtomicU64,
    client: RwLock<Option<Arc<InitializeRequestParams>>>,
    /// The revision a connection opened without `initialize` named
    /// (2026-07-28): it takes no server-to-host requests.
    inline: OnceLock<ProtocolVersion>,
    closed: CancellationToken,
}

impl Wire {
    /// A wire whose messages go to `out`, one encoded message each.
    pub fn new(out: tokio::sync::mpsc::UnboundedSender<Outgoing>) -> Arc<Wire> {
        Arc::new(Wire {
            out,
            notices: Arc::new(tokio::sync::Semaphore::new(NOTICES_QUEUED)),
            waiting: Mutex::default(),
            next_id: AtomicU64::new(1),
            client: RwLock::default(),
            inline: OnceLock::new(),
            closed: CancellationToken::new(),
        })
    }

    /// Whether the connection opened with `initialize` on a revision that
    /// has it (before 2026-07-28): its requests need no `_meta` of their
    /// own.
    pub fn opened_by_initialize(&self) -> bool {
        self.inline.get().is_none()
            && self
                .client
                .reading()
                .as_ref()
                .is_some_and(|client| client.protocol_version.has_initialize())
    }

    /// Sends one message to the host.
    pub fn send(&self, message: &impl serde::Serialize) -> Result<(), ServiceError> {
        self.send_raw(encoded(message)?)
    }

    /// Sends one message already encoded.
    pub fn send_raw(&self, line: Vec<u8>) -> Result<(), ServiceError> {
        self.out
            .send(Outgoing { line, _slot: None })
            .map_err(|_| ServiceError::TransportClosed)
    }

    /// Sends a notification once there is room for it ahead of the
    /// writer ([`NOTICES_QUEUED`]).
    pub async fn notify(&self, notification: ServerNotification) -> Result<(), ServiceError> {
        let line = encoded(&ServerJsonRpcMessage::notification(notification))?;
        let slot = self
            .notices
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| ServiceError::TransportClosed)?;
        self.out
            .send(Outgoing {
                line,
                _slot: Some(slot),
            })
            .map_err(|_| ServiceError::TransportClosed)
    }

    /// The host answered request `id` (ours): hands the answer to whoever
    /// waits for it. Returns false when nobody does.
    pub fn answered(&self, id: &str, answer: Result<ClientResult, ServiceError>) -> bool {
        match self.waiting.locked().remove(id) {
            Some(waiter) => waiter.send(answer).is_ok(),
            None => false,
        }
    }

    /// The connection opened without `initialize`, on revision `version`.
    pub fn opened_inline(&self, version: ProtocolVersion) {
        let _ = self.inline.set(version);
    }

    /// The host went: requests waiting for it fail, and the link says so.
    pub fn close(&self) {
        self.closed.cancel();
        for (_, waiter) in self.waiting.locked().drain() {
            let _ = waiter.send(Err(ServiceError::TransportClosed));
        }
    }

    async fn ask(&self, request: ServerRequest) -> Result<ClientResult, ServiceError> {
        let version = crate::link::current_version()
            .or_else(|| self.inline.get().cloned())
            .or_else(|| {
                self.client
                    .reading()
                    .as_ref()
                    .map(|c| c.protocol_version.clone())
            });
        if version.is_some_and(|v| v >= ProtocolVersion::V_2026_07_28) {
            return Err(ServiceError::McpError(ErrorData::invalid_request(
                "a 2026-07-28 host takes no requests from the server; its questions come back as input_required results",
                None,
            )));
        }
        if self.closed.is_cancelled() {
            return Err(ServiceError::TransportClosed);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (waiter, answer) = oneshot::channel();
        self.waiting.locked().insert(id.to_string(), waiter);
        let message = ServerJsonRpcMessage::request(request, RequestId::Number(id as i64));
        if let Err(error) = self.send(&message) {
            self.waiting.locked().remove(&id.to_string());
            return Err(error);
        }
        answer.await.unwrap_or(Err(ServiceError::TransportClosed))
    }
}

/// One message as the line that carries it.
fn encoded(message: &impl serde::Serialize) -> Result<Vec<u8>, ServiceError> {
    serde_json::to_vec(message)
        .map_err(|e| ServiceError::McpError(ErrorData::internal_error(e.to_string(), None)))
}

impl std::fmt::Debug for HostLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostLink").finish_non_exhaustive()
    }
}

impl HostLink {
    /// The link of a connection the proxy's own message layer runs.
    pub fn own(wire: Arc<Wire>) -> HostLink {
        HostLink(wire)
    }

    /// Sends a notification to the host.
    pub async fn notify(&self, notification: ServerNotification) -> Result<(), ServiceError> {
        self.0.notify(notification).await
    }

    /// Asks the host (sampling, elicitation, roots, ping) and waits for
    /// its answer.
    pub async fn ask(&self, request: ServerRequest) -> Result<ClientResult, ServiceError> {
        self.0.ask(request).await
    }

    /// What the host said of itself in `initialize`, once it has.
    pub fn client(&self) -> Option<Arc<InitializeRequestParams>> {
        self.0.client.reading().clone()
    }

    /// Keeps what the host said of itself in `initialize`.
    pub fn set_client(&self, info: InitializeRequestParams) {
        *self.0.client.writing() = Some(Arc::new(info));
    }

    /// Whether the host has gone.
    pub fn is_closed(&self) -> bool {
        self.0.closed.is_cancelled() || self.0.out.is_closed()
    }
}

/// One request from a host, being served.
#[derive(Clone)]
pub struct HostRequest {
    /// The request's id as the host sent it.
    pub id: RequestId,
    /// The request's `_meta`.
    pub meta: RequestMetaObject,
    /// Cancelled when the host cancels the request or goes away.
    pub ct: CancellationToken,
    /// The HTTP request's parts (and what the HTTP front put there), when
    /// the request came over HTTP.
    pub extensions: Extensions,
    /// The connection the request came on.
    pub link: HostLink,
}

impl HostRequest {
    /// The request's protocol revision: its own `_meta` (2026-07-28), else
    /// what its connection agreed in `initialize`.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.meta
            .protocol_version()
            .or_else(|| self.link.client().map(|info| info.protocol_version.clone()))
    }

    /// The checks of a request's own `_meta` every request gets before it
    /// is served: a protocol revision it names must be one the proxy
    /// speaks, and a 2026-07-28 request must carry what that revision
    /// requires of each request.
    pub fn check_meta(&self) -> Result<(), ErrorData> {
        let Some(version) = self.meta.protocol_version() else {
            return Ok(());
        };
        let known = ProtocolVersion::KNOWN_VERSIONS;
        if !known.contains(&version) {
            return Err(ErrorData::unsupported_protocol_version(version, known));
        }
        if version.as_str() >= ProtocolVersion::V_2026_07_28.as_str() {
            let missing = self
                .meta
                .missing_required_keys(&ProtocolVersion::V_2026_07_28);
            if !missing.is_empty() {
                return Err(ErrorData::invalid_params(
                    format!(
                        "request _meta is missing or has malformed required fields: {}",
                        missing.join(", ")
                    ),
                    None,
                ));
            }
        }
        Ok(())
    }

    /// Whether the host declared it takes tasks: only such a host is
    /// answered with a task handle or asked task requests.
    pub fn takes_tasks(&self) -> bool {
        self.client_capabilities()
            .is_some_and(|caps| caps.supports_tasks())
    }

    /// The host's capabilities: a 2026-07-28 request's own `_meta`, else
    /// what its connection said in `initialize`.
    pub fn client_capabilities(&self) -> Option<ClientCapabilities> {
        if self.meta.protocol_version().is_some() {
            return self.meta.client_capabilities();
        }
        self.meta
            .client_capabilities()
            .or_else(|| self.link.client().map(|info| info.capabilities.clone()))
    }
}

/// Takes a request's `_meta` out of its raw `params`, as the request's
/// context keeps it (rmcp's loop does the same); `_meta` that is no object
/// is dropped.
pub fn take_meta(params: &mut serde_json::Value) -> RequestMetaObject {
    match params.as_object_mut().and_then(|p| p.remove("_meta")) {
        Some(meta @ serde_json::Value::Object(_)) => {
            serde_json::from_value(meta).unwrap_or_default()
        }
        _ => RequestMetaObject::default(),
    }
}

/// A notification from a host: the HTTP request's parts, and the link.
pub struct HostNotice {
    pub extensions: Extensions,
    pub link: HostLink,
}

tokio::task_local! {
    /// The protocol revision of the request being served, where a
    /// request's handler runs (a 2026-07-28 request takes no
    /// server-to-host requests, whatever its connection).
    static VERSION: Option<ProtocolVersion>;
}

/// Runs `serve` as the handler of a request of revision `version`. Not an
/// `async fn`: one would hold `serve` twice, as its argument and inside
/// the scope it awaits.
pub fn serving<F: std::future::Future>(
    version: Option<ProtocolVersion>,
    serve: F,
) -> impl std::future::Future<Output = F::Output> {
    VERSION.scope(version, serve)
}

fn current_version() -> Option<ProtocolVersion> {
    VERSION.try_with(Clone::clone).ok().flatten()
}

/// A 2026-07-28 `subscriptions/listen` being served: its request, the
/// filter it was acknowledged with, and where its notifications go.
pub struct Listening {
    request: HostRequest,
    accepted: SubscriptionFilter,
}

impl Listening {
    /// Acknowledges a listen on the proxy's own message layer (the host
    /// learns what it will be told) and returns it.
    pub async fn establish(
        request: HostRequest,
        accepted: SubscriptionFilter,
    ) -> Result<Listening, ErrorData> {
        let mut acknowledgment = SubscriptionsAcknowledgedNotification::new(
            SubscriptionsAcknowledgedNotificationParams::new(accepted.clone()),
        );
        let mut meta = NotificationMetaObject::new();
        meta.set_subscription_id(request.id.clone());
        acknowledgment.extensions.insert(meta);
        request
            .link
            .notify(ServerNotification::SubscriptionsAcknowledgedNotification(
                acknowledgment,
            ))
            .await
            .map_err(|error| {
                ErrorData::internal_error(format!("the listen was not acknowledged: {error}"), None)
            })?;
        Ok(Listening { request, accepted })
    }

    /// The listen request.
    pub fn request(&self) -> HostRequest {
        self.request.clone()
    }

    /// The filter the listen was acknowledged with.
    pub fn accepted(&self) -> &SubscriptionFilter {
        &self.accepted
    }

    /// Ends when the host ends the listen.
    pub async fn cancelled(&self) {
        self.request.ct.cancelled().await
    }

    /// Tells the host, if the listen asked for this kind of notification.
    /// Returns whether it went out.
    pub async fn send(&self, mut notification: ServerNotification) -> bool {
        let accepted = &self.accepted;
        let wanted = match &notification {
            ServerNotification::ToolListChangedNotification(_) => {
                accepted.tools_list_changed == Some(true)
            }
            ServerNotification::PromptListChangedNotification(_) => {
                accepted.prompts_list_changed == Some(true)
            }
            ServerNotification::ResourceListChangedNotification(_) => {
                accepted.resources_list_changed == Some(true)
            }
            ServerNotification::ResourceUpdatedNotification(update) => accepted
                .resource_subscriptions
                .as_ref()
                .is_some_and(|uris| uris.contains(&update.params.uri)),
            _ => false,
        };
        if !wanted || self.request.ct.is_cancelled() {
            return false;
        }
        notification
            .get_meta_mut()
            .set_subscription_id(self.request.id.clone());
        self.request.link.notify(notification).await.is_ok()
    }
}
