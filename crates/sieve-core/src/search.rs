//! Progressive disclosure (DESIGN §9): the proxy's own search tools and the
//! index they search.
//!
//! A profile in search mode lists only its pinned tools plus
//! `sieve__find_tools` and `sieve__call_tool`. The search ranks the tools
//! the profile allows by BM25 over their name (split into words, counted
//! twice: a name says most), title, description and labels. The index is
//! the `bm25` crate's: English stemming and stop words, sparse vectors, no
//! model to download; at a few hundred or thousand tools it is built in
//! milliseconds, so an index per profile view is cheap.

use crate::catalog::Primitive;
use bm25::{Document, Language, SearchEngine, SearchEngineBuilder};
use serde_json::{Value, json};

/// The server part of the search tools' exposed names.
pub const SEARCH_SERVER: &str = "sieve";
/// The search tool's own name (`sieve__find_tools` with the default
/// separator).
pub const FIND_TOOLS: &str = "find_tools";
/// The call-through tool's own name.
pub const CALL_TOOL: &str = "call_tool";
/// How many tools a search returns unless asked otherwise, and at most.
pub const DEFAULT_LIMIT: usize = 5;
pub const MAX_LIMIT: usize = 50;

/// The exposed name of the search tool `name` under `separator`.
pub fn search_tool_name(name: &str, separator: &str) -> String {
    format!("{SEARCH_SERVER}{separator}{name}")
}

/// The two search tools as a host receives them.
pub fn search_tools(separator: &str) -> Vec<Value> {
    let find = search_tool_name(FIND_TOOLS, separator);
    let call = search_tool_name(CALL_TOOL, separator);
    vec![
        json!({
            "name": find,
            "title": "Find tools",
            "description": format!(
                "Search, in plain words, the tools you may use that are not listed. \
                 Returns the best matches, each with its full definition; call one \
                 with {call}."
            ),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What the tool should do, e.g. \"open a pull request\""},
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "description": format!("How many tools at most (default {DEFAULT_LIMIT})")}
                },
                "required": ["query"]
            },
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        }),
        json!({
            "name": call,
            "title": "Call a found tool",
            "description": format!(
                "Call a tool that {find} returned, by its name, with its arguments."
            ),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": format!("The tool's name as {find} gave it")},
                    "arguments": {"type": "object", "description": "The tool's arguments, as its inputSchema says"}
                },
                "required": ["name"]
            }
        }),
    ]
}

/// A found tool as the model reads it in `find_tools`' answer: its
/// definition as the host would list it, without MCP Sieve's own labels
/// (`_meta["dev.mcp-sieve/..."]`; a `_meta` left empty goes too).
pub fn found_definition(mut tool: Value) -> Value {
    if let Some(object) = tool.as_object_mut() {
        let emptied = object
            .get_mut("_meta")
            .and_then(Value::as_object_mut)
            .map(|meta| {
                meta.retain(|key, _| !key.starts_with(crate::labels::META_PREFIX));
                meta.is_empty()
            });
        if emptied == Some(true) {
            object.remove("_meta");
        }
    }
    tool
}

/// What `find_tools` says when `query` matches no tool the profile
/// allows: so, and the groups of the tools it does allow, whose words
/// find them.
pub fn nothing_found(query: &str, groups: &std::collections::BTreeSet<String>) -> String {
    if groups.is_empty() {
        return format!(
            "No tool matches {query:?}; this profile allows no tools beyond those listed."
        );
    }
    let named: Vec<&str> = groups.iter().map(String::as_str).collect();
    format!(
        "No tool matches {query:?}; the tools this profile allows are in these groups: {}. Search again with the words of what you want to do in one of them.",
        named.join(", ")
    )
}

/// The words a tool is found by.
pub fn words_of(p: &Primitive) -> String {
    let text = |key: &str| {
        p.host_definition()
            .get(key)
            .and_then(Value::as_str)
            .map(String::from)
            .unwrap_or_default()
    };
    let name = split_identifier(&p.name);
    let labels: Vec<String> = p
        .labels
        .groups
        .iter()
        .chain(&p.labels.tags)
        .map(|label| split_identifier(label))
        .collect();
    format!(
        "{name} {name} {} {} {}",
        text("title"),
        text("description"),
        labels.join(" ")
    )
}

/// `create_pull_request`, `createPullRequest`, `pull-request.v2` → words.
fn split_identifier(identifier: &str) -> String {
    let mut words = String::with_capacity(identifier.len() + 8);
    let mut previous: Option<char> = None;
    for c in identifier.chars() {
        if !c.is_alphanumeric() {
            words.push(' ');
        } else {
            if c.is_uppercase() && previous.is_some_and(|p| p.is_lowercase()) {
                words.push(' ');
            }
            words.extend(c.to_lowercase());
        }
        previous = Some(c);
    }
    words
}

/// A BM25 index over some tools, each known by a key of the caller's.
pub struct ToolIndex {
    engine: SearchEngine<usize>,
}

impl ToolIndex {
    /// Indexes `tools`, each with its key.
    pub fn build<'a>(tools: impl IntoIterator<Item = (usize, &'a Primitive)>) -> ToolIndex {
        let documents: Vec<Document<usize>> = tools
            .into_iter()
            .map(|(key, tool)| Document::new(key, words_of(tool)))
            .collect();
        let engine =
            SearchEngineBuilder::<usize>::with_documents(Language::English, documents).build();
        ToolIndex { engine }
    }

    /// The keys of the best `limit` matches of `query`, best first; ties
    /// in key order, so the same query gives the same answer.
    pub fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        let mut results = self.engine.search(query, None);
        results.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then(a.document.id.cmp(&b.document.id))
        });
        results
            .into_iter()
            .take(limit)
            .map(|result| result.document.id)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Catalog, Kind, ServerListing};
    use crate::config::Overlays;

    #[test]
    fn the_search_tools_say_each_other_s_names_in_full() {
        let tools = search_tools("__");
        let text = serde_json::to_string(&tools).unwrap();
        assert!(
            !text.contains("{find}") && !text.contains("{call}"),
            "{text}"
        );
        assert_eq!(
            tools[1]["inputSchema"]["properties"]["name"]["description"],
            "The tool's name as sieve__find_tools gave it"
        );
    }

    #[test]
    fn a_found_tool_keeps_its_definition_without_sieve_s_labels() {
        let tool = json!({
            "name": "gh__get_issue",
            "description": "Gets an issue",
            "inputSchema": {"type": "object"},
            "_meta": {"dev.mcp-sieve/groups": ["gh/issues"], "vendor/x": 1}
        });
        let found = found_definition(tool);
        assert_eq!(found["_meta"], json!({"vendor/x": 1}));
        assert_eq!(found["inputSchema"], json!({"type": "object"}));
        let only_ours = json!({"name": "a", "_meta": {"dev.mcp-sieve/server": "gh"}});
        assert_eq!(found_definition(only_ours), json!({"name": "a"}));
    }

    #[test]
    fn nothing_found_names_the_groups_there_are() {
        let groups = ["gh/issues".to_string(), "gh/pull-requests".to_string()].into();
        let said = nothing_found("bake a cake", &groups);
        assert!(
            said.starts_with("No tool matches \"bake a cake\""),
            "{said}"
        );
        assert!(said.contains("gh/issues, gh/pull-requests"), "{said}");
    }

    #[test]
    fn identifiers_become_words() {
        assert_eq!(
            split_identifier("create_pull_request"),
            "create pull request"
        );
        assert_eq!(split_identifier("createPullRequest"), "create pull request");
        assert_eq!(split_identifier("get-file.v2"), "get file v2");
    }

    #[test]
    fn finds_by_plain_words_and_ranks_the_name_first() {
        let tools = vec![
            json!({"name": "create_pull_request", "description": "Open a new pull request in a repository.", "inputSchema": {"type": "object"}}),
            json!({"name": "add_issue_comment", "description": "Add a comment to an issue.", "inputSchema": {"type": "object"}}),
            json!({"name": "list_commits", "description": "List commits of a branch; each has a comment count.", "inputSchema": {"type": "object"}}),
        ];
        let catalog = Catalog::build(
            "__",
            &Overlays::default(),
            &[ServerListing::tools("gh", tools)],
        );
        let all: Vec<_> = catalog.of_kind(Kind::Tool).enumerate().collect();
        let index = ToolIndex::build(all.iter().map(|(i, p)| (*i, *p)));
        let name = |query: &str| {
            index
                .search(query, 1)
                .first()
                .map(|i| all[*i].1.name.clone())
                .unwrap_or_default()
        };
        assert_eq!(name("open a pull request"), "create_pull_request");
        assert_eq!(name("comment on an issue"), "add_issue_comment");
        assert_eq!(name("commits"), "list_commits");
        assert!(index.search("kubernetes", 5).is_empty());
    }

    #[test]
    fn the_search_tools_are_valid_tools() {
        for tool in search_tools("__") {
            let name = tool["name"].as_str().unwrap();
            assert!(name.starts_with("sieve__"));
            assert!(crate::naming::MAX_NAME_LEN >= name.len());
            assert_eq!(tool["inputSchema"]["type"], "object");
        }
    }
}
