//! The MCP conformance suite's client scenarios (`conformance client`,
//! Node 22) against `mcp-sieve servers probe`, the proxy's own upstream
//! client: every scenario of the 2025-11-25 and 2026-07-28 revisions, each
//! run at its revision's wire, in both pinned versions of the suite
//! (`scripts/conformance-client.sh`).
//!
//! Every scenario passes but those that need what MCP Sieve does not do:
//! the authorization scenarios are signed in to with the proxy's own
//! sign-in (`sieve_gateway::oauth`, rmcp's OAuth; the Client ID Metadata
//! Document address the suite expects, given as `--client-metadata-url`,
//! is what a server's `oauth.clientMetadataUrl` is), the suite's authorization
//! server followed headlessly by `tests/clients/follow-redirect.sh` as
//! `$BROWSER`. The failures expected are listed with their reason; the sets
//! are exact, so a scenario that starts passing or failing is noticed. Both
//! summaries are printed (`cargo test -- --nocapture`); docs/conformance.md keeps
//! the table.
//! Each version takes a few seconds: the suite runs its scenarios in
//! parallel.

use sieve_tests::conformance::Report;
use sieve_tests::deps::deps;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::Instant;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

/// The extensions' authorization scenarios, which 0.2.0-alpha.12 runs with
/// each revision's requirements but does not score, that MCP Sieve does not
/// do: DPoP-bound tokens (rmcp 3.9's client makes no proofs) and the
/// enterprise grants (JWT bearer, token exchange) whose assertions come
/// from an identity provider. The client credentials ones pass (a service
/// account's `"grant": "clientCredentials"`).
const AUTH_EXTENSIONS: [(&str, &str); 4] = [
    ("auth/dpop", "no DPoP proof in the token request"),
    ("auth/dpop-nonce", "no DPoP proof in the token request"),
    (
        "auth/enterprise-managed-authorization",
        "Client did not perform token exchange",
    ),
    (
        "auth/wif-jwt-bearer",
        "Expected grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer",
    ),
];

/// One run of the suite at a time: `sse-retry` times the client's
/// reconnection (500 ms asked), and two runs side by side (the suite runs
/// its scenarios in parallel, and the sign-ins add work) make it late.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A warning the suite itself calls acceptable, which a loaded machine
/// (the sign-ins of the other scenarios run at the same time) brings
/// about now and then: `sse-retry`'s reconnection a few hundred
/// milliseconds after the 500 asked. Allowed, never required.
const LATE_RECONNECT: (&str, &str) = ("sse-retry@2025-11-25", "Client reconnected slightly late");

/// Runs `scripts/conformance-client.sh` and reads its report.
fn run(next: bool, out: &Path) -> Report {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // Installs the suite (and Node 22) or fails saying why: never a skip.
    let deps = deps();
    assert!(deps.conformance.exists() && deps.conformance_next.exists());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/conformance-client.sh");
    let mut command = Command::new("bash");
    command.arg(script);
    if next {
        command.arg("--next");
    }
    let output = command
        .args(["--bin", BIN])
        .arg(out)
        .output()
        .expect("conformance-client.sh runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    // 1 only says that some scenario failed; the sets below decide.
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "conformance-client.sh did not complete a run ({}):\n{stdout}\n{stderr}",
        output.status
    );
    Report::parse(&stdout)
}

/// `name@revision` for each name, with the reason it fails.
fn at<'a>(
    revision: &'a str,
    names: &'a [(&str, &'a str)],
) -> impl Iterator<Item = (String, &'a str)> + 'a {
    names
        .iter()
        .map(move |(name, why)| (format!("{name}@{revision}"), *why))
}

/// Checks a run against the failures expected (with their reasons),
/// exactly.
fn check(suite: &str, report: &Report, scenarios: usize, failing: BTreeMap<String, &str>) {
    println!("conformance {suite}, client scenarios: {}", report.summary);
    let failed: BTreeSet<&String> = report
        .scenarios
        .iter()
        .filter(|(name, why)| {
            why.as_deref().is_some_and(|why| {
                !(name.as_str() == LATE_RECONNECT.0 && why.contains(LATE_RECONNECT.1))
            })
        })
        .map(|(name, _)| name)
        .collect();
    let expected: BTreeSet<&String> = failing.keys().collect();
    let newly_failing: Vec<_> = failed
        .difference(&expected)
        .map(|name| (name, &report.scenarios[*name]))
        .collect();
    let newly_passing: Vec<_> = expected.difference(&failed).collect();
    assert!(
        newly_failing.is_empty() && newly_passing.is_empty(),
        "{suite}: the failing scenarios changed; now failing: {newly_failing:#?}, now passing \
         (update the table in docs/conformance.md and this test): {newly_passing:?}"
    );
    for (name, reason) in &failing {
        let why = report.scenarios[name].as_deref().unwrap_or_default();
        assert!(
            why.contains(reason),
            "{suite}: {name} fails for the known reason ({reason}): {why}"
        );
    }
    assert_eq!(
        report.scenarios.len(),
        scenarios,
        "{suite}: every client scenario of both revisions ran: {:#?}",
        report.scenarios.keys().collect::<Vec<_>>()
    );
}

#[test]
fn client_scenarios_of_conformance_0_1() {
    let started = Instant::now();
    let work = tempfile::tempdir().unwrap();
    let report = run(false, &work.path().join("run"));
    // 2025-11-25: 4 scenarios and 14 sign-ins; draft: 3 sign-ins.
    check("0.1.16", &report, 21, BTreeMap::new());
    println!("took {:.1}s", started.elapsed().as_secs_f64());
}

#[test]
fn client_scenarios_of_conformance_0_2() {
    let started = Instant::now();
    let work = tempfile::tempdir().unwrap();
    let report = run(true, &work.path().join("run"));
    let failing = at("2025-11-25", &AUTH_EXTENSIONS)
        .chain(at("2026-07-28", &AUTH_EXTENSIONS))
        .collect();
    // 2025-11-25: 5 scenarios, 20 sign-ins; 2026-07-28: 8 and 31.
    check("0.2.0-alpha.12", &report, 64, failing);
    println!("took {:.1}s", started.elapsed().as_secs_f64());
}
