//! `tools/list`, `prompts/list`, `resources/list` and
//! `resources/templates/list`: one handler, for each kind what the profile
//! and the request's narrowing show, in the host's typed form.

use super::SieveServer;
use crate::engine::HostForm;
use rmcp::model::{
    CacheScope, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, Prompt, Resource, ResourceTemplate, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use sieve_core::Kind;

/// A kind of primitive hosts list, and the result its list method answers.
pub(super) trait Listed: Clone + serde::de::DeserializeOwned {
    const KIND: Kind;
    type Result;
    /// This kind's typed value among the published forms.
    fn pick(form: &HostForm) -> Option<&Self>;
    /// The list result for `items`.
    fn result(items: Vec<Self>) -> Self::Result;
}

macro_rules! listed {
    ($item:ty, $kind:ident, $form:ident, $result:ty) => {
        impl Listed for $item {
            const KIND: Kind = Kind::$kind;
            type Result = $result;

            fn pick(form: &HostForm) -> Option<&Self> {
                match form {
                    HostForm::$form(item) => Some(item),
                    _ => None,
                }
            }

            fn result(items: Vec<Self>) -> $result {
                // What a profile shows is this user's: never cache it for others.
                <$result>::with_all_items(items).with_cache_scope(CacheScope::Private)
            }
        }
    };
}

listed!(Tool, Tool, Tool, ListToolsResult);
listed!(Prompt, Prompt, Prompt, ListPromptsResult);
listed!(Resource, Resource, Resource, ListResourcesResult);
listed!(
    ResourceTemplate,
    ResourceTemplate,
    Template,
    ListResourceTemplatesResult
);

impl SieveServer {
    /// Every visible primitive of kind `T`, once the servers starting have
    /// answered or `settings.startupWaitMs` has passed.
    pub(super) async fn list<T: Listed>(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<T::Result, ErrorData> {
        self.started().await;
        let view = self.view(context, true)?;
        let rules = &view.profile.rules;
        let mut items: Vec<T> = view
            .catalog
            .primitives()
            .iter()
            .zip(&view.forms.items)
            .filter(|(p, _)| p.kind == T::KIND && rules.listed(p, Some(&view.narrowing)))
            .filter_map(|(_, form)| form.as_ref().and_then(T::pick).cloned())
            .collect();
        self.listed(T::KIND, &view.catalog);
        if T::KIND == Kind::Tool && rules.search_mode() {
            // Search mode: the pinned tools, then the proxy's two.
            let separator = &view.config.settings.separator;
            items.extend(
                sieve_core::search::search_tools(separator)
                    .into_iter()
                    .filter_map(|tool| serde_json::from_value(tool).ok()),
            );
        }
        Ok(T::result(items))
    }
}
