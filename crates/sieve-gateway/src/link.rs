//! A host connection as the proxy's handlers see it: [`HostLink`], the way
//! back to the host (notifications, server-to-host requests, what the host
//! said of itself), and [`HostRequest`], one request being served (its id,
//! `_meta`, cancellation, the HTTP request's parts, the link it came on).
//!
//! Handlers, the host registry and the task relays use only these, never
//! the transport under them. Today a link is an rmcp peer (stdio hosts and
//! the HTTP front are served through rmcp's service loop); a message layer
//! of the proxy's own is the other way a link can be made, and nothing
//! above this module has to change for it.

use rmcp::model::{
    ClientCapabilities, ClientResult, Extensions, InitializeRequestParams, ProtocolVersion,
    RequestId, RequestMetaObject, ServerNotification, ServerRequest,
};
use rmcp::service::{NotificationContext, Peer, RequestContext};
use rmcp::{ErrorData, RoleServer, ServiceError};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The way back to one host connection.
#[derive(Clone)]
pub struct HostLink(Way);

#[derive(Clone)]
enum Way {
    /// A connection rmcp's service loop runs.
    Rmcp(Peer<RoleServer>),
}

impl std::fmt::Debug for HostLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostLink").finish_non_exhaustive()
    }
}

impl HostLink {
    /// The link of a connection rmcp's service loop runs.
    pub fn rmcp(peer: Peer<RoleServer>) -> HostLink {
        HostLink(Way::Rmcp(peer))
    }

    /// Sends a notification to the host.
    pub async fn notify(&self, notification: ServerNotification) -> Result<(), ServiceError> {
        match &self.0 {
            Way::Rmcp(peer) => peer.send_notification(notification).await,
        }
    }

    /// Asks the host (sampling, elicitation, roots, ping) and waits for
    /// its answer.
    pub async fn ask(&self, request: ServerRequest) -> Result<ClientResult, ServiceError> {
        match &self.0 {
            Way::Rmcp(peer) => peer.send_request(request).await,
        }
    }

    /// What the host said of itself in `initialize`, once it has.
    pub fn client(&self) -> Option<Arc<InitializeRequestParams>> {
        match &self.0 {
            Way::Rmcp(peer) => peer.peer_info(),
        }
    }

    /// Keeps what the host said of itself in `initialize`.
    pub fn set_client(&self, info: InitializeRequestParams) {
        match &self.0 {
            Way::Rmcp(peer) => peer.set_peer_info(info),
        }
    }

    /// Whether the host has gone.
    pub fn is_closed(&self) -> bool {
        match &self.0 {
            Way::Rmcp(peer) => peer.is_transport_closed(),
        }
    }
}

/// One request from a host, being served.
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
    /// A request rmcp's service loop hands over.
    pub fn from_rmcp(context: RequestContext<RoleServer>) -> HostRequest {
        HostRequest {
            id: context.id,
            meta: context.meta,
            ct: context.ct,
            extensions: context.extensions,
            link: HostLink::rmcp(context.peer),
        }
    }

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

/// A notification from a host: the HTTP request's parts, and the link.
pub struct HostNotice {
    pub extensions: Extensions,
    pub link: HostLink,
}

impl HostNotice {
    /// A notification rmcp's service loop hands over.
    pub fn from_rmcp(context: NotificationContext<RoleServer>) -> HostNotice {
        HostNotice {
            extensions: context.extensions,
            link: HostLink::rmcp(context.peer),
        }
    }
}
