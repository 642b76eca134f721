//! Fields kept on the way through (docs/proxy.md, "What passes unchanged"):
//! a server written as raw JSON (tests/clients/fields_server.py), once over
//! stdio (`local`) and once over streamable HTTP (`remote`), sends a tool's
//! `execution`, top-level `groups` and `tags`, `annotations.category`, a
//! field no revision names, and a call result with a field no revision
//! names. A raw host over stdio (2025-11-25) and one over HTTP (2026-07-28)
//! see each listed field as the server sent it, Sieve's labels added under
//! `_meta`, and the unknown field of a call's, a prompt's and a resource's
//! result; a host's unknown param reaches the server; and the labels read
//! the server's own groups and tags over both transports.

use serde_json::{Map, Value, json};
use sieve_tests::Home;
use sieve_tests::deps::deps;
use sieve_tests::http::HttpProxy;
use sieve_tests::http::PythonHttp;
use sieve_tests::wire::Wire;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

/// The servers' keys in config.json: the same server over each transport.
const SERVERS: [&str; 2] = ["local", "remote"];

fn script() -> String {
    deps()
        .clients
        .join("fields_server.py")
        .display()
        .to_string()
}

/// `file_issue` as fields_server.py sends it.
fn file_issue() -> Value {
    json!({
        "name": "file_issue",
        "description": "File an issue in the tracker.",
        "inputSchema": {
            "type": "object",
            "properties": {"title": {"type": "string"}},
        },
        "execution": {"taskSupport": "optional"},
        "groups": ["issues"],
        "tags": ["tracker"],
        "annotations": {"category": "triage", "readOnlyHint": false},
        "x-vendor-rank": {"weight": 3, "notes": ["kept", "as", "sent"]},
    })
}

/// A home with the server over stdio as `local` and over HTTP as `remote`.
fn home(remote: &PythonHttp) -> Home {
    let home = Home::new(BIN);
    let python = deps().python.display().to_string();
    home.write(
        "config.json",
        &json!({"mcpServers": {
            "local": {"command": python, "args": [script(), "stdio"]},
            "remote": {"type": "http", "url": remote.url},
        }})
        .to_string(),
    );
    home
}

fn tool<'a>(tools: &'a Value, name: &str) -> &'a Value {
    tools
        .as_array()
        .unwrap_or_else(|| panic!("a list of tools: {tools:#}"))
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {tools:#}"))
}

fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {value}"))
        .iter()
        .filter_map(Value::as_str)
        .collect()
}

/// A host's `file_issue` of `server` is the server's, field for field:
/// only the name is exposed and `_meta` holds Sieve's labels, among them
/// the server's own groups and tags.
fn arrived_unchanged(tools: &Value, server: &str, host: &str) {
    let seen = tool(tools, &format!("{server}__file_issue"));
    let mut fields: Map<String, Value> = seen.as_object().unwrap().clone();
    let meta = fields.remove("_meta").expect("Sieve's labels in _meta");
    fields.insert("name".into(), json!("file_issue"));
    let sent = file_issue();
    for (key, value) in sent.as_object().unwrap() {
        assert_eq!(
            fields.get(key),
            Some(value),
            "{host} sees {server}'s field {key} as the server sent it: {seen:#}"
        );
    }
    assert_eq!(
        Value::Object(fields),
        sent,
        "{host} sees {server}'s tool with nothing added but _meta: {seen:#}"
    );
    let groups = strings(&meta["dev.mcp-sieve/groups"]);
    for group in ["issues", "triage"] {
        assert!(
            groups.contains(&format!("{server}/{group}").as_str()),
            "{host}: the labels of {server} read its group {group}: {meta:#}"
        );
    }
    assert!(
        strings(&meta["dev.mcp-sieve/tags"]).contains(&"tracker"),
        "{host}: the labels of {server} read its tag: {meta:#}"
    );
}

/// A call's answer from `server`, with a host's unknown param sent along.
fn call_params(server: &str) -> Value {
    json!({
        "name": format!("{server}__file_issue"),
        "arguments": {"title": "kept"},
        "x-host-hint": {"priority": "high"},
    })
}

/// The server got the host's unknown param, and the host the call's
/// answer with the server's unknown result field.
fn call_kept_fields(response: &Value, server: &str, host: &str) {
    let result = &response["result"];
    assert_eq!(
        result["isError"], false,
        "{host} gets {server}'s answer: {response:#}"
    );
    assert_eq!(
        result["x-result-extra"],
        json!({"served": "file_issue"}),
        "{host} gets {server}'s unknown result field: {response:#}"
    );
    let received: Value = serde_json::from_str(
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{host}: the server's echo: {response:#}")),
    )
    .expect("the server echoes the params it got as JSON");
    assert_eq!(
        received["x-host-hint"],
        json!({"priority": "high"}),
        "{server} gets {host}'s unknown param: {received:#}"
    );
    assert_eq!(received["arguments"], json!({"title": "kept"}));
}

#[tokio::test(flavor = "multi_thread")]
async fn every_field_passes_both_ways_over_both_transports() {
    let remote = PythonHttp::start(&script(), "fields_server.py");
    let home = home(&remote);

    // The labels, as the command line reads them, over both transports.
    let rows = home.run(&["tools", "--json"]).json();
    for server in SERVERS {
        let exposed = format!("{server}__file_issue");
        let row = rows
            .as_array()
            .expect("an array of tools")
            .iter()
            .find(|r| r["exposedName"] == exposed.as_str())
            .unwrap_or_else(|| panic!("no {exposed} in {rows:#}"));
        let groups = strings(&row["groups"]);
        for group in ["issues", "triage"] {
            assert!(
                groups.contains(&format!("{server}/{group}").as_str()),
                "tools --json reads {server}'s group {group} (server's `groups`, \
                 `annotations.category`): {row:#}"
            );
        }
        assert!(
            strings(&row["tags"]).contains(&"tracker"),
            "tools --json reads {server}'s top-level tag: {row:#}"
        );
        let read = rows
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["exposedName"] == format!("{server}__read_issue").as_str())
            .unwrap_or_else(|| panic!("no {server}__read_issue in {rows:#}"));
        assert!(
            strings(&read["tags"]).contains(&"from-meta"),
            "tools --json reads {server}'s tag in _meta: {read:#}"
        );
    }

    // A raw host over stdio (2025-11-25).
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let listed = host.listing(&SERVERS).await;
    for server in SERVERS {
        arrived_unchanged(&listed["result"]["tools"], server, "the stdio host");
        let answer = host.request("tools/call", call_params(server)).await;
        call_kept_fields(&answer, server, "the stdio host");
        let (method, params) = prompt_params(server);
        prompt_kept_fields(
            &host.request(method, params).await,
            server,
            "the stdio host",
        );
        let resources = host.request("resources/list", json!({})).await;
        let (method, params) = resource_params(&resources, server);
        resource_kept_fields(
            &host.request(method, params).await,
            server,
            "the stdio host",
        );
    }
    host.close().await;

    // A raw host over HTTP (2026-07-28, no session).
    let proxy = HttpProxy::start(BIN, home.path());
    proxy.until_listed(&SERVERS).await;
    let endpoint = format!("{}/mcp", proxy.base);
    let (status, listed) =
        sieve_tests::team::request(&endpoint, &proxy.token, "tools/list", json!({})).await;
    assert_eq!(status, 200, "tools/list over HTTP: {listed:#}");
    assert_eq!(
        listed["result"]["resultType"], "complete",
        "a 2026-07-28 host's list says it is complete: {listed:#}"
    );
    for server in SERVERS {
        arrived_unchanged(&listed["result"]["tools"], server, "the HTTP host");
        let (status, answer) =
            sieve_tests::team::request(&endpoint, &proxy.token, "tools/call", call_params(server))
                .await;
        assert_eq!(status, 200, "tools/call over HTTP: {answer:#}");
        call_kept_fields(&answer, server, "the HTTP host");
        let (method, params) = prompt_params(server);
        let (status, answer) =
            sieve_tests::team::request(&endpoint, &proxy.token, method, params).await;
        assert_eq!(status, 200, "prompts/get over HTTP: {answer:#}");
        prompt_kept_fields(&answer, server, "the HTTP host");
        let (_, resources) =
            sieve_tests::team::request(&endpoint, &proxy.token, "resources/list", json!({})).await;
        let (method, params) = resource_params(&resources, server);
        let (status, answer) =
            sieve_tests::team::request(&endpoint, &proxy.token, method, params).await;
        assert_eq!(status, 200, "resources/read over HTTP: {answer:#}");
        resource_kept_fields(&answer, server, "the HTTP host");
    }
}

/// `prompts/get` of `server`'s prompt.
fn prompt_params(server: &str) -> (&'static str, Value) {
    ("prompts/get", json!({"name": format!("{server}__triage")}))
}

/// The prompt's answer, with the server's unknown result field.
fn prompt_kept_fields(response: &Value, server: &str, host: &str) {
    let result = &response["result"];
    assert_eq!(
        result["messages"][0]["content"]["text"], "Triage them.",
        "{host} gets {server}'s prompt: {response:#}"
    );
    assert_eq!(
        result["x-result-extra"],
        json!({"prompt": "triage"}),
        "{host} gets the unknown field of {server}'s prompt: {response:#}"
    );
}

/// `resources/read` of `server`'s resource, by the URI `listed` (a
/// `resources/list` answer) shows it under.
fn resource_params(listed: &Value, server: &str) -> (&'static str, Value) {
    let uri = listed["result"]["resources"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["_meta"]["dev.mcp-sieve/server"] == server)
        .and_then(|r| r["uri"].as_str())
        .unwrap_or_else(|| panic!("{server}'s resource is listed: {listed:#}"))
        .to_string();
    ("resources/read", json!({"uri": uri}))
}

/// The resource's answer, with the server's unknown result field.
fn resource_kept_fields(response: &Value, server: &str, host: &str) {
    let result = &response["result"];
    assert_eq!(
        result["contents"][0]["text"], "three open issues",
        "{host} gets {server}'s resource: {response:#}"
    );
    assert_eq!(
        result["x-result-extra"],
        json!({"read": "fields://board"}),
        "{host} gets the unknown field of {server}'s resource: {response:#}"
    );
}
