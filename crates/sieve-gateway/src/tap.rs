//! Seeing the raw JSON of an upstream that rmcp's client drops.
//!
//! The upstream side still goes through rmcp's client, whose typed model
//! keeps only the fields the spec names: a tool's `groups` or `execution`
//! would be gone before the catalog reads them. A [`RawLog`] is shown each
//! message a server sends before rmcp decodes it (a line connection's by
//! `upstream::lane`, an HTTP server's bodies and events by
//! `upstream::http`) and keeps the results among them, by JSON-RPC id. The host side needs none of this: the
//! proxy's own message layer (`crate::front`) reads hosts' messages.

use crate::sync::Locked;
use serde_json::Value;
use sieve_wire::{Id, Message};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

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

    #[test]
    fn bounded() {
        let log = RawLog::new();
        for i in 0..(MAX_ENTRIES + 10) {
            log.observe(
                format!(r#"{{"jsonrpc":"2.0","id":{i},"result":{{"tools":[]}}}}"#).as_bytes(),
            );
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
