//! The audit through the real proxy (DESIGN §12): with `settings.audit`
//! on, every `tools/call` a host makes through `mcp-sieve serve`, one that
//! succeeds, one that fails and one the profile refuses, is listed by
//! `mcp-sieve audit` with its status and duration, its arguments only when
//! `{"arguments": true}` asks, and a call through search mode as the tool
//! it calls; with the audit off nothing is written.

use serde_json::{Value, json};
use sieve_tests::Home;
use sieve_tests::wire::Wire;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

fn calls(listing: &Value) -> Vec<Value> {
    listing["calls"]
        .as_array()
        .unwrap_or_else(|| panic!("not an audit listing: {listing}"))
        .clone()
}

/// A host on `profile` makes each call of `arguments` to `tool`, and
/// leaves.
async fn call(home: &Home, profile: &str, tool: &str, arguments: &[Value]) -> Vec<Value> {
    let mut host = Wire::start(BIN, home.path(), &["--profile", profile], json!({})).await;
    let mut answers = Vec::new();
    for args in arguments {
        answers.push(
            host.request("tools/call", json!({"name": tool, "arguments": args}))
                .await,
        );
    }
    host.close().await;
    answers
}

#[tokio::test]
async fn every_call_is_audited_with_its_status_and_duration() {
    let home = Home::new(BIN);
    home.write("config.json", r#"{"settings": {"audit": true}}"#);
    home.write("profiles/noissues.json", r#"{"groups": ["billing"]}"#);
    let answers = call(
        &home,
        "default",
        "demo__get_issue",
        &[json!({"id": 1}), json!({"id": 999})],
    )
    .await;
    assert_eq!(answers[0]["result"]["isError"], false, "{}", answers[0]);
    assert_eq!(answers[1]["result"]["isError"], true, "{}", answers[1]);
    let refused = call(&home, "noissues", "demo__get_issue", &[json!({"id": 1})]).await;
    assert!(
        refused[0]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("hidden by profile")),
        "the profile refuses the call: {}",
        refused[0]
    );

    let listing = home.run(&["audit", "--json"]).json();
    let audited = calls(&listing);
    assert_eq!(audited.len(), 3, "three calls: {listing}");
    let statuses: Vec<&str> = audited
        .iter()
        .map(|c| c["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        ["refused", "error", "ok"],
        "newest first: {listing}"
    );
    let profiles: Vec<&str> = audited
        .iter()
        .map(|c| c["profile"].as_str().unwrap())
        .collect();
    assert_eq!(profiles, ["noissues", "default", "default"], "{listing}");
    for call in &audited {
        assert_eq!(call["tool"], "demo__get_issue", "{call}");
        assert_eq!(call["server"], "demo", "{call}");
        assert_eq!(call["who"], "wire-test 1 (stdio)", "{call}");
        assert!(
            call["durationMs"].as_i64().is_some_and(|d| d >= 0),
            "{call}"
        );
        assert!(call["at"].as_str().is_some(), "{call}");
        assert!(
            call.get("arguments").is_none(),
            "no arguments unless asked: {call}"
        );
    }

    // The task filters: status, server, a page and the next.
    let errors = home.run(&["audit", "--status", "error", "--json"]).json();
    assert_eq!(calls(&errors).len(), 1, "{errors}");
    assert_eq!(calls(&errors)[0]["status"], "error");
    let elsewhere = home.run(&["audit", "--server", "github", "--json"]).json();
    assert!(calls(&elsewhere).is_empty(), "{elsewhere}");
    let first = home
        .run(&["audit", "--since", "1h", "--limit", "2", "--json"])
        .json();
    assert_eq!(calls(&first).len(), 2, "{first}");
    let cursor = first["nextCursor"].as_str().expect("a second page");
    let rest = home
        .run(&["audit", "--limit", "2", "--cursor", cursor, "--json"])
        .json();
    assert_eq!(calls(&rest).len(), 1, "{rest}");
    assert_eq!(calls(&rest)[0]["status"], "ok");
    assert_eq!(rest["nextCursor"], Value::Null);
    let table = home.run(&["audit"]);
    assert!(table.ok, "{}", table.stderr);
    assert!(table.stdout.contains("refused"), "{}", table.stdout);
    let bad = home.run(&["audit", "--status", "failed"]);
    assert!(!bad.ok);
    assert!(
        bad.stderr.contains("--status: \"failed\" is not a status"),
        "{}",
        bad.stderr
    );

    // With {"arguments": true} the arguments are kept too.
    home.write(
        "config.json",
        r#"{"settings": {"audit": {"arguments": true}}}"#,
    );
    call(&home, "default", "demo__get_issue", &[json!({"id": 2})]).await;
    let newest = &calls(&home.run(&["audit", "--limit", "1", "--json"]).json())[0];
    assert_eq!(newest["arguments"], json!({"id": 2}), "{newest}");
    assert_eq!(newest["status"], "ok", "{newest}");
}

#[tokio::test]
async fn with_the_audit_off_nothing_is_written() {
    let home = Home::new(BIN);
    home.write("profiles/noissues.json", r#"{"groups": ["billing"]}"#);
    call(
        &home,
        "default",
        "demo__get_issue",
        &[json!({"id": 1}), json!({"id": 999})],
    )
    .await;
    call(&home, "noissues", "demo__get_issue", &[json!({"id": 1})]).await;
    let listing = home.run(&["audit", "--json"]).json();
    assert!(calls(&listing).is_empty(), "{listing}");
    let table = home.run(&["audit"]);
    assert!(
        table.stdout.contains("no audited calls"),
        "{}",
        table.stdout
    );
}

/// In search mode `sieve__call_tool` is audited once, as the call it stands
/// for; `sieve__find_tools` is a call to the proxy itself.
#[tokio::test]
async fn a_call_through_search_mode_is_audited_as_the_tool_it_calls() {
    let home = Home::new(BIN);
    home.write(
        "config.json",
        r#"{"settings": {"audit": {"arguments": true}}}"#,
    );
    home.write("profiles/search.json", r#"{"disclosure": "search"}"#);
    let mut host = Wire::start(BIN, home.path(), &["--profile", "search"], json!({})).await;
    let found = host
        .request(
            "tools/call",
            json!({"name": "sieve__find_tools", "arguments": {"query": "get an issue"}}),
        )
        .await;
    assert!(found["result"].is_object(), "{found}");
    let called = host
        .request(
            "tools/call",
            json!({"name": "sieve__call_tool", "arguments": {"name": "demo__get_issue", "arguments": {"id": 1}}}),
        )
        .await;
    assert_eq!(called["result"]["isError"], false, "{called}");
    host.close().await;

    let audited = calls(&home.run(&["audit", "--json"]).json());
    let seen: Vec<(&str, &str)> = audited
        .iter()
        .map(|c| (c["server"].as_str().unwrap(), c["tool"].as_str().unwrap()))
        .collect();
    assert_eq!(
        seen,
        [("demo", "demo__get_issue"), ("sieve", "sieve__find_tools")],
        "{audited:?}"
    );
    assert_eq!(audited[0]["arguments"], json!({"id": 1}), "{audited:?}");
    assert_eq!(audited[0]["profile"], "search");
}
