//! How soon a host hears `notifications/tools/list_changed` after its
//! profile file is edited: `mcp-sieve serve` on stdio in front of the demo
//! server (a stdio child). Each edit replaces the profile as the app writes
//! it (temp file and rename), alternating between two profiles that show
//! different tools; the time runs from the rename to the notification at
//! the host. The file watcher waits 100 ms for a burst of writes to end,
//! which is most of the figure.

use crate::Plan;
use crate::clients::{self, Upstream, sieve};
use crate::report::{Table, ms, quantile};
use serde_json::json;
use sieve_tests::wire::{Wire, tool_names};
use std::time::Instant;

const WARM_UP: usize = 2;

/// The two profiles the edits alternate between, and how many of the
/// demo's 40 tools each shows.
const PROFILES: [(&str, usize); 2] = [(r#"{"tools": {"deny": ["*delete*"]}}"#, 37), ("{}", 40)];

pub async fn run(plan: &Plan) {
    let edits = plan.size(100, 10);
    let demo = Upstream::demo();
    let home = clients::sieve_home(&[("demo".into(), demo.program.config_entry())]);
    home.write("profiles/bench.json", PROFILES[1].0);
    let mut host = Wire::start(sieve(), home.path(), &["--profile", "bench"], json!({})).await;
    // Lists until the demo child is up: from then on an edit is the only
    // thing that makes the proxy announce anything.
    loop {
        let listed = tool_names(&host.request("tools/list", json!({})).await).len();
        if listed == PROFILES[1].1 {
            break;
        }
        host.notification("notifications/tools/list_changed").await;
    }
    let mut times = Vec::with_capacity(edits);
    let mut extra = 0;
    for round in 0..WARM_UP + edits {
        let (profile, shown) = PROFILES[round % 2];
        // A notification left over from an earlier edit would be taken for
        // this one's and time nothing.
        extra += host.drain("notifications/tools/list_changed");
        home.replace("profiles/bench.json", profile);
        let start = Instant::now();
        tokio::time::timeout(
            crate::STEP_TIMEOUT,
            host.notification("notifications/tools/list_changed"),
        )
        .await
        .expect("the edit is announced");
        let took = start.elapsed();
        let now = tool_names(&host.request("tools/list", json!({})).await).len();
        assert_eq!(now, shown, "edit {round} is in force once announced");
        if round >= WARM_UP {
            times.push(took);
        }
    }
    host.close().await;
    times.sort();
    let mut table = Table::new(
        format!(
            "profile edit → tools/list_changed at the host, {edits} edits after {WARM_UP} warm-up ones; ms"
        ),
        &["p50", "p99", "max", "extra notifications"],
    );
    table.row(vec![
        ms(quantile(&times, 0.5)),
        ms(quantile(&times, 0.99)),
        ms(*times.last().expect("edits were timed")),
        extra.to_string(),
    ]);
    table.print();
}
