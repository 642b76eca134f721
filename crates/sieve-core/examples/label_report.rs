//! Prints, for tool lists recorded from live servers, how the labels split
//! them: `cargo run -p sieve-core --example label_report -- FILE...`
//! (each file a fixture of `tests/fixtures/published/`, `{"server",
//! "tools": [...]}`, or a JSON array of tools named after its stem). One
//! Markdown row a server: its tools, its groups with their sizes, and how
//! many tools each value of `security` and `cost` holds. The README's
//! table is made with it.

use serde_json::Value;
use sieve_core::catalog::{BuildOptions, Catalog, Kind, ServerListing};
use sieve_core::config::Overlays;
use std::collections::BTreeMap;
use std::path::Path;

fn main() {
    println!(
        "| server | tools | groups (tools in each) | security high / medium / low | cost minimal / moderate / high |"
    );
    println!("|---|---|---|---|---|");
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).expect("the file reads");
        let value: Value = serde_json::from_str(&text).expect("JSON");
        let stem = Path::new(&path)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("server");
        let (server, tools) = match &value {
            Value::Array(tools) => (stem.to_string(), tools.clone()),
            fixture => (
                fixture["server"].as_str().unwrap_or(stem).to_string(),
                fixture["tools"].as_array().cloned().unwrap_or_default(),
            ),
        };
        let listing = ServerListing::tools(server.clone(), tools);
        let overlays = Overlays::new(&[]).expect("no overlays");
        let catalog = Catalog::build_with(&BuildOptions::new("__"), &overlays, &[listing]);
        let mut groups: BTreeMap<String, usize> = BTreeMap::new();
        let mut values: BTreeMap<(&str, String), usize> = BTreeMap::new();
        let mut total = 0;
        for tool in catalog.of_kind(Kind::Tool) {
            total += 1;
            for group in &tool.labels.groups {
                if let Some((_, own)) = sieve_core::labels::split_group(group) {
                    *groups.entry(own.to_string()).or_default() += 1;
                }
            }
            for concern in ["security", "cost"] {
                if let Some(value) = tool.labels.concerns.get(concern) {
                    *values.entry((concern, value.clone())).or_default() += 1;
                }
            }
        }
        let mut sized: Vec<(String, usize)> = groups.into_iter().collect();
        sized.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let groups = sized
            .iter()
            .map(|(g, n)| format!("{g} {n}"))
            .collect::<Vec<_>>()
            .join(", ");
        let count = |concern, value: &str| {
            values
                .get(&(concern, value.to_string()))
                .copied()
                .unwrap_or(0)
        };
        println!(
            "| {server} | {total} | {} groups: {groups} | {} / {} / {} | {} / {} / {} |",
            sized.len(),
            count("security", "high"),
            count("security", "medium"),
            count("security", "low"),
            count("cost", "minimal"),
            count("cost", "moderate"),
            count("cost", "high"),
        );
    }
}
