//! Load through `mcp-sieve serve --http`: many calls at once from several
//! hosts, and a soak with profile edits and an upstream restart in the
//! middle. Every call carries its own text and must come back with exactly
//! that text, once; the only errors allowed are those of the restarted
//! server while it is down; the proxy's memory must stay flat.
//!
//! The soak runs `MCP_SIEVE_SOAK_SECS` seconds (30 by default); the figures
//! in docs/reliability.md come from a 10-minute run of a release build:
//! `MCP_SIEVE_SOAK_SECS=600 cargo test --release -p sieve-tests --test proxy_load soak -- --nocapture`.

use rmcp::RoleClient;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RunningService, ServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;
use sieve_tests::Home;
use sieve_tests::http::HttpProxy;
use sieve_tests::procs::{crash, rss_kib};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");
const HOSTS: usize = 10;

type Host = RunningService<RoleClient, ()>;

/// A home with demo servers `alpha` and `beta`, each writing its pid to
/// `<name>.pid` at start.
fn two_demo_servers() -> Home {
    let home = Home::new(BIN);
    sieve_tests::two_demo_servers(&home, BIN);
    home
}

async fn connect(proxy: &HttpProxy) -> Host {
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", proxy.base))
        .auth_header(proxy.token.clone());
    tokio::time::timeout(
        Duration::from_secs(30),
        ().serve(StreamableHttpClientTransport::from_config(config)),
    )
    .await
    .expect("the proxy answers initialize in time")
    .expect("a 2025-11-25 connection")
}

/// How one echo call ended.
enum Outcome {
    /// The text that was sent came back.
    Echoed,
    /// The proxy answered with an error (its message).
    Failed(String),
}

/// Calls `server`'s echo with `text`; panics when a different text comes
/// back (a response for another call) or nothing comes in time.
async fn echo(host: &Host, server: &str, text: &str) -> Outcome {
    let params = CallToolRequestParams::new(format!("{server}__echo"))
        .with_arguments(json!({"text": text}).as_object().cloned().unwrap());
    let answer = tokio::time::timeout(Duration::from_secs(60), host.peer().call_tool(params))
        .await
        .unwrap_or_else(|_| panic!("call {text} was never answered"));
    match answer {
        Ok(result) if result.is_error != Some(true) => {
            // The demo's echo answers `{"text": ...}`.
            let content = serde_json::to_value(&result.content).unwrap();
            let echoed: serde_json::Value =
                serde_json::from_str(content[0]["text"].as_str().unwrap_or_default())
                    .unwrap_or_else(|_| panic!("call {text}: {content}"));
            assert_eq!(
                echoed["text"], text,
                "call {text} got the answer of another call"
            );
            Outcome::Echoed
        }
        Ok(result) => Outcome::Failed(format!("{:?}", result.content)),
        Err(error) => Outcome::Failed(error.to_string()),
    }
}

/// 1,000 calls at once: 10 hosts with 100 calls each in flight, over both
/// servers; every one answered with its own text, once.
#[tokio::test(flavor = "multi_thread")]
async fn a_thousand_concurrent_calls_from_ten_hosts() {
    let home = two_demo_servers();
    let proxy = HttpProxy::start(BIN, home.path());
    proxy.until_listed(&["alpha", "beta"]).await;
    let mut hosts = Vec::new();
    for _ in 0..HOSTS {
        hosts.push(Arc::new(connect(&proxy).await));
    }
    let started = Instant::now();
    let mut calls = Vec::new();
    for (h, host) in hosts.iter().enumerate() {
        for i in 0..100usize {
            let host = host.clone();
            calls.push(tokio::spawn(async move {
                let server = if i.is_multiple_of(2) { "alpha" } else { "beta" };
                let text = format!("host {h} call {i}");
                match echo(&host, server, &text).await {
                    Outcome::Echoed => text,
                    Outcome::Failed(error) => panic!("{text} failed: {error}"),
                }
            }));
        }
    }
    let mut answered = std::collections::BTreeSet::new();
    for call in calls {
        let text = call.await.expect("a call task ends");
        assert!(answered.insert(text.clone()), "{text} answered twice");
    }
    assert_eq!(answered.len(), HOSTS * 100);
    eprintln!(
        "1,000 concurrent calls from {HOSTS} hosts answered in {:?}",
        started.elapsed()
    );
    for host in hosts {
        if let Ok(host) = Arc::try_unwrap(host) {
            let _ = host.cancel().await;
        }
    }
}

/// The soak: every host calls both servers in a loop; a third of the way
/// in, the profile is edited back and forth; half way, beta's process is
/// killed and comes back. Counted: calls, the errors of beta while it was
/// down (the injected fault), any other error (none allowed), and the
/// proxy's memory once warm and at the end.
#[tokio::test(flavor = "multi_thread")]
async fn soak() {
    let seconds: u64 = std::env::var("MCP_SIEVE_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    let home = two_demo_servers();
    let proxy = HttpProxy::start(BIN, home.path());
    proxy.until_listed(&["alpha", "beta"]).await;
    let mut hosts = Vec::new();
    for _ in 0..HOSTS {
        hosts.push(Arc::new(connect(&proxy).await));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let calls = Arc::new(AtomicU64::new(0));
    let injected = Arc::new(AtomicU64::new(0));
    let mut workers = Vec::new();
    for (h, host) in hosts.iter().enumerate() {
        let (host, stop, calls, injected) =
            (host.clone(), stop.clone(), calls.clone(), injected.clone());
        workers.push(tokio::spawn(async move {
            let mut unexpected = Vec::new();
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let server = if i.is_multiple_of(2) { "alpha" } else { "beta" };
                let text = format!("host {h} call {i}");
                match echo(&host, server, &text).await {
                    Outcome::Echoed => {}
                    Outcome::Failed(error) if server == "beta" && error.contains("\"beta\"") => {
                        injected.fetch_add(1, Ordering::Relaxed);
                    }
                    Outcome::Failed(error) => unexpected.push(format!("{text}: {error}")),
                }
                calls.fetch_add(1, Ordering::Relaxed);
                i += 1;
            }
            unexpected
        }));
    }

    let total = Duration::from_secs(seconds);
    let started = Instant::now();
    let at = |fraction: f64| started + total.mul_f64(fraction);
    let mut samples: BTreeMap<u64, u64> = BTreeMap::new();
    let (mut edited, mut restarted) = (0u64, false);
    let mut warm = None;
    while Instant::now() < started + total {
        tokio::time::sleep(Duration::from_millis(250)).await;
        let now = Instant::now();
        let second = (now - started).as_secs();
        samples
            .entry(second)
            .or_insert_with(|| rss_kib(proxy.pid()));
        // Warm: half way, once allocator arenas and caches have grown to
        // the load (a release build reaches its plateau in under a minute).
        if warm.is_none() && now >= at(0.5) {
            warm = Some(rss_kib(proxy.pid()));
        }
        // Profile edits from a third of the way on, one a second for a
        // while: a deny that does not touch echo, on and off.
        if now >= at(1.0 / 3.0) && edited < 6 && second > edited + (seconds / 3) {
            let deny = if edited.is_multiple_of(2) {
                json!(["alpha__get_issue"])
            } else {
                json!([])
            };
            home.replace(
                "profiles/default.json",
                &json!({"tools": {"deny": deny}}).to_string(),
            );
            edited += 1;
        }
        if !restarted && now >= at(0.5) {
            let pid: u32 = home.read("beta.pid").trim().parse().unwrap();
            crash(pid);
            restarted = true;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let mut unexpected = Vec::new();
    for worker in workers {
        unexpected.extend(worker.await.expect("a worker ends"));
    }
    let end = rss_kib(proxy.pid());
    let warm = warm.expect("a warm sample");
    let calls = calls.load(Ordering::Relaxed);
    let injected = injected.load(Ordering::Relaxed);
    eprintln!(
        "soak {seconds} s: {calls} calls ({:.0}/s), {injected} failed while beta was down, \
         {} other errors; proxy memory half way {:.1} MiB, end {:.1} MiB; MiB over time: {:?}",
        calls as f64 / seconds as f64,
        unexpected.len(),
        warm as f64 / 1024.0,
        end as f64 / 1024.0,
        samples
            .iter()
            .filter(|(second, _)| *second % (seconds / 30).max(1) == 0)
            .map(|(second, kib)| format!("{second}s {}", kib / 1024))
            .collect::<Vec<_>>()
    );
    assert!(
        unexpected.is_empty(),
        "errors nobody caused: {unexpected:?}"
    );
    assert!(restarted && edited >= 2, "the faults were injected");
    assert!(calls > 100, "the soak made calls: {calls}");
    let beta_back: u32 = home.read("beta.pid").trim().parse().unwrap();
    assert!(
        std::path::Path::new(&format!("/proc/{beta_back}")).exists(),
        "beta came back"
    );
    // Flat over the second half: within a fifth of the half-way figure, or
    // 8 MiB, whichever is more (allocator slack in a debug build).
    let allowed = (warm / 5).max(8 * 1024);
    assert!(
        end <= warm + allowed,
        "memory grew from {warm} KiB to {end} KiB"
    );
    for host in hosts {
        if let Ok(host) = Arc::try_unwrap(host) {
            let _ = host.cancel().await;
        }
    }
}
