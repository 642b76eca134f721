//! A stdio host: one message per line each way. A line that is no message
//! gets its JSON-RPC error naming its id when the id could be read
//! (`sieve-wire` says why); one over `settings.maxMessageBytes` is dropped
//! as it streams in, never buffered whole, and answered with `"id": null`.
//! A request's progress goes out ahead of its answer, never after it;
//! when the host closes its side, answers still being made have
//! [`DRAIN`] to go out.

use super::{Begun, Conn, Serving, Taken, refusal};
use crate::hosts::CallProgress;
use crate::link::{Outgoing, Wire};
use crate::server::SieveServer;
use rmcp::model::{ErrorCode, ProgressNotificationParam};
use sieve_wire::{Line, Message};
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

/// How long the answers of requests in flight may still go out after the
/// host closed its side.
const DRAIN: std::time::Duration = std::time::Duration::from_secs(2);

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
    let conn = Conn::new(server, Wire::new(out), CancellationToken::new());
    let mut reader = sieve_wire::AsyncLines::new(input, max_line);
    tokio::pin!(shutdown);
    loop {
        // The host's lines first: `shutdown` (a signal's future, a
        // thousand instructions a look) is looked at when none is ready.
        let line = tokio::select! {
            biased;
            line = reader.next() => line,
            () = &mut shutdown => break,
        };
        match line {
            Ok(Some(Line::Text(line))) => take(&conn, line).await,
            Ok(Some(Line::TooLong { .. })) => {
                let _ = conn.wire().send_raw(refusal(
                    None,
                    ErrorCode::INVALID_REQUEST,
                    &format!(
                        "invalid request: the message is over {max_line} bytes \
                         (settings.maxMessageBytes in config.json), so it was dropped"
                    ),
                ));
            }
            Ok(None) => break,
            Err(error) => {
                tracing::warn!("reading the host's messages failed: {error}");
                break;
            }
        }
    }
    // The host has gone: what is in flight may still answer, briefly.
    conn.close(DRAIN).await;
    drop(conn);
    // Links to this host may outlive it (a registry, a change forwarder):
    // the writer ends with what is queued now, not when the last goes.
    done.cancel();
    let _ = tokio::time::timeout(DRAIN, writer).await;
    Ok(())
}

/// Takes one line from the host: a plain call is sent on at once
/// ([`super::express`]); another request is served in a task of its own,
/// unless it is the handshake or comes before the connection opens
/// (served before the next line is read).
async fn take(conn: &Arc<Conn>, line: Vec<u8>) {
    let message = match Message::parse_vec(line) {
        Ok(message) => message,
        Err((error, _)) => {
            let _ = conn.wire().send_raw(error.to_response());
            return;
        }
    };
    let Some(message) = super::express::take(conn, message) else {
        return;
    };
    let serving = match conn.take(message, Default::default()) {
        Taken::Taken => return,
        Taken::Request(Begun::Answered(answer)) => {
            let _ = conn.wire().send_raw(answer);
            return;
        }
        Taken::Request(Begun::Serve(serving)) => serving,
    };
    if serving.inline() {
        let answer = serving.run(None).await;
        let _ = conn.wire().send_raw(answer);
        return;
    }
    let wire = conn.wire().clone();
    // Boxed before it is spawned: tokio moves what it is given several
    // times on the way to its task, and a request's future is kilobytes
    // where its box is a pointer.
    tokio::spawn(Box::pin(async move {
        // No progress token, no progress: no channel for it either.
        let answer = if serving.takes_progress() {
            with_progress(*serving, &wire).await
        } else {
            serving.run(None).await
        };
        let _ = wire.send_raw(answer);
    }));
}

/// Serves `serving`, its progress going out in order ahead of its answer,
/// never after it; gives the answer.
async fn with_progress(serving: Serving, wire: &Wire) -> Vec<u8> {
    let (progress, mut progressed) = tokio::sync::mpsc::unbounded_channel();
    let serve = serving.run(Some(CallProgress(progress)));
    tokio::pin!(serve);
    let answer = loop {
        tokio::select! {
            biased;
            Some(progress) = progressed.recv() => send_progress(wire, progress),
            answer = &mut serve => break answer,
        }
    };
    while let Ok(progress) = progressed.try_recv() {
        send_progress(wire, progress);
    }
    answer
}

fn send_progress(wire: &Wire, progress: ProgressNotificationParam) {
    let _ = wire.send_raw(super::progress_line(progress));
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
