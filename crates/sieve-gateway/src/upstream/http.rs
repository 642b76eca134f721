//! An HTTP server's wire, tapped: rmcp's streamable HTTP client, over
//! reqwest, with every JSON body and every SSE event an HTTP server sends
//! read by `sieve-wire` (a body into a [`Message`], a stream by its
//! [`SseDecoder`]) and shown to the connection's [`RawLog`] before rmcp
//! types it. A stdio server's lines pass its lane (`crate::lane`) the
//! same way, so the fields rmcp's model drops (a tool's `execution`,
//! `groups`, `tags`, unknown fields) are read from both alike.
//!
//! rmcp's client keeps the session, the protocol's headers and the
//! streams' resumption; what it is given of an answer the proxy awaits (a
//! host's request) is a stand-in with an empty result, the result itself
//! going, as the server sent it, to whoever awaits it
//! ([`RawLog::hand_over`]); progress goes to the hosts as it is read.
//!
//! rmcp's own reqwest client parses a JSON answer before anyone else can
//! see it, so [`TappedHttp`] sends the POST itself and answers rmcp as
//! that client does: the same errors, of the same type, for the same
//! statuses, which `connect` turns into a person's words.

use crate::tap::RawLog;
use futures_util::{Stream, StreamExt};
use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ErrorData, ServerJsonRpcMessage};
use rmcp::transport::common::http_header::{
    EVENT_STREAM_MIME_TYPE, HEADER_SESSION_ID, JSON_MIME_TYPE,
};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, HttpStatusError, InsufficientScopeError, SseError, StreamableHttpClient,
    StreamableHttpError, StreamableHttpPostResponse,
};
use sieve_wire::{Decoded, Message, SseDecoder};
use sse_stream::Sse;
use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

type Failure = StreamableHttpError<reqwest::Error>;
type Events = futures_util::stream::BoxStream<'static, Result<Sse, SseError>>;

/// The largest JSON answer taken (rmcp's own client takes as much).
const MAX_JSON_BODY: usize = 16 * 1024 * 1024;
/// The largest SSE event taken when rmcp names no limit (rmcp's default).
const MAX_SSE_EVENT: usize = 16 * 1024 * 1024;
/// The most of an error answer read, to say why.
const MAX_ERROR_BODY: usize = 64 * 1024;
/// Redirects followed per request (same origin, 307 and 308 only).
const MAX_REDIRECTS: usize = 10;

/// rmcp's streamable HTTP client, each answer shown to `raw` first.
#[derive(Clone)]
pub(super) struct TappedHttp {
    client: reqwest::Client,
    raw: RawLog,
}

impl TappedHttp {
    pub(super) fn new(raw: RawLog) -> TappedHttp {
        let client = reqwest::Client::builder()
            // No idle connection is kept for the next request, as rmcp's
            // own client does (it saw stalls of delayed ACKs on a reused
            // connection); a server's streams are unchanged by it.
            .pool_max_idle_per_host(0)
            .redirect(same_origin_redirects())
            .build()
            .unwrap_or_default();
        TappedHttp { client, raw }
    }
}

/// Follows a redirect only where the POST's body survives (307, 308) and
/// only to the same origin: another host must not get the session id or
/// the configured headers.
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let keeps_body = matches!(
            attempt.status(),
            StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT
        );
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if keeps_body && same_origin && attempt.previous().len() <= MAX_REDIRECTS {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

impl StreamableHttpClient for TappedHttp {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Failure> {
        self.post_message_with_max_sse_event_size(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            MAX_SSE_EVENT,
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, Failure> {
        let mut request = self.client.post(uri.as_ref()).header(
            http::header::ACCEPT,
            format!("{EVENT_STREAM_MIME_TYPE}, {JSON_MIME_TYPE}"),
        );
        if let Some(token) = auth_header {
            request = request.bearer_auth(token);
        }
        for (name, value) in custom_headers {
            request = request.header(name, value);
        }
        let sessionless = session_id.is_none();
        if let Some(session_id) = session_id {
            request = request.header(HEADER_SESSION_ID, session_id.as_ref());
        }
        let response = request.json(&message).send().await?;
        let status = response.status();
        sign_in_refusal(status, response.headers())?;
        if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == StatusCode::NOT_FOUND && !sessionless {
            return Err(StreamableHttpError::SessionExpired);
        }
        let content_type = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let is = |mime: &str| content_type.as_deref().is_some_and(|t| t.starts_with(mime));
        let session = response
            .headers()
            .get(HEADER_SESSION_ID)
            .and_then(|v| v.to_str().ok())
            .map(String::from);
        let awaits_answer = matches!(message, ClientJsonRpcMessage::Request(_));
        if !status.is_success() {
            return refused(response, &message, sessionless, is(JSON_MIME_TYPE)).await;
        }
        if !awaits_answer && response.content_length() == Some(0) {
            // Some servers answer a notification with an empty 200.
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if is(EVENT_STREAM_MIME_TYPE) {
            let events = bounded_events(response.bytes_stream(), max_sse_event_size);
            return Ok(StreamableHttpPostResponse::Sse(
                tapped(events, self.raw.clone()),
                session,
            ));
        }
        if !is(JSON_MIME_TYPE) {
            return Err(StreamableHttpError::UnexpectedContentType(content_type));
        }
        let body = read_bounded(response, MAX_JSON_BODY).await?;
        // Read once: the result of a request the proxy awaits goes to it,
        // rmcp's client typing a stand-in; rmcp types anything else (what
        // no message is, too: it may read what `sieve-wire` refuses).
        let (body, unread) = match Message::parse_vec(body) {
            Ok(message) => (self.raw.answer(message), None),
            Err((error, body)) => (body, Some(error)),
        };
        match serde_json::from_slice::<ServerJsonRpcMessage>(&body) {
            Ok(answer) => Ok(StreamableHttpPostResponse::Json(answer, session)),
            // Nothing waits on the answer to a notification or a response.
            Err(_) if !awaits_answer => Ok(StreamableHttpPostResponse::Accepted),
            Err(error) => Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                format!(
                    "the answer is not a JSON-RPC message ({}): {}",
                    unread.map_or_else(|| error.to_string(), |e| e.to_string()),
                    preview(&body)
                ),
            ))),
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Failure> {
        self.client
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<Events, Failure> {
        self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            MAX_SSE_EVENT,
        )
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<Events, Failure> {
        // A GET stream's events are not read before rmcp has them.
        let events = self
            .client
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await?;
        Ok(tapped(events, self.raw.clone()))
    }
}

/// The sign-in a 401 or 403 with a challenge asks for.
fn sign_in_refusal(status: StatusCode, headers: &HeaderMap) -> Result<(), Failure> {
    let Some(challenge) = headers.get(http::header::WWW_AUTHENTICATE) else {
        return Ok(());
    };
    let unreadable = || {
        StreamableHttpError::UnexpectedServerResponse(Cow::from(
            "its WWW-Authenticate header is not text",
        ))
    };
    match status {
        StatusCode::UNAUTHORIZED => {
            let header = challenge.to_str().map_err(|_| unreadable())?;
            Err(StreamableHttpError::AuthRequired(AuthRequiredError::new(
                header.to_string(),
            )))
        }
        StatusCode::FORBIDDEN => {
            let header = challenge.to_str().map_err(|_| unreadable())?;
            Err(StreamableHttpError::InsufficientScope(
                InsufficientScopeError::new(header.to_string(), scope_of(header)),
            ))
        }
        _ => Ok(()),
    }
}

/// The `scope` a `WWW-Authenticate` challenge names, quoted or not.
fn scope_of(challenge: &str) -> Option<String> {
    let at = challenge.to_ascii_lowercase().find("scope=")? + "scope=".len();
    let rest = &challenge[at..];
    let scope = match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next()?,
        None => rest.split([',', ' ']).next()?,
    };
    Some(scope.to_string())
}

/// A POST answered with an error status: the server's JSON-RPC error when
/// it sent one, else what the status says.
async fn refused(
    response: reqwest::Response,
    message: &ClientJsonRpcMessage,
    sessionless: bool,
    json: bool,
) -> Result<StreamableHttpPostResponse, Failure> {
    let status = response.status();
    let retry_after = response
        .headers()
        .get(http::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .map(String::from);
    let overloaded = status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error();
    let status_error = || {
        StreamableHttpError::HttpStatus(HttpStatusError::new(status.as_u16(), retry_after.clone()))
    };
    if overloaded && (!json || status == StatusCode::TOO_MANY_REQUESTS) {
        return Err(status_error());
    }
    let body = match read_bounded(response, MAX_ERROR_BODY).await {
        Ok(body) => String::from_utf8_lossy(&body).into_owned(),
        // Too long to read: the status says enough.
        Err(_) if overloaded => return Err(status_error()),
        Err(_) => String::new(),
    };
    let answered = serde_json::from_str::<ServerJsonRpcMessage>(&body)
        .ok()
        .and_then(|m| match m {
            ServerJsonRpcMessage::Error(error) => Some(error.error),
            _ => None,
        });
    // A server of the older generation refusing `server/discover` (often
    // with a bare 4xx and no id we could match): the handshake falls back
    // to `initialize` when it reads this as the request's error.
    if let ClientJsonRpcMessage::Request(request) = message
        && matches!(request.request, ClientRequest::DiscoverRequest(_))
        && sessionless
        && status.is_client_error()
        && !matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN)
    {
        let error = answered.unwrap_or_else(|| {
            ErrorData::invalid_request(
                format!("server/discover refused with HTTP {status}: {body}"),
                None,
            )
        });
        return Ok(StreamableHttpPostResponse::Json(
            ServerJsonRpcMessage::error(error, Some(request.id.clone())),
            None,
        ));
    }
    let sign_in = matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN);
    if !sign_in
        && json
        && let Some(error) = answered
    {
        let id = match message {
            ClientJsonRpcMessage::Request(request) => Some(request.id.clone()),
            _ => None,
        };
        return Ok(StreamableHttpPostResponse::Json(
            ServerJsonRpcMessage::error(error, id),
            None,
        ));
    }
    if overloaded {
        return Err(status_error());
    }
    Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
        format!("HTTP {status}: {}", preview(body.as_bytes())),
    )))
}

/// A body read to its end, refused past `max` bytes rather than kept.
async fn read_bounded(mut response: reqwest::Response, max: usize) -> Result<Vec<u8>, Failure> {
    if response.content_length().is_some_and(|n| n > max as u64) {
        return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: max });
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if chunk.len() > max - body.len() {
            return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: max });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The start of a body, for an error message.
fn preview(body: &[u8]) -> String {
    String::from_utf8_lossy(body).chars().take(256).collect()
}

/// `events` with each one's data shown to `raw` as it passes: the result
/// of a request the proxy awaits is handed to it, a stand-in going on in
/// its place (see [`RawLog::hand_over`]); progress goes to the hosts.
fn tapped(events: Events, raw: RawLog) -> Events {
    events
        .map(move |mut event| {
            // An event whose message went elsewhere (progress) keeps its
            // id, for resuming the stream, with no data: rmcp skips it.
            if let Ok(Sse { data, .. }) = &mut event
                && let Some(text) = data.take()
            {
                *data = raw.pass_text(text);
            }
            event
        })
        .boxed()
}

/// The SSE events of a byte stream, read by `sieve-wire`'s decoder; an
/// event over `max` bytes ends it with an error rather than being
/// buffered.
fn bounded_events<S>(bytes: S, max: usize) -> Events
where
    S: Stream<Item = reqwest::Result<axum::body::Bytes>> + Send + 'static,
{
    struct Reading<S> {
        bytes: std::pin::Pin<Box<S>>,
        decoder: SseDecoder,
        ready: VecDeque<Result<Sse, SseError>>,
        done: bool,
    }
    let reading = Reading {
        bytes: Box::pin(bytes),
        decoder: SseDecoder::new(max),
        ready: VecDeque::new(),
        done: false,
    };
    futures_util::stream::unfold(reading, |mut reading| async move {
        loop {
            if let Some(item) = reading.ready.pop_front() {
                return Some((item, reading));
            }
            if reading.done {
                return None;
            }
            match reading.bytes.next().await {
                Some(Ok(chunk)) => {
                    let Reading {
                        decoder,
                        ready,
                        done,
                        ..
                    } = &mut reading;
                    decoder.feed(&chunk, |decoded| match decoded {
                        _ if *done => {}
                        Decoded::Event(event) => ready.push_back(Ok(Sse {
                            event: event.event,
                            data: event.data,
                            id: event.id,
                            retry: event.retry,
                        })),
                        Decoded::TooLarge { limit } => {
                            let error = format!("an SSE event is over {limit} bytes");
                            ready.push_back(Err(SseError::Body(error.into())));
                            *done = true;
                        }
                    });
                }
                Some(Err(error)) => {
                    reading
                        .ready
                        .push_back(Err(SseError::Body(Box::new(error))));
                    reading.done = true;
                }
                None => reading.done = true,
            }
        }
    })
    .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::stream;

    #[test]
    fn scopes_of_challenges() {
        assert_eq!(
            scope_of(r#"Bearer error="insufficient_scope", scope="files:read files:write""#)
                .as_deref(),
            Some("files:read files:write")
        );
        assert_eq!(scope_of("Bearer scope=read, x=y").as_deref(), Some("read"));
        assert_eq!(scope_of("Bearer realm=x"), None);
    }

    #[tokio::test]
    async fn events_are_shown_to_the_log_and_bounded() {
        let body = concat!(
            "event: message\n",
            r#"data: {"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"t","execution":{"taskSupport":"optional"}}]}}"#,
            "\n\n",
        );
        let raw = RawLog::new();
        let chunks = stream::iter(
            body.as_bytes()
                .chunks(7)
                .map(|c| Ok(axum::body::Bytes::copy_from_slice(c)))
                .collect::<Vec<reqwest::Result<axum::body::Bytes>>>(),
        );
        let events: Vec<_> = tapped(bounded_events(chunks, 1000), raw.clone())
            .collect()
            .await;
        assert_eq!(events.len(), 1, "one event: {events:?}");
        let kept = raw.take("3").expect("the result is kept by id");
        assert_eq!(kept["tools"][0]["execution"]["taskSupport"], "optional");

        let chunks = stream::iter(vec![Ok(axum::body::Bytes::from(body))]);
        let events: Vec<_> = bounded_events(chunks, 40).collect().await;
        assert!(
            events.iter().any(Result::is_err),
            "an event over the limit ends the stream with an error: {events:?}"
        );
    }
}
