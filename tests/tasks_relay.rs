//! Tasks an upstream creates (the 2026-07-28 tasks extension, here from
//! the demo server's `run_job`): recorded under Sieve ids, handed to hosts
//! that take tasks, waited for on behalf of hosts that do not, cancelled,
//! and followed again after the proxy restarts.

use serde_json::{Value, json};
use sieve_tests::Home;
use sieve_tests::http::DemoHttp;
use sieve_tests::wire::{WAIT, Wire};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

fn tasks_capable() -> Value {
    json!({"capabilities": {"sampling": {}, "elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}})
}

async fn list(host: &mut Wire, params: Value) -> Vec<Value> {
    let response = host.request("tasks/list", params).await;
    response["result"]["tasks"]
        .as_array()
        .unwrap_or_else(|| panic!("{response}"))
        .clone()
}

async fn until_status(host: &mut Wire, id: &str, status: &str) -> Value {
    tokio::time::timeout(WAIT, async {
        loop {
            let state = host.request("tasks/get", json!({"taskId": id})).await;
            if state["result"]["status"] == status {
                return state;
            }
            assert!(state.get("error").is_none(), "{state}");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("task {id} never became {status}"))
}

#[tokio::test]
async fn a_host_without_tasks_gets_the_final_result() {
    let home = Home::new(BIN);
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let done = host
        .request(
            "tools/call",
            json!({"name": "demo__run_job", "arguments": {"duration_ms": 300, "label": "nightly"}}),
        )
        .await;
    assert_eq!(
        done["result"]["isError"], false,
        "the proxy waited for the task: {done}"
    );
    assert!(done.to_string().contains("nightly"), "{done}");
    let failed = host
        .request("tools/call", json!({"name": "demo__run_job", "arguments": {"duration_ms": 100, "outcome": "failure"}}))
        .await;
    assert!(
        failed.get("error").is_some() || failed["result"]["isError"] == true,
        "{failed}"
    );

    let recorded = list(&mut host, json!({"orderBy": "createdAt", "order": "asc"})).await;
    let tasks: Vec<&Value> = recorded
        .iter()
        .filter(|t| t["_meta"]["dev.mcp-sieve/kind"] == "task")
        .collect();
    assert_eq!(tasks.len(), 2, "{recorded:?}");
    assert_eq!(tasks[0]["status"], "completed");
    assert_eq!(tasks[1]["status"], "failed");
    let message = tasks[1]["statusMessage"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("failed: ") && !message.contains("is running"),
        "a failed task says how it ended, not what it said while it ran: {recorded:?}"
    );
    for task in &tasks {
        let id = task["taskId"].as_str().unwrap();
        assert!(id.starts_with("st-"), "a Sieve id: {id}");
        assert_ne!(
            task["_meta"]["dev.mcp-sieve/upstreamTaskId"].as_str(),
            Some(id)
        );
    }
    host.close().await;
}

#[tokio::test]
async fn a_host_with_tasks_polls_and_cancels_through_the_proxy() {
    let home = Home::new(BIN);
    let mut host = Wire::start(BIN, home.path(), &[], tasks_capable()).await;
    let created = host
        .request(
            "tools/call",
            json!({"name": "demo__run_job", "arguments": {"duration_ms": 400, "label": "report"}}),
        )
        .await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_string();
    assert!(id.starts_with("st-"), "{created}");
    let finished = until_status(&mut host, &id, "completed").await;
    assert!(finished.to_string().contains("report"), "{finished}");
    assert_eq!(finished["result"]["taskId"], id.as_str());
    let told = host.notification("notifications/tasks").await;
    assert_eq!(told["params"]["taskId"], id.as_str(), "{told}");
    // The ledger followed it too.
    let listed = list(&mut host, json!({"taskIds": [id]})).await;
    assert_eq!(listed[0]["status"], "completed");

    let long = host
        .request(
            "tools/call",
            json!({"name": "demo__run_job", "arguments": {"duration_ms": 30000}}),
        )
        .await;
    let long_id = long["result"]["taskId"].as_str().unwrap().to_string();
    let working = list(&mut host, json!({"status": ["working"]})).await;
    assert_eq!(working.len(), 1, "{working:?}");
    let cancelled = host
        .request("tasks/cancel", json!({"taskId": long_id}))
        .await;
    assert!(cancelled.get("error").is_none(), "{cancelled}");
    until_status(&mut host, &long_id, "cancelled").await;
    let unknown = host.request("tasks/get", json!({"taskId": "st-000"})).await;
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("there is no task"),
        "{unknown}"
    );
    host.close().await;

    // A profile that hides run_job hides its tasks, for tasks/get too.
    home.write("profiles/files.json", r#"{"groups": ["files"]}"#);
    let mut other = Wire::start(BIN, home.path(), &["--profile", "files"], tasks_capable()).await;
    let hidden = other.request("tasks/get", json!({"taskId": id})).await;
    assert!(hidden.get("error").is_some(), "{hidden}");
    assert!(list(&mut other, json!({})).await.is_empty());
    other.close().await;
}

#[tokio::test]
async fn live_tasks_are_followed_after_a_restart() {
    // A demo server of its own over HTTP outlives the proxies.
    let demo = DemoHttp::start(BIN);
    let url = demo.url.clone();
    let home = Home::new(BIN);
    home.write(
        "config.json",
        &json!({"mcpServers": {"jobs": {"type": "http", "url": url}}}).to_string(),
    );

    let mut first = Wire::start(BIN, home.path(), &[], tasks_capable()).await;
    first.listing(&["jobs"]).await;
    let created = first
        .request(
            "tools/call",
            json!({"name": "jobs__run_job", "arguments": {"duration_ms": 1500}}),
        )
        .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_string();
    first.close().await;
    let left = home.run(&["tasks", "--json"]).json();
    assert_eq!(left["tasks"][0]["status"], "working", "{left}");

    // A new proxy, with no host asking, brings the entry up to date.
    let mut second = Wire::start(BIN, home.path(), &[], json!({})).await;
    tokio::time::timeout(WAIT, async {
        loop {
            if list(
                &mut second,
                json!({"taskIds": [id], "status": ["completed"]}),
            )
            .await
            .len()
                == 1
            {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the restarted proxy resumed following the task");
    second.close().await;
    drop(demo);
}
