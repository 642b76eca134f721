//! A request on its way to an upstream and back: the host's `_meta` for
//! the request (not its connection's), cancellation upstream when the host
//! cancels or the call timeout passes, progress routed back, and for a
//! 2026-07-28 host, questions the upstream asks turned into an
//! `input_required` result whose retry resumes the parked call.

use super::SieveServer;
use crate::hosts::{CallProgress, Flight};
use crate::link::HostRequest;
use crate::sent::{Params, Reply};
use crate::upstream::mark_complete;
use rmcp::ErrorData;
use rmcp::model::ServerResult;
use serde_json::{Map, Value, json};
use sieve_ledger::Ledger;
use std::time::Duration;

/// Keys of a host's `_meta` that belong to its own connection, not to the
/// request it makes: never forwarded upstream.
fn is_connection_meta(key: &str) -> bool {
    key == "progressToken" || key.starts_with("io.modelcontextprotocol/")
}

impl SieveServer {
    /// Forwards a request to `server` on behalf of this host, cancelling it
    /// upstream if the host cancels, and routing its progress back.
    pub(super) async fn forward(
        &self,
        server: &str,
        method: &str,
        params: &Value,
        context: &HostRequest,
    ) -> Result<ServerResult, ErrorData> {
        self.forward_params(server, method, Params::Json(params), context)
            .await
    }

    /// [`SieveServer::forward`], the params JSON or a host's call as it
    /// came.
    pub(super) async fn forward_params(
        &self,
        server: &str,
        method: &str,
        params: Params<'_>,
        context: &HostRequest,
    ) -> Result<ServerResult, ErrorData> {
        let meta: Map<String, Value> = context
            .meta
            .iter()
            .filter(|(k, _)| !is_connection_meta(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let pool = self.engine.pool();
        let sent = match params {
            Params::Call(call) => pool.send_call(server, call, &meta).await?,
            Params::Json(params) => {
                // The params go as they are unless the request's `_meta`
                // changes.
                let mut params = std::borrow::Cow::Borrowed(params);
                if (params.get("_meta").is_some() || !meta.is_empty())
                    && let Value::Object(object) = params.to_mut()
                {
                    object.remove("_meta");
                    if !meta.is_empty() {
                        object.insert("_meta".into(), Value::Object(meta));
                    }
                }
                pool.send(server, method, &params).await?
            }
        };
        // A 2026-07-28 host takes questions only as `input_required`
        // results, so the questions of its calls come to this handler.
        let modern_host = context
            .protocol_version()
            .is_some_and(|v| !v.has_initialize());
        // A channel for them only then, not one made and dropped at every
        // call.
        let (bridge, asked) = modern_host
            .then(tokio::sync::mpsc::unbounded_channel)
            .unzip();
        let tracked = self.engine.hosts().track_call(
            &context.link,
            server,
            &sent.progress_token,
            context.meta.get_progress_token(),
            bridge,
            context.extensions.get::<CallProgress>().cloned(),
        );
        let flight = Flight {
            server: server.to_string(),
            id: sent.id,
            to: sent.to,
            upstream: sent.answer,
            asked,
            answers: Default::default(),
            tracked,
        };
        self.drive(flight, method, context).await
    }

    /// Waits for a call's answer. A question the upstream asks meanwhile
    /// (for a 2026-07-28 host) parks the call and answers the host with
    /// `input_required`; the host's retry resumes it (see `handle_call_tool`).
    pub(super) async fn drive(
        &self,
        mut flight: Flight,
        method: &str,
        context: &HostRequest,
    ) -> Result<ServerResult, ErrorData> {
        let limit = Duration::from_secs(self.engine.config().settings.call_timeout_seconds);
        let server = flight.server.clone();
        // The answer is given up on as `flight` goes, at the end of this
        // call: what is left is to tell the upstream, which holds up no
        // host (see `Canceller::cancel`).
        let cancel = |flight: &Flight, reason: &'static str| flight.to.cancel(&flight.id, reason);
        tokio::select! {
            answered = &mut flight.upstream => {
                let slot = context.extensions.get::<super::dispatch::RawResult>();
                self.replied(&server, method, &flight.id, answered, slot)
            }
            Some(first) = next_asked(&mut flight.asked) => {
                let mut requests = rmcp::model::InputRequests::new();
                let mut next = Some(first);
                while let Some(asked) = next {
                    let key = format!("sieve-{}", flight.answers.len() + 1);
                    match serde_json::from_value::<rmcp::model::InputRequest>(asked.request.clone()) {
                        Ok(request) => {
                            requests.insert(key.clone(), request);
                            flight.answers.insert(key, asked.answer);
                        }
                        Err(error) => {
                            let _ = asked.answer.send(Err(ErrorData::internal_error(
                                format!("the host cannot be asked this: {error}"),
                                None,
                            )));
                        }
                    }
                    next = flight.asked.as_mut().and_then(|asked| asked.try_recv().ok());
                }
                let token = Ledger::new_id().replacen("st-", "rs-", 1);
                self.engine.hosts().park(token.clone(), flight);
                Ok(ServerResult::InputRequiredResult(rmcp::model::InputRequiredResult::new(
                    Some(requests),
                    Some(token),
                )))
            }
            () = tokio::time::sleep(limit) => {
                cancel(&flight, TIMED_OUT);
                Err(timed_out(&server, method, limit))
            }
            () = context.ct.cancelled() => {
                cancel(&flight, CANCELLED);
                Err(cancelled())
            }
        }
    }

    /// The outcome of request `method`, of id `id` on `server`, once the
    /// server answered (or its connection failed); what the server sent
    /// is left in `slot` for the host's answer.
    pub(super) fn replied(
        &self,
        server: &str,
        method: &str,
        id: &Value,
        answered: Result<Reply, rmcp::ServiceError>,
        slot: Option<&super::dispatch::RawResult>,
    ) -> Result<ServerResult, ErrorData> {
        match answered {
            Err(error) => Err(ErrorData::from(
                self.engine.pool().request_failed(server, error),
            )),
            Ok(Reply::Sent(message)) => self.answer_of(method, &message, slot),
            Ok(Reply::Typed(typed)) => {
                let answered = mark_complete(*typed);
                // The result as the server sent it, for the fields rmcp's
                // model dropped: taken from the tap whoever asked, so it
                // does not linger there, and kept where the host's answer
                // is made.
                if let ServerResult::CallToolResult(_)
                | ServerResult::GetPromptResult(_)
                | ServerResult::ReadResourceResult(_) = &answered
                    && let Some(raw) = self.engine.pool().raw_result(server, id)
                    && let Some(slot) = slot
                {
                    slot.keep(raw);
                }
                Ok(answered)
            }
        }
    }

    /// A response as the server sent it: a call's result goes on to the
    /// host as that text, left in `slot`, when it is a plain result (no
    /// task, no question, no error), with a typed stand-in with nothing in
    /// it for the handler, which only tells the kinds of result apart; any
    /// other is typed, its text left in `slot` for the fields the type
    /// drops. The result's members are those the response's one read
    /// found.
    fn answer_of(
        &self,
        method: &str,
        response: &sieve_wire::Message,
        slot: Option<&super::dispatch::RawResult>,
    ) -> Result<ServerResult, ErrorData> {
        let text = response.result().unwrap_or("null");
        if method == "tools/call"
            && let Some(slot) = slot
            && let Some(result) = complete_plain_result(response)
        {
            slot.keep_complete(result);
            let mut stand_in = rmcp::model::CallToolResult::success(Vec::new());
            stand_in.result_type = Some(rmcp::model::ResultType::COMPLETE);
            return Ok(ServerResult::CallToolResult(stand_in));
        }
        let typed = serde_json::from_str::<ServerResult>(text).map_err(|e| {
            ErrorData::internal_error(format!("the server's answer could not be read: {e}"), None)
        })?;
        // Only a result the host is given as it is: a task or a question
        // is answered otherwise.
        if let Some(slot) = slot
            && let ServerResult::CallToolResult(_)
            | ServerResult::GetPromptResult(_)
            | ServerResult::ReadResourceResult(_) = &typed
        {
            slot.keep(text.to_string());
        }
        Ok(mark_complete(typed))
    }
}

/// Why a request given up on at the call timeout is cancelled, as the
/// server is told.
pub(crate) const TIMED_OUT: &str = "the proxy's call timeout passed";

/// Why a request the host cancelled is cancelled, as the server is told.
pub(crate) const CANCELLED: &str = "cancelled by the host";

/// The host's error for request `method` that `server` did not answer
/// within `limit`.
pub(crate) fn timed_out(server: &str, method: &str, limit: Duration) -> ErrorData {
    ErrorData::internal_error(
        format!(
            "server {server:?} did not answer {method} within {}s (settings.callTimeoutSeconds); the call was cancelled",
            limit.as_secs()
        ),
        Some(json!({"server": server})),
    )
}

/// The host's error for a request it cancelled.
pub(crate) fn cancelled() -> ErrorData {
    ErrorData::internal_error(CANCELLED, None)
}

/// The next question the upstream asks for a call's host; never, for a
/// host asked directly.
async fn next_asked(
    asked: &mut Option<tokio::sync::mpsc::UnboundedReceiver<crate::hosts::Asked>>,
) -> Option<crate::hosts::Asked> {
    match asked {
        Some(asked) => asked.recv().await,
        None => std::future::pending().await,
    }
}

/// The result of `response`, a call's, marked complete, when it is a
/// plain one ([`plain_call_result`]); as the host is given it.
pub(crate) fn complete_plain_result(response: &sieve_wire::Message) -> Option<String> {
    let object = response.result_object()?;
    if !plain_call_result(&object) {
        return None;
    }
    let marked = object.with_member("resultType", r#""complete""#);
    Some(marked.unwrap_or_else(|| object.text().to_string()))
}

/// Whether `result`, a call's, is a plain one: without a task, not asking
/// for input, not an error.
fn plain_call_result(result: &sieve_wire::object::Object<'_>) -> bool {
    result.members().all(|(key, value)| match key {
        "task" => false,
        "isError" => value.trim() != "true",
        "resultType" => value.trim() == r#""complete""#,
        _ => true,
    })
}
