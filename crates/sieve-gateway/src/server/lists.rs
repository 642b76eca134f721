//! `tools/list`, `prompts/list`, `resources/list` and
//! `resources/templates/list`: one handler, for each kind what the profile
//! and the request's narrowing show, each item as the host sees it (every
//! field the server sent, Sieve's labels under `_meta`).
//!
//! rmcp's typed results would drop the fields its model does not name, so
//! the wire adapters ([`crate::tap::rename_request`]) hand these requests
//! to [`SieveServer::list_result`] under [`LIST_PREFIX`], whose answer
//! goes out as built. rmcp's own list handlers (for a request that did
//! not pass an adapter) answer from the same items, typed.

use super::SieveServer;
use crate::link::HostRequest;
use crate::tap::{LIST_PREFIX, list_method};
use rmcp::ErrorData;
use rmcp::model::{CustomResult, ResultType};
use serde_json::{Map, Value, json};
use sieve_core::Kind;

impl SieveServer {
    /// Every visible primitive of `kind` as the host sees it, once the
    /// servers starting have answered or `settings.startupWaitMs` has
    /// passed.
    async fn list_items(&self, kind: Kind, context: &HostRequest) -> Result<Vec<Value>, ErrorData> {
        self.started().await;
        let view = self.view(context, true)?;
        let rules = &view.profile.rules;
        let mut items: Vec<Value> = view
            .catalog
            .primitives()
            .iter()
            .zip(&view.forms.items)
            .filter(|(p, _)| p.kind == kind && rules.listed(p, Some(&view.narrowing)))
            .filter_map(|(_, form)| form.clone())
            .collect();
        self.listed(kind, &view.catalog);
        if kind == Kind::Tool && rules.search_mode() {
            // Search mode: the pinned tools, then the proxy's two.
            let separator = &view.config.settings.separator;
            items.extend(sieve_core::search::search_tools(separator));
        }
        Ok(items)
    }

    /// The answer to list method `method` (as the host named it, without
    /// [`LIST_PREFIX`]), in the shape the host's protocol revision wants:
    /// what a profile shows is this user's, never cached for others; a
    /// 2026-07-28 host also gets `resultType` and `ttlMs` (a list may
    /// change at any moment: it is stale at once).
    pub(super) async fn list_result(
        &self,
        method: &str,
        context: &HostRequest,
    ) -> Result<CustomResult, ErrorData> {
        let Some((kind, key)) = list_method(method) else {
            return Err(super::methods::not_supported(&format!(
                "{LIST_PREFIX}{method}"
            )));
        };
        let items = self.list_items(kind, context).await?;
        let mut result = Map::new();
        result.insert(key.into(), Value::Array(items));
        result.insert("cacheScope".into(), json!("private"));
        let modern = context
            .protocol_version()
            .is_some_and(|v| !v.has_initialize());
        if modern {
            result.insert("resultType".into(), json!(ResultType::COMPLETE));
            result.insert("ttlMs".into(), json!(0));
        }
        Ok(CustomResult(Value::Object(result)))
    }

    /// rmcp's typed result of list method `method`, from the same items.
    pub(super) async fn list<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        context: &HostRequest,
    ) -> Result<T, ErrorData> {
        let CustomResult(mut result) = self.list_result(method, context).await?;
        result["resultType"] = json!(ResultType::COMPLETE);
        serde_json::from_value(result)
            .map_err(|e| ErrorData::internal_error(format!("{method}: {e}"), None))
    }
}
