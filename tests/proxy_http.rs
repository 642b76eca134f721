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

/// The built-in demo's reindex: `steps` progress notifications when the
/// call carries a progress token, `step_ms` apart, then its answer.
fn reindex(steps: u32, step_ms: u32) -> Value {
    json!({"name": "demo__reindex", "arguments": {"steps": steps, "step_ms": step_ms}})
}

fn echo() -> Value {
    json!({"name": "demo__echo", "arguments": {"text": "hi"}})
}

/// How rmcp's client transport (its reqwest side, which decides between a
/// JSON body and a stream) receives the proxy's answer to `message`:
/// "json", "stream" or "accepted", and the session id that came with it.
async fn rmcp_answer(
    url: &str,
    token: &str,
    session: Option<&str>,
    modern: bool,
    message: Value,
) -> (&'static str, Option<String>) {
    use reqwest::header::{HeaderName, HeaderValue};
    use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
    use rmcp::transport::streamable_http_client::{
        StreamableHttpClient, StreamableHttpPostResponse,
    };
    let mut headers = std::collections::HashMap::new();
    if modern {
        // The headers rmcp's transport adds for this generation (SEP-2243).
        let header = |value: &Value| HeaderValue::from_str(value.as_str().expect("text")).unwrap();
        headers.insert(
            HeaderName::from_static("mcp-protocol-version"),
            HeaderValue::from_static("2026-07-28"),
        );
        headers.insert(
            HeaderName::from_static("mcp-method"),
            header(&message["method"]),
        );
        if message["method"] == "tools/call" {
            headers.insert(
                HeaderName::from_static("mcp-name"),
                header(&message["params"]["name"]),
            );
        }
    }
    let message: ClientJsonRpcMessage =
        serde_json::from_value(message).expect("a message rmcp's client can send");
    let answer = timeout(
        WAIT,
        reqwest::Client::new().post_message(
            url.into(),
            message,
            session.map(Into::into),
            Some(token.to_string()),
            headers,
        ),
    )
    .await
    .expect("the proxy answers in time")
    .expect("rmcp's client takes the answer");
    match answer {
        StreamableHttpPostResponse::Json(ServerJsonRpcMessage::Response(_), session) => {
            ("json", session)
        }
        StreamableHttpPostResponse::Json(other, _) => panic!("not a result: {other:?}"),
        StreamableHttpPostResponse::Sse(_, session) => ("stream", session),
        StreamableHttpPostResponse::Accepted => ("accepted", None),
        other => panic!("an answer rmcp does not know: {other:?}"),
    }
}

/// A request of the 2026-07-28 generation: what it says of itself in `_meta`.
fn modern_request(id: u32, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "http-test", "version": "1"},
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A request whose answer is one response comes back to rmcp's client as
/// plain JSON in both generations (the spec lets the server choose); a
/// call that reports progress still streams.
#[tokio::test]
async fn a_whole_answer_is_plain_json_to_the_rmcp_client() {
    let home = Home::new(BIN);
    let proxy = HttpProxy::start(BIN, home.path());
    let url = format!("{}/mcp", proxy.base);
    let token = proxy.token.as_str();

    let (how, session) = rmcp_answer(&url, token, None, false, initialize()).await;
    assert_eq!(how, "json", "initialize of a 2025-11-25 session");
    let session = session.expect("the session's id comes with the answer");
    let session = Some(session.as_str());
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        rmcp_answer(&url, token, session, false, initialized)
            .await
            .0,
        "accepted",
        "a notification is still 202"
    );
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": echo()});
    assert_eq!(
        rmcp_answer(&url, token, session, false, call).await.0,
        "json"
    );
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}});
    assert_eq!(
        rmcp_answer(&url, token, session, false, list).await.0,
        "json"
    );
    // rmcp's client puts a progress token on every request.
    let mut params = echo();
    params["_meta"] = json!({"progressToken": "e"});
    let quiet = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": params});
    assert_eq!(
        rmcp_answer(&url, token, session, false, quiet).await.0,
        "json",
        "a call that asks for progress and reports none"
    );
    let mut params = reindex(3, 20);
    params["_meta"] = json!({"progressToken": "p"});
    let progress = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": params});
    assert_eq!(
        rmcp_answer(&url, token, session, false, progress).await.0,
        "stream",
        "a call with progress streams"
    );

    let discover = modern_request(1, "server/discover", json!({}));
    assert_eq!(
        rmcp_answer(&url, token, None, true, discover).await.0,
        "json",
        "server/discover"
    );
    let call = modern_request(2, "tools/call", echo());
    assert_eq!(
        rmcp_answer(&url, token, None, true, call).await.0,
        "json",
        "a 2026-07-28 call"
    );
    let mut quiet = modern_request(4, "tools/call", echo());
    quiet["params"]["_meta"]["progressToken"] = json!("e");
    assert_eq!(
        rmcp_answer(&url, token, None, true, quiet).await.0,
        "json",
        "a 2026-07-28 call that asks for progress and reports none"
    );
    let mut params = reindex(3, 20);
    let progress = {
        let mut request = modern_request(3, "tools/call", params.take());
        request["params"]["_meta"]["progressToken"] = json!("p");
        request
    };
    assert_eq!(
        rmcp_answer(&url, token, None, true, progress).await.0,
        "stream",
        "a 2026-07-28 call with progress streams"
    );
}

/// A host that keeps the progress it is told of.
#[derive(Clone)]
struct ProgressHost(tokio::sync::mpsc::UnboundedSender<f64>);

impl rmcp::ClientHandler for ProgressHost {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        let _ = self.0.send(params.progress);
    }
}

/// Through the whole rmcp client, both generations: the echo answers, and
/// a reindex's progress reaches the host before its answer.
#[tokio::test]
async fn progress_still_streams_to_the_rmcp_client() {
    use rmcp::model::{CallToolRequestParams, ProtocolVersion};
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

    let home = Home::new(BIN);
    let proxy = HttpProxy::start(BIN, home.path());
    let call = |params: Value| {
        CallToolRequestParams::new(params["name"].as_str().expect("a name").to_string())
            .with_arguments(params["arguments"].as_object().cloned().expect("arguments"))
    };
    for lifecycle in [
        ClientLifecycleMode::Initialize,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    ] {
        let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", proxy.base))
            .auth_header(proxy.token.clone());
        let (told, mut progress) = tokio::sync::mpsc::unbounded_channel();
        let host = timeout(
            WAIT,
            ProgressHost(told).serve_with_lifecycle(
                StreamableHttpClientTransport::from_config(config),
                lifecycle.clone(),
            ),
        )
        .await
        .expect("the proxy answers the handshake in time")
        .expect("the host connects");
        let echoed = timeout(WAIT, host.call_tool(call(echo())))
            .await
            .expect("echo answers in time")
            .expect("echo works");
        assert_eq!(
            echoed.structured_content.expect("structured")["text"],
            "hi",
            "{lifecycle:?}"
        );
        let reindexed = timeout(WAIT, host.call_tool(call(reindex(3, 20))))
            .await
            .expect("reindex answers in time")
            .expect("reindex works");
        assert_eq!(
            reindexed.structured_content.expect("structured")["steps"],
            3
        );
        let mut heard = Vec::new();
        while let Ok(step) = progress.try_recv() {
            heard.push(step);
        }
        assert_eq!(
            heard,
            [1.0, 2.0, 3.0],
            "every step's progress before the answer ({lifecycle:?})"
        );
        host.cancel().await.expect("the host disconnects");
    }
}

/// The Python `mcp` client, both generations: every POST of a request that
/// answers at once gets `application/json`, notifications 202, and the
/// reindex that reports progress a stream, whose progress the client hears.
#[test]
fn the_python_client_gets_plain_json_and_progress_still_streams() {
    let home = Home::new(BIN);
    let proxy = HttpProxy::start(BIN, home.path());
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("proxy_http/answers.py");
    for (mode, version) in [("legacy", "2025-11-25"), ("auto", "2026-07-28")] {
        let output = std::process::Command::new(&sieve_tests::deps::deps().python)
            .arg(&script)
            .args([&format!("{}/mcp", proxy.base), &proxy.token, mode])
            .output()
            .expect("python runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "answers.py {mode}: {stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let seen: Value = serde_json::from_str(&stdout).expect("one JSON object");
        assert_eq!(seen["protocolVersion"], version, "{seen}");
        assert_eq!(seen["echo"]["text"], "hi", "{seen}");
        assert_eq!(seen["tools"], 40, "{seen}");
        assert_eq!(seen["progress"], json!([1.0, 2.0, 3.0]), "{seen}");
        assert_eq!(seen["reindex"]["steps"], 3, "{seen}");
        let answers = seen["answers"].as_array().expect("answers");
        let (last, requests) = answers.split_last().expect("some POSTs");
        for answer in requests {
            let expected = if answer["method"]
                .as_str()
                .is_some_and(|m| m.starts_with("notifications/"))
            {
                json!({"status": 202, "contentType": null})
            } else {
                json!({"status": 200, "contentType": "application/json"})
            };
            assert_eq!(
                json!({"status": answer["status"], "contentType": answer["contentType"]}),
                expected,
                "{mode}: {answer}"
            );
        }
        assert_eq!(
            *last,
            json!({"method": "tools/call", "status": 200, "contentType": "text/event-stream"}),
            "{mode}: the reindex streams"
        );
    }
}

/// A proxy on a fresh home, spoken to with raw HTTP requests as a
/// 2025-11-25 host would, on a session it opened.
struct RawHost {
    /// The proxy's home, for the command line.
    home: Home,
    _proxy: HttpProxy,
    client: reqwest::Client,
    url: String,
    bearer: String,
    session: String,
}

impl RawHost {
    async fn start() -> RawHost {
        RawHost::start_with(None).await
    }

    /// A host of a proxy whose `config.json` is `config`, where one is
    /// given (the demo server's alone otherwise).
    async fn start_with(config: Option<&str>) -> RawHost {
        let home = Home::new(BIN);
        if let Some(config) = config {
            home.write("config.json", config);
        }
        let proxy = HttpProxy::start(BIN, home.path());
        let mut host = RawHost {
            client: reqwest::Client::new(),
            url: format!("{}/mcp", proxy.base),
            bearer: format!("Bearer {}", proxy.token),
            session: String::new(),
            home,
            _proxy: proxy,
        };
        host.session = host.open_session().await;
        host
    }

    /// A session of its own: `initialize`, answered as plain JSON with the
    /// session's id, then `initialized`.
    async fn open_session(&self) -> String {
        let started = post(&self.client, &self.url, &[("Authorization", &self.bearer)]).await;
        assert_eq!(started.headers()["content-type"], "application/json");
        let session = started.headers()["mcp-session-id"]
            .to_str()
            .expect("a session id")
            .to_string();
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let answered = self
            .post_on(&session, &initialized)
            .send()
            .await
            .expect("the proxy answers");
        assert_eq!(answered.status(), 202);
        session
    }

    /// A POST of `message` on `session`.
    fn post_on(&self, session: &str, message: &Value) -> reqwest::RequestBuilder {
        self.client
            .post(&self.url)
            .header("Authorization", &self.bearer)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("Mcp-Session-Id", session)
            .header("MCP-Protocol-Version", "2025-11-25")
            .body(message.to_string())
    }

    /// A POST of `message` on the host's own session.
    fn post(&self, message: &Value) -> reqwest::RequestBuilder {
        self.post_on(&self.session, message)
    }

    /// A POST of `message` on the host's own session, answered with a
    /// stream (its headers come once the proxy starts it).
    async fn stream(&self, message: &Value) -> reqwest::Response {
        let streamed = timeout(WAIT, self.post(message).send())
            .await
            .expect("the proxy answers in time")
            .expect("the proxy answers");
        assert_eq!(streamed.status(), 200);
        assert_eq!(streamed.headers()["content-type"], "text/event-stream");
        streamed
    }

    /// The whole stream answering `message`, once it ends.
    async fn whole_stream(&self, message: &Value) -> String {
        timeout(WAIT, self.stream(message).await.text())
            .await
            .expect("the stream ends after the answer")
            .expect("the stream reads")
    }

    /// The GET that opens (or, with `Last-Event-ID`, resumes) a stream of
    /// `session`.
    fn get_on(&self, session: &str) -> reqwest::RequestBuilder {
        self.client
            .get(&self.url)
            .header("Authorization", &self.bearer)
            .header("Accept", "text/event-stream")
            .header("Mcp-Session-Id", session)
            .header("MCP-Protocol-Version", "2025-11-25")
    }

    /// A POST of a 2026-07-28 request, sessionless, with the headers its
    /// generation sends.
    fn modern_post(&self, message: &Value) -> reqwest::RequestBuilder {
        let mut post = self
            .client
            .post(&self.url)
            .header("Authorization", &self.bearer)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", message["method"].as_str().expect("a method"));
        if let Some(name) = message["params"]["name"].as_str() {
            post = post.header("Mcp-Name", name);
        }
        post.body(message.to_string())
    }

    /// The ledger's cancelled entries, once there are `count` of them (the
    /// proxy records a cancelled call as it ends).
    async fn cancelled_entries(&self, count: usize) -> Vec<Value> {
        let list = modern_request(90, "tasks/list", json!({"status": ["cancelled"]}));
        let wait = async {
            loop {
                let answer = json_answer(self.modern_post(&list)).await;
                let tasks = answer["result"]["tasks"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                if tasks.len() >= count {
                    return tasks;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        };
        timeout(WAIT, wait)
            .await
            .expect("the cancelled calls are recorded in time")
    }
}

/// Every call is audited under the host's own name and version, on every
/// path a call takes: plain JSON and streamed answers, a 2025-11-25
/// session (named in its `initialize`) and 2026-07-28 requests (each
/// naming its client in its `_meta`).
#[tokio::test]
async fn the_audit_names_the_host_on_every_path() {
    let host = RawHost::start_with(Some(r#"{"settings": {"audit": true}}"#)).await;
    let call = |id: u32, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    let mut with_progress = reindex(2, 100);
    with_progress["_meta"] = json!({"progressToken": "p"});

    // 2025-11-25: a plain answer, one past the wait, one with progress.
    let plain = json_answer(host.post(&call(2, echo()))).await;
    assert!(plain["result"].is_object(), "{plain}");
    let silent = host.whole_stream(&call(3, reindex(1, 2_500))).await;
    assert!(silent.contains(r#""id":3,"result""#), "{silent}");
    let told = host.whole_stream(&call(4, with_progress.clone())).await;
    assert!(told.contains(r#""id":4,"result""#), "{told}");

    // 2026-07-28, from a host that names itself "bar 0".
    let bar = |id: u32, params: Value| {
        let mut message = modern_request(id, "tools/call", params);
        message["params"]["_meta"]["io.modelcontextprotocol/clientInfo"] =
            json!({"name": "bar", "version": "0"});
        message
    };
    let plain = json_answer(host.modern_post(&bar(5, echo()))).await;
    assert!(plain["result"].is_object(), "{plain}");
    let mut told = bar(6, reindex(2, 100));
    told["params"]["_meta"]["progressToken"] = json!("q");
    let streamed = timeout(WAIT, host.modern_post(&told).send())
        .await
        .expect("the proxy answers in time")
        .expect("the proxy answers");
    assert_eq!(streamed.headers()["content-type"], "text/event-stream");
    let body = streamed.text().await.expect("the stream reads");
    assert!(body.contains(r#""id":6,"result""#), "{body}");

    let listed = host.home.run(&["audit", "--json", "--limit", "10"]).json();
    let who: Vec<&str> = listed["calls"]
        .as_array()
        .expect("audited calls")
        .iter()
        .map(|c| c["who"].as_str().expect("who"))
        .collect();
    assert_eq!(
        who,
        [
            "bar 0 (HTTP, bearer token)",
            "bar 0 (HTTP, bearer token)",
            "http-test 1 (HTTP, bearer token)",
            "http-test 1 (HTTP, bearer token)",
            "http-test 1 (HTTP, bearer token)",
        ],
        "newest first, each under the name its host gave: {listed}"
    );
}

/// The JSON answer to `post`.
async fn json_answer(post: reqwest::RequestBuilder) -> Value {
    post.send()
        .await
        .expect("the proxy answers")
        .json()
        .await
        .expect("a JSON answer")
}

/// The stream of a 2025-11-25 call, raw: a call that says nothing for a
/// while streams as before, its priming event first (an id the host can
/// resume from) and its answer last; a call that reports progress streams
/// from its first progress, each step before the answer; the session's GET
/// stream is a stream.
#[tokio::test]
async fn a_call_silent_for_a_while_streams_with_its_priming_event() {
    let host = RawHost::start().await;

    // One step longer than the proxy holds an answer to see what it is.
    let silent =
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": reindex(1, 2_500)});
    let body = host.whole_stream(&silent).await;
    let events: Vec<&str> = body.split("\n\n").filter(|e| !e.is_empty()).collect();
    assert!(
        events[0].contains("id: ") && events[0].contains("retry: "),
        "the priming event first: {body}"
    );
    assert!(
        events
            .last()
            .is_some_and(|e| e.contains(r#""id":2,"result""#)),
        "the answer last: {body}"
    );

    // A call whose progress comes first streams from its first progress,
    // before the wait is over, and goes on streaming it past the wait.
    let mut params = reindex(2, 1_200);
    params["_meta"] = json!({"progressToken": "slow"});
    let told = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params});
    let body = host.whole_stream(&told).await;
    let messages: Vec<Value> = body
        .split("\n\n")
        .filter_map(|event| event.lines().find_map(|l| l.strip_prefix("data: ")))
        .filter(|data| !data.is_empty())
        .map(|data| serde_json::from_str(data).expect("each event is JSON"))
        .collect();
    assert!(body.starts_with("id: "), "the priming event first: {body}");
    let progress: Vec<(&Value, &Value)> = messages
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| (&m["params"]["progressToken"], &m["params"]["progress"]))
        .collect();
    assert_eq!(
        progress,
        [(&json!("slow"), &json!(1.0)), (&json!("slow"), &json!(2.0))],
        "both steps, with the host's token: {body}"
    );
    assert_eq!(
        messages
            .last()
            .map(|m| (&m["id"], &m["result"]["structuredContent"]["steps"])),
        Some((&json!(3), &json!(2))),
        "the answer last: {body}"
    );

    let stream = host
        .get_on(&host.session)
        .send()
        .await
        .expect("the proxy answers");
    assert_eq!(stream.status(), 200);
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
}

/// A call served without rmcp's session layer still behaves as rmcp's
/// own: a host whose stream broke resumes it from the priming event with a
/// GET and gets the answer, which the call went on to give meanwhile; and
/// `notifications/cancelled` cancels a call in flight, at once.
#[tokio::test]
async fn a_long_call_resumes_after_a_broken_stream_and_a_cancelled_one_stops() {
    let host = RawHost::start().await;

    // The stream breaks after its priming event.
    let slow =
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": reindex(1, 3_000)});
    let mut streamed = host.stream(&slow).await;
    let first = timeout(WAIT, streamed.chunk())
        .await
        .expect("the priming event comes at once")
        .expect("it reads")
        .expect("a first chunk");
    let first = String::from_utf8_lossy(&first).to_string();
    let event_id = first
        .lines()
        .find_map(|line| line.strip_prefix("id: "))
        .unwrap_or_else(|| panic!("the priming event has an id: {first}"))
        .to_string();
    assert!(
        event_id.starts_with("sieve-"),
        "the call was served directly, not by rmcp's session layer: {first}"
    );
    drop(streamed);
    let resumed = timeout(
        WAIT,
        host.get_on(&host.session)
            .header("Last-Event-ID", &event_id)
            .send(),
    )
    .await
    .expect("the proxy answers in time")
    .expect("the proxy answers");
    assert_eq!(resumed.status(), 200);
    let rest = timeout(WAIT, resumed.text())
        .await
        .expect("the resumed stream ends with the answer")
        .expect("it reads");
    assert!(
        rest.contains(r#""id":2,"result""#) && rest.contains(r#""steps":1"#),
        "the answer, through the resumed stream: {rest}"
    );
    // Another session cannot resume it: that GET is rmcp's, which knows no
    // such event.
    let other = host.open_session().await;
    let refused = host
        .get_on(&other)
        .header("Last-Event-ID", &event_id)
        .send()
        .await
        .expect("the proxy answers");
    let refused_text = if refused.status() == 200 {
        timeout(Duration::from_millis(500), refused.text())
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default()
    } else {
        String::new()
    };
    assert!(
        !refused_text.contains(r#""id":2"#),
        "another session does not get this answer: {refused_text}"
    );

    // A call cancelled by its host ends at once with the cancellation.
    let long =
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": reindex(1, 60_000)});
    let started = std::time::Instant::now();
    let streamed = host.stream(&long).await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3, "reason": "the person stopped it"}});
    let sent = host.post(&cancel).send().await.expect("the proxy answers");
    assert_eq!(sent.status(), 202);
    let body = timeout(WAIT, streamed.text())
        .await
        .expect("the cancelled call ends at once, not after its minute")
        .expect("it reads");
    assert!(
        body.contains(r#""id":3,"error""#) && body.contains("cancelled by the host"),
        "the cancellation is the answer: {body}"
    );
    assert!(started.elapsed() < Duration::from_secs(30), "ended early");
    let recorded = host.cancelled_entries(1).await;
    assert_eq!(recorded[0]["statusMessage"], "cancelled by the host");

    // A 2026-07-28 host that hangs up cancels its call, recorded as such.
    let long = modern_request(4, "tools/call", reindex(1, 60_000));
    let streamed = timeout(WAIT, host.modern_post(&long).send())
        .await
        .expect("the proxy answers in time")
        .expect("the proxy answers");
    assert_eq!(
        streamed.headers()["content-type"],
        "text/event-stream",
        "a call past the wait streams"
    );
    drop(streamed);
    let recorded = host.cancelled_entries(2).await;
    assert_eq!(recorded.len(), 2, "{recorded:?}");
}

/// A call's own `_meta` still narrows it on the direct path: a concern
/// value in it that hides the tool refuses the call, in both generations,
/// and one that keeps it lets it through.
#[tokio::test]
async fn a_call_is_judged_by_the_concerns_in_its_own_meta() {
    let host = RawHost::start().await;
    // `cost: minimal` keeps the billing tools that cost little, and hides
    // create_invoice; `moderate` keeps it.
    let call = |id: u32, cost: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "demo__create_invoice",
            "arguments": {"customer": "c1", "amount_cents": 500},
            "_meta": {"dev.mcp-sieve/concerns": {"cost": cost}},
        }})
    };
    for (id, cost, refused) in [(2, "minimal", true), (3, "moderate", false)] {
        let answer = json_answer(host.post(&call(id, cost))).await;
        assert_eq!(
            answer.get("error").is_some(),
            refused,
            "2025-11-25, cost {cost}: {answer}"
        );
        if refused {
            assert!(
                answer["error"]["data"].get("hiddenBy").is_some(),
                "the profile's refusal says why: {answer}"
            );
        }

        let mut modern = modern_request(id, "tools/call", call(id, cost)["params"].clone());
        modern["params"]["_meta"]["dev.mcp-sieve/concerns"] = json!({"cost": cost});
        let answer = json_answer(host.modern_post(&modern)).await;
        assert_eq!(
            answer.get("error").is_some(),
            refused,
            "2026-07-28, cost {cost}: {answer}"
        );
    }
}

/// Reads `stream` until what it has sent holds `wanted`; gives all it sent.
async fn read_until(stream: &mut reqwest::Response, wanted: &str) -> String {
    let mut seen = String::new();
    let read = async {
        while !seen.contains(wanted) {
            let chunk = stream
                .chunk()
                .await
                .expect("the stream reads")
                .unwrap_or_else(|| panic!("the stream ended before {wanted}: {seen}"));
            seen.push_str(&String::from_utf8_lossy(&chunk));
        }
    };
    timeout(WAIT, read)
        .await
        .unwrap_or_else(|_| panic!("{wanted} within 30 s; the stream sent: {seen}"));
    seen
}

/// The ids of the events in `text` that carry `what`.
fn event_ids_with(text: &str, what: &str) -> Vec<String> {
    text.split("\n\n")
        .filter(|event| event.contains(what))
        .filter_map(|event| {
            event
                .lines()
                .find_map(|line| line.strip_prefix("id: "))
                .map(str::to_string)
        })
        .collect()
}

/// A 2025-11-25 session's GET stream: what the proxy sent while no GET
/// was open waits for the next, each event has an id, a GET naming one
/// gets only what followed it, and DELETE ends the session.
#[tokio::test]
async fn a_session_s_stream_keeps_what_came_while_it_was_closed_and_resumes() {
    let host = RawHost::start().await;
    host.home
        .write("profiles/billing.json", r#"{"groups": ["billing"]}"#);
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let changed = "notifications/tools/list_changed";

    // A change while no GET is open.
    json_answer(host.post(&list)).await;
    let switched = host.home.run(&["profiles", "use", "billing"]);
    assert!(switched.ok, "{}", switched.stderr);
    let mut stream = timeout(WAIT, host.get_on(&host.session).send())
        .await
        .expect("the proxy answers in time")
        .expect("the proxy answers");
    assert_eq!(stream.status(), 200);
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    let first = read_until(&mut stream, changed).await;
    let ids = event_ids_with(&first, changed);
    // A change made before the host listed (a server coming up) may come
    // first on a slow machine: the switch's is the last.
    let last = ids
        .last()
        .unwrap_or_else(|| panic!("the change has an id: {first}"))
        .clone();
    drop(stream);

    // A second change, again with no GET open; a GET resuming after the
    // first gets what followed it only.
    let listed = json_answer(host.post(&list)).await;
    assert_eq!(
        listed["result"]["tools"].as_array().map(Vec::len),
        Some(8),
        "the billing group only: {listed}"
    );
    let switched = host.home.run(&["profiles", "use", "default"]);
    assert!(switched.ok, "{}", switched.stderr);
    let mut resumed = timeout(
        WAIT,
        host.get_on(&host.session)
            .header("Last-Event-ID", &last)
            .send(),
    )
    .await
    .expect("the proxy answers in time")
    .expect("the proxy answers");
    assert_eq!(resumed.status(), 200);
    let second = read_until(&mut resumed, changed).await;
    let number = |id: &str| -> u64 {
        id.rsplit('/')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("an event id of the stream: {id}"))
    };
    let again = event_ids_with(&second, changed);
    assert!(!again.is_empty(), "the second change: {second}");
    for id in event_ids_with(&second, "jsonrpc") {
        assert!(
            number(&id) > number(&last),
            "only what followed {last} is sent again: {second}"
        );
    }
    drop(resumed);

    // DELETE ends the session: its requests and streams are refused.
    let deleted = host
        .client
        .delete(&host.url)
        .header("Authorization", &host.bearer)
        .header("Mcp-Session-Id", &host.session)
        .send()
        .await
        .expect("the proxy answers");
    assert_eq!(deleted.status(), 200);
    let after = host.post(&list).send().await.expect("the proxy answers");
    assert_eq!(after.status(), 404, "the session is gone");
    let get = host
        .get_on(&host.session)
        .send()
        .await
        .expect("the proxy answers");
    assert_eq!(get.status(), 404, "its stream is gone too");
}
