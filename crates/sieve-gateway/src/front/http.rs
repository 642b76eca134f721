//! Streamable HTTP hosts on the proxy's own message layer: each POST body
//! read once into its message, served on a [`Conn`] by the one path every
//! method takes, the answer written as JSON when it comes whole and first
//! (else as an SSE stream, [`super::stream`]). rmcp's session layer is not
//! in the way.
//!
//! * **2025-11-25 sessions.** An `initialize` without `Mcp-Session-Id`
//!   opens a session: a connection of its own, named by the id its answer
//!   carries. Its requests come with that header; its notifications and
//!   answers get 202. What the proxy sends the host outside a request
//!   (list changes, logs, sampling, elicitation, roots) goes on the
//!   session's GET stream, each event with an id: a GET whose
//!   `Last-Event-ID` names one is given what followed it, of the last
//!   [`EVENTS_KEPT`]; events sent while no GET is open wait for the next.
//!   A request's answer that has not come within [`WAIT`] streams with a
//!   priming event: a GET naming it resumes the stream (the request goes
//!   on meanwhile), its answer kept [`KEPT`] after it comes. DELETE ends
//!   a session; one unused for [`IDLE`] ends on its own.
//! * **2026-07-28 requests** (their revision in `_meta`, no session): each
//!   on a connection of its own, after the checks of its headers against
//!   its body; what that connection sends (a listen's acknowledgement and
//!   notifications) goes on the request's stream, and a host that hangs
//!   up cancels the request.

use super::stream::{Ahead, Finishing, KEEP_ALIVE, WAIT, event_stream, json, stream};
use super::{Begun, Conn, Taken};
use crate::engine::Engine;
use crate::link::{Outgoing, Wire};
use crate::server::{PROTOCOL_VERSION_META, SieveServer};
use crate::sync::Locked;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header, request::Parts};
use axum::response::{IntoResponse, Response};
use futures_util::stream as streams;
use rmcp::model::{ErrorCode, Extensions, ProtocolVersion};
use serde_json::Value;
use sieve_wire::{Kind, Message};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, mpsc, watch};
use tokio_util::sync::CancellationToken;

/// How long a 2025-11-25 request's answer is kept for a host that resumes
/// its stream.
const KEPT: Duration = Duration::from_secs(60);

/// How soon a host that lost a stream should resume it.
const RETRY_MS: u64 = 3_000;

/// What the proxy's event ids start with.
const EVENT_PREFIX: &str = "sieve-";

/// How many of a session's GET-stream events are kept for a host that
/// resumes, or has not opened its stream yet.
const EVENTS_KEPT: usize = 1024;

/// How long a session with no request and no open stream lives on.
const IDLE: Duration = Duration::from_secs(30 * 60);

/// The streamable HTTP front of one proxy.
pub(crate) struct HttpFront {
    engine: Arc<Engine>,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    /// The streams of 2025-11-25 requests a host may resume, by the number
    /// in their event ids.
    resumable: Mutex<HashMap<u64, Resumable>>,
    next_stream: AtomicU64,
    /// Cancelled when the front stops: sessions, streams and requests end.
    stop: CancellationToken,
}

/// A 2025-11-25 request answered as a stream: its session, and its answer
/// once it comes.
struct Resumable {
    session: String,
    answer: watch::Receiver<Option<Arc<[u8]>>>,
}

/// A 2025-11-25 session.
struct Session {
    id: String,
    conn: Arc<Conn>,
    /// What goes on the GET stream, numbered.
    events: Mutex<Events>,
    arrived: Notify,
    touched: Mutex<Instant>,
    /// The GET stream in force (a new GET takes over), and how many are
    /// open.
    generation: AtomicU64,
    open_streams: AtomicUsize,
}

#[derive(Default)]
struct Events {
    kept: VecDeque<(u64, Bytes)>,
    /// The id of the last event made, and of the last sent on a stream.
    last: u64,
    delivered: u64,
}

impl HttpFront {
    pub(crate) fn new(engine: Arc<Engine>, stop: CancellationToken) -> Arc<HttpFront> {
        Arc::new(HttpFront {
            engine,
            sessions: Mutex::default(),
            resumable: Mutex::default(),
            next_stream: AtomicU64::new(1),
            stop,
        })
    }

    /// Serves one request to an MCP endpoint (its guard passed it).
    pub(crate) async fn serve(self: &Arc<Self>, request: Request) -> Response {
        let (parts, body) = request.into_parts();
        match parts.method {
            Method::POST => {
                let body = axum::body::to_bytes(body, usize::MAX)
                    .await
                    .unwrap_or_default();
                self.post(parts, body).await
            }
            Method::GET => self.get(&parts),
            Method::DELETE => self.delete(&parts),
            _ => method_not_allowed("GET, POST, DELETE"),
        }
    }

    async fn post(self: &Arc<Self>, parts: Parts, body: Bytes) -> Response {
        let headers = &parts.headers;
        if !accepts(headers, "application/json") || !accepts(headers, "text/event-stream") {
            return text(
                StatusCode::NOT_ACCEPTABLE,
                "Not Acceptable: the client must accept both application/json and text/event-stream",
            );
        }
        if !is_json(headers) {
            return text(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Unsupported Media Type: Content-Type must be application/json",
            );
        }
        let message = match Message::parse(Vec::from(body)) {
            Ok(message) => message,
            Err(error) => return json(error.to_response(), StatusCode::BAD_REQUEST),
        };
        match one_header(headers, "mcp-session-id") {
            Some(id) => {
                let Some(session) = self.session(id) else {
                    return no_such_session();
                };
                if let Some(refusal) = unknown_version(headers) {
                    return refusal;
                }
                session.touch();
                let taken = session.conn.take(message, extensions(parts));
                self.answer(taken, Some(session), None).await
            }
            None if message.method() == Some("initialize") && message.kind() == Kind::Request => {
                self.initialize(parts, message).await
            }
            None if message.kind() == Kind::Request => self.per_request(parts, message).await,
            None if version_header(headers)
                .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28.as_str()) =>
            {
                StatusCode::ACCEPTED.into_response()
            }
            None => session_required(),
        }
    }

    /// `initialize` without a session: opens one.
    async fn initialize(self: &Arc<Self>, parts: Parts, message: Message) -> Response {
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Asked {
            protocol_version: Option<String>,
        }
        let asked = message
            .params_as::<Asked>()
            .ok()
            .and_then(|a| a.protocol_version);
        if let (Some(header), Some(asked)) = (version_header(&parts.headers), &asked)
            && header != asked
        {
            return json_error(
                message.id(),
                ErrorCode::INVALID_REQUEST,
                &format!(
                    "invalid request: the MCP-Protocol-Version header ({header}) is not the \
                     protocolVersion of initialize ({asked})"
                ),
            );
        }
        if let Some(refusal) = mismatched_method(&parts.headers, "initialize", message.id()) {
            return refusal;
        }
        self.sweep();
        let id = session_id();
        let (out, lines) = mpsc::unbounded_channel();
        let conn = Conn::new(
            SieveServer::http(self.engine.clone()),
            Wire::new(out),
            self.stop.child_token(),
        );
        let session = Arc::new(Session {
            id: id.clone(),
            conn,
            events: Mutex::default(),
            arrived: Notify::new(),
            touched: Mutex::new(Instant::now()),
            generation: AtomicU64::new(0),
            open_streams: AtomicUsize::new(0),
        });
        let answer = match session.conn.take(message, extensions(parts)) {
            Taken::Request(Begun::Serve(serving)) => serving.run(None).await,
            Taken::Request(Begun::Answered(answer)) => answer,
            Taken::Taken => return StatusCode::ACCEPTED.into_response(),
        };
        if error_code(&answer).is_some() {
            session.conn.end();
            return json(answer, StatusCode::OK);
        }
        tokio::spawn(gather(Arc::downgrade(&session), lines));
        self.sessions.locked().insert(id.clone(), session);
        let mut response = json(answer, StatusCode::OK);
        if let Ok(value) = HeaderValue::from_str(&id) {
            response.headers_mut().insert("mcp-session-id", value);
        }
        response
    }

    /// A request without a session: a 2026-07-28 request (or
    /// `server/discover`), on a connection of its own.
    async fn per_request(self: &Arc<Self>, parts: Parts, message: Message) -> Response {
        let method = message.method().unwrap_or_default().to_string();
        // What the checks read of the params: their `_meta` and what the
        // headers name; the rest is skipped, read once by the connection.
        #[derive(serde::Deserialize, Default)]
        struct Checked {
            #[serde(rename = "_meta")]
            meta: Option<Value>,
            name: Option<Value>,
            uri: Option<Value>,
            #[serde(rename = "taskId")]
            task_id: Option<Value>,
        }
        let checked: Checked = message.params_as().unwrap_or_default();
        let named = serde_json::json!({
            "name": checked.name,
            "uri": checked.uri,
            "taskId": checked.task_id,
        });
        let meta = checked.meta.unwrap_or(Value::Null);
        let meta_version = meta[PROTOCOL_VERSION_META].as_str();
        let header = version_header(&parts.headers);
        if meta_version.is_none() && method != "server/discover" {
            return session_required();
        }
        if meta_version.is_none()
            && let Some(refusal) = unknown_version(&parts.headers)
        {
            return refusal;
        }
        match (meta_version, header) {
            (Some(_), None) => {
                return json_error(
                    message.id(),
                    ErrorCode::HEADER_MISMATCH,
                    "request _meta protocolVersion requires MCP-Protocol-Version header",
                );
            }
            (Some(meta), Some(header)) if meta != header => {
                return json_error(
                    message.id(),
                    ErrorCode::HEADER_MISMATCH,
                    &format!(
                        "MCP-Protocol-Version header ({header}) does not match request _meta \
                         protocolVersion ({meta})"
                    ),
                );
            }
            _ => {}
        }
        let meta: rmcp::model::RequestMetaObject =
            serde_json::from_value(meta.clone()).unwrap_or_default();
        let missing = meta.missing_required_keys(&ProtocolVersion::V_2026_07_28);
        if !missing.is_empty() {
            return json_error(
                message.id(),
                ErrorCode::INVALID_PARAMS,
                &format!(
                    "Invalid params: request _meta is missing or has malformed required fields: {}",
                    missing.join(", ")
                ),
            );
        }
        if header.is_some_and(|v| v >= ProtocolVersion::V_2026_07_28.as_str())
            && let Err(why) = super::headers::agree(&parts.headers, &method, &named)
        {
            return json_error(message.id(), ErrorCode::HEADER_MISMATCH, &why);
        }
        let (out, own) = mpsc::unbounded_channel();
        let conn = Conn::new(
            SieveServer::http(self.engine.clone()),
            Wire::new(out),
            self.stop.child_token(),
        );
        let taken = conn.take(message, extensions(parts));
        self.answer(taken, None, Some((own, conn.clone()))).await
    }

    /// The answer to what a POST carried: 202 for a notification or an
    /// answer; JSON when a request's answer comes whole and first within
    /// [`WAIT`]; else a stream.
    async fn answer(
        self: &Arc<Self>,
        taken: Taken,
        session: Option<Arc<Session>>,
        own: Option<(mpsc::UnboundedReceiver<Outgoing>, Arc<Conn>)>,
    ) -> Response {
        let serving = match taken {
            Taken::Taken => return StatusCode::ACCEPTED.into_response(),
            Taken::Request(Begun::Answered(answer)) => {
                let status = status(&answer, session.is_none());
                if let Some((_, conn)) = own {
                    conn.end();
                }
                return json(answer, status);
            }
            Taken::Request(Begun::Serve(serving)) => serving,
        };
        let modern = session.is_none();
        let (own, conn) = match own {
            Some((own, conn)) => (Some(own), Some(conn)),
            None => (None, None),
        };
        let (mut ahead, sink) = Ahead::new(own);
        // A request of its own connection ends it with its answer; a
        // host that hangs up before then cancels it.
        let gone = conn.as_ref().map(|conn| conn.stopping().drop_guard());
        let mut call = Finishing::new(async move {
            let answer = serving.run(Some(sink)).await;
            if let Some(conn) = conn {
                conn.end();
            }
            answer
        });
        tokio::select! {
            biased;
            answer = &mut call => {
                if let Some(gone) = gone {
                    gone.disarm();
                }
                if !ahead.gather() {
                    let status = status(&answer, modern);
                    return json(answer, status);
                }
                return stream(std::future::ready(answer), None, None, None, ahead);
            }
            first = ahead.next() => ahead.push(first),
            () = tokio::time::sleep(WAIT) => {}
        }
        match session {
            // The guard goes with the stream: a host that hangs up cancels.
            None => stream(call, None, None, gone, ahead),
            Some(session) => {
                // The request goes on if the host hangs up, for it to resume.
                self.resumable_stream(session.id.clone(), call, ahead)
            }
        }
    }

    /// The stream of a 2025-11-25 request that did not answer at once: a
    /// priming event a host can resume from, what comes ahead, then its
    /// answer, which is kept a while for a host that resumes.
    fn resumable_stream(
        self: &Arc<Self>,
        session: String,
        call: Finishing,
        ahead: Ahead,
    ) -> Response {
        let number = self.next_stream.fetch_add(1, Ordering::Relaxed);
        let (tell, answer) = watch::channel(None);
        self.resumable.locked().insert(
            number,
            Resumable {
                session,
                answer: answer.clone(),
            },
        );
        let front = self.clone();
        tokio::spawn(async move {
            let answer: Arc<[u8]> = call.await.into();
            let _ = tell.send(Some(answer));
            tokio::time::sleep(KEPT).await;
            front.resumable.locked().remove(&number);
        });
        let priming = format!("id: {EVENT_PREFIX}{number}/0\nretry: {RETRY_MS}\ndata: \n\n");
        stream(
            waited(answer),
            Some(Bytes::from(priming)),
            Some(format!("{EVENT_PREFIX}{number}/1")),
            None,
            ahead,
        )
    }

    /// A GET: the session's stream, or a resumed one.
    fn get(self: &Arc<Self>, parts: &Parts) -> Response {
        let headers = &parts.headers;
        if !accepts(headers, "text/event-stream") {
            return text(
                StatusCode::NOT_ACCEPTABLE,
                "Not Acceptable: the client must accept text/event-stream",
            );
        }
        let Some(id) = one_header(headers, "mcp-session-id") else {
            if version_header(headers).is_some_and(|v| v >= ProtocolVersion::V_2026_07_28.as_str())
            {
                return method_not_allowed("POST");
            }
            return session_required();
        };
        let Some(session) = self.session(id) else {
            return no_such_session();
        };
        if let Some(refusal) = unknown_version(headers) {
            return refusal;
        }
        session.touch();
        let last =
            one_header(headers, "last-event-id").and_then(|id| id.strip_prefix(EVENT_PREFIX));
        match last.map(|last| last.split_once('/')) {
            Some(Some(("g", event))) => listen(session, event.parse().ok(), &self.stop),
            Some(Some((number, event))) => self.resume(&session, number, event),
            _ => listen(session, None, &self.stop),
        }
    }

    /// The stream of a request's answer, resumed: the answer once it comes
    /// (nothing, when the host had it already).
    fn resume(&self, session: &Session, number: &str, event: &str) -> Response {
        let answer = number.parse::<u64>().ok().and_then(|number| {
            let resumable = self.resumable.locked();
            let kept = resumable.get(&number).filter(|r| r.session == session.id)?;
            Some((number, kept.answer.clone()))
        });
        match answer {
            Some((number, answer)) if event == "0" => stream(
                waited(answer),
                None,
                Some(format!("{EVENT_PREFIX}{number}/1")),
                None,
                Ahead::none(),
            ),
            _ => event_stream(Body::empty()),
        }
    }

    /// A DELETE: ends the session.
    fn delete(&self, parts: &Parts) -> Response {
        let Some(id) = one_header(&parts.headers, "mcp-session-id") else {
            return session_required();
        };
        match self.sessions.locked().remove(id) {
            Some(session) => {
                session.end();
                StatusCode::OK.into_response()
            }
            None => no_such_session(),
        }
    }

    /// Session `id`, if it is open.
    fn session(&self, id: &str) -> Option<Arc<Session>> {
        self.sessions.locked().get(id).cloned()
    }

    /// Ends the sessions unused for [`IDLE`].
    fn sweep(&self) {
        self.sessions.locked().retain(|_, session| {
            let idle = session.touched.locked().elapsed() >= IDLE
                && session.open_streams.load(Ordering::Relaxed) == 0;
            if idle {
                session.end();
            }
            !idle
        });
    }
}

impl Session {
    fn touch(&self) {
        *self.touched.locked() = Instant::now();
    }

    fn end(&self) {
        self.conn.end();
        self.arrived.notify_waiters();
    }

    /// The events after `cursor` (of those kept), as SSE text, and the id
    /// of the last.
    fn after(&self, cursor: u64) -> Option<(Bytes, u64)> {
        let mut events = self.events.locked();
        let mut text = Vec::new();
        let mut last = cursor;
        for (id, event) in events.kept.iter().filter(|(id, _)| *id > cursor) {
            text.extend_from_slice(event);
            last = *id;
        }
        if last == cursor {
            return None;
        }
        events.delivered = events.delivered.max(last);
        Some((Bytes::from(text), last))
    }
}

/// Moves what a session's connection sends into its numbered events,
/// until the session ends.
async fn gather(session: std::sync::Weak<Session>, mut lines: mpsc::UnboundedReceiver<Outgoing>) {
    let Some(stopped) = session.upgrade().map(|s| s.conn.stopping()) else {
        return;
    };
    loop {
        let line = tokio::select! {
            line = lines.recv() => line,
            () = stopped.cancelled() => None,
        };
        let (Some(line), Some(session)) = (line, session.upgrade()) else {
            return;
        };
        {
            let mut events = session.events.locked();
            events.last += 1;
            let id = events.last;
            let event = super::stream::event(Some(&format!("{EVENT_PREFIX}g/{id}")), &line.line);
            events.kept.push_back((id, event));
            if events.kept.len() > EVENTS_KEPT {
                events.kept.pop_front();
            }
        }
        session.arrived.notify_waiters();
    }
}

/// A session's GET stream from event `from` (a resumed stream), else from
/// the first event no stream has sent. A newer GET takes over from it.
fn listen(session: Arc<Session>, from: Option<u64>, stop: &CancellationToken) -> Response {
    let generation = session.generation.fetch_add(1, Ordering::Relaxed) + 1;
    session.arrived.notify_waiters();
    let cursor = from.unwrap_or_else(|| session.events.locked().delivered);
    let open = OpenStream::new(session);
    let priming = format!("id: {EVENT_PREFIX}g/{cursor}\nretry: {RETRY_MS}\ndata: \n\n");
    let stop = stop.clone();
    let events = streams::unfold(Some((open, cursor)), move |state| {
        let stop = stop.clone();
        async move {
            let (open, mut cursor) = state?;
            let session = open.0.clone();
            loop {
                let ended = session.conn.stopping();
                if ended.is_cancelled()
                    || stop.is_cancelled()
                    || session.generation.load(Ordering::Relaxed) != generation
                {
                    return None;
                }
                let arrived = session.arrived.notified();
                tokio::pin!(arrived);
                arrived.as_mut().enable();
                if let Some((text, last)) = session.after(cursor) {
                    cursor = last;
                    return Some((Ok::<_, std::io::Error>(text), Some((open, cursor))));
                }
                tokio::select! {
                    () = arrived => {}
                    () = tokio::time::sleep(KEEP_ALIVE) => {
                        return Some((Ok(Bytes::from_static(b":\n\n")), Some((open, cursor))));
                    }
                    () = ended.cancelled() => return None,
                    () = stop.cancelled() => return None,
                }
            }
        }
    });
    let first = streams::once(async move { Ok(Bytes::from(priming)) });
    event_stream(Body::from_stream(futures_util::StreamExt::chain(
        first, events,
    )))
}

/// A session's GET stream, counted while it is open.
struct OpenStream(Arc<Session>);

impl OpenStream {
    fn new(session: Arc<Session>) -> OpenStream {
        session.open_streams.fetch_add(1, Ordering::Relaxed);
        OpenStream(session)
    }
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.0.open_streams.fetch_sub(1, Ordering::Relaxed);
        self.0.touch();
    }
}

/// The answer once `answer` has it.
async fn waited(mut answer: watch::Receiver<Option<Arc<[u8]>>>) -> Vec<u8> {
    match answer.wait_for(Option::is_some).await {
        Ok(answer) => answer.as_deref().map(<[u8]>::to_vec).unwrap_or_default(),
        Err(_) => super::stream::failed("the request's answer was lost"),
    }
}

/// A new session id: 96 random bits in hex, made as the ledger's ids are
/// (`ss-` where a task's say `st-`).
fn session_id() -> String {
    sieve_ledger::Ledger::new_id().replacen("st-", "ss-", 1)
}

/// What a request's handler is given of its HTTP request: its parts.
fn extensions(parts: Parts) -> Extensions {
    let mut extensions = Extensions::new();
    extensions.insert(parts);
    extensions
}

/// The code of an answer that is a JSON-RPC error (read only when it
/// says "error").
fn error_code(answer: &[u8]) -> Option<ErrorCode> {
    #[derive(serde::Deserialize)]
    struct Code {
        code: i32,
    }
    if !crate::tap::contains(answer, b"\"error\"") {
        return None;
    }
    let message = Message::parse(answer).ok()?;
    if message.kind() != Kind::Error {
        return None;
    }
    message.error_as::<Code>().ok().map(|c| ErrorCode(c.code))
}

/// The status of an answer: a 2026-07-28 error of the request itself is
/// a 400 (or 404 for a method not found), as that revision's transport
/// asks; every 2025-11-25 answer is a 200.
fn status(answer: &[u8], modern: bool) -> StatusCode {
    if !modern {
        return StatusCode::OK;
    }
    match error_code(answer) {
        Some(
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
            | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            | ErrorCode::HEADER_MISMATCH,
        ) => StatusCode::BAD_REQUEST,
        Some(ErrorCode::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}

/// A JSON-RPC error for a request refused before it is served: 400.
fn json_error(id: Option<&sieve_wire::Id>, code: ErrorCode, message: &str) -> Response {
    json(super::refusal(id, code, message), StatusCode::BAD_REQUEST)
}

/// A supplied `Mcp-Method` header that is not `method`.
fn mismatched_method(
    headers: &HeaderMap,
    method: &str,
    id: Option<&sieve_wire::Id>,
) -> Option<Response> {
    let mut values = headers.get_all("mcp-method").iter();
    let first = values.next()?;
    if values.next().is_some() || first.as_bytes() != method.as_bytes() {
        return Some(json_error(
            id,
            ErrorCode::HEADER_MISMATCH,
            &format!("the Mcp-Method header does not match the body's method {method}"),
        ));
    }
    None
}

/// The refusal of a request whose `MCP-Protocol-Version` the proxy does
/// not speak.
fn unknown_version(headers: &HeaderMap) -> Option<Response> {
    let version = version_header(headers)?;
    (!is_known(version)).then(|| {
        text(
            StatusCode::BAD_REQUEST,
            &format!("Bad Request: Unsupported MCP-Protocol-Version: {version}"),
        )
    })
}

fn is_known(version: &str) -> bool {
    ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .any(|known| known.as_str() == version)
}

fn version_header(headers: &HeaderMap) -> Option<&str> {
    one_header(headers, "mcp-protocol-version")
}

/// The header's one value; `None` when absent, repeated or not text.
fn one_header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    super::headers::one(headers, name).ok().flatten()
}

/// `Accept` names `media` (or a range holding it) without `q=0`.
fn accepts(headers: &HeaderMap, media: &str) -> bool {
    let (kind, _) = media.split_once('/').unwrap_or((media, ""));
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|range| {
            let mut parts = range.split(';');
            let essence = parts.next().unwrap_or("").trim();
            let refused = parts.any(|parameter| {
                parameter.split_once('=').is_some_and(|(name, value)| {
                    name.trim().eq_ignore_ascii_case("q")
                        && value.trim().parse::<f32>().is_ok_and(|q| q == 0.0)
                })
            });
            !refused
                && (essence.eq_ignore_ascii_case(media)
                    || essence == "*/*"
                    || essence.eq_ignore_ascii_case(&format!("{kind}/*")))
        })
}

/// `Content-Type` is JSON.
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            let essence = value.split(';').next().unwrap_or("").trim();
            essence.eq_ignore_ascii_case("application/json")
        })
}

fn text(status: StatusCode, message: &str) -> Response {
    (status, format!("{message}\n")).into_response()
}

/// A request that needs a session and names none.
fn session_required() -> Response {
    text(
        StatusCode::BAD_REQUEST,
        "Bad Request: Session ID is required",
    )
}

/// A request naming a session that is not open.
fn no_such_session() -> Response {
    text(StatusCode::NOT_FOUND, "Not Found: Session not found")
}

/// A method the endpoint does not take; `allow` names those it does.
fn method_not_allowed(allow: &'static str) -> Response {
    let mut response = text(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed");
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::front::header_map as headers;

    #[test]
    fn accept_ranges_and_weights() {
        let both = headers(&[("accept", "application/json, text/event-stream")]);
        assert!(accepts(&both, "application/json") && accepts(&both, "text/event-stream"));
        let any = headers(&[("accept", "*/*")]);
        assert!(accepts(&any, "text/event-stream"));
        let refused = headers(&[("accept", "application/json;q=0, text/*")]);
        assert!(!accepts(&refused, "application/json"));
        assert!(accepts(&refused, "text/event-stream"));
        assert!(!accepts(&headers(&[]), "application/json"));
    }

    #[test]
    fn a_2026_07_28_error_of_the_request_is_a_400() {
        let error = |code: i32| {
            format!(r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":{code},"message":"m"}}}}"#)
                .into_bytes()
        };
        assert_eq!(status(&error(-32601), true), StatusCode::NOT_FOUND);
        assert_eq!(status(&error(-32601), false), StatusCode::OK);
        assert_eq!(
            status(&error(ErrorCode::HEADER_MISMATCH.0), true),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(status(&error(-32603), true), StatusCode::OK);
        assert_eq!(
            status(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#, true),
            StatusCode::OK
        );
    }
}
