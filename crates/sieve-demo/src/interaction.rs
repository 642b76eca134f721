//! The tools that involve the client beyond a result: asking it
//! (elicitation, sampling: server-to-client requests on 2025-11-25
//! sessions, `input_required` results on 2026-07-28), reporting progress
//! and noticing cancellation, and logging at the level it chose.

use std::{collections::BTreeMap, time::Duration};

use rmcp::{
    ErrorData as McpError, RoleServer,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, InputRequest, InputRequiredResult,
        LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam, ServerRequest,
    },
    service::RequestContext,
};
use serde_json::{Value, json};

use crate::{DemoServer, SERVER_NAME, arguments, text_result, workspace::Args};

/// Severity order of log levels, least severe first (rmcp's `LoggingLevel`
/// is not `Ord`).
const SEVERITY: [LoggingLevel; 8] = [
    LoggingLevel::Debug,
    LoggingLevel::Info,
    LoggingLevel::Notice,
    LoggingLevel::Warning,
    LoggingLevel::Error,
    LoggingLevel::Critical,
    LoggingLevel::Alert,
    LoggingLevel::Emergency,
];

fn rank(level: LoggingLevel) -> usize {
    SEVERITY.iter().position(|l| *l == level).unwrap_or(0)
}

fn parse_level(name: &str) -> Option<LoggingLevel> {
    serde_json::from_value(json!(name)).ok()
}

/// What a tool got when it asked the client for something.
enum Asked {
    Answer(Value),
    /// 2026-07-28: the client must retry the call with the answer.
    Pending(InputRequiredResult),
}

impl DemoServer {
    /// Send a log notification if the client asked for this level.
    pub(crate) async fn log(
        &self,
        context: &RequestContext<RoleServer>,
        level: LoggingLevel,
        data: Value,
    ) {
        let wanted = context
            .meta
            .log_level()
            .unwrap_or_else(|| *self.shared.log_level.lock().expect("log level lock"));
        if rank(level) >= rank(wanted) {
            let params = LoggingMessageNotificationParam::new(level, data).with_logger(SERVER_NAME);
            // A client that went away cannot be told; the tool still runs.
            let _ = context.peer.notify_logging_message(params).await;
        }
    }

    /// Ask the client a question (elicitation, sampling) in whatever way
    /// the negotiated protocol allows.
    async fn ask(
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        key: &str,
        question: Value,
    ) -> Result<Asked, McpError> {
        if let Some(answer) = request.input_responses.as_ref().and_then(|r| r.get(key)) {
            return Ok(Asked::Answer(answer.clone()));
        }
        let modern = context
            .protocol_version()
            .is_some_and(|version| !version.has_initialize());
        if modern {
            // 2026-07-28 forbids server-to-client requests: hand the
            // question back and let the client call again with the answer.
            let input: InputRequest = serde_json::from_value(question)
                .map_err(|e| McpError::internal_error(e.to_string(), None))?;
            return Ok(Asked::Pending(InputRequiredResult::from_input_requests(
                BTreeMap::from([(key.to_owned(), input)]),
            )));
        }
        let server_request: ServerRequest = serde_json::from_value(question)
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        let answer = context
            .peer
            .send_request(server_request)
            .await
            .map_err(|e| {
                McpError::internal_error(format!("the client did not answer: {e}"), None)
            })?;
        serde_json::to_value(answer)
            .map(Asked::Answer)
            .map_err(|e| McpError::internal_error(e.to_string(), None))
    }

    pub(crate) async fn purge_closed_issues(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let stats = self.workspace().stats();
        let closed =
            stats["issues"].as_u64().unwrap_or(0) - stats["open_issues"].as_u64().unwrap_or(0);
        let question = json!({
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": format!("Delete {closed} closed issues for good?"),
                "requestedSchema": {
                    "type": "object",
                    "properties": {"confirm": {"type": "boolean", "description": "Yes, delete them"}},
                    "required": ["confirm"]
                }
            }
        });
        let answer = match Self::ask(request, context, "confirm", question).await? {
            Asked::Pending(pending) => return Ok(pending.into()),
            Asked::Answer(answer) => answer,
        };
        let confirmed = answer["action"] == "accept" && answer["content"]["confirm"] == true;
        if !confirmed {
            return Ok(text_result(
                "Nothing deleted: the user did not confirm.",
                false,
            ));
        }
        let purged = self.workspace().purge_closed_issues();
        self.publish_workspace_changes();
        Ok(CallToolResult::structured(json!({ "purged": purged })).into())
    }

    pub(crate) async fn summarize_issue(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = arguments(request);
        let args = Args(&args);
        let (id, max_tokens) = match (args.int("id"), args.opt_int("max_tokens")) {
            (Ok(id), Ok(max)) => (id, max.unwrap_or(200)),
            (Err(e), _) | (_, Err(e)) => return Ok(text_result(&e, true)),
        };
        let Some(issue) = u64::try_from(id)
            .ok()
            .and_then(|id| self.workspace().issue_json(id))
        else {
            return Ok(text_result(format!("no issue #{id}"), true));
        };
        let question = json!({
            "method": "sampling/createMessage",
            "params": {
                "messages": [{"role": "user", "content": {"type": "text",
                    "text": format!("Summarize this issue in one paragraph:\n{issue}")}}],
                "maxTokens": max_tokens,
                "systemPrompt": "You summarize bug tracker issues."
            }
        });
        match Self::ask(request, context, "summary", question).await? {
            Asked::Pending(pending) => Ok(pending.into()),
            Asked::Answer(answer) => {
                let text = answer["content"]["text"].as_str().unwrap_or("(no text)");
                Ok(CallToolResult::structured(json!({
                    "id": id,
                    "summary": text,
                    "model": answer["model"],
                }))
                .into())
            }
        }
    }

    pub(crate) async fn reindex(
        &self,
        args: &Args<'_>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let (steps, step_ms) = match (args.opt_int("steps"), args.opt_int("step_ms")) {
            (Ok(steps), Ok(ms)) => (steps.unwrap_or(5).clamp(1, 50), ms.unwrap_or(100).max(0)),
            (Err(e), _) | (_, Err(e)) => return Ok(text_result(&e, true)),
        };
        let token = context.meta.get_progress_token();
        for step in 1..=steps {
            tokio::select! {
                () = context.ct.cancelled() => {
                    // Said out loud, so a client (or a proxy's test) can see
                    // that the cancellation reached the server.
                    self.log(context, LoggingLevel::Notice, json!({"reindex_cancelled_at_step": step})).await;
                    return Ok(text_result("Reindex cancelled by the client.", true));
                }
                () = tokio::time::sleep(Duration::from_millis(step_ms.unsigned_abs())) => {}
            }
            if let Some(token) = &token {
                let progress = ProgressNotificationParam::new(token.clone(), step as f64)
                    .with_total(steps as f64)
                    .with_message(format!("indexed part {step} of {steps}"));
                let _ = context.peer.notify_progress(progress).await;
            }
        }
        self.log(
            context,
            LoggingLevel::Info,
            json!({"reindexed_steps": steps}),
        )
        .await;
        Ok(CallToolResult::structured(
            json!({ "steps": steps, "indexed": self.workspace().stats() }),
        )
        .into())
    }

    /// `tools/call` of `log_message`: a log notification at the level asked
    /// for, if the client wants that level.
    pub(crate) async fn log_message(
        &self,
        args: &Args<'_>,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResponse {
        let level = match args.opt_str("level") {
            Ok(level) => level.and_then(parse_level).unwrap_or(LoggingLevel::Info),
            Err(e) => return text_result(&e, true),
        };
        let Ok(message) = args.str("message") else {
            return text_result("argument `message` is required", true);
        };
        self.log(context, level, json!(message)).await;
        text_result("sent", false)
    }
}
