//! What a server sends, seen before rmcp's client types it.
//!
//! rmcp's client still makes each connection's handshake and lists, and
//! its typed model keeps only the fields the spec names: a tool's `groups`
//! or `execution` would be gone before the catalog reads them. A
//! [`RawLog`] is shown each message a server sends before rmcp decodes it
//! (a line connection's by `crate::lane`, an HTTP server's bodies and
//! events by `upstream::http`) and
//!
//! - keeps the results among them (lists, results of calls, prompts and
//!   resources), by JSON-RPC id, for whoever takes them;
//! - hands the result of a request the proxy sent for a host over HTTP to
//!   whoever awaits it, rmcp's client given an empty stand-in to end its
//!   request with ([`RawLog::await_result`]): the result is read once and
//!   never typed;
//! - sends progress to the hosts as it is read, in order with the answers
//!   that follow it ([`RawLog::with_progress`]).
//!
//! The host side needs none of this: the proxy's own message layer
//! (`crate::front`) reads hosts' messages.

use crate::sync::Locked;
use serde_json::Value;
use sieve_wire::{Id, Message};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// Entries kept per log; the oldest go first.
const MAX_ENTRIES: usize = 256;

/// The results an upstream sent that rmcp's model would change, by
/// JSON-RPC id, filled by a [`LineTap`] (or the HTTP client): lists (the
/// definitions keep fields such as `execution`), calls' results (fields no
/// revision names) and 2025-11-25 task results (`{"task": {...}}`, task
/// states). At most [`MAX_ENTRIES`] and [`MAX_BYTES`]; the oldest go.
#[derive(Debug, Clone, Default)]
pub struct RawLog {
    entries: Arc<Mutex<Entries>>,
    /// Who waits for the result of each request the proxy sent as a
    /// host's (see [`RawLog::await_result`]), by [`id_key`].
    awaited: Arc<AwaitedResults>,
    /// Where the server's progress goes, as it is read (see
    /// [`RawLog::routed`]).
    progress: Option<ProgressRoute>,
}

/// Who waits for which result, by [`id_key`].
type AwaitedResults = Mutex<HashMap<String, oneshot::Sender<Message>>>;

/// Where a connection's progress notifications go: the hosts.
#[derive(Clone)]
struct ProgressRoute(Arc<dyn Fn(rmcp::model::ProgressNotificationParam) + Send + Sync>);

impl std::fmt::Debug for ProgressRoute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressRoute")
    }
}

#[derive(Debug, Default)]
struct Entries {
    /// Each result's JSON text as the server sent it, and the size of
    /// its message.
    by_key: HashMap<String, (String, usize)>,
    order: VecDeque<String>,
    /// The bytes of the messages kept.
    bytes: usize,
}

/// The bytes of messages kept per log, at most: a call's result nobody
/// took (its call timed out) goes with the oldest.
const MAX_BYTES: usize = 16 * 1024 * 1024;

impl RawLog {
    pub fn new() -> RawLog {
        RawLog::default()
    }

    /// A log whose connection's progress goes to `route` as it is read,
    /// ahead of anything the server sent after it: a call's progress is
    /// then with its host before the call's answer is, never after it
    /// (rmcp's client hands a notification to a task of its own, which
    /// may run after the answer that followed it is delivered).
    pub fn with_progress(
        route: impl Fn(rmcp::model::ProgressNotificationParam) + Send + Sync + 'static,
    ) -> RawLog {
        RawLog {
            progress: Some(ProgressRoute(Arc::new(route))),
            ..RawLog::default()
        }
    }

    /// Sends `message` on to the progress route when it is a progress
    /// notification and there is one: then rmcp's client is not to have
    /// it.
    fn routed(&self, message: &Message) -> bool {
        let Some(route) = &self.progress else {
            return false;
        };
        if message.method() != Some("notifications/progress") {
            return false;
        }
        match message.params_as::<rmcp::model::ProgressNotificationParam>() {
            Ok(progress) => {
                (route.0)(progress);
                true
            }
            // rmcp's client judges what is not progress as it should be.
            Err(_) => false,
        }
    }

    /// Whether a message's bytes may hold what this log keeps: cheap
    /// checks that spare reading the many messages it does not keep.
    fn wants(&self, bytes: &[u8]) -> bool {
        contains(bytes, b"\"result\"")
            && [
                &b"\"tools\""[..],
                b"\"prompts\"",
                b"\"resources\"",
                b"\"resourceTemplates\"",
                // A call's, a prompt's or a resource's result: their
                // fields outside rmcp's model.
                b"\"content\"",
                b"\"messages\"",
                b"\"contents\"",
            ]
            .iter()
            .any(|key| contains(bytes, key))
    }

    /// [`RawLog::pass`] of a message's text (an SSE event's data), which
    /// is read only when it may be something this log acts on.
    pub fn pass_text(&self, text: String) -> Option<String> {
        let bytes = text.as_bytes();
        let awaits = || !self.awaited.locked().is_empty();
        let read = self.wants(bytes)
            || (self.progress.is_some() && contains(bytes, b"notifications/progress"))
            || (contains(bytes, b"\"result\"") && awaits());
        if !read {
            return Some(text);
        }
        // The text was a string: it is UTF-8 whatever comes back.
        let text_of = |bytes: Vec<u8>| String::from_utf8(bytes).ok();
        match Message::parse_vec(text.into_bytes()) {
            Ok(message) => self.pass(message).and_then(text_of),
            Err((_, bytes)) => text_of(bytes),
        }
    }

    /// A message a server sent, as it passes on to rmcp's client: progress
    /// goes to the progress route and nothing comes back (see
    /// [`RawLog::routed`]); what rmcp's client is to have of anything else
    /// comes back (see [`RawLog::answer`]).
    pub fn pass(&self, message: Message) -> Option<Vec<u8>> {
        if self.routed(&message) {
            return None;
        }
        Some(self.answer(message))
    }

    /// What rmcp's client is to have of a message a server sent that is
    /// no progress (an HTTP body, say): the stand-in of an awaited result,
    /// which goes to whoever awaits it (see [`RawLog::hand_over`]); else
    /// the message as it came, what this log is for kept.
    pub fn answer(&self, message: Message) -> Vec<u8> {
        match self.hand_over(message) {
            HandOver::StandIn(stand_in) => stand_in,
            HandOver::Back(message) => {
                self.observe_message(&message);
                message.into_bytes()
            }
        }
    }

    /// Looks at a message already read; keeps what this log is for.
    fn observe_message(&self, message: &Message) {
        if self.wants(message.as_bytes()) {
            self.keep(message);
        }
    }

    /// Keeps what this log is for of a message it [`wants`](Self::wants).
    fn keep(&self, message: &Message) {
        let Some(key) = message.id().map(ToString::to_string) else {
            return;
        };
        // The message was read whole, so its result is JSON: kept as its
        // text, parsed only by whoever takes it and needs a value.
        if let Some(text) = message.result() {
            self.insert(key, text.to_string(), message.as_bytes().len());
        }
    }

    fn insert(&self, key: String, value: String, size: usize) {
        let mut entries = self.entries.locked();
        entries.bytes += size;
        match entries.by_key.insert(key.clone(), (value, size)) {
            Some((_, old)) => entries.bytes -= old,
            None => entries.order.push_back(key),
        }
        while entries.order.len() > MAX_ENTRIES || entries.bytes > MAX_BYTES {
            let Some(old) = entries.order.pop_front() else {
                break;
            };
            if let Some((_, size)) = entries.by_key.remove(&old) {
                entries.bytes -= size;
            }
        }
    }

    /// Has the result of request `key` (see [`id_key`]) handed to the
    /// returned [`Awaited`] as the server sends it, read once and never
    /// typed, rather than kept: see [`RawLog::hand_over`]. A result that
    /// came before this was called went the usual way (kept, and typed by
    /// rmcp).
    pub fn await_result(&self, key: String) -> Awaited {
        let (sender, receiver) = oneshot::channel();
        self.awaited.locked().insert(key.clone(), sender);
        Awaited {
            log: Arc::downgrade(&self.awaited),
            key,
            receiver,
        }
    }

    /// Hands `message` to whoever awaits it, when it is the result of an
    /// awaited request, and returns what rmcp's client is given in its
    /// place: the answer with an empty result, which it types for nothing
    /// and whose only use is to end its request. Any other message comes
    /// back as it was.
    fn hand_over(&self, message: Message) -> HandOver {
        let awaited = match (message.id(), message.method(), message.result()) {
            (Some(id), None, Some(_)) => {
                let mut awaited = self.awaited.locked();
                if awaited.is_empty() {
                    None
                } else {
                    awaited.remove(&id.to_string()).map(|to| (to, id.clone()))
                }
            }
            _ => None,
        };
        let Some((to, id)) = awaited else {
            return HandOver::Back(message);
        };
        // Whoever awaited may have given up meanwhile: rmcp's client still
        // ends its request with the stand-in.
        let _ = to.send(message);
        HandOver::StandIn(sieve_wire::write::response(&id, "{}"))
    }

    /// Takes the raw value recorded for `key` (see [`id_key`]).
    pub fn take(&self, key: &str) -> Option<Value> {
        serde_json::from_str(&self.take_text(key)?).ok()
    }

    /// Takes the JSON text of the result recorded for `key`, as the
    /// server sent it.
    pub fn take_text(&self, key: &str) -> Option<String> {
        let mut entries = self.entries.locked();
        let (text, size) = entries.by_key.remove(key)?;
        entries.bytes -= size;
        entries.order.retain(|k| k != key);
        Some(text)
    }
}

/// What [`RawLog::hand_over`] made of a message.
enum HandOver {
    /// It was handed over: rmcp's client is given this in its place.
    StandIn(Vec<u8>),
    /// Nobody awaits it: here it is back.
    Back(Message),
}

/// The result of a request the proxy sent, to come (see
/// [`RawLog::await_result`]); dropping it gives up on it.
pub struct Awaited {
    log: std::sync::Weak<AwaitedResults>,
    key: String,
    receiver: oneshot::Receiver<Message>,
}

impl Awaited {
    /// The result, if it was handed over by now.
    pub fn taken(&mut self) -> Option<Message> {
        self.receiver.try_recv().ok()
    }
}

impl Drop for Awaited {
    fn drop(&mut self) {
        if let Some(log) = self.log.upgrade() {
            log.locked().remove(&self.key);
        }
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

    #[test]
    fn a_call_keeps_the_params_rmcp_does_not_name() {
        let mut params = serde_json::json!({
            "name": "t",
            "arguments": {},
            "task": {"ttl": 1},
            "_meta": {"progressToken": 4},
            "x-hint": {"a": 1},
        });
        let sent = request_as_it_came("tools/call", params.clone()).expect("a request");
        let wire = serde_json::to_value(&sent).expect("serializes");
        assert_eq!(wire["params"]["x-hint"]["a"], 1, "{wire}");
        assert_eq!(wire["params"]["_meta"]["progressToken"], 4, "{wire}");
        let unnamed = UnnamedParams::take(&mut params);
        assert_eq!(unnamed.0.len(), 1, "only x-hint: {:?}", unnamed.0);
        assert!(params.get("x-hint").is_none(), "taken out");
    }

    #[test]
    fn an_awaited_result_is_handed_over_and_rmcp_given_a_stand_in() {
        let log = RawLog::new();
        let mut awaited = log.await_result("7".into());
        let note = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}"#;
        assert!(
            matches!(
                log.hand_over(Message::parse(note).unwrap()),
                HandOver::Back(_)
            ),
            "a notification is not an answer"
        );
        let refused = r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"no"}}"#;
        assert!(
            matches!(
                log.hand_over(Message::parse(refused).unwrap()),
                HandOver::Back(_)
            ),
            "an error goes to rmcp's client"
        );
        let sent = r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}],"x-kept":{"a":1}}}"#;
        let stand_in = log.pass_text(sent.to_string()).expect("a stand-in");
        let stand_in: Value = serde_json::from_str(&stand_in).unwrap();
        assert_eq!(
            stand_in,
            serde_json::json!({"jsonrpc": "2.0", "id": 7, "result": {}})
        );
        let taken = awaited.taken().expect("handed over");
        assert_eq!(taken.text(), sent, "the message as it came");
        assert!(log.take("7").is_none(), "not kept as well");

        // Given up on: the result goes the usual way.
        drop(log.await_result("\"s\"".into()));
        let list = r#"{"jsonrpc":"2.0","id":"s","result":{"tools":[]}}"#;
        assert_eq!(log.pass_text(list.to_string()).as_deref(), Some(list));
        assert!(log.take("\"s\"").is_some(), "kept");
    }

    #[test]
    fn bounded() {
        let log = RawLog::new();
        for i in 0..(MAX_ENTRIES + 10) {
            log.pass_text(format!(
                r#"{{"jsonrpc":"2.0","id":{i},"result":{{"tools":[]}}}}"#
            ));
        }
        assert!(log.take("0").is_none(), "oldest dropped");
        assert!(log.take(&(MAX_ENTRIES + 9).to_string()).is_some());
    }
}

/// What list method `method` lists, and the key of its result's items.
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

#[cfg(test)]
mod wire_tests {
    use super::*;
    use serde_json::json;

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
}
