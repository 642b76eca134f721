//! Requests about one primitive, forwarded to the server that offers it
//! once the profile allows it: `tools/call`, `prompts/get`,
//! `resources/read`, resource subscriptions, completion; and the log level,
//! which goes to every server that logs.

use super::dispatch::{CallParams, HostParams};
use super::{SieveServer, View, convert, to_params};
use crate::engine::Search;
use crate::link::HostRequest;
use crate::sent::{HostCall, Params};
use crate::tap::UnnamedParams;
use crate::tasks::{Call, Running, Started};
use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientResult, CompleteRequestParams,
    CompleteResult, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerResult,
    SetLevelRequestParams, SubscribeRequestParams, UnsubscribeRequestParams,
};
use serde_json::Value;
use serde_json::json;
use sieve_core::Kind;
use sieve_core::search::{
    CALL_TOOL, DEFAULT_LIMIT, FIND_TOOLS, MAX_LIMIT, ToolIndex, found_definition, nothing_close,
    search_tool_name,
};

impl SieveServer {
    /// `tools/call`. A call the proxy parked for a 2026-07-28 host's
    /// answers resumes with them; a call that fails or is cut off is
    /// recorded for retry; a call that becomes a task is recorded and
    /// answered with the task or its result, as the host can take it.
    ///
    /// The branches a plain call does not take (the search, a parked
    /// call, tasks) are boxed: a future holds room for the largest state
    /// of every future it awaits, and each call's future is moved several
    /// times on its way to being spawned.
    pub(super) async fn serve_call_tool(
        &self,
        request: CallToolRequestParams,
        mut context: HostRequest,
    ) -> Result<CallToolResponse, ErrorData> {
        let sent = context.extensions.remove::<CallParams>();
        let view = self.view(&context, false)?;
        if view.profile.rules.search_mode() {
            let separator = view.config.settings.separator.clone();
            if request.name == search_tool_name(FIND_TOOLS, &separator) {
                return Box::pin(self.find_tools(&view, &request)).await;
            }
            if request.name == search_tool_name(CALL_TOOL, &separator) {
                // The tool named inside, called like any other: enforced,
                // routed, recorded, cancellable; what the host sent beside
                // its name and arguments goes on with it.
                let inner = call_through(request, &separator)?;
                let mut params = to_params(&inner);
                if let (Some(CallParams(sent)), Value::Object(object)) = (sent, &mut params) {
                    object.extend(UnnamedParams::take(&mut sent.into_json()).0);
                }
                context
                    .extensions
                    .insert(CallParams(HostParams::Json(params)));
                return Box::pin(self.handle_call_tool(inner, context)).await;
            }
        }
        let tool = self.callable_tool(&view, &request.name)?;
        if let Some(mut flight) = request
            .request_state
            .as_deref()
            .and_then(|token| self.engine.hosts().resume(token))
        {
            // The host answers the questions of a call the proxy parked.
            for (key, value) in request.input_responses.clone().unwrap_or_default() {
                if let Some(answer) = flight.answers.remove(&key) {
                    let _ =
                        answer.send(serde_json::from_value::<ClientResult>(value).map_err(|e| {
                            ErrorData::invalid_params(format!("inputResponses.{key}: {e}"), None)
                        }));
                }
            }
            return match Box::pin(self.drive(flight, "tools/call", &context)).await? {
                ServerResult::InputRequiredResult(input) => {
                    Ok(CallToolResponse::InputRequired(input))
                }
                other => Ok(CallToolResponse::Complete(convert(
                    other,
                    "tools/call result",
                )?)),
            };
        }
        // The params go on as the host sent them, under the server's name
        // for the tool (the host's own `_meta` goes on with the request);
        // a plain call's, as the bytes it wrote.
        let (json, host_call);
        let params = match sent {
            Some(CallParams(HostParams::Call(request))) => {
                host_call = HostCall::new(request, tool.name.clone());
                Params::Call(&host_call)
            }
            sent => {
                let mut params = match sent {
                    Some(CallParams(HostParams::Json(sent))) if sent.is_object() => sent,
                    _ => to_params(&request),
                };
                if let Value::Object(object) = &mut params {
                    crate::sent::for_server(object, &tool.name);
                }
                json = params;
                Params::Json(&json)
            }
        };
        let call = Call {
            server: &tool.server,
            tool: &tool.exposed_name,
            params,
            profile: &view.profile.name,
            owner: view.owner.as_deref(),
            local: Call::is_local(&view.config, &tool.server),
        };
        let tasks = self.engine.tasks();
        if tasks.runs_as_legacy_task(call.server, &tool.definition, false) {
            // A 2025-11-25 server runs this tool only as a task: the proxy
            // asks for one and relays it or waits for it.
            return match Box::pin(tasks.start_legacy(&call, None)).await? {
                Started::Task(record) => Box::pin(tasks.answer(&record, &context)).await,
                Started::Done(result) => {
                    let mut result: CallToolResult = convert(result, "tools/call result")?;
                    result
                        .result_type
                        .get_or_insert(rmcp::model::ResultType::COMPLETE);
                    Ok(CallToolResponse::Complete(result))
                }
            };
        }
        let running = tasks.call_started(&call);
        let outcome = self
            .forward_params(call.server, "tools/call", params, &context)
            .await;
        self.call_answered(&call, running, outcome, &context).await
    }

    /// What the host of `call` is answered once its server answered with
    /// `outcome`: a call that failed or was cut off goes to the ledger, for
    /// retry; what a result measured, to the writer of measurements; a
    /// task the server made is recorded and answered as the host can take
    /// it.
    pub(super) async fn call_answered(
        &self,
        call: &Call<'_>,
        running: Running,
        outcome: Result<ServerResult, ErrorData>,
        context: &HostRequest,
    ) -> Result<CallToolResponse, ErrorData> {
        let tasks = self.engine.tasks();
        tasks
            .call_ended(running, call, &outcome, context.ct.is_cancelled(), || {
                context
                    .extensions
                    .get::<super::dispatch::RawResult>()
                    .and_then(super::dispatch::RawResult::copy)
            })
            .await;
        match outcome? {
            ServerResult::CallToolResult(result) => Ok(CallToolResponse::Complete(result)),
            ServerResult::CreateTaskResult(created) => {
                let record = tasks.record_task(call, &created.task)?;
                Box::pin(tasks.answer(&record, context)).await
            }
            ServerResult::InputRequiredResult(input) => Ok(CallToolResponse::InputRequired(input)),
            other => Ok(CallToolResponse::Complete(convert::<CallToolResult>(
                other,
                "tools/call result",
            )?)),
        }
    }

    /// The search of the tools `view`'s profile lets be called, shared by
    /// its hosts; built when first asked for (a search-mode list asks, so
    /// the sentence model reads the tools before the first search). It
    /// holds the model and has it read every tool the profile allows, so
    /// a connection's narrowed search finds their vectors read.
    pub(super) fn profile_search(&self, view: &View) -> std::sync::Arc<Search> {
        self.engine
            .search(&view.catalog, &view.profile, || tool_index(view, None))
    }

    /// The search of the tools `view` may call: the profile's, or the
    /// connection's own when its concerns narrow what it may call.
    fn search_of(&self, view: &View) -> std::sync::Arc<Search> {
        let profile = self.profile_search(view);
        if view.narrowing.is_empty() {
            profile
        } else {
            self.engine
                .own_search(tool_index(view, Some(&view.narrowing)))
        }
    }

    /// `sieve__find_tools {query, limit?}`: the tools this view may call
    /// that best match `query`, each with its full definition, best first.
    /// A tool the profile hides is never among them.
    async fn find_tools(
        &self,
        view: &View,
        request: &CallToolRequestParams,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.clone().unwrap_or_default();
        let query = arguments
            .get("query")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|q| !q.is_empty())
            .ok_or_else(|| {
                ErrorData::invalid_params(
                    "arguments.query: say in plain words what the tool should do",
                    None,
                )
            })?;
        let limit = match arguments.get("limit") {
            None | Some(Value::Null) => DEFAULT_LIMIT,
            Some(value) => value
                .as_u64()
                .filter(|n| (1..=MAX_LIMIT as u64).contains(n))
                .map(|n| n as usize)
                .ok_or_else(|| {
                    ErrorData::invalid_params(
                        format!("arguments.limit: a whole number from 1 to {MAX_LIMIT}"),
                        None,
                    )
                })?,
        };
        let search = self.search_of(view);
        let (blended, ranking) = search.find(query, limit).await;
        let found: Vec<Value> = blended
            .keys
            .iter()
            .filter_map(|&i| view.forms.items.get(i).cloned().flatten())
            .map(found_definition)
            .collect();
        let structured = json!({"tools": found});
        let mut result = CallToolResult::structured(structured.clone());
        let text = if blended.close {
            structured.to_string()
        } else {
            // The groups of the tools this view may call, whose words
            // find them.
            let groups = view
                .catalog
                .primitives()
                .iter()
                .filter(|p| callable(view, Some(&view.narrowing), p))
                .flat_map(|p| p.labels.groups.iter().cloned())
                .collect();
            let nearest: Vec<&str> = found
                .iter()
                .filter_map(|tool| tool["name"].as_str())
                .collect();
            nothing_close(query, &groups, &nearest)
        };
        result.content = vec![rmcp::model::ContentBlock::text(text)];
        // How the tools were ranked: by words alone until the sentence
        // model has read them (or when it is not there).
        let mut meta = serde_json::Map::new();
        meta.insert(
            format!("{}ranking", sieve_core::labels::META_PREFIX),
            Value::String(ranking.as_str().into()),
        );
        result.meta = Some(rmcp::model::MetaObject(meta));
        Ok(CallToolResponse::Complete(result))
    }

    pub(super) async fn handle_get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: HostRequest,
    ) -> Result<GetPromptResponse, ErrorData> {
        let view = self.view(&context, false)?;
        let prompt = view
            .catalog
            .find_prompt(&request.name)
            .ok_or_else(|| self.not_found(&view, Kind::Prompt, &request.name))?;
        self.check_visible(&view, prompt)?;
        let mut params = to_params(&request);
        params["name"] = Value::String(prompt.name.clone());
        let server = prompt.server.clone();
        match self
            .forward(&server, "prompts/get", &params, &context)
            .await?
        {
            ServerResult::GetPromptResult(result) => Ok(result.into()),
            ServerResult::InputRequiredResult(input) => Ok(input.into()),
            other => Ok(convert::<GetPromptResult>(other, "prompts/get result")?.into()),
        }
    }

    pub(super) async fn handle_read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: HostRequest,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let view = self.view(&context, false)?;
        let resource = self.resource_for(&view.catalog, &view.config, &request.uri, false)?;
        self.check_visible(&view, &resource)?;
        let server = resource.server.clone();
        match self
            .forward(&server, "resources/read", &to_params(&request), &context)
            .await?
        {
            ServerResult::ReadResourceResult(result) => Ok(result.into()),
            ServerResult::InputRequiredResult(input) => Ok(input.into()),
            other => Ok(convert::<ReadResourceResult>(other, "resources/read result")?.into()),
        }
    }

    pub(super) async fn handle_subscribe(
        &self,
        request: SubscribeRequestParams,
        context: HostRequest,
    ) -> Result<(), ErrorData> {
        let view = self.view(&context, false)?;
        let resource = self.resource_for(&view.catalog, &view.config, &request.uri, true)?;
        self.check_visible(&view, &resource)?;
        let server = resource.server.clone();
        self.forward(
            &server,
            "resources/subscribe",
            &to_params(&request),
            &context,
        )
        .await?;
        if let Some(host) = self.state().host {
            self.engine.hosts().subscribe(host, &request.uri);
        }
        Ok(())
    }

    pub(super) async fn handle_unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: HostRequest,
    ) -> Result<(), ErrorData> {
        if let Some(host) = self.state().host {
            self.engine.hosts().unsubscribe(host, &request.uri);
        }
        let published = self.engine.published();
        let resource =
            self.resource_for(&published.catalog, &published.config, &request.uri, true)?;
        // One upstream subscription serves every host of this process: it
        // is dropped only when no host is subscribed any more.
        if !self.engine.hosts().subscribed(&request.uri) {
            self.forward(
                &resource.server,
                "resources/unsubscribe",
                &to_params(&request),
                &context,
            )
            .await?;
        }
        Ok(())
    }

    pub(super) async fn handle_complete(
        &self,
        request: CompleteRequestParams,
        context: HostRequest,
    ) -> Result<CompleteResult, ErrorData> {
        let view = self.view(&context, false)?;
        let mut params = to_params(&request);
        let reference = params.get("ref").cloned().unwrap_or_default();
        let target = match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => {
                let name = reference
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let prompt = view.catalog.find_prompt(name).ok_or_else(|| {
                    ErrorData::invalid_params(format!("unknown prompt {name:?}"), None)
                })?;
                params["ref"]["name"] = Value::String(prompt.name.clone());
                prompt
            }
            _ => {
                let uri = reference
                    .get("uri")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                view.catalog
                    .of_kind(Kind::ResourceTemplate)
                    .find(|t| t.uri == uri)
                    .ok_or_else(|| {
                        ErrorData::invalid_params(
                            format!("unknown resource template {uri:?}"),
                            None,
                        )
                    })?
            }
        };
        self.check_visible(&view, target)?;
        let server = target.server.clone();
        match self
            .forward(&server, "completion/complete", &params, &context)
            .await?
        {
            ServerResult::CompleteResult(result) => Ok(result),
            other => convert(other, "completion result"),
        }
    }

    pub(super) async fn handle_set_level(
        &self,
        request: SetLevelRequestParams,
        context: HostRequest,
    ) -> Result<(), ErrorData> {
        if let Some(host) = self.state().host {
            self.engine.hosts().set_level(host, request.level);
        }
        // Upstreams log at the level last asked for; each host then gets
        // only what its own level lets through.
        let servers: Vec<String> = self.engine.pool().statuses().into_keys().collect();
        for server in servers {
            if let Ok(peer) = self.engine.pool().peer(&server)
                && peer
                    .peer_info()
                    .is_some_and(|i| i.capabilities.logging.is_some())
            {
                let _ = self
                    .forward(&server, "logging/setLevel", &to_params(&request), &context)
                    .await;
            }
        }
        Ok(())
    }
}

/// Whether a call named `name` is `sieve__call_tool`, served as the call
/// it stands for (which is then audited in its place).
pub(super) fn served_as_call_through(name: &str, separator: &str) -> bool {
    name == search_tool_name(CALL_TOOL, separator)
}

/// The call `sieve__call_tool {name, arguments}` stands for.
fn call_through(
    request: CallToolRequestParams,
    separator: &str,
) -> Result<CallToolRequestParams, ErrorData> {
    let mut arguments = request.arguments.clone().unwrap_or_default();
    let name = match arguments.remove("name") {
        Some(Value::String(name)) if !name.trim().is_empty() => name,
        _ => {
            return Err(ErrorData::invalid_params(
                "arguments.name: the name of a tool sieve__find_tools returned",
                None,
            ));
        }
    };
    if name.starts_with(&format!("{}{separator}", sieve_core::search::SEARCH_SERVER)) {
        return Err(ErrorData::invalid_params(
            format!("{name:?} is one of the proxy's own tools; call it directly"),
            None,
        ));
    }
    let inner = match arguments.remove("arguments") {
        None | Some(Value::Null) => None,
        Some(Value::Object(object)) => Some(object),
        Some(_) => {
            return Err(ErrorData::invalid_params(
                "arguments.arguments: the tool's arguments, as an object",
                None,
            ));
        }
    };
    let mut call = request;
    call.name = name.into();
    call.arguments = inner;
    Ok(call)
}

/// Whether `view` may call `p` under `narrowing`: what its search holds.
fn callable(
    view: &View,
    narrowing: Option<&sieve_core::rules::Narrowing>,
    p: &sieve_core::Primitive,
) -> bool {
    p.kind == Kind::Tool && view.profile.rules.is_visible(p, narrowing)
}

/// The search index of the tools `view` may call under `narrowing`.
fn tool_index(view: &View, narrowing: Option<&sieve_core::rules::Narrowing>) -> ToolIndex {
    ToolIndex::build(
        view.catalog
            .primitives()
            .iter()
            .enumerate()
            .filter(|(_, p)| callable(view, narrowing, p)),
    )
}
