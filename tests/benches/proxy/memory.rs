//! The proxy's own resident memory (children not counted) idle and under
//! load with 5 upstreams (demo servers, stdio children), and its start-up:
//! from spawning `mcp-sieve serve --http` to its listening socket, to the
//! first answered request (the handshake, answered without waiting for
//! the upstreams) and to the first `tools/list` with every upstream's
//! tools; beside the demo server started and asked directly.

use crate::Plan;
use crate::clients::{self, Upstream};
use crate::report::{Table, ms};
use rmcp::model::CallToolRequestParams;
use sieve_tests::Home;
use sieve_tests::http::HttpProxy;
use sieve_tests::procs::rss_kib;
use std::time::{Duration, Instant};

const UPSTREAMS: usize = 5;
const CALLERS: usize = 32;

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// Spawn → first answered handshake, and → first full list, of `serve --http`
/// (the token is read before the clock starts).
async fn proxy_start(home: &Home, tools: usize) -> (HttpProxy, String, [Duration; 3]) {
    let token = HttpProxy::token(clients::sieve(), home.path());
    let started = Instant::now();
    let proxy = HttpProxy::start_with_token(clients::sieve(), home.path(), token);
    let url = format!("{}/mcp", proxy.base);
    let serving = started.elapsed();
    let client = clients::http(&url, Some(&proxy.token)).await;
    let answered = started.elapsed();
    loop {
        let listed = client
            .list_all_tools()
            .await
            .expect("tools/list works")
            .len();
        if listed == tools {
            break;
        }
        assert!(
            started.elapsed() < crate::STEP_TIMEOUT,
            "{listed} of {tools} tools listed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let listed = started.elapsed();
    let _ = client.cancel().await;
    (proxy, url, [serving, answered, listed])
}

pub async fn run(plan: &Plan) {
    let calls = plan.size(20_000, 320);
    let demo = Upstream::demo();

    // The demo server on its own: start to first answer, and its memory.
    let started = Instant::now();
    let direct = clients::stdio(&demo.program, &[]).await;
    let direct_answered = started.elapsed();
    let direct_tools = direct.list_all_tools().await.expect("tools/list").len();
    let direct_listed = started.elapsed();
    let _ = direct.cancel().await;

    let servers: Vec<(String, serde_json::Value)> = (0..UPSTREAMS)
        .map(|i| (format!("demo{i}"), demo.program.config_entry()))
        .collect();
    let home = clients::sieve_home(&servers);
    let (proxy, url, [serving, answered, listed]) =
        proxy_start(&home, direct_tools * UPSTREAMS).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let idle = rss_kib(proxy.pid());

    // Load: CALLERS callers of one client, over every upstream's echo.
    let client = clients::http(&url, Some(&proxy.token)).await;
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let done = done.clone();
        let pid = proxy.pid();
        tokio::spawn(async move {
            let mut peak = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                peak = peak.max(rss_kib(pid));
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            peak
        })
    };
    let load_started = Instant::now();
    let mut tasks = Vec::new();
    for caller in 0..CALLERS {
        let peer = client.peer().clone();
        let share = calls / CALLERS;
        tasks.push(tokio::spawn(async move {
            for i in 0..share {
                let server = (caller + i) % UPSTREAMS;
                let mut arguments = serde_json::Map::new();
                arguments.insert("text".into(), "ping".into());
                let params = CallToolRequestParams::new(format!("demo{server}__echo"))
                    .with_arguments(arguments);
                peer.call_tool(params).await.expect("tools/call succeeds");
            }
        }));
    }
    for task in tasks {
        task.await.expect("a caller finishes");
    }
    let load_time = load_started.elapsed();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let peak = sampler.await.expect("the sampler ends");
    let after = rss_kib(proxy.pid());
    let _ = client.cancel().await;
    drop(proxy);

    let mut table = Table::new(
        format!(
            "mcp-sieve serve --http with {UPSTREAMS} demo servers (stdio children); memory is the proxy process alone"
        ),
        &["measure", "value", "beside it"],
    );
    table.row(vec![
        "start → listening (says where it serves)".into(),
        format!("{} ms", ms(serving)),
        String::new(),
    ]);
    table.row(vec![
        "start → first answered request (handshake, once the upstreams are up)".into(),
        format!("{} ms", ms(answered)),
        format!("demo server alone: {} ms", ms(direct_answered)),
    ]);
    table.row(vec![
        format!(
            "start → first tools/list with all {} tools",
            direct_tools * UPSTREAMS
        ),
        format!("{} ms", ms(listed)),
        format!(
            "demo server alone, its {direct_tools} tools: {} ms",
            ms(direct_listed)
        ),
    ]);
    table.row(vec![
        "resident memory, idle".into(),
        mib(idle),
        String::new(),
    ]);
    table.row(vec![
        format!("resident memory, peak under load ({calls} calls by {CALLERS} callers)"),
        mib(peak),
        format!("{:.0} calls/s", calls as f64 / load_time.as_secs_f64()),
    ]);
    table.row(vec![
        "resident memory, after the load".into(),
        mib(after),
        String::new(),
    ]);
    table.print();
}
