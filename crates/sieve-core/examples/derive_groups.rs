//! Prints the groups derivation makes of tool catalogs: `cargo run -p
//! sieve-core --example derive_groups -- [--json] [--server NAME] FILE...`.
//! A file is a JSON array of tool definitions, or an object with `tools`
//! and the server's key as `server` (the fixtures in
//! `tests/fixtures/published`); `--server` names the server of the files
//! that do not. With `--json`, one object per file, `{"file", "groups":
//! {tool name: group or null}, "why": {tool name: reason}}`.

use sieve_core::subjects::{ToolText, derive_for};
use std::collections::BTreeMap;

fn main() {
    let mut json = false;
    let mut server = String::new();
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" => json = true,
            "--server" => server = args.next().expect("--server takes a name"),
            _ => files.push(arg),
        }
    }
    for path in files {
        let text = std::fs::read_to_string(&path).expect("the catalog reads");
        let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let (server, tools) = match &value {
            serde_json::Value::Array(tools) => (server.clone(), tools.clone()),
            other => (
                other["server"].as_str().unwrap_or(&server).to_string(),
                other["tools"].as_array().cloned().expect("a `tools` array"),
            ),
        };
        let texts: Vec<ToolText> = tools.iter().map(ToolText::of).collect();
        let derived = derive_for(&server, &texts);
        if json {
            let mut groups = serde_json::Map::new();
            let mut why = serde_json::Map::new();
            for (text, found) in texts.iter().zip(&derived) {
                groups.insert(
                    text.name.clone(),
                    serde_json::json!(found.as_ref().map(|d| &d.group)),
                );
                if let Some(found) = found {
                    why.insert(text.name.clone(), serde_json::json!(found.why));
                }
            }
            println!(
                "{}",
                serde_json::json!({"file": path, "groups": groups, "why": why})
            );
            continue;
        }
        let mut members: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (text, found) in texts.iter().zip(&derived) {
            let (group, line) = match found {
                Some(found) => (found.group.clone(), format!("{}: {}", text.name, found.why)),
                None => ("(none)".to_string(), text.name.clone()),
            };
            members.entry(group).or_default().push(line);
        }
        println!("{path}: {} tools, {} groups", tools.len(), members.len());
        for (group, lines) in members {
            println!("  {group} ({})", lines.len());
            for line in lines {
                println!("    {line}");
            }
        }
    }
}
