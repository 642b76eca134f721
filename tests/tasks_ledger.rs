//! The task ledger through the proxy: failed, cut-off and cancelled calls
//! are recorded, listed with the task-list filters, retried as linked
//! entries, and shared by several proxy processes.

use serde_json::{Value, json};
use sieve_tests::Home;
use sieve_tests::wire::Wire;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

fn tasks(response: &Value) -> Vec<Value> {
    response["result"]["tasks"]
        .as_array()
        .unwrap_or_else(|| panic!("not a tasks/list result: {response}"))
        .clone()
}

#[tokio::test]
async fn failed_calls_are_recorded_listed_and_retried() {
    let home = Home::new(BIN);
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let init = host.request("tools/list", json!({})).await;
    assert!(init["result"]["tools"].is_array());

    let missing = host
        .request(
            "tools/call",
            json!({"name": "demo__get_issue", "arguments": {"id": 999}}),
        )
        .await;
    assert_eq!(missing["result"]["isError"], true, "{missing}");
    let fine = host
        .request(
            "tools/call",
            json!({"name": "demo__get_issue", "arguments": {"id": 1}}),
        )
        .await;
    assert_eq!(fine["result"]["isError"], false, "{fine}");

    let listed = host.request("tasks/list", json!({})).await;
    let entries = tasks(&listed);
    assert_eq!(entries.len(), 1, "only the failed call is kept: {listed}");
    let failed = &entries[0];
    assert_eq!(failed["status"], "failed");
    assert!(
        failed["statusMessage"].as_str().unwrap().contains("999"),
        "{failed}"
    );
    assert_eq!(failed["_meta"]["dev.mcp-sieve/tool"], "demo__get_issue");
    assert_eq!(failed["_meta"]["dev.mcp-sieve/kind"], "call");
    let id = failed["taskId"].as_str().unwrap().to_string();

    let retried = host.request("tasks/retry", json!({"taskId": id})).await;
    assert_eq!(
        retried["result"]["task"]["_meta"]["dev.mcp-sieve/retryOf"],
        id.as_str(),
        "{retried}"
    );
    assert_eq!(
        retried["result"]["task"]["status"], "failed",
        "issue 999 is still missing: {retried}"
    );
    let all = tasks(
        &host
            .request(
                "tasks/list",
                json!({"orderBy": "createdAt", "order": "asc"}),
            )
            .await,
    );
    assert_eq!(all.len(), 2);
    assert_eq!(all[0]["taskId"], id.as_str());
    assert_eq!(all[1]["_meta"]["dev.mcp-sieve/retryOf"], id.as_str());

    let only_failed = host
        .request("tasks/list", json!({"status": ["completed"]}))
        .await;
    assert!(tasks(&only_failed).is_empty());
    for (params, field) in [
        (json!({"status": ["done"]}), "status"),
        (json!({"createdAfter": "yesterday"}), "createdAfter"),
        (json!({"orderBy": "name"}), "orderBy"),
    ] {
        let bad = host.request("tasks/list", params).await;
        assert_eq!(bad["error"]["code"], -32602, "{bad}");
        assert!(
            bad["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{field}: ")),
            "{bad}"
        );
    }
    let unknown = host
        .request("tasks/retry", json!({"taskId": "st-nope"}))
        .await;
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("there is no task"),
        "{unknown}"
    );
    host.close().await;

    // Another profile that hides the tool does not see its entries.
    home.write("profiles/noissues.json", r#"{"groups": ["billing"]}"#);
    let mut other = Wire::start(BIN, home.path(), &["--profile", "noissues"], json!({})).await;
    assert!(tasks(&other.request("tasks/list", json!({})).await).is_empty());
    other.close().await;

    // And the command line sees everything.
    let cli = home.run(&["tasks", "--status", "failed", "--json"]).json();
    assert_eq!(cli["tasks"].as_array().unwrap().len(), 2, "{cli}");
    let shown = home.run(&["tasks", "show", &id]).json();
    assert_eq!(
        shown["params"]["arguments"]["id"], 999,
        "params are kept for retry: {shown}"
    );
    let table = home.run(&["tasks"]);
    assert!(table.stdout.contains("demo__get_issue"), "{}", table.stdout);
    let bad = home.run(&["tasks", "--status", "done"]);
    assert!(!bad.ok);
    assert!(
        bad.stderr.contains("--status: unknown status \"done\""),
        "{}",
        bad.stderr
    );
}

/// A proxy over one demo server that writes its process id to
/// `demo.pid`, so a test can kill it; the host has listed it.
async fn with_a_killable_demo() -> (Home, Wire) {
    let home = Home::new(BIN);
    let pid_file = home.path().join("demo.pid");
    let config = json!({"mcpServers": {"demo": {
        "command": "sh",
        "args": ["-c", format!("echo $$ > '{}'; exec '{BIN}' demo-server", pid_file.display())]
    }}});
    home.write("config.json", &config.to_string());
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    host.listing(&["demo"]).await;
    (home, host)
}

/// Kills the demo server of [`with_a_killable_demo`] while request `id`
/// is in flight: it is answered with an error naming the server.
async fn killed_mid_call(home: &Home, host: &mut Wire, id: u64) {
    let pid = home.read("demo.pid").trim().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-9", &pid])
            .status()
            .unwrap()
            .success()
    );
    let cut = host.response(id).await;
    assert!(
        cut["error"]["message"]
            .as_str()
            .unwrap()
            .contains("server \"demo\""),
        "{cut}"
    );
}

#[tokio::test]
async fn calls_cut_off_by_a_dying_server_or_the_host_are_retryable() {
    let (home, mut host) = with_a_killable_demo().await;

    let id = host
        .send_request("tools/call", json!({"name": "demo__reindex", "arguments": {"steps": 10, "step_ms": 100}, "_meta": {"progressToken": 1}}))
        .await;
    host.notification("notifications/progress").await;
    killed_mid_call(&home, &mut host, id).await;

    let id = host
        .send_request(
            "tools/call",
            json!({"name": "demo__echo", "arguments": {"text": "x"}}),
        )
        .await;
    let _ = host.response(id).await;

    let listed = tasks(
        &host
            .request("tasks/list", json!({"status": ["failed"]}))
            .await,
    );
    let reindex = listed
        .iter()
        .find(|t| t["_meta"]["dev.mcp-sieve/tool"] == "demo__reindex")
        .unwrap_or_else(|| panic!("the cut-off call is recorded: {listed:?}"));
    let reindex_id = reindex["taskId"].as_str().unwrap().to_string();

    // Once the server is back, the retry runs the same request to completion.
    let retried = loop {
        let answer = host
            .request("tasks/retry", json!({"taskId": reindex_id}))
            .await;
        if answer["result"]["task"]["status"] == "completed" {
            break answer;
        }
    };
    assert_eq!(
        retried["result"]["result"]["structuredContent"]["steps"], 10,
        "{retried}"
    );
    let again = host
        .request(
            "tasks/retry",
            json!({"taskId": retried["result"]["task"]["taskId"]}),
        )
        .await;
    assert!(
        again["error"]["message"]
            .as_str()
            .unwrap()
            .contains("completed; retry with force"),
        "{again}"
    );

    // A call the host cancels is recorded as cancelled.
    let id = host
        .send_request("tools/call", json!({"name": "demo__reindex", "arguments": {"steps": 50, "step_ms": 200}, "_meta": {"progressToken": 2}}))
        .await;
    host.notification("notifications/progress").await;
    host.notify("notifications/cancelled", json!({"requestId": id}))
        .await;
    let cancelled = loop {
        let listed = tasks(
            &host
                .request("tasks/list", json!({"status": ["cancelled"]}))
                .await,
        );
        if !listed.is_empty() {
            break listed;
        }
    };
    assert_eq!(cancelled[0]["statusMessage"], "cancelled by the host");
    host.close().await;
}

/// A call without `_meta` is sent on where it is read, with no task of
/// its own (crates/sieve-gateway/src/front/express.rs). Cancelled by its
/// host, it is cancelled at the server too, answered as cancelled and
/// recorded as such; cut off by its server dying, it is answered with the
/// server's name and recorded for retry; and the connection serves on.
#[tokio::test]
async fn a_plain_call_cancelled_or_cut_off_is_answered_told_upstream_and_recorded() {
    let (home, mut host) = with_a_killable_demo().await;

    let id = host
        .send_request(
            "tools/call",
            json!({"name": "demo__reindex", "arguments": {"steps": 50, "step_ms": 200}}),
        )
        .await;
    host.notify(
        "notifications/cancelled",
        json!({"requestId": id, "reason": "user gave up"}),
    )
    .await;
    let answer = host.response(id).await;
    assert_eq!(
        answer["error"]["message"], "cancelled by the host",
        "{answer}"
    );
    let step = sieve_tests::reindex_cancelled_at(&mut host).await;
    assert!(step < 50, "cancelled long before the end, at step {step}");
    let cancelled = tasks(
        &host
            .request("tasks/list", json!({"status": ["cancelled"]}))
            .await,
    );
    assert_eq!(cancelled.len(), 1, "{cancelled:?}");
    assert_eq!(cancelled[0]["_meta"]["dev.mcp-sieve/tool"], "demo__reindex");
    assert_eq!(cancelled[0]["statusMessage"], "cancelled by the host");

    // Cut off by its server dying: answered at once, naming the server.
    let id = host
        .send_request(
            "tools/call",
            json!({"name": "demo__reindex", "arguments": {"steps": 3, "step_ms": 10000}}),
        )
        .await;
    killed_mid_call(&home, &mut host, id).await;
    let failed = tasks(
        &host
            .request("tasks/list", json!({"status": ["failed"]}))
            .await,
    );
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["_meta"]["dev.mcp-sieve/tool"], "demo__reindex");
    // The server back, plain calls go on.
    let echoed = loop {
        let answer = host
            .request(
                "tools/call",
                json!({"name": "demo__echo", "arguments": {"text": "again"}}),
            )
            .await;
        if answer.get("result").is_some() {
            break answer;
        }
    };
    assert_eq!(
        echoed["result"]["structuredContent"]["text"], "again",
        "{echoed}"
    );
    host.close().await;
}

#[tokio::test]
async fn two_proxies_share_the_ledger() {
    let home = Home::new(BIN);
    let mut one = Wire::start(BIN, home.path(), &[], json!({})).await;
    let mut two = Wire::start(BIN, home.path(), &[], json!({})).await;
    const CALLS: u64 = 40;
    let (a, b) = tokio::join!(
        async {
            for i in 0..CALLS {
                one.request(
                    "tools/call",
                    json!({"name": "demo__get_issue", "arguments": {"id": 1000 + i}}),
                )
                .await;
            }
        },
        async {
            for i in 0..CALLS {
                two.request(
                    "tools/call",
                    json!({"name": "demo__get_issue", "arguments": {"id": 2000 + i}}),
                )
                .await;
            }
        }
    );
    let _ = (a, b);
    let mut seen = Vec::new();
    let mut cursor = Value::Null;
    loop {
        let page = one
            .request("tasks/list", json!({"limit": 7, "cursor": cursor}))
            .await;
        seen.extend(tasks(&page));
        cursor = page["result"]["nextCursor"].clone();
        if cursor.is_null() {
            break;
        }
    }
    assert_eq!(seen.len() as u64, 2 * CALLS, "nothing lost, nothing twice");
    let mut ids: Vec<&str> = seen.iter().map(|t| t["taskId"].as_str().unwrap()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len() as u64, 2 * CALLS);
    one.close().await;
    two.close().await;
}

#[tokio::test]
async fn a_call_past_the_timeout_is_cut_off_and_recorded() {
    let home = Home::new(BIN);
    home.write("config.json", r#"{"settings": {"callTimeoutSeconds": 1}}"#);
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let slow = host
        .request(
            "tools/call",
            json!({"name": "demo__reindex", "arguments": {"steps": 20, "step_ms": 200}}),
        )
        .await;
    let message = slow["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("{slow}"));
    assert!(
        message.contains("did not answer tools/call within 1s"),
        "{message}"
    );
    let recorded = tasks(
        &host
            .request("tasks/list", json!({"status": ["failed"]}))
            .await,
    );
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    assert_eq!(recorded[0]["_meta"]["dev.mcp-sieve/tool"], "demo__reindex");
    host.close().await;
    let bad = home.run(&["tools"]);
    assert!(bad.ok, "a valid setting: {}", bad.stderr);
    home.write("config.json", r#"{"settings": {"callTimeoutSeconds": 0}}"#);
    let zero = home.run(&["tools"]);
    assert!(
        zero.stderr
            .contains("settings.callTimeoutSeconds: must be at least 1"),
        "{}",
        zero.stderr
    );
}
