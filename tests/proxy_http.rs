//! The HTTP front: loopback, a bearer token, Origin checks, one endpoint
//! per profile.

use serde_json::{Value, json};
use sieve_tests::Home;
use sieve_tests::http::HttpProxy;
use std::time::Duration;
use tokio::time::timeout;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

/// How long a test waits for the proxy to answer or to announce a change.
const WAIT: Duration = Duration::from_secs(30);

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
    // An endpoint serves a profile that exists (see the tests below).
    home.write("profiles/work.json", "{}");
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

#[tokio::test]
async fn an_endpoint_of_a_missing_or_broken_profile_says_so() {
    let home = Home::new(BIN);
    home.write("profiles/broken.json", r#"{"tools": {"deny": "#);
    let proxy = HttpProxy::start(BIN, home.path());
    let client = reqwest::Client::new();
    let bearer = format!("Bearer {}", proxy.token);
    let url = format!("{}/mcp/p/nope", proxy.base);
    let expected = "there is no profile \"nope\"; create it with `mcp-sieve profiles new nope`";

    let posted = post(&client, &url, &[("Authorization", &bearer)]).await;
    assert_eq!(
        posted.status(),
        404,
        "initialize on the endpoint of a missing profile is refused"
    );
    assert_eq!(
        posted.text().await.unwrap().trim_end(),
        expected,
        "the body names the profile and how to make it"
    );
    let stream = client
        .get(&url)
        .header("Authorization", &bearer)
        .header("Accept", "text/event-stream")
        .send()
        .await
        .expect("the proxy answers");
    assert_eq!(
        stream.status(),
        404,
        "a GET for the stream is refused the same way"
    );
    assert_eq!(stream.text().await.unwrap().trim_end(), expected);

    let broken = post(
        &client,
        &format!("{}/mcp/p/broken", proxy.base),
        &[("Authorization", &bearer)],
    )
    .await;
    assert_eq!(
        broken.status(),
        500,
        "a profile that does not parse cannot serve its endpoint"
    );
    let said = broken.text().await.unwrap();
    assert!(
        said.starts_with("profile \"broken\" cannot be used: ") && said.contains("broken.json"),
        "the body says which profile and which file: {said}"
    );
}

/// A 2026-07-28 host on `url` (server/discover, no `initialize`).
async fn modern_host(
    url: String,
    token: &str,
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    use rmcp::model::ProtocolVersion;
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let config = StreamableHttpClientTransportConfig::with_uri(url).auth_header(token.to_string());
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    timeout(
        WAIT,
        ().serve_with_lifecycle(
            StreamableHttpClientTransport::from_config(config),
            lifecycle,
        ),
    )
    .await
    .expect("the proxy answers server/discover in time")
    .expect("a 2026-07-28 connection")
}

/// A host listening on `/mcp/p/billing` hears of an edit of profile billing
/// made right after its listen was acknowledged, though it never listed
/// through that profile: the endpoint puts its profile in use as the
/// request arrives, so the edit is a change of a profile in use.
#[tokio::test]
async fn a_listener_hears_an_edit_made_right_after_its_acknowledgement() {
    use rmcp::model::{ServerNotification, SubscriptionFilter};

    let home = Home::new(BIN);
    // A server that never answers its handshake keeps the proxy waiting
    // for it (as for an `npx` server still downloading) before it serves a
    // listener; an edit made meanwhile must not be lost.
    let config = json!({"mcpServers": {
        "demo": {"command": BIN, "args": ["demo-server"]},
        "silent": {"command": "sh", "args": ["-c", "cat > /dev/null"]}
    }});
    home.write("config.json", &config.to_string());
    home.write("profiles/billing.json", r#"{"groups": ["billing"]}"#);
    let proxy = HttpProxy::start(BIN, home.path());

    // Once the demo is listed, its start announces nothing more, so only
    // the edit can make the listener hear something. The default profile
    // is listed, never billing.
    let other = modern_host(format!("{}/mcp", proxy.base), &proxy.token).await;
    let tools = timeout(WAIT, other.list_all_tools())
        .await
        .expect("the default profile lists in time")
        .expect("tools/list works");
    assert_eq!(
        tools.len(),
        40,
        "the demo's tools, under the default profile"
    );

    let host = modern_host(format!("{}/mcp/p/billing", proxy.base), &proxy.token).await;
    let filter = SubscriptionFilter::builder().tools_list_changed().build();
    let mut listening = timeout(WAIT, host.peer().listen(filter))
        .await
        .expect("the listen is acknowledged in time")
        .expect("the proxy accepts the listen");
    home.replace(
        "profiles/billing.json",
        r#"{"groups": ["billing"], "tools": {"deny": ["demo__pay_invoice"]}}"#,
    );
    let heard = timeout(WAIT, listening.next())
        .await
        .expect("the edit of profile billing is announced within 30 s")
        .expect("the listen stream stays open")
        .expect("a notification, not the end of the stream");
    assert!(
        matches!(heard, ServerNotification::ToolListChangedNotification(_)),
        "the tools of profile billing changed: {heard:?}"
    );
    host.cancel().await.expect("the host disconnects");
    other.cancel().await.expect("the other host disconnects");
}

/// `/mcp` serves the active profile and follows a switch live: a host
/// listening there hears `list_changed` when `mcp-sieve profiles use`
/// switches it, and lists what the new profile shows; `/mcp/p/default`
/// still serves the default profile by name.
#[tokio::test]
async fn the_mcp_endpoint_follows_the_active_profile() {
    use rmcp::model::{ServerNotification, SubscriptionFilter};

    let home = Home::new(BIN);
    home.write("profiles/billing.json", r#"{"groups": ["billing"]}"#);
    let proxy = HttpProxy::start(BIN, home.path());
    let host = modern_host(format!("{}/mcp", proxy.base), &proxy.token).await;
    let listed = |host: &rmcp::service::RunningService<rmcp::RoleClient, ()>| {
        let peer = host.peer().clone();
        async move {
            timeout(WAIT, peer.list_all_tools())
                .await
                .expect("tools/list answers in time")
                .expect("tools/list works")
                .len()
        }
    };
    assert_eq!(
        listed(&host).await,
        40,
        "the default profile is active at first"
    );
    let filter = SubscriptionFilter::builder().tools_list_changed().build();
    let mut listening = timeout(WAIT, host.peer().listen(filter))
        .await
        .expect("the listen is acknowledged in time")
        .expect("the proxy accepts the listen");

    let switched = home.run(&["profiles", "use", "billing"]);
    assert!(switched.ok, "{}", switched.stderr);
    assert!(
        home.read("config.json")
            .contains(r#""activeProfile": "billing""#),
        "{}",
        home.read("config.json")
    );
    let heard = timeout(WAIT, listening.next())
        .await
        .expect("the switch is announced within 30 s")
        .expect("the listen stream stays open")
        .expect("a notification, not the end of the stream");
    assert!(
        matches!(heard, ServerNotification::ToolListChangedNotification(_)),
        "the tools of /mcp changed: {heard:?}"
    );
    assert_eq!(listed(&host).await, 8, "the billing group only");

    let by_name = modern_host(format!("{}/mcp/p/default", proxy.base), &proxy.token).await;
    assert_eq!(
        listed(&by_name).await,
        40,
        "/mcp/p/default names its profile"
    );
    let listing = home.run(&["profiles", "list"]);
    assert!(listing.stdout.contains("* billing"), "{}", listing.stdout);

    let refused = home.run(&["profiles", "delete", "billing"]);
    assert!(!refused.ok);
    assert!(
        refused.stderr.contains("make another profile active first"),
        "{}",
        refused.stderr
    );
    by_name.cancel().await.expect("the host disconnects");
    host.cancel().await.expect("the host disconnects");
}
