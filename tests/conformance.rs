//! The MCP conformance suite (`@modelcontextprotocol/conformance`, run on
//! Node 22) against server-everything directly and through the proxy in
//! HTTP mode: both runs must run the whole suite, and every scenario that
//! passes directly must pass through the proxy, except those that call a
//! tool by a name no server behind the proxy lists. Both summaries are
//! printed (`cargo test -- --nocapture` shows them; docs/conformance.md keeps the
//! figures).

use sieve_tests::Home;
use sieve_tests::conformance::Report;
use sieve_tests::deps::deps;
use sieve_tests::everything_http;
use sieve_tests::http::HttpProxy;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

/// Fewer scenarios than this means the suite did not really run: the pinned
/// 0.1.16 runs 30 server scenarios and 0.2.0-alpha.12 runs 31.
const MIN_SCENARIOS: usize = 25;

/// Scenarios any working server passes. They must pass directly, so that
/// the comparison below compares something.
const BASICS: [&str; 5] = [
    "server-initialize",
    "ping",
    "tools-list",
    "prompts-list",
    "resources-list",
];

/// Scenarios that call the suite's own tool names, with those names.
/// server-everything answers them with an `isError` result ("Tool
/// test_simple_text not found"), which the suite accepts; behind the proxy
/// no server lists them, so the proxy refuses the call as an unknown tool,
/// which the suite counts as a failure.
const RENAMED: [(&str, &str); 2] = [
    ("tools-call-simple-text", "test_simple_text"),
    ("tools-call-error", "test_error_handling"),
];

/// Runs `scripts/conformance.sh` and checks that the suite ran in full.
fn conformance(url: &str, next: bool, header: Option<&str>, out: &Path) -> Report {
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
    let stderr = String::from_utf8_lossy(&output.stderr);
    // 1 only says that some scenario failed; the comparison decides.
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "conformance.sh did not complete a run ({}):\n{stdout}\n{stderr}",
        output.status
    );
    let report = Report::parse(&stdout);
    assert!(
        report.checks_passed + report.checks_failed > 0,
        "the suite made no checks: {}\n{stderr}",
        report.summary
    );
    let ran = report.scenarios.len();
    assert!(
        ran >= MIN_SCENARIOS,
        "the suite ran {ran} scenario(s), fewer than {MIN_SCENARIOS}: {}\n{stderr}",
        report.summary
    );
    report
}

fn compare(next: bool) {
    let (_everything, direct_url) = everything_http();
    let work = tempfile::tempdir().unwrap();
    let direct = conformance(&direct_url, next, None, &work.path().join("direct"));

    let home = Home::new(BIN);
    let deps = deps();
    let config = serde_json::json!({"mcpServers": {"everything": {
        "command": deps.node22, "args": [deps.server_everything, "stdio"]}}});
    home.write("config.json", &config.to_string());
    let proxy = HttpProxy::start(BIN, home.path());
    tokio::runtime::Runtime::new()
        .expect("a runtime")
        .block_on(proxy.until_listed(&["everything"]));
    let header = format!("Authorization: Bearer {}", proxy.token);
    let proxied = conformance(
        &format!("{}/mcp", proxy.base),
        next,
        Some(&header),
        &work.path().join("proxied"),
    );

    let suite = if next { "0.2.0-alpha.12" } else { "0.1.16" };
    println!(
        "conformance {suite}: direct {}; through the proxy {}",
        direct.summary, proxied.summary
    );
    assert_eq!(
        direct.scenarios.keys().collect::<Vec<_>>(),
        proxied.scenarios.keys().collect::<Vec<_>>(),
        "both runs ran the same scenarios"
    );
    for scenario in BASICS {
        assert_eq!(
            direct.scenarios.get(scenario),
            Some(&None),
            "{scenario} passes against server-everything directly"
        );
    }
    for (scenario, tool) in RENAMED {
        let failure = proxied
            .scenarios
            .get(scenario)
            .unwrap_or_else(|| panic!("the suite has no scenario {scenario}"))
            .as_deref();
        let unknown = format!("unknown tool \"{tool}\"");
        assert!(
            failure.is_some_and(|why| why.contains(&unknown)),
            "{scenario} fails through the proxy only because no server lists {tool}; got {failure:?}"
        );
    }
    let lost: Vec<(&str, &str)> = direct
        .passed()
        .filter(|s| !RENAMED.iter().any(|(renamed, _)| renamed == s))
        .filter_map(|s| Some((s, proxied.scenarios[s].as_deref()?)))
        .collect();
    assert!(
        lost.is_empty(),
        "passes directly but fails through the proxy: {lost:#?}"
    );
    let gained: Vec<&str> = proxied
        .passed()
        .filter(|s| direct.scenarios[*s].is_some())
        .collect();
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
