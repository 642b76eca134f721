//! The host side of the message layer the proxy owns: each message read
//! once into its id, method and params ([`sieve_wire::Message`]), served by
//! the one path of [`SieveServer::serve_request`], the answer written with
//! the id as the host sent it. rmcp's service loop and session layer are
//! not in the way: its types serve where a handler reads or builds a
//! message, nothing more.
//!
//! [`Conn`] is one host connection, whatever carries it: a stdio host
//! ([`stdio`]), a 2025-11-25 HTTP session, or one 2026-07-28 HTTP request
//! ([`http`]). It opens the way either protocol generation opens it: with
//! `initialize` (2025-11-25 and before; `ping` may come first), or with
//! any request whose `_meta` names a revision of 2026-07-28 or later and
//! carries what that revision requires (`server/discover` may come first
//! and opens nothing). Until then other requests are refused, saying what
//! is missing. Requests are served concurrently, each cancelled by the
//! host's `notifications/cancelled` or when the connection ends; the
//! host's answers to the proxy's own requests (sampling, elicitation,
//! roots) go to whoever waits for them ([`Wire`]).

mod express;
mod headers;
pub(crate) mod http;
mod stdio;
mod stream;

pub use stdio::serve_lines;

use crate::hosts::CallProgress;
use crate::link::{HostLink, HostNotice, HostRequest, Wire, serving, take_meta};
use crate::server::{Answer, HostParams, Opening, SieveServer};
use crate::sync::Locked;
use rmcp::ErrorData;
use rmcp::model::{
    ClientResult, ErrorCode, Extensions, ProtocolVersion, RequestId, RequestMetaObject,
    ServerJsonRpcMessage,
};
use serde_json::Value;
use sieve_wire::{Id, Kind, Message};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// One host connection on the proxy's own message layer.
pub(crate) struct Conn {
    server: SieveServer,
    wire: Arc<Wire>,
    /// How the connection opened; `None` until it has.
    opening: Mutex<Option<Opening>>,
    /// The host's requests being served, by id, to cancel them.
    in_flight: Mutex<foldhash::HashMap<Id, InFlight>>,
    /// Gives up on plain calls whose time passed ([`express`]).
    sweeper: express::Sweeper,
    /// Cancelled when the connection ends.
    stop: CancellationToken,
    /// How many requests are being served.
    serving: tokio::sync::watch::Sender<usize>,
}

/// A host's request in flight, as it is cancelled.
enum InFlight {
    /// Served by a task: cancelling the token cancels it.
    Served(CancellationToken),
    /// A plain call waiting on its server's lane ([`express`]).
    OnLane(express::OnLane),
}

/// What a message from the host asks of its connection.
pub(crate) enum Taken {
    /// A request to serve ([`Serving::run`]), or its answer already made.
    Request(Begun),
    /// A notification or an answer: taken in, nothing goes back.
    Taken,
}

/// A request as it begins: refused or answered at once, or to be served.
pub(crate) enum Begun {
    Answered(Vec<u8>),
    Serve(Box<Serving>),
}

/// A request on its way to its handler, already in flight (a
/// `notifications/cancelled` for it finds it).
pub(crate) struct Serving {
    conn: Arc<Conn>,
    /// Counts it among those being served, and in flight, until it ends.
    counted: Counted,
    request_id: RequestId,
    method: String,
    params: HostParams,
    context: HostRequest,
    opening: Opening,
}

impl Conn {
    /// A connection whose requests are cancelled when `stop` is.
    pub(crate) fn new(server: SieveServer, wire: Arc<Wire>, stop: CancellationToken) -> Arc<Conn> {
        Arc::new(Conn {
            server,
            wire,
            opening: Mutex::new(None),
            in_flight: Mutex::default(),
            sweeper: express::Sweeper::default(),
            stop,
            serving: tokio::sync::watch::Sender::new(0),
        })
    }

    pub(crate) fn wire(&self) -> &Arc<Wire> {
        &self.wire
    }

    /// Cancelled when the connection ends.
    pub(crate) fn stopping(&self) -> CancellationToken {
        self.stop.clone()
    }

    /// Takes one message from the host, read once; `extensions` go with a
    /// request or notification to its handler (an HTTP request's parts).
    pub(crate) fn take(self: &Arc<Self>, message: Message, extensions: Extensions) -> Taken {
        let params = || -> Result<Option<Value>, ErrorData> {
            message
                .params()
                .map(serde_json::from_str)
                .transpose()
                .map_err(|e| ErrorData::invalid_params(format!("params: {e}"), None))
        };
        let id = message.id().map(Id::to_value).unwrap_or(Value::Null);
        match message.kind() {
            Kind::Request => {
                let method = message.method().unwrap_or_default().to_string();
                if method == "tools/call" {
                    // Its params stay in the message, never read into JSON.
                    let meta = call_meta(&message);
                    let params = HostParams::Call(Box::new(message));
                    return Taken::Request(self.begin(id, method, params, meta, extensions));
                }
                Taken::Request(match params() {
                    Ok(params) => {
                        let mut params = params.unwrap_or(Value::Null);
                        let meta = take_meta(&mut params);
                        let params = HostParams::Json(params);
                        self.begin(id, method, params, meta, extensions)
                    }
                    Err(error) => {
                        Begun::Answered(refusal(message.id(), error.code, &error.message))
                    }
                })
            }
            Kind::Notification => {
                if let Ok(params) = params() {
                    self.notification(message.method().unwrap_or_default(), params, extensions);
                }
                Taken::Taken
            }
            Kind::Response => {
                let answer = message.result_as::<ClientResult>().map_err(|e| {
                    rmcp::ServiceError::McpError(ErrorData::invalid_params(
                        format!("the host's answer does not fit: {e}"),
                        None,
                    ))
                });
                self.answered(&id, answer);
                Taken::Taken
            }
            Kind::Error => {
                let answer = match message.error_as::<ErrorData>() {
                    Ok(error) => Err(rmcp::ServiceError::McpError(error)),
                    Err(e) => Err(rmcp::ServiceError::McpError(ErrorData::internal_error(
                        format!("the host's error does not fit: {e}"),
                        None,
                    ))),
                };
                self.answered(&id, answer);
                Taken::Taken
            }
        }
    }

    /// The host's answer to a request of the proxy's, to whoever waits.
    fn answered(&self, id: &Value, answer: Result<ClientResult, rmcp::ServiceError>) {
        let key = crate::tap::id_key(id);
        if !self.wire.answered(&key, answer) {
            tracing::debug!("the host answered a request nobody waits for ({key})");
        }
    }

    /// A request from the host: opens the connection, or begins to be
    /// served.
    fn begin(
        self: &Arc<Self>,
        id: Value,
        method: String,
        params: HostParams,
        meta: RequestMetaObject,
        extensions: Extensions,
    ) -> Begun {
        let Ok(request_id) = serde_json::from_value::<RequestId>(id.clone()) else {
            return Begun::Answered(refusal(
                None,
                ErrorCode::INVALID_REQUEST,
                "invalid request: an id is a string or a number",
            ));
        };
        let opened = *self.opening.locked();
        let (opening, key) = match opened {
            Some(opening) if method != "initialize" => (opening, Id::from_value(&id)),
            Some(opening) => (opening, None),
            None => match self.open(&method, &params, &meta) {
                Ok(Some(opening)) if method == "initialize" => (opening, None),
                Ok(Some(opening)) => (opening, Id::from_value(&id)),
                // Answered before the connection opens.
                Ok(None) if method == "ping" => {
                    return Begun::Answered(encode(&ServerJsonRpcMessage::response(
                        rmcp::model::ServerResult::empty(()),
                        request_id,
                    )));
                }
                Ok(None) => (Opening::Current, None),
                Err(error) => {
                    return Begun::Answered(encode(&ServerJsonRpcMessage::error(
                        error,
                        Some(request_id),
                    )));
                }
            },
        };
        let context = HostRequest {
            id: request_id.clone(),
            meta,
            ct: self.stop.child_token(),
            extensions,
            link: HostLink::own(self.wire.clone()),
        };
        if let Some(key) = &key {
            self.in_flight
                .locked()
                .insert(key.clone(), InFlight::Served(context.ct.clone()));
        }
        Begun::Serve(Box::new(Serving {
            conn: self.clone(),
            counted: self.counted(key),
            request_id,
            method,
            params,
            context,
            opening,
        }))
    }

    /// A request counted among those being served until what this gives
    /// is dropped; with its `key`, among those in flight too.
    fn counted(self: &Arc<Self>, key: Option<Id>) -> Counted {
        // Counted without a word to whoever waits: only the last to end
        // wakes them (see `Counted`).
        self.serving.send_if_modified(|n| {
            *n += 1;
            false
        });
        Counted {
            conn: self.clone(),
            key,
        }
    }

    /// Whether request `method` opens the connection, and how; `Ok(None)`
    /// for one answered without opening it (`ping`, `server/discover`).
    fn open(
        &self,
        method: &str,
        params: &HostParams,
        meta: &RequestMetaObject,
    ) -> Result<Option<Opening>, ErrorData> {
        let opening = match method {
            "ping" | "server/discover" => return Ok(None),
            "initialize" => {
                if let HostParams::Json(params) = params
                    && crate::tap::is_legacy_task_session(params)
                {
                    Opening::LegacyTasks
                } else {
                    Opening::Current
                }
            }
            _ => {
                let missing = meta.missing_required_keys(&ProtocolVersion::V_2026_07_28);
                let Some(version) = meta.protocol_version().filter(|_| missing.is_empty()) else {
                    return Err(ErrorData::invalid_request(
                        format!(
                            "the connection is not open: send initialize first, or name a \
                             protocol revision of 2026-07-28 or later in the request's _meta \
                             with what it requires (missing: {})",
                            missing.join(", ")
                        ),
                        None,
                    ));
                };
                if !ProtocolVersion::KNOWN_VERSIONS.contains(&version) {
                    return Err(ErrorData::unsupported_protocol_version(
                        version,
                        ProtocolVersion::KNOWN_VERSIONS,
                    ));
                }
                self.wire.opened_inline(version);
                Opening::Current
            }
        };
        *self.opening.locked() = Some(opening);
        Ok(Some(opening))
    }

    /// A notification from the host.
    fn notification(&self, method: &str, params: Option<Value>, extensions: Extensions) {
        if method == "notifications/cancelled" {
            let id = params.as_ref().and_then(|p| p.get("requestId"));
            let removed = id
                .and_then(Id::from_value)
                .and_then(|id| self.in_flight.locked().remove(&id));
            match removed {
                Some(InFlight::Served(ct)) => ct.cancel(),
                Some(InFlight::OnLane(call)) => call.give_up(crate::lane::GivenUp::Cancelled),
                None => {}
            }
            return;
        }
        if self.opening.locked().is_none() {
            return;
        }
        let notice = HostNotice {
            extensions,
            link: HostLink::own(self.wire.clone()),
        };
        self.server.serve_notification(method, params, notice);
    }

    /// The connection ends: requests waiting on the host fail, and those
    /// still being served are given `drain` to answer, then cancelled.
    pub(crate) async fn close(&self, drain: std::time::Duration) {
        self.wire.close();
        let mut serving = self.serving.subscribe();
        let _ = tokio::time::timeout(drain, serving.wait_for(|n| *n == 0)).await;
        self.stop.cancel();
    }

    /// Ends the connection at once: what is being served is cancelled.
    pub(crate) fn end(&self) {
        self.wire.close();
        self.stop.cancel();
    }
}

impl Serving {
    /// Whether it is served before the connection's next message is read
    /// (the handshake, and what is answered before the connection opens).
    pub(crate) fn inline(&self) -> bool {
        self.counted.key.is_none()
    }

    /// Whether the host asked for its progress (its `_meta` has a
    /// progress token): a request without one is sent none.
    pub(crate) fn takes_progress(&self) -> bool {
        self.context.meta.get_progress_token().is_some()
    }

    /// Serves it, its progress going to `progress`; gives its answer.
    pub(crate) async fn run(self, progress: Option<CallProgress>) -> Vec<u8> {
        let Serving {
            conn,
            counted: _counted,
            request_id,
            method,
            params,
            mut context,
            opening,
        } = self;
        if let Some(progress) = progress {
            context.extensions.insert(progress);
        }
        let version = context.meta.protocol_version();
        let served = serving(
            version,
            conn.server.serve_request(&method, params, context, opening),
        )
        .await;
        answer_line(request_id, served)
    }
}

/// The answer to request `request_id` as the line or body that carries it.
fn answer_line(request_id: RequestId, served: Result<Answer, ErrorData>) -> Vec<u8> {
    match served {
        Ok(Answer::Typed(result)) => encode(&ServerJsonRpcMessage::response(*result, request_id)),
        Ok(Answer::Encoded(result)) => sieve_wire::write::response(&wire_id(&request_id), &result),
        Ok(Answer::List(list)) => sieve_wire::write::response_of(
            &wire_id(&request_id),
            &[&list.head, &list.body, &list.tail],
        ),
        Err(error) => encode(&ServerJsonRpcMessage::error(error, Some(request_id))),
    }
}

/// A request counted among those being served (and, with its key, in
/// flight) until this is dropped, however its serving ends.
struct Counted {
    conn: Arc<Conn>,
    /// Its key among the requests in flight; `None` for those served
    /// before the connection opened, and `initialize`.
    key: Option<Id>,
}

impl Drop for Counted {
    fn drop(&mut self) {
        if let Some(key) = &self.key {
            self.conn.in_flight.locked().remove(key);
        }
        // Those waiting for the connection to drain are woken when none
        // is left, not at every request (a watch's change wakes them all).
        self.conn.serving.send_if_modified(|n| {
            *n -= 1;
            *n == 0
        });
    }
}

/// The `_meta` of `request`, a `tools/call` whose params stay in the
/// message; one that is no object reads as none, as [`take_meta`] reads
/// it.
fn call_meta(request: &Message) -> RequestMetaObject {
    request
        .params_object()
        .and_then(|params| params.get("_meta"))
        .filter(|meta| meta.starts_with('{'))
        .and_then(|meta| serde_json::from_str(meta).ok())
        .unwrap_or_default()
}

/// A message as the line or body that carries it.
pub(crate) fn encode(message: &ServerJsonRpcMessage) -> Vec<u8> {
    serde_json::to_vec(message).unwrap_or_else(|e| {
        sieve_wire::write::error_response(
            None,
            i64::from(ErrorCode::INTERNAL_ERROR.0),
            &format!("the answer could not be written: {e}"),
            None,
        )
    })
}

/// `id` as the message layer writes it.
fn wire_id(id: &RequestId) -> Id {
    match id {
        rmcp::model::NumberOrString::Number(n) => Id::from(*n),
        rmcp::model::NumberOrString::String(s) => Id::from(&**s),
    }
}

/// A request's progress as the message that tells the host.
pub(crate) fn progress_line(progress: rmcp::model::ProgressNotificationParam) -> Vec<u8> {
    encode(&ServerJsonRpcMessage::notification(
        rmcp::model::ServerNotification::ProgressNotification(rmcp::model::Notification::new(
            progress,
        )),
    ))
}

/// The JSON-RPC error answering a request that cannot be served.
pub(crate) fn refusal(id: Option<&Id>, code: ErrorCode, message: &str) -> Vec<u8> {
    sieve_wire::write::error_response(id, i64::from(code.0), message, None)
}

/// A header map of `pairs`, for tests.
#[cfg(test)]
pub(crate) fn header_map(pairs: &[(&str, &str)]) -> axum::http::HeaderMap {
    let mut map = axum::http::HeaderMap::new();
    for (name, value) in pairs {
        map.append(
            axum::http::HeaderName::from_bytes(name.as_bytes()).expect("a name"),
            axum::http::HeaderValue::from_str(value).expect("a value"),
        );
    }
    map
}
