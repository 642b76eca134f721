//! Signing in to an OAuth-protected HTTP server (DESIGN §10): the MCP
//! TypeScript SDK's example server with `--oauth` (a real MCP server behind
//! a real authorization server with dynamic registration, from npm),
//! `mcp-sieve servers login` with `tests/clients/follow-redirect.sh` as the
//! browser, and a host listing and calling through the proxy.

use serde_json::{Value, json};
use sieve_tests::deps::deps;
use sieve_tests::keychain::Keychain;
use sieve_tests::wire::{Wire, tool_names};
use sieve_tests::{Home, Run};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use tokio::time::timeout;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

/// How long the proxy may take to notice a sign-in stored by another
/// process: at once through the watched `secrets.json` or the keychain's
/// stamp, else its 30 s poll.
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
    let (server, mcp, _) = node_server(
        "node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js",
        &["--oauth"],
        &[],
    );
    (server, format!("http://localhost:{mcp}/mcp"))
}

/// `tests/clients/oauth-refresh-server.mjs` (the SDK's server parts, with
/// tokens that live `token_seconds` and refresh tokens) on free ports: the
/// MCP endpoint's URL and the authorization server's.
fn refreshing_server(token_seconds: u64) -> (OAuthServer, String, String) {
    let seconds = token_seconds.to_string();
    let (server, mcp, auth) = node_server(
        "oauth-refresh-server.mjs",
        &[],
        &[("TOKEN_SECONDS", seconds.as_str())],
    );
    (
        server,
        format!("http://127.0.0.1:{mcp}/mcp"),
        format!("http://127.0.0.1:{auth}"),
    )
}

/// Starts `script` (under tests/clients) with Node 22 on two free ports,
/// `MCP_PORT` and `MCP_AUTH_PORT`, and waits until both listen.
fn node_server(script: &str, args: &[&str], env: &[(&str, &str)]) -> (OAuthServer, u16, u16) {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("clients")
        .join(script);
    assert!(
        script.exists(),
        "the MCP SDK is installed: {}",
        script.display()
    );
    let (mcp, auth) = (sieve_tests::free_port(), sieve_tests::free_port());
    let child = Command::new(&deps().node22)
        .arg(&script)
        .args(args)
        .env("MCP_PORT", mcp.to_string())
        .env("MCP_AUTH_PORT", auth.to_string())
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the OAuth-protected server starts");
    let server = OAuthServer(child);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    for port in [mcp, auth] {
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "{} did not listen on {port}",
                script.display()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    (server, mcp, auth)
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

/// What the test's authorization server has done: tokens issued, refreshes
/// granted, refreshes refused.
fn counts(auth: &str) -> (u64, u64, u64) {
    let out = Command::new("curl")
        .args(["-sf", &format!("{auth}/test/counts")])
        .output()
        .expect("curl runs");
    let counts: Value = serde_json::from_slice(&out.stdout).expect("the counts are JSON");
    let n = |k: &str| {
        counts[k]
            .as_u64()
            .unwrap_or_else(|| panic!("{k} in {counts}"))
    };
    (n("issued"), n("refreshed"), n("rejected"))
}

/// Calls `sdk__greet` through the host's proxy: its text, or the error's
/// message.
async fn greet(host: &mut Wire) -> Result<String, String> {
    let answer = host
        .request(
            "tools/call",
            json!({"name": "sdk__greet", "arguments": {"name": "Sieve"}}),
        )
        .await;
    match answer["result"]["content"][0]["text"].as_str() {
        Some(text) if answer["result"]["isError"] != true => Ok(text.to_string()),
        _ => Err(answer["error"]["message"]
            .as_str()
            .or(answer["result"]["content"][0]["text"].as_str())
            .unwrap_or_default()
            .to_string()),
    }
}

/// The sign-in lives in the system keychain: a running proxy refreshes the
/// token when it runs out and keeps the new one there (a new process starts
/// from it); when the server revokes every token the server is signed out,
/// says how to sign in, and a new sign-in brings it back in the same proxy.
#[tokio::test]
async fn in_the_keychain_a_token_is_refreshed_and_a_revoked_one_asks_for_a_new_sign_in() {
    // rmcp refreshes a token with less than 30 s left: one of 50 s is due
    // 20 s after it was issued, time enough for the proxy to start and
    // make its first call with it on a loaded machine (with 4 s, a slow
    // start had it refreshed before its first use).
    const TOKEN_SECONDS: u64 = 50;
    const FRESH_FOR: Duration = Duration::from_secs(TOKEN_SECONDS - 30);
    let (_server, url, auth) = refreshing_server(TOKEN_SECONDS);
    let keychain = Keychain::start();
    let home = Home::new(BIN);
    home.write(
        "config.json",
        &json!({"mcpServers": {"sdk": {"type": "http", "url": url}}}).to_string(),
    );
    let browser = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("clients/follow-redirect.sh");
    let login = || {
        Run::from(
            home.command()
                .envs(keychain.env())
                .args(["servers", "login", "sdk"])
                .env("BROWSER", &browser)
                .output()
                .expect("servers login runs"),
        )
    };
    let signed_in = login();
    assert!(signed_in.ok, "servers login failed: {}", signed_in.stderr);
    assert!(
        signed_in
            .stdout
            .contains("the sign-in is kept in the system keychain"),
        "{}",
        signed_in.stdout
    );
    let issued_at = std::time::Instant::now();
    assert!(
        !home.path().join("secrets.json").exists(),
        "nothing of the sign-in is in a file"
    );
    // What tells running proxies the keychain changed holds only the time.
    let stamp = std::fs::read_to_string(home.path().join("secrets.changed"))
        .expect("a keychain change is stamped in the data folder");
    assert!(
        !stamp.trim().is_empty() && stamp.trim().chars().all(|c| c.is_ascii_digit()),
        "{stamp:?}"
    );
    assert_eq!(counts(&auth), (1, 0, 0));

    let mut host = Wire::start_with_env(BIN, home.path(), &[], &keychain.env(), json!({})).await;
    host.listing(&["sdk"]).await;
    assert_eq!(greet(&mut host).await.as_deref(), Ok("Hello, Sieve!"));
    assert!(
        issued_at.elapsed() < FRESH_FOR,
        "the first call came {:?} after the sign-in, when the token was already due",
        issued_at.elapsed()
    );
    assert_eq!(counts(&auth), (1, 0, 0), "a fresh token is not refreshed");

    // The token runs out: the next call refreshes it first.
    tokio::time::sleep((FRESH_FOR + Duration::from_secs(1)).saturating_sub(issued_at.elapsed()))
        .await;
    assert_eq!(greet(&mut host).await.as_deref(), Ok("Hello, Sieve!"));
    let (issued, refreshed, rejected) = counts(&auth);
    assert!(
        issued == 2 && refreshed == 1 && rejected == 0,
        "one refresh: issued {issued}, refreshed {refreshed}, rejected {rejected}"
    );

    // The refreshed sign-in is what the keychain holds: a new process with
    // the first one would present a spent refresh token, which the server
    // refuses (refresh tokens work once here).
    let list = Run::from(
        home.command()
            .envs(keychain.env())
            .args(["servers", "list", "--json"])
            .output()
            .expect("servers list runs"),
    );
    assert_eq!(row(&list.json(), "sdk")["state"], "up", "{}", list.stdout);
    assert_eq!(counts(&auth).2, 0, "no spent refresh token was presented");

    // Every token revoked: the running proxy's server is signed out and
    // says how to sign in again.
    let revoked = Command::new("curl")
        .args(["-sf", "-X", "POST", &format!("{auth}/test/revoke-all")])
        .output()
        .expect("curl runs");
    assert!(revoked.status.success());
    let deadline = std::time::Instant::now() + PICK_UP;
    let why = loop {
        match greet(&mut host).await {
            Err(why) if why.contains("signed out") => break why,
            other => assert!(
                std::time::Instant::now() < deadline,
                "the server is still served after its tokens were revoked: {other:?}"
            ),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(
        why.contains("sign in with `mcp-sieve servers login sdk`"),
        "{why}"
    );

    // A new sign-in elsewhere brings it back in the same proxy.
    let again = login();
    assert!(again.ok, "servers login failed: {}", again.stderr);
    let deadline = std::time::Instant::now() + PICK_UP;
    loop {
        match greet(&mut host).await {
            Ok(text) => {
                assert_eq!(text, "Hello, Sieve!");
                break;
            }
            Err(why) => assert!(
                std::time::Instant::now() < deadline,
                "the new sign-in was not picked up: {why}"
            ),
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    host.close().await;
}

/// A service account (`"grant": "clientCredentials"`): the proxy gets its
/// tokens with the client's own id and secret, with no person and no
/// browser, a new one before the old runs out (no call meets an expired
/// token), and a new one by itself when the server stops taking the old; a
/// wrong secret leaves the server needs-login, saying what to fix.
#[tokio::test]
async fn a_service_account_gets_its_tokens_with_no_person() {
    // Renewed 60 s before it runs out: a token of 65 s after 5 s.
    let seconds = "65".to_string();
    let (_server, mcp, auth) = node_server(
        "oauth-refresh-server.mjs",
        &[],
        &[
            ("TOKEN_SECONDS", seconds.as_str()),
            ("SERVICE_CLIENT_ID", "robot"),
            ("SERVICE_CLIENT_SECRET", "s3cret-value"),
        ],
    );
    let (url, auth) = (
        format!("http://127.0.0.1:{mcp}/mcp"),
        format!("http://127.0.0.1:{auth}"),
    );
    let home = Home::new(BIN);
    home.write(
        "config.json",
        &json!({"mcpServers": {"sdk": {"type": "http", "url": url, "oauth": {
            "grant": "clientCredentials", "clientId": "robot", "clientSecret": "s3cret-value"}}}})
        .to_string(),
    );
    // The secret leaves config.json for the secret store.
    let moved = home.run(&["servers", "secret", "sdk", "oauth.clientSecret"]);
    assert!(moved.ok, "{}", moved.stderr);
    let config = std::fs::read_to_string(home.path().join("config.json")).unwrap();
    assert!(
        !config.contains("s3cret-value") && config.contains("${secret:sdk/oauth/clientSecret}"),
        "{config}"
    );

    // No browser: one that fails the test if it is ever opened.
    let mut host = Wire::start_with_env(
        BIN,
        home.path(),
        &[],
        &[("BROWSER", "/bin/false")],
        json!({}),
    )
    .await;
    let listed = host.listing(&["sdk"]).await;
    assert!(
        tool_names(&listed).iter().any(|n| n == "sdk__greet"),
        "the service account's server is listed at once: {listed}"
    );
    assert_eq!(greet(&mut host).await.as_deref(), Ok("Hello, Sieve!"));
    let machine = |auth: &str| {
        let out = Command::new("curl")
            .args(["-sf", &format!("{auth}/test/counts")])
            .output()
            .expect("curl runs");
        let counts: Value = serde_json::from_slice(&out.stdout).expect("the counts are JSON");
        (
            counts["machine"].as_u64().unwrap(),
            counts["issued"].as_u64().unwrap(),
        )
    };
    let (tokens, sign_ins) = machine(&auth);
    assert!(
        tokens >= 1 && sign_ins == 0,
        "tokens by the client credentials grant only"
    );

    // Every call goes through while the token is renewed underneath.
    timeout(Duration::from_secs(60), async {
        while machine(&auth).0 < 2 {
            assert_eq!(
                greet(&mut host).await.as_deref(),
                Ok("Hello, Sieve!"),
                "a call while the token is renewed"
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    })
    .await
    .expect("a new token before the first runs out");
    assert_eq!(greet(&mut host).await.as_deref(), Ok("Hello, Sieve!"));

    // Every token revoked: the proxy asks for a new one by itself.
    let revoked = Command::new("curl")
        .args(["-sf", "-X", "POST", &format!("{auth}/test/revoke-all")])
        .output()
        .expect("curl runs");
    assert!(revoked.status.success());
    let again = timeout(Duration::from_secs(60), async {
        loop {
            match greet(&mut host).await {
                Ok(text) => break text,
                Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
            }
        }
    })
    .await
    .expect("the proxy gets a new token with no person");
    assert_eq!(again, "Hello, Sieve!");
    assert_eq!(machine(&auth).1, 0, "no person's sign-in was ever made");
    assert!(machine(&auth).0 >= 3, "a third token: {:?}", machine(&auth));
    host.close().await;

    // A wrong secret: signed out, with what to fix, and nothing opened.
    let mut wrong = Run::from(
        home.command()
            .args(["servers", "secret", "sdk", "oauth.clientSecret", "--stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child.stdin.take().unwrap().write_all(b"not-the-secret")?;
                child.wait_with_output()
            })
            .expect("servers secret runs"),
    );
    assert!(wrong.ok, "{}", wrong.stderr);
    Command::new("curl")
        .args(["-sf", "-X", "POST", &format!("{auth}/test/revoke-all")])
        .output()
        .expect("curl runs");
    wrong = Run::from(
        home.command()
            .args(["servers", "list", "--json"])
            .env("BROWSER", "/bin/false")
            .output()
            .expect("servers list runs"),
    );
    let sdk = row(&wrong.json(), "sdk").clone();
    assert_eq!(sdk["state"], "needs-login", "{sdk}");
    let why = sdk["error"].as_str().unwrap_or_default();
    assert!(
        why.contains("client's own credentials") && why.contains("\"clientSecret\""),
        "{why}"
    );
    assert!(!why.contains("not-the-secret"), "{why}");
}
