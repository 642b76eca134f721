//! What the proxy costs a host: latency of `tools/list` and `tools/call`
//! against the demo server directly and through `mcp-sieve serve` (the
//! demo as a stdio child of the proxy), and `tools/list` through a proxy in
//! front of 25 demo servers (1,000 tools) with a profile that shows 40.
//! Everything runs in one process run so the numbers sit side by side.
//!
//! `cargo bench -p sieve-cli --bench proxy_overhead`

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve");
const ROUNDS: usize = 300;

async fn connect(args: Vec<String>) -> RunningService<RoleClient, ()> {
    let command = tokio::process::Command::new(BIN).configure(|c| {
        c.args(&args);
        c.env("MCP_SIEVE_LOG", "error");
    });
    let transport = TokioChildProcess::new(command).expect("mcp-sieve starts");
    let client = ().serve(transport).await.expect("handshake");
    // Every round must reach the server, not the client's cache.
    client
        .peer()
        .set_response_cache_config(rmcp::service::ClientCacheConfig::disabled())
        .await;
    client
}

struct Stats {
    median: Duration,
    p95: Duration,
}

async fn measure<F, Fut>(mut call: F) -> Stats
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    for _ in 0..20 {
        call().await;
    }
    let mut times = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let start = Instant::now();
        call().await;
        times.push(start.elapsed());
    }
    times.sort();
    Stats {
        median: times[ROUNDS / 2],
        p95: times[ROUNDS * 95 / 100],
    }
}

async fn list_and_call(
    client: &RunningService<RoleClient, ()>,
    echo: &str,
) -> (Stats, Stats, usize) {
    let tools = client.list_all_tools().await.expect("tools/list").len();
    let list = measure(|| async {
        client.list_all_tools().await.expect("tools/list");
    })
    .await;
    let call = measure(|| async {
        let mut args = serde_json::Map::new();
        args.insert("text".into(), json!("ping"));
        let params = CallToolRequestParams::new(echo.to_string()).with_arguments(args);
        client.call_tool(params).await.expect("tools/call");
    })
    .await;
    (list, call, tools)
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1000.0)
}

#[tokio::main]
async fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        // `cargo test --benches` runs benches once as tests: nothing to time.
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let home_arg = home.path().display().to_string();

    let direct = connect(vec!["demo-server".into()]).await;
    let (d_list, d_call, d_tools) = list_and_call(&direct, "echo").await;
    direct.cancel().await.ok();

    let config = json!({"mcpServers": {"demo": {"command": BIN, "args": ["demo-server"]}}});
    std::fs::write(home.path().join("config.json"), config.to_string()).unwrap();
    let proxied = connect(vec!["--home".into(), home_arg.clone(), "serve".into()]).await;
    let (p_list, p_call, p_tools) = list_and_call(&proxied, "demo__echo").await;
    proxied.cancel().await.ok();

    let servers: serde_json::Map<String, serde_json::Value> = (0..25)
        .map(|i| {
            (
                format!("demo{i:02}"),
                json!({"command": BIN, "args": ["demo-server"]}),
            )
        })
        .collect();
    std::fs::write(
        home.path().join("config.json"),
        json!({"mcpServers": servers}).to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(home.path().join("profiles")).unwrap();
    std::fs::write(
        home.path().join("profiles/one.json"),
        r#"{"servers": ["demo07"]}"#,
    )
    .unwrap();
    let wide = connect(vec!["--home".into(), home_arg.clone(), "serve".into()]).await;
    let (w_list, w_call, w_tools) = list_and_call(&wide, "demo00__echo").await;
    wide.cancel().await.ok();
    let narrow = connect(vec![
        "--home".into(),
        home_arg,
        "serve".into(),
        "--profile".into(),
        "one".into(),
    ])
    .await;
    let (n_list, n_call, n_tools) = list_and_call(&narrow, "demo07__echo").await;
    narrow.cancel().await.ok();

    println!("\n{ROUNDS} rounds each, after 20 warm-up rounds; milliseconds");
    println!(
        "{:<44} {:>6} {:>12} {:>9} {:>12} {:>9}",
        "case", "tools", "list median", "list p95", "call median", "call p95"
    );
    for (case, tools, list, call) in [
        ("demo server, direct", d_tools, &d_list, &d_call),
        ("through the proxy (1 server)", p_tools, &p_list, &p_call),
        (
            "through the proxy (25 servers, all shown)",
            w_tools,
            &w_list,
            &w_call,
        ),
        (
            "through the proxy (25 servers, profile: 1)",
            n_tools,
            &n_list,
            &n_call,
        ),
    ] {
        println!(
            "{case:<44} {tools:>6} {:>12} {:>9} {:>12} {:>9}",
            ms(list.median),
            ms(list.p95),
            ms(call.median),
            ms(call.p95)
        );
    }
    println!(
        "\nproxy / direct, 1 server: list {:.2}x, call {:.2}x",
        p_list.median.as_secs_f64() / d_list.median.as_secs_f64(),
        p_call.median.as_secs_f64() / d_call.median.as_secs_f64()
    );
}
