//! How soon a host hears `notifications/tools/list_changed` after its
//! profile file is edited: the real `mcp-sieve serve` on stdio, in front of
//! the built-in demo server, on a temporary home. Each edit replaces the
//! profile (as the app writes it) so that it shows a different set of tools;
//! the time runs from the rename to the notification on the host's side.
//!
//! `cargo bench -p sieve-tests --bench list_changed [-- --edits 100]`
//! (default 20 edits, after 2 unmeasured ones).

use serde_json::json;
use sieve_tests::Home;
use sieve_tests::wire::{Wire, tool_names};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");
const WARM_UP: usize = 2;

/// The two profiles the edits alternate between, and how many of the
/// demo's 40 tools each shows.
const PROFILES: [(&str, usize); 2] = [(r#"{"tools": {"deny": ["*delete*"]}}"#, 37), ("{}", 40)];

fn edits() -> usize {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == "--edits") {
        None => 20,
        Some(at) => args
            .get(at + 1)
            .and_then(|n| n.parse().ok())
            .filter(|&n| n > 0)
            .expect("--edits takes a positive number"),
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}

#[tokio::main]
async fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        // `cargo test --benches` runs benches once as tests: nothing to time.
        return;
    }
    let edits = edits();
    let home = Home::new(BIN);
    home.write("profiles/bench.json", PROFILES[1].0);
    let mut host = Wire::start(BIN, home.path(), &["--profile", "bench"], json!({})).await;
    // The proxy watches its files before it serves, so once this listing is
    // answered an edit is a change it will announce.
    let listed = tool_names(&host.request("tools/list", json!({})).await).len();
    assert_eq!(listed, PROFILES[1].1, "the demo's tools");

    let mut times = Vec::with_capacity(edits);
    let mut extra = 0;
    for round in 0..WARM_UP + edits {
        let (profile, shown) = PROFILES[round % 2];
        // A notification left over from an earlier edit would be taken for
        // this one's and time nothing.
        extra += host.drain("notifications/tools/list_changed");
        home.replace("profiles/bench.json", profile);
        let start = Instant::now();
        host.notification("notifications/tools/list_changed").await;
        let took = start.elapsed();
        let now = tool_names(&host.request("tools/list", json!({})).await).len();
        assert_eq!(now, shown, "edit {round} is in force once announced");
        if round >= WARM_UP {
            times.push(took);
        }
    }
    host.close().await;

    times.sort();
    let p50 = times[(edits - 1) / 2];
    let p99 = times[(edits * 99).div_ceil(100) - 1];
    let max = times[edits - 1];
    println!(
        "\nprofile edit -> notifications/tools/list_changed, {edits} edits after {WARM_UP} warm-up ones; milliseconds"
    );
    println!("{:>8} {:>8} {:>8}", "p50", "p99", "max");
    println!("{:>8} {:>8} {:>8}", ms(p50), ms(p99), ms(max));
    if extra > 0 {
        println!("({extra} further list_changed came for edits already announced)");
    }
}
