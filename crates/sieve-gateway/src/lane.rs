//! A line connection's own requests (a child's stdio, the built-in demo):
//! the proxy's requests to the server go out as lines it writes itself,
//! and their answers are taken off the server's output as they come, read
//! once into id and result, never typed, never seen by rmcp's client.
//!
//! rmcp's client still makes the handshake, lists, subscribes and answers
//! what the server asks (sampling, elicitation, roots, ping): it is given
//! one end of an in-memory pipe. [`Lane::start`] reads the server's output
//! line by line; an answer to one of the lane's requests goes to whoever
//! waits for it, progress to the hosts (the [`RawLog`]'s route, so that
//! it is ahead of the answer that follows it), anything else on to rmcp's
//! client as it came, shown first to the connection's [`RawLog`] (lists
//! keep the fields rmcp's model drops). What rmcp's client writes is cut
//! into lines and queued with the lane's own; one writer sends the queue
//! to the server, whole lines, many in one write.
//!
//! The lane's ids are strings, `"sieve-1"`, `"sieve-2"`, ...; rmcp's are
//! numbers, so the two never meet. A request's `_meta.progressToken` is its
//! id, so the server's progress for it can be routed to the host.

use crate::sync::Locked;
use crate::tap::RawLog;
use serde_json::Value;
use sieve_wire::{AsyncLines, Id, Line, Message};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::oneshot;

/// Bytes the pipe to rmcp's client holds before the reader waits for it.
const PIPE_BYTES: usize = 1 << 20;

/// The prefix of the lane's request ids.
const ID_PREFIX: &str = "sieve-";

/// The requests one line connection sends on its own; cheap to clone.
#[derive(Clone)]
pub struct Lane {
    inner: Arc<Inner>,
}

struct Inner {
    /// Lines for the writer ([`write_server`]), which has the server's
    /// input.
    outbox: Arc<Outbox>,
    /// Who waits for the answer of each request in flight.
    waiting: Mutex<foldhash::HashMap<Id, Waiter>>,
    next: AtomicU64,
    /// False once the server's output ended: nothing more will answer.
    open: AtomicBool,
    /// What every request's `_meta` carries on a 2026-07-28 connection:
    /// the protocol version, the client's info and capabilities.
    stamp: std::sync::OnceLock<serde_json::Map<String, Value>>,
    /// Stops the reader when the lane is let go of, so that a server whose
    /// output and input are one stream (the demo's pipe) sees it end.
    _reader: tokio_util::sync::DropGuard,
}

/// A lane not held open ([`Lane::downgrade`]).
#[derive(Clone)]
pub struct WeakLane(Weak<Inner>);

impl WeakLane {
    /// The lane, while something else holds it.
    pub fn upgrade(&self) -> Option<Lane> {
        self.0.upgrade().map(|inner| Lane { inner })
    }
}

/// Who waits for the answer of one of the lane's requests.
enum Waiter {
    /// A task, through its [`Pending`].
    Task(oneshot::Sender<Message>),
    /// No task: the answer is handed over where it is read
    /// ([`Lane::request_answered`]).
    Handed(Box<dyn Answered>),
}

/// Takes the answer of a request sent with [`Lane::request_answered`],
/// on the task that reads the server's output: it must not wait there.
pub trait Answered: Send {
    /// The server's answer, or why none will come (the connection ended).
    fn answered(self: Box<Self>, answer: io::Result<Message>);

    /// Given up on by whoever sent it, before any answer came
    /// ([`Lane::give_up`]).
    fn given_up(self: Box<Self>, why: GivenUp);
}

/// Why a request was given up on.
#[derive(Debug, Clone, Copy)]
pub enum GivenUp {
    /// Its host cancelled it, or went.
    Cancelled,
    /// It took longer than the time it is given.
    TimedOut(std::time::Duration),
}

/// rmcp's client's end of a lane: what it reads and what it writes.
pub type RmcpEnd = (ReadHalf<DuplexStream>, WriteHalf<DuplexStream>);

impl Lane {
    /// Starts a lane over a server's output and input; what rmcp's client
    /// reads and writes goes through the returned end. The lane's tasks
    /// end when the server's output ends and rmcp's client lets go.
    pub fn start<R, W>(from_server: R, to_server: W, raw: RawLog) -> (Lane, RmcpEnd)
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Send + 'static,
    {
        let let_go = tokio_util::sync::CancellationToken::new();
        let outbox = Arc::new(Outbox::default());
        let lane = Lane {
            inner: Arc::new(Inner {
                outbox: outbox.clone(),
                waiting: Mutex::default(),
                next: AtomicU64::new(1),
                open: AtomicBool::new(true),
                stamp: std::sync::OnceLock::new(),
                _reader: let_go.clone().drop_guard(),
            }),
        };
        let (ours, theirs) = tokio::io::duplex(PIPE_BYTES);
        let (from_rmcp, to_rmcp) = tokio::io::split(ours);
        tokio::spawn(read_server(
            AsyncLines::new(from_server, usize::MAX),
            Arc::downgrade(&lane.inner),
            raw,
            to_rmcp,
            let_go,
        ));
        tokio::spawn(write_rmcp(
            AsyncLines::new(from_rmcp, usize::MAX),
            Arc::downgrade(&lane.inner),
        ));
        tokio::spawn(write_server(
            Box::pin(to_server),
            outbox,
            Arc::downgrade(&lane.inner),
        ));
        (lane, tokio::io::split(theirs))
    }

    /// Sends request `method` with `params` (a JSON object, or nothing);
    /// the returned [`Pending`] yields the server's answer. Its
    /// `_meta.progressToken` is set to the request's id.
    pub fn request(&self, method: &str, params: &Value) -> io::Result<Pending> {
        let id = self.next_id();
        // No params is none on the wire, not `null`.
        let params = match params {
            Value::Null => None,
            Value::Object(params) => Some(serde_json::to_string(&Stamped {
                params: params.iter().filter(|(key, _)| *key != "_meta"),
                meta: StampedMeta {
                    own: params.get("_meta").and_then(Value::as_object),
                    stamp: self.inner.stamp.get(),
                    token: &id,
                },
            })?),
            params => Some(serde_json::to_string(params)?),
        };
        let line = sieve_wire::write::request(&id, method, params.as_deref());
        self.send(id, line)
    }

    /// Sends request `method` whose params are the members `members`
    /// writes (JSON text, `"key":value` with commas between, at least one,
    /// no `_meta`; about `capacity` bytes) and a `_meta` of `meta`,
    /// stamped as [`Lane::request`] stamps it: params passed on as they
    /// came, never read into JSON.
    pub fn request_with(
        &self,
        method: &str,
        capacity: usize,
        members: impl FnOnce(&mut Vec<u8>),
        meta: &serde_json::Map<String, Value>,
    ) -> io::Result<Pending> {
        let id = self.next_id();
        let line = self.line_with(&id, method, capacity, members, meta)?;
        self.send(id, line)
    }

    /// [`Lane::request_with`], its answer handed to `waiter` on the task
    /// that reads it, not waited for by a task of its own (nor given up
    /// on when nothing waits: see [`Lane::give_up`]); gives the request's
    /// id. When the request cannot be sent, `waiter` is given back.
    pub fn request_answered<W: Answered + 'static>(
        &self,
        method: &str,
        capacity: usize,
        waiter: W,
        members: impl FnOnce(&W, &mut Vec<u8>),
    ) -> Result<Id, W> {
        if !self.inner.open.load(Ordering::Acquire) {
            return Err(waiter);
        }
        let id = self.next_id();
        let line = self.line_with(
            &id,
            method,
            capacity,
            |out| members(&waiter, out),
            &Default::default(),
        );
        let Ok(line) = line else {
            return Err(waiter);
        };
        self.inner
            .waiting
            .locked()
            .insert(id.clone(), Waiter::Handed(Box::new(waiter)));
        self.inner.write_line(line);
        Ok(id)
    }

    /// Gives up on request `id`, sent with [`Lane::request_answered`], if
    /// it is still unanswered: the server is told (`reason` says why) and
    /// its waiter told `why`.
    pub fn give_up(&self, id: &Id, reason: &str, why: GivenUp) {
        let waiter = {
            let mut waiting = self.inner.waiting.locked();
            match waiting.get(id) {
                Some(Waiter::Handed(_)) => waiting.remove(id),
                _ => None,
            }
        };
        if let Some(Waiter::Handed(waiter)) = waiter {
            self.cancel(id, reason);
            waiter.given_up(why);
        }
    }

    /// The line of request `id`: `method` with the params `members`
    /// writes and a `_meta` of `meta`, stamped.
    fn line_with(
        &self,
        id: &Id,
        method: &str,
        capacity: usize,
        members: impl FnOnce(&mut Vec<u8>),
        meta: &serde_json::Map<String, Value>,
    ) -> io::Result<Vec<u8>> {
        let stamp = self.inner.stamp.get();
        // A request's `_meta` with nothing but its progress token (a plain
        // call's on a 2025-11-25 connection) is written as it is, not
        // through serde's map writer.
        let token_only = meta.is_empty() && stamp.is_none();
        let meta = StampedMeta {
            own: Some(meta),
            stamp,
            token: id,
        };
        let mut written = Ok(());
        let line = sieve_wire::write::request_with(id, method, capacity, |out| {
            out.push(b'{');
            members(out);
            out.extend_from_slice(br#","_meta":"#);
            if token_only {
                out.extend_from_slice(br#"{"progressToken":"#);
                id.write_json(out);
                out.push(b'}');
            } else {
                written = serde_json::to_writer(&mut *out, &meta);
            }
            out.push(b'}');
        });
        written?;
        Ok(line)
    }

    /// The lane without holding it: what keeps a request's way back to
    /// it must not keep it open.
    pub fn downgrade(&self) -> WeakLane {
        WeakLane(Arc::downgrade(&self.inner))
    }

    fn next_id(&self) -> Id {
        let n = self.inner.next.fetch_add(1, Ordering::Relaxed);
        let mut digits = itoa::Buffer::new();
        let digits = digits.format(n);
        let mut id = String::with_capacity(ID_PREFIX.len() + digits.len());
        id.push_str(ID_PREFIX);
        id.push_str(digits);
        Id::String(id)
    }

    /// Queues request `line` of id `id`, its answer waited for.
    fn send(&self, id: Id, line: Vec<u8>) -> io::Result<Pending> {
        let (answer, answered) = oneshot::channel();
        if !self.inner.open.load(Ordering::Acquire) {
            return Err(closed());
        }
        self.inner
            .waiting
            .locked()
            .insert(id.clone(), Waiter::Task(answer));
        let pending = Pending {
            lane: Arc::downgrade(&self.inner),
            id,
            answered,
        };
        self.inner.write_line(line);
        Ok(pending)
    }

    /// Has every request from now on carry `meta` in its `_meta` (a
    /// 2026-07-28 connection's protocol version, client info and
    /// capabilities, as rmcp's client sends them); set once.
    pub fn stamp_each_request(&self, meta: serde_json::Map<String, Value>) {
        let _ = self.inner.stamp.set(meta);
    }

    /// Sends notification `method` with `params`.
    pub fn notify(&self, method: &str, params: &Value) -> io::Result<()> {
        let params = serde_json::to_string(params)?;
        let line = sieve_wire::write::notification(method, Some(&params));
        self.inner.write_line(line);
        Ok(())
    }

    /// Gives up on request `id`: its answer is no longer waited for, and
    /// the server is told (`notifications/cancelled`).
    pub fn cancel(&self, id: &Id, reason: &str) {
        self.inner.waiting.locked().remove(id);
        let params = serde_json::json!({"requestId": id.to_value(), "reason": reason});
        let _ = self.notify("notifications/cancelled", &params);
    }
}

/// A request's params as they go to the server: its members as given,
/// but `_meta`, which goes last, with the lane's stamp and the request's
/// progress token in it.
struct Stamped<'a, I> {
    params: I,
    meta: StampedMeta<'a>,
}

impl<'a, I> serde::Serialize for Stamped<'a, I>
where
    I: Iterator<Item = (&'a String, &'a Value)> + Clone,
{
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in self.params.clone() {
            map.serialize_entry(key, value)?;
        }
        map.serialize_entry("_meta", &self.meta)?;
        map.end()
    }
}

/// The `_meta` of a request: its own (`own`), but where the stamp or the
/// progress token says otherwise.
struct StampedMeta<'a> {
    own: Option<&'a serde_json::Map<String, Value>>,
    stamp: Option<&'a serde_json::Map<String, Value>>,
    token: &'a Id,
}

impl serde::Serialize for StampedMeta<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        const TOKEN: &str = "progressToken";
        let StampedMeta { own, stamp, token } = self;
        let stamped = |key: &str| key == TOKEN || stamp.is_some_and(|s| s.contains_key(key));
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in own.iter().flat_map(|own| own.iter()) {
            if !stamped(key) {
                map.serialize_entry(key, value)?;
            }
        }
        for (key, value) in stamp.iter().flat_map(|s| s.iter()) {
            if key != TOKEN {
                map.serialize_entry(key, value)?;
            }
        }
        map.serialize_entry(TOKEN, token)?;
        map.end()
    }
}

impl Inner {
    /// Queues one line (`line` without its end) for the server, whole;
    /// the writer sends it with every other line queued by then.
    fn write_line(&self, line: Vec<u8>) {
        self.outbox.put(&line);
    }

    /// Hands `message` to whoever waits for it, if it answers a request of
    /// the lane; else gives it back.
    fn answered(&self, message: Message) -> Option<Message> {
        let is_ours = matches!(message.id(), Some(Id::String(id)) if id.starts_with(ID_PREFIX))
            && message.method().is_none();
        if !is_ours {
            return Some(message);
        }
        // An answer to a request given up on, or to an id the server made
        // up, is not rmcp's either: it goes nowhere. A waiter may have gone
        // (a call given up on) while the answer came: nothing else wants it.
        let waiter = message.id().and_then(|id| self.waiting.locked().remove(id));
        match waiter {
            Some(Waiter::Task(waiter)) => {
                let _ = waiter.send(message);
            }
            Some(Waiter::Handed(waiter)) => waiter.answered(Ok(message)),
            None => {}
        }
        None
    }

    /// The server's output ended, or its input: no request in flight will
    /// be answered.
    fn close(&self) {
        self.open.store(false, Ordering::Release);
        // Told outside the lock: a waiter may send on the lane again.
        let waiting = std::mem::take(&mut *self.waiting.locked());
        tell_ended(waiting);
    }
}

/// Tells those of `waiting` to whom answers are handed that none will
/// come; a task's waiter learns it as its sender goes.
fn tell_ended(waiting: foldhash::HashMap<Id, Waiter>) {
    for (_, waiter) in waiting {
        if let Waiter::Handed(waiter) = waiter {
            waiter.answered(Err(closed()));
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // The writer ends once what is queued is written, and with it the
        // server's input.
        self.outbox.let_go.store(true, Ordering::Release);
        self.outbox.wake.notify_one();
        // Nothing will answer those still waiting: they are told.
        tell_ended(std::mem::take(
            self.waiting.get_mut().unwrap_or_else(|e| e.into_inner()),
        ));
    }
}

/// Whole lines, the lane's or rmcp's, on their way to the server: the
/// lines of many calls made at once go out in one write.
#[derive(Default)]
struct Outbox {
    queued: Mutex<Vec<u8>>,
    /// Wakes the writer: lines are queued, or the lane is let go of.
    wake: tokio::sync::Notify,
    /// The lane is let go of: the writer ends when the queue is empty.
    let_go: AtomicBool,
}

impl Outbox {
    fn put(&self, line: &[u8]) {
        let mut queued = self.queued.locked();
        let first = queued.is_empty();
        queued.extend_from_slice(line);
        queued.push(b'\n');
        drop(queued);
        if first {
            self.wake.notify_one();
        }
    }
}

/// Reads the server's output: the lane's answers to their waiters, the
/// rest to rmcp's client, as it came.
async fn read_server<R: AsyncRead + Unpin>(
    mut lines: AsyncLines<R>,
    lane: Weak<Inner>,
    raw: RawLog,
    mut to_rmcp: WriteHalf<DuplexStream>,
    let_go: tokio_util::sync::CancellationToken,
) {
    loop {
        let next = tokio::select! {
            next = lines.next() => next,
            () = let_go.cancelled() => break,
        };
        let line = match next {
            Ok(Some(Line::Text(line))) => line,
            Ok(Some(Line::TooLong { .. })) => continue,
            Ok(None) | Err(_) => break,
        };
        let passed = match Message::parse_vec(line) {
            Ok(message) => {
                let message = match lane.upgrade() {
                    Some(lane) => lane.answered(message),
                    None => Some(message),
                };
                match message.and_then(|message| raw.pass(message)) {
                    Some(bytes) => bytes,
                    None => continue,
                }
            }
            // Not a message sieve-wire reads: rmcp's client judges it.
            Err((_, line)) => line,
        };
        if to_rmcp.write_all(&passed).await.is_err() || to_rmcp.write_all(b"\n").await.is_err() {
            // rmcp's client let go: the connection is ending.
            break;
        }
    }
    if let Some(lane) = lane.upgrade() {
        lane.close();
    }
    let _ = to_rmcp.shutdown().await;
}

/// Queues what rmcp's client sends to the server, a whole line at a time.
async fn write_rmcp(mut lines: AsyncLines<ReadHalf<DuplexStream>>, lane: Weak<Inner>) {
    while let Ok(Some(line)) = lines.next().await {
        let Line::Text(line) = line else { continue };
        let Some(lane) = lane.upgrade() else { break };
        lane.write_line(line);
    }
}

/// Writes the queued lines to the server until the lane is let go of or
/// the server's input fails. Woken by the first line queued, it lets the
/// tasks ready with it run first: the calls a host sent at once queue
/// theirs, and the server gets them in one write, woken once, as a pipe
/// between the two would.
async fn write_server(
    mut to_server: Pin<Box<dyn AsyncWrite + Send>>,
    outbox: Arc<Outbox>,
    lane: Weak<Inner>,
) {
    // Kept from write to write: the queue and this swap buffers.
    let mut lines = Vec::new();
    loop {
        outbox.wake.notified().await;
        tokio::task::yield_now().await;
        std::mem::swap(&mut lines, &mut *outbox.queued.locked());
        if lines.is_empty() {
            if outbox.let_go.load(Ordering::Acquire) {
                break;
            }
            continue;
        }
        let written = match to_server.write_all(&lines).await {
            Ok(()) => to_server.flush().await,
            Err(error) => Err(error),
        };
        lines.clear();
        if let Err(error) = written {
            tracing::debug!("writing to a server failed: {error}");
            if let Some(inner) = lane.upgrade() {
                inner.close();
            }
            break;
        }
        // Let go of while this was written: what came meanwhile, then the end.
        if outbox.let_go.load(Ordering::Acquire) {
            outbox.wake.notify_one();
        }
    }
    let _ = to_server.shutdown().await;
}

fn closed() -> io::Error {
    io::Error::new(
        io::ErrorKind::BrokenPipe,
        "the server's connection has ended",
    )
}

/// The answer to one of the lane's requests, to come; dropping it gives
/// up on it (the server is not told: see [`Lane::cancel`]).
pub struct Pending {
    lane: Weak<Inner>,
    id: Id,
    answered: oneshot::Receiver<Message>,
}

impl Pending {
    /// The request's id.
    pub fn id(&self) -> &Id {
        &self.id
    }
}

impl Future for Pending {
    /// The server's answer, or an error when the connection ended first.
    type Output = io::Result<Message>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.answered)
            .poll(cx)
            .map(|answer| answer.map_err(|_| closed()))
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        // Once resolved, its waiter is off the lane's list already (taken
        // by the answer, or dropped with the rest).
        if !self.answered.is_terminated()
            && let Some(lane) = self.lane.upgrade()
        {
            lane.waiting.locked().remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

    /// A server over a pipe: answers each request it reads with `f`.
    fn server(
        answer: impl Fn(&Value) -> Option<String> + Send + 'static,
    ) -> (DuplexStream, tokio::task::JoinHandle<Vec<Value>>) {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let task = tokio::spawn(async move {
            let (read, mut write) = tokio::io::split(theirs);
            let mut lines = BufReader::new(read).lines();
            let mut seen = Vec::new();
            while let Ok(Some(line)) = lines.next_line().await {
                let value: Value = serde_json::from_str(&line).expect("a JSON line");
                if let Some(reply) = answer(&value) {
                    let line = format!("{reply}\n");
                    if write.write_all(line.as_bytes()).await.is_err() {
                        // The lane went: what it sent is all seen.
                        seen.push(value);
                        break;
                    }
                }
                seen.push(value);
            }
            seen
        });
        (ours, task)
    }

    /// A server that answers every request with an empty result.
    fn answering_empty() -> (DuplexStream, tokio::task::JoinHandle<Vec<Value>>) {
        server(|request| {
            let id = request["id"].clone();
            Some(format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#))
        })
    }

    #[tokio::test]
    async fn its_answers_come_to_it_and_the_rest_goes_on_to_rmcp_as_it_came() {
        let (pipe, seen) = server(|request| {
            let id = request["id"].clone();
            Some(match request["method"].as_str() {
                Some("tools/call") => format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[],"x-extra":{{"a":1}}}}}}"#
                ),
                Some("tools/list") => format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[{{"name":"t","execution":{{"taskSupport":"optional"}}}}]}}}}"#
                ),
                _ => return None,
            })
        });
        let (read, write) = tokio::io::split(pipe);
        let raw = RawLog::new();
        let (lane, (mut rmcp_read, mut rmcp_write)) = Lane::start(read, write, raw.clone());
        let answer = lane
            .request("tools/call", &serde_json::json!({"name": "t", "x-hint": 1}))
            .expect("sent")
            .await
            .expect("answered");
        assert_eq!(answer.id(), Some(&Id::String("sieve-1".into())));
        assert_eq!(
            answer.result(),
            Some(r#"{"content":[],"x-extra":{"a":1}}"#),
            "the result as the server wrote it"
        );
        // What rmcp's client writes reaches the server; its answer comes
        // back to it, and the raw log keeps the list's fields.
        rmcp_write
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"tools/list\"}\n")
            .await
            .unwrap();
        let mut got = vec![0u8; 4096];
        let n = rmcp_read.read(&mut got).await.unwrap();
        let line = std::str::from_utf8(&got[..n]).unwrap();
        assert!(
            line.starts_with(r#"{"jsonrpc":"2.0","id":0,"result""#),
            "{line}"
        );
        assert!(line.ends_with('\n'), "{line}");
        assert_eq!(
            raw.take("0").expect("kept")["tools"][0]["execution"]["taskSupport"],
            "optional"
        );
        drop((rmcp_read, rmcp_write, lane));
        let seen = seen.await.unwrap();
        assert_eq!(seen[0]["params"]["x-hint"], 1, "params as given: {seen:?}");
        assert_eq!(
            seen[0]["params"]["_meta"]["progressToken"], "sieve-1",
            "its progress token is its id"
        );
        assert_eq!(seen[1]["method"], "tools/list");
    }

    /// Progress written just ahead of an answer is with its route by the
    /// time the answer is, and rmcp's client never sees it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn progress_reaches_its_route_ahead_of_the_answer_after_it() {
        let (pipe, _seen) = server(|request| {
            let id = request["id"].clone();
            let token = request["params"]["_meta"]["progressToken"].clone();
            Some(
                (1..=3)
                    .map(|n| format!(
                        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":{n}}}}}"#
                    ))
                    .chain([format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[]}}}}"#)])
                    .collect::<Vec<_>>()
                    .join("\n"),
            )
        });
        let (read, write) = tokio::io::split(pipe);
        let (routed, mut progressed) = tokio::sync::mpsc::unbounded_channel();
        let raw = RawLog::with_progress(move |progress| {
            let _ = routed.send(progress);
        });
        let (lane, (mut rmcp_read, _rmcp_write)) = Lane::start(read, write, raw);
        for round in 1..=50 {
            let answer = lane.request("tools/call", &serde_json::json!({"name": "t"}));
            answer.expect("sent").await.expect("answered");
            let steps: Vec<f64> = std::iter::from_fn(|| progressed.try_recv().ok())
                .map(|p| p.progress)
                .collect();
            assert_eq!(steps, [1.0, 2.0, 3.0], "round {round}: all of it, in order");
        }
        drop(lane);
        let mut left = Vec::new();
        rmcp_read.read_to_end(&mut left).await.unwrap();
        assert!(
            left.is_empty(),
            "rmcp's client got {}",
            String::from_utf8_lossy(&left)
        );
    }

    #[tokio::test]
    async fn a_request_without_params_has_none_on_the_wire() {
        let (pipe, seen) = answering_empty();
        let (read, write) = tokio::io::split(pipe);
        let (lane, rmcp) = Lane::start(read, write, RawLog::new());
        let answer = lane.request("ping", &Value::Null).expect("sent").await;
        assert_eq!(answer.expect("answered").result(), Some("{}"));
        drop((lane, rmcp));
        let seen = seen.await.unwrap();
        assert!(seen[0].get("params").is_none(), "{seen:?}");
    }

    #[tokio::test]
    async fn a_request_keeps_its_params_and_meta_with_the_stamp_and_its_token() {
        let (pipe, seen) = answering_empty();
        let (read, write) = tokio::io::split(pipe);
        let (lane, rmcp) = Lane::start(read, write, RawLog::new());
        let stamp = serde_json::json!({"io.example/version": "2026-07-28", "progressToken": 9});
        lane.stamp_each_request(stamp.as_object().cloned().expect("an object"));
        let params = serde_json::json!({
            "name": "t",
            "_meta": {"trace": "a", "io.example/version": "old", "progressToken": "host's"},
            "x-unknown": [1, {"b": null}],
        });
        let pending = lane.request("tools/call", &params).expect("sent");
        let id = pending.id().to_value();
        pending.await.expect("answered");
        drop((lane, rmcp));
        let seen = seen.await.unwrap();
        assert_eq!(
            seen[0]["params"],
            serde_json::json!({
                "name": "t",
                "x-unknown": [1, {"b": null}],
                "_meta": {"trace": "a", "io.example/version": "2026-07-28", "progressToken": id},
            }),
            "{seen:?}"
        );
    }

    /// A waiter that reports what it was told.
    struct Told(std::sync::mpsc::Sender<Result<Option<String>, String>>);

    impl Answered for Told {
        fn answered(self: Box<Self>, answer: io::Result<Message>) {
            let answer = answer.map(|m| m.result().map(str::to_string));
            let _ = self.0.send(answer.map_err(|e| e.to_string()));
        }

        fn given_up(self: Box<Self>, why: GivenUp) {
            let _ = self.0.send(Err(format!("{why:?}")));
        }
    }

    #[tokio::test]
    async fn an_answer_handed_over_where_it_is_read_and_one_given_up_on() {
        // The server answers only `t`; `slow` it never answers.
        let (pipe, seen) = server(|request| {
            let id = request["id"].clone();
            (request["params"]["name"] == "t")
                .then(|| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"ok":1}}}}"#))
        });
        let (read, write) = tokio::io::split(pipe);
        let (lane, rmcp) = Lane::start(read, write, RawLog::new());
        let (tell, told) = std::sync::mpsc::channel();
        let write_name = |name: &'static str| {
            move |_: &Told, out: &mut Vec<u8>| {
                out.extend_from_slice(format!(r#""name":"{name}","x":[1]"#).as_bytes())
            }
        };
        let sent = lane.request_answered("tools/call", 32, Told(tell.clone()), write_name("t"));
        let answered_id = sent.ok().expect("sent");
        let slow = lane.request_answered("tools/call", 32, Told(tell), write_name("slow"));
        let slow = slow.ok().expect("sent");
        let first = tokio::task::spawn_blocking(move || {
            let first = told.recv().expect("told");
            (first, told)
        });
        let (first, told) = first.await.unwrap();
        assert_eq!(first, Ok(Some(r#"{"ok":1}"#.to_string())));
        lane.give_up(&slow, "gave up", GivenUp::Cancelled);
        assert_eq!(told.recv().expect("told"), Err("Cancelled".into()));
        lane.give_up(&answered_id, "too late", GivenUp::Cancelled);
        assert!(
            told.try_recv().is_err(),
            "an answered request is not given up"
        );
        assert!(lane.inner.waiting.locked().is_empty(), "forgotten");
        drop((lane, rmcp));
        let seen = seen.await.unwrap();
        assert_eq!(
            seen[0]["params"],
            serde_json::json!({"name": "t", "x": [1], "_meta": {"progressToken": answered_id.to_value()}}),
            "{seen:?}"
        );
        assert_eq!(seen[2]["method"], "notifications/cancelled", "{seen:?}");
        assert_eq!(seen[2]["params"]["requestId"], slow.to_value(), "{seen:?}");
        assert_eq!(seen.len(), 3, "{seen:?}");
    }

    /// Many requests at once, and rmcp's lines among them: each reaches
    /// the server whole, and each answer the one who waits for it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn lines_written_at_once_reach_the_server_whole() {
        let (pipe, seen) = server(|request| {
            let id = request["id"].clone();
            let n = request["params"]["n"].clone();
            Some(format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"n":{n}}}}}"#
            ))
        });
        let (read, write) = tokio::io::split(pipe);
        let (lane, (rmcp_read, mut rmcp_write)) = Lane::start(read, write, RawLog::new());
        let rmcp = tokio::spawn(async move {
            for i in 0..50 {
                let line = format!(
                    r#"{{"jsonrpc":"2.0","id":{i},"method":"ping","params":{{"n":-1,"pad":"{}"}}}}"#,
                    "x".repeat(5000)
                );
                rmcp_write.write_all(line.as_bytes()).await.unwrap();
                rmcp_write.write_all(b"\n").await.unwrap();
            }
            rmcp_write
        });
        let calls = (0..400).map(|n| {
            let lane = lane.clone();
            tokio::spawn(async move {
                let params = serde_json::json!({"n": n, "pad": "y".repeat(n * 7)});
                let answer = lane.request("tools/call", &params).expect("sent").await;
                let answer = answer.expect("answered");
                let result: Value =
                    serde_json::from_str(answer.result().expect("a result")).unwrap();
                assert_eq!(result["n"], n, "its own answer");
            })
        });
        for call in calls.collect::<Vec<_>>() {
            call.await.expect("answered whole");
        }
        let rmcp_write = rmcp.await.unwrap();
        // rmcp's lines are all answered once the server has read them.
        let mut answers = BufReader::new(rmcp_read).lines();
        for _ in 0..50 {
            let answer = answers
                .next_line()
                .await
                .unwrap()
                .expect("an answer to rmcp");
            assert!(answer.contains(r#""n":-1"#), "{answer}");
        }
        drop((lane, answers, rmcp_write));
        let seen = seen.await.expect("every line read as JSON");
        assert_eq!(seen.len(), 450, "every line, none split or merged");
    }

    /// A server's line that `sieve-wire` refuses is still rmcp's to judge:
    /// it goes on as it came, and nothing is kept of it.
    #[tokio::test]
    async fn a_line_that_is_no_message_goes_on_to_rmcp_as_it_came() {
        let output = concat!(
            r#"{"id":1,"result":{"tools":[]}}"#,
            "\r\n",
            r#"{"jsonrpc":"2.0","id":"sieve-9","result":{}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"t"}]}}"#,
        );
        let raw = RawLog::new();
        let (_lane, (mut rmcp_read, _rmcp_write)) =
            Lane::start(output.as_bytes(), tokio::io::sink(), raw.clone());
        let mut passed = String::new();
        rmcp_read.read_to_string(&mut passed).await.unwrap();
        assert_eq!(
            passed,
            concat!(
                r#"{"id":1,"result":{"tools":[]}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"t"}]}}"#,
                "\n"
            ),
            "each line as it came; an answer to no request of the lane goes nowhere"
        );
        assert!(raw.take("1").is_none(), "no jsonrpc: not kept");
        assert_eq!(raw.take("2").unwrap()["tools"][0]["name"], "t");
    }

    /// A lane to a server that answers nothing, with its first request
    /// sent: a call of `tool`.
    async fn one_unanswered(
        tool: &str,
    ) -> (Lane, RmcpEnd, Pending, tokio::task::JoinHandle<Vec<Value>>) {
        let (pipe, seen) = server(|_| None);
        let (read, write) = tokio::io::split(pipe);
        let (lane, rmcp) = Lane::start(read, write, RawLog::new());
        let pending = lane
            .request("tools/call", &serde_json::json!({"name": tool}))
            .expect("sent");
        (lane, rmcp, pending, seen)
    }

    #[tokio::test]
    async fn a_request_in_flight_fails_when_the_server_goes() {
        let (lane, _rmcp, pending, seen) = one_unanswered("t").await;
        seen.abort();
        let failed = pending.await.expect_err("no answer");
        assert_eq!(failed.kind(), io::ErrorKind::BrokenPipe);
        assert!(
            lane.request("tools/call", &serde_json::json!({})).is_err(),
            "nothing more is sent"
        );
    }

    #[tokio::test]
    async fn a_request_given_up_on_is_cancelled_and_forgotten() {
        let (lane, rmcp, pending, seen) = one_unanswered("slow").await;
        let id = pending.id().clone();
        drop(pending);
        assert!(lane.inner.waiting.locked().is_empty(), "forgotten");
        lane.cancel(&id, "the host cancelled");
        drop((lane, rmcp));
        let seen = seen.await.unwrap();
        assert_eq!(seen[1]["method"], "notifications/cancelled", "{seen:?}");
        assert_eq!(seen[1]["params"]["requestId"], "sieve-1");
    }
}
