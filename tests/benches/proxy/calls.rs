//! `tools/call` through each way a host can reach an upstream's `echo`:
//! calls per second and p50/p99, at 1 and at 32 concurrent callers of one
//! client (a host with many calls in flight), each way beside the
//! direct one of its transport with the ratio; then the HTTP ways from the
//! Python `mcp` client in both its modes, and `mcp-sieve serve --http`
//! against the peer gateway with each client, side by side.
//!
//! Every way is measured in rounds taken in turn (way 1, way 2, ..., way 1,
//! ...), so a burst of other work on the machine falls on all of them
//! alike. `MCP_SIEVE_BENCH_BASELINE=/path/to/mcp-sieve` adds that binary
//! (a build of an earlier commit) as one more HTTP way, so a change is
//! measured before and after in the same run.

use crate::Plan;
use crate::clients::{self, Client, Spawned, Upstream, sieve};
use crate::report::{Table, ms, quantile, ratio};
use rmcp::model::CallToolRequestParams;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Callers in flight at once in the concurrent runs.
pub const CONCURRENT: usize = 32;

/// Rounds each measurement is split into, the ways taking turns.
pub const ROUNDS: usize = 4;

/// The Python client's modes: a 2025-11-25 session, and its default.
const PYTHON_MODES: [&str; 2] = ["legacy", "auto"];

/// What the calls of one way took, over all its rounds.
#[derive(Debug, Clone, Default)]
pub struct Calls {
    /// Each call's time.
    pub times: Vec<Duration>,
    /// The time the calls took together (with several callers, less than
    /// the sum of `times`).
    pub wall: Duration,
}

impl Calls {
    pub fn add(&mut self, other: Calls) {
        self.times.extend(other.times);
        self.wall += other.wall;
    }

    pub fn per_second(&self) -> f64 {
        self.times.len() as f64 / self.wall.as_secs_f64()
    }

    pub fn quantile(&self, q: f64) -> Duration {
        let mut sorted = self.times.clone();
        sorted.sort();
        quantile(&sorted, q)
    }
}

/// `total` calls of `tool` spread over `callers` tasks on `client`, after
/// a warm-up; every call must succeed.
pub async fn measure(
    client: &Client,
    tool: &str,
    arguments: &serde_json::Value,
    callers: usize,
    total: usize,
) -> Calls {
    let params = CallToolRequestParams::new(tool.to_string())
        .with_arguments(arguments.as_object().cloned().unwrap_or_default());
    let peer = client.peer().clone();
    let call = move |params: CallToolRequestParams| {
        let peer = peer.clone();
        async move {
            let start = Instant::now();
            let result = tokio::time::timeout(crate::STEP_TIMEOUT, peer.call_tool(params))
                .await
                .expect("a call answers within the step timeout")
                .expect("tools/call succeeds");
            assert_ne!(
                result.is_error,
                Some(true),
                "echo answered an error: {result:?}"
            );
            start.elapsed()
        }
    };
    // The proxy answers its host before its upstreams, and refuses a call
    // to one that has not answered yet: the tool is listed first.
    let deadline = Instant::now() + crate::STEP_TIMEOUT;
    while !client
        .list_all_tools()
        .await
        .expect("tools/list works")
        .iter()
        .any(|listed| listed.name == tool)
    {
        assert!(Instant::now() < deadline, "{tool} is never listed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for _ in 0..20 {
        call(params.clone()).await;
    }
    let params = Arc::new(params);
    let started = Instant::now();
    let mut tasks = Vec::with_capacity(callers);
    for caller in 0..callers {
        let share = total / callers + usize::from(caller < total % callers);
        let params = params.clone();
        let call = call.clone();
        tasks.push(tokio::spawn(async move {
            let mut times = Vec::with_capacity(share);
            for _ in 0..share {
                times.push(call((*params).clone()).await);
            }
            times
        }));
    }
    let mut times = Vec::with_capacity(total);
    for task in tasks {
        times.extend(task.await.expect("a caller finishes"));
    }
    Calls {
        times,
        wall: started.elapsed(),
    }
}

/// `total` sequential calls from the Python `mcp` client (httpx, one
/// kept-alive connection) to an HTTP way, in `mode`; and the protocol
/// version it settled on.
pub fn python_calls(
    url: &str,
    token: Option<&str>,
    tool: &str,
    arguments: &serde_json::Value,
    total: usize,
    mode: &str,
) -> (Calls, String) {
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/proxy/python_calls.py");
    let output = Command::new(&sieve_tests::deps::deps().python)
        .arg(&script)
        .args([
            url,
            token.unwrap_or("-"),
            tool,
            &arguments.to_string(),
            &total.to_string(),
            mode,
        ])
        .stderr(Stdio::null())
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "python_calls.py against {url} failed: {stdout}"
    );
    let line: serde_json::Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("python_calls.py printed {stdout:?}: {e}"));
    let times: Vec<Duration> = line["timesMs"]
        .as_array()
        .expect("the times")
        .iter()
        .map(|ms| Duration::from_secs_f64(ms.as_f64().expect("a number") / 1000.0))
        .collect();
    // One call at a time: the calls' wall time is their sum.
    let wall = times.iter().sum();
    let version = line["protocolVersion"].as_str().unwrap_or("?").to_string();
    (Calls { times, wall }, version)
}

/// What a way is, for the side-by-side table.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Direct,
    Sieve,
    /// The binary of `MCP_SIEVE_BENCH_BASELINE`.
    Baseline,
    Peer,
}

/// One way to reach the upstream, ready to be called.
struct Way {
    label: String,
    kind: Kind,
    /// The direct way it is compared with (same transport to the host).
    base: &'static str,
    client: Client,
    tool: String,
    /// For an HTTP way, its URL and token: the Python client's run.
    http: Option<(String, Option<String>)>,
    /// What must live as long as the way: its processes, its home.
    _keep: Vec<Box<dyn std::any::Any>>,
}

/// The upstream's own streamable HTTP endpoint, as a separate process.
fn direct_http(upstream: &Upstream) -> (Spawned, String) {
    let port = clients::free_port();
    let mut command;
    match upstream.name {
        "demo" => {
            command = Command::new(sieve());
            command.args(["demo-server", "--http", &format!("127.0.0.1:{port}")]);
        }
        "everything" => {
            let deps = sieve_tests::deps::deps();
            command = Command::new(&deps.node22);
            command
                .arg(&deps.server_everything)
                .arg("streamableHttp")
                .env("PORT", port.to_string());
        }
        other => panic!("no HTTP mode known for {other}"),
    }
    command.stdout(Stdio::null()).stderr(Stdio::null());
    let spawned = Spawned::start(command);
    clients::wait_for_port(port, upstream.name);
    (spawned, format!("http://127.0.0.1:{port}/mcp"))
}

/// `MCP_SIEVE_BENCH_BASELINE`: another `mcp-sieve` to measure beside.
fn baseline() -> Option<PathBuf> {
    clients::binary_named_by("MCP_SIEVE_BENCH_BASELINE")
}

/// `binary serve --http` in front of `upstream`, as a way.
async fn sieve_http(binary: &str, label: String, kind: Kind, upstream: &Upstream) -> Way {
    let entry = vec![(upstream.name.to_string(), upstream.program.config_entry())];
    let home = clients::sieve_home(&entry);
    let (proxy, url) = clients::sieve_http(binary, &home);
    let token = proxy.token.clone();
    Way {
        label,
        kind,
        base: "direct, its own HTTP",
        client: clients::http(&url, Some(&token)).await,
        tool: format!("{}__{}", upstream.name, upstream.echo),
        http: Some((url, Some(token))),
        // The proxy ends before its home goes.
        _keep: vec![Box::new(proxy), Box::new(home)],
    }
}

async fn ways(upstream: &Upstream) -> Vec<Way> {
    let mut ways = Vec::new();
    let entry = vec![(upstream.name.to_string(), upstream.program.config_entry())];
    let proxied = format!("{}__{}", upstream.name, upstream.echo);

    ways.push(Way {
        label: "direct, stdio".into(),
        kind: Kind::Direct,
        base: "direct, stdio",
        client: clients::stdio(&upstream.program, &[]).await,
        tool: upstream.echo.into(),
        http: None,
        _keep: Vec::new(),
    });
    let home = clients::sieve_home(&entry);
    ways.push(Way {
        label: "mcp-sieve serve, stdio".into(),
        kind: Kind::Sieve,
        base: "direct, stdio",
        client: clients::stdio(&clients::serve(&home, &[]), &[]).await,
        tool: proxied,
        http: None,
        _keep: vec![Box::new(home)],
    });

    let (server, url) = direct_http(upstream);
    ways.push(Way {
        label: "direct, its own HTTP".into(),
        kind: Kind::Direct,
        base: "direct, its own HTTP",
        client: clients::http(&url, None).await,
        tool: upstream.echo.into(),
        http: Some((url, None)),
        _keep: vec![Box::new(server)],
    });
    let label = "mcp-sieve serve --http".to_string();
    ways.push(sieve_http(sieve(), label, Kind::Sieve, upstream).await);
    if let Some(binary) = baseline() {
        let label = "mcp-sieve serve --http, baseline".to_string();
        let binary = binary.display().to_string();
        ways.push(sieve_http(&binary, label, Kind::Baseline, upstream).await);
    }
    let (peer, url, tool) = crate::peer::start(upstream);
    ways.push(Way {
        label: format!("{} (HTTP)", crate::peer::NAME),
        kind: Kind::Peer,
        base: "direct, its own HTTP",
        client: clients::http(&url, None).await,
        tool,
        http: Some((url, None)),
        _keep: vec![Box::new(peer)],
    });
    ways
}

/// What one upstream's ways gave: per way, rmcp's client at 1 and at
/// [`CONCURRENT`] callers, and the Python client per mode (HTTP ways only)
/// with the protocol it settled on.
struct Results {
    one: Vec<Calls>,
    many: Vec<Calls>,
    python: Vec<Vec<Option<(Calls, String)>>>,
}

async fn measure_all(
    upstream: &Upstream,
    ways: &[Way],
    sequential: usize,
    concurrent: usize,
    python_total: usize,
) -> Results {
    let mut results = Results {
        one: vec![Calls::default(); ways.len()],
        many: vec![Calls::default(); ways.len()],
        python: vec![vec![None; ways.len()]; PYTHON_MODES.len()],
    };
    let arguments = &upstream.echo_arguments;
    for round in 0..ROUNDS {
        let share = |total: usize| total / ROUNDS + usize::from(round < total % ROUNDS);
        for (i, way) in ways.iter().enumerate() {
            let one = measure(&way.client, &way.tool, arguments, 1, share(sequential)).await;
            results.one[i].add(one);
        }
        for (i, way) in ways.iter().enumerate() {
            let many = measure(
                &way.client,
                &way.tool,
                arguments,
                CONCURRENT,
                share(concurrent),
            );
            results.many[i].add(many.await);
        }
        for (m, mode) in PYTHON_MODES.iter().enumerate() {
            for (i, way) in ways.iter().enumerate() {
                let Some((url, token)) = &way.http else {
                    continue;
                };
                let total = share(python_total);
                let (calls, version) =
                    python_calls(url, token.as_deref(), &way.tool, arguments, total, mode);
                let slot = results.python[m][i].get_or_insert_with(|| (Calls::default(), version));
                slot.0.add(calls);
            }
        }
    }
    results
}

pub async fn run(plan: &Plan) {
    let sequential = plan.size(3_000, 150);
    let concurrent = plan.size(20_000, 320);
    let mut table = Table::new(
        format!(
            "tools/call of echo from rmcp's client: {sequential} calls by 1 caller, {concurrent} by {CONCURRENT} callers on one client (one stdio pipe; over HTTP one session, a TCP connection per request, as rmcp's client makes them) (in {ROUNDS} rounds, each after 20 warm-up calls); ms"
        ),
        &[
            "upstream",
            "way",
            "1 caller: calls/s",
            "p50",
            "p99",
            "vs direct",
            "32 callers: calls/s",
            "p50",
            "p99",
            "vs direct",
        ],
    );
    let python_total = plan.size(2_000, 100);
    let mut python = Table::new(
        format!(
            "tools/call of echo from the Python mcp client (httpx, one kept-alive connection), {python_total} sequential calls (in {ROUNDS} rounds, each after 20); ms"
        ),
        &[
            "upstream",
            "mode",
            "way",
            "protocol",
            "calls/s",
            "p50",
            "p99",
            "vs direct",
        ],
    );
    let with_baseline = baseline().is_some();
    let mut header = vec!["upstream", "client", "mcp-sieve serve --http"];
    if with_baseline {
        header.push("baseline");
    }
    header.extend([crate::peer::NAME, "mcp-sieve / peer"]);
    if with_baseline {
        header.push("baseline / peer");
    }
    let mut against = Table::new(
        format!(
            "HTTP: mcp-sieve serve --http beside {} in front of the same upstream, calls/s (from the tables above)",
            crate::peer::NAME
        ),
        &header,
    );
    for upstream in [Upstream::everything(), Upstream::demo()] {
        let ways = ways(&upstream).await;
        let results = measure_all(&upstream, &ways, sequential, concurrent, python_total).await;
        let direct = |base: &str, of: &[Calls]| {
            let i = ways
                .iter()
                .position(|w| w.label == base)
                .expect("the direct way of the transport was measured");
            of[i].per_second()
        };
        for (i, way) in ways.iter().enumerate() {
            let (one, many) = (&results.one[i], &results.many[i]);
            table.row(vec![
                upstream.name.into(),
                way.label.clone(),
                format!("{:.0}", one.per_second()),
                ms(one.quantile(0.50)),
                ms(one.quantile(0.99)),
                ratio(one.per_second(), direct(way.base, &results.one)),
                format!("{:.0}", many.per_second()),
                ms(many.quantile(0.50)),
                ms(many.quantile(0.99)),
                ratio(many.per_second(), direct(way.base, &results.many)),
            ]);
        }
        for (m, mode) in PYTHON_MODES.iter().enumerate() {
            let of = &results.python[m];
            let base = ways
                .iter()
                .position(|w| w.label == "direct, its own HTTP")
                .and_then(|i| of[i].as_ref())
                .map_or(0.0, |(calls, _)| calls.per_second());
            for (way, measured) in ways.iter().zip(of) {
                let Some((calls, version)) = measured else {
                    continue;
                };
                python.row(vec![
                    upstream.name.into(),
                    (*mode).into(),
                    way.label.clone(),
                    version.clone(),
                    format!("{:.0}", calls.per_second()),
                    ms(calls.quantile(0.50)),
                    ms(calls.quantile(0.99)),
                    ratio(calls.per_second(), base),
                ]);
            }
        }
        // The HTTP ways side by side, per client: calls per second by way.
        let mut by_client: Vec<(String, Vec<Option<f64>>)> = vec![
            (
                "rmcp, 1 caller".into(),
                results.one.iter().map(|c| Some(c.per_second())).collect(),
            ),
            (
                format!("rmcp, {CONCURRENT} callers"),
                results.many.iter().map(|c| Some(c.per_second())).collect(),
            ),
        ];
        for (m, mode) in PYTHON_MODES.iter().enumerate() {
            let rates = results.python[m]
                .iter()
                .map(|measured| measured.as_ref().map(|(calls, _)| calls.per_second()))
                .collect();
            by_client.push((format!("Python mcp, {mode}"), rates));
        }
        for (client, rates) in &by_client {
            let of = |kind: Kind| {
                ways.iter()
                    .position(|w| w.kind == kind && w.http.is_some())
                    .and_then(|i| rates[i])
                    .unwrap_or(0.0)
            };
            let (sieve, old, peer) = (of(Kind::Sieve), of(Kind::Baseline), of(Kind::Peer));
            let mut row = vec![upstream.name.to_string(), client.clone()];
            row.push(format!("{sieve:.0}"));
            if with_baseline {
                row.push(format!("{old:.0}"));
            }
            row.extend([format!("{peer:.0}"), ratio(sieve, peer)]);
            if with_baseline {
                row.push(ratio(old, peer));
            }
            against.row(row);
        }
        for way in ways {
            let _ = way.client.cancel().await;
        }
    }
    table.print();
    python.print();
    against.print();
    println!(
        "\n\"vs direct\" is calls per second through the way over calls per second direct on the same transport (1.00× = no cost; higher is faster); \"mcp-sieve / peer\" is mcp-sieve's calls per second over the peer gateway's (above 1.00×: mcp-sieve is faster)."
    );
}
