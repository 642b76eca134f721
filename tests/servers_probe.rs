//! `mcp-sieve servers probe URL` against real servers over streamable
//! HTTP: the demo server (`demo-server --http`) and the proxy's own HTTP
//! endpoint, which wants a bearer token. What it lists, both handshakes,
//! headers, the failures a person meets, and the calls a conformance
//! scenario asks for, with the server's questions answered.

use serde_json::{Value, json};
use sieve_tests::http::{DemoHttp, HttpProxy};
use sieve_tests::{Home, Run};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

fn probe(home: &Home, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = home.command();
    command.args(["servers", "probe"]).args(args);
    // The suite's variables of the test's own environment stay out.
    for name in [
        "MCP_CONFORMANCE_SCENARIO",
        "MCP_CONFORMANCE_CONTEXT",
        "MCP_CONFORMANCE_PROTOCOL_VERSION",
    ] {
        command.env_remove(name);
    }
    command.envs(env.iter().copied());
    Run::from(command.output().expect("mcp-sieve runs"))
}

fn names(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {value}"))
        .iter()
        .map(|v| v.as_str().expect("names are strings"))
        .collect()
}

/// The one line a failure prints, without its `error: `.
fn failure(run: &Run) -> &str {
    assert!(!run.ok, "the probe should fail:\n{}", run.stdout);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line on stderr: {:?}", run.stderr);
    lines[0]
        .strip_prefix("error: ")
        .unwrap_or_else(|| panic!("starts with error: {:?}", lines[0]))
}

#[test]
fn lists_what_the_demo_server_offers() {
    let demo = DemoHttp::start(BIN);
    let home = Home::new(BIN);

    let found = probe(&home, &[&demo.url, "--json"], &[]).json();
    assert_eq!(found["url"], demo.url.as_str());
    assert_eq!(found["protocolVersion"], "2025-11-25", "{found}");
    assert_eq!(found["serverInfo"]["name"], "sieve-demo", "{found}");
    assert!(found["capabilities"]["tools"].is_object(), "{found}");
    let tools = names(&found["tools"]);
    for tool in ["echo", "purge_closed_issues", "run_job"] {
        assert!(tools.contains(&tool), "{tool} is listed: {tools:?}");
    }
    assert!(
        names(&found["prompts"]).contains(&"triage_issue"),
        "{found}"
    );
    assert!(
        names(&found["resources"]).contains(&"demo://readme"),
        "{found}"
    );
    assert!(
        names(&found["resourceTemplates"]).contains(&"demo://issues/{id}"),
        "{found}"
    );
    assert!(found.get("scenario").is_none(), "no scenario was asked for");

    let text = probe(&home, &[&demo.url], &[]);
    assert!(text.ok, "{}", text.stderr);
    let mut lines = text.stdout.lines();
    assert_eq!(
        lines.next(),
        Some(format!("{}: sieve-demo 0.1.0, protocol 2025-11-25", demo.url).as_str()),
        "{}",
        text.stdout
    );
    let tools_line = lines.next().unwrap_or_default();
    assert!(
        tools_line.starts_with(&format!("{} tools: ", tools.len())),
        "count, then names: {tools_line}"
    );
    assert!(
        text.stdout.contains("resource templates: demo://"),
        "{}",
        text.stdout
    );
    assert!(
        home.path().read_dir().unwrap().next().is_none(),
        "the probe writes nothing into the home"
    );
}

#[test]
fn starts_with_discovery_when_asked_for_2026_07_28() {
    let demo = DemoHttp::start(BIN);
    let home = Home::new(BIN);
    let modern = probe(
        &home,
        &[&demo.url, "--protocol", "2026-07-28", "--json"],
        &[],
    )
    .json();
    assert_eq!(modern["protocolVersion"], "2026-07-28", "{modern}");
    assert_eq!(
        modern["tools"],
        probe(&home, &[&demo.url, "--json"], &[]).json()["tools"],
        "the same tools in either generation"
    );
    // The suite's runner says which revision a scenario runs at this way.
    let told = probe(
        &home,
        &[&demo.url, "--json"],
        &[("MCP_CONFORMANCE_PROTOCOL_VERSION", "2026-07-28")],
    )
    .json();
    assert_eq!(told["protocolVersion"], "2026-07-28", "{told}");

    let bad = probe(&home, &[&demo.url, "--protocol", "latest"], &[]);
    assert_eq!(
        failure(&bad),
        "\"latest\" is not a protocol revision; give one like 2025-11-25 or 2026-07-28"
    );
}

#[test]
fn sends_headers_and_says_when_a_server_wants_a_sign_in() {
    // The proxy's own HTTP endpoint wants its bearer token, which it gives
    // out by other means (no OAuth metadata): the probe cannot sign in.
    let home = Home::new(BIN);
    let proxy = HttpProxy::start(BIN, home.path());
    let url = format!("{}/mcp", proxy.base);

    let refused = probe(&home, &[&url], &[]);
    assert_eq!(
        failure(&refused),
        format!(
            "{url} asks for a sign-in (HTTP 401) but publishes no OAuth metadata to sign in with; if the server gives out tokens, add one as its \"Authorization: Bearer ...\" header"
        )
    );

    let header = format!("Authorization: Bearer {}", proxy.token);
    let found = probe(&home, &[&url, "--header", &header, "--json"], &[]).json();
    assert_eq!(found["serverInfo"]["name"], "mcp-sieve", "{found}");
    assert!(
        names(&found["tools"]).contains(&"demo__echo"),
        "the proxy's tools, under exposed names: {found}"
    );
    assert!(
        !found.to_string().contains(&proxy.token),
        "header values are not printed"
    );

    let malformed = probe(&home, &[&url, "--header", "Authorization Bearer x"], &[]);
    assert_eq!(
        failure(&malformed),
        "header \"Authorization Bearer x\" has no colon; write it as 'Name: value'"
    );
}

#[test]
fn says_what_is_wrong_with_a_url() {
    let home = Home::new(BIN);
    // A port nobody listens on: bound, then let go.
    let port = sieve_tests::free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    assert_eq!(
        failure(&probe(&home, &[&url], &[])),
        format!(
            "connection refused at {url}: nothing is listening there; start the server or correct the URL"
        )
    );
    assert_eq!(
        failure(&probe(&home, &["ftp://example.com/mcp"], &[])),
        "\"ftp://example.com/mcp\" is not an http:// or https:// URL; give the server's MCP endpoint"
    );
}

#[test]
fn a_scenario_calls_tools_and_answers_the_servers_questions() {
    let demo = DemoHttp::start(BIN);
    let home = Home::new(BIN);
    // purge_closed_issues asks to confirm: a server-to-client request on
    // 2025-11-25, an `input_required` result on 2026-07-28. Either way the
    // probe accepts the form, as the scenario's context asks it to call.
    let context = json!({"toolCalls": [{"name": "purge_closed_issues", "arguments": {}}]});
    for (protocol, rounds) in [("2025-11-25", 1), ("2026-07-28", 2)] {
        let found = probe(
            &home,
            &[&demo.url, "--protocol", protocol, "--json"],
            &[
                ("MCP_CONFORMANCE_SCENARIO", "tools_call"),
                ("MCP_CONFORMANCE_CONTEXT", &context.to_string()),
            ],
        )
        .json();
        let scenario = &found["scenario"];
        assert_eq!(scenario["name"], "tools_call", "{found}");
        let calls = scenario["calls"].as_array().expect("calls are listed");
        assert_eq!(calls.len(), rounds, "{protocol}: {scenario}");
        if rounds == 2 {
            assert_eq!(calls[0]["outcome"], "input_required", "{scenario}");
            assert_eq!(
                calls[0]["result"]["inputRequests"]["confirm"]["method"],
                "elicitation/create"
            );
        }
        let last = calls.last().unwrap();
        assert_eq!(last["name"], "purge_closed_issues");
        assert_eq!(last["outcome"], "complete", "{protocol}: {scenario}");
        assert!(
            last["result"]["structuredContent"]["purged"].is_number(),
            "{protocol}: the purge ran, so the form was accepted: {scenario}"
        );
    }

    // A call the server refuses is reported, and the exit status says so.
    let refused = probe(
        &home,
        &[&demo.url],
        &[
            ("MCP_CONFORMANCE_SCENARIO", "tools_call"),
            (
                "MCP_CONFORMANCE_CONTEXT",
                r#"{"toolCalls": [{"name": "no_such_tool", "arguments": {}}]}"#,
            ),
        ],
    );
    assert!(
        refused.stdout.contains("tools/call no_such_tool (failed: "),
        "{}",
        refused.stdout
    );
    assert!(
        failure(&refused).starts_with(
            "1 of the scenario's 1 calls failed; the first, tools/call \"no_such_tool\": error "
        ),
        "{}",
        refused.stderr
    );
}
