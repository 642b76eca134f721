//! Scores every query set with the blend `sieve__find_tools` ranks by
//! ([`ToolIndex::blended`]), taking each query's likeness to each tool
//! from a file rather than from the built-in model: how another sentence
//! model would do in the same blend, on the same tools and queries.
//!
//! ```text
//! cargo run -p sieve-core --example search_rankings -- /tmp/rankings.json
//! # a script reads each tool's `sentence` and each query and writes
//! # {"SET": [[likeness of each tool, in the catalog's order], ...]}
//! cargo run -p sieve-core --example search_blend -- /tmp/likeness.json
//! ```

#[path = "../tests/search_sets/mod.rs"]
mod search_sets;

use search_sets::{SCORED_SETS, catalog, queries};
use sieve_core::search::ToolIndex;
use sieve_core::{Catalog, Kind};
use std::collections::BTreeMap;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("search_blend: name the likeness file, e.g. /tmp/likeness.json");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let likeness: BTreeMap<String, Vec<Vec<f32>>> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let _lexicon = sieve_core::lexicon::Lexicon::shared();
    let mut catalogs: BTreeMap<String, Catalog> = BTreeMap::new();
    let (mut found, mut asked) = (0, 0);
    println!("| set | in the top 3 |\n|---|---|");
    for set in SCORED_SETS.iter().copied().chain(["live-qa"]) {
        let Some(rows) = likeness.get(set) else {
            continue;
        };
        let mut hits = 0;
        let queries = queries(set);
        assert_eq!(
            rows.len(),
            queries.len(),
            "{path}: {set} needs a row per query"
        );
        for ((name, query, meant), alike) in queries.iter().zip(rows) {
            let catalog = catalogs
                .entry(name.clone())
                .or_insert_with(|| catalog(name));
            let all: Vec<_> = catalog.of_kind(Kind::Tool).collect();
            let index = ToolIndex::build(all.iter().copied().enumerate());
            let top = index.blended(query, 3, alike).keys;
            hits += usize::from(top.iter().any(|&i| meant.contains(&all[i].name)));
        }
        println!("| {set} | {hits} of {} |", queries.len());
        found += hits;
        asked += queries.len();
    }
    println!("| all | {found} of {asked} |");
}
