//! The MCP conformance suite (`@modelcontextprotocol/conformance`, run on
//! Node 22) against server-everything directly and through the proxy in
//! HTTP mode: the proxied run must pass every scenario the direct run
//! passes, except those that call a tool by a name the proxy renames or
//! cannot route. Both summaries are printed (`cargo test -- --nocapture`
//! shows them; the README keeps the figures).

use sieve_tests::Home;
use sieve_tests::deps::deps;
use sieve_tests::everything_http;
use sieve_tests::http::HttpProxy;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

/// Scenarios that call the suite's own tool names (`test_simple_text`,
/// `test_error_handling`): server-everything answers them directly, but
/// behind the proxy no server lists them, so no server can be chosen.
const RENAMED: [&str; 2] = ["tools-call-simple-text", "tools-call-error"];

/// Runs `scripts/conformance.sh`; returns the summary line and the failing
/// scenarios.
fn conformance(
    url: &str,
    next: bool,
    header: Option<&str>,
    out: &Path,
) -> (String, BTreeSet<String>) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/conformance.sh");
    let mut command = Command::new("bash");
    command.arg(script);
    if next {
        command.arg("--next");
    }
    if let Some(header) = header {
        command.args(["--header", header]);
    }
    let output = command
        .arg(url)
        .arg(out)
        .output()
        .expect("conformance.sh runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let mut lines = stdout.lines();
    let summary = lines.next().unwrap_or_default().to_string();
    assert!(
        summary.contains(" passed, "),
        "no summary from the suite: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (summary, lines.map(String::from).collect())
}

fn compare(next: bool) {
    let (_everything, direct_url) = everything_http();
    let work = tempfile::tempdir().unwrap();
    let (direct_summary, direct_failed) =
        conformance(&direct_url, next, None, &work.path().join("direct"));

    let home = Home::new(BIN);
    let deps = deps();
    let config = serde_json::json!({"mcpServers": {"everything": {
        "command": deps.node22, "args": [deps.server_everything, "stdio"]}}});
    home.write("config.json", &config.to_string());
    let proxy = HttpProxy::start(BIN, home.path());
    let header = format!("Authorization: Bearer {}", proxy.token);
    let (proxied_summary, proxied_failed) = conformance(
        &format!("{}/mcp", proxy.base),
        next,
        Some(&header),
        &work.path().join("proxied"),
    );

    let suite = if next { "0.2.0-alpha.12" } else { "0.1.16" };
    println!("conformance {suite}: direct {direct_summary}; through the proxy {proxied_summary}");
    let lost: Vec<&String> = proxied_failed
        .iter()
        .filter(|s| !direct_failed.contains(*s) && !RENAMED.contains(&s.as_str()))
        .collect();
    assert!(
        lost.is_empty(),
        "passes directly but fails through the proxy: {lost:?}"
    );
    let gained: Vec<&String> = direct_failed.difference(&proxied_failed).collect();
    println!("passes only through the proxy: {gained:?}");
}

#[test]
fn conformance_suite_through_the_proxy() {
    compare(false);
}

#[test]
fn conformance_suite_next_through_the_proxy() {
    compare(true);
}
