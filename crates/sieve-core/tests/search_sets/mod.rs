//! The query sets of `search_quality` and the catalogs they are asked of,
//! shared by that test and by the example that writes every set's
//! rankings (`examples/search_rankings.rs`).

use sieve_core::{Catalog, Overlays, ServerListing, parse_tool_list};

/// The sets of queries written against the recorded catalogs (live-qa's
/// were asked of live servers).
pub const SCORED_SETS: [&str; 17] = [
    "tuned",
    "held-out",
    "held-out-2",
    "held-out-3",
    "held-out-4",
    "held-out-5",
    "held-out-6",
    "held-out-7",
    "held-out-8",
    "held-out-9",
    "held-out-10",
    "held-out-11",
    "held-out-12",
    "held-out-13",
    "held-out-14",
    "held-out-15",
    "held-out-16",
];

fn fixture(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// The tools of catalog `name`, by their names as the server gives them.
pub fn catalog(name: &str) -> Catalog {
    let published = fixture(&format!("tests/fixtures/published/{name}.json"));
    let suite = fixture(&format!("../../tests/fixtures/catalogs/{name}.json"));
    // Several servers searched as one (`live-qa.json`) stand apart from
    // the one-server catalogs.
    let joined = fixture(&format!("tests/fixtures/{name}.json"));
    let path = [published, joined]
        .into_iter()
        .find(|path| std::path::Path::new(path).exists())
        .unwrap_or(suite);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    // A catalog of several servers (`live-qa.json`) lists each one's
    // tools under its name.
    let document: serde_json::Value = serde_json::from_str(&text).expect("the catalog is JSON");
    let listings: Vec<ServerListing> = match document.get("servers").and_then(|s| s.as_object()) {
        Some(servers) => servers
            .iter()
            .map(|(server, tools)| {
                let tools = parse_tool_list(&path, &tools.to_string()).expect("the catalog parses");
                ServerListing::tools(server, tools)
            })
            .collect(),
        None => vec![ServerListing::tools(
            name,
            parse_tool_list(&path, &text).expect("the catalog parses"),
        )],
    };
    Catalog::build("__", &Overlays::default(), &listings)
}

/// The queries of one set: (catalog, query, the tools it means).
pub fn queries(set: &str) -> Vec<(String, String, Vec<String>)> {
    let path = fixture(&format!("tests/fixtures/queries/{set}.tsv"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let columns: Vec<&str> = line.split('\t').collect();
            assert_eq!(columns.len(), 3, "{path}: {line:?} needs three columns");
            let meant = columns[2].split('|').map(String::from).collect();
            (columns[0].to_string(), columns[1].to_string(), meant)
        })
        .collect()
}
