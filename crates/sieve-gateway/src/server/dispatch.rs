//! One path for every method a host sends, on a connection the proxy's
//! own message layer runs ([`crate::front`]): each request arrives read
//! once, as its method and raw params, and goes to the handler of its
//! kind; only the params a handler reads are decoded into rmcp's types,
//! and the lists go out as built, every field of every item kept.
//!
//! What rmcp's dispatch checks is checked here the same way: a request's
//! own protocol revision must be one the proxy speaks; a 2026-07-28
//! request has no `ping`, `resources/subscribe` or `logging/setLevel`
//! but `subscriptions/listen`; task requests need a host that declared
//! tasks; a task handle goes only to such a host.

use super::SieveServer;
use crate::link::{HostNotice, HostRequest, Listening};
use crate::sync::Locked;
use crate::tap::list_method;
use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, CustomRequest, CustomResult,
    DiscoverResult, ServerResult, SubscriptionsListenResult,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A host request's raw params, for the handlers that read fields rmcp's
/// types do not name (`filter`, `concerns`).
#[derive(Debug, Clone)]
pub struct RawParams(pub Value);

/// A host request's params: read into JSON, or a `tools/call`'s left in
/// the message as it came (never read into JSON: what the handler reads
/// of them is read member by member, the rest goes on as written).
#[derive(Debug, Clone)]
pub enum HostParams {
    /// The params, their `_meta` taken out.
    Json(Value),
    /// A `tools/call`, whatever its params.
    Call(Box<sieve_wire::Message>),
}

impl HostParams {
    /// The params as JSON (a call's read now), `_meta` left out.
    pub fn into_json(self) -> Value {
        match self {
            HostParams::Json(params) => params,
            HostParams::Call(request) => {
                let mut params = request.params_as::<Value>().unwrap_or(Value::Null);
                if let Value::Object(object) = &mut params {
                    object.remove("_meta");
                }
                params
            }
        }
    }
}

/// A host's `tools/call` params as it sent them, its `_meta` taken out:
/// what goes on to the server, the tool's name changed to the server's.
#[derive(Debug, Clone)]
pub struct CallParams(pub HostParams);

/// Where the forwarder leaves the JSON text of a result as the server sent
/// it (a call's, a prompt's, a resource's), so the fields rmcp's model
/// dropped go to the host too: a call's result goes on as that text
/// ([`passed_on`]), a prompt's or a resource's is filled in ([`fill_in`]).
#[derive(Debug, Clone, Default)]
pub struct RawResult(std::sync::Arc<std::sync::Mutex<Option<Kept>>>);

/// A result's text as the forwarder left it.
#[derive(Debug)]
struct Kept {
    text: String,
    /// A call's plain result, marked complete: it goes on as it is.
    complete: bool,
}

impl RawResult {
    pub(super) fn keep(&self, text: String) {
        *self.0.locked() = Some(Kept {
            text,
            complete: false,
        });
    }

    /// Keeps a call's plain result, already marked complete.
    pub(super) fn keep_complete(&self, text: String) {
        *self.0.locked() = Some(Kept {
            text,
            complete: true,
        });
    }

    fn take(&self) -> Option<Kept> {
        self.0.locked().take()
    }

    /// A copy of the text kept, if any.
    pub(super) fn copy(&self) -> Option<String> {
        self.0.locked().as_ref().map(|kept| kept.text.clone())
    }
}

/// Adds to `typed` what `raw` has and it lacks, at every depth (objects by
/// key, arrays of the same length item by item); never changes what
/// `typed` has.
fn fill_in(typed: &mut Value, raw: Value) {
    match (typed, raw) {
        (Value::Object(typed), Value::Object(raw)) => {
            for (key, value) in raw {
                match typed.get_mut(&key) {
                    Some(kept) => fill_in(kept, value),
                    None => {
                        typed.insert(key, value);
                    }
                }
            }
        }
        (Value::Array(typed), Value::Array(raw)) if typed.len() == raw.len() => {
            for (kept, value) in typed.iter_mut().zip(raw) {
                fill_in(kept, value);
            }
        }
        _ => {}
    }
}

/// A call's answer as the host is given it: its result as the server
/// sent it (`raw`) when plain, else the response built and filled in; a
/// task only to a host that `takes_tasks`.
pub(super) fn call_answer(
    response: Result<CallToolResponse, ErrorData>,
    takes_tasks: bool,
    raw: &RawResult,
) -> Result<Answer, ErrorData> {
    match response? {
        CallToolResponse::Task(_) if !takes_tasks => Err(needs_tasks()),
        CallToolResponse::Complete(result) => {
            passed_on(ServerResult::from(CallToolResponse::Complete(result)), raw)
        }
        response => filled(ServerResult::from(response), raw).map(Answer::from),
    }
}

/// `request` with a slot for its result as the server sends it.
pub(super) fn expecting_raw(mut request: HostRequest) -> (HostRequest, RawResult) {
    let raw = RawResult::default();
    request.extensions.insert(raw.clone());
    (request, raw)
}

/// `answer` with what the server sent and rmcp's model dropped filled in,
/// when the forwarder left the server's own result in `raw`.
fn filled(answer: ServerResult, raw: &RawResult) -> Result<ServerResult, ErrorData> {
    match raw.take() {
        Some(kept) => filled_from(answer, &kept.text),
        None => Ok(answer),
    }
}

/// `answer` with what `text`, the server's own result, has and rmcp's
/// model dropped filled in; `answer` as it is when `text` does not parse.
fn filled_from(answer: ServerResult, text: &str) -> Result<ServerResult, ErrorData> {
    let Ok(raw) = serde_json::from_str(text) else {
        return Ok(answer);
    };
    let mut answer =
        serde_json::to_value(answer).map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    fill_in(&mut answer, raw);
    Ok(ServerResult::CustomResult(CustomResult(answer)))
}

/// A call's answer: the result as the server sent it when the forwarder
/// left it in `raw` (the proxy changes nothing of a call's result but
/// marking it complete, as a 2026-07-28 host needs), so it goes on as the
/// text that came, never decoded; else the typed answer.
fn passed_on(answer: ServerResult, raw: &RawResult) -> Result<Answer, ErrorData> {
    let Some(Kept { text, complete }) = raw.take() else {
        return Ok(answer.into());
    };
    // A result spread over lines (an HTTP server may indent its JSON)
    // would break a stdio host's framing: it is written anew, filled in.
    if has_line_break(&text) {
        return filled_from(answer, &text).map(Answer::from);
    }
    if complete {
        return Ok(Answer::Encoded(text));
    }
    let marked = sieve_wire::object::with_member(&text, "resultType", r#""complete""#);
    Ok(Answer::Encoded(marked.unwrap_or(text)))
}

/// Whether `text` holds a line break, looked for many bytes at a time (a
/// call's result may be megabytes, and has no break as a rule).
pub(crate) fn has_line_break(text: &str) -> bool {
    memchr::memchr2(b'\n', b'\r', text.as_bytes()).is_some()
}

/// A request's answer: rmcp's typed result, the JSON text of a result as
/// the server sent it (a call's), or a list's, in pieces (its items
/// encoded once per view).
#[derive(Debug)]
pub enum Answer {
    Typed(Box<ServerResult>),
    Encoded(String),
    List(super::lists::Pieces),
}

impl From<ServerResult> for Answer {
    fn from(result: ServerResult) -> Answer {
        Answer::Typed(Box::new(result))
    }
}

/// How a connection was opened, as far as serving its requests goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opening {
    /// With `initialize` on a revision before 2026-07-28 without the
    /// tasks extension: its task requests are 2025-11-25's.
    LegacyTasks,
    /// With `initialize` otherwise, or request by request (2026-07-28).
    Current,
}

impl SieveServer {
    /// Serves request `method` of `request` with its `params` (their
    /// `_meta` already moved to `request.meta`).
    pub async fn serve_request(
        &self,
        method: &str,
        params: HostParams,
        request: HostRequest,
        opening: Opening,
    ) -> Result<Answer, ErrorData> {
        self.same_caller(&request.extensions)?;
        if method != "initialize" {
            request.check_meta()?;
        }
        let params = match params {
            HostParams::Json(params) => params,
            HostParams::Call(call) => return self.serve_call(call, request).await,
        };
        if list_method(method).is_some() {
            let request = with_raw(request, &params);
            return self.list_result(method, &request).await.map(Answer::List);
        }
        self.serve_typed(method, params, request, opening).await
    }

    /// Serves a request whose params are read as rmcp's types; its answer
    /// is built as rmcp's typed result, but for a call's result, which
    /// goes on as the server sent it.
    async fn serve_typed(
        &self,
        method: &str,
        params: Value,
        request: HostRequest,
        opening: Opening,
    ) -> Result<Answer, ErrorData> {
        let legacy = request
            .protocol_version()
            .is_none_or(|version| version.has_initialize());
        let legacy_tasks = opening == Opening::LegacyTasks;
        // 2025-11-25 task requests go to their own handlers.
        let legacy_task = method == "tasks/result"
            || (legacy_tasks && matches!(method, "tasks/get" | "tasks/cancel"));
        if legacy_task {
            return Box::pin(self.legacy_task_request(method, params, &request))
                .await
                .map(|result| ServerResult::CustomResult(result).into());
        }
        Box::pin(self.serve_other(method, params, request, legacy))
            .await
            .map(Answer::from)
    }

    /// `tools/call`, its params left in the host's message: what the
    /// handler reads is read, and they go on as they came. A 2025-11-25
    /// task request (`task`, an object) goes to its own handler, which
    /// bridges it from JSON.
    async fn serve_call(
        &self,
        call: Box<sieve_wire::Message>,
        mut request: HostRequest,
    ) -> Result<Answer, ErrorData> {
        let task = call
            .params_object()
            .and_then(|params| params.get("task"))
            .is_some_and(|task| task.starts_with('{'));
        if task {
            let params = HostParams::Call(call).into_json();
            return Box::pin(self.legacy_task_request("tools/call", params, &request))
                .await
                .map(|result| ServerResult::CustomResult(result).into());
        }
        let read = self.read_call(&call)?;
        request
            .extensions
            .insert(CallParams(HostParams::Call(call)));
        self.answer_call(read, request).await
    }

    /// Serves `call`, whose params as the host sent them are in
    /// `request`'s [`CallParams`]; a plain result goes on as the server
    /// sent it.
    async fn answer_call(
        &self,
        call: CallToolRequestParams,
        request: HostRequest,
    ) -> Result<Answer, ErrorData> {
        let takes_tasks = request.takes_tasks();
        let (request, raw) = expecting_raw(request);
        call_answer(
            self.handle_call_tool(call, request).await,
            takes_tasks,
            &raw,
        )
    }

    /// What the handler reads of a plain call's params, member by member
    /// from the host's message: its name, the answers of a call the proxy
    /// parked, and its arguments only for a call that reads them (the
    /// search's tools; the audit, when it records them): they are checked
    /// to be an object and go on as they came.
    fn read_call(&self, request: &sieve_wire::Message) -> Result<CallToolRequestParams, ErrorData> {
        let invalid = |why: &dyn std::fmt::Display| {
            ErrorData::invalid_params(format!("invalid params for tools/call: {why}"), None)
        };
        let params = request
            .params_object()
            .ok_or_else(|| invalid(&"the params must be an object naming the tool"))?;
        let config = self.engine.config();
        let settings = &config.settings;
        let recorded = settings.audit.on && settings.audit.arguments;
        let mut name = None;
        let mut arguments = None;
        let mut call = CallToolRequestParams::new("");
        for (key, value) in params.members() {
            let field = |e: serde_json::Error| invalid(&format_args!("{key}: {e}"));
            match key {
                "name" => name = Some(serde_json::from_str::<String>(value).map_err(field)?),
                "arguments" => arguments = Some(value),
                "requestState" => {
                    call.request_state = serde_json::from_str(value).map_err(field)?
                }
                "inputResponses" => {
                    call.input_responses = serde_json::from_str(value).map_err(field)?;
                }
                _ => {}
            }
        }
        let name = name.ok_or_else(|| invalid(&"missing field `name`"))?;
        let searched = name
            .strip_prefix(sieve_core::search::SEARCH_SERVER)
            .is_some_and(|rest| rest.starts_with(settings.separator.as_str()));
        if let Some(arguments) = arguments {
            if recorded || searched {
                call.arguments = serde_json::from_str(arguments)
                    .map_err(|e| invalid(&format_args!("arguments: {e}")))?;
            } else if !(arguments.starts_with('{') || arguments == "null") {
                return Err(invalid(&"arguments: an object is expected"));
            }
        }
        call.name = name.into();
        Ok(call)
    }

    /// Serves a request other than a call, whose answer is built as rmcp's
    /// typed result.
    async fn serve_other(
        &self,
        method: &str,
        params: Value,
        request: HostRequest,
        legacy: bool,
    ) -> Result<ServerResult, ErrorData> {
        match method {
            "initialize" => {
                let request = with_raw(request, &params);
                self.handle_initialize(typed(method, &params)?, request)
                    .await
                    .map(ServerResult::InitializeResult)
            }
            "server/discover" => Ok(ServerResult::DiscoverResult(
                DiscoverResult::from_server_info(
                    self.supported_protocol_versions().into_owned(),
                    self.get_info(),
                ),
            )),
            "ping" if legacy => Ok(ServerResult::empty(())),
            "prompts/get" => {
                let (request, raw) = expecting_raw(request);
                let answer = self
                    .handle_get_prompt(typed(method, &params)?, request)
                    .await?;
                filled(ServerResult::from(answer), &raw)
            }
            "resources/read" => {
                let (request, raw) = expecting_raw(request);
                let answer = self
                    .handle_read_resource(typed(method, &params)?, request)
                    .await?;
                filled(ServerResult::from(answer), &raw)
            }
            "resources/subscribe" if legacy => self
                .handle_subscribe(typed(method, &params)?, request)
                .await
                .map(ServerResult::empty),
            "resources/unsubscribe" if legacy => self
                .handle_unsubscribe(typed(method, &params)?, request)
                .await
                .map(ServerResult::empty),
            "completion/complete" => self
                .handle_complete(typed(method, &params)?, request)
                .await
                .map(ServerResult::CompleteResult),
            "logging/setLevel" if legacy => self
                .handle_set_level(typed(method, &params)?, request)
                .await
                .map(ServerResult::empty),
            "tasks/get" => {
                tasks_declared(&request)?;
                self.handle_get_task(typed(method, &params)?, request)
                    .await
                    .map(ServerResult::GetTaskResult)
            }
            "tasks/update" => {
                tasks_declared(&request)?;
                self.handle_update_task(typed(method, &params)?, request)
                    .await
                    .map(ServerResult::task_ack)
            }
            "tasks/cancel" => {
                tasks_declared(&request)?;
                self.handle_cancel_task(typed(method, &params)?, request)
                    .await
                    .map(ServerResult::task_ack)
            }
            "subscriptions/listen" if !legacy => self.listen_own(params, request).await,
            "ping"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "logging/setLevel"
            | "subscriptions/listen" => Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                method.to_string(),
                None,
            )),
            _ => self.custom(method, params, request).await,
        }
    }

    /// A notification from the host.
    pub fn serve_notification(&self, method: &str, params: Option<Value>, notice: HostNotice) {
        match method {
            "notifications/initialized" => {
                let mut notice = notice;
                if let Some(params) = params {
                    notice.extensions.insert(RawParams(params));
                }
                self.handle_initialized(notice);
            }
            "notifications/roots/list_changed" => self.handle_roots_list_changed(),
            _ => {}
        }
    }

    /// A method the proxy adds, or one it does not know.
    async fn custom(
        &self,
        method: &str,
        params: Value,
        request: HostRequest,
    ) -> Result<ServerResult, ErrorData> {
        let params = (!params.is_null()).then_some(params);
        let custom = CustomRequest::new(method.to_string(), params);
        self.handle_custom_request(custom, request)
            .await
            .map(ServerResult::CustomResult)
    }

    /// `subscriptions/listen` (2026-07-28): acknowledged, then held open
    /// until the host ends it.
    async fn listen_own(
        &self,
        params: Value,
        request: HostRequest,
    ) -> Result<ServerResult, ErrorData> {
        let requested: rmcp::model::SubscriptionsListenRequestParams =
            typed("subscriptions/listen", &params)?;
        let requested = requested.notifications;
        let candidate = self.accept_listen(&requested);
        let info = self.get_info();
        let advertised = requested.supported_by(&info.capabilities);
        let accepted = requested.intersection(&candidate).intersection(&advertised);
        let id = request.id.clone();
        let listening = Listening::establish(request, accepted).await?;
        self.handle_listen(listening).await?;
        let mut result = SubscriptionsListenResult::complete(id);
        result.meta.set_server_info(info.server_info);
        Ok(ServerResult::SubscriptionsListenResult(result))
    }
}

/// `request` with its raw params kept for the handlers that read them.
fn with_raw(mut request: HostRequest, params: &Value) -> HostRequest {
    request.extensions.insert(RawParams(params.clone()));
    request
}

/// `params` read as the type `method` takes (left as they are), or why
/// they do not fit.
fn typed<T: DeserializeOwned>(method: &str, params: &Value) -> Result<T, ErrorData> {
    let read = match params {
        Value::Null => T::deserialize(&Value::Object(Default::default())),
        params => T::deserialize(params),
    };
    read.map_err(|e| ErrorData::invalid_params(format!("invalid params for {method}: {e}"), None))
}

/// The refusal of a task to a host that did not declare it takes tasks.
fn needs_tasks() -> ErrorData {
    ErrorData::missing_required_client_capability(
        ClientCapabilities::builder().enable_tasks().build(),
    )
}

/// Task requests are for a host that declared it takes tasks.
fn tasks_declared(request: &HostRequest) -> Result<(), ErrorData> {
    if request.takes_tasks() {
        Ok(())
    } else {
        Err(needs_tasks())
    }
}

#[cfg(test)]
mod tests {
    use super::{Answer, RawResult, fill_in, has_line_break, passed_on};
    use rmcp::model::{CallToolResult, ServerResult};
    use serde_json::json;

    #[test]
    fn a_result_on_one_line_goes_on_as_it_came_and_one_over_several_is_written_on_one() {
        assert!(!has_line_break(
            r#"{"content":[{"type":"text","text":"a\nb"}]}"#
        ));
        assert!(has_line_break("{\"a\":1,\r\"b\":2}"));
        assert!(has_line_break(&format!("{}\n", "x".repeat(100))));
        let typed = || ServerResult::CallToolResult(CallToolResult::success(Vec::new()));
        let raw = RawResult::default();
        let one_line = r#"{"content":[],"x-extra":1,"resultType":"complete"}"#;
        raw.keep_complete(one_line.to_string());
        match passed_on(typed(), &raw).expect("an answer") {
            Answer::Encoded(text) => assert_eq!(text, one_line),
            other => panic!("not passed on as it came: {other:?}"),
        }
        raw.keep_complete("{\n  \"content\": [],\n  \"x-extra\": 1\n}".to_string());
        match passed_on(typed(), &raw).expect("an answer") {
            Answer::Typed(answer) => {
                let text = serde_json::to_string(&answer).expect("encodes");
                assert!(!text.contains('\n'), "one line: {text}");
                assert!(text.contains(r#""x-extra":1"#), "kept: {text}");
            }
            other => panic!("not written anew: {other:?}"),
        }
    }

    #[test]
    fn what_the_typed_answer_dropped_is_filled_in_and_nothing_else_changes() {
        let mut typed = json!({
            "content": [{"type": "text", "text": "hi"}],
            "isError": false,
            "resultType": "complete",
        });
        let raw = json!({
            "content": [{"type": "text", "text": "changed?", "x-block": 1}],
            "isError": true,
            "x-result-extra": {"served": "t"},
        });
        fill_in(&mut typed, raw);
        assert_eq!(
            typed,
            json!({
                "content": [{"type": "text", "text": "hi", "x-block": 1}],
                "isError": false,
                "resultType": "complete",
                "x-result-extra": {"served": "t"},
            })
        );
        let mut shorter = json!({"content": [{"type": "text"}]});
        fill_in(
            &mut shorter,
            json!({"content": [{"type": "text"}, {"x": 1}]}),
        );
        assert_eq!(
            shorter,
            json!({"content": [{"type": "text"}]}),
            "lengths differ: left alone"
        );
    }
}
