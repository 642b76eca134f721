//! Token estimates: what a tool list costs the model, before and after the
//! filter, per server.
//!
//! Each tool is counted as the model sees it: the host definition without
//! `_meta` (name, title, description, schemas, annotations), by the
//! [`tokenizer`](crate::tokenizer), once per primitive
//! ([`Primitive::tokens`]). This module adds the counts up.

use crate::catalog::{Kind, Primitive};
use crate::rules::{Narrowing, Rules};
use serde::Serialize;
use std::collections::BTreeMap;

// Callers count definitions that are no primitive (the proxy's own search
// tools) by this name.
pub use crate::tokenizer::definition_tokens;

/// Tokens of one tool as the model receives it ([`Primitive::tokens`]).
pub fn tool_tokens(tool: &Primitive) -> usize {
    tool.tokens()
}

/// Tokens and counts for one server, or for all.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenCount {
    /// Tools the server lists.
    pub tools_before: usize,
    /// Tools the host sees.
    pub tools_after: usize,
    /// Tokens of all tools.
    pub before: usize,
    /// Tokens of the visible tools.
    pub after: usize,
}

impl TokenCount {
    pub fn add(&mut self, tokens: usize, visible: bool) {
        self.tools_before += 1;
        self.before += tokens;
        if visible {
            self.tools_after += 1;
            self.after += tokens;
        }
    }
}

/// The estimate for a whole catalog.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TokenReport {
    #[serde(flatten)]
    pub total: TokenCount,
    /// Per server, by name.
    pub servers: BTreeMap<String, TokenCount>,
}

/// Counts the tools of `primitives`, visible or not under `rules`.
pub fn estimate<'a>(
    primitives: impl IntoIterator<Item = &'a Primitive>,
    rules: &Rules,
    narrowing: Option<&Narrowing>,
) -> TokenReport {
    let mut report = TokenReport::default();
    for tool in primitives.into_iter().filter(|p| p.kind == Kind::Tool) {
        let tokens = tool.tokens();
        let visible = rules.is_visible(tool, narrowing);
        report.total.add(tokens, visible);
        report
            .servers
            .entry(tool.server.clone())
            .or_default()
            .add(tokens, visible);
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Catalog, ServerListing};
    use crate::config::Overlays;
    use crate::profile::Profile;
    use serde_json::json;

    #[test]
    fn counts_before_and_after_per_server() {
        let catalog = Catalog::build(
            "__",
            &Overlays::default(),
            &[
                ServerListing::tools(
                    "a",
                    vec![
                        json!({"name": "one", "description": "first tool", "inputSchema": {"type": "object"}}),
                        json!({"name": "two", "description": "second tool with a much longer description of what it does", "inputSchema": {"type": "object"}}),
                    ],
                ),
                ServerListing::tools(
                    "b",
                    vec![json!({"name": "three", "inputSchema": {"type": "object"}})],
                ),
            ],
        );
        let profile = Profile::parse("p", r#"{"tools": {"deny": ["a__two"]}}"#).unwrap();
        let report = estimate(catalog.primitives(), &Rules::new(&profile).unwrap(), None);
        let a = &report.servers["a"];
        assert_eq!((a.tools_before, a.tools_after), (2, 1));
        assert!(a.after < a.before && a.after > 0, "{a:?}");
        assert_eq!(report.total.before, a.before + report.servers["b"].before);
        assert_eq!(report.total.tools_after, 2);
        let one = catalog.find(Kind::Tool, "a__one").unwrap();
        assert_eq!(a.after, tool_tokens(one));
        // The exact figure for a fixed text pins the tokenizer.
        assert_eq!(tool_tokens(one), 19, "{}", one.model_definition());
    }
}
