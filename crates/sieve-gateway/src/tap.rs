//! Seeing the raw JSON that rmcp's typed model drops.
//!
//! rmcp decodes every message into typed structs that keep only the fields
//! the spec names: `filter` on `tools/list`, `concerns` in `initialize`,
//! upstream tool fields such as `groups` or `execution` are gone before a
//! handler runs. [`LineTap`] wraps the reading half of a line-delimited
//! transport (stdio, a child's stdout, an in-memory pipe): `sieve-wire`'s
//! [`LineReader`] cuts its lines (one over the limit refused without being
//! buffered) and reads each once into a [`Message`], which a [`RawLog`]
//! sees before rmcp decodes the line. Handlers then look the raw params or
//! result up by JSON-RPC id (an HTTP server's bodies and events reach a
//! [`RawLog`] the same way, through `upstream::http`). On a host's side a
//! line that is no message is answered with `sieve-wire`'s error (its
//! JSON-RPC code, and its id when it could be read) rather than passed to
//! rmcp, and the tap is the wire adapter for 2025-11-25 task requests and
//! the list methods, which it renames for the proxy's own handlers
//! ([`rename_request`]) by splicing the method into the bytes; nothing
//! else is changed.

use crate::sync::Locked;
use serde_json::Value;
use sieve_wire::{Id, Kind, Line, LineReader, Message};
use std::collections::{HashMap, VecDeque};
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, ReadBuf};

/// Entries kept per log; the oldest go first.
const MAX_ENTRIES: usize = 256;

/// Which raw messages a [`RawLog`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Params of requests from a host (and of `notifications/initialized`).
    RequestParams,
    /// Results an upstream sent that rmcp's model would change: lists (the
    /// definitions keep fields such as `execution`) and 2025-11-25 task
    /// results (`{"task": {...}}`, task states).
    ListResults,
}

/// Raw params or results by JSON-RPC id, filled by a [`LineTap`].
#[derive(Debug, Clone)]
pub struct RawLog {
    keep: Keep,
    entries: Arc<Mutex<Entries>>,
}

#[derive(Debug, Default)]
struct Entries {
    by_key: HashMap<String, Value>,
    order: VecDeque<String>,
}

/// The key under which `notifications/initialized` params are kept.
pub const INITIALIZED: &str = "notifications/initialized";

impl RawLog {
    pub fn new(keep: Keep) -> RawLog {
        RawLog {
            keep,
            entries: Arc::default(),
        }
    }

    /// Whether a message's bytes may hold what this log keeps: cheap
    /// checks that spare reading the many messages it does not keep.
    fn wants(&self, bytes: &[u8]) -> bool {
        match self.keep {
            Keep::RequestParams => contains(bytes, b"\"params\""),
            Keep::ListResults => {
                contains(bytes, b"\"result\"")
                    && [
                        &b"\"tools\""[..],
                        b"\"prompts\"",
                        b"\"resources\"",
                        b"\"resourceTemplates\"",
                    ]
                    .iter()
                    .any(|key| contains(bytes, key))
            }
        }
    }

    /// Looks at one message's bytes; keeps what this log is for.
    pub fn observe(&self, bytes: &[u8]) {
        if !self.wants(bytes) {
            return;
        }
        if let Ok(message) = Message::parse(bytes) {
            self.keep(&message);
        }
    }

    /// Looks at a message already read; keeps what this log is for.
    pub fn observe_message(&self, message: &Message) {
        if self.wants(message.as_bytes()) {
            self.keep(message);
        }
    }

    /// Keeps what this log is for of a message it [`wants`](Self::wants).
    fn keep(&self, message: &Message) {
        let key = match (message.id(), message.method()) {
            (Some(id), _) => id.to_string(),
            (None, Some(INITIALIZED)) => INITIALIZED.to_string(),
            _ => return,
        };
        let part = match self.keep {
            Keep::RequestParams => message.params(),
            Keep::ListResults => message.result(),
        };
        if let Some(value) = part.and_then(|text| serde_json::from_str(text).ok()) {
            self.insert(key, value);
        }
    }

    fn insert(&self, key: String, value: Value) {
        let mut entries = self.entries.locked();
        if entries.by_key.insert(key.clone(), value).is_none() {
            entries.order.push_back(key);
        }
        while entries.order.len() > MAX_ENTRIES {
            if let Some(old) = entries.order.pop_front() {
                entries.by_key.remove(&old);
            }
        }
    }

    /// Takes the raw value recorded for `key` (see [`id_key`]).
    pub fn take(&self, key: &str) -> Option<Value> {
        let mut entries = self.entries.locked();
        let value = entries.by_key.remove(key)?;
        entries.order.retain(|k| k != key);
        Some(value)
    }
}

/// The lookup key of a JSON-RPC id: its JSON text (`7` and `"7"` differ),
/// as [`Id`]'s display writes it.
pub fn id_key(id: &Value) -> String {
    match Id::from_value(id) {
        Some(id) => id.to_string(),
        None => id.to_string(),
    }
}

/// rmcp's typed request or notification for `method` with raw `params`,
/// or why it does not fit rmcp's model of that method.
pub fn typed_message<T: serde::de::DeserializeOwned>(
    method: &str,
    params: Value,
) -> serde_json::Result<T> {
    serde_json::from_value(serde_json::json!({"method": method, "params": params}))
}

/// rmcp's typed request for `method` with raw `params`, as
/// [`typed_message`] makes it; a `tools/call`, the request sent most, is
/// decoded as its params alone (its `_meta` where rmcp's decoding puts
/// it) rather than through rmcp's enum of every request.
pub fn client_request(
    method: &str,
    params: Value,
) -> serde_json::Result<rmcp::model::ClientRequest> {
    use rmcp::model::{CallToolRequestParams, ClientRequest, GetMeta, Request};
    if method != "tools/call" {
        return typed_message(method, params);
    }
    let mut params: CallToolRequestParams = serde_json::from_value(params)?;
    let meta = params.meta.take();
    let mut request = ClientRequest::CallToolRequest(Request::new(params));
    if let Some(meta) = meta {
        *request.get_meta_mut() = meta;
    }
    Ok(request)
}

/// The params of a host's `tools/call` that rmcp's model does not name
/// (nor the proxy reads: `task` is its own to bridge), which go on to the
/// server as the host sent them.
#[derive(Debug, Clone, Default)]
pub struct UnnamedParams(pub serde_json::Map<String, Value>);

/// The params of a call rmcp's model names, and the proxy's own `task`.
const NAMED_CALL_PARAMS: [&str; 6] = [
    "_meta",
    "name",
    "arguments",
    "inputResponses",
    "requestState",
    "task",
];

impl UnnamedParams {
    fn named(key: &str) -> bool {
        NAMED_CALL_PARAMS.contains(&key)
    }

    /// Whether a call's `params` have any.
    pub fn any(params: &Value) -> bool {
        params
            .as_object()
            .is_some_and(|params| params.keys().any(|k| !Self::named(k)))
    }

    /// Takes the unnamed params out of a call's raw `params`.
    pub fn take(params: &mut Value) -> UnnamedParams {
        let Value::Object(params) = params else {
            return UnnamedParams::default();
        };
        let unnamed: Vec<String> = params.keys().filter(|k| !Self::named(k)).cloned().collect();
        UnnamedParams(
            unnamed
                .into_iter()
                .filter_map(|k| params.remove_entry(&k))
                .collect(),
        )
    }
}

/// A request for `method` with `params` as they are, fields rmcp's model
/// does not name included; its `_meta` where rmcp sends it from.
pub fn request_as_it_came(
    method: &str,
    mut params: Value,
) -> serde_json::Result<rmcp::model::ClientRequest> {
    use rmcp::model::{ClientRequest, CustomRequest, GetMeta, RequestMetaObject};
    let meta = match params.as_object_mut().and_then(|p| p.remove("_meta")) {
        Some(meta) => Some(serde_json::from_value::<RequestMetaObject>(meta)?),
        None => None,
    };
    let mut request = CustomRequest::new(method, Some(params));
    if let Some(meta) = meta {
        *request.get_meta_mut() = meta;
    }
    Ok(ClientRequest::CustomRequest(request))
}

pub(crate) fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[test]
    fn a_call_is_the_request_rmcp_would_decode() {
        let params = serde_json::json!({
            "name": "demo__echo",
            "arguments": {"text": "hi"},
            "_meta": {"traceparent": "00-1-2-01", "progressToken": 7},
        });
        let fast = client_request("tools/call", params.clone()).expect("a call");
        let slow: rmcp::model::ClientRequest = typed_message("tools/call", params).expect("a call");
        assert_eq!(
            serde_json::to_value(&fast).expect("serializes"),
            serde_json::to_value(&slow).expect("serializes"),
            "the same request on the wire"
        );
        use rmcp::model::GetMeta;
        assert_eq!(
            fast.get_meta(),
            slow.get_meta(),
            "the _meta where rmcp keeps it"
        );
        assert!(
            client_request("tools/call", serde_json::json!({"arguments": {}})).is_err(),
            "a call without a name is refused"
        );
        let list = client_request("tools/list", serde_json::json!({})).expect("a list");
        assert!(matches!(
            list,
            rmcp::model::ClientRequest::ListToolsRequest(_)
        ));
    }

    #[test]
    fn a_call_keeps_the_params_rmcp_does_not_name() {
        let mut params = serde_json::json!({
            "name": "t",
            "arguments": {},
            "task": {"ttl": 1},
            "_meta": {"progressToken": 4},
            "x-hint": {"a": 1},
        });
        assert!(UnnamedParams::any(&params));
        let sent = request_as_it_came("tools/call", params.clone()).expect("a request");
        let wire = serde_json::to_value(&sent).expect("serializes");
        assert_eq!(wire["params"]["x-hint"]["a"], 1, "{wire}");
        assert_eq!(wire["params"]["_meta"]["progressToken"], 4, "{wire}");
        let unnamed = UnnamedParams::take(&mut params);
        assert_eq!(unnamed.0.len(), 1, "only x-hint: {:?}", unnamed.0);
        assert!(params.get("x-hint").is_none(), "taken out");
        assert!(!UnnamedParams::any(&params));
    }

    #[tokio::test]
    async fn passes_bytes_through_and_keeps_request_params() {
        let input = concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"filter":{"groups":["g"]}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":{"concerns":{"cost":"minimal"}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#,
            "\n"
        );
        let log = RawLog::new(Keep::RequestParams);
        let mut tap = LineTap::new(input.as_bytes(), log.clone());
        let mut out = String::new();
        tap.read_to_string(&mut out).await.unwrap();
        assert_eq!(out, input, "bytes are unchanged");
        assert_eq!(log.take("1").unwrap()["filter"]["groups"][0], "g");
        assert!(log.take("1").is_none(), "taken once");
        assert_eq!(
            log.take(INITIALIZED).unwrap()["concerns"]["cost"],
            "minimal"
        );
        assert!(log.take("\"a\"").is_none(), "no params, nothing kept");
    }

    #[tokio::test]
    async fn keeps_list_results_split_across_reads() {
        let line = format!(
            "{}\n",
            r#"{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"t","groups":["x"],"execution":{"taskSupport":"optional"}}]}}"#
        );
        let log = RawLog::new(Keep::ListResults);
        // A reader that hands out 5 bytes at a time.
        let (client, mut server) = tokio::io::duplex(5);
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            server.write_all(line.as_bytes()).await.unwrap();
        });
        let mut tap = LineTap::new(client, log.clone());
        let mut out = Vec::new();
        tap.read_to_end(&mut out).await.unwrap();
        writer.await.unwrap();
        let result = log.take("7").expect("result kept");
        assert_eq!(result["tools"][0]["execution"]["taskSupport"], "optional");
    }

    /// A server's line that `sieve-wire` refuses is still rmcp's to judge:
    /// it goes on as it came, and nothing is kept of it.
    #[tokio::test]
    async fn an_upstream_line_that_is_no_message_goes_on_as_it_came() {
        let input = concat!(
            r#"{"id":1,"result":{"tools":[]}}"#,
            "\r\n",
            r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"t"}]}}"#,
        );
        let log = RawLog::new(Keep::ListResults);
        let mut tap = LineTap::new(input.as_bytes(), log.clone());
        let mut out = String::new();
        tap.read_to_string(&mut out).await.unwrap();
        assert_eq!(
            out,
            format!("{}\n", input.replace("\r\n", "\n")),
            "each line as it came"
        );
        assert!(log.take("1").is_none(), "no jsonrpc: not kept");
        assert_eq!(log.take("2").unwrap()["tools"][0]["name"], "t");
    }

    #[test]
    fn bounded() {
        let log = RawLog::new(Keep::RequestParams);
        for i in 0..(MAX_ENTRIES + 10) {
            log.observe(
                format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"m","params":{{}}}}"#).as_bytes(),
            );
        }
        assert!(log.take("0").is_none(), "oldest dropped");
        assert!(log.take(&(MAX_ENTRIES + 9).to_string()).is_some());
    }
}

/// Prefix of the methods the wire adapter gives 2025-11-25 task requests,
/// so they reach the proxy's own handlers with their raw params instead of
/// rmcp's typed (2026-07-28) task model.
pub const LEGACY_PREFIX: &str = "dev.mcp-sieve/legacy/";

/// Renames a host's 2025-11-25 task request for the proxy's own handlers:
/// `tools/call` with `params.task` (task augmentation), `tasks/result`
/// (2026-07-28 has none), and on a 2025-11-25 session `tasks/get`,
/// `tasks/cancel`. Returns the message to pass on when it changed.
pub fn rename_legacy_task_request(message: &mut Value, legacy_session: bool) -> bool {
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return false;
    };
    if message.get("id").is_none() {
        return false;
    }
    let task = || {
        message
            .get("params")
            .and_then(|p| p.get("task"))
            .is_some_and(Value::is_object)
    };
    match legacy_method(method, legacy_session, task) {
        Some(renamed) => {
            message["method"] = Value::String(renamed);
            true
        }
        None => false,
    }
}

/// The method a 2025-11-25 task request `method` goes to the proxy's own
/// handlers under; `call_has_task` says whether a `tools/call`'s params
/// carry a `task` object (asked of a call only).
fn legacy_method(
    method: &str,
    legacy_session: bool,
    call_has_task: impl FnOnce() -> bool,
) -> Option<String> {
    let rename = match method {
        "tools/call" => call_has_task(),
        "tasks/result" => true,
        "tasks/get" | "tasks/cancel" => legacy_session,
        _ => false,
    };
    rename.then(|| format!("{LEGACY_PREFIX}{method}"))
}

/// The method a host's request `method` goes to the proxy's own handlers
/// under, if any (see [`rename_request`]).
fn renamed_method(
    method: &str,
    legacy_session: bool,
    call_has_task: impl FnOnce() -> bool,
) -> Option<String> {
    legacy_method(method, legacy_session, call_has_task)
        .or_else(|| list_method(method).map(|_| format!("{LIST_PREFIX}{method}")))
}

/// Prefix of the list methods the wire adapter renames, so their answers
/// are built from each item's JSON as it came (rmcp's typed lists drop
/// the fields its model does not name: `execution`, `groups`, ...).
pub const LIST_PREFIX: &str = "dev.mcp-sieve/list/";

/// What list method `method` (renamed under [`LIST_PREFIX`] by the
/// adapter) lists, and the key of its result's items.
pub fn list_method(method: &str) -> Option<(sieve_core::Kind, &'static str)> {
    use sieve_core::Kind;
    match method {
        "tools/list" => Some((Kind::Tool, "tools")),
        "prompts/list" => Some((Kind::Prompt, "prompts")),
        "resources/list" => Some((Kind::Resource, "resources")),
        "resources/templates/list" => Some((Kind::ResourceTemplate, "resourceTemplates")),
        _ => None,
    }
}

/// Renames a host's request for the proxy's own handlers where rmcp's
/// typed model would change it: 2025-11-25 task requests (see
/// [`rename_legacy_task_request`]) and the four list methods (under
/// [`LIST_PREFIX`]). Returns whether it changed.
pub fn rename_request(message: &mut Value, legacy_session: bool) -> bool {
    if rename_legacy_task_request(message, legacy_session) {
        return true;
    }
    let renamed = message
        .get("id")
        .and(message.get("method"))
        .and_then(Value::as_str)
        .and_then(|method| renamed_method(method, legacy_session, || false));
    if let Some(renamed) = renamed {
        message["method"] = Value::String(renamed);
        return true;
    }
    false
}

/// Whether a `tools/call` carries a `task` object in its params.
fn call_has_task(call: &Message) -> bool {
    #[derive(serde::Deserialize)]
    struct Task {
        task: Option<Value>,
    }
    contains(call.as_bytes(), b"\"task\"")
        && call
            .params_as::<Task>()
            .is_ok_and(|params| params.task.as_ref().is_some_and(Value::is_object))
}

/// Whether an `initialize` request's params make a 2025-11-25 task session:
/// an older protocol version and no 2026-07-28 tasks extension.
pub fn is_legacy_task_session(initialize_params: &Value) -> bool {
    let version = initialize_params
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let extension = initialize_params
        .pointer("/capabilities/extensions")
        .and_then(|e| e.get("io.modelcontextprotocol/tasks"))
        .is_some();
    version < "2026-07-28" && !extension
}

/// An [`AsyncRead`] over line-delimited JSON-RPC that shows every complete
/// line to a [`RawLog`] before passing it on. On a host's side it also
/// renames 2025-11-25 task requests and list requests (see
/// [`rename_request`]); every other line passes unchanged.
pub struct LineTap<R> {
    inner: R,
    log: RawLog,
    /// Rename 2025-11-25 task requests (a host's messages).
    host: bool,
    legacy_session: bool,
    /// Cuts lines; one over the limit is dropped (and refused) rather
    /// than buffered.
    lines: LineReader,
    ready: VecDeque<u8>,
    eof: bool,
    /// Where the answer to a line that is no JSON-RPC message goes (a
    /// host's stdin: JSON-RPC wants `-32700` or `-32600`, with the id when
    /// it could be read).
    refusals: Option<tokio::sync::mpsc::UnboundedSender<Vec<u8>>>,
    max_line: usize,
}

impl<R> LineTap<R> {
    /// Logs lines, changes nothing (an upstream's messages).
    pub fn new(inner: R, log: RawLog) -> LineTap<R> {
        LineTap {
            inner,
            log,
            host: false,
            legacy_session: false,
            lines: LineReader::new(usize::MAX),
            ready: VecDeque::new(),
            eof: false,
            refusals: None,
            max_line: usize::MAX,
        }
    }

    /// Drops lines longer than `max_line` bytes; with [`LineTap::refusing`],
    /// each is answered with an error naming `settings.maxMessageBytes`.
    pub fn limit(mut self, max_line: usize) -> Self {
        self.max_line = max_line;
        self.lines = LineReader::new(max_line);
        self
    }

    fn oversized(&self) {
        if let Some(refusals) = &self.refusals {
            let message = format!(
                "invalid request: the message is over {} bytes \
                 (settings.maxMessageBytes in config.json), so it was dropped",
                self.max_line
            );
            let answer = sieve_wire::write::error_response(
                None,
                sieve_wire::error::INVALID_REQUEST,
                &message,
                None,
            );
            let _ = refusals.send(answer);
        }
    }

    /// Lines that are no JSON-RPC message (not JSON, a batch, no method,
    /// result or error, ...: see `sieve_wire::Message::parse`) are not
    /// passed on (the MCP library would drop them without a word); their
    /// JSON-RPC error answer is sent to `refusals` instead.
    pub fn refusing(mut self, refusals: tokio::sync::mpsc::UnboundedSender<Vec<u8>>) -> Self {
        self.refusals = Some(refusals);
        self
    }

    /// Logs lines and renames 2025-11-25 task requests (a host's messages).
    pub fn host(inner: R, log: RawLog) -> LineTap<R> {
        LineTap {
            host: true,
            ..LineTap::new(inner, log)
        }
    }

    fn line(&mut self, line: Vec<u8>) {
        let interesting = self.host
            && (contains(&line, b"\"initialize\"")
                || contains(&line, b"\"task")
                || contains(&line, b"/list\""));
        let wanted = self.log.wants(&line);
        if self.refusals.is_none() && !interesting && !wanted {
            // Nothing here reads it: rmcp does.
            return self.pass(&line);
        }
        let message = match Message::parse_vec(line) {
            Ok(message) => message,
            Err((error, line)) => {
                match &self.refusals {
                    Some(refusals) => {
                        let _ = refusals.send(error.to_response());
                    }
                    // Not ours to judge: rmcp reads it as it came.
                    None => self.pass(&line),
                }
                return;
            }
        };
        if wanted {
            self.log.keep(&message);
        }
        let renamed = match message.method() {
            Some(_) if !interesting || message.kind() != Kind::Request => None,
            Some("initialize") => {
                let params = message.params_as::<Value>().unwrap_or_default();
                self.legacy_session = is_legacy_task_session(&params);
                None
            }
            Some(method) => renamed_method(method, self.legacy_session, || call_has_task(&message)),
            None => None,
        };
        match renamed {
            Some(method) => self.pass(&message.with_method(&method)),
            None => self.pass(message.as_bytes()),
        }
    }

    fn pass(&mut self, line: &[u8]) {
        self.ready.extend(line);
        self.ready.push_back(b'\n');
    }

    /// Each line `chunk` completes, or the last one at the end.
    fn take(&mut self, chunk: Option<&[u8]>) {
        let mut lines = Vec::new();
        match chunk {
            Some(chunk) => self.lines.feed(chunk, |line| lines.push(line)),
            None => self.lines.finish(|line| lines.push(line)),
        }
        for line in lines {
            match line {
                Line::Text(line) => self.line(line),
                Line::TooLong { .. } => self.oversized(),
            }
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LineTap<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if !this.ready.is_empty() {
                let n = buf.remaining().min(this.ready.len());
                let chunk: Vec<u8> = this.ready.drain(..n).collect();
                buf.put_slice(&chunk);
                return Poll::Ready(Ok(()));
            }
            if this.eof {
                return Poll::Ready(Ok(()));
            }
            let mut scratch = [0u8; 8192];
            let mut read = ReadBuf::new(&mut scratch);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) => {
                    let bytes = read.filled();
                    if bytes.is_empty() {
                        this.eof = true;
                        // A last line without a newline goes on too.
                        this.take(None);
                    } else {
                        this.take(Some(bytes));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod wire_tests {
    use super::*;
    use serde_json::json;
    use tokio::io::AsyncReadExt;

    #[test]
    fn renames_only_legacy_task_requests() {
        let mut augmented = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x", "task": {"ttl": 1000}}});
        assert!(rename_legacy_task_request(&mut augmented, false));
        assert_eq!(augmented["method"], "dev.mcp-sieve/legacy/tools/call");
        let mut plain = json!({"id": 2, "method": "tools/call", "params": {"name": "x"}});
        assert!(!rename_legacy_task_request(&mut plain, true));
        let mut get = json!({"id": 3, "method": "tasks/get", "params": {"taskId": "t"}});
        assert!(
            !rename_legacy_task_request(&mut get, false),
            "2026-07-28 tasks/get is rmcp's"
        );
        assert!(rename_legacy_task_request(&mut get, true));
        let mut result = json!({"id": 4, "method": "tasks/result", "params": {"taskId": "t"}});
        assert!(rename_legacy_task_request(&mut result, false));
        let mut note = json!({"method": "tasks/get"});
        assert!(
            !rename_legacy_task_request(&mut note, true),
            "notifications are left alone"
        );
    }

    #[test]
    fn legacy_sessions() {
        assert!(is_legacy_task_session(
            &json!({"protocolVersion": "2025-11-25", "capabilities": {"tasks": {}}})
        ));
        assert!(!is_legacy_task_session(
            &json!({"protocolVersion": "2025-11-25", "capabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}})
        ));
        assert!(!is_legacy_task_session(
            &json!({"protocolVersion": "2026-07-28"})
        ));
    }

    #[tokio::test]
    async fn host_wire_rewrites_lines_and_passes_the_rest() {
        let input = concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t"}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
            "\n"
        );
        let mut wire = LineTap::host(input.as_bytes(), RawLog::new(Keep::RequestParams));
        let mut out = String::new();
        wire.read_to_string(&mut out).await.unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(
            lines[1].contains("dev.mcp-sieve/legacy/tasks/get"),
            "{}",
            lines[1]
        );
        assert_eq!(lines[2], r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
    }

    /// A line over the limit is dropped and refused, whether it comes in
    /// one read or many and whether it ends or not; the lines around it
    /// pass.
    #[tokio::test]
    async fn a_line_over_the_limit_is_refused_not_buffered() {
        let big = format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"ping","params":{{"pad":"{}"}}}}"#,
            "x".repeat(100_000)
        );
        let input = format!(
            "{}\n{big}\n{}\n{big}",
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
        );
        let (refusals, mut refused) = tokio::sync::mpsc::unbounded_channel();
        // A small reader buffer: the long lines arrive in many pieces.
        let reader = tokio::io::BufReader::with_capacity(1000, input.as_bytes());
        let mut wire = LineTap::host(reader, RawLog::new(Keep::RequestParams))
            .refusing(refusals)
            .limit(10_000);
        let mut out = String::new();
        wire.read_to_string(&mut out).await.unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines,
            [
                r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
                r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#
            ]
        );
        for _ in 0..2 {
            let answer: Value = serde_json::from_slice(&refused.try_recv().unwrap()).unwrap();
            assert_eq!(answer["error"]["code"], -32600);
            assert!(
                answer["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("over 10000 bytes (settings.maxMessageBytes"),
                "{answer}"
            );
        }
        assert!(refused.try_recv().is_err(), "one refusal per line");
    }

    /// Lines that are no message are answered, by id where it could be
    /// read, and not passed on; deep nesting is one of them.
    #[tokio::test]
    async fn lines_that_are_no_message_are_refused() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"ping","params":{{"a":{}{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let fine = format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"ping","params":{{"a":{}{}}}}}"#,
            "[".repeat(100),
            "]".repeat(100)
        );
        let input = format!(
            "{deep}\n{}\n[1]\n{}\n{fine}\n",
            r#"{"jsonrpc":"2.0","id":"b","method":7}"#, r#"{"jsonrpc":"2.0","#,
        );
        let (refusals, mut refused) = tokio::sync::mpsc::unbounded_channel();
        let mut wire =
            LineTap::host(input.as_bytes(), RawLog::new(Keep::RequestParams)).refusing(refusals);
        let mut out = String::new();
        wire.read_to_string(&mut out).await.unwrap();
        assert_eq!(out, format!("{fine}\n"), "only the good line goes on");
        let mut answers = Vec::new();
        while let Ok(answer) = refused.try_recv() {
            answers.push(serde_json::from_slice::<Value>(&answer).unwrap());
        }
        let seen: Vec<(Value, Value)> = answers
            .iter()
            .map(|a| (a["id"].clone(), a["error"]["code"].clone()))
            .collect();
        assert_eq!(
            seen,
            [
                (Value::Null, json!(-32600)),
                (json!("b"), json!(-32600)),
                (Value::Null, json!(-32600)),
                (Value::Null, json!(-32700)),
            ],
            "{answers:?}"
        );
        assert_eq!(
            answers[0]["error"]["message"],
            "a message nests deeper than 127 levels of arrays and objects"
        );
    }
}
