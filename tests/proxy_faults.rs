//! Upstreams that fail on purpose (`tests/bin/fault-server.rs`, and the
//! demo server over HTTP killed mid-call), behind `mcp-sieve serve`. In each
//! case the proxy keeps serving the other server, answers the affected call
//! with an error naming the server within the call timeout, records the
//! call in the ledger, comes back, and leaves no process behind.

use serde_json::{Value, json};
use sieve_tests::Home;
use sieve_tests::procs::{crash, descendants};
use sieve_tests::wire::{Wire, tool_names};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");
const FAULT: &str = env!("CARGO_BIN_EXE_fault-server");
/// `settings.callTimeoutSeconds` of these tests.
const CALL_TIMEOUT: u64 = 3;

/// A home with the demo server as `good` and the fault server as `faulty`
/// (with `fault_args`), and a short call timeout.
fn home_with(fault_args: &[&str]) -> Home {
    home_timing_out(fault_args, CALL_TIMEOUT)
}

fn home_timing_out(fault_args: &[&str], call_timeout: u64) -> Home {
    let home = Home::new(BIN);
    let config = json!({
        "mcpServers": {
            "good": {"command": BIN, "args": ["demo-server"]},
            "faulty": {"command": FAULT, "args": fault_args},
        },
        "settings": {"callTimeoutSeconds": call_timeout},
    });
    home.write("config.json", &config.to_string());
    home
}

async fn call(host: &mut Wire, tool: &str, arguments: Value) -> Value {
    host.request("tools/call", json!({"name": tool, "arguments": arguments}))
        .await
}

/// The error message of `answer`, which must be an error.
fn error_message(answer: &Value) -> String {
    answer["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("an error: {answer}"))
        .to_string()
}

/// `good` still answers, quickly.
async fn good_serves(host: &mut Wire) {
    let started = Instant::now();
    let answer = call(host, "good__echo", json!({"text": "still here"})).await;
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "good answered in {:?}",
        started.elapsed()
    );
}

/// Waits until `faulty__echo` answers again.
async fn comes_back(host: &mut Wire, server: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let answer = call(host, &format!("{server}__echo"), json!({"text": "back"})).await;
        if answer["result"]["isError"] == false {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{server} did not come back: {answer}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The failed calls of the ledger, as `tasks/list` shows them.
async fn failed_calls(host: &mut Wire) -> Vec<Value> {
    let listed = host
        .request("tasks/list", json!({"status": ["failed", "cancelled"]}))
        .await;
    listed["result"]["tasks"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_crashes_mid_call() {
    let home = home_with(&[]);
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let before = descendants(host.pid());

    let started = Instant::now();
    let crashed = call(&mut host, "faulty__crash", json!({})).await;
    let message = error_message(&crashed);
    assert!(
        message.contains("server \"faulty\""),
        "names the server: {message}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(CALL_TIMEOUT),
        "answered at once, not at the timeout: {:?}",
        started.elapsed()
    );
    good_serves(&mut host).await;
    let recorded = failed_calls(&mut host).await;
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    assert_eq!(recorded[0]["_meta"]["dev.mcp-sieve/tool"], "faulty__crash");

    comes_back(&mut host, "faulty").await;
    // One new process in place of the crashed one; nothing piles up.
    let after = descendants(host.pid());
    assert_eq!(after.len(), before.len(), "{before:?} → {after:?}");
    host.close_leaving_nothing().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_hangs_is_cut_off_at_the_call_timeout() {
    let home = home_with(&[]);
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let started = Instant::now();
    let hanging = host
        .send_request(
            "tools/call",
            json!({"name": "faulty__hang", "arguments": {}}),
        )
        .await;
    // While it hangs, both servers serve other calls.
    good_serves(&mut host).await;
    let echo = call(&mut host, "faulty__echo", json!({"text": "beside"})).await;
    assert_eq!(echo["result"]["isError"], false, "{echo}");

    let answer = host.response(hanging).await;
    let took = started.elapsed();
    let message = error_message(&answer);
    assert!(
        message.contains("faulty") && message.contains(&format!("within {CALL_TIMEOUT}s")),
        "{message}"
    );
    assert!(
        took >= Duration::from_secs(CALL_TIMEOUT) && took < Duration::from_secs(CALL_TIMEOUT + 3),
        "cut off at the timeout: {took:?}"
    );
    let recorded = failed_calls(&mut host).await;
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    assert_eq!(recorded[0]["_meta"]["dev.mcp-sieve/tool"], "faulty__hang");
    host.close_leaving_nothing().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn garbage_and_half_lines_on_a_servers_stdout() {
    let home = home_with(&[]);
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;

    // A line that is no message is skipped; the answer after it arrives.
    let garbage = call(&mut host, "faulty__garbage", json!({})).await;
    assert_eq!(
        garbage["result"]["content"][0]["text"], "after garbage",
        "{garbage}"
    );

    // Half a message glues itself to the answer, which is lost: the call
    // is cut off at the timeout, with the server named.
    let started = Instant::now();
    let half = call(&mut host, "faulty__half_line", json!({})).await;
    let message = error_message(&half);
    assert!(
        message.contains("faulty") && message.contains(&format!("within {CALL_TIMEOUT}s")),
        "{message}"
    );
    assert!(started.elapsed() < Duration::from_secs(CALL_TIMEOUT + 3));
    // The connection goes on: the next line is whole again.
    let echo = call(&mut host, "faulty__echo", json!({"text": "whole"})).await;
    assert_eq!(echo["result"]["content"][0]["text"], "whole", "{echo}");
    good_serves(&mut host).await;
    let recorded = failed_calls(&mut host).await;
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    assert_eq!(
        recorded[0]["_meta"]["dev.mcp-sieve/tool"],
        "faulty__half_line"
    );
    host.close_leaving_nothing().await;
}

/// How many notifications may wait for one host (`hosts::OUTBOX_CAPACITY`).
const OUTBOX_CAPACITY: u64 = 8192;

#[tokio::test(flavor = "multi_thread")]
async fn a_flood_of_notifications() {
    let home = home_timing_out(&[], 120);
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    const COUNT: u64 = 20_000;
    let started = Instant::now();
    let flood = host
        .send_request(
            "tools/call",
            json!({"name": "faulty__flood", "arguments": {"count": COUNT}}),
        )
        .await;
    let answer = host.response(flood).await;
    eprintln!("flood took {:?}", started.elapsed());
    assert_eq!(
        answer["result"]["content"][0]["text"],
        format!("sent {COUNT}"),
        "{answer}"
    );
    good_serves(&mut host).await;
    // Log messages reach the host once each, naming the server (not
    // always in order: rmcp handles each incoming notification in a task
    // of its own). A host more than the outbox's 8,192 notifications
    // behind loses the overflow, with a warning, rather than the proxy's
    // memory growing: on a busy machine the proxy's writes to this host
    // fall that far behind during a flood, so all of them arrive only
    // when the machine keeps up.
    host.settle(Duration::from_millis(500)).await;
    let mut seen = std::collections::BTreeSet::new();
    while let Some(message) = host.take_notification("notifications/message") {
        assert_eq!(message["params"]["logger"], "faulty", "{message}");
        let data = message["params"]["data"].as_str().unwrap().to_string();
        assert!(seen.insert(data.clone()), "{data} arrived twice");
    }
    let arrived = seen.len() as u64;
    eprintln!("{arrived} of {COUNT} log messages arrived");
    assert!(
        (OUTBOX_CAPACITY..=COUNT).contains(&arrived),
        "at least a full outbox of log messages arrives, got {arrived}"
    );
    host.close_leaving_nothing().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_five_megabyte_tool_list() {
    let home = home_with(&["--tools-mb", "5"]);
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let listed = host.request("tools/list", json!({})).await;
    let names = tool_names(&listed);
    let faulty = names.iter().filter(|n| n.starts_with("faulty__")).count();
    let good = names.iter().filter(|n| n.starts_with("good__")).count();
    assert_eq!(good, 40, "the other server's tools are all there");
    assert!(faulty > 2_000, "thousands of padding tools: {faulty}");
    assert!(
        listed.to_string().len() > 5 * 1024 * 1024,
        "the list is over 5 MB"
    );
    let echo = call(&mut host, "faulty__echo", json!({"text": "big"})).await;
    assert_eq!(echo["result"]["content"][0]["text"], "big", "{echo}");
    good_serves(&mut host).await;
    host.close_leaving_nothing().await;
}

/// A server that exits at every start is started again with growing waits
/// (0.25 s, 0.5 s, 1 s, 2 s, …), not in a tight loop, and is reported with
/// its last words.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_exits_at_start_is_retried_with_backoff() {
    let home = Home::new(BIN);
    let starts = home.path().join("starts.log");
    let config = json!({"mcpServers": {
        "good": {"command": BIN, "args": ["demo-server"]},
        "dying": {"command": "sh", "args": ["-c", format!("echo start >> '{}'; echo 'missing API_KEY' >&2; exit 3", starts.display())]},
    }});
    home.write("config.json", &config.to_string());
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let started = Instant::now();
    good_serves(&mut host).await;
    let answer = call(&mut host, "dying__anything", json!({})).await;
    assert!(error_message(&answer).contains("unknown tool"), "{answer}");
    tokio::time::sleep(Duration::from_secs(4).saturating_sub(started.elapsed())).await;
    let count = std::fs::read_to_string(&starts)
        .unwrap_or_default()
        .lines()
        .count();
    // About 5 s since the proxy started: 1 + attempts after 0.25, 0.75,
    // 1.75 and 3.75 s; a tight loop would be hundreds.
    assert!((3..=7).contains(&count), "started {count} times");
    let listed = home.run(&["servers", "list", "--json"]).json();
    let dying = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "dying")
        .cloned()
        .unwrap();
    assert_eq!(dying["state"], "down", "{dying}");
    host.close_leaving_nothing().await;
}

/// The demo server over HTTP, killed while a call streams its progress:
/// the connection drops mid-stream. The call fails naming the server, the
/// other server serves, and the proxy reconnects once the server is back
/// on its port.
#[tokio::test(flavor = "multi_thread")]
async fn an_http_server_that_drops_the_connection_mid_stream() {
    let port = sieve_tests::free_port();
    let serve_http = || {
        std::process::Command::new(BIN)
            .args(["demo-server", "--http", &format!("127.0.0.1:{port}")])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the demo server starts")
    };
    let wait_listening = || {
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the demo server listens");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let mut remote = serve_http();
    wait_listening();
    let home = Home::new(BIN);
    let config = json!({
        "mcpServers": {
            "good": {"command": BIN, "args": ["demo-server"]},
            "remote": {"type": "http", "url": format!("http://127.0.0.1:{port}/mcp")},
        },
        "settings": {"callTimeoutSeconds": CALL_TIMEOUT},
    });
    home.write("config.json", &config.to_string());
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let long = host
        .send_request(
            "tools/call",
            json!({"name": "remote__reindex", "arguments": {"steps": 40, "step_ms": 100}, "_meta": {"progressToken": "p"}}),
        )
        .await;
    // Progress arrives: the stream is open. Then the server dies.
    host.notification("notifications/progress").await;
    crash(remote.id());
    let _ = remote.wait();
    let started = Instant::now();
    let answer = host.response(long).await;
    let message = error_message(&answer);
    assert!(
        message.contains("\"remote\""),
        "names the server: {message}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(CALL_TIMEOUT + 1),
        "{:?}",
        started.elapsed()
    );
    good_serves(&mut host).await;
    let recorded = failed_calls(&mut host).await;
    assert_eq!(recorded.len(), 1, "{recorded:?}");

    let mut remote = serve_http();
    wait_listening();
    comes_back(&mut host, "remote").await;
    host.close_leaving_nothing().await;
    let _ = remote.kill();
    let _ = remote.wait();
}
