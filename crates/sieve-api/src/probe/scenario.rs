//! What the probe does for a client scenario of the MCP conformance suite,
//! after the connection and the lists (which are the proxy's own).
//!
//! The suite starts a scenario server, runs the client with its URL and
//! the scenario's name (and sometimes a context: the calls to make), and
//! judges what the client sent. A client is expected to use what the
//! server offers, so by default the probe calls every tool, reads every
//! resource and gets every prompt, with arguments that fit their schemas,
//! and answers the server's questions (elicitation) with each field's
//! default, as a person accepting a form would. A few scenarios ask for
//! something else:
//!
//! * the context lists `toolCalls`: exactly those calls;
//! * `json-schema-ref-no-deref`: lists only (its server serves nothing else);
//! * `json-schema-2020-12-preservation`: sends the schema it was shown
//!   back to the server's echo tool, to show nothing was lost on the way;
//! * `sep-2322-client-request-state`: the multi-round (`input_required`)
//!   calls in the order that scenario checks, one unrelated call between
//!   a question and its answer.
//!
//! Everything goes through the pool's connection, like the proxy's calls.

#![allow(deprecated)] // roots: deprecated in 2026-07-28, live in 2025-11-25

use crate::{ApiError, ErrorCode, Result};
use rmcp::ErrorData;
use rmcp::model::{
    ClientResult, ElicitRequestParams, ElicitResult, ElicitationAction, ListRootsResult,
    ServerRequest,
};
use serde::Serialize;
use serde_json::{Map, Value, json};
use sieve_core::ServerListing;
use sieve_gateway::tap::typed_message;
use sieve_gateway::upstream::Pool;
use std::time::Duration;

/// How many `input_required` rounds one call may take before the probe
/// gives up on it.
const MAX_ROUNDS: usize = 8;

/// How long one request may take; the suite gives a whole scenario 30 s.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// A client scenario of the conformance suite, as its runner names it.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// `MCP_CONFORMANCE_SCENARIO`, e.g. `tools_call`.
    pub name: String,
    /// `MCP_CONFORMANCE_CONTEXT`, the scenario's details for the client.
    pub context: Option<Value>,
}

impl Scenario {
    /// A scenario named `name`, with the suite's context (JSON) if any.
    pub fn new(name: &str, context: Option<&str>) -> Result<Scenario> {
        let context = match context.filter(|c| !c.trim().is_empty()) {
            Some(text) => Some(serde_json::from_str(text).map_err(|e| {
                ApiError::invalid(
                    "context",
                    format!("the conformance context is not JSON ({e})"),
                )
            })?),
            None => None,
        };
        Ok(Scenario {
            name: name.to_string(),
            context,
        })
    }

    /// The OAuth client the scenario gives (`client_id`, `client_secret`,
    /// `private_key_pem` and `signing_algorithm` of its context): a
    /// pre-registered one, or a service account where the authorization
    /// server offers only the client credentials grant.
    pub(super) fn client(&self) -> sieve_gateway::oauth::Client {
        let field = |name: &str| {
            self.context
                .as_ref()
                .and_then(|c| c.get(name))
                .and_then(Value::as_str)
                .map(String::from)
        };
        sieve_gateway::oauth::Client {
            client_id: field("client_id"),
            client_secret: field("client_secret"),
            scopes: Vec::new(),
            metadata_url: None,
            grant: sieve_core::Grant::default(),
            private_key: field("private_key_pem"),
            signing_algorithm: field("signing_algorithm"),
        }
    }

    /// Does what the scenario expects after listing. A call the server
    /// refuses is recorded as such and the others still made; only a
    /// scenario server that lacks what the scenario calls fails the run.
    pub(super) async fn run(
        &self,
        pool: &Pool,
        server: &str,
        listing: &ServerListing,
    ) -> Result<Report> {
        let mut session = Session {
            pool,
            server,
            calls: Vec::new(),
        };
        let context_calls = self
            .context
            .as_ref()
            .and_then(|c| c.get("toolCalls"))
            .and_then(Value::as_array);
        match (self.name.as_str(), context_calls) {
            (_, Some(calls)) => {
                for call in calls {
                    let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
                    let arguments = call.get("arguments").cloned().unwrap_or(json!({}));
                    session.call_tool(name, arguments).await;
                }
            }
            ("json-schema-ref-no-deref", None) => {}
            ("json-schema-2020-12-preservation", None) => {
                let shown = listing
                    .tools
                    .iter()
                    .find(|t| t["name"] == "json_schema_2020_12_tool")
                    .ok_or_else(|| missing("json_schema_2020_12_tool"))?;
                let schema = shown.get("inputSchema").cloned().unwrap_or(json!({}));
                session
                    .call_tool("json_schema_echo", json!({ "schema": schema }))
                    .await;
            }
            ("sep-2322-client-request-state", None) => session.request_state().await,
            (_, None) => session.everything(listing).await,
        }
        Ok(Report {
            name: self.name.clone(),
            calls: session.calls,
        })
    }
}

/// What the probe did for a scenario.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub name: String,
    /// Every request made after listing, in order.
    pub calls: Vec<Call>,
}

impl Report {
    /// The calls the server refused or that failed.
    pub fn failed(&self) -> impl Iterator<Item = &Call> {
        self.calls.iter().filter(|c| c.error.is_some())
    }
}

/// One request made for a scenario.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Call {
    /// `tools/call`, `resources/read` or `prompts/get`.
    pub method: String,
    /// The tool or prompt name, or the resource URI.
    pub name: String,
    /// `complete`, `input_required` (answered in the next call), `tool
    /// error` (a result with `isError`), or `failed`.
    pub outcome: String,
    /// The server's result, as it came (for `input_required`, the
    /// questions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// Why it failed: the server's error, or what became of the connection.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The calls of one scenario run.
struct Session<'a> {
    pool: &'a Pool,
    server: &'a str,
    calls: Vec<Call>,
}

impl Session<'_> {
    /// Calls every tool, reads every resource, gets every prompt.
    async fn everything(&mut self, listing: &ServerListing) {
        for tool in &listing.tools {
            let name = tool["name"].as_str().unwrap_or_default();
            let arguments = Value::Object(sample_object(&tool["inputSchema"], false));
            self.call_tool(name, arguments).await;
        }
        for resource in &listing.resources {
            let uri = resource["uri"].as_str().unwrap_or_default();
            self.rounds("resources/read", uri, json!({ "uri": uri }))
                .await;
        }
        for prompt in &listing.prompts {
            let name = prompt["name"].as_str().unwrap_or_default();
            let arguments: Map<String, Value> = prompt["arguments"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|a| a["required"] == true)
                .filter_map(|a| Some((a["name"].as_str()?.to_string(), json!("probe"))))
                .collect();
            self.rounds(
                "prompts/get",
                name,
                json!({ "name": name, "arguments": arguments }),
            )
            .await;
        }
    }

    /// The multi-round calls of `sep-2322-client-request-state`, as that
    /// scenario's server checks them: a question answered with its
    /// `requestState` echoed unchanged; another call in between that
    /// carries none of it; a question without state answered without
    /// any; and a result without `resultType` taken as complete.
    async fn request_state(&mut self) {
        let echo = tool_params("test_mrtr_echo_state", json!({}));
        let asked = self
            .once("tools/call", "test_mrtr_echo_state", echo.clone())
            .await;
        self.call_tool("test_mrtr_unrelated", json!({})).await;
        if let Some(asked) = asked {
            self.answer_and_retry("tools/call", "test_mrtr_echo_state", echo, asked)
                .await;
        }
        self.call_tool("test_mrtr_no_state", json!({})).await;
        self.call_tool("test_mrtr_no_result_type", json!({})).await;
    }

    async fn call_tool(&mut self, name: &str, arguments: Value) {
        self.rounds("tools/call", name, tool_params(name, arguments))
            .await;
    }

    /// Sends `method` and answers its questions until it completes; `None`
    /// when a step failed (recorded).
    async fn rounds(&mut self, method: &str, name: &str, params: Value) -> Option<Value> {
        let first = self.once(method, name, params.clone()).await?;
        self.answer_and_retry(method, name, params, first).await
    }

    /// Answers the questions of `result`, a reply to `params`, until the
    /// server completes.
    async fn answer_and_retry(
        &mut self,
        method: &str,
        name: &str,
        params: Value,
        mut result: Value,
    ) -> Option<Value> {
        for _ in 0..MAX_ROUNDS {
            match retry_params(params.clone(), &result) {
                Ok(Some(retry)) => result = self.once(method, name, retry).await?,
                Ok(None) => return Some(result),
                Err(error) => {
                    self.failed(method, name, error.message);
                    return None;
                }
            }
        }
        self.failed(
            method,
            name,
            format!("still asked for input after {MAX_ROUNDS} rounds; the probe gave up"),
        );
        None
    }

    /// One request, recorded; `None` when it failed.
    async fn once(&mut self, method: &str, name: &str, params: Value) -> Option<Value> {
        let call = self.pool.call(self.server, method, params);
        let result = match tokio::time::timeout(CALL_TIMEOUT, call).await {
            Ok(Ok(result)) => serde_json::to_value(result).unwrap_or_default(),
            Ok(Err(error)) => {
                // As a client would see it: the JSON-RPC code and message.
                let error = ErrorData::from(error);
                self.failed(
                    method,
                    name,
                    format!("error {}: {}", error.code.0, error.message),
                );
                return None;
            }
            Err(_) => {
                let why = format!("no answer within {}s", CALL_TIMEOUT.as_secs());
                self.failed(method, name, why);
                return None;
            }
        };
        let outcome = if result["resultType"] == "input_required" {
            "input_required"
        } else if result["isError"] == true {
            "tool error"
        } else {
            "complete"
        };
        self.calls.push(Call {
            method: method.to_string(),
            name: name.to_string(),
            outcome: outcome.to_string(),
            result: Some(result.clone()),
            error: None,
        });
        Some(result)
    }

    fn failed(&mut self, method: &str, name: &str, why: String) {
        self.calls.push(Call {
            method: method.to_string(),
            name: name.to_string(),
            outcome: "failed".to_string(),
            result: None,
            error: Some(why),
        });
    }
}

fn tool_params(name: &str, arguments: Value) -> Value {
    json!({ "name": name, "arguments": arguments })
}

fn missing(tool: &str) -> ApiError {
    ApiError::new(
        ErrorCode::Upstream,
        format!("the server does not list the tool {tool:?} this scenario calls"),
    )
}

/// The request that answers `result`'s questions (`params` plus
/// `inputResponses`, and `requestState` exactly as the server sent it),
/// or `None` when `result` is final.
fn retry_params(mut params: Value, result: &Value) -> Result<Option<Value>> {
    if result["resultType"] != "input_required" {
        return Ok(None);
    }
    let mut responses = Map::new();
    for (key, asked) in result["inputRequests"].as_object().into_iter().flatten() {
        let method = asked["method"].as_str().unwrap_or_default();
        let request: ServerRequest =
            typed_message(method, asked["params"].clone()).map_err(|e| {
                ApiError::new(
                    ErrorCode::Upstream,
                    format!(
                        "the server asked {method} in a form the probe does not understand ({e})"
                    ),
                )
            })?;
        let answer = answer(&request).map_err(|e| {
            ApiError::new(
                ErrorCode::Upstream,
                format!(
                    "the probe cannot answer the server's {method}: {}",
                    e.message
                ),
            )
        })?;
        responses.insert(
            key.clone(),
            serde_json::to_value(answer).unwrap_or_default(),
        );
    }
    params["inputResponses"] = Value::Object(responses);
    if let Some(state) = result.get("requestState").filter(|s| !s.is_null()) {
        params["requestState"] = state.clone();
    }
    Ok(Some(params))
}

/// The probe's answer to a server's question: a form is accepted with a
/// value for every field (its default where it has one), roots are none,
/// a ping is answered; a URL to visit is declined and sampling refused,
/// since nobody is there to do either.
pub(super) fn answer(request: &ServerRequest) -> Result<ClientResult, ErrorData> {
    match request {
        ServerRequest::ElicitRequest(request) => match &request.params {
            ElicitRequestParams::FormElicitationParams {
                requested_schema, ..
            } => {
                let schema = serde_json::to_value(requested_schema).unwrap_or_default();
                let content = Value::Object(sample_object(&schema, true));
                Ok(ClientResult::ElicitResult(
                    ElicitResult::new(ElicitationAction::Accept).with_content(content),
                ))
            }
            _ => Ok(ClientResult::ElicitResult(ElicitResult::new(
                ElicitationAction::Decline,
            ))),
        },
        ServerRequest::ListRootsRequest(_) => Ok(ClientResult::ListRootsResult(
            ListRootsResult::new(Vec::new()),
        )),
        ServerRequest::PingRequest(_) => Ok(ClientResult::empty(())),
        _ => Err(ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            "mcp-sieve servers probe has no model to sample with and answers only forms, roots and pings",
            None,
        )),
    }
}

/// Values for the properties of an object schema: the required ones and
/// those with a default, or with `every` all of them (a form filled in).
/// Numbers count up from 1, so that two arguments differ.
fn sample_object(schema: &Value, every: bool) -> Map<String, Value> {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut next = 0;
    schema["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(name, property)| {
            every || required.contains(&name.as_str()) || property.get("default").is_some()
        })
        .map(|(name, property)| (name.clone(), sample(property, &mut next)))
        .collect()
}

/// A value that fits `schema`: its default, constant or first allowed
/// value, else a plain value of its type.
fn sample(schema: &Value, next: &mut i64) -> Value {
    if let Some(value) = schema.get("default").or_else(|| schema.get("const")) {
        return value.clone();
    }
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(choice) = schema[key]
            .as_array()
            .and_then(|c| c.iter().find(|s| s["type"] != "null"))
        {
            return sample(choice, next);
        }
    }
    let kind = match &schema["type"] {
        Value::String(kind) => kind.as_str(),
        Value::Array(kinds) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null")
            .unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "string",
    };
    match kind {
        "integer" | "number" => {
            *next += 1;
            json!(*next)
        }
        "boolean" => json!(true),
        "null" => Value::Null,
        "array" => {
            let count = schema["minItems"].as_u64().unwrap_or(0).min(3);
            (0..count).map(|_| sample(&schema["items"], next)).collect()
        }
        "object" => Value::Object(sample_object(schema, false)),
        _ => json!(match schema["format"].as_str() {
            Some("email") => "probe@example.com",
            Some("uri" | "url") => "https://example.com/",
            Some("date") => "2025-01-01",
            Some("date-time") => "2025-01-01T00:00:00Z",
            _ => "probe",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_fit_the_schema_and_differ() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "number"},
                "b": {"type": "number"},
                "note": {"type": "string"},
                "mode": {"type": "string", "enum": ["fast", "slow"]},
                "when": {"type": ["string", "null"], "format": "date"},
            },
            "required": ["a", "b", "mode", "when"]
        });
        assert_eq!(
            Value::Object(sample_object(&schema, false)),
            json!({"a": 1, "b": 2, "mode": "fast", "when": "2025-01-01"}),
            "required fields only, numbers counting up, enums and formats kept"
        );
    }

    #[test]
    fn a_form_is_accepted_with_its_defaults() {
        let request: ServerRequest = typed_message(
            "elicitation/create",
            json!({
                "mode": "form",
                "message": "accept with defaults",
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "default": "John Doe"},
                        "age": {"type": "integer", "default": 30},
                        "verified": {"type": "boolean"},
                    }
                }
            }),
        )
        .expect("a form request parses");
        let answer = serde_json::to_value(answer(&request).expect("a form is answered")).unwrap();
        assert_eq!(
            answer,
            json!({"action": "accept", "content": {"name": "John Doe", "age": 30, "verified": true}}),
            "every field filled, defaults where given"
        );
    }

    #[test]
    fn answers_carry_the_state_back_unchanged() {
        let asked = json!({
            "resultType": "input_required",
            "inputRequests": {"confirm": {"method": "elicitation/create", "params": {
                "mode": "form", "message": "sure?",
                "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}
            }}},
            "requestState": "{\"nonce\": 1}"
        });
        let retry = retry_params(tool_params("t", json!({})), &asked)
            .unwrap()
            .expect("an input_required result is answered");
        assert_eq!(
            retry["requestState"], "{\"nonce\": 1}",
            "the state is echoed exactly"
        );
        assert_eq!(
            retry["inputResponses"]["confirm"]["content"],
            json!({"ok": true})
        );
        let final_result = json!({"content": [], "resultType": "complete"});
        assert!(retry_params(json!({}), &final_result).unwrap().is_none());
        let no_state = json!({"resultType": "input_required", "inputRequests": {}});
        let retry = retry_params(json!({}), &no_state).unwrap().unwrap();
        assert!(
            retry.get("requestState").is_none(),
            "no state is invented: {retry}"
        );
    }
}
