//! Roots: what an upstream that asks for them is told, with the real
//! `@modelcontextprotocol/server-filesystem` (which replaces the folders it
//! was started with by the roots its client gives) behind `serve --http`,
//! and rmcp clients as hosts that have roots of their own.
//!
//! One upstream connection serves every host, so by default the proxy
//! answers `roots/list` itself from `config.json`: the same answer from the
//! first request on, whether or not a host is connected when the server
//! (re)starts. A host's roots reach a server only when the user opted in
//! for it (`"roots": "host"`), and only from hosts whose profile shows it.

#![allow(deprecated)] // roots: deprecated in 2026-07-28, live in 2025-11-25

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ListRootsResult,
    ProtocolVersion, Root,
};
use rmcp::service::{RequestContext, RunningService, ServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::json;
use sieve_tests::Home;
use sieve_tests::deps::deps;
use sieve_tests::http::HttpProxy;
use sieve_tests::procs::{crash, descendants};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");
/// How long a server may take to come back after a crash.
const BACK_WITHIN: Duration = Duration::from_secs(45);

/// A host with roots of its own, counting how often it is asked for them.
#[derive(Clone, Default)]
struct RootsHost {
    roots: Arc<Mutex<Vec<PathBuf>>>,
    asked: Arc<AtomicUsize>,
}

impl ClientHandler for RootsHost {
    fn get_info(&self) -> ClientConfig {
        let capabilities = ClientCapabilities::builder()
            .enable_roots()
            .enable_roots_list_changed()
            .build();
        ClientConfig::new(capabilities, Implementation::new("roots-host", "1"))
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let roots = self.roots.lock().unwrap().clone();
        Ok(ListRootsResult::new(
            roots
                .iter()
                .map(|dir| Root::new(format!("file://{}", dir.display())))
                .collect(),
        ))
    }
}

impl RootsHost {
    fn with(roots: &[&Path]) -> RootsHost {
        RootsHost {
            roots: Arc::new(Mutex::new(roots.iter().map(|p| p.to_path_buf()).collect())),
            asked: Arc::default(),
        }
    }

    fn asked(&self) -> usize {
        self.asked.load(Ordering::SeqCst)
    }

    /// Connects to `path` (`/mcp` or `/mcp/p/NAME`) of `proxy`.
    async fn connect(&self, proxy: &HttpProxy, path: &str) -> RunningService<RoleClient, Self> {
        let config = StreamableHttpClientTransportConfig::with_uri(format!("{}{path}", proxy.base))
            .auth_header(proxy.token.clone());
        tokio::time::timeout(
            Duration::from_secs(30),
            self.clone()
                .serve(StreamableHttpClientTransport::from_config(config)),
        )
        .await
        .expect("the proxy answers initialize in time")
        .expect("a 2025-11-25 connection")
    }
}

/// Folders `a`, `b`, `c`, `d`, each holding `<name>.txt`.
fn folders() -> (tempfile::TempDir, Vec<PathBuf>) {
    let root = tempfile::tempdir().unwrap();
    let dirs = ["a", "b", "c", "d"]
        .iter()
        .map(|name| {
            let dir = root.path().join(name);
            std::fs::create_dir(&dir).unwrap();
            std::fs::write(dir.join(format!("{name}.txt")), format!("inside {name}")).unwrap();
            // server-filesystem resolves symlinks; so must what we compare.
            dir.canonicalize().unwrap()
        })
        .collect();
    (root, dirs)
}

/// A server-filesystem entry started on `dir`, plus `extra` keys.
fn filesystem(dir: &Path, extra: serde_json::Value) -> serde_json::Value {
    let mut entry = json!({
        "command": deps().node22,
        "args": [deps().server_filesystem, dir],
    });
    if let (Some(entry), Some(extra)) = (entry.as_object_mut(), extra.as_object()) {
        entry.extend(extra.clone());
    }
    entry
}

/// Whether `host` can read `dir`'s file through `server`.
async fn can_read(host: &RunningService<RoleClient, RootsHost>, server: &str, dir: &Path) -> bool {
    let name = dir.file_name().unwrap().to_string_lossy();
    let file = dir.join(format!("{name}.txt"));
    let params = CallToolRequestParams::new(format!("{server}__read_text_file"))
        .with_arguments(json!({"path": file}).as_object().cloned().unwrap());
    let result = tokio::time::timeout(Duration::from_secs(20), host.peer().call_tool(params))
        .await
        .expect("the call is answered in time");
    match result {
        Ok(result) if result.is_error != Some(true) => {
            let text = serde_json::to_string(&result.content).unwrap();
            assert!(text.contains(&format!("inside {name}")), "{text}");
            true
        }
        Ok(result) => {
            let text = serde_json::to_string(&result.content).unwrap();
            assert!(text.contains("Access denied"), "refused for access: {text}");
            false
        }
        // The server is not back yet.
        Err(_) => false,
    }
}

/// The pid of the server-filesystem process started for folder `dir`.
fn server_process(proxy: &HttpProxy, dir: &Path) -> u32 {
    let dir = dir.display().to_string();
    let found: Vec<_> = descendants(proxy.pid())
        .into_iter()
        .filter(|p| p.command.contains("server-filesystem") && p.command.ends_with(&dir))
        .collect();
    assert_eq!(found.len(), 1, "one server-filesystem on {dir}: {found:?}");
    found[0].pid
}

/// Crashes the server-filesystem process started on `dir` and waits until
/// `host` can read `expect_readable` through `server` again.
async fn crash_and_wait(
    proxy: &HttpProxy,
    host: &RunningService<RoleClient, RootsHost>,
    server: &str,
    dir: &Path,
    expect_readable: &Path,
) {
    let before = server_process(proxy, dir);
    crash(before);
    let deadline = Instant::now() + BACK_WITHIN;
    loop {
        let back = descendants(proxy.pid()).iter().any(|p| {
            p.pid != before
                && p.command.contains("server-filesystem")
                && p.command.ends_with(&*dir.display().to_string())
        });
        if back && can_read(host, server, expect_readable).await {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "server {server} did not come back able to read {} within {BACK_WITHIN:?}",
            expect_readable.display()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The security bug this guards against: after a crash and restart while
/// a host was connected, server-filesystem used to get that host's roots
/// and switch to them. Now a server without `"roots"` is told "none" and
/// keeps its own folder; one with `"roots": [...]` gets exactly those; and
/// the connected host, whose roots point elsewhere, is never asked.
#[tokio::test(flavor = "multi_thread")]
async fn configured_roots_hold_across_a_crash_with_a_host_connected() {
    let (_tmp, dirs) = folders();
    let [a, b, c, _d] = [&dirs[0], &dirs[1], &dirs[2], &dirs[3]];
    let home = Home::new(BIN);
    let config = json!({"mcpServers": {
        "plain": filesystem(a, json!({})),
        "listed": filesystem(c, json!({"roots": [b]})),
    }});
    home.write("config.json", &config.to_string());
    let proxy = HttpProxy::start(BIN, home.path());
    // The host's roots name folder c: a host whose roots leaked would open
    // it to "plain" and take b away from "listed".
    let host = RootsHost::with(&[c]);
    let client = host.connect(&proxy, "/mcp").await;

    let deadline = Instant::now() + BACK_WITHIN;
    while !(can_read(&client, "plain", a).await && can_read(&client, "listed", b).await) {
        assert!(Instant::now() < deadline, "the servers did not start");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        !can_read(&client, "plain", c).await,
        "plain keeps its own folder"
    );
    assert!(
        !can_read(&client, "listed", c).await,
        "listed serves its roots only"
    );
    assert!(
        !can_read(&client, "listed", a).await,
        "roots replace the folder it was started on"
    );

    crash_and_wait(&proxy, &client, "plain", a, a).await;
    crash_and_wait(&proxy, &client, "listed", c, b).await;
    assert!(
        !can_read(&client, "plain", c).await,
        "after the restart too"
    );
    assert!(!can_read(&client, "plain", b).await);
    assert!(
        !can_read(&client, "listed", c).await,
        "after the restart too"
    );
    assert!(!can_read(&client, "listed", a).await);
    assert_eq!(host.asked(), 0, "the host is never asked for its roots");
    client.cancel().await.unwrap();
}

/// With `"roots": "host"`, a server gets the roots of a host whose profile
/// shows it: across a crash, with a more recent host on a profile that
/// does not show it connected, and again when the seeing host's roots
/// change. The other host is never asked, and its change is not passed on.
#[tokio::test(flavor = "multi_thread")]
async fn host_roots_come_only_from_hosts_that_see_the_server() {
    let (_tmp, dirs) = folders();
    let [a, b, c, d] = [&dirs[0], &dirs[1], &dirs[2], &dirs[3]];
    let home = Home::new(BIN);
    let config = json!({"mcpServers": {"shared": filesystem(a, json!({"roots": "host"}))}});
    home.write("config.json", &config.to_string());
    home.write("profiles/work.json", r#"{"servers": ["shared"]}"#);
    home.write("profiles/other.json", r#"{"servers": []}"#);
    let proxy = HttpProxy::start(BIN, home.path());
    // Hosts are answered before the server: it is started (and asks for
    // roots, with no host there) before they come.
    proxy.until_listed(&["shared"]).await;

    let worker = RootsHost::with(&[b]);
    let work = worker.connect(&proxy, "/mcp/p/work").await;
    // Connected last, so it would be the one asked if profiles were not
    // consulted.
    let outsider = RootsHost::with(&[c]);
    let other = outsider.connect(&proxy, "/mcp/p/other").await;

    // Started before any host came: no roots, its own folder.
    let deadline = Instant::now() + BACK_WITHIN;
    while !can_read(&work, "shared", a).await {
        assert!(Instant::now() < deadline, "the server did not start");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    crash_and_wait(&proxy, &work, "shared", a, b).await;
    assert!(worker.asked() >= 1, "the seeing host was asked");
    assert!(
        !can_read(&work, "shared", c).await,
        "the other host's roots never apply"
    );
    assert!(
        !can_read(&work, "shared", a).await,
        "the host's roots replace the folder"
    );

    // A roots change of the host that does not see the server: nothing.
    *outsider.roots.lock().unwrap() = vec![d.to_path_buf()];
    other.peer().notify_roots_list_changed().await.unwrap();
    // Of the host that does: the server asks again and switches.
    *worker.roots.lock().unwrap() = vec![c.to_path_buf()];
    work.peer().notify_roots_list_changed().await.unwrap();
    let deadline = Instant::now() + BACK_WITHIN;
    while !can_read(&work, "shared", c).await {
        assert!(
            Instant::now() < deadline,
            "the server did not take the new roots"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(!can_read(&work, "shared", b).await, "the old root is gone");
    assert!(
        !can_read(&work, "shared", d).await,
        "the other host's change did nothing"
    );
    assert_eq!(
        outsider.asked(),
        0,
        "a host that cannot see the server is never asked"
    );
    other.cancel().await.unwrap();
    work.cancel().await.unwrap();
}
