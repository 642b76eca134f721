//! How an HTTP request's answer goes back: as plain JSON when it comes
//! whole and first, else as an SSE stream of what comes ahead of it (the
//! request's progress; on a 2026-07-28 request, what its connection sends,
//! such as a listen's acknowledgement and notifications), keep-alive
//! comments, then the answer.

use crate::hosts::CallProgress;
use crate::link::Outgoing;
use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use futures_util::{StreamExt, stream};
use rmcp::model::{ProgressNotificationParam, ServerJsonRpcMessage};
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::DropGuard;

/// Between keep-alive comments of a stream.
pub(super) const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// How long a request may take before its answer streams, so a long call
/// gets its priming event and keep-alives rather than no headers at all.
pub(super) const WAIT: Duration = Duration::from_secs(2);

/// What comes ahead of a request's answer: its progress, and the messages
/// of a connection of its own.
pub(super) struct Ahead {
    came: Vec<Bytes>,
    progress: Option<mpsc::UnboundedReceiver<ProgressNotificationParam>>,
    own: Option<mpsc::UnboundedReceiver<Outgoing>>,
}

impl Ahead {
    /// Progress for a sink to send to, and messages from `own`.
    pub(super) fn new(own: Option<mpsc::UnboundedReceiver<Outgoing>>) -> (Ahead, CallProgress) {
        let (sink, progress) = mpsc::unbounded_channel();
        let ahead = Ahead {
            came: Vec::new(),
            progress: Some(progress),
            own,
        };
        (ahead, CallProgress(sink))
    }

    /// Nothing ahead.
    pub(super) fn none() -> Ahead {
        Ahead {
            came: Vec::new(),
            progress: None,
            own: None,
        }
    }

    /// The next message, as an SSE event; pending for ever once there is
    /// none to come (the answer, which comes after them, ends the wait).
    pub(super) async fn next(&mut self) -> Bytes {
        loop {
            tokio::select! {
                biased;
                progress = recv(&mut self.progress) => match progress {
                    Some(progress) => return progress_event(progress),
                    None => self.progress = None,
                },
                own = recv(&mut self.own) => match own {
                    Some(own) => return event(None, &own.line),
                    None => self.own = None,
                },
            }
        }
    }

    /// Takes in what has come already; whether anything has.
    pub(super) fn gather(&mut self) -> bool {
        if let Some(progress) = &mut self.progress {
            while let Ok(progress) = progress.try_recv() {
                self.came.push(progress_event(progress));
            }
        }
        if let Some(own) = &mut self.own {
            while let Ok(own) = own.try_recv() {
                self.came.push(event(None, &own.line));
            }
        }
        !self.came.is_empty()
    }

    pub(super) fn push(&mut self, event: Bytes) {
        self.came.push(event);
    }
}

/// The next item of an open channel; pending once it is closed or gone.
async fn recv<T>(channel: &mut Option<mpsc::UnboundedReceiver<T>>) -> Option<T> {
    match channel {
        Some(channel) => channel.recv().await,
        None => std::future::pending().await,
    }
}

/// A request's future, run where its answer is awaited (no task of its
/// own, no wake-up to cross to one), and never dropped half done: dropped
/// before its answer (its host went, say), what is left of it goes on in
/// a task of its own, to end as a cancellation does and be recorded. A
/// panic in it is its answer's internal error.
pub(super) struct Finishing {
    call: Option<Pin<Box<dyn Future<Output = Vec<u8>> + Send>>>,
}

impl Finishing {
    pub(super) fn new(call: impl Future<Output = Vec<u8>> + Send + 'static) -> Finishing {
        use futures_util::FutureExt;
        let call = std::panic::AssertUnwindSafe(call)
            .catch_unwind()
            .map(|answer| answer.unwrap_or_else(|_| failed("the request failed in the proxy")));
        Finishing {
            call: Some(Box::pin(call)),
        }
    }
}

impl Future for Finishing {
    type Output = Vec<u8>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Vec<u8>> {
        let Some(call) = self.call.as_mut() else {
            return std::task::Poll::Ready(failed("the request's answer was taken"));
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

/// An internal error answer, with no id.
pub(super) fn failed(why: &str) -> Vec<u8> {
    super::encode(&ServerJsonRpcMessage::error(
        rmcp::ErrorData::internal_error(why.to_string(), None),
        None,
    ))
}

/// An SSE stream: `first` (a priming event), what came and comes `ahead`,
/// with keep-alive comments until `answer`, then the answer as an event
/// (with `answer_id`, when the stream is resumable). `gone` is dropped
/// with the stream, or disarmed once the answer is sent.
pub(super) fn stream(
    answer: impl Future<Output = Vec<u8>> + Send + 'static,
    first: Option<Bytes>,
    answer_id: Option<String>,
    gone: Option<DropGuard>,
    mut ahead: Ahead,
) -> Response {
    let came = std::mem::take(&mut ahead.came);
    let early = first.into_iter().chain(came).map(Ok::<_, std::io::Error>);
    let answer = Box::pin(answer);
    let events = stream::unfold(Some((answer, gone, ahead)), move |state| {
        let answer_id = answer_id.clone();
        async move {
            let (mut answer, gone, mut ahead) = state?;
            tokio::select! {
                // What comes ahead of the answer comes first when both are in.
                biased;
                next = ahead.next() => Some((Ok(next), Some((answer, gone, ahead)))),
                data = &mut answer => {
                    if let Some(gone) = gone {
                        gone.disarm();
                    }
                    Some((Ok(event(answer_id.as_deref(), &data)), None))
                }
                () = tokio::time::sleep(KEEP_ALIVE) => {
                    Some((Ok(Bytes::from_static(b":\n\n")), Some((answer, gone, ahead))))
                }
            }
        }
    });
    event_stream(Body::from_stream(stream::iter(early).chain(events)))
}

/// One message as an SSE event, with `id` where a host may resume after it.
pub(super) fn event(id: Option<&str>, message: &[u8]) -> Bytes {
    let mut event = Vec::with_capacity(message.len() + 48);
    if let Some(id) = id {
        event.extend_from_slice(b"id: ");
        event.extend_from_slice(id.as_bytes());
        event.push(b'\n');
    }
    event.extend_from_slice(b"event: message\ndata: ");
    event.extend_from_slice(message);
    event.extend_from_slice(b"\n\n");
    Bytes::from(event)
}

/// A progress notification as an SSE event.
fn progress_event(progress: ProgressNotificationParam) -> Bytes {
    event(None, &super::progress_line(progress))
}

/// `body` as an SSE answer.
pub(super) fn event_stream(body: Body) -> Response {
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// `body` (a JSON-RPC message) as a JSON answer with `status`.
pub(super) fn json(body: Vec<u8>, status: StatusCode) -> Response {
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

    #[tokio::test]
    async fn a_request_dropped_before_its_answer_still_ends() {
        let (answer, answered) = tokio::sync::oneshot::channel::<()>();
        let (ended, end) = tokio::sync::oneshot::channel::<()>();
        let call = Finishing::new(async move {
            let _ = answered.await;
            let _ = ended.send(());
            failed("done")
        });
        drop(call);
        answer.send(()).expect("the call still waits");
        tokio::time::timeout(Duration::from_secs(5), end)
            .await
            .expect("the rest of the call ran on its own")
            .expect("and ended");

        let panics = Finishing::new(async { panic!("a bug") });
        let answer = String::from_utf8(panics.await).expect("text");
        assert!(answer.contains("failed in the proxy"), "{answer}");
    }
}
