//! The HTTP front's direct path: a plain `tools/call` answered by the
//! proxy's server without rmcp's streamable HTTP layer.
//!
//! rmcp serves each POST through its session layer: a 2025-11-25 request
//! goes to the session's worker, then the service loop, then a task of its
//! own, and its answer back as an SSE stream that [`crate::reply`] reads
//! again to send it as JSON; a 2026-07-28 request gets a service started
//! for it alone. For the call a host makes most, that machinery is most of
//! the proxy's own cost per call. So a POST that is one `tools/call`,
//! whose answer may be JSON and that is not a 2025-11-25 task, is served
//! here (with or without a progress token: rmcp's client puts one on
//! every request):
//!
//! * a 2025-11-25 call on its session's own connection and peer (kept in
//!   [`Sessions`] from the session's `initialized`), so the session's
//!   concerns, caller and host are those of rmcp's path; a
//!   `notifications/cancelled` for it cancels it as rmcp would;
//! * a 2026-07-28 call on a fresh connection, with one peer that stands
//!   for every such request (rmcp makes one per request, with the same
//!   empty client info), after the checks rmcp would make of its headers;
//!   a request those checks would refuse goes to rmcp, which says why.
//!
//! Either runs through the same handler as rmcp's path (the profile, the
//! ledger, the audit, rmcp's checks of the answer), run where its answer
//! is awaited and never dropped half done ([`Finishing`]). The answer is
//! JSON; a call that has not answered within [`reply::WAIT`], or that
//! reports progress first, gets an SSE stream instead: its progress as it
//! comes, keep-alive comments until its answer (so no host waits minutes
//! for headers), then the answer. As on rmcp's path:
//!
//! * a 2025-11-25 call's stream starts with a priming event: a host whose
//!   connection broke resumes it with a GET that names that event in
//!   `Last-Event-ID`, and the call goes on meanwhile; its answer is kept a
//!   minute after it comes, for such a GET;
//! * a 2026-07-28 call is cancelled (and recorded as cut off) when its
//!   host goes away before its answer.

use crate::engine::Engine;
use crate::hosts::CallProgress;
use crate::link::HostLink;
use crate::reply;
use crate::server::{PROTOCOL_VERSION_META, RawBody, Sessions, SieveServer};
use crate::sync::Locked;
use crate::tap::id_key;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use futures_util::{StreamExt, stream};
use rmcp::RoleServer;
use rmcp::model::{
    ErrorCode, Implementation, InitializeRequestParams, Notification, ProgressNotificationParam,
    ProtocolVersion, RequestId, ServerJsonRpcMessage, ServerNotification,
};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::Value;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::sync::DropGuard;

/// Between keep-alive comments of a call answered as a stream, as rmcp's.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// How long a 2025-11-25 call's answer is kept for a host that resumes
/// its stream, as rmcp keeps its own.
const KEPT: Duration = Duration::from_secs(60);

/// How soon a host that lost a stream should resume it, as rmcp says.
const RETRY_MS: u64 = 3_000;

/// What a stream's event ids start with: rmcp's never do, so a GET that
/// resumes one of them is ours.
const EVENT_PREFIX: &str = "sieve-";

/// Where a 2026-07-28 request names the host's capabilities.
const CLIENT_CAPABILITIES_META: &str = "io.modelcontextprotocol/clientCapabilities";

/// The direct path of one HTTP front.
pub(crate) struct Direct {
    engine: Arc<Engine>,
    sessions: Arc<Sessions>,
    manager: Arc<LocalSessionManager>,
    /// The peer of every 2026-07-28 call served here, and the service
    /// behind it, which nothing ever reaches.
    modern: HostLink,
    _modern: RunningService<RoleServer, SieveServer>,
    /// Cancelled when the front stops: calls in flight end with it.
    stop: CancellationToken,
    /// The streams of 2025-11-25 calls a host may resume, by the number in
    /// their event ids.
    streams: std::sync::Mutex<HashMap<u64, Resumable>>,
    next_stream: AtomicU64,
}

/// A 2025-11-25 call answered as a stream: its session and its answer
/// (the JSON-RPC message as text) once it comes.
struct Resumable {
    session: String,
    answer: watch::Receiver<Option<Arc<str>>>,
}

/// A request the direct path serves.
struct Plan {
    id: RequestId,
    /// The 2025-11-25 session it belongs to; `None` for 2026-07-28.
    session: Option<String>,
    /// Whether the host asked for the call's progress (a progress token).
    progress: bool,
}

/// The progress of a call answered as a stream: what came before the
/// stream started, then what comes until the answer.
#[derive(Default)]
struct Progress {
    came: Vec<ProgressNotificationParam>,
    coming: Option<mpsc::UnboundedReceiver<ProgressNotificationParam>>,
}

impl Progress {
    /// The next progress; pending for ever once there is none to come (the
    /// call's answer, which comes after it, ends the wait).
    async fn next(&mut self) -> ProgressNotificationParam {
        if let Some(coming) = &mut self.coming {
            if let Some(progress) = coming.recv().await {
                return progress;
            }
            self.coming = None;
        }
        std::future::pending().await
    }

    /// Takes in what has come already.
    fn gather(&mut self) {
        if let Some(coming) = &mut self.coming {
            while let Ok(progress) = coming.try_recv() {
                self.came.push(progress);
            }
        }
    }
}

impl Direct {
    pub(crate) fn start(
        engine: Arc<Engine>,
        sessions: Arc<Sessions>,
        manager: Arc<LocalSessionManager>,
        stop: CancellationToken,
    ) -> Arc<Direct> {
        // The peer's messages (a task's notifications, say) go into a pipe
        // that is read and dropped, as a 2026-07-28 request's peer's would
        // go nowhere once its answer is sent.
        let (ours, theirs) = tokio::io::duplex(16 * 1024);
        tokio::spawn(async move {
            use tokio::io::AsyncReadExt;
            let mut theirs = theirs;
            let mut sink = vec![0u8; 16 * 1024];
            while matches!(theirs.read(&mut sink).await, Ok(n) if n > 0) {}
        });
        let info = InitializeRequestParams::new(Default::default(), Implementation::default())
            .with_protocol_version(ProtocolVersion::V_2026_07_28);
        let running = rmcp::service::serve_directly_with_ct(
            SieveServer::http(engine.clone(), sessions.clone()),
            tokio::io::split(ours),
            Some(info),
            stop.child_token(),
        );
        Arc::new(Direct {
            engine,
            sessions,
            manager,
            modern: HostLink::rmcp(running.peer().clone()),
            _modern: running,
            stop,
            streams: Default::default(),
            next_stream: AtomicU64::new(1),
        })
    }

    /// Serves `request` if it is for the direct path; else gives it back
    /// for rmcp. A `notifications/cancelled` for a call served here
    /// cancels it, and goes on to rmcp too.
    pub(crate) async fn serve(self: &Arc<Self>, request: Request) -> Result<Response, Request> {
        if request.method() == axum::http::Method::GET {
            return self.resume(&request).ok_or(request);
        }
        let Some(body) = request.extensions().get::<RawBody>().map(|b| b.0.clone()) else {
            return Err(request);
        };
        if body.get("method").and_then(Value::as_str) == Some("notifications/cancelled") {
            if let (Some(session), Some(cancelled)) = (
                one_header(request.headers(), "mcp-session-id"),
                body.get("params").and_then(|p| p.get("requestId")),
            ) {
                self.sessions.cancel(session, &id_key(cancelled));
            }
            return Err(request);
        }
        let Some(plan) = plan(&request, &body) else {
            return Err(request);
        };
        let (server, peer) = match &plan.session {
            Some(id) => {
                let Some(session) = self.sessions.session(id) else {
                    return Err(request);
                };
                if session.touch {
                    self.touch(id);
                }
                (session.server, session.peer)
            }
            None => (
                SieveServer::http(self.engine.clone(), self.sessions.clone()),
                self.modern.clone(),
            ),
        };
        let modern = plan.session.is_none();
        let (sink, mut progress) = if plan.progress {
            let (sink, coming) = mpsc::unbounded_channel();
            let coming = Progress {
                came: Vec::new(),
                coming: Some(coming),
            };
            (Some(CallProgress(sink)), coming)
        } else {
            (None, Progress::default())
        };
        // Keyed as a `notifications/cancelled` names it: from the raw id.
        let key = id_key(&body["id"]);
        let (mut parts, _) = request.into_parts();
        // The params are taken, not copied, once no one else holds them
        // (a call does not read the raw body again).
        parts.extensions.remove::<RawBody>();
        let params = match Arc::try_unwrap(body) {
            Ok(mut body) => body["params"].take(),
            Err(body) => body["params"].clone(),
        };
        let ct = self.stop.child_token();
        if let Some(session) = &plan.session {
            self.sessions.started(session, &key, &ct);
        }
        let session = plan.session.clone();
        let mut call = {
            let (direct, ct) = (self.clone(), ct.clone());
            Finishing::new(async move {
                let answer = server
                    .call_directly(peer, parts, plan.id, params, ct, sink)
                    .await;
                if let Some(session) = &plan.session {
                    direct.sessions.ended(session, &key);
                }
                answer
            })
        };
        let gone = ct.drop_guard();
        // JSON unless the call is slow or has progress to tell before its
        // answer, which then go as a stream.
        tokio::select! {
            biased;
            done = &mut call => {
                gone.disarm();
                progress.gather();
                if progress.came.is_empty() {
                    return Ok(json(done, modern));
                }
                let done = serde_json::to_string(&done).unwrap_or_default().into();
                return Ok(stream(std::future::ready(done), None, None, progress));
            }
            first = progress.next() => progress.came.push(first),
            () = tokio::time::sleep(reply::WAIT) => {}
        }
        Ok(match session {
            // The guard goes with the stream: a host that hangs up cancels.
            None => stream(answered(call), None, Some(gone), progress),
            Some(session) => {
                // The call goes on if the host hangs up, for it to resume.
                gone.disarm();
                self.resumable(session, call, progress)
            }
        })
    }

    /// The stream of a 2025-11-25 call that did not answer within the
    /// wait: a priming event a host can resume from, its progress, then its
    /// answer. A resumed stream has the answer only.
    fn resumable(
        self: &Arc<Self>,
        session: String,
        call: Finishing,
        progress: Progress,
    ) -> Response {
        let number = self.next_stream.fetch_add(1, Ordering::Relaxed);
        let (tell, answer) = watch::channel(None);
        self.streams.locked().insert(
            number,
            Resumable {
                session,
                answer: answer.clone(),
            },
        );
        let direct = self.clone();
        tokio::spawn(async move {
            let message = call.await;
            let _ = tell.send(Some(
                serde_json::to_string(&message).unwrap_or_default().into(),
            ));
            tokio::time::sleep(KEPT).await;
            direct.streams.locked().remove(&number);
        });
        let priming = format!("id: {EVENT_PREFIX}{number}/0\nretry: {RETRY_MS}\ndata: \n\n");
        stream(waited(answer), Some((priming, number)), None, progress)
    }

    /// A GET that resumes a stream of ours (its `Last-Event-ID` names one,
    /// on its own session); any other GET is rmcp's.
    fn resume(&self, request: &Request) -> Option<Response> {
        let headers = request.headers();
        let wanted = one_header(headers, "last-event-id")
            .and_then(|id| id.strip_prefix(EVENT_PREFIX))
            .and_then(|id| id.split_once('/'))
            .and_then(|(number, event)| Some((number.parse::<u64>().ok()?, event.to_string())));
        let ((number, event), session) = (wanted?, one_header(headers, "mcp-session-id")?);
        let answer = self
            .streams
            .locked()
            .get(&number)
            .filter(|r| r.session == session)?
            .answer
            .clone();
        if event != "0" {
            // Past the answer: nothing is left to send.
            return Some(event_stream(Body::empty()));
        }
        Some(stream(
            waited(answer),
            Some((String::new(), number)),
            None,
            Progress::default(),
        ))
    }

    /// Shows rmcp that session `id` is in use, so it does not close it as
    /// idle while its calls come here: a request about a stream that does
    /// not exist, which it answers and forgets.
    fn touch(&self, id: &str) {
        let manager = self.manager.clone();
        let id: Arc<str> = id.into();
        tokio::spawn(async move {
            let handle = manager.sessions.read().await.get(&id).cloned();
            if let Some(handle) = handle {
                let _ = handle.close_request_wise_channel(u64::MAX).await;
            }
        });
    }
}

/// The request, if the direct path serves it: a POST to an endpoint whose
/// answer may be JSON, one `tools/call` with params and without a progress
/// token or a 2025-11-25 task; either of a 2025-11-25 session with a known
/// protocol version, or a 2026-07-28 request whose headers agree with its
/// body as rmcp checks them.
fn plan(request: &Request, body: &Value) -> Option<Plan> {
    let headers = request.headers();
    if !reply::may_be_plain(request.method(), headers) {
        return None;
    }
    let object = body.as_object()?;
    if object.get("jsonrpc")?.as_str()? != "2.0" || object.get("method")?.as_str()? != "tools/call"
    {
        return None;
    }
    let id = object.get("id")?;
    let id = match id {
        Value::String(s) => RequestId::String(s.as_str().into()),
        Value::Number(n) => RequestId::Number(n.as_i64()?),
        _ => return None,
    };
    let params = object.get("params")?;
    let params_object = params.as_object()?;
    if params_object.contains_key("task") {
        return None;
    }
    let meta = match params_object.get("_meta") {
        None => None,
        Some(Value::Object(meta)) => Some(meta),
        Some(_) => return None,
    };
    let progress = meta.is_some_and(|m| m.contains_key("progressToken"));
    let header_version = headers.get_all("mcp-protocol-version");
    let header_version = match (header_version.iter().next(), header_version.iter().nth(1)) {
        (None, _) => None,
        (Some(value), None) => Some(value.to_str().ok()?),
        (Some(_), Some(_)) => return None,
    };
    let known = |version: &str| {
        ProtocolVersion::KNOWN_VERSIONS
            .iter()
            .any(|known| known.as_str() == version)
    };
    let modern = ProtocolVersion::V_2026_07_28.as_str();
    match meta.and_then(|m| m.get(PROTOCOL_VERSION_META)) {
        None => {
            let session = one_header(headers, "mcp-session-id")?;
            if header_version.is_some_and(|v| !known(v) || v >= modern) {
                return None;
            }
            Some(Plan {
                id,
                session: Some(session.to_string()),
                progress,
            })
        }
        Some(Value::String(version)) => {
            let name = params_object.get("name")?.as_str()?;
            let agrees = version.as_str() >= modern
                && known(version)
                && header_version == Some(version.as_str())
                && headers.get("mcp-session-id").is_none()
                && one_header(headers, "mcp-method") == Some("tools/call")
                && one_header(headers, "mcp-name") == Some(name)
                && !headers
                    .keys()
                    .any(|key| key.as_str().starts_with("mcp-param-"))
                && has_required_meta(params);
            agrees.then_some(Plan {
                id,
                session: None,
                progress,
            })
        }
        Some(_) => None,
    }
}

/// Whether the request's `_meta` has all a 2026-07-28 request must carry,
/// as rmcp reads it (else rmcp answers it with a 400 that says what is
/// missing): its protocol version (checked before) and capabilities.
fn has_required_meta(params: &Value) -> bool {
    use serde::Deserialize;
    params
        .get("_meta")
        .and_then(|meta| meta.get(CLIENT_CAPABILITIES_META))
        .is_some_and(|caps| rmcp::model::ClientCapabilities::deserialize(caps).is_ok())
}

/// The header's one value; `None` when absent, repeated or not text.
fn one_header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    let mut values = headers.get_all(name).iter();
    let first = values.next()?;
    if values.next().is_some() {
        return None;
    }
    first.to_str().ok()
}

/// The answer (as JSON-RPC text) of a call running in `call`.
async fn answered(call: Finishing) -> Arc<str> {
    serde_json::to_string(&call.await)
        .unwrap_or_default()
        .into()
}

/// A call's future, run where its answer is awaited (no task of its own,
/// no wake-up to cross to one), and never dropped half done: dropped
/// before its answer (its host went, say), what is left of it goes on in
/// a task of its own, to end as a cancellation does and be recorded. A
/// panic in it is its answer's internal error.
pub(crate) struct Finishing {
    call: Option<Pin<Box<dyn Future<Output = ServerJsonRpcMessage> + Send>>>,
}

impl Finishing {
    fn new(call: impl Future<Output = ServerJsonRpcMessage> + Send + 'static) -> Finishing {
        use futures_util::FutureExt;
        let call = std::panic::AssertUnwindSafe(call)
            .catch_unwind()
            .map(|answer| {
                answer.unwrap_or_else(|_| failed_message("the call failed in the proxy"))
            });
        Finishing {
            call: Some(Box::pin(call)),
        }
    }
}

impl Future for Finishing {
    type Output = ServerJsonRpcMessage;

    fn poll(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<ServerJsonRpcMessage> {
        let Some(call) = self.call.as_mut() else {
            return std::task::Poll::Ready(failed_message("the call's answer was taken"));
        };
        let answer = std::task::ready!(call.as_mut().poll(cx));
        self.call = None;
        std::task::Poll::Ready(answer)
    }
}

impl Drop for Finishing {
    fn drop(&mut self) {
        if let Some(call) = self.call.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(call);
        }
    }
}

/// The answer once `answer` has it.
async fn waited(mut answer: watch::Receiver<Option<Arc<str>>>) -> Arc<str> {
    match answer.wait_for(Option::is_some).await {
        Ok(answer) => answer.clone().unwrap_or_else(|| "".into()),
        Err(_) => serde_json::to_string(&failed_message("the call's answer was lost"))
            .unwrap_or_default()
            .into(),
    }
}

/// An SSE stream: `first` (a priming event, for stream `number`), the
/// call's progress as it comes, with keep-alive comments until `answer`,
/// then the answer as an event (with the next id of that stream). `gone`
/// is dropped with the stream, or disarmed once the answer is sent.
/// Progress events carry no id: a host that resumes is given the answer.
fn stream(
    answer: impl Future<Output = Arc<str>> + Send + 'static,
    first: Option<(String, u64)>,
    gone: Option<DropGuard>,
    mut progress: Progress,
) -> Response {
    let number = first.as_ref().map(|(_, number)| *number);
    let priming = first
        .map(|(priming, _)| priming)
        .filter(|p| !p.is_empty())
        .map(Bytes::from);
    let came = std::mem::take(&mut progress.came)
        .into_iter()
        .map(progress_event);
    let ahead = priming.into_iter().chain(came).map(Ok::<_, std::io::Error>);
    let answer = Box::pin(answer);
    let events = stream::unfold(Some((answer, gone, progress)), move |state| async move {
        let (mut answer, gone, mut progress) = state?;
        tokio::select! {
            // Progress before the answer: it comes first when both are in.
            biased;
            next = progress.next() => {
                Some((Ok(progress_event(next)), Some((answer, gone, progress))))
            }
            data = &mut answer => {
                if let Some(gone) = gone {
                    gone.disarm();
                }
                let id = number.map(|n| format!("id: {EVENT_PREFIX}{n}/1\n")).unwrap_or_default();
                let event = format!("{id}event: message\ndata: {data}\n\n");
                Some((Ok(Bytes::from(event)), None))
            }
            () = tokio::time::sleep(KEEP_ALIVE) => {
                Some((Ok(Bytes::from_static(b":\n\n")), Some((answer, gone, progress))))
            }
        }
    });
    event_stream(Body::from_stream(stream::iter(ahead).chain(events)))
}

/// A progress notification as an SSE event.
fn progress_event(progress: ProgressNotificationParam) -> Bytes {
    let message = ServerJsonRpcMessage::notification(ServerNotification::ProgressNotification(
        Notification::new(progress),
    ));
    let data = serde_json::to_string(&message).unwrap_or_default();
    Bytes::from(format!("event: message\ndata: {data}\n\n"))
}

/// `body` as an SSE answer.
fn event_stream(body: Body) -> Response {
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

fn failed_message(why: &str) -> ServerJsonRpcMessage {
    ServerJsonRpcMessage::error(rmcp::ErrorData::internal_error(why.to_string(), None), None)
}

/// The answer as JSON, with the status rmcp gives it: a 2026-07-28 error
/// of the request itself is a 400 (or 404 for a method not found), as the
/// 2026-07-28 transport asks; every 2025-11-25 answer is a 200.
fn json(message: ServerJsonRpcMessage, modern: bool) -> Response {
    let status = match &message {
        ServerJsonRpcMessage::Error(error) if modern => match error.error.code {
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
            | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            | ErrorCode::HEADER_MISMATCH => StatusCode::BAD_REQUEST,
            ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
            _ => StatusCode::OK,
        },
        _ => StatusCode::OK,
    };
    let body = serde_json::to_vec(&message).unwrap_or_default();
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(method: &str, headers: &[(&str, &str)]) -> Request {
        let mut builder = axum::http::Request::builder().method(method).uri("/mcp");
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(Body::empty()).expect("a request")
    }

    const ACCEPT: (&str, &str) = ("accept", "application/json, text/event-stream");

    fn call(params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
    }

    fn modern_params() -> Value {
        json!({"name": "demo__echo", "arguments": {"text": "hi"}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        }})
    }

    const MODERN: [(&str, &str); 4] = [
        ACCEPT,
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "demo__echo"),
    ];

    #[tokio::test]
    async fn a_call_dropped_before_its_answer_still_ends() {
        let (answer, answered) = tokio::sync::oneshot::channel::<()>();
        let (ended, mut end) = tokio::sync::oneshot::channel::<()>();
        let call = Finishing::new(async move {
            let _ = answered.await;
            let _ = ended.send(());
            failed_message("done")
        });
        drop(call);
        assert!(end.try_recv().is_err(), "not ended yet");
        answer.send(()).expect("the call still waits");
        tokio::time::timeout(Duration::from_secs(5), end)
            .await
            .expect("the rest of the call ran on its own")
            .expect("and ended");

        let panics = Finishing::new(async { panic!("a bug") });
        match panics.await {
            ServerJsonRpcMessage::Error(error) => {
                assert!(
                    error.error.message.contains("failed in the proxy"),
                    "{error:?}"
                )
            }
            other => panic!("a panic is an error answer: {other:?}"),
        }
    }

    #[test]
    fn a_plain_call_of_a_session_is_served_directly() {
        let legacy = [
            ACCEPT,
            ("mcp-session-id", "s1"),
            ("mcp-protocol-version", "2025-11-25"),
        ];
        let plain = call(json!({"name": "demo__echo", "arguments": {"text": "hi"}}));
        let served = plan(&request("POST", &legacy), &plain).expect("served directly");
        assert_eq!(served.session.as_deref(), Some("s1"));
        assert_eq!(served.id, RequestId::Number(7));
        assert!(
            plan(&request("POST", &legacy[..2]), &plain).is_some(),
            "no version header"
        );

        let no = |headers: &[(&str, &str)], body: &Value, why: &str| {
            assert!(plan(&request("POST", headers), body).is_none(), "{why}");
        };
        no(&[ACCEPT], &plain, "no session");
        no(
            &[("accept", "text/event-stream"), ("mcp-session-id", "s1")],
            &plain,
            "JSON not taken",
        );
        no(
            &[
                ACCEPT,
                ("mcp-session-id", "s1"),
                ("mcp-protocol-version", "1999-01-01"),
            ],
            &plain,
            "unknown version",
        );
        assert!(!served.progress, "no progress asked for");
        let progress = call(json!({"name": "demo__echo", "_meta": {"progressToken": 1}}));
        let served = plan(&request("POST", &legacy), &progress).expect("progress asked for");
        assert!(served.progress, "its progress goes to its answer");
        let task = call(json!({"name": "demo__echo", "task": {"ttl": 1000}}));
        no(&legacy, &task, "a 2025-11-25 task");
        let list = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}});
        no(&legacy, &list, "another method");
        let batch = json!([plain.clone()]);
        no(&legacy, &batch, "a batch");
        assert!(plan(&request("GET", &legacy), &plain).is_none(), "a GET");
    }

    #[test]
    fn a_2026_07_28_call_is_served_directly_when_its_headers_agree() {
        let body = call(modern_params());
        let served = plan(&request("POST", &MODERN), &body).expect("served directly");
        assert_eq!(served.session, None);
        let mut with_progress = modern_params();
        with_progress["_meta"]["progressToken"] = json!("p");
        let served = plan(&request("POST", &MODERN), &call(with_progress)).expect("served");
        assert!(served.progress, "progress asked for");

        let no = |headers: &[(&str, &str)], body: &Value, why: &str| {
            assert!(plan(&request("POST", headers), body).is_none(), "{why}");
        };
        no(&MODERN[..3], &body, "no Mcp-Name");
        let mut other_name = MODERN;
        other_name[3] = ("mcp-name", "demo__other");
        no(&other_name, &body, "Mcp-Name of another tool");
        let mut other_method = MODERN;
        other_method[2] = ("mcp-method", "tools/list");
        no(&other_method, &body, "Mcp-Method of another method");
        let mut other_version = MODERN;
        other_version[1] = ("mcp-protocol-version", "2025-11-25");
        no(
            &other_version,
            &body,
            "the header's version is not the body's",
        );
        let mut with_session = MODERN.to_vec();
        with_session.push(("mcp-session-id", "s1"));
        no(&with_session, &body, "a session id");
        let mut with_param = MODERN.to_vec();
        with_param.push(("mcp-param-text", "hi"));
        no(&with_param, &body, "Mcp-Param headers, which rmcp checks");
        let mut missing = modern_params();
        missing["_meta"]
            .as_object_mut()
            .expect("meta")
            .remove("io.modelcontextprotocol/clientCapabilities");
        no(
            &MODERN,
            &call(missing),
            "the _meta misses what it must carry",
        );
    }
}
