//! Prints the groups derivation makes of tool catalogs (JSON arrays of
//! tool definitions): `cargo run -p sieve-core --example derive_groups --
//! [--json] FILE...`. The README's table is made with it; with `--json`,
//! one object per file, `{"file", "groups": {tool name: group or null}}`.

use sieve_core::subjects::{ToolText, derive};
use std::collections::BTreeMap;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.iter().any(|a| a == "--json");
    for path in args.iter().filter(|a| *a != "--json") {
        let text = std::fs::read_to_string(path).expect("the catalog reads");
        let tools: Vec<serde_json::Value> = serde_json::from_str(&text).expect("a JSON array");
        let texts: Vec<ToolText> = tools.iter().map(ToolText::of).collect();
        let groups = derive(&texts);
        if json {
            let named: serde_json::Map<String, serde_json::Value> = texts
                .iter()
                .zip(&groups)
                .map(|(text, group)| (text.name.clone(), serde_json::json!(group)))
                .collect();
            println!("{}", serde_json::json!({"file": path, "groups": named}));
            continue;
        }
        let mut members: BTreeMap<String, Vec<&str>> = BTreeMap::new();
        for (text, group) in texts.iter().zip(&groups) {
            members
                .entry(group.clone().unwrap_or_else(|| "(none)".into()))
                .or_default()
                .push(&text.name);
        }
        println!("{path}: {} tools, {} groups", tools.len(), members.len());
        for (group, tools) in members {
            println!("  {group} ({}): {}", tools.len(), tools.join(", "));
        }
    }
}
