//! Writes every query set's rankings, and the tools of each catalog as
//! the search index reads them, as one JSON document, for
//! `scripts/sentence-search-eval.py` to score other rankings and blends
//! against the same tools in the same order (each tool's `sentence` is
//! what the sentence model reads of it):
//!
//! ```text
//! cargo run -p sieve-core --example search_rankings -- /tmp/rankings.json
//! ```

#[path = "../tests/search_sets/mod.rs"]
mod search_sets;

use search_sets::{SCORED_SETS, catalog, queries};
use sieve_core::search::ToolIndex;
use sieve_core::{Catalog, Kind};
use std::collections::BTreeMap;

fn main() {
    let Some(out) = std::env::args().nth(1) else {
        eprintln!("search_rankings: name the JSON file to write, e.g. /tmp/rankings.json");
        std::process::exit(2);
    };
    let _lexicon = sieve_core::lexicon::Lexicon::shared();
    let mut catalogs: BTreeMap<String, Catalog> = BTreeMap::new();
    let mut sets = serde_json::Map::new();
    for set in SCORED_SETS.iter().copied().chain(["live-qa"]) {
        let mut rows = Vec::new();
        for (name, query, meant) in queries(set) {
            let catalog = catalogs
                .entry(name.clone())
                .or_insert_with(|| catalog(&name));
            let all: Vec<_> = catalog.of_kind(Kind::Tool).collect();
            let index = ToolIndex::build(all.iter().copied().enumerate());
            let ranked: Vec<_> = index
                .scored(&query, all.len())
                .into_iter()
                .map(|(i, score)| serde_json::json!([i, score]))
                .collect();
            rows.push(serde_json::json!({
                "catalog": name, "query": query, "meant": meant, "ranked": ranked
            }));
        }
        sets.insert(set.to_string(), rows.into());
    }
    let tools: serde_json::Map<String, serde_json::Value> = catalogs
        .iter()
        .map(|(name, catalog)| {
            let all: Vec<_> = catalog.of_kind(Kind::Tool).collect();
            let index = ToolIndex::build(all.iter().copied().enumerate());
            let sentences = index.sentences();
            let tools: Vec<_> = all
                .iter()
                .zip(sentences)
                .map(|(tool, sentence)| {
                    let definition = tool.host_definition();
                    let parameters: Vec<&String> = definition
                        .pointer("/inputSchema/properties")
                        .and_then(|p| p.as_object())
                        .map(|p| p.keys().collect())
                        .unwrap_or_default();
                    serde_json::json!({
                        "name": tool.name,
                        "title": definition.get("title"),
                        "description": definition.get("description"),
                        "parameters": parameters,
                        "sentence": sentence,
                    })
                })
                .collect();
            (name.clone(), tools.into())
        })
        .collect();
    let document = serde_json::json!({"catalogs": tools, "sets": sets});
    std::fs::write(&out, document.to_string()).unwrap_or_else(|e| panic!("{out}: {e}"));
}
