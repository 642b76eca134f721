//! `tools/list`, `prompts/list`, `resources/list` and
//! `resources/templates/list`: one handler, for each kind what the profile
//! and the request's narrowing show, each item as the host sees it (every
//! field the server sent, Sieve's labels under `_meta`).
//!
//! The answer goes out as built ([`SieveServer::list_result`]), never
//! through rmcp's typed lists, which would drop the fields its model does
//! not name; its items are encoded once per view (`engine::lists`).

use super::SieveServer;
use crate::engine::ListView;
use crate::link::HostRequest;
use crate::tap::list_method;
use rmcp::ErrorData;
use rmcp::model::ResultType;
use serde_json::{Value, json};
use sieve_core::Kind;
use std::sync::Arc;

impl SieveServer {
    /// Every visible primitive of `kind` as the host sees it, as the JSON
    /// array written on the wire, once the servers starting have answered
    /// or `settings.startupWaitMs` has passed. Encoded once per view: the
    /// hosts of one profile get the same bytes until something changes.
    async fn list_items(&self, kind: Kind, context: &HostRequest) -> Result<Arc<str>, ErrorData> {
        self.started().await;
        let view = self.view(context, true)?;
        self.listed(kind, &view.catalog);
        if kind == Kind::Tool && view.profile.rules.search_mode() {
            // The sentence model starts reading the tools a search will
            // rank before the host's first search.
            self.profile_search(&view);
        }
        let list = ListView {
            config: view.config,
            catalog: view.catalog,
            forms: view.forms,
            profile: view.profile,
            narrowing: view.narrowing,
            kind,
        };
        Ok(self.engine.encoded_list(&list, || encode_items(&list)))
    }

    /// The answer to list method `method`, as the JSON text of its result,
    /// in the shape the host's protocol revision wants: what a profile
    /// shows is this user's, never cached for others; a 2026-07-28 host
    /// also gets `resultType` and `ttlMs` (a list may change at any
    /// moment: it is stale at once). The items, encoded once per view,
    /// stay one piece: the front copies them once, into the response.
    pub(super) async fn list_result(
        &self,
        method: &str,
        context: &HostRequest,
    ) -> Result<Pieces, ErrorData> {
        let Some((kind, key)) = list_method(method) else {
            return Err(super::methods::not_supported(method));
        };
        let items = self.list_items(kind, context).await?;
        let modern = context
            .protocol_version()
            .is_some_and(|v| !v.has_initialize());
        let head = format!("{{{}:", json!(key));
        let mut tail = String::from(r#","cacheScope":"private""#);
        if modern {
            tail.push_str(&format!(
                r#","resultType":{},"ttlMs":0"#,
                json!(ResultType::COMPLETE)
            ));
        }
        tail.push('}');
        Ok(Pieces {
            head,
            body: items,
            tail,
        })
    }
}

/// The JSON text of a result in three pieces, the large one shared.
#[derive(Debug)]
pub struct Pieces {
    pub head: String,
    pub body: Arc<str>,
    pub tail: String,
}

/// The items `list` shows, in catalog order, as a JSON array; in search
/// mode, the pinned tools, then the proxy's two.
fn encode_items(list: &ListView) -> String {
    let rules = &list.profile.rules;
    let mut items: Vec<&Value> = list
        .catalog
        .primitives()
        .iter()
        .zip(&list.forms.items)
        .filter(|(p, _)| p.kind == list.kind && rules.listed(p, Some(&list.narrowing)))
        .filter_map(|(_, form)| form.as_ref())
        .collect();
    let search = if list.kind == Kind::Tool && rules.search_mode() {
        sieve_core::search::search_tools(&list.config.settings.separator)
    } else {
        Vec::new()
    };
    items.extend(&search);
    serde_json::to_string(&items).unwrap_or_else(|_| "[]".into())
}
