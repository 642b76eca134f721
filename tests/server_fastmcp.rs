//! The proxy in front of a real FastMCP server (`fastmcp` 4.2.3 from PyPI,
//! tests/clients/fastmcp_server.py), over stdio and over streamable HTTP.
//!
//! FastMCP sends a tool's `tags={...}` as `_meta.fastmcp.tags`. Those tags
//! must reach the labels whichever way the server is connected: `tools
//! --json` shows them, a profile that requires one lists only its tools to
//! a host, and a call of a tagged tool goes through.

use serde_json::{Value, json};
use sieve_tests::Home;
use sieve_tests::deps::deps;
use sieve_tests::http::PythonHttp;
use sieve_tests::wire::{Wire, tool_names};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

/// The server's key in config.json, so exposed names are `shop__<tool>`.
const SERVER: &str = "shop";

fn script() -> String {
    deps()
        .clients
        .join("fastmcp_server.py")
        .display()
        .to_string()
}

/// A home whose one server is `entry`, with a profile `billing` that
/// requires the FastMCP tag `billing`.
fn home_with(entry: Value) -> Home {
    let home = Home::new(BIN);
    home.write(
        "config.json",
        &json!({"mcpServers": {SERVER: entry}}).to_string(),
    );
    home.write("profiles/billing.json", r#"{"tags": {"all": ["billing"]}}"#);
    home
}

/// `tools --json`'s row for one upstream tool.
fn row<'a>(rows: &'a Value, name: &str) -> &'a Value {
    rows.as_array()
        .expect("an array of tools")
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {rows:#}"))
}

fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {value}"))
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}

/// What every FastMCP test shows, whatever the transport.
async fn tags_reach_labels_and_calls_pass(home: &Home) {
    // The labels, as the command line shows them (every tool: the default
    // profile hides none).
    let rows = home.run(&["tools", "--json"]).json();
    assert_eq!(
        rows.as_array().unwrap().len(),
        4,
        "the server's four tools: {rows:#}"
    );
    let tags = |name: &str| strings(&row(&rows, name)["tags"]);
    for (tool, sent) in [
        ("list_invoices", &["billing"][..]),
        ("invoice_total", &["billing", "reports"]),
        ("monthly_report", &["reports"]),
    ] {
        for tag in sent {
            assert!(
                tags(tool).contains(tag),
                "{tool} carries FastMCP's tag {tag}: {:#}",
                row(&rows, tool)
            );
        }
    }
    assert!(
        !tags("monthly_report").contains(&"billing"),
        "monthly_report is not tagged billing: {:?}",
        tags("monthly_report")
    );
    assert!(
        !tags("echo")
            .iter()
            .any(|t| *t == "billing" || *t == "reports"),
        "echo has no FastMCP tags: {:?}",
        tags("echo")
    );
    assert_eq!(
        row(&rows, "invoice_total")["exposedName"],
        "shop__invoice_total"
    );
    // A tag that names the tool's set (mcp-atlassian's `toolset:...`) is
    // a group of the server's own; a server that has its own groups gets
    // none derived, so echo, in no set, is in its server's group only.
    let groups = |name: &str| strings(&row(&rows, name)["groups"]);
    assert_eq!(groups("list_invoices"), ["server:shop", "shop/invoices"]);
    assert_eq!(groups("invoice_total"), ["server:shop", "shop/invoices"]);
    assert_eq!(groups("monthly_report"), ["server:shop", "shop/reporting"]);
    assert_eq!(groups("echo"), ["server:shop"]);

    // A host under a profile that requires `billing` sees the billing
    // tools only, and their labels in `_meta`.
    let mut host = Wire::start(BIN, home.path(), &["--profile", "billing"], json!({})).await;
    let list = host.listing(&["shop"]).await;
    let mut names = tool_names(&list);
    names.sort();
    assert_eq!(
        names,
        ["shop__invoice_total", "shop__list_invoices"],
        "tags.all [billing] keeps the tools FastMCP tagged billing: {list}"
    );
    for tool in list["result"]["tools"].as_array().unwrap() {
        assert!(
            strings(&tool["_meta"]["dev.mcp-sieve/tags"]).contains(&"billing"),
            "the proxy's labels in _meta carry the tag: {tool}"
        );
    }

    // A call of a tagged tool reaches the FastMCP server and comes back.
    let call = host
        .request(
            "tools/call",
            json!({"name": "shop__invoice_total", "arguments": {"invoice_id": "INV-2"}}),
        )
        .await;
    assert_eq!(
        call["result"]["content"][0]["text"], "INV-2: 75.50 EUR",
        "the FastMCP tool's answer: {call}"
    );
    assert_ne!(call["result"]["isError"], true, "{call}");

    // A tool the profile hides cannot be called under it.
    let hidden = host
        .request(
            "tools/call",
            json!({"name": "shop__monthly_report", "arguments": {"month": "2026-11"}}),
        )
        .await;
    assert!(
        hidden.get("error").is_some() || hidden["result"]["isError"] == true,
        "monthly_report is not billing, so not callable under that profile: {hidden}"
    );
    host.close().await;
}

#[tokio::test]
async fn fastmcp_tags_over_stdio() {
    let home = home_with(json!({
        "command": deps().python,
        "args": [script(), "stdio"],
    }));
    tags_reach_labels_and_calls_pass(&home).await;
}

#[tokio::test]
async fn fastmcp_tags_over_streamable_http() {
    let server = PythonHttp::start(&script(), "the FastMCP server");
    let home = home_with(json!({"type": "http", "url": server.url}));
    tags_reach_labels_and_calls_pass(&home).await;
    let status = home.run(&["servers", "list", "--json"]).json();
    assert_eq!(status[0]["transport"], "http", "{status}");
    assert_eq!(status[0]["state"], "up", "{status}");
}
