//! What passes between host and upstream through the proxy: progress,
//! cancellation, elicitation, sampling, logging, upstream list changes;
//! and what happens when an upstream dies.

use serde_json::{Value, json};
use sieve_tests::Home;
use sieve_tests::wire::{WAIT, Wire, tool_names};
use std::path::Path;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

#[tokio::test]
async fn progress_elicitation_sampling_and_logging_round_trip() {
    let home = Home::new(BIN);
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;

    let id = host
        .send_request(
            "tools/call",
            json!({"name": "demo__reindex", "arguments": {"steps": 3, "step_ms": 20}, "_meta": {"progressToken": "host-token-1"}}),
        )
        .await;
    let response = host.response(id).await;
    assert_eq!(
        response["result"]["structuredContent"]["steps"], 3,
        "{response}"
    );
    for step in 1..=3 {
        let progress = host.notification("notifications/progress").await;
        assert_eq!(
            progress["params"]["progressToken"], "host-token-1",
            "mapped back to our token: {progress}"
        );
        assert_eq!(progress["params"]["progress"], step as f64);
    }
    let log = host.notification("notifications/message").await;
    assert_eq!(
        log["params"]["logger"], "demo/sieve-demo",
        "the server is named: {log}"
    );

    let id = host
        .send_request(
            "tools/call",
            json!({"name": "demo__purge_closed_issues", "arguments": {}}),
        )
        .await;
    let ask = host.server_request().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    host.answer(
        ask["id"].clone(),
        json!({"action": "accept", "content": {"confirm": true}}),
    )
    .await;
    let purged = host.response(id).await;
    assert_eq!(purged["result"]["isError"], false, "{purged}");

    let id = host
        .send_request(
            "tools/call",
            json!({"name": "demo__summarize_issue", "arguments": {"id": 1}}),
        )
        .await;
    let ask = host.server_request().await;
    assert_eq!(ask["method"], "sampling/createMessage", "{ask}");
    host.answer(
        ask["id"].clone(),
        json!({"role": "assistant", "content": {"type": "text", "text": "Login fails on Safari."}, "model": "test-model"}),
    )
    .await;
    let summary = host.response(id).await;
    assert!(
        summary.to_string().contains("Login fails on Safari."),
        "{summary}"
    );
    host.close().await;
}

#[tokio::test]
async fn cancellation_reaches_the_upstream() {
    let home = Home::new(BIN);
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let id = host
        .send_request("tools/call", json!({"name": "demo__reindex", "arguments": {"steps": 50, "step_ms": 200}, "_meta": {"progressToken": 9}}))
        .await;
    // Started: the first progress arrives.
    host.notification("notifications/progress").await;
    host.notify(
        "notifications/cancelled",
        json!({"requestId": id, "reason": "user gave up"}),
    )
    .await;
    let step = sieve_tests::reindex_cancelled_at(&mut host).await;
    assert!(step < 50, "cancelled long before the end, at step {step}");
    // The connection is still good.
    let list = host.request("tools/list", json!({})).await;
    assert_eq!(tool_names(&list).len(), 40);
    host.close().await;
}

#[tokio::test]
async fn upstream_list_changes_reach_the_host() {
    let home = Home::new(BIN);
    // New tools would be held in quarantine (tests/proxy_quarantine.rs);
    // this is about the list change itself.
    home.write("config.json", r#"{"settings": {"quarantine": false}}"#);
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let before = tool_names(&host.request("tools/list", json!({})).await);
    assert!(!before.contains(&"demo__experimental_word_count".to_string()));
    let enabled = host
        .request(
            "tools/call",
            json!({"name": "demo__admin_enable_experimental", "arguments": {"enabled": true}}),
        )
        .await;
    assert_eq!(enabled["result"]["isError"], false, "{enabled}");
    host.notification("notifications/tools/list_changed").await;
    let after = tool_names(&host.request("tools/list", json!({})).await);
    assert_eq!(after.len(), before.len() + 2, "{after:?}");
    assert!(after.contains(&"demo__experimental_word_count".to_string()));
    host.close().await;
}

/// A config whose servers are demo-server processes that write their pid.
fn two_demo_servers(home: &Home) {
    sieve_tests::two_demo_servers(home, BIN);
}

fn pid(home: &Home, name: &str) -> u32 {
    home.read(&format!("{name}.pid"))
        .trim()
        .parse()
        .expect("a pid")
}

/// Whether a process exists, zombies included (they keep a /proc entry).
fn process_exists(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

async fn eventually(what: &str, mut check: impl AsyncFnMut() -> bool) {
    tokio::time::timeout(WAIT, async {
        while !check().await {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{what} did not happen in time"));
}

async fn call_echo(host: &mut Wire, server: &str) -> Value {
    host.request(
        "tools/call",
        json!({"name": format!("{server}__echo"), "arguments": {"text": "ping"}}),
    )
    .await
}

#[tokio::test]
async fn a_dead_upstream_fails_fast_and_comes_back() {
    let home = Home::new(BIN);
    two_demo_servers(&home);
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let names = tool_names(&host.listing(&["alpha", "beta"]).await);
    assert_eq!(names.len(), 80, "two servers of 40 tools");
    assert!(
        names.contains(&"alpha__echo".to_string()) && names.contains(&"beta__echo".to_string())
    );

    let alpha = pid(&home, "alpha");
    let status = std::process::Command::new("kill")
        .args(["-9", &alpha.to_string()])
        .status()
        .unwrap();
    assert!(status.success());

    // Calls to the dead server fail with its name and reason; the other serves.
    let failed = loop {
        let answer = call_echo(&mut host, "alpha").await;
        if answer.get("error").is_some() {
            break answer;
        }
    };
    let message = failed["error"]["message"].as_str().unwrap();
    assert!(message.contains("server \"alpha\""), "{message}");
    let beta = call_echo(&mut host, "beta").await;
    assert_eq!(beta["result"]["isError"], false, "{beta}");
    // Its tools stay listed while it is down.
    assert_eq!(
        tool_names(&host.request("tools/list", json!({})).await).len(),
        80
    );
    // The killed process was reaped: no zombie is left.
    eventually("reaping the killed server", async || !process_exists(alpha)).await;

    // It comes back by itself as a new process.
    eventually("alpha reconnecting", async || {
        call_echo(&mut host, "alpha").await["result"]["isError"] == false
    })
    .await;
    let again = pid(&home, "alpha");
    assert_ne!(again, alpha);

    let beta_pid = pid(&home, "beta");
    assert!(host.close().await.success());
    // Leaving stops every child.
    eventually("children stopping with the proxy", async || {
        !process_exists(again) && !process_exists(beta_pid)
    })
    .await;
}

#[tokio::test]
async fn a_server_that_cannot_start_does_not_block_the_others() {
    let home = Home::new(BIN);
    // A port nothing listens on: bound, then let go.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let unreachable = format!("http://127.0.0.1:{closed}/mcp");
    let node = &sieve_tests::deps::deps().node22;
    let config = json!({"mcpServers": {
        "broken": {"command": "/nonexistent/mcp-server"},
        "crashy": {"command": "sh", "args": ["-c", "echo 'config missing: set API_KEY' >&2; exit 3"]},
        "missing-script": {"command": node, "args": ["/nonexistent/server.js"]},
        "remote": {"type": "http", "url": unreachable},
        "good": {"command": BIN, "args": ["demo-server"]}
    }});
    home.write("config.json", &config.to_string());
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let names = tool_names(&host.listing(&["good"]).await);
    assert_eq!(names.len(), 40, "{names:?}");
    assert!(names.iter().all(|n| n.starts_with("good__")));
    host.close().await;

    let listed = home.run(&["servers", "list", "--json"]).json();
    let by_name = |name: &str| {
        listed
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(by_name("good")["state"], "up");
    assert_eq!(by_name("good")["tools"], 40);
    assert_eq!(by_name("broken")["state"], "down");
    assert!(
        by_name("broken")["error"]
            .as_str()
            .unwrap()
            .contains("cannot start \"/nonexistent/mcp-server\""),
        "{listed}"
    );
    let crashy = by_name("crashy")["error"].as_str().unwrap().to_string();
    assert!(
        crashy.contains("config missing: set API_KEY"),
        "the child's last words explain it: {crashy}"
    );
    // Node ends with its version banner; the line above says what failed.
    let script = by_name("missing-script")["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        script.contains("Cannot find module '/nonexistent/server.js'"),
        "{script}"
    );
    let remote = by_name("remote")["error"].as_str().unwrap().to_string();
    assert!(
        remote.contains(&format!("connection refused at {unreachable}")),
        "{remote}"
    );
    assert!(
        !remote.contains("Transport") && !remote.contains("reqwest"),
        "no type names: {remote}"
    );
}

#[tokio::test]
async fn a_server_that_speaks_only_2026_07_28_is_discovered() {
    let home = Home::new(BIN);
    let config = json!({
        "mcpServers": {"modern": {"command": BIN, "args": ["demo-server", "--modern-only"]}},
        "settings": {"quarantine": false}
    });
    home.write("config.json", &config.to_string());
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let names = tool_names(&host.listing(&["modern"]).await);
    assert_eq!(names.len(), 40, "{names:?}");
    let echo = call_echo(&mut host, "modern").await;
    assert_eq!(echo["result"]["isError"], false, "{echo}");
    // Its list changes arrive on a subscription and still reach the host.
    let enabled = host
        .request(
            "tools/call",
            json!({"name": "modern__admin_enable_experimental", "arguments": {"enabled": true}}),
        )
        .await;
    assert_eq!(enabled["result"]["isError"], false, "{enabled}");
    // A change announced before (the server's first listing) may still be
    // queued: list again at each one until the two tools are there.
    loop {
        host.notification("notifications/tools/list_changed").await;
        let names = tool_names(&host.request("tools/list", json!({})).await);
        if names.len() == 42 {
            break;
        }
        assert_eq!(names.len(), 40, "{names:?}");
    }
    host.close().await;
    let status = home.run(&["servers", "list", "--json"]).json();
    assert_eq!(status[0]["protocolVersion"], "2026-07-28", "{status}");
}

#[tokio::test]
async fn servers_added_disabled_and_removed_on_the_command_line_reach_a_running_proxy() {
    let home = Home::new(BIN);
    home.write(
        "config.json",
        &json!({"mcpServers": {"good": {"command": BIN, "args": ["demo-server"]}}}).to_string(),
    );
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    assert_eq!(tool_names(&host.listing(&["good"]).await).len(), 40);

    // A long name gets a short key, and the person is told which.
    let added = home.run(&[
        "servers",
        "add",
        "Second Demo Server",
        "--",
        BIN,
        "demo-server",
    ]);
    assert!(added.ok, "{}", added.stderr);
    assert_eq!(
        added.stdout.trim(),
        "added \"Second Demo Server\" to config.json as server \"second-demo\": \
         tools are named second-demo__TOOL, and commands take that name"
    );
    let key = "second-demo".to_string();
    assert!(
        added.stdout.contains(&format!("{key}__TOOL")),
        "{}",
        added.stdout
    );
    // The running proxy starts it and tells the host.
    let names = loop {
        host.notification("notifications/tools/list_changed").await;
        let names = tool_names(&host.request("tools/list", json!({})).await);
        if names.len() == 80 {
            break names;
        }
    };
    assert!(
        names.iter().any(|n| *n == format!("{key}__echo")),
        "{names:?}"
    );

    let disabled = home.run(&["servers", "disable", &key]);
    assert!(disabled.ok, "{}", disabled.stderr);
    loop {
        host.notification("notifications/tools/list_changed").await;
        let names = tool_names(&host.request("tools/list", json!({})).await);
        if names.len() == 40 {
            assert!(names.iter().all(|n| n.starts_with("good__")), "{names:?}");
            break;
        }
    }
    let config: Value = serde_json::from_str(&home.read("config.json")).unwrap();
    assert_eq!(config["mcpServers"][&key]["disabled"], true, "{config}");

    let removed = home.run(&["servers", "remove", &key]);
    assert!(removed.ok, "{}", removed.stderr);
    let config: Value = serde_json::from_str(&home.read("config.json")).unwrap();
    assert!(config["mcpServers"].get(&key).is_none(), "{config}");
    host.close().await;

    // Bad input: one sentence naming the argument, and config.json as it was.
    let before = home.read("config.json");
    for (args, says) in [
        (
            vec!["servers", "add", "x", "--env", "NOPE", "--", "true"],
            "--env \"NOPE\" is not a variable; write it as KEY=VALUE",
        ),
        (
            vec!["servers", "add", "x"],
            "give the command that starts the server after --",
        ),
        (
            vec![
                "servers",
                "add",
                "x",
                "--url",
                "http://127.0.0.1:9/mcp",
                "--env",
                "A=b",
            ],
            "an HTTP server takes --header",
        ),
        (
            vec!["servers", "add", "good", "--", "true"],
            "there is a server \"good\" already",
        ),
        (
            vec!["servers", "remove", "nope"],
            "there is no server \"nope\"",
        ),
    ] {
        let run = home.run(&args);
        assert!(!run.ok, "{args:?} must fail");
        assert!(run.stderr.contains(says), "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
    }
    assert_eq!(home.read("config.json"), before);
}

/// A one-shot command's servers go with it, and what they started too:
/// `sh -c` runs its command as a child of its own, which a kill of the
/// shell alone would leave running.
#[test]
fn a_one_shot_command_leaves_no_grandchild_running() {
    let home = Home::new(BIN);
    let pid_file = home.path().join("sleeper.pid");
    let script = format!("sleep 300 & echo $! > '{}'; wait", pid_file.display());
    home.write(
        "config.json",
        &json!({"mcpServers": {"quiet": {"command": "sh", "args": ["-c", script]}}}).to_string(),
    );
    let listed = home.run(&["servers", "list", "--json"]);
    assert!(listed.ok, "{}", listed.stderr);
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .expect("the server started its sleeper")
        .trim()
        .parse()
        .unwrap();
    // Killed, the sleeper is gone, or a zombie where no init reaps it.
    let running = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit(") ")
                .next()
                .is_some_and(|rest| !rest.starts_with('Z'))
        })
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while running() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!running(), "the server's own child {pid} is still running");
}

/// Over stdio a call's progress reaches the host ahead of the call's
/// answer, in order, and none of it after the answer.
#[tokio::test]
async fn a_call_s_progress_comes_before_its_answer_and_never_after() {
    let home = Home::new(BIN);
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    for round in 0..20 {
        let token = format!("order-{round}");
        let id = host
            .send_request(
                "tools/call",
                json!({"name": "demo__reindex", "arguments": {"steps": 4, "step_ms": round % 2 * 5},
                       "_meta": {"progressToken": token}}),
            )
            .await;
        let mut seen = Vec::new();
        loop {
            let message = host.next_message().await;
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                assert_eq!(message["result"]["isError"], false, "{message}");
                break;
            }
            if message["method"] == "notifications/progress" {
                assert_eq!(message["params"]["progressToken"], token.as_str());
                seen.push(message["params"]["progress"].as_f64().unwrap());
            }
        }
        assert!(
            seen == [1.0, 2.0, 3.0, 4.0],
            "every step's progress ahead of the answer, in order: {seen:?}"
        );
        // Whatever is written before the answer to a later ping: none of
        // it is this call's progress.
        let ping = host.send_request("ping", json!({})).await;
        loop {
            let message = host.next_message().await;
            if message.get("id") == Some(&json!(ping)) && message.get("method").is_none() {
                break;
            }
            assert_ne!(
                message["params"]["progressToken"],
                token.as_str(),
                "progress after the answer: {message}"
            );
        }
    }
    assert!(host.close().await.success());
}

/// The proxy runs its sentence model on one thread by setting
/// `RAYON_NUM_THREADS`; the servers it starts get the environment they
/// would have had: without it, or with the person's own value.
#[tokio::test]
async fn servers_start_without_the_thread_count_the_proxy_set_for_itself() {
    for (proxy_env, seen) in [(None, ""), (Some("3"), "RAYON_NUM_THREADS=3")] {
        let home = Home::new(BIN);
        let seen_file = home.path().join("server-env.txt");
        let script = format!(
            "env | grep '^RAYON_NUM_THREADS=' > '{}'; exec '{BIN}' demo-server",
            seen_file.display()
        );
        let config = json!({"mcpServers": {"demo": {"command": "sh", "args": ["-c", script]}}});
        home.write("config.json", &config.to_string());
        let env: Vec<(&str, &str)> = proxy_env
            .map(|value| ("RAYON_NUM_THREADS", value))
            .into_iter()
            .collect();
        let mut host = Wire::start_with_env(BIN, home.path(), &[], &env, json!({})).await;
        let names = tool_names(&host.listing(&["demo"]).await);
        assert_eq!(names.len(), 40, "{names:?}");
        host.close().await;
        let written =
            std::fs::read_to_string(&seen_file).expect("the server wrote its environment");
        assert_eq!(
            written.trim(),
            seen,
            "with {proxy_env:?} in the proxy's environment"
        );
    }
}
