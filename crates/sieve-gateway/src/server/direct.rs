//! A plain `tools/call` over HTTP served without rmcp's session layer: the
//! HTTP front ([`crate::direct`]) hands it here with the request's parts,
//! and it runs through the one path of [`SieveServer::serve_request`] that
//! stdio's requests take (the checks of its `_meta`, the profile's checks,
//! the ledger, the audit, a task only for a host that takes tasks), only
//! not through rmcp's session worker, service loop and an SSE stream read
//! back.
//!
//! A 2025-11-25 call runs on its session's own connection and peer, which
//! [`Sessions`] keeps from the session's `initialized` until it closes; a
//! 2026-07-28 call on a connection of its own, as rmcp would make it.

use super::SieveServer;
use crate::hosts::CallProgress;
use crate::link::{HostLink, HostRequest, take_meta};
use crate::server::Opening;
use crate::sync::Locked;
use rmcp::model::{RequestId, ServerJsonRpcMessage};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// How often a session served only directly is shown to rmcp as in use,
/// well within its five minutes of idleness before it closes a session.
const TOUCH_EVERY: Duration = Duration::from_secs(60);

/// The 2025-11-25 sessions of one HTTP front, by session id: their
/// connection and peer, and the calls in flight that a host may cancel.
#[derive(Default)]
pub struct Sessions {
    open: Mutex<HashMap<String, Open>>,
}

struct Open {
    server: SieveServer,
    peer: HostLink,
    /// The calls served directly and in flight, by request id.
    calls: HashMap<String, CancellationToken>,
    touched: Instant,
}

/// A session's connection, as [`Sessions::session`] finds it.
pub struct Session {
    pub server: SieveServer,
    pub peer: HostLink,
    /// Whether rmcp should be shown the session is in use (see
    /// [`TOUCH_EVERY`]).
    pub touch: bool,
}

impl Sessions {
    /// Keeps session `id`'s connection, and forgets those that closed.
    pub(super) fn open(&self, id: &str, server: SieveServer, peer: HostLink) {
        let mut open = self.open.locked();
        open.retain(|_, session| !session.peer.is_closed());
        open.insert(
            id.to_string(),
            Open {
                server,
                peer,
                calls: HashMap::new(),
                touched: Instant::now(),
            },
        );
    }

    /// Session `id`'s connection, if it is open.
    pub fn session(&self, id: &str) -> Option<Session> {
        let mut open = self.open.locked();
        let session = open.get_mut(id)?;
        if session.peer.is_closed() {
            open.remove(id);
            return None;
        }
        let touch = session.touched.elapsed() >= TOUCH_EVERY;
        if touch {
            session.touched = Instant::now();
        }
        Some(Session {
            server: session.server.clone(),
            peer: session.peer.clone(),
            touch,
        })
    }

    /// Notes call `request` of session `id` in flight, cancelled by `ct`.
    pub fn started(&self, id: &str, request: &str, ct: &CancellationToken) {
        if let Some(session) = self.open.locked().get_mut(id) {
            session.calls.insert(request.to_string(), ct.clone());
        }
    }

    pub fn ended(&self, id: &str, request: &str) {
        if let Some(session) = self.open.locked().get_mut(id) {
            session.calls.remove(request);
        }
    }

    /// The host of session `id` cancelled `request`: if it is a call
    /// served directly, it is cancelled as rmcp would cancel its own.
    pub fn cancel(&self, id: &str, request: &str) {
        let ct = self
            .open
            .locked()
            .get(id)
            .and_then(|session| session.calls.get(request).cloned());
        if let Some(ct) = ct {
            ct.cancel();
        }
    }
}

impl SieveServer {
    /// Keeps this 2025-11-25 session's connection for calls served
    /// directly (from its `initialized`, which carries the session id).
    pub(super) fn open_session(&self, extensions: &rmcp::model::Extensions, peer: &HostLink) {
        let Some(sessions) = &self.conn.sessions else {
            return;
        };
        let id = extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.headers.get("mcp-session-id"))
            .and_then(|value| value.to_str().ok());
        if let Some(id) = id {
            sessions.open(id, self.clone(), peer.clone());
        }
    }

    /// Serves `tools/call` request `id` with `params` on `peer`, as rmcp's
    /// service loop would: the request's `_meta` in its context, the HTTP
    /// request's parts in its extensions, cancelled with `ct`; its progress
    /// (if the host asked for it) goes to `progress`.
    pub async fn call_directly(
        &self,
        peer: HostLink,
        parts: http::request::Parts,
        id: RequestId,
        mut params: Value,
        ct: CancellationToken,
        progress: Option<CallProgress>,
    ) -> ServerJsonRpcMessage {
        let meta = take_meta(&mut params);
        let mut extensions = rmcp::model::Extensions::default();
        extensions.insert(parts);
        if let Some(progress) = progress {
            extensions.insert(progress);
        }
        let context = HostRequest {
            id: id.clone(),
            meta,
            ct,
            extensions,
            link: peer,
        };
        // The one path every request takes: the same checks of its
        // `_meta`, its unnamed params kept, a task only for a host that
        // takes tasks.
        match self
            .serve_request("tools/call", params, context, Opening::Current)
            .await
        {
            Ok(result) => ServerJsonRpcMessage::response(result, id),
            Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
        }
    }
}
