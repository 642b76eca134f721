//! A team gateway's calls per second: `mcp-sieve serve --http` replicas
//! sharing one PostgreSQL database (`--state`, sieve-postgres's
//! `TestServer`: a server of the run's own on the same cores), one replica
//! beside two, with `settings.audit` off and on.
//!
//! The load is rmcp's client calling the demo server's `echo` (each
//! replica runs its own, a stdio child) with [`CONCURRENT`] callers in
//! flight: on one replica all of them from one client, on two replicas
//! half from a client of each, at the same time. The four ways (one or
//! two replicas, audit off or on) take turns over [`ROUNDS`] rounds. With
//! the audit on, every call is one write to the database; the run checks
//! the calls were audited (and not, with it off).

use crate::Plan;
use crate::calls::{CONCURRENT, Calls, ROUNDS, measure};
use crate::clients::{self, Client, Upstream, sieve};
use crate::report::{Table, ms, ratio};
use serde_json::{Value, json};
use sieve_postgres::Database;
use sieve_postgres::testing::TestServer;
use sieve_tests::team::{Replica, cli};
use std::time::Instant;

/// A team database named `name` whose config has the demo server and
/// `settings.audit` as given; its address and the team's token.
fn team(server: &TestServer, name: &str, audit: bool) -> (String, String) {
    let url = server.database(name);
    let db = Database::connect(&url).expect("the database takes the schema");
    let demo = Upstream::demo().program.config_entry();
    let config = json!({"mcpServers": {"demo": demo}, "settings": {"audit": audit}});
    db.update_document::<sieve_postgres::DbError>("config.json", &mut |_| {
        Ok(Some(format!("{config:#}\n")))
    })
    .expect("the team's config is written");
    let token = cli(sieve(), &url, &["serve", "--print-token"])
        .trim()
        .to_string();
    (url, token)
}

/// A replica on the team's database, with a home of its own; its client,
/// and the replica, which must live as long as it is measured.
async fn replica(url: &str, token: &str) -> (Client, Replica) {
    let replica = Replica::start(sieve(), url, token);
    let client = clients::http(&replica.url("/mcp"), Some(token)).await;
    (client, replica)
}

/// The calls the team's audit lists (at most `limit`).
fn audited(url: &str, limit: usize) -> usize {
    let listing = cli(
        sieve(),
        url,
        &["audit", "--json", "--limit", &limit.to_string()],
    );
    let listing: Value = serde_json::from_str(&listing).expect("audit --json prints JSON");
    listing["calls"].as_array().map_or(0, Vec::len)
}

pub async fn run(plan: &Plan) {
    let total = plan.size(12_000, 320);
    let server = TestServer::start();
    let demo = Upstream::demo();
    let tool = format!("{}__{}", demo.name, demo.echo);
    let half = CONCURRENT / 2;
    let mut table = Table::new(
        format!(
            "tools/call of the demo's echo through serve --http replicas on one PostgreSQL database, {total} calls by {CONCURRENT} callers (on two replicas {half} on each, at once), in {ROUNDS} rounds; ms"
        ),
        &[
            "settings.audit",
            "1 replica: calls/s",
            "p50",
            "p99",
            "2 replicas: calls/s",
            "p50",
            "p99",
            "2 / 1",
        ],
    );
    // Both teams first, so that their rounds can take turns.
    let mut teams = Vec::new();
    for audit in [false, true] {
        let name = if audit { "audit_on" } else { "audit_off" };
        let (url, token) = team(&server, name, audit);
        let (a, keep_a) = replica(&url, &token).await;
        let (b, keep_b) = replica(&url, &token).await;
        teams.push((audit, url, a, b, [keep_a, keep_b]));
    }
    let mut measured = vec![(Calls::default(), Calls::default()); teams.len()];
    for round in 0..ROUNDS {
        let share = total / ROUNDS + usize::from(round < total % ROUNDS);
        for ((_, _, a, b, _), (one, two)) in teams.iter().zip(&mut measured) {
            one.add(measure(a, &tool, &demo.echo_arguments, CONCURRENT, share).await);
            let started = Instant::now();
            let (on_a, on_b) = tokio::join!(
                measure(a, &tool, &demo.echo_arguments, half, share / 2),
                measure(b, &tool, &demo.echo_arguments, half, share - share / 2),
            );
            // Both ran at once: their wall time is the pair's, from the
            // first call (after both warm-ups) to the last.
            let wall = on_a.wall.max(on_b.wall).min(started.elapsed());
            let mut pair = Calls::default();
            pair.add(on_a);
            pair.add(on_b);
            pair.wall = wall;
            two.add(pair);
        }
    }
    let mut per_second = Vec::new();
    for ((audit, url, a, b, _keep), (one, two)) in teams.into_iter().zip(measured) {
        let listed = audited(&url, 1);
        assert_eq!(
            listed,
            usize::from(audit),
            "with settings.audit {audit}, the team's audit lists {listed} calls"
        );
        table.row(vec![
            if audit { "on" } else { "off" }.into(),
            format!("{:.0}", one.per_second()),
            ms(one.quantile(0.50)),
            ms(one.quantile(0.99)),
            format!("{:.0}", two.per_second()),
            ms(two.quantile(0.50)),
            ms(two.quantile(0.99)),
            ratio(two.per_second(), one.per_second()),
        ]);
        per_second.push((one.per_second(), two.per_second()));
        let _ = a.cancel().await;
        let _ = b.cancel().await;
    }
    table.print();
    if let [(off_one, off_two), (on_one, on_two)] = per_second[..] {
        println!(
            "\nWith the audit on: {} of the calls per second with it off on one replica, {} on two. \"2 / 1\" is two replicas' calls per second over one's (the replicas, their upstreams, the database and the client share the machine's cores).",
            ratio(on_one, off_one),
            ratio(on_two, off_two)
        );
    }
}
