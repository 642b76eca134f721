//! What calls measured, on both databases: each tool's medians and 90th
//! percentiles, tools told apart by server, and only the last calls of
//! each tool kept however many are written.

use super::*;
use sieve_core::cost::{CALLS_KEPT, Measured, Measurements};
use std::collections::BTreeMap;

fn call(server: &str, tool: &str, at: i64, tokens: u64, ms: u64) -> CallMeasurement {
    CallMeasurement {
        server: server.into(),
        tool: tool.into(),
        at,
        result_tokens: tokens,
        duration_ms: ms,
    }
}

/// Every kept row, as `(server, tool, tokens)`, read past the aggregate.
fn kept_rows(ledger: &Ledger) -> Vec<(String, String, u64)> {
    let table = match ledger.dialect() {
        Dialect::Sqlite => "measurements",
        Dialect::Postgres => "sieve_measurements",
    };
    let sql = format!("SELECT server, tool, result_tokens, duration_ms FROM {table} ORDER BY id");
    let rows = match &ledger.backend {
        Backend::Sqlite(b) => b.select_measured(&sql, &[], "test"),
        Backend::Postgres(b) => b.select_measured(&sql, &[], "test"),
    };
    rows.expect("rows read")
        .into_iter()
        .map(|row| (row.server, row.tool, row.result_tokens as u64))
        .collect()
}

pub(super) fn measured_calls_are_medians_and_percentiles_per_tool(ledger: &Fresh) {
    assert_eq!(ledger.measured().expect("read"), Measurements::new());
    // Three calls of `list`, written in two batches; one of `get`; and a
    // `list` of another server, which is another tool.
    ledger
        .measure_all(&[
            call("github", "list", 1, 9_000, 40),
            call("github", "get", 2, 120, 15),
        ])
        .expect("recorded");
    ledger
        .measure_all(&[
            call("github", "list", 3, 300, 2_500),
            call("github", "list", 4, 600, 90),
            call("files", "list", 5, 50, 5),
        ])
        .expect("recorded");
    ledger.measure_all(&[]).expect("nothing to record");
    let list = Measured {
        calls: 3,
        median_tokens: 600,
        p90_tokens: 9_000,
        median_ms: 90,
        p90_ms: 2_500,
    };
    let measured = ledger.measured().expect("read");
    assert_eq!(measured["github"]["list"], list);
    assert_eq!(
        measured["github"]["get"],
        Measured::of_calls(&[(120, 15)]),
        "one call"
    );
    assert_eq!(
        measured["files"]["list"],
        Measured::of_calls(&[(50, 5)]),
        "a tool of another server, with the same name"
    );
    assert_eq!(measured.values().map(BTreeMap::len).sum::<usize>(), 3);

    let asked = [
        ("github".to_string(), "list".to_string()),
        ("files".to_string(), "list".to_string()),
        ("files".to_string(), "never_called".to_string()),
    ];
    let some = ledger.measured_of(&asked).expect("read");
    assert_eq!(some["github"]["list"], list);
    assert_eq!(some["files"].len(), 1, "a tool never called is left out");
    assert!(
        !some["github"].contains_key("get"),
        "only the tools asked for"
    );
    assert_eq!(ledger.measured_of(&[]).expect("read"), Measurements::new());
}

pub(super) fn only_the_last_calls_of_each_tool_are_kept(ledger: &Fresh) {
    let over = CALLS_KEPT as u64 + 10;
    // One by one, then a batch larger than what is kept: either way the
    // oldest go.
    for n in 1..=over {
        ledger
            .measure_all(&[call("github", "list", n as i64, n, 1)])
            .expect("recorded");
    }
    ledger
        .measure_all(&[call("github", "get", 0, 7, 1)])
        .expect("recorded");
    let batch: Vec<CallMeasurement> = (1..=over)
        .map(|n| call("files", "read", n as i64, 1_000 * n, 2))
        .collect();
    ledger.measure_all(&batch).expect("recorded");

    let rows = kept_rows(ledger);
    let of = |server: &str, tool: &str| -> Vec<u64> {
        rows.iter()
            .filter(|(s, t, _)| s == server && t == tool)
            .map(|(_, _, tokens)| *tokens)
            .collect()
    };
    let newest: Vec<u64> = (11..=over).collect();
    assert_eq!(
        of("github", "list"),
        newest,
        "the last {CALLS_KEPT}, in order"
    );
    assert_eq!(of("github", "get"), [7], "another tool keeps its own");
    let newest_read: Vec<u64> = (11..=over).map(|n| 1_000 * n).collect();
    assert_eq!(of("files", "read"), newest_read, "a large batch too");

    let measured = ledger.measured().expect("read");
    let list = measured["github"]["list"];
    assert_eq!(list.calls as usize, CALLS_KEPT);
    assert_eq!(
        (list.median_tokens, list.p90_tokens),
        (35, 55),
        "of the calls kept, 11 to 60"
    );
}
