//! The proxy in front of the reference server
//! `@modelcontextprotocol/server-everything@2026.8.31` (npm, over stdio):
//! its dynamic tool list, calls, progress, elicitation, sampling, prompts,
//! resources and completion all pass through under exposed names.

use serde_json::{Value, json};
use sieve_tests::Home;
use sieve_tests::deps::deps;
use sieve_tests::wire::{Wire, tool_names};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

fn with_everything(profile: Option<&str>) -> Home {
    let home = Home::new(BIN);
    let deps = deps();
    // It always comes up: a host's first list waits for it, however long
    // node takes to start on a busy machine.
    let config = json!({"mcpServers": {"everything": {
        "command": deps.node22,
        "args": [deps.server_everything, "stdio"]
    }}, "settings": {"startupWaitMs": 60000}});
    home.write("config.json", &config.to_string());
    if let Some(profile) = profile {
        home.write("profiles/work.json", profile);
    }
    home
}

fn text(response: &Value) -> String {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn server_everything_through_the_proxy() {
    let home = with_everything(None);
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let names = tool_names(&host.listing(&["everything"]).await);
    assert!(
        names.iter().all(|n| n.starts_with("everything__")),
        "{names:?}"
    );
    // The tools server-everything adds after `initialized`, for a client that
    // can sample and elicit, are there: the proxy followed its list_changed.
    for dynamic in [
        "everything__trigger-sampling-request",
        "everything__trigger-elicitation-request",
        "everything__get-roots-list",
    ] {
        assert!(
            names.contains(&dynamic.to_string()),
            "{dynamic} missing from {names:?}"
        );
    }
    assert!((13..=19).contains(&names.len()), "{names:?}");

    let echo = host
        .request(
            "tools/call",
            json!({"name": "everything__echo", "arguments": {"message": "hello"}}),
        )
        .await;
    assert_eq!(text(&echo), "Echo: hello", "{echo}");
    let sum = host
        .request(
            "tools/call",
            json!({"name": "mcp://tools/everything/get-sum", "arguments": {"a": 2, "b": 40}}),
        )
        .await;
    assert!(text(&sum).contains("42"), "{sum}");

    every_step_ahead_of_the_answer(&mut host, "everything").await;

    let id = host
        .send_request(
            "tools/call",
            json!({"name": "everything__trigger-elicitation-request", "arguments": {}}),
        )
        .await;
    let ask = host.server_request().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    host.answer(ask["id"].clone(), json!({"action": "decline"}))
        .await;
    let declined = host.response(id).await;
    assert!(
        declined["result"]
            .to_string()
            .to_lowercase()
            .contains("decline"),
        "{declined}"
    );

    let id = host
        .send_request("tools/call", json!({"name": "everything__trigger-sampling-request", "arguments": {"prompt": "Say hi", "maxTokens": 10}}))
        .await;
    let ask = host.server_request().await;
    assert_eq!(ask["method"], "sampling/createMessage", "{ask}");
    host.answer(
        ask["id"].clone(),
        json!({"role": "assistant", "content": {"type": "text", "text": "hi from the host"}, "model": "host-model"}),
    )
    .await;
    let sampled = host.response(id).await;
    assert!(
        sampled.to_string().contains("hi from the host"),
        "{sampled}"
    );

    let prompt = host
        .request(
            "prompts/get",
            json!({"name": "everything__args-prompt", "arguments": {"city": "Lisbon"}}),
        )
        .await;
    assert!(prompt.to_string().contains("Lisbon"), "{prompt}");
    let resources = host.request("resources/list", json!({})).await;
    let uri = resources["result"]["resources"][0]["uri"]
        .as_str()
        .unwrap()
        .to_string();
    let read = host.request("resources/read", json!({"uri": uri})).await;
    assert_eq!(read["result"]["contents"][0]["uri"], uri, "{read}");
    let templated = host
        .request(
            "resources/read",
            json!({"uri": "demo://resource/dynamic/text/7"}),
        )
        .await;
    assert!(
        templated["result"]["contents"][0]["text"]
            .as_str()
            .is_some(),
        "read through a template: {templated}"
    );
    host.close().await;
}

#[tokio::test]
async fn server_everything_filtered() {
    let home = with_everything(Some(
        r#"{"tools": {"allow": ["everything__get-*", "everything__echo"]}, "prompts": {"deny": ["*"]}}"#,
    ));
    let mut host = Wire::start(BIN, home.path(), &["--profile", "work"], json!({})).await;
    let names = tool_names(&host.listing(&["everything"]).await);
    assert!(
        names
            .iter()
            .all(|n| n.starts_with("everything__get-") || n == "everything__echo"),
        "{names:?}"
    );
    assert!(names.len() >= 7, "{names:?}");
    let refused = host
        .request(
            "tools/call",
            json!({"name": "everything__trigger-sampling-request", "arguments": {"prompt": "x"}}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let prompts = host.request("prompts/list", json!({})).await;
    assert_eq!(prompts["result"]["prompts"], json!([]));
    let get = host
        .request("prompts/get", json!({"name": "everything__simple-prompt"}))
        .await;
    assert!(
        get["error"]["message"]
            .as_str()
            .unwrap()
            .contains("hidden by profile"),
        "{get}"
    );
    host.close().await;
}

#[tokio::test]
async fn server_everything_over_streamable_http_upstream() {
    let (_everything, url) = sieve_tests::everything_http();
    let home = Home::new(BIN);
    home.write(
        "config.json",
        &json!({"mcpServers": {"remote": {"type": "http", "url": url, "headers": {"X-Api-Key": "not-logged"}}}}).to_string(),
    );
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let names = tool_names(&host.listing(&["remote"]).await);
    assert!(names.contains(&"remote__echo".to_string()), "{names:?}");
    let echo = host
        .request(
            "tools/call",
            json!({"name": "remote__echo", "arguments": {"message": "over http"}}),
        )
        .await;
    assert_eq!(text(&echo), "Echo: over http", "{echo}");
    every_step_ahead_of_the_answer(&mut host, "remote").await;
    host.close().await;
    let status = home.run(&["servers", "list", "--json"]).json();
    assert_eq!(status[0]["transport"], "http");
    assert_eq!(status[0]["state"], "up", "{status}");
    assert!(
        !status.to_string().contains("not-logged"),
        "header values are secrets: {status}"
    );
}

#[test]
fn a_2026_host_answers_a_2025_servers_questions_as_input_required() {
    let home = with_everything(None);
    let command = format!("{BIN} --home {} serve", home.path().display());
    // Listed first: a call to a server that has not answered is refused.
    let script = json!([
        {"op": "list_tools"},
        {"op": "call_tool", "name": "everything__trigger-elicitation-request", "arguments": {}},
        {"op": "call_tool", "name": "everything__trigger-elicitation-request", "arguments": {},
         "answers": {"elicitation/create": {"action": "accept", "content": {"name": "Ada Lovelace", "check": true}}}},
        {"op": "call_tool", "name": "everything__trigger-sampling-request", "arguments": {"prompt": "Say hi"},
         "answers": {"sampling/createMessage": {"role": "assistant", "content": {"type": "text", "text": "hi from the host"}, "model": "host-model"}}}
    ]);
    let lines =
        sieve_tests::python_client(&["--stdio", &command, "--protocol", "2026-07-28"], &script);
    assert_eq!(lines[0]["result"]["protocolVersion"], "2026-07-28");
    // The question comes to the host as an input_required result...
    let asked = &lines[2]["result"];
    assert_eq!(asked["resultType"], "input_required", "{asked}");
    assert!(
        asked["requestState"]
            .as_str()
            .is_some_and(|s| s.starts_with("rs-")),
        "{asked}"
    );
    let request = asked["inputRequests"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap()
        .clone();
    assert_eq!(request["method"], "elicitation/create", "{asked}");
    // ...and the host's answer reaches the server, which finishes the call.
    assert_eq!(lines[3]["result"]["x-rounds"], 1, "{}", lines[3]);
    assert!(
        lines[3].to_string().contains("Ada Lovelace"),
        "{}",
        lines[3]
    );
    assert!(
        lines[4].to_string().contains("hi from the host"),
        "{}",
        lines[4]
    );
}

/// A long operation's progress, many times over: the server writes its
/// last progress and its answer back to back, and every step reaches the
/// host, ahead of the answer.
async fn every_step_ahead_of_the_answer(host: &mut Wire, server: &str) {
    for round in 0..5 {
        let token = format!("long-op-{round}");
        let id = host
            .send_request(
                "tools/call",
                json!({"name": format!("{server}__trigger-long-running-operation"), "arguments": {"duration": 0.06, "steps": 3}, "_meta": {"progressToken": token}}),
            )
            .await;
        let mut steps = Vec::new();
        let done = loop {
            let message = host.next_message().await;
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                break message;
            }
            if message["method"] == "notifications/progress" {
                assert_eq!(
                    message["params"]["progressToken"],
                    token.as_str(),
                    "{message}"
                );
                steps.push(message["params"]["progress"].as_f64().expect("a number"));
            }
        };
        assert!(text(&done).contains("completed"), "{done}");
        assert_eq!(steps, [1.0, 2.0, 3.0], "round {round}");
    }
}
