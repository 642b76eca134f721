//! A request on its way to a server, whichever connection carries it: its
//! id there, the progress token it carries, where to cancel it, and its
//! answer to come ([`Sent`]), which is the result's text as the server
//! sent it on a line connection's lane (`crate::lane`) or rmcp's typed
//! result over HTTP ([`Reply`]).

use crate::lane::Lane;
use rmcp::RoleClient;
use rmcp::model::ServerResult;
use rmcp::service::Peer;
use serde_json::{Value, json};

/// A request on its way to a server: its id there, the progress token it
/// carries, where to cancel it, and its answer to come.
pub struct Sent {
    /// The request's id on the server's connection, as JSON.
    pub id: Value,
    pub progress_token: rmcp::model::ProgressToken,
    /// The connection it went on, to cancel it.
    pub to: Canceller,
    /// The server's answer; dropping it gives up on it.
    pub answer: std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<Reply, rmcp::ServiceError>> + Send>,
    >,
}

/// A server's answer to a request: its response as the server sent it,
/// read once (a line connection's, or one the HTTP tap kept), or rmcp's
/// typed result (an HTTP answer that came before it was awaited).
#[derive(Debug)]
pub enum Reply {
    /// A response with a result ([`sieve_wire::Message::result`]).
    Sent(Box<sieve_wire::Message>),
    Typed(Box<ServerResult>),
}

impl Reply {
    /// The answer as rmcp's typed result.
    pub fn typed(self) -> Result<ServerResult, rmcp::ServiceError> {
        match self {
            Reply::Typed(result) => Ok(*result),
            Reply::Sent(message) => message
                .result_as()
                .map_err(|e| rmcp::ServiceError::McpError(unreadable(&e))),
        }
    }
}

/// The connection a request went on, which is where it is cancelled.
#[derive(Clone)]
pub enum Canceller {
    Rmcp(Peer<RoleClient>),
    Lane(Lane),
}

impl Canceller {
    /// Tells the server that request `id` is given up on, for `reason`,
    /// without waiting: a lane queues the notice; rmcp's client sends it
    /// on a task of its own, since over HTTP it is a POST that a server
    /// which stopped answering holds as long as the call, and rmcp's
    /// client sends such notices one at a time.
    pub fn cancel(&self, id: &Value, reason: &str) {
        match self {
            Canceller::Rmcp(peer) => {
                let cancel: Result<rmcp::model::ClientNotification, _> =
                    serde_json::from_value(json!({
                        "method": "notifications/cancelled",
                        "params": {"requestId": id, "reason": reason}
                    }));
                if let Ok(cancel) = cancel {
                    let peer = peer.clone();
                    tokio::spawn(async move { peer.send_notification(cancel).await });
                }
            }
            Canceller::Lane(lane) => {
                if let Some(id) = sieve_wire::Id::from_value(id) {
                    lane.cancel(&id, reason);
                }
            }
        }
    }
}

/// A lane's answer as a [`Reply`]: the result's text, or the server's
/// error as rmcp's, or the connection's end.
pub(crate) fn answer_of(
    answer: std::io::Result<sieve_wire::Message>,
) -> Result<Reply, rmcp::ServiceError> {
    let message = answer.map_err(closed)?;
    if message.result().is_some() {
        return Ok(Reply::Sent(Box::new(message)));
    }
    let error = message
        .error_as::<rmcp::ErrorData>()
        .unwrap_or_else(|e| unreadable(&e));
    Err(rmcp::ServiceError::McpError(error))
}

/// A lane that could not send, or whose server went, as rmcp's error for
/// a closed connection.
pub(crate) fn closed(error: std::io::Error) -> rmcp::ServiceError {
    tracing::debug!("a server's connection ended: {error}");
    rmcp::ServiceError::TransportClosed
}

/// A server's answer that is not what its request asks for.
pub(crate) fn unreadable(error: &dyn std::fmt::Display) -> rmcp::ErrorData {
    rmcp::ErrorData::internal_error(
        format!("the server's answer could not be read: {error}"),
        None,
    )
}
