//! What the tests of sieve-core share: the real tool lists in
//! `tests/fixtures/catalogs` (copies of `shared/catalogs`).

use serde_json::Value;

/// The tools of catalog `name` (`github-mcp-server`, `server-memory`, ...).
pub fn fixture(name: &str) -> Vec<Value> {
    let path = format!(
        "{}/../../tests/fixtures/catalogs/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("fixture catalog is readable");
    sieve_core::parse_tool_list(&path, &text).expect("fixture catalog parses")
}
