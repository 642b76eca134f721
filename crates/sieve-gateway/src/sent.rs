//! A request on its way to a server, whichever connection carries it: its
//! id there, the progress token it carries, where to cancel it, and its
//! answer to come ([`Sent`]), which is the result's text as the server
//! sent it on a line connection's lane (`crate::lane`) or rmcp's typed
//! result over HTTP ([`Reply`]).

use crate::lane::Lane;
use rmcp::RoleClient;
use rmcp::model::ServerResult;
use rmcp::service::Peer;
use serde_json::{Value, json};

/// A request on its way to a server: its id there, the progress token it
/// carries, where to cancel it, and its answer to come.
pub struct Sent {
    /// The request's id on the server's connection, as JSON.
    pub id: Value,
    pub progress_token: rmcp::model::ProgressToken,
    /// The connection it went on, to cancel it.
    pub to: Canceller,
    /// The server's answer; dropping it gives up on it.
    pub answer: std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<Reply, rmcp::ServiceError>> + Send>,
    >,
}

/// The members of a host's call params that do not go on as the host
/// wrote them: the tool's name (the server's goes in its place), `_meta`
/// (the request's goes apart) and `task` (the proxy's to bridge).
const SET_APART: [&str; 3] = ["name", "_meta", "task"];

/// `params`, a host's call params as JSON, as the server is sent them,
/// `_meta` aside: under the server's name for the tool, without what is
/// set apart ([`SET_APART`]).
pub fn for_server(params: &mut serde_json::Map<String, Value>, name: &str) {
    // The name replaced where it is; the rest set apart taken out.
    params.insert("name".into(), Value::String(name.to_string()));
    for key in SET_APART.into_iter().filter(|key| *key != "name") {
        params.remove(key);
    }
}

/// A host's `tools/call` as it came, on its way to a server under
/// the server's name for the tool: its params are never read into JSON;
/// every member but `name`, `_meta` and `task` goes on as the host wrote
/// it (the request's `_meta` goes apart, see [`crate::lane::Lane::request_with`]).
pub struct HostCall {
    request: Box<sieve_wire::Message>,
    name: String,
}

impl HostCall {
    /// `request`, a host's `tools/call` whose params are an object, for
    /// the server's tool `name`.
    pub fn new(request: Box<sieve_wire::Message>, name: String) -> HostCall {
        HostCall { request, name }
    }

    /// The server's name for the tool.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// About how many bytes the params take.
    pub fn params_bytes(&self) -> usize {
        self.request.params().map_or(0, str::len)
    }

    /// Writes the params' members as the server is sent them, `_meta`
    /// aside: the tool's name first, then the rest as the host wrote it.
    pub fn write_members(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(br#""name":"#);
        // Writing JSON into a Vec cannot fail.
        serde_json::to_writer(&mut *out, &self.name).unwrap_or_default();
        let Some(params) = self.request.params_object() else {
            return;
        };
        for (key, value) in params.members() {
            if SET_APART.contains(&key) {
                continue;
            }
            out.push(b',');
            serde_json::to_writer(&mut *out, key).unwrap_or_default();
            out.push(b':');
            out.extend_from_slice(value.as_bytes());
        }
    }

    /// The params as JSON, as the server is sent them, `_meta` aside: for
    /// a record of the call, or an upstream rmcp's client speaks to.
    pub fn to_json(&self) -> Value {
        let mut params = self
            .request
            .params_as::<Value>()
            .unwrap_or_else(|_| json!({}));
        if let Value::Object(object) = &mut params {
            for_server(object, &self.name);
        }
        params
    }
}

/// A request's params on their way to a server: JSON, or a host's call as
/// it came.
#[derive(Clone, Copy)]
pub enum Params<'a> {
    Json(&'a Value),
    Call(&'a HostCall),
}

impl Params<'_> {
    /// The params as JSON.
    pub fn to_json(self) -> Value {
        match self {
            Params::Json(params) => params.clone(),
            Params::Call(call) => call.to_json(),
        }
    }

    /// The tool a call's params name.
    pub fn tool_name(&self) -> Option<&str> {
        match self {
            Params::Json(params) => params.get("name").and_then(Value::as_str),
            Params::Call(call) => Some(call.name()),
        }
    }
}

/// A server's answer to a request: its response as the server sent it,
/// read once (a line connection's, or one the HTTP tap kept), or rmcp's
/// typed result (an HTTP answer that came before it was awaited).
#[derive(Debug)]
pub enum Reply {
    /// A response with a result ([`sieve_wire::Message::result`]).
    Sent(Box<sieve_wire::Message>),
    Typed(Box<ServerResult>),
}

impl Reply {
    /// The answer as rmcp's typed result.
    pub fn typed(self) -> Result<ServerResult, rmcp::ServiceError> {
        match self {
            Reply::Typed(result) => Ok(*result),
            Reply::Sent(message) => message
                .result_as()
                .map_err(|e| rmcp::ServiceError::McpError(unreadable(&e))),
        }
    }
}

/// The connection a request went on, which is where it is cancelled.
#[derive(Clone)]
pub enum Canceller {
    Rmcp(Peer<RoleClient>),
    Lane(Lane),
}

impl Canceller {
    /// Tells the server that request `id` is given up on, for `reason`,
    /// without waiting: a lane queues the notice; rmcp's client sends it
    /// on a task of its own, since over HTTP it is a POST that a server
    /// which stopped answering holds as long as the call, and rmcp's
    /// client sends such notices one at a time.
    pub fn cancel(&self, id: &Value, reason: &str) {
        match self {
            Canceller::Rmcp(peer) => {
                let cancel: Result<rmcp::model::ClientNotification, _> =
                    serde_json::from_value(json!({
                        "method": "notifications/cancelled",
                        "params": {"requestId": id, "reason": reason}
                    }));
                if let Ok(cancel) = cancel {
                    let peer = peer.clone();
                    tokio::spawn(async move { peer.send_notification(cancel).await });
                }
            }
            Canceller::Lane(lane) => {
                if let Some(id) = sieve_wire::Id::from_value(id) {
                    lane.cancel(&id, reason);
                }
            }
        }
    }
}

/// A lane's answer as a [`Reply`]: the result's text, or the server's
/// error as rmcp's, or the connection's end.
pub(crate) fn answer_of(
    answer: std::io::Result<sieve_wire::Message>,
) -> Result<Reply, rmcp::ServiceError> {
    let message = answer.map_err(closed)?;
    if message.result().is_some() {
        return Ok(Reply::Sent(Box::new(message)));
    }
    let error = message
        .error_as::<rmcp::ErrorData>()
        .unwrap_or_else(|e| unreadable(&e));
    Err(rmcp::ServiceError::McpError(error))
}

/// `id` as rmcp's model writes a request id or a progress token.
pub(crate) fn rmcp_id(id: &sieve_wire::Id) -> rmcp::model::NumberOrString {
    match id {
        sieve_wire::Id::String(s) => rmcp::model::NumberOrString::String(s.as_str().into()),
        sieve_wire::Id::Number(n) => {
            rmcp::model::NumberOrString::Number(n.as_i64().unwrap_or_default())
        }
    }
}

/// A lane that could not send, or whose server went, as rmcp's error for
/// a closed connection.
pub(crate) fn closed(error: std::io::Error) -> rmcp::ServiceError {
    tracing::debug!("a server's connection ended: {error}");
    rmcp::ServiceError::TransportClosed
}

/// A server's answer that is not what its request asks for.
pub(crate) fn unreadable(error: &dyn std::fmt::Display) -> rmcp::ErrorData {
    rmcp::ErrorData::internal_error(
        format!("the server's answer could not be read: {error}"),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::{HostCall, Params};
    use serde_json::{Value, json};

    fn call(line: &str, name: &str) -> HostCall {
        let request = sieve_wire::Message::parse(line.as_bytes()).expect("a request");
        HostCall::new(Box::new(request), name.into())
    }

    /// The members a call writes, read back as the object they make.
    fn written(call: &HostCall) -> (String, Value) {
        let mut out = b"{".to_vec();
        call.write_members(&mut out);
        out.push(b'}');
        let text = String::from_utf8(out).expect("UTF-8");
        let value = serde_json::from_str(&text).expect("JSON");
        (text, value)
    }

    #[test]
    fn a_host_s_call_goes_on_as_written_under_the_server_s_name() {
        let host = call(
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{ "name" : "demo__echo", "arguments": {"text":"a \"quoted\"\nline","n":1.50}, "_meta":{"progressToken":7}, "x-host":[true], "ke\u0079":"v" }}"#,
            "echo",
        );
        let (text, value) = written(&host);
        assert_eq!(
            value,
            json!({"name": "echo", "arguments": {"text": "a \"quoted\"\nline", "n": 1.5},
                   "x-host": [true], "key": "v"}),
            "the name is the server's, _meta goes apart, the rest as it came"
        );
        assert!(
            text.contains(r#""arguments":{"text":"a \"quoted\"\nline","n":1.50}"#),
            "the arguments' bytes as the host wrote them: {text}"
        );
        assert_eq!(host.to_json(), value, "the same params as JSON");
        assert_eq!(Params::Call(&host).tool_name(), Some("echo"));
        assert!(host.params_bytes() >= r#"{"name":"demo__echo"}"#.len());
    }

    #[test]
    fn a_call_with_only_a_name_is_sent_its_name() {
        let host = call(
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x__t"}}"#,
            "t",
        );
        assert_eq!(written(&host).1, json!({"name": "t"}));
        let json = json!({"name": "t", "arguments": {}});
        assert_eq!(Params::Json(&json).to_json(), json);
        assert_eq!(Params::Json(&json).tool_name(), Some("t"));
    }
}
