//! The proxy driven by real third-party clients: the Python `mcp` client
//! (both protocol generations) and MCP Inspector's CLI, over stdio and HTTP.

use serde_json::{Value, json};
use sieve_tests::deps::deps;
use sieve_tests::http::HttpProxy;
use sieve_tests::{Home, python_client};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

fn names(step: &Value) -> Vec<String> {
    step["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {step}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn script() -> Value {
    json!([
        {"op": "list_tools"},
        {"op": "list_tools", "params": {"filter": {"groups": ["billing"]}}},
        {"op": "request", "method": "groups/list", "params": {}},
        {"op": "call_tool", "name": "demo__echo", "arguments": {"text": "through the sieve"}},
        {"op": "call_tool", "name": "mcp://tools/demo/get_issue", "arguments": {"id": 1}},
        {"op": "request", "method": "concerns/update", "params": {"concerns": {"security": "high"}}},
        {"op": "wait_notification", "method": "notifications/tools/list_changed", "timeout": 10},
        {"op": "list_tools"},
        {"op": "call_tool", "name": "demo__delete_file", "arguments": {"path": "README.md"}}
    ])
}

/// Checks the script's output. Without a connection (2026-07-28 over HTTP
/// has no sessions) `concerns/update` is refused, and per-request
/// `_meta` concerns are the way.
fn check(lines: &[Value], protocol: &str, connection: bool) {
    assert_eq!(
        lines[0]["result"]["protocolVersion"], protocol,
        "{}",
        lines[0]
    );
    assert_eq!(names(&lines[1]).len(), 40);
    assert_eq!(
        names(&lines[2]).len(),
        8,
        "filter.groups billing: {}",
        lines[2]
    );
    let groups = lines[3]["result"]["groups"].as_array().unwrap();
    assert!(
        groups
            .iter()
            .any(|g| g["name"] == "demo/billing" && g["count"] == 8),
        "{}",
        lines[3]
    );
    assert!(
        lines[4].to_string().contains("through the sieve"),
        "{}",
        lines[4]
    );
    assert_eq!(
        lines[5]["result"]["isError"], false,
        "called by URI: {}",
        lines[5]
    );
    if !connection {
        let refused = lines[6]["error"]["message"].as_str().unwrap_or_default();
        assert!(refused.contains("dev.mcp-sieve/concerns"), "{}", lines[6]);
        return;
    }
    assert!(lines[6].get("error").is_none(), "{}", lines[6]);
    assert!(
        lines[7].get("error").is_none(),
        "list_changed arrived: {}",
        lines[7]
    );
    let narrowed = names(&lines[8]);
    assert!(
        narrowed.len() < 40 && !narrowed.contains(&"demo__delete_file".to_string()),
        "{narrowed:?}"
    );
    assert_eq!(
        lines[9]["error"]["code"], -32602,
        "hidden by the connection's concerns: {}",
        lines[9]
    );
}

#[test]
fn python_client_over_stdio_both_generations() {
    let home = Home::new(BIN);
    let command = format!("{BIN} --home {} serve", home.path().display());
    let legacy = python_client(
        &["--stdio", &command, "--protocol", "2025-11-25"],
        &script(),
    );
    check(&legacy, "2025-11-25", true);
    // auto: the client tries 2026-07-28 (server/discover) first.
    let modern = python_client(&["--stdio", &command, "--protocol", "auto"], &script());
    check(&modern, "2026-07-28", true);
}

#[test]
fn python_client_over_http_with_token_and_profile_endpoints() {
    let home = Home::new(BIN);
    home.write("profiles/billing.json", r#"{"groups": ["billing"]}"#);
    let proxy = HttpProxy::start(BIN, home.path());
    let auth = format!("Authorization: Bearer {}", proxy.token);
    for protocol in ["2025-11-25", "auto"] {
        let url = format!("{}/mcp", proxy.base);
        let lines = python_client(
            &["--http", &url, "--header", &auth, "--protocol", protocol],
            &script(),
        );
        let modern = protocol == "auto";
        check(
            &lines,
            if modern { "2026-07-28" } else { protocol },
            !modern,
        );
        if modern {
            let per_request = python_client(
                &["--http", &url, "--header", &auth, "--protocol", protocol],
                &json!([{"op": "list_tools", "params": {"_meta": {"dev.mcp-sieve/concerns": {"security": "high"}}}}]),
            );
            let narrowed = names(&per_request[1]);
            assert!(
                narrowed.len() < 40 && !narrowed.contains(&"demo__delete_file".to_string()),
                "{narrowed:?}"
            );
        }
        let url = format!("{}/mcp/p/billing", proxy.base);
        let lines = python_client(
            &["--http", &url, "--header", &auth, "--protocol", protocol],
            &json!([{"op": "list_tools"}]),
        );
        assert_eq!(
            names(&lines[1]).len(),
            8,
            "/mcp/p/billing serves profile billing: {}",
            lines[1]
        );
    }
}

fn inspector(args: &[&str], home: &Home) -> Value {
    let deps = deps();
    // The Inspector keeps state under $HOME; give it a throwaway one.
    let output = Command::new(&deps.node22)
        .arg(&deps.inspector)
        .args(["--cli", "--format", "json"])
        .args(args)
        .env("HOME", home.path())
        .env("MCP_SIEVE_LOG", "error")
        .output()
        .expect("the Inspector runs");
    assert!(
        output.status.success(),
        "inspector failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    });
    // The Inspector prints `{"result": ...}` around what the server sent.
    printed.get("result").cloned().unwrap_or(printed)
}

#[test]
fn inspector_cli_lists_and_calls_through_the_proxy() {
    let home = Home::new(BIN);
    home.write("profiles/ro.json", r#"{"tags": {"all": ["read-only"]}}"#);
    let home_arg = home.path().display().to_string();
    let listed = inspector(
        &[
            BIN,
            "--home",
            &home_arg,
            "serve",
            "--profile",
            "ro",
            "--method",
            "tools/list",
        ],
        &home,
    );
    let tools = listed["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"));
    // Eleven the demo marks read-only, and `echo`, which it leaves
    // unmarked beside the tools it marks as destroying: read for what it
    // does, it reads.
    assert_eq!(tools.len(), 13, "the demo's read-only tools");
    assert!(
        tools
            .iter()
            .all(|t| t["name"].as_str().unwrap().starts_with("demo__"))
    );
    let called = inspector(
        &[
            BIN,
            "--home",
            &home_arg,
            "serve",
            "--method",
            "tools/call",
            "--tool-name",
            "demo__echo",
            "--tool-arg",
            "text=inspected",
        ],
        &home,
    );
    assert!(called.to_string().contains("inspected"), "{called}");

    let proxy = HttpProxy::start(BIN, home.path());
    let auth = format!("Authorization: Bearer {}", proxy.token);
    let url = format!("{}/mcp/p/ro", proxy.base);
    for era in ["legacy", "modern"] {
        let listed = inspector(
            &[
                &url,
                "--transport",
                "http",
                "--protocol-era",
                era,
                "--header",
                &auth,
                "--method",
                "tools/list",
            ],
            &home,
        );
        assert_eq!(
            listed["tools"].as_array().map(Vec::len),
            Some(13),
            "{era}: {listed}"
        );
    }
}

#[test]
fn a_2026_listener_on_a_profile_endpoint_hears_that_profile_change() {
    use std::io::{BufRead, BufReader, Write};
    use std::time::Duration;
    let home = Home::new(BIN);
    home.write("profiles/billing.json", r#"{"groups": ["billing"]}"#);
    let proxy = HttpProxy::start(BIN, home.path());
    let deps = deps();
    let url = format!("{}/mcp/p/billing", proxy.base);
    let auth = format!("Authorization: Bearer {}", proxy.token);
    let mut client = Command::new(&deps.python)
        .arg(&deps.mcp_client)
        .args([
            "--http",
            &url,
            "--header",
            &auth,
            "--protocol",
            "2026-07-28",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let script = json!([
        {"op": "list_tools"},
        {"op": "wait_notification", "method": "notifications/tools/list_changed", "timeout": 30}
    ]);
    client
        .stdin
        .take()
        .unwrap()
        .write_all(script.to_string().as_bytes())
        .unwrap();
    // The client prints a line as each step ends; reading them on a thread
    // puts a bound on every wait.
    let stdout = client.stdout.take().unwrap();
    let (tx, printed) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let next_line = || -> Value {
        let line = printed
            .recv_timeout(Duration::from_secs(60))
            .expect("mcp_client.py prints its next step");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    };
    let connect = next_line();
    assert_eq!(
        connect["result"]["protocolVersion"], "2026-07-28",
        "{connect}"
    );
    assert_eq!(
        connect["result"]["listen"]["honored"]["toolsListChanged"], true,
        "the listen stream is open before step 1: {connect}"
    );
    // The host lists first: list_changed is owed to a host that has seen
    // the list. (The proxy reloads only profiles in use, and one a host has
    // listed through is; an edit made before any host used it is simply
    // what the first listing shows.)
    let listed = next_line();
    assert_eq!(names(&listed).len(), 8, "the billing group: {listed}");

    // One edit that changes only what profile "billing" shows.
    home.replace(
        "profiles/billing.json",
        r#"{"groups": ["billing"], "tools": {"deny": ["demo__pay_invoice"]}}"#,
    );
    let heard = next_line();
    assert_eq!(
        heard["result"]["method"], "notifications/tools/list_changed",
        "{heard}"
    );
    let after = printed.recv_timeout(Duration::from_secs(60));
    assert!(
        matches!(after, Err(std::sync::mpsc::RecvTimeoutError::Disconnected)),
        "the client ends after its script: {after:?}"
    );
    assert!(client.wait().unwrap().success(), "mcp_client.py exits 0");
}

#[test]
fn a_2026_listener_follows_resource_updates_through_the_proxy() {
    let home = Home::new(BIN);
    let command = format!("{BIN} --home {} serve", home.path().display());
    let script = json!([
        {"op": "call_tool", "name": "demo__write_file", "arguments": {"path": "README.md", "content": "changed"}},
        {"op": "wait_notification", "method": "notifications/resources/updated", "timeout": 10}
    ]);
    let lines = python_client(
        &[
            "--stdio",
            &command,
            "--protocol",
            "2026-07-28",
            "--follow",
            "demo://files/README.md",
        ],
        &script,
    );
    assert_eq!(lines[1]["result"]["isError"], false, "{}", lines[1]);
    assert_eq!(
        lines[2]["result"]["params"]["uri"], "demo://files/README.md",
        "{}",
        lines[2]
    );
}

/// Node's `child_process` (so Claude Desktop, the Inspector and every
/// Node host) gives a child a Unix socket pair for stdin and stdout, not
/// a pipe. `mcp-sieve serve` on the built-in demo, and `mcp-sieve
/// demo-server` itself, each serve a host on such a socket: handshake, a
/// list and a call, then the host leaves and the process ends.
#[test]
fn a_host_on_a_socket_pair_is_served() {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::net::UnixStream;
    use std::time::Duration;

    let home = Home::new(BIN);
    for args in [&["serve"][..], &["demo-server"][..]] {
        let (host, child_end) = UnixStream::pair().expect("a socket pair");
        let stdin = child_end
            .try_clone()
            .expect("a second handle on the socket");
        let mut child = home
            .command()
            .args(args)
            .env("MCP_SIEVE_LOG", "warn")
            .stdin(std::process::Stdio::from(std::os::fd::OwnedFd::from(stdin)))
            .stdout(std::process::Stdio::from(std::os::fd::OwnedFd::from(
                child_end,
            )))
            .spawn()
            .expect("the binary starts");
        host.set_read_timeout(Some(Duration::from_secs(30)))
            .expect("a read timeout");
        let mut lines = BufReader::new(host.try_clone().expect("a reader"));
        let mut writer = &host;
        let mut ask = |message: Value| -> Value {
            writeln!(writer, "{message}").expect("the request is written");
            let mut line = String::new();
            loop {
                line.clear();
                lines.read_line(&mut line).unwrap_or_else(|e| {
                    panic!("{args:?}: no answer to {message} on the socket: {e}")
                });
                assert!(!line.is_empty(), "{args:?} closed the socket");
                let answer: Value = serde_json::from_str(&line).expect("a JSON line");
                if answer.get("id") == message.get("id") {
                    return answer;
                }
            }
        };
        let started = ask(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "socket-host", "version": "1"}}}),
        );
        assert_eq!(
            started["result"]["protocolVersion"], "2025-11-25",
            "{args:?}"
        );
        writeln!(
            &host,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .expect("written");
        let listed = ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
        let echo = names(&listed)
            .into_iter()
            .find(|n| n.ends_with("echo"))
            .unwrap_or_else(|| panic!("{args:?} lists no echo tool: {listed}"));
        let called = ask(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": echo, "arguments": {"text": "over a socket"}}}));
        assert_eq!(
            called["result"]["structuredContent"]["text"], "over a socket",
            "{args:?}: {called}"
        );
        host.shutdown(std::net::Shutdown::Both)
            .expect("the host leaves");
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while child.try_wait().expect("the child's state").is_none() {
            assert!(
                std::time::Instant::now() < deadline,
                "{args:?} went on after the host left"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
