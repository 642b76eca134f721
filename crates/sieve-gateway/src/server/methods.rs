//! Requests rmcp does not model, dispatched by method: the proxy's added
//! methods (`groups/list`, `tags/list`, `concerns/list`,
//! `concerns/update`), task requests (see `task_requests`), and anything
//! else refused as not supported.

use super::SieveServer;
use super::notifications::notify_peer;
use crate::link::HostRequest;
use rmcp::ErrorData;
use rmcp::model::{CustomRequest, CustomResult, ErrorCode};
use serde_json::{Value, json};
use sieve_core::Kind;
use sieve_core::labels::{TAG_DESTRUCTIVE, TAG_IDEMPOTENT, TAG_OPEN_WORLD, TAG_READ_ONLY};
use std::collections::BTreeMap;

/// The error for a method the proxy does not serve.
pub(super) fn not_supported(method: &str) -> ErrorData {
    ErrorData::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!("method {method:?} is not supported by the proxy"),
        None,
    )
}

/// Methods of the protocol that rmcp reads into its own types: one that
/// reaches us as a custom request had params that did not fit.
const MODELLED: &[&str] = &[
    "initialize",
    "ping",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "tools/call",
    "tools/list",
    "tasks/get",
    "tasks/cancel",
    "server/discover",
    "subscriptions/listen",
];

/// The error for a request no handler took: wrong params of a method the
/// protocol has (`-32602`, saying what did not fit), else an unknown
/// method (`-32601`).
fn unfit_or_unknown(method: &str, params: Value) -> ErrorData {
    if !MODELLED.contains(&method) {
        return not_supported(method);
    }
    use rmcp::model::{CallToolRequestParams, GetPromptRequestParams, ReadResourceRequestParams};
    let unfit = match method {
        "tools/call" => serde_json::from_value::<CallToolRequestParams>(params).err(),
        "prompts/get" => serde_json::from_value::<GetPromptRequestParams>(params).err(),
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            serde_json::from_value::<ReadResourceRequestParams>(params).err()
        }
        _ => None,
    };
    let why = unfit.map_or_else(
        || "they do not fit the protocol's schema".to_string(),
        |error| error.to_string(),
    );
    ErrorData::invalid_params(format!("invalid params for {method}: {why}"), None)
}

fn tag_description(tag: &str) -> Option<&'static str> {
    match tag {
        TAG_READ_ONLY => Some("Does not change anything (readOnlyHint)"),
        TAG_DESTRUCTIVE => Some("May destroy or overwrite data (destructiveHint, or no hint)"),
        TAG_IDEMPOTENT => Some("Repeating a call has no further effect (idempotentHint)"),
        TAG_OPEN_WORLD => Some("Reaches outside systems (openWorldHint, or no hint)"),
        _ => None,
    }
}

impl SieveServer {
    pub(super) async fn handle_custom_request(
        &self,
        request: CustomRequest,
        context: HostRequest,
    ) -> Result<CustomResult, ErrorData> {
        let params = request.params.clone().unwrap_or(Value::Null);
        match request.method.as_str() {
            "groups/list" => self.labels(true, &context).await,
            "tags/list" => self.labels(false, &context).await,
            "tasks/list" => self.tasks_list(&params, &context).await,
            "tasks/retry" => self.tasks_retry(&params, &context).await,
            "concerns/list" => Ok(CustomResult(
                json!({"concerns": self.engine.config().concerns_in_force()}),
            )),
            "concerns/update" => self.update_concerns(&params, &context).await,
            other => Err(unfit_or_unknown(other, params)),
        }
    }

    /// `groups/list` (`groups`) or `tags/list`: the labels of the tools
    /// this request sees, with how many of them carry each.
    async fn labels(&self, groups: bool, context: &HostRequest) -> Result<CustomResult, ErrorData> {
        self.started().await;
        let view = self.view(context, false)?;
        // Per label: how many visible tools have it, and whether every one
        // of them has it as a derived group (DESIGN §3).
        let mut counts: BTreeMap<&str, (usize, bool)> = BTreeMap::new();
        for p in view.catalog.of_kind(Kind::Tool) {
            if view.profile.rules.is_visible(p, Some(&view.narrowing)) {
                let labels = if groups {
                    &p.labels.groups
                } else {
                    &p.labels.tags
                };
                for label in labels {
                    let entry = counts.entry(label.as_str()).or_insert((0, true));
                    entry.0 += 1;
                    entry.1 &= groups && p.labels.derived.contains(label);
                }
            }
        }
        let items: Vec<Value> = counts
            .into_iter()
            .map(|(name, (count, derived))| {
                let mut item = json!({"name": name, "count": count});
                // A server's own group (`github/issues`) says whose it is.
                if let Some((server, _)) = groups
                    .then(|| sieve_core::labels::split_group(name))
                    .flatten()
                {
                    item["server"] = json!(server);
                }
                if derived {
                    item["derived"] = Value::Bool(true);
                }
                let description = if groups {
                    name.strip_prefix(sieve_core::labels::SERVER_GROUP_PREFIX)
                        .map(|server| format!("Everything server {server:?} offers"))
                } else {
                    tag_description(name).map(String::from)
                };
                if let Some(description) = description {
                    item["description"] = Value::String(description);
                }
                item
            })
            .collect();
        let key = if groups { "groups" } else { "tags" };
        Ok(CustomResult(json!({ key: items })))
    }

    /// `concerns/update`: narrows this connection's view at once, and tells
    /// the host which lists changed.
    async fn update_concerns(
        &self,
        params: &Value,
        context: &HostRequest,
    ) -> Result<CustomResult, ErrorData> {
        let sessionless = self.conn.fixed_profile.is_none()
            && context
                .protocol_version()
                .is_some_and(|v| !v.has_initialize());
        if sessionless {
            // A 2026-07-28 HTTP request stands alone: there is no
            // connection whose view could be narrowed.
            return Err(ErrorData::invalid_request(
                format!(
                    "concerns/update needs a connection, and 2026-07-28 over HTTP has none; \
                     send the concerns with each request in _meta[\"{}\"]",
                    sieve_core::rules::META_CONCERNS
                ),
                None,
            ));
        }
        let concerns = params.get("concerns").cloned().unwrap_or(Value::Null);
        if concerns.is_null() {
            return Err(ErrorData::invalid_params(
                "params.concerns is required: an object of concern name to value",
                None,
            ));
        }
        self.set_concerns(&concerns, "params.concerns")?;
        let peer = context.link.clone();
        self.announce(|kind| {
            let peer = peer.clone();
            async move { notify_peer(&peer, kind).await }
        })
        .await;
        Ok(CustomResult(json!({})))
    }
}
