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
//! waits for them ([`Wire`]). A line that is no message, or one over
//! `settings.maxMessageBytes` (dropped as it streams in, never buffered
//! whole), gets its JSON-RPC error with `"id": null`.

use crate::hosts::CallProgress;
use crate::link::{HostLink, HostNotice, HostRequest, Wire, serving};
use crate::server::{Opening, SieveServer};
use crate::sync::Locked;
use rmcp::ErrorData;
use rmcp::model::{
    ClientResult, ErrorCode, ProgressNotificationParam, ProtocolVersion, RequestId,
    RequestMetaObject, ServerJsonRpcMessage, ServerNotification,
};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
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
    let mut reader = Lines::new(input, max_line);
    tokio::pin!(shutdown);
    loop {
        let line = tokio::select! {
            line = reader.next() => line,
            () = &mut shutdown => break,
        };
        match line {
            Ok(Some(Line::Whole(line))) => front.take(&line).await,
            Ok(Some(Line::TooLong)) => front.refuse(
                Value::Null,
                ErrorCode::INVALID_REQUEST,
                format!(
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
    /// Takes one line from the host.
    async fn take(self: &Arc<Self>, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if let Some(answer) = crate::tap::refusal(line) {
            let _ = self.wire.send_raw(answer);
            return;
        }
        let message: Value = match serde_json::from_slice(line) {
            Ok(message) => message,
            Err(error) => {
                return self.refuse(
                    Value::Null,
                    ErrorCode::PARSE_ERROR,
                    format!("parse error: the line is not JSON ({error})"),
                );
            }
        };
        let Value::Object(mut message) = message else {
            return self.refuse(
                Value::Null,
                ErrorCode::INVALID_REQUEST,
                "invalid request: batches of messages are not taken; send one message per line"
                    .into(),
            );
        };
        match classify(&mut message) {
            Ok(Kind::Request { id, method, params }) => self.request(id, method, params).await,
            Ok(Kind::Notification { method, params }) => self.notification(&method, params),
            Ok(Kind::Answer { id, answer }) => {
                let key = crate::tap::id_key(&id);
                if !self.wire.answered(&key, answer) {
                    tracing::debug!("the host answered a request nobody waits for ({key})");
                }
            }
            Err(why) => self.refuse(Value::Null, ErrorCode::INVALID_REQUEST, why),
        }
    }

    fn refuse(&self, id: Value, code: ErrorCode, message: String) {
        let answer = json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": code.0, "message": message},
        });
        let _ = self.wire.send_raw(answer.to_string().into_bytes());
    }

    /// A request from the host: opens the connection, or is served.
    async fn request(self: &Arc<Self>, id: Value, method: String, mut params: Value) {
        let Ok(request_id) = serde_json::from_value::<RequestId>(id.clone()) else {
            return self.refuse(
                Value::Null,
                ErrorCode::INVALID_REQUEST,
                "invalid request: an id is a string or a number".into(),
            );
        };
        let meta = match params.as_object_mut().and_then(|p| p.remove("_meta")) {
            Some(Value::Object(meta)) => meta,
            _ => Map::new(),
        };
        let meta: RequestMetaObject =
            serde_json::from_value(Value::Object(meta)).unwrap_or_default();
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

/// A message, by what it is.
enum Kind {
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    /// The host's answer to a request of the proxy's.
    Answer {
        id: Value,
        answer: Result<ClientResult, rmcp::ServiceError>,
    },
}

/// What a JSON object from the host is, or why it is no message.
fn classify(message: &mut Map<String, Value>) -> Result<Kind, String> {
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(r#"invalid request: a message has "jsonrpc": "2.0""#.into());
    }
    let id = match message.remove("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Number(_))) => Some(id),
        Some(_) => return Err("invalid request: an id is a string or a number".into()),
    };
    match (message.remove("method"), id) {
        (Some(Value::String(method)), Some(id)) => Ok(Kind::Request {
            id,
            method,
            params: message.remove("params").unwrap_or(Value::Null),
        }),
        (Some(Value::String(method)), None) => Ok(Kind::Notification {
            method,
            params: message.remove("params"),
        }),
        (Some(_), _) => Err("invalid request: a method is a string".into()),
        (None, Some(id)) => {
            let answer = if let Some(result) = message.remove("result") {
                serde_json::from_value::<ClientResult>(result).map_err(|e| {
                    rmcp::ServiceError::McpError(ErrorData::invalid_params(
                        format!("the host's answer does not fit: {e}"),
                        None,
                    ))
                })
            } else if let Some(error) = message.remove("error") {
                match serde_json::from_value::<ErrorData>(error) {
                    Ok(error) => Err(rmcp::ServiceError::McpError(error)),
                    Err(e) => Err(rmcp::ServiceError::McpError(ErrorData::internal_error(
                        format!("the host's error does not fit: {e}"),
                        None,
                    ))),
                }
            } else {
                return Err("invalid request: a message has a method, a result or an error".into());
            };
            Ok(Kind::Answer { id, answer })
        }
        (None, None) => Err("invalid request: a message has a method, a result or an error".into()),
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
    mut lines: tokio::sync::mpsc::UnboundedReceiver<Vec<u8>>,
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
        output.write_all(&line).await?;
        output.write_all(b"\n").await?;
        while let Ok(line) = lines.try_recv() {
            output.write_all(&line).await?;
            output.write_all(b"\n").await?;
        }
        output.flush().await?;
    }
    output.flush().await
}

/// One line from the host, or one it sent too long to take.
enum Line {
    Whole(Vec<u8>),
    TooLong,
}

/// Splits what the host sends into lines, dropping a line over
/// `max_line` bytes as it streams in.
struct Lines<R> {
    input: R,
    buffer: Vec<u8>,
    /// Where the line being read starts in `buffer`.
    start: usize,
    /// Where the next search for a newline starts.
    scanned: usize,
    /// Dropping the rest of a line that went over the limit.
    discarding: bool,
    max_line: usize,
    eof: bool,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    fn new(input: R, max_line: usize) -> Lines<R> {
        Lines {
            input,
            buffer: Vec::with_capacity(64 * 1024),
            start: 0,
            scanned: 0,
            discarding: false,
            max_line,
            eof: false,
        }
    }

    async fn next(&mut self) -> std::io::Result<Option<Line>> {
        loop {
            let from = self.start.max(self.scanned);
            if let Some(at) = self.buffer[from..].iter().position(|&b| b == b'\n') {
                let end = from + at;
                let mut line = &self.buffer[self.start..end];
                self.start = end + 1;
                self.scanned = self.start;
                if std::mem::take(&mut self.discarding) {
                    continue;
                }
                if line.last() == Some(&b'\r') {
                    line = &line[..line.len() - 1];
                }
                if line.len() > self.max_line {
                    return Ok(Some(Line::TooLong));
                }
                return Ok(Some(Line::Whole(line.to_vec())));
            }
            self.scanned = self.buffer.len();
            if !self.discarding && self.buffer.len() - self.start > self.max_line {
                // Refused now, not when (if ever) it ends.
                self.discarding = true;
                self.buffer.clear();
                self.start = 0;
                self.scanned = 0;
                return Ok(Some(Line::TooLong));
            }
            if self.eof {
                let rest = &self.buffer[self.start..];
                if rest.is_empty() || self.discarding {
                    return Ok(None);
                }
                let line = rest.to_vec();
                self.start = self.buffer.len();
                return Ok(Some(Line::Whole(line)));
            }
            // One move of what is left per read, not one per line.
            self.buffer.drain(..self.start);
            self.scanned -= self.start;
            self.start = 0;
            if self.discarding {
                // Only the end of the long line matters.
                self.buffer.clear();
                self.scanned = 0;
            }
            let have = self.buffer.len();
            self.buffer.resize(have + 64 * 1024, 0);
            let read = self.input.read(&mut self.buffer[have..]).await;
            self.buffer.truncate(have + *read.as_ref().unwrap_or(&0));
            if read? == 0 {
                self.eof = true;
            }
        }
    }
}
