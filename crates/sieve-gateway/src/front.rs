//! The host side of the message layer the proxy owns, over stdio: each
//! line read once into its id, method and params, served by the one path
//! of [`SieveServer::serve_request`], the answer written with the id as
//! the host sent it. rmcp's service loop is not in the way: its types
//! serve where a handler reads or builds a message, nothing more.
//!
//! The connection opens the way either protocol generation opens it: with
//! `initialize` (2025-11-25 and before; `ping` may come first), or with
//! any request whose `_meta` names a revision of 2026-07-28 or later and
//! carries what that revision requires (`server/discover` may come first
//! and opens nothing). Until then other requests are refused, saying what
//! is missing.
//!
//! Requests are served concurrently, each cancelled by the host's
//! `notifications/cancelled` or when the host goes; the host's answers to
//! the proxy's own requests (sampling, elicitation, roots) go to whoever
//! waits for them ([`Wire`]). A line that is no message gets its JSON-RPC
//! error naming its id when the id could be read (`sieve-wire` says why);
//! one over `settings.maxMessageBytes` is dropped as it streams in, never
//! buffered whole, and answered with `"id": null`.

use crate::hosts::CallProgress;
use crate::link::{HostLink, HostNotice, HostRequest, Outgoing, Wire, serving, take_meta};
use crate::server::{Opening, SieveServer};
use crate::sync::Locked;
use rmcp::ErrorData;
use rmcp::model::{
    ClientResult, ErrorCode, ProgressNotificationParam, ProtocolVersion, RequestId,
    RequestMetaObject, ServerJsonRpcMessage, ServerNotification,
};
use serde_json::Value;
use sieve_wire::Kind as WireKind;
use sieve_wire::{Id, Line, Message};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

/// How long the answers of requests in flight may still go out after the
/// host closed its side.
const DRAIN: std::time::Duration = std::time::Duration::from_secs(2);

/// One host connection on the proxy's own message layer.
struct Front {
    server: SieveServer,
    wire: Arc<Wire>,
    /// How the connection opened; `None` until it has.
    opening: Mutex<Option<Opening>>,
    /// The host's requests being served, by id: cancelling one cancels it.
    in_flight: Mutex<HashMap<String, CancellationToken>>,
    /// Cancelled when the connection ends.
    stop: CancellationToken,
    /// How many requests are being served.
    serving: tokio::sync::watch::Sender<usize>,
}

/// Serves one host over `input` and `output` (stdin and stdout) until the
/// host closes its side or `shutdown` resolves.
pub async fn serve_lines(
    server: SieveServer,
    input: impl AsyncRead + Unpin,
    output: impl AsyncWrite + Unpin + Send + 'static,
    max_line: usize,
    shutdown: impl std::future::Future<Output = ()>,
) -> anyhow::Result<()> {
    let (out, lines) = tokio::sync::mpsc::unbounded_channel();
    let done = CancellationToken::new();
    let writer = tokio::spawn(write_lines(lines, output, done.clone()));
    let front = Arc::new(Front {
        server,
        wire: Wire::new(out),
        opening: Mutex::new(None),
        in_flight: Mutex::default(),
        stop: CancellationToken::new(),
        serving: tokio::sync::watch::Sender::new(0),
    });
    let mut reader = sieve_wire::AsyncLines::new(input, max_line);
    tokio::pin!(shutdown);
    loop {
        let line = tokio::select! {
            line = reader.next() => line,
            () = &mut shutdown => break,
        };
        match line {
            Ok(Some(Line::Text(line))) => front.take(line).await,
            Ok(Some(Line::TooLong { .. })) => front.refuse(
                None,
                ErrorCode::INVALID_REQUEST,
                &format!(
                    "invalid request: the message is over {max_line} bytes \
                     (settings.maxMessageBytes in config.json), so it was dropped"
                ),
            ),
            Ok(None) => break,
            Err(error) => {
                tracing::warn!("reading the host's messages failed: {error}");
                break;
            }
        }
    }
    // The host has gone: what is in flight may still answer, briefly.
    front.wire.close();
    let mut serving = front.serving.subscribe();
    let _ = tokio::time::timeout(DRAIN, serving.wait_for(|n| *n == 0)).await;
    front.stop.cancel();
    drop(front);
    // Links to this host may outlive it (a registry, a change forwarder):
    // the writer ends with what is queued now, not when the last goes.
    done.cancel();
    let _ = tokio::time::timeout(DRAIN, writer).await;
    Ok(())
}

impl Front {
    /// Takes one line from the host, read once.
    async fn take(self: &Arc<Self>, line: Vec<u8>) {
        let message = match Message::parse_vec(line) {
            Ok(message) => message,
            Err((error, _)) => {
                let _ = self.wire.send_raw(error.to_response());
                return;
            }
        };
        let params = || -> Result<Option<Value>, ErrorData> {
            message
                .params()
                .map(serde_json::from_str)
                .transpose()
                .map_err(|e| ErrorData::invalid_params(format!("params: {e}"), None))
        };
        let id = message
            .id()
            .map(sieve_wire::Id::to_value)
            .unwrap_or(Value::Null);
        match message.kind() {
            WireKind::Request => {
                let method = message.method().unwrap_or_default().to_string();
                match params() {
                    Ok(params) => {
                        self.request(id, method, params.unwrap_or(Value::Null))
                            .await;
                    }
                    Err(error) => self.refuse(message.id(), error.code, &error.message),
                }
            }
            WireKind::Notification => {
                if let Ok(params) = params() {
                    self.notification(message.method().unwrap_or_default(), params);
                }
            }
            WireKind::Response => {
                let answer = message.result_as::<ClientResult>().map_err(|e| {
                    rmcp::ServiceError::McpError(ErrorData::invalid_params(
                        format!("the host's answer does not fit: {e}"),
                        None,
                    ))
                });
                self.answered(&id, answer);
            }
            WireKind::Error => {
                let answer = match message.error_as::<ErrorData>() {
                    Ok(error) => Err(rmcp::ServiceError::McpError(error)),
                    Err(e) => Err(rmcp::ServiceError::McpError(ErrorData::internal_error(
                        format!("the host's error does not fit: {e}"),
                        None,
                    ))),
                };
                self.answered(&id, answer);
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

    fn refuse(&self, id: Option<&Id>, code: ErrorCode, message: &str) {
        let answer = sieve_wire::write::error_response(id, i64::from(code.0), message, None);
        let _ = self.wire.send_raw(answer);
    }

    /// A request from the host: opens the connection, or is served.
    async fn request(self: &Arc<Self>, id: Value, method: String, mut params: Value) {
        let Ok(request_id) = serde_json::from_value::<RequestId>(id.clone()) else {
            return self.refuse(
                None,
                ErrorCode::INVALID_REQUEST,
                "invalid request: an id is a string or a number",
            );
        };
        let meta = take_meta(&mut params);
        let opening = *self.opening.locked();
        let opening = match opening {
            Some(opening) => opening,
            None => match self.open(&method, &params, &meta) {
                Ok(Some(opening)) => opening,
                // Answered before the connection opens.
                Ok(None) => {
                    let answer = match method.as_str() {
                        "ping" => ServerJsonRpcMessage::response(
                            rmcp::model::ServerResult::empty(()),
                            request_id,
                        ),
                        _ => {
                            let context = self.context(request_id.clone(), meta);
                            let served = self
                                .server
                                .serve_request(&method, params, context, Opening::Current)
                                .await;
                            answer(served, request_id)
                        }
                    };
                    let _ = self.wire.send(&answer);
                    return;
                }
                Err(error) => {
                    let _ = self
                        .wire
                        .send(&ServerJsonRpcMessage::error(error, Some(request_id)));
                    return;
                }
            },
        };
        let context = self.context(request_id.clone(), meta);
        let version = context.meta.protocol_version();
        if method == "initialize" {
            // Served before the next line is read, as the handshake is.
            let served = self
                .server
                .serve_request(&method, params, context, opening)
                .await;
            let _ = self.wire.send(&answer(served, request_id));
            return;
        }
        let key = crate::tap::id_key(&id);
        let ct = context.ct.clone();
        self.in_flight.locked().insert(key.clone(), ct);
        // The request's progress comes here and goes out in order ahead
        // of its answer, never after it.
        let (progress, mut progressed) = tokio::sync::mpsc::unbounded_channel();
        let mut context = context;
        context.extensions.insert(CallProgress(progress));
        let front = self.clone();
        self.serving.send_modify(|n| *n += 1);
        tokio::spawn(async move {
            let serve = serving(
                version,
                front
                    .server
                    .serve_request(&method, params, context, opening),
            );
            tokio::pin!(serve);
            let served = loop {
                tokio::select! {
                    biased;
                    Some(progress) = progressed.recv() => front.progress(progress),
                    served = &mut serve => break served,
                }
            };
            while let Ok(progress) = progressed.try_recv() {
                front.progress(progress);
            }
            front.in_flight.locked().remove(&key);
            let _ = front.wire.send(&answer(served, request_id));
            front.serving.send_modify(|n| *n -= 1);
        });
    }

    fn progress(&self, progress: ProgressNotificationParam) {
        let notification =
            ServerNotification::ProgressNotification(rmcp::model::Notification::new(progress));
        let _ = self
            .wire
            .send(&ServerJsonRpcMessage::notification(notification));
    }

    /// Whether request `method` opens the connection, and how; `Ok(None)`
    /// for one answered without opening it (`ping`, `server/discover`).
    fn open(
        &self,
        method: &str,
        params: &Value,
        meta: &RequestMetaObject,
    ) -> Result<Option<Opening>, ErrorData> {
        let opening = match method {
            "ping" | "server/discover" => return Ok(None),
            "initialize" => {
                if crate::tap::is_legacy_task_session(params) {
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

    fn context(&self, id: RequestId, meta: RequestMetaObject) -> HostRequest {
        HostRequest {
            id,
            meta,
            ct: self.stop.child_token(),
            extensions: Default::default(),
            link: HostLink::own(self.wire.clone()),
        }
    }

    /// A notification from the host.
    fn notification(&self, method: &str, params: Option<Value>) {
        if method == "notifications/cancelled" {
            let id = params.as_ref().and_then(|p| p.get("requestId"));
            if let Some(id) = id
                && let Some(ct) = self.in_flight.locked().remove(&crate::tap::id_key(id))
            {
                ct.cancel();
            }
            return;
        }
        if self.opening.locked().is_none() {
            return;
        }
        let notice = HostNotice {
            extensions: Default::default(),
            link: HostLink::own(self.wire.clone()),
        };
        self.server.serve_notification(method, params, notice);
    }
}

fn answer(
    served: Result<rmcp::model::ServerResult, ErrorData>,
    id: RequestId,
) -> ServerJsonRpcMessage {
    match served {
        Ok(result) => ServerJsonRpcMessage::response(result, id),
        Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
    }
}

/// Writes each message on a line of its own, flushing when no more wait,
/// until `done` (then what is queued goes out).
async fn write_lines(
    mut lines: tokio::sync::mpsc::UnboundedReceiver<Outgoing>,
    output: impl AsyncWrite + Unpin,
    done: CancellationToken,
) -> std::io::Result<()> {
    let mut output = tokio::io::BufWriter::with_capacity(64 * 1024, output);
    loop {
        let line = tokio::select! {
            line = lines.recv() => line,
            () = done.cancelled() => lines.try_recv().ok(),
        };
        let Some(line) = line else { break };
        output.write_all(&line.line).await?;
        output.write_all(b"\n").await?;
        while let Ok(line) = lines.try_recv() {
            output.write_all(&line.line).await?;
            output.write_all(b"\n").await?;
        }
        output.flush().await?;
    }
    output.flush().await
}
