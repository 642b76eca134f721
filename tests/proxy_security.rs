//! What must never get out or through: a hidden tool however it is named,
//! the secrets of `env` and `headers` in any output or log, files anyone
//! else could read, a torn file when two processes write at once, and a
//! listener other machines can reach without a warning.

use serde_json::{Value, json};
use sieve_tests::Home;
use sieve_tests::wire::{Wire, tool_names};
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");
/// A value that must never be shown: an env value and a header value.
const ENV_SECRET: &str = "sk-ENVSECRET-7f3a9c";
const HEADER_SECRET: &str = "Bearer HDRSECRET-41b2";
const HIDDEN: &str = "demo__purge_closed_issues";

/// A call of a hidden tool is refused whatever name reaches for it: its
/// exposed name, its URI, its upstream name, the name in other case. It is
/// never forwarded (the demo's purge would ask the host to confirm), never
/// listed, and a refused call leaves nothing in `tasks/list`.
#[tokio::test(flavor = "multi_thread")]
async fn a_hidden_tool_is_refused_by_any_name() {
    let home = Home::new(BIN);
    home.write(
        "profiles/strict.json",
        &json!({"tools": {"deny": [HIDDEN]}}).to_string(),
    );
    // Its URI, from a profile that shows it.
    let mut open = Wire::start(BIN, home.path(), &[], json!({})).await;
    let listed = open.request("tools/list", json!({})).await;
    let uri = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == HIDDEN)
        .and_then(|t| t["_meta"]["dev.mcp-sieve/uri"].as_str())
        .unwrap_or_else(|| panic!("{HIDDEN} has a URI: {listed}"))
        .to_string();
    open.close().await;

    let mut host = Wire::start(BIN, home.path(), &["--profile", "strict"], json!({})).await;
    let names = tool_names(&host.request("tools/list", json!({})).await);
    assert!(!names.is_empty() && !names.iter().any(|n| n == HIDDEN));
    for name in [
        HIDDEN.to_string(),
        uri,
        "purge_closed_issues".to_string(),
        HIDDEN.to_uppercase(),
        "Demo__Purge_Closed_Issues".to_string(),
    ] {
        let answer = host
            .request("tools/call", json!({"name": name, "arguments": {}}))
            .await;
        assert_eq!(answer["error"]["code"], -32602, "{name}: {answer}");
    }
    // Nothing was forwarded: the purge would have asked us to confirm.
    host.settle(Duration::from_millis(300)).await;
    assert!(host.requests.is_empty(), "forwarded: {:?}", host.requests);
    let tasks = host.request("tasks/list", json!({})).await;
    assert_eq!(tasks["result"]["tasks"], json!([]), "{tasks}");
    host.close().await;
}

/// A config whose servers carry secrets: a stdio server with an env value
/// and an HTTP server (unreachable) with a header value.
fn home_with_secrets() -> Home {
    let home = Home::new(BIN);
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = json!({"mcpServers": {
        "demo": {"command": BIN, "args": ["demo-server"], "env": {"API_KEY": ENV_SECRET}},
        "remote": {"type": "http", "url": format!("http://127.0.0.1:{closed}/mcp"),
                   "headers": {"Authorization": HEADER_SECRET}},
    }});
    home.write("config.json", &config.to_string());
    home
}

fn assert_no_secret(what: &str, text: &str) {
    for secret in [ENV_SECRET, HEADER_SECRET, "HDRSECRET"] {
        assert!(!text.contains(secret), "{what} shows a secret:\n{text}");
    }
}

/// Every command's output, and the proxy's log at its most talkative
/// (`MCP_SIEVE_LOG=trace`) on both transports, never shows a secret; the
/// names of the variables and headers are shown.
#[tokio::test(flavor = "multi_thread")]
async fn secrets_never_show_in_output_or_logs() {
    let home = home_with_secrets();
    let mut seen_names = String::new();
    for args in [
        &["servers", "list"][..],
        &["servers", "list", "--json"],
        &["tools", "--json"],
        &["tools", "--hidden", "--explain"],
        &["tokens"],
        &["profiles", "show", "default"],
    ] {
        let run = home
            .command()
            .args(args)
            .env("MCP_SIEVE_LOG", "trace")
            .output()
            .expect("the command runs");
        let out = String::from_utf8_lossy(&run.stdout).to_string()
            + &String::from_utf8_lossy(&run.stderr);
        assert_no_secret(&args.join(" "), &out);
        seen_names.push_str(&out);
    }
    assert!(
        seen_names.contains("API_KEY") && seen_names.contains("Authorization"),
        "the names are shown"
    );

    // stdio: a session with a call, at trace level.
    let mut child = home
        .command()
        .args(["serve"])
        .env("MCP_SIEVE_LOG", "trace")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        for line in [
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
            json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"demo__echo","arguments":{"text":"hi"}}}),
            json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"remote__x","arguments":{}}}),
        ] {
            writeln!(stdin, "{line}").unwrap();
        }
        // The answers come before stdin closes.
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut answered = 0;
        while answered < 3 {
            let line = lines.next().expect("an answer").unwrap();
            assert_no_secret("an answer", &line);
            if serde_json::from_str::<Value>(&line).is_ok_and(|m| m.get("id").is_some()) {
                answered += 1;
            }
        }
    }
    let output = child.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(
        log.contains("TRACE") || log.contains("DEBUG"),
        "a talkative log"
    );
    assert_no_secret("the stdio proxy's log", &log);

    // HTTP: the same, with the log read while it serves.
    let token = String::from_utf8(
        home.command()
            .args(["serve", "--print-token"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let mut child = home
        .command()
        .args(["serve", "--http", "127.0.0.1:0"])
        .env("MCP_SIEVE_LOG", "trace")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut log = String::new();
        for line in stderr.lines().map_while(Result::ok) {
            if let Some(rest) = line.strip_prefix("MCP Sieve is serving http://") {
                let _ = tx.send(rest.split('/').next().unwrap_or_default().to_string());
            }
            log.push_str(&line);
            log.push('\n');
        }
        log
    });
    let addr = rx.recv_timeout(Duration::from_secs(30)).expect("serving");
    let client = reqwest::Client::new();
    let answer = client
        .post(format!("http://{addr}/mcp"))
        .header("Authorization", format!("Bearer {}", token.trim()))
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    assert_no_secret("an HTTP answer", &answer.text().await.unwrap());
    tokio::time::sleep(Duration::from_millis(500)).await;
    let _ = child.kill();
    let _ = child.wait();
    let log = reader.join().unwrap();
    assert_no_secret("the HTTP proxy's log", &log);
}

/// The files that hold secrets or history are the user's alone: the
/// config, profiles, the HTTP token and the ledger, and their backups
/// (even of a config.json the user had left readable by others).
#[cfg(unix)]
#[test]
fn the_files_are_readable_by_their_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let home = home_with_secrets();
    // Written by the proxy itself: a profile, the active profile in
    // config.json (with a backup), the token, the ledger.
    assert!(home.run(&["profiles", "new", "work"]).ok);
    assert!(home.run(&["profiles", "use", "work"]).ok);
    assert!(home.run(&["serve", "--print-token"]).ok);
    assert!(home.run(&["tasks"]).ok);
    let files = sieve_tests::files_under(home.path());
    for expected in [
        "config.json",
        "config.json.bak",
        "work.json",
        "http-token",
        "tasks.db",
    ] {
        assert!(
            files.iter().any(|f| f.file_name().unwrap() == expected),
            "{expected} was written: {files:?}"
        );
    }
    for file in files {
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{} is {mode:o}", file.display());
    }
}

/// Two processes switching the active profile as fast as they can (each
/// rewrites config.json, as the app and the command line do) while a third
/// reads it: every read is a whole, valid file.
#[test]
fn two_writers_never_leave_a_torn_file() {
    let home = Home::new(BIN);
    home.write("config.json", "{}");
    assert!(home.run(&["profiles", "new", "a"]).ok);
    assert!(home.run(&["profiles", "new", "b"]).ok);
    let writer = |profile: &'static str| {
        let mut command = home.command();
        command.args(["profiles", "use", profile]);
        std::thread::spawn(move || {
            for _ in 0..60 {
                let status = command.output().expect("runs").status;
                assert!(status.success());
            }
        })
    };
    let (a, b) = (writer("a"), writer("b"));
    let path = home.path().join("config.json");
    let mut reads = 0;
    while !(a.is_finished() && b.is_finished()) {
        let text = std::fs::read_to_string(&path).expect("config.json is always there");
        sieve_core::Config::parse("config.json", &text)
            .unwrap_or_else(|e| panic!("a torn config.json: {e}\n{text}"));
        reads += 1;
    }
    a.join().unwrap();
    b.join().unwrap();
    assert!(reads > 10, "the reader read while they wrote: {reads}");
}

/// `serve --http` on an address other machines can reach says so.
#[test]
fn listening_beyond_loopback_warns() {
    let home = Home::new(BIN);
    let mut child = home
        .command()
        .args(["serve", "--http", "0.0.0.0:0"])
        .env("MCP_SIEVE_LOG", "warn")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut warned = false;
    for line in BufReader::new(child.stderr.take().unwrap())
        .lines()
        .map_while(Result::ok)
    {
        warned |= line.contains("which other machines can reach");
        if line.starts_with("MCP Sieve is serving") {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(warned, "a warning before it serves");
}
