//! The HTTP front: loopback, a bearer token, Origin checks, one endpoint
//! per profile.

use serde_json::{Value, json};
use sieve_tests::Home;
use sieve_tests::http::HttpProxy;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "http-test", "version": "1"}}})
}

async fn post(client: &reqwest::Client, url: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut request = client
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(initialize().to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.expect("the proxy answers")
}

#[tokio::test]
async fn token_origin_and_endpoints() {
    let home = Home::new(BIN);
    let proxy = HttpProxy::start(BIN, home.path());
    assert!(
        proxy.base.starts_with("http://127.0.0.1:"),
        "loopback by default: {}",
        proxy.base
    );
    let client = reqwest::Client::new();
    let url = format!("{}/mcp", proxy.base);
    let bearer = format!("Bearer {}", proxy.token);

    let none = post(&client, &url, &[]).await;
    assert_eq!(none.status(), 401);
    assert_eq!(none.headers()["www-authenticate"], "Bearer");
    assert!(
        none.text()
            .await
            .unwrap()
            .contains("mcp-sieve serve --print-token")
    );
    let wrong = post(&client, &url, &[("Authorization", "Bearer not-the-token")]).await;
    assert_eq!(wrong.status(), 401);

    let foreign = post(
        &client,
        &url,
        &[("Authorization", &bearer), ("Origin", "http://evil.test")],
    )
    .await;
    assert_eq!(foreign.status(), 403);
    let rebinding = post(
        &client,
        &url,
        &[
            ("Authorization", &bearer),
            ("Origin", "http://localhost.evil.test:8080"),
        ],
    )
    .await;
    assert_eq!(rebinding.status(), 403);

    let ok = post(&client, &url, &[("Authorization", &bearer)]).await;
    assert_eq!(ok.status(), 200);
    assert!(
        ok.text()
            .await
            .unwrap()
            .contains("\"protocolVersion\":\"2025-11-25\"")
    );
    let local = post(
        &client,
        &url,
        &[
            ("Authorization", &bearer),
            ("Origin", "http://localhost:5173"),
        ],
    )
    .await;
    assert_eq!(
        local.status(),
        200,
        "a local page (the app's dev server) may connect"
    );

    let profile = post(
        &client,
        &format!("{}/mcp/p/work", proxy.base),
        &[("Authorization", &bearer)],
    )
    .await;
    assert_eq!(profile.status(), 200);
    let bad = post(
        &client,
        &format!("{}/mcp/p/..%2Fetc", proxy.base),
        &[("Authorization", &bearer)],
    )
    .await;
    assert_eq!(bad.status(), 404);
    let elsewhere = client
        .post(format!("{}/other", proxy.base))
        .header("Authorization", &bearer)
        .send()
        .await
        .unwrap();
    assert_eq!(elsewhere.status(), 404);
}
