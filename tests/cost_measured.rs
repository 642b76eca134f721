//! The concern `cost` measured on the calls through the real proxy: a
//! host's call through `mcp-sieve serve` whose result is large makes its
//! tool `moderate`, at once for the host that filters on `cost` (the tool
//! leaves its list) and for `mcp-sieve tools --json` afterwards, with the
//! measured tokens in the reason; a refused call measures nothing; and
//! three small, quick calls of a tool whose definition says it runs long
//! make it `minimal`, two are not enough. The audit is off throughout:
//! measurements are kept whether or not it is on.

use serde_json::{Value, json};
use sieve_tests::Home;
use sieve_tests::deps::deps;
use sieve_tests::wire::{Wire, tool_names};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

/// Tool `exposed` as `mcp-sieve tools --json` shows it.
fn listed(home: &Home, exposed: &str) -> Value {
    let tools = home.run(&["tools", "--json"]).json();
    tools
        .as_array()
        .unwrap_or_else(|| panic!("not a tool list: {tools}"))
        .iter()
        .find(|t| t["exposedName"] == exposed)
        .unwrap_or_else(|| panic!("{exposed} is not listed: {tools}"))
        .clone()
}

/// The cost of tool `exposed`, and its reason.
fn cost(home: &Home, exposed: &str) -> (String, String) {
    let tool = listed(home, exposed);
    let text = |v: &Value| v.as_str().unwrap_or_else(|| panic!("{tool}")).to_string();
    (
        text(&tool["concerns"]["cost"]),
        text(&tool["concernReasons"]["cost"]),
    )
}

#[tokio::test]
async fn a_large_result_makes_its_tool_moderate_at_once() {
    let home = Home::new(BIN);
    home.write(
        "profiles/cheap.json",
        r#"{"concerns": {"cost": "minimal"}}"#,
    );
    assert_eq!(
        cost(&home, "demo__echo").0,
        "minimal",
        "echo's definition says nothing of large results"
    );
    let mut host = Wire::start(BIN, home.path(), &["--profile", "cheap"], json!({})).await;
    let before = tool_names(&host.request("tools/list", json!({})).await);
    assert!(before.contains(&"demo__echo".to_string()), "{before:?}");

    let large = "All work and no play. ".repeat(600);
    let answer = host
        .request(
            "tools/call",
            json!({"name": "demo__echo", "arguments": {"text": large}}),
        )
        .await;
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("echo answers with text: {answer}"));
    assert!(text.len() > large.len(), "the whole text came back");
    // Measured by the proxy in the background, the tool is now moderate:
    // hosts are told, and the profile's cost no longer shows it.
    host.notification("notifications/tools/list_changed").await;
    let after = tool_names(&host.request("tools/list", json!({})).await);
    assert!(
        !after.contains(&"demo__echo".to_string()),
        "echo is moderate now, above the profile's minimal: {after:?}"
    );
    let refused = host
        .request(
            "tools/call",
            json!({"name": "demo__echo", "arguments": {"text": "hi"}}),
        )
        .await;
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("hidden by profile")),
        "{refused}"
    );
    host.close().await;

    // Four bytes a token, as sieve-core's tokenizer estimates a result.
    let tokens = text.len().div_ceil(4);
    let thousands = format!("{},{:03}", tokens / 1_000, tokens % 1_000);
    assert_eq!(
        cost(&home, "demo__echo"),
        (
            "moderate".to_string(),
            format!(
                "cost moderate: its calls through Sieve returned a median of {thousands} tokens \
                 (1 call)"
            )
        ),
        "the refused call was not measured"
    );
    assert_eq!(
        cost(&home, "demo__append_file").0,
        "minimal",
        "a tool not called keeps its judgement"
    );
}

/// A host on the home's servers makes `calls` calls of `tool` with
/// `arguments`, each answered, and leaves.
async fn call(home: &Home, tool: &str, arguments: Value, calls: usize) {
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let server = tool.split("__").next().expect("an exposed name");
    host.listing(&[server]).await;
    for _ in 0..calls {
        let answer = host
            .request("tools/call", json!({"name": tool, "arguments": arguments}))
            .await;
        assert_eq!(answer["result"]["isError"], Value::Null, "{answer}");
        assert!(answer["result"]["content"].is_array(), "{answer}");
    }
    host.close().await;
}

#[tokio::test]
async fn three_small_quick_calls_lower_a_moderate_definition_to_minimal() {
    let home = Home::new(BIN);
    let deps = deps();
    let config = json!({"mcpServers": {"everything": {
        "command": deps.node22,
        "args": [deps.server_everything, "stdio"]
    }}});
    home.write("config.json", &config.to_string());
    let tool = "everything__trigger-long-running-operation";
    let (value, why) = cost(&home, tool);
    assert_eq!(
        (value.as_str(), why.as_str()),
        (
            "moderate",
            "cost moderate: `long-running` in its name says its calls can run long"
        )
    );
    let quick = json!({"duration": 0.1, "steps": 1});
    call(&home, tool, quick.clone(), 2).await;
    let (value, why) = cost(&home, tool);
    assert_eq!(value, "moderate", "two calls are too few: {why}");
    assert!(why.contains("in its name"), "{why}");

    call(&home, tool, quick, 1).await;
    let (value, why) = cost(&home, tool);
    assert_eq!(value, "minimal", "{why}");
    assert!(
        why.starts_with("cost minimal: its calls through Sieve returned at most ")
            && why
                .ends_with("(90th percentile, 3 calls), under the limits of 2,000 tokens and 10 s"),
        "{why}"
    );
}
