//! Signing in to an OAuth-protected HTTP server (DESIGN §10): the MCP
//! TypeScript SDK's example server with `--oauth` (a real MCP server behind
//! a real authorization server with dynamic registration, from npm),
//! `mcp-sieve servers login` with `tests/clients/follow-redirect.sh` as the
//! browser, and a host listing and calling through the proxy.

use serde_json::{Value, json};
use sieve_tests::deps::deps;
use sieve_tests::wire::{Wire, tool_names};
use sieve_tests::{Home, Run};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use tokio::time::timeout;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

/// How long the proxy may take to notice a sign-in stored by another
/// process: at once through the watched `secrets.json`, else its 30 s poll.
const PICK_UP: Duration = Duration::from_secs(45);

/// The SDK's example server, killed when dropped.
struct OAuthServer(Child);

impl Drop for OAuthServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The SDK's `simpleStreamableHttp` example with `--oauth` on free ports:
/// the MCP endpoint's URL.
fn oauth_server() -> (OAuthServer, String) {
    let clients = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("clients");
    let script = clients.join(
        "node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js",
    );
    assert!(
        script.exists(),
        "the MCP SDK is installed: {}",
        script.display()
    );
    let (mcp, auth) = (sieve_tests::free_port(), sieve_tests::free_port());
    let child = Command::new(&deps().node22)
        .arg(&script)
        .arg("--oauth")
        .env("MCP_PORT", mcp.to_string())
        .env("MCP_AUTH_PORT", auth.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the SDK's example server starts");
    let server = OAuthServer(child);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    for port in [mcp, auth] {
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "the SDK's example server did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    (server, format!("http://localhost:{mcp}/mcp"))
}

fn row<'a>(rows: &'a Value, name: &str) -> &'a Value {
    rows.as_array()
        .and_then(|rows| rows.iter().find(|r| r["name"] == name))
        .unwrap_or_else(|| panic!("server {name} is listed: {rows}"))
}

#[tokio::test]
async fn a_signed_out_server_waits_for_login_then_serves_through_the_proxy() {
    let (_server, url) = oauth_server();
    let home = Home::new(BIN);
    home.write(
        "config.json",
        &json!({"mcpServers": {"sdk": {"type": "http", "url": url}}}).to_string(),
    );

    let rows = home.run(&["servers", "list", "--json"]).json();
    let sdk = row(&rows, "sdk");
    assert_eq!(sdk["state"], "needs-login", "{sdk}");
    let why = sdk["error"].as_str().unwrap_or_default();
    assert!(
        why.contains("asks for a sign-in (HTTP 401)")
            && why.ends_with("sign in with `mcp-sieve servers login sdk`"),
        "{why}"
    );

    // A proxy already running while the person signs in elsewhere.
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let before = host.request("tools/list", json!({})).await;
    assert!(
        !tool_names(&before).iter().any(|n| n.starts_with("sdk__")),
        "nothing of a signed-out server is listed: {before}"
    );

    let browser = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("clients/follow-redirect.sh");
    let login = Run::from(
        home.command()
            .args(["servers", "login", "sdk"])
            .env("BROWSER", &browser)
            .output()
            .expect("servers login runs"),
    );
    assert!(login.ok, "servers login failed: {}", login.stderr);
    assert!(
        login.stdout.starts_with(&format!(
            "signed in to server \"sdk\" ({url}); the sign-in is kept in"
        )),
        "one sentence: {}",
        login.stdout
    );
    assert_eq!(login.stdout.lines().count(), 1, "{}", login.stdout);

    timeout(
        PICK_UP,
        host.notification("notifications/tools/list_changed"),
    )
    .await
    .expect("the running proxy picks up the sign-in and lists the server's tools");
    let after = host.request("tools/list", json!({})).await;
    assert!(
        tool_names(&after).iter().any(|n| n == "sdk__greet"),
        "the server's tools are listed once signed in: {after}"
    );
    let call = host
        .request(
            "tools/call",
            json!({"name": "sdk__greet", "arguments": {"name": "Sieve"}}),
        )
        .await;
    assert_eq!(
        call["result"]["content"][0]["text"], "Hello, Sieve!",
        "the call goes through with the token: {call}"
    );

    // A new process (`servers list`) signs in from the store alone, and
    // at its most talkative shows nothing of the sign-in.
    let list = Run::from(
        home.command()
            .args(["servers", "list", "--json"])
            .env("MCP_SIEVE_LOG", "trace")
            .output()
            .expect("servers list runs"),
    );
    assert_eq!(row(&list.json(), "sdk")["state"], "up", "{}", list.stdout);
    if let Ok(text) = std::fs::read_to_string(home.path().join("secrets.json")) {
        let kept: Value = serde_json::from_str(&text).expect("secrets.json is JSON");
        let record: Value = serde_json::from_str(kept["oauth/sdk"].as_str().expect("kept"))
            .expect("the sign-in is JSON");
        let token = &record["credentials"]["token_response"];
        for secret in [&token["access_token"], &token["refresh_token"]] {
            if let Some(secret) = secret.as_str() {
                assert!(
                    !list.stdout.contains(secret) && !list.stderr.contains(secret),
                    "a token shows in the output or the log"
                );
            }
        }
    }
    host.close().await;
}
