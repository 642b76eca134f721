//! The proxy's costs, measured in one run beside what they are compared
//! with, against real upstream processes (never the demo in memory):
//!
//! * `calls`: `tools/call` calls per second and p50/p99 at 1 and 32
//!   concurrent callers: direct (stdio, and the server's own streamable
//!   HTTP), through `mcp-sieve serve` (stdio and HTTP, keep-alive), and
//!   through the peer gateway `mcp-proxy` (crates.io), in front of
//!   server-everything's `echo` and the demo server's `echo`, each a stdio
//!   child;
//! * `lists`: `tools/list` through the proxy with 1, 5 and 20 upstreams,
//!   and with 1,000 and 10,000 tools, beside the same upstream direct;
//! * `changes`: from a profile file edit to `tools/list_changed` at the host;
//! * `ledger`: `tasks/list` with filters on a ledger of 1,000,000 entries;
//! * `memory`: the proxy's resident memory idle and under load with 5
//!   upstreams, and its start-up time to the first answered request;
//! * `team`: calls per second through one and two `serve --http` replicas
//!   sharing a PostgreSQL database, with `settings.audit` off and on;
//! * `targets`: issue 33's targets side by side with what they compare
//!   with (a byte pump over stdio, the peer gateway over HTTP, the client's
//!   own decoding of a list), each the median of three runs, met or not.
//!
//! `scripts/bench.sh [--smoke] [SECTION...]` installs what it needs and
//! runs `cargo bench -p sieve-tests --bench proxy -- ...`. `--smoke` makes
//! every section small (a few hundred calls): `./test.sh` runs it so the
//! harness cannot rot. Results are printed as tables; docs/benchmarks.md
//! keeps a full run.

mod calls;
mod changes;
mod clients;
mod ledger;
mod lists;
mod memory;
mod peer;
mod raw;
mod report;
mod targets;
mod team;

use std::time::Duration;

/// What a run does: which sections, and how much of each.
#[derive(Debug, Clone)]
pub struct Plan {
    pub smoke: bool,
    pub sections: Vec<String>,
}

impl Plan {
    fn from_args() -> Option<Plan> {
        let args: Vec<String> = std::env::args().skip(1).collect();
        // `cargo test --benches` runs a bench once without `--bench`: the
        // smoke plan then, so it still checks that everything runs.
        let benching = args.iter().any(|a| a == "--bench");
        let smoke = !benching || args.iter().any(|a| a == "--smoke");
        let sections: Vec<String> = args
            .iter()
            .filter(|a| !a.starts_with("--"))
            .cloned()
            .collect();
        for section in &sections {
            if !SECTIONS.contains(&section.as_str()) {
                eprintln!(
                    "error: there is no section {section:?}; the sections are {}",
                    SECTIONS.join(", ")
                );
                return None;
            }
        }
        Some(Plan { smoke, sections })
    }

    fn runs(&self, section: &str) -> bool {
        self.sections.is_empty() || self.sections.iter().any(|s| s == section)
    }

    /// `full` in a real run, `smoke` in a smoke run.
    pub fn size(&self, full: usize, smoke: usize) -> usize {
        if self.smoke { smoke } else { full }
    }
}

const SECTIONS: [&str; 7] = [
    "calls", "lists", "changes", "ledger", "memory", "team", "targets",
];

/// How long any one step may take before the harness gives up on it.
pub const STEP_TIMEOUT: Duration = Duration::from_secs(120);

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let Some(plan) = Plan::from_args() else {
        return std::process::ExitCode::FAILURE;
    };
    report::machine(&plan);
    if plan.runs("calls") {
        calls::run(&plan).await;
    }
    if plan.runs("lists") {
        lists::run(&plan).await;
    }
    if plan.runs("changes") {
        changes::run(&plan).await;
    }
    if plan.runs("ledger") {
        ledger::run(&plan);
    }
    if plan.runs("memory") {
        memory::run(&plan).await;
    }
    if plan.runs("team") {
        team::run(&plan).await;
    }
    if plan.runs("targets") {
        targets::run(&plan).await;
    }
    std::process::ExitCode::SUCCESS
}
