//! Tasks across protocol generations: server-everything's
//! `simulate-research-query` (a 2025-11-25 task: `params.task`,
//! `tasks/get`, `tasks/result`) and the demo's `run_job` (2026-07-28 tasks
//! extension), each used by hosts of both generations through the proxy.

use serde_json::{Value, json};
use sieve_tests::deps::deps;
use sieve_tests::wire::{WAIT, Wire};
use sieve_tests::{Home, python_client};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

fn with_everything_and_demo() -> Home {
    let home = Home::new(BIN);
    let deps = deps();
    // Both servers come up: a host's first list waits for both, however
    // long node takes to start on a busy machine.
    let config = json!({"mcpServers": {
        "everything": {"command": deps.node22, "args": [deps.server_everything, "stdio"]},
        "demo": {"command": BIN, "args": ["demo-server"]}
    }, "settings": {"startupWaitMs": 60000}});
    home.write("config.json", &config.to_string());
    home
}

/// A 2025-11-25 host that declares 2025-11-25 tasks.
fn legacy_tasks() -> Value {
    json!({"capabilities": {"sampling": {}, "elicitation": {}, "tasks": {"requests": {"tools": {"call": {}}}}}})
}

fn report(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

async fn until_done(host: &mut Wire, id: &str) -> Value {
    tokio::time::timeout(WAIT, async {
        loop {
            let state = host.request("tasks/get", json!({"taskId": id})).await;
            assert!(state.get("error").is_none(), "{state}");
            if state["result"]["status"] != "working" {
                return state;
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
    })
    .await
    .expect("the task ends")
}

#[tokio::test]
async fn a_2025_host_runs_tasks_of_both_generations() {
    let home = with_everything_and_demo();
    let mut host = Wire::start(BIN, home.path(), &[], legacy_tasks()).await;
    host.listing(&["everything", "demo"]).await;

    let created = host
        .request(
            "tools/call",
            json!({"name": "everything__simulate-research-query", "arguments": {"topic": "bees"}, "task": {"ttl": 60000}}),
        )
        .await;
    let task = &created["result"]["task"];
    let id = task["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {created}"))
        .to_string();
    assert!(id.starts_with("st-"), "a Sieve id: {created}");
    assert_eq!(task["status"], "working");
    let state = until_done(&mut host, &id).await;
    assert_eq!(state["result"]["status"], "completed", "{state}");
    let result = host.request("tasks/result", json!({"taskId": id})).await;
    assert!(
        report(&result["result"]).contains("Research Report: bees"),
        "{result}"
    );
    // The host was told of the change, in its revision's shape.
    let told = host.notification("notifications/tasks/status").await;
    assert_eq!(told["params"]["taskId"], id.as_str(), "{told}");

    // The 2026-07-28 task of the demo, the 2025-11-25 way.
    let created = host
        .request("tools/call", json!({"name": "demo__run_job", "arguments": {"duration_ms": 300, "label": "legacy"}, "task": {"ttl": 60000}}))
        .await;
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("{created}"))
        .to_string();
    // tasks/result waits for the end.
    let result = host.request("tasks/result", json!({"taskId": id})).await;
    assert!(result["result"].to_string().contains("legacy"), "{result}");
    let listed = host
        .request("tasks/list", json!({"status": ["completed"]}))
        .await;
    assert_eq!(
        listed["result"]["tasks"].as_array().unwrap().len(),
        2,
        "{listed}"
    );

    // Cancelling a running 2025-11-25 task.
    let created = host
        .request(
            "tools/call",
            json!({"name": "everything__simulate-research-query", "arguments": {"topic": "ants"}, "task": {"ttl": 60000}}),
        )
        .await;
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    let cancelled = host.request("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    host.close().await;
}

/// A 2025-11-25 task of a server reached over streamable HTTP: the tool's
/// `execution.taskSupport` reaches the proxy through the HTTP tap, so the
/// call is bridged as it is for a stdio server.
#[tokio::test]
async fn a_2025_task_of_an_http_server_is_bridged() {
    let (_everything, url) = sieve_tests::everything_http();
    let home = Home::new(BIN);
    let config = json!({"mcpServers": {
        "everything": {"type": "http", "url": url},
    }, "settings": {"startupWaitMs": 60000}});
    home.write("config.json", &config.to_string());
    let mut host = Wire::start(BIN, home.path(), &[], legacy_tasks()).await;
    let listed = host.listing(&["everything"]).await;
    let research = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "everything__simulate-research-query")
        .unwrap_or_else(|| panic!("the research tool: {listed}"));
    assert!(
        research["execution"]["taskSupport"].is_string(),
        "the tool's execution reaches the host over an HTTP upstream: {research}"
    );
    let created = host
        .request(
            "tools/call",
            json!({"name": "everything__simulate-research-query", "arguments": {"topic": "wasps"}, "task": {"ttl": 60000}}),
        )
        .await;
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {created}"))
        .to_string();
    assert!(id.starts_with("st-"), "a Sieve id: {created}");
    let state = until_done(&mut host, &id).await;
    assert_eq!(state["result"]["status"], "completed", "{state}");
    let result = host.request("tasks/result", json!({"taskId": id})).await;
    assert!(
        report(&result["result"]).contains("Research Report: wasps"),
        "{result}"
    );
    host.close().await;
}

#[tokio::test]
async fn a_host_without_tasks_gets_the_research_report() {
    let home = with_everything_and_demo();
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    host.listing(&["everything", "demo"]).await;
    let done = host
        .request(
            "tools/call",
            json!({"name": "everything__simulate-research-query", "arguments": {"topic": "owls"}}),
        )
        .await;
    assert!(
        report(&done["result"]).contains("Research Report: owls"),
        "the proxy ran the required task: {done}"
    );
    host.close().await;

    // The same through the Python client on 2026-07-28.
    let command = format!("{BIN} --home {} serve", home.path().display());
    let lines = python_client(
        &[
            "--stdio",
            &command,
            "--protocol",
            "2026-07-28",
            "--timeout",
            "60",
        ],
        &json!([
            {"op": "list_tools"},
            {"op": "call_tool", "name": "everything__simulate-research-query", "arguments": {"topic": "moths"}}
        ]),
    );
    assert_eq!(lines[0]["result"]["protocolVersion"], "2026-07-28");
    assert!(
        report(&lines[2]["result"]).contains("Research Report: moths"),
        "{}",
        lines[2]
    );
}

#[tokio::test]
async fn a_host_with_the_tasks_extension_gets_2026_tasks_from_a_2025_server() {
    let home = with_everything_and_demo();
    let modern = json!({"capabilities": {"sampling": {}, "elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}});
    let mut host = Wire::start(BIN, home.path(), &[], modern).await;
    host.listing(&["everything", "demo"]).await;
    let created = host
        .request(
            "tools/call",
            json!({"name": "everything__simulate-research-query", "arguments": {"topic": "wasps"}}),
        )
        .await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_string();
    let state = until_done(&mut host, &id).await;
    assert_eq!(state["result"]["status"], "completed", "{state}");
    assert!(
        report(&state["result"]["result"]).contains("Research Report: wasps"),
        "the payload: {state}"
    );
    host.close().await;
}
