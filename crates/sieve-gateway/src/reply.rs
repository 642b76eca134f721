//! How the answer to a request POSTed over streamable HTTP goes back: as
//! plain JSON when it is a single JSON-RPC response and the host accepts
//! JSON, else as the SSE stream rmcp made of it.
//!
//! The spec lets a server choose. rmcp's server answers every request of a
//! 2025-11-25 session with an SSE stream (a priming event, then the
//! messages), even when the answer is one response, and hosts pay for
//! reading a stream: the Python `mcp` client the most. rmcp's own
//! `StreamableHttpServerConfig::json_response` covers only sessionless
//! requests, and it holds the answer's headers for as long as the handler
//! is silent, with no bound (a five-minute call without progress sends no
//! byte for five minutes, past some clients' header timeouts).
//!
//! So [`plain_when_whole`] reads the start of rmcp's stream, up to the
//! first event that carries a message, for at most [`WAIT`]:
//!
//! * a response or an error there is the whole answer (rmcp closes a
//!   request's stream after its response): it goes back as
//!   `application/json` with the same status and headers (the session id
//!   among them);
//! * a notification or a request there (progress, sampling, elicitation, a
//!   listen's acknowledgement) means the answer streams: the stream goes
//!   back as it is, byte for byte, at once;
//! * nothing within [`WAIT`]: the stream goes back as it is, so a long call
//!   still gets its priming event (to resume after a broken connection)
//!   and rmcp's keep-alive comments, after a pause shorter than the first
//!   keep-alive.
//!
//! Nothing is held back from a stream beyond its first message, and what
//! is not an SSE answer of rmcp's (202s, GET streams, refusals) passes
//! untouched.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use futures_util::{StreamExt, stream};
use std::time::Duration;

/// How long a POST's answer may be held to see whether it is one response.
/// Most calls answer well within it; a longer one streams as rmcp made it.
/// Shorter than rmcp's 15 s SSE keep-alive, so no keep-alive is delayed.
pub(crate) const WAIT: Duration = Duration::from_secs(2);

/// Whether the answer to `method` with these request headers may be plain
/// JSON: a POST whose `Accept` takes `application/json`.
pub(crate) fn may_be_plain(method: &Method, headers: &HeaderMap) -> bool {
    method == Method::POST && accepts_json(headers)
}

/// `Accept` names `application/json` (or a range holding it) without
/// `q=0`.
fn accepts_json(headers: &HeaderMap) -> bool {
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
                && ["application/json", "application/*", "*/*"]
                    .iter()
                    .any(|taken| essence.eq_ignore_ascii_case(taken))
        })
}

/// `response` (rmcp's answer to a POST that [`may_be_plain`]) as plain JSON
/// when its SSE stream starts, within `wait`, with a JSON-RPC response or
/// error; otherwise the same stream, every byte of it.
pub(crate) async fn plain_when_whole(response: Response, wait: Duration) -> Response {
    if response.status() != StatusCode::OK || !is_event_stream(response.headers()) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    // Fused: after its end it may be chained below and polled again.
    let mut rest = body.into_data_stream().fuse();
    let mut seen: Vec<Bytes> = Vec::new();
    let mut events = Events::default();
    let deadline = tokio::time::sleep(wait);
    tokio::pin!(deadline);
    let end = loop {
        let next = tokio::select! {
            biased;
            next = rest.next() => next,
            () = &mut deadline => break None,
        };
        match next {
            Some(Ok(bytes)) => {
                events.push(&bytes);
                seen.push(bytes);
                match events.first_message() {
                    Scan::More => {}
                    Scan::Message(data) if is_answer(&data) => {
                        parts.headers.insert(
                            header::CONTENT_TYPE,
                            HeaderValue::from_static("application/json"),
                        );
                        parts.headers.remove("x-accel-buffering");
                        return Response::from_parts(parts, Body::from(data));
                    }
                    Scan::Message(_) => break None,
                }
            }
            Some(Err(error)) => break Some(error),
            None => break None,
        }
    };
    // A stream after all: what was read, the error that ended it if any,
    // then the rest as it comes.
    let replay = stream::iter(seen.into_iter().map(Ok))
        .chain(stream::iter(end.map(Err)))
        .chain(rest);
    Response::from_parts(parts, Body::from_stream(replay))
}

fn is_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("text/event-stream"))
}

/// Whether `data` is a JSON-RPC response or error: an object with
/// `result` or `error` and no `method`. Anything else (a notification, a
/// request, a batch, not JSON) is not.
fn is_answer(data: &[u8]) -> bool {
    use serde::de::IgnoredAny;
    #[derive(serde::Deserialize)]
    struct Message {
        method: Option<IgnoredAny>,
        result: Option<IgnoredAny>,
        error: Option<IgnoredAny>,
    }
    serde_json::from_slice::<Message>(data)
        .is_ok_and(|m| m.method.is_none() && (m.result.is_some() || m.error.is_some()))
}

/// The bytes of an SSE stream read so far, for its first event with data.
/// Lines end with `\n` or `\r\n` (rmcp writes `\n`); an event ends with an
/// empty line.
#[derive(Debug, Default)]
struct Events {
    buffer: Vec<u8>,
    /// Where the event being read starts in `buffer`.
    start: usize,
    /// Where its line being read starts.
    line: usize,
}

#[derive(Debug, PartialEq)]
enum Scan {
    /// No event with data yet.
    More,
    /// The data of the first event that has some.
    Message(Bytes),
}

impl Events {
    fn push(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
    }

    fn first_message(&mut self) -> Scan {
        while let Some(end) = self.event_end() {
            let event = &self.buffer[self.start..end];
            self.start = end;
            let mut data: Option<Vec<u8>> = None;
            for line in event.split(|&b| b == b'\n') {
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                let Some(value) = line.strip_prefix(b"data") else {
                    continue;
                };
                // "data" alone, or "data:" with its value after one space.
                let value = match value {
                    [] => &[][..],
                    [b':', b' ', value @ ..] | [b':', value @ ..] => value,
                    _ => continue,
                };
                match &mut data {
                    None => data = Some(value.to_vec()),
                    Some(data) => {
                        data.push(b'\n');
                        data.extend_from_slice(value);
                    }
                }
            }
            // An event without data (a priming event, a keep-alive
            // comment) is no message.
            if let Some(data) = data.filter(|d| !d.is_empty()) {
                return Scan::Message(Bytes::from(data));
            }
        }
        Scan::More
    }

    /// The end (after its empty line) of the event being read, once it has
    /// all arrived.
    fn event_end(&mut self) -> Option<usize> {
        while let Some(at) = self.buffer[self.line..].iter().position(|&b| b == b'\n') {
            let line = &self.buffer[self.line..self.line + at];
            self.line += at + 1;
            if line.is_empty() || line == b"\r" {
                return Some(self.line);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::mpsc;

    const PRIMING: &str = "id: 0/0\nretry: 3000\ndata: \n\n";
    const ANSWER: &str = r#"{"jsonrpc":"2.0","id":7,"result":{"content":[]}}"#;
    const PROGRESS: &str = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}"#;

    fn event(data: &str, id: &str) -> String {
        format!("id: {id}\ndata: {data}\n\n")
    }

    /// An SSE answer as rmcp makes it, whose body is fed by the sender.
    fn sse() -> (mpsc::UnboundedSender<String>, Response) {
        let (tx, rx) = mpsc::unbounded_channel::<String>();
        let body = stream::unfold(rx, |mut rx| async move {
            let chunk = rx.recv().await?;
            Some((Ok::<_, std::convert::Infallible>(Bytes::from(chunk)), rx))
        });
        let response = Response::builder()
            .header(header::CONTENT_TYPE, "text/event-stream")
            .header(header::CACHE_CONTROL, "no-cache")
            .header("x-accel-buffering", "no")
            .header("mcp-session-id", "s-1")
            .body(Body::from_stream(body))
            .expect("a response");
        (tx, response)
    }

    async fn text(response: Response) -> String {
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .expect("the body reads");
        String::from_utf8(bytes.to_vec()).expect("UTF-8")
    }

    fn content_type(response: &Response) -> &str {
        response.headers()[header::CONTENT_TYPE]
            .to_str()
            .expect("a header")
    }

    #[tokio::test]
    async fn a_stream_of_one_response_goes_back_as_plain_json() {
        let (tx, response) = sse();
        tx.send(PRIMING.into()).unwrap();
        tx.send(event(ANSWER, "0/1")).unwrap();
        // rmcp keeps the stream open a moment after the response; the
        // answer does not wait for its end.
        let plain = plain_when_whole(response, WAIT).await;
        assert_eq!(plain.status(), StatusCode::OK);
        assert_eq!(content_type(&plain), "application/json");
        assert_eq!(
            plain.headers()["mcp-session-id"],
            "s-1",
            "the session's header stays"
        );
        assert!(!plain.headers().contains_key("x-accel-buffering"));
        assert_eq!(text(plain).await, ANSWER, "the response, as rmcp wrote it");
    }

    #[tokio::test]
    async fn an_error_is_a_whole_answer_too() {
        let (tx, response) = sse();
        let error = r#"{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"no"}}"#;
        tx.send(format!("data: {error}\n\n")).unwrap();
        let plain = plain_when_whole(response, WAIT).await;
        assert_eq!(content_type(&plain), "application/json");
        assert_eq!(text(plain).await, error);
    }

    #[tokio::test]
    async fn a_stream_that_starts_with_progress_streams_every_byte_at_once() {
        let (tx, response) = sse();
        tx.send(PRIMING.into()).unwrap();
        tx.send(event(PROGRESS, "0/1")).unwrap();
        let streamed = tokio::time::timeout(
            Duration::from_secs(1),
            plain_when_whole(response, Duration::from_secs(60)),
        )
        .await
        .expect("a progress notification starts the stream without waiting for the answer");
        assert_eq!(content_type(&streamed), "text/event-stream");
        tx.send(event(ANSWER, "0/2")).unwrap();
        drop(tx);
        assert_eq!(
            text(streamed).await,
            format!(
                "{PRIMING}{}{}",
                event(PROGRESS, "0/1"),
                event(ANSWER, "0/2")
            ),
            "the stream is what rmcp wrote, priming event and ids included"
        );
    }

    #[tokio::test]
    async fn a_request_to_the_host_first_streams() {
        let (tx, response) = sse();
        let sampling = r#"{"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{}}"#;
        tx.send(event(sampling, "0/1")).unwrap();
        let streamed = plain_when_whole(response, WAIT).await;
        assert_eq!(content_type(&streamed), "text/event-stream");
        drop(tx);
        assert_eq!(text(streamed).await, event(sampling, "0/1"));
    }

    #[tokio::test]
    async fn a_silent_answer_streams_after_the_wait_with_its_priming_event() {
        let (tx, response) = sse();
        tx.send(PRIMING.into()).unwrap();
        let wait = Duration::from_millis(50);
        let started = std::time::Instant::now();
        let streamed = plain_when_whole(response, wait).await;
        assert!(started.elapsed() >= wait, "held for the wait");
        // The answer comes only now, after the stream went back.
        assert_eq!(content_type(&streamed), "text/event-stream");
        tx.send(event(ANSWER, "0/1")).unwrap();
        drop(tx);
        assert_eq!(
            text(streamed).await,
            format!("{PRIMING}{}", event(ANSWER, "0/1")),
            "the priming event first, so the host can resume"
        );
    }

    #[tokio::test]
    async fn keep_alives_split_events_and_crlf_are_read() {
        let (tx, response) = sse();
        tx.send(":\n\n".into()).unwrap();
        let whole = format!("id: 1\r\nretry: 5\r\ndata:\r\n\r\nid: 2\r\ndata:{ANSWER}\r\n\r\n");
        let (a, b) = whole.split_at(whole.len() - 3);
        tx.send(a.into()).unwrap();
        tx.send(b.into()).unwrap();
        let plain = plain_when_whole(response, WAIT).await;
        assert_eq!(content_type(&plain), "application/json");
        assert_eq!(text(plain).await, ANSWER);
    }

    #[tokio::test]
    async fn a_stream_that_ends_without_a_message_stays_a_stream() {
        let (tx, response) = sse();
        tx.send(PRIMING.into()).unwrap();
        drop(tx);
        let streamed = plain_when_whole(response, WAIT).await;
        assert_eq!(content_type(&streamed), "text/event-stream");
        assert_eq!(text(streamed).await, PRIMING);
    }

    #[tokio::test]
    async fn what_is_not_an_sse_answer_passes_untouched() {
        let accepted = Response::builder()
            .status(StatusCode::ACCEPTED)
            .body(Body::empty())
            .unwrap();
        assert_eq!(
            plain_when_whole(accepted, WAIT).await.status(),
            StatusCode::ACCEPTED
        );
        let json = Response::builder()
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(ANSWER))
            .unwrap();
        assert_eq!(text(plain_when_whole(json, WAIT).await).await, ANSWER);
    }

    #[test]
    fn what_a_host_accepts() {
        let accept = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::ACCEPT, value.parse().unwrap());
            may_be_plain(&Method::POST, &headers)
        };
        assert!(accept("application/json, text/event-stream"));
        assert!(accept("text/event-stream, application/json;q=0.5"));
        assert!(accept("*/*"));
        assert!(!accept("text/event-stream"));
        assert!(!accept("application/json;q=0, text/event-stream"));
        assert!(!accept("application/json-seq"));
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, "application/json".parse().unwrap());
        assert!(
            !may_be_plain(&Method::GET, &headers),
            "a GET is a stream by asking"
        );
    }

    #[test]
    fn answers_are_responses_and_errors_only() {
        assert!(is_answer(ANSWER.as_bytes()));
        assert!(is_answer(br#"{"jsonrpc":"2.0","id":null,"error":{}}"#));
        assert!(!is_answer(PROGRESS.as_bytes()));
        assert!(!is_answer(
            br#"{"jsonrpc":"2.0","id":1,"method":"roots/list"}"#
        ));
        assert!(!is_answer(br#"[{"jsonrpc":"2.0","id":1,"result":{}}]"#));
        assert!(!is_answer(b"not json"));
    }
}
