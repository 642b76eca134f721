//! `tools/list` through the proxy as upstreams and tools grow: 1, 5 and 20
//! demo servers (40 tools each), and one server of 1,000 and of 10,000
//! tools (`catalog-server`, real catalogs repeated); each beside the same
//! upstream listed directly.

use crate::Plan;
use crate::clients::{self, Client, Program, Upstream};
use crate::report::{Table, ms, quantile, ratio};
use std::time::{Duration, Instant};

const CATALOG_SERVER: &str = env!("CARGO_BIN_EXE_catalog-server");

struct Lists {
    tools: usize,
    p50: Duration,
    p99: Duration,
}

/// Lists until `expected` tools show (the proxy connects its upstreams in
/// the background), then `rounds` timed lists.
async fn measure(client: &Client, expected: usize, rounds: usize) -> Lists {
    let deadline = Instant::now() + crate::STEP_TIMEOUT;
    loop {
        let tools = client.list_all_tools().await.expect("tools/list works");
        if tools.len() == expected {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {expected} tools listed after {:?}",
            tools.len(),
            crate::STEP_TIMEOUT
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for _ in 0..3 {
        client.list_all_tools().await.expect("tools/list works");
    }
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        let tools = client.list_all_tools().await.expect("tools/list works");
        times.push(start.elapsed());
        assert_eq!(tools.len(), expected);
    }
    times.sort();
    Lists {
        tools: expected,
        p50: quantile(&times, 0.5),
        p99: quantile(&times, 0.99),
    }
}

/// Direct, then through `serve` (stdio) with `copies` of `program`.
async fn pair(
    program: &Program,
    per_server: usize,
    copies: usize,
    rounds: usize,
) -> (Lists, Lists) {
    let direct_client = clients::stdio(program, &[]).await;
    let direct = measure(&direct_client, per_server, rounds).await;
    let _ = direct_client.cancel().await;
    let servers: Vec<(String, serde_json::Value)> = (0..copies)
        .map(|i| (format!("s{i:02}"), program.config_entry()))
        .collect();
    let home = clients::sieve_home(&servers);
    let proxied_client = clients::stdio(&clients::serve(&home, &[]), &[]).await;
    let proxied = measure(&proxied_client, per_server * copies, rounds).await;
    let _ = proxied_client.cancel().await;
    (direct, proxied)
}

pub async fn run(plan: &Plan) {
    let rounds = plan.size(200, 10);
    let mut table = Table::new(
        format!(
            "tools/list through mcp-sieve serve (stdio), {rounds} lists each after 3 warm-up lists; ms"
        ),
        &[
            "upstreams",
            "tools",
            "direct p50",
            "direct p99",
            "proxied p50",
            "proxied p99",
            "proxied / direct (p50)",
            "proxied µs per tool",
        ],
    );
    let demo = Upstream::demo().program;
    let mut cases: Vec<(String, Program, usize, usize)> = [1usize, 5, 20]
        .into_iter()
        .map(|n| {
            (
                format!("{n} demo server{}", if n == 1 { "" } else { "s" }),
                demo.clone(),
                40,
                n,
            )
        })
        .collect();
    for tools in [1_000usize, 10_000] {
        let n = tools.to_string();
        cases.push((
            format!("1 catalog server of {tools} tools"),
            Program::new(CATALOG_SERVER, &[&n]),
            tools,
            1,
        ));
    }
    for (label, program, per_server, copies) in cases {
        let (direct, proxied) = pair(&program, per_server, copies, rounds).await;
        table.row(vec![
            label,
            proxied.tools.to_string(),
            format!("{} (1 server, {} tools)", ms(direct.p50), direct.tools),
            ms(direct.p99),
            ms(proxied.p50),
            ms(proxied.p99),
            ratio(proxied.p50.as_secs_f64(), direct.p50.as_secs_f64()),
            format!(
                "{:.1}",
                proxied.p50.as_secs_f64() * 1e6 / proxied.tools as f64
            ),
        ]);
    }
    table.print();
    println!(
        "\nWith several demo servers the direct figure is one server's list (what a host would otherwise fetch from each)."
    );
}
