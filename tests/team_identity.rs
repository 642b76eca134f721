//! People signed in through the team's identity provider (DESIGN §12),
//! with real parts: a real OpenID provider (`oidc-provider` from npm)
//! issuing JWT access tokens through the authorization-code flow, two
//! `mcp-sieve serve --http` replicas on one PostgreSQL database of the
//! test's own, and rmcp clients as the people's hosts.

use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use sieve_postgres::Database;
use sieve_postgres::testing::TestServer;
use sieve_tests::http::modern_host;
use sieve_tests::oidc::Provider;
use sieve_tests::team::{Replica, answer, cli, request};
use std::time::{Duration, Instant};
use tokio::time::timeout;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");
const WAIT: Duration = Duration::from_secs(30);
/// The gateway as people's hosts name it (its load balancer's address):
/// what their tokens are for.
const AUDIENCE: &str = "http://sieve.test/mcp";

/// A team whose config has the demo server, the audit on, and the
/// provider at `issuer`: engineering gets profile `eng` (every tool),
/// support profile `support` (the billing group only).
fn team(server: &TestServer, name: &str, issuer: &str) -> (String, String) {
    let url = server.database(name);
    let db = Database::connect(&url).expect("the database takes the schema");
    let config = json!({
        "mcpServers": {"demo": {"command": BIN, "args": ["demo-server"]}},
        "settings": {
            "audit": true,
            "identity": {
                "issuer": issuer,
                "audience": AUDIENCE,
                "claim": "groups",
                "profiles": {"engineering": "eng", "support": "support"}
            }
        }
    });
    for (document, text) in [
        ("config.json", format!("{config:#}\n")),
        ("profiles/eng.json", "{}\n".to_string()),
        (
            "profiles/support.json",
            "{\"groups\": [\"billing\"]}\n".to_string(),
        ),
    ] {
        db.update_document::<sieve_postgres::DbError>(document, &mut |_| Ok(Some(text.clone())))
            .unwrap();
    }
    let token = cli(BIN, &url, &["serve", "--print-token"])
        .trim()
        .to_string();
    (url, token)
}

async fn tools_of(host: &rmcp::service::RunningService<rmcp::RoleClient, ()>) -> Vec<String> {
    let tools = timeout(WAIT, host.peer().list_all_tools())
        .await
        .expect("tools/list answers in time")
        .expect("tools/list works");
    tools.into_iter().map(|t| t.name.to_string()).collect()
}

/// A call that fails (no such issue or invoice), so the ledger records it.
async fn failing_call(
    host: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    tool: &str,
    arguments: Value,
) {
    let call = CallToolRequestParams::new(tool.to_string())
        .with_arguments(arguments.as_object().cloned().unwrap());
    let result = timeout(WAIT, host.peer().call_tool(call))
        .await
        .expect("the call answers in time");
    let failed = match result {
        Ok(result) => result.is_error == Some(true),
        Err(_) => true,
    };
    assert!(failed, "{tool} with {arguments} fails");
}

/// The entries (id, owner) `token`'s person sees through `endpoint`.
async fn task_tools(endpoint: &str, token: &str) -> Vec<(String, String)> {
    let (status, listed) = request(endpoint, token, "tasks/list", json!({})).await;
    assert_eq!(status, 200, "{listed}");
    listed["result"]["tasks"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|t| {
            (
                t["taskId"].as_str().unwrap_or_default().to_string(),
                t["_meta"]["dev.mcp-sieve/owner"]
                    .as_str()
                    .unwrap_or("-")
                    .to_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_people_see_their_own_tools_and_only_their_own_tasks() {
    let keys = tempfile::tempdir().unwrap();
    let provider = Provider::start(&keys.path().join("keys.json"));
    let server = TestServer::start();
    let (url, static_token) = team(&server, "people", provider.issuer());
    let a = Replica::start(BIN, &url, &static_token);
    let b = Replica::start(BIN, &url, &static_token);
    a.until_listed(&["demo"]).await;
    b.until_listed(&["demo"]).await;
    let alice = provider.token("alice", AUDIENCE);
    let bob = provider.token("bob", AUDIENCE);

    // Each person's claim chooses their profile, on either replica.
    let alice_on_a = modern_host(a.url("/mcp"), &alice).await;
    let bob_on_b = modern_host(b.url("/mcp"), &bob).await;
    let alice_tools = tools_of(&alice_on_a).await;
    let bob_tools = tools_of(&bob_on_b).await;
    assert!(
        alice_tools.contains(&"demo__get_issue".to_string()),
        "engineering sees every tool: {alice_tools:?}"
    );
    assert!(
        !bob_tools.is_empty() && bob_tools.len() < alice_tools.len(),
        "support sees the billing group only: {bob_tools:?}"
    );
    assert!(!bob_tools.contains(&"demo__get_issue".to_string()));

    // Each leaves a failed call in the ledger.
    failing_call(&alice_on_a, "demo__get_issue", json!({"id": 999})).await;
    failing_call(&bob_on_b, "demo__get_invoice", json!({"id": "INV-9999"})).await;

    // Each lists only their own, through the other replica too.
    let alice_sees = task_tools(&b.url("/mcp"), &alice).await;
    let bob_sees = task_tools(&a.url("/mcp"), &bob).await;
    assert_eq!(alice_sees.len(), 1, "alice's own entry: {alice_sees:?}");
    assert_eq!(alice_sees[0].1, "alice");
    assert_eq!(bob_sees.len(), 1, "bob's own entry: {bob_sees:?}");
    assert_eq!(bob_sees[0].1, "bob");
    // The static token (an administrator) sees both.
    let everyone = task_tools(&a.url("/mcp"), &static_token).await;
    assert_eq!(everyone.len(), 2, "{everyone:?}");

    // Bob cannot retry, read or cancel alice's entry: it is not there.
    let alices_id = &alice_sees[0].0;
    for method in ["tasks/retry", "tasks/get", "tasks/cancel"] {
        let (status, answer) =
            request(&b.url("/mcp"), &bob, method, json!({"taskId": alices_id})).await;
        assert_eq!(status, 200, "{method}: {answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains(alices_id.as_str())),
            "{method} of another person's entry is refused as unknown: {answer}"
        );
    }
    let (_, retried) = request(
        &a.url("/mcp"),
        &alice,
        "tasks/retry",
        json!({"taskId": alices_id}),
    )
    .await;
    assert!(
        retried.get("result").is_some(),
        "alice retries her own: {retried}"
    );

    // The command line on the team's database lists what both replicas
    // wrote: every entry, or one person's.
    let owners = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["tasks", "--json"];
        all.extend_from_slice(args);
        let page: Value = serde_json::from_str(&cli(BIN, &url, &all)).unwrap();
        page["tasks"]
            .as_array()
            .expect("a page of tasks")
            .iter()
            .map(|t| {
                t["_meta"]["dev.mcp-sieve/owner"]
                    .as_str()
                    .unwrap_or("-")
                    .to_string()
            })
            .collect()
    };
    assert_eq!(owners(&[]).len(), 3, "alice's two entries and bob's");
    assert_eq!(owners(&["--owner", "alice"]), ["alice", "alice"]);
    assert_eq!(owners(&["--owner", "bob"]), ["bob"]);
    assert!(owners(&["--owner", "carol"]).is_empty());

    // A call from a host that names itself: the audit says which.
    let (status, echoed) = request(
        &b.url("/mcp"),
        &alice,
        "tools/call",
        json!({"name": "demo__echo", "arguments": {"text": "hi"}}),
    )
    .await;
    assert_eq!(status, 200, "{echoed}");
    assert!(echoed["result"].is_object(), "{echoed}");

    // A person cannot reach another profile by its URL.
    let (status, answer) = request(&a.url("/mcp/p/eng"), &bob, "tools/list", json!({})).await;
    assert_eq!(status, 403, "{answer}");

    // The audit names the person.
    let audit: Value = serde_json::from_str(&cli(BIN, &url, &["audit", "--json"])).unwrap();
    let who: Vec<&str> = audit["calls"]
        .as_array()
        .expect("calls")
        .iter()
        .filter_map(|r| r["who"].as_str())
        .collect();
    assert!(who.iter().any(|w| w.contains("alice")), "{who:?}");
    assert!(
        who.iter()
            .any(|w| w.contains("alice") && w.ends_with(" with identity-test 1 (HTTP, signed in)")),
        "the host as it named itself: {who:?}"
    );
    assert!(who.iter().any(|w| w.contains("bob")), "{who:?}");
    for host in [alice_on_a, bob_on_b] {
        host.cancel().await.ok();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_of_another_issuer_audience_or_time_get_401_and_a_rotated_key_is_taken() {
    let keys = tempfile::tempdir().unwrap();
    let keys_file = keys.path().join("keys.json");
    let provider = Provider::start(&keys_file);
    let stranger = Provider::start(&keys.path().join("stranger.json"));
    let server = TestServer::start();
    let (url, static_token) = team(&server, "refusals", provider.issuer());
    let replica = Replica::start(BIN, &url, &static_token);
    replica.until_listed(&["demo"]).await;
    let endpoint = replica.url("/mcp");

    // The protected resource metadata names the provider.
    let metadata: Value = reqwest::get(replica.url("/.well-known/oauth-protected-resource/mcp"))
        .await
        .expect("the metadata answers")
        .json()
        .await
        .expect("JSON");
    assert_eq!(metadata["resource"], AUDIENCE);
    assert_eq!(metadata["authorization_servers"][0], provider.issuer());

    // No token: 401 pointing at the metadata.
    let bare = reqwest::Client::new()
        .post(&endpoint)
        .header("accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    assert_eq!(bare.status().as_u16(), 401);
    let challenge = bare.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        challenge.contains(
            "resource_metadata=\"http://sieve.test/.well-known/oauth-protected-resource/mcp\""
        ),
        "{challenge}"
    );

    let refused = |why: &'static str| {
        move |(status, answer): (u16, Value)| {
            assert_eq!(status, 401, "{why}: {answer}");
            let text = answer.as_str().unwrap_or_default().to_string();
            assert!(text.contains(why), "says {why:?}: {text}");
        }
    };
    let other_issuer = stranger.token("alice", AUDIENCE);
    refused("another provider")(request(&endpoint, &other_issuer, "tools/list", json!({})).await);
    let other_audience = provider.token("alice", "http://elsewhere.test/mcp");
    refused("another audience")(request(&endpoint, &other_audience, "tools/list", json!({})).await);

    // A token that works, then expires (2 s, plus the 10 s leeway).
    let short = provider.short_lived_token("alice", AUDIENCE);
    let (status, _) = request(&endpoint, &short, "tools/list", json!({})).await;
    assert_eq!(status, 200, "a fresh short-lived token is taken");
    let deadline = Instant::now() + WAIT;
    let expired = loop {
        let answer = request(&endpoint, &short, "tools/list", json!({})).await;
        if answer.0 != 200 {
            break answer;
        }
        assert!(Instant::now() < deadline, "the token never expired");
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    refused("expired")(expired);

    // The provider rotates its key: a token signed with the new one is
    // taken once the gateway fetches the keys again.
    let before = provider.token("alice", AUDIENCE);
    let port = provider.port();
    drop(provider);
    std::fs::remove_file(&keys_file).expect("the old key goes");
    let rotated = Provider::start_on(port, &keys_file);
    let after = rotated.token("alice", AUDIENCE);
    assert_ne!(kid(&before), kid(&after), "a new key");
    let deadline = Instant::now() + WAIT;
    loop {
        let (status, answer) = request(&endpoint, &after, "tools/list", json!({})).await;
        if status == 200 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the new key is never taken: {answer}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    refused("does not publish")(request(&endpoint, &before, "tools/list", json!({})).await);
}

/// The key id in a JWT's header.
fn kid(token: &str) -> String {
    jsonwebtoken::decode_header(token)
        .expect("a JWT")
        .kid
        .unwrap_or_default()
}

/// One message of a 2025-11-25 session, raw: the status, the session id
/// the answer carries, and the answer.
async fn in_session(
    endpoint: &str,
    token: &str,
    session: Option<&str>,
    message: Value,
) -> (u16, Option<String>, Value) {
    let mut post = reqwest::Client::new()
        .post(endpoint)
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream");
    if let Some(session) = session {
        post = post
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25");
    }
    let response = timeout(WAIT, post.json(&message).send())
        .await
        .expect("the gateway answers in time")
        .expect("the gateway answers");
    let status = response.status().as_u16();
    let id = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    (
        status,
        id,
        answer(&response.text().await.unwrap_or_default()),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_serves_only_the_person_who_opened_it() {
    let keys = tempfile::tempdir().unwrap();
    let provider = Provider::start(&keys.path().join("keys.json"));
    let server = TestServer::start();
    let (url, static_token) = team(&server, "sessions", provider.issuer());
    let replica = Replica::start(BIN, &url, &static_token);
    replica.until_listed(&["demo"]).await;
    let endpoint = replica.url("/mcp");
    let alice = provider.token("alice", AUDIENCE);
    let bob = provider.token("bob", AUDIENCE);

    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "session-test", "version": "1"}
        }
    });
    let (status, session, answer) = in_session(&endpoint, &alice, None, initialize).await;
    assert_eq!(status, 200, "{answer}");
    let session = session.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    in_session(&endpoint, &alice, Some(&session), initialized).await;

    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}});
    let (_, _, hers) = in_session(&endpoint, &alice, Some(&session), list.clone()).await;
    assert!(
        hers["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "alice lists in her session: {hers}"
    );
    for (who, token) in [("bob", bob.as_str()), ("the static token", &static_token)] {
        let (_, _, refused) = in_session(&endpoint, token, Some(&session), list.clone()).await;
        assert!(
            refused["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("opened by someone else")),
            "{who} is refused in alice's session: {refused}"
        );
    }
}
