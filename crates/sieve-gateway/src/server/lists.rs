//! `tools/list`, `prompts/list`, `resources/list` and
//! `resources/templates/list`: one handler, for each kind what the profile
//! and the request's narrowing show, each item as the host sees it (every
//! field the server sent, Sieve's labels under `_meta`).
//!
//! The answer goes out as built ([`SieveServer::list_result`]), never
//! through rmcp's typed lists, which would drop the fields its model does
//! not name.

use super::SieveServer;
use crate::link::HostRequest;
use crate::tap::list_method;
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

    /// The answer to list method `method`, in the shape the host's protocol revision wants:
    /// what a profile shows is this user's, never cached for others; a
    /// 2026-07-28 host also gets `resultType` and `ttlMs` (a list may
    /// change at any moment: it is stale at once).
    pub(super) async fn list_result(
        &self,
        method: &str,
        context: &HostRequest,
    ) -> Result<CustomResult, ErrorData> {
        let Some((kind, key)) = list_method(method) else {
            return Err(super::methods::not_supported(method));
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
}
