//! Issue 33's targets, each measured as the issue words it and printed
//! beside it with a yes or no; every figure is the median of three runs of
//! this one invocation (the ways taking turns within each run):
//!
//! * stdio: `mcp-sieve serve` against a byte pump (`byte-pump`: two
//!   threads copying 64 KiB reads, nothing parsed) and direct, from a raw
//!   host, one call at a time and [`WINDOW`] in flight on the one pipe;
//!   the proxy at least 0.9 of the pump's calls per second;
//! * HTTP: `serve --http` against the peer gateway in front of the same
//!   upstream: each gateway's CPU per call (`/proc/PID/stat`) under rmcp's
//!   client (1 and 32 callers), [`CONNECTIONS`] raw kept-alive HTTP/1.1
//!   connections and the Python client, the proxy's at most 0.6 of the
//!   peer's, and its calls per second ahead (the Python client's own CPU
//!   reported beside its figure);
//! * `tools/list` of 10,000 tools over stdio: the raw host's time to the
//!   decoded list (rmcp's typed message) minus its decoding of the same
//!   bytes, within 20 ms;
//! * the resident memory (`VmRSS`) of `serve --http` with the demo server
//!   alone after one `initialize` and one `tools/list`, under 25 MB.

use crate::Plan;
use crate::clients::{self, Program, Upstream, sieve};
use crate::raw::{self, Pipe};
use crate::report::Table;
use sieve_tests::http::HttpProxy;
use sieve_tests::procs::rss_kib;
use std::sync::Arc;
use std::time::{Duration, Instant};

const PUMP: &str = env!("CARGO_BIN_EXE_byte-pump");
const CATALOG_SERVER: &str = env!("CARGO_BIN_EXE_catalog-server");

/// Runs of every measurement; each figure is their median.
const RUNS: usize = 3;
/// The size of the arguments of the large stdio calls (a file written
/// through a tool), in bytes.
const LARGE_BYTES: usize = 1_000_000;
/// Calls in flight on one pipe in the pipelined stdio runs.
pub const WINDOW: usize = 32;
/// Raw kept-alive connections in the HTTP load.
pub const CONNECTIONS: usize = 32;

/// Three figures and their median.
#[derive(Debug, Clone, Default)]
struct Runs(Vec<f64>);

impl Runs {
    fn push(&mut self, value: f64) {
        self.0.push(value);
    }

    fn median(&self) -> f64 {
        let mut sorted = self.0.clone();
        sorted.sort_by(f64::total_cmp);
        sorted.get(sorted.len() / 2).copied().unwrap_or(0.0)
    }

    /// Each run and the median, with `digits` decimals.
    fn show(&self, digits: usize) -> String {
        self.show_with(digits, "")
    }

    /// Ratios: each run and the median, `1.23×`.
    fn ratios(&self) -> String {
        self.show_with(2, "×")
    }

    fn show_with(&self, digits: usize, unit: &str) -> String {
        let runs: Vec<String> = self
            .0
            .iter()
            .map(|v| format!("{v:.digits$}{unit}"))
            .collect();
        format!(
            "{} (runs {})",
            format_args!("{:.digits$}{unit}", self.median()),
            runs.join(", ")
        )
    }
}

/// A target's line: what it asks, the figure, whether it is met.
struct Target {
    target: String,
    figure: String,
    met: bool,
}

/// CPU time (user and system) of process `pid` so far.
fn cpu(pid: u32) -> Duration {
    ticks(
        &std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default(),
        11,
    )
}

/// CPU time of this process's waited-for children so far (a client run
/// with `Command::output` is counted here once it has ended).
fn children_cpu() -> Duration {
    ticks(
        &std::fs::read_to_string("/proc/self/stat").unwrap_or_default(),
        13,
    )
}

/// Two clock-tick fields of a `/proc/PID/stat` line, from `first` counted
/// after the command's closing parenthesis (user then system time).
fn ticks(stat: &str, first: usize) -> Duration {
    let fields: Vec<u64> = stat
        .rsplit_once(')')
        .map(|(_, rest)| {
            rest.split_whitespace()
                .map(|f| f.parse().unwrap_or(0))
                .collect()
        })
        .unwrap_or_default();
    let sum = fields.get(first).copied().unwrap_or(0) + fields.get(first + 1).copied().unwrap_or(0);
    // The kernel's USER_HZ is 100 on Linux.
    Duration::from_millis(sum * 10)
}

pub async fn run(plan: &Plan) {
    let mut targets = Vec::new();
    stdio(plan, &mut targets);
    http(plan, &mut targets).await;
    list(plan, &mut targets);
    memory(&mut targets).await;
    let mut table = Table::new(
        format!("Issue 33's targets, each figure the median of {RUNS} runs in this invocation"),
        &["target", "figure", "met"],
    );
    for t in targets {
        table.row(vec![
            t.target,
            t.figure,
            if t.met { "yes" } else { "no" }.into(),
        ]);
    }
    table.print();
}

/// Stdio: direct, the byte pump and the proxy, taking turns.
fn stdio(plan: &Plan, targets: &mut Vec<Target>) {
    let sequential = plan.size(4_000, 100);
    let pipelined = plan.size(20_000, 300);
    let large = plan.size(100, 10);
    let mut table = Table::new(
        format!(
            "stdio from a raw host: tools/call of echo, {sequential} calls one at a time, {pipelined} with {WINDOW} in flight on the pipe, and {large} one at a time with {} KB of arguments (lines of code, echoed back), calls/s, median of {RUNS} runs",
            LARGE_BYTES / 1000
        ),
        &[
            "upstream",
            "way",
            "one at a time",
            "pipelined",
            "1 MB one at a time",
        ],
    );
    for upstream in [Upstream::demo(), Upstream::everything()] {
        let mut pump_args = vec![upstream.program.command.display().to_string()];
        pump_args.extend(upstream.program.args.iter().cloned());
        let pump_args: Vec<&str> = pump_args.iter().map(String::as_str).collect();
        let entry = vec![(upstream.name.to_string(), upstream.program.config_entry())];
        let home = clients::sieve_home(&entry);
        let proxied = format!("{}__{}", upstream.name, upstream.echo);
        let ways: [(&str, Program, &str); 3] = [
            ("direct", upstream.program.clone(), upstream.echo),
            ("byte pump", Program::new(PUMP, &pump_args), upstream.echo),
            ("mcp-sieve serve", clients::serve(&home, &[]), &proxied),
        ];
        let mut pipes: Vec<Pipe> = ways
            .iter()
            .map(|(_, program, tool)| {
                let mut pipe = Pipe::start(program);
                pipe.wait_for(tool);
                pipe
            })
            .collect();
        let mut one = vec![Runs::default(); ways.len()];
        let mut many = vec![Runs::default(); ways.len()];
        let mut big = vec![Runs::default(); ways.len()];
        let (mut one_ratio, mut many_ratio) = (Runs::default(), Runs::default());
        let mut big_ratio = Runs::default();
        let key = upstream
            .echo_arguments
            .as_object()
            .and_then(|arguments| arguments.keys().next())
            .expect("the echo takes one argument")
            .clone();
        for _ in 0..RUNS {
            for (i, (_, _, tool)) in ways.iter().enumerate() {
                one[i].push(pipes[i].sequential(tool, &upstream.echo_arguments, sequential));
            }
            for (i, (_, _, tool)) in ways.iter().enumerate() {
                let rate = pipes[i].pipelined(tool, &upstream.echo_arguments, pipelined, WINDOW);
                many[i].push(rate);
            }
            for (i, (_, _, tool)) in ways.iter().enumerate() {
                big[i].push(pipes[i].sequential_large(tool, &key, LARGE_BYTES, large));
            }
            one_ratio.push(one[2].0.last().unwrap() / one[1].0.last().unwrap());
            many_ratio.push(many[2].0.last().unwrap() / many[1].0.last().unwrap());
            big_ratio.push(big[2].0.last().unwrap() / big[1].0.last().unwrap());
        }
        drop(pipes.drain(..));
        for (i, (label, _, _)) in ways.iter().enumerate() {
            table.row(vec![
                upstream.name.into(),
                (*label).into(),
                one[i].show(0),
                many[i].show(0),
                big[i].show(1),
            ]);
        }
        table.row(vec![
            upstream.name.into(),
            "mcp-sieve / pump".into(),
            one_ratio.ratios(),
            many_ratio.ratios(),
            big_ratio.ratios(),
        ]);
        for (what, ratio) in [("one at a time", &one_ratio), ("pipelined", &many_ratio)] {
            targets.push(Target {
                target: format!(
                    "stdio, {}: mcp-sieve ≥ 0.9× the byte pump's calls/s, {what}",
                    upstream.name
                ),
                figure: format!("{:.2}×", ratio.median()),
                met: ratio.median() >= 0.9,
            });
        }
    }
    table.print();
}

/// What one load on one gateway gave: calls per second, and the
/// gateway's CPU per call.
#[derive(Default, Clone)]
struct Load {
    rate: Runs,
    cpu_us: Runs,
    /// The client's own CPU per call (the Python client only).
    client_us: Runs,
}

/// HTTP: the proxy and the peer in front of the same upstream.
async fn http(plan: &Plan, targets: &mut Vec<Target>) {
    let sequential = plan.size(3_000, 100);
    let concurrent = plan.size(10_000, 320);
    let raw_total = plan.size(20_000, 320);
    let python_total = plan.size(1_000, 50);
    let loads = [
        "rmcp, 1 caller".to_string(),
        format!("rmcp, {} callers", crate::calls::CONCURRENT),
        format!("{CONNECTIONS} raw keep-alive connections"),
        "Python mcp (legacy session)".to_string(),
    ];
    let mut table = Table::new(
        format!(
            "HTTP: mcp-sieve serve --http and {} in front of the same stdio upstream; calls/s and the gateway's CPU per call (µs), median of {RUNS} runs (rmcp {sequential} and {concurrent} calls, raw {raw_total}, Python {python_total} sequential)",
            crate::peer::NAME
        ),
        &[
            "upstream",
            "client",
            "mcp-sieve calls/s",
            "peer calls/s",
            "mcp-sieve / peer",
            "mcp-sieve CPU/call",
            "peer CPU/call",
            "CPU mcp-sieve / peer",
            "client's own CPU/call",
        ],
    );
    for upstream in [Upstream::demo(), Upstream::everything()] {
        let entry = vec![(upstream.name.to_string(), upstream.program.config_entry())];
        let home = clients::sieve_home(&entry);
        let (proxy, url) = clients::sieve_http(sieve(), &home);
        let (peer, peer_url, peer_tool) = crate::peer::start(&upstream);
        let token = proxy.token.clone();
        let gateways = [
            (
                proxy.pid(),
                url,
                Some(token),
                format!("{}__{}", upstream.name, upstream.echo),
            ),
            (peer.pid(), peer_url, None, peer_tool),
        ];
        let mut results = vec![vec![Load::default(); loads.len()]; 2];
        let mut rmcp = Vec::new();
        let mut connections = Vec::new();
        let mut bodies = Vec::new();
        for (_, url, token, tool) in &gateways {
            let client = clients::http(url, token.as_deref()).await;
            // The gateways connect their upstream in the background.
            let deadline = Instant::now() + crate::STEP_TIMEOUT;
            while !client
                .list_all_tools()
                .await
                .expect("tools/list works")
                .iter()
                .any(|listed| listed.name == tool.as_str())
            {
                assert!(Instant::now() < deadline, "{tool} is never listed");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            rmcp.push(client);
            let body = raw::call_body(tool, &upstream.echo_arguments);
            let opened = raw::connect(url, token.as_deref(), &body, CONNECTIONS).await;
            connections.push(opened.into_iter().map(Arc::new).collect::<Vec<_>>());
            bodies.push(body);
        }
        for _ in 0..RUNS {
            for (g, (pid, url, token, tool)) in gateways.iter().enumerate() {
                let arguments = &upstream.echo_arguments;
                let before = cpu(*pid);
                let calls = crate::calls::measure(&rmcp[g], tool, arguments, 1, sequential).await;
                let spent = cpu(*pid) - before;
                results[g][0].rate.push(calls.per_second());
                results[g][0]
                    .cpu_us
                    .push(spent.as_secs_f64() * 1e6 / (sequential + 20) as f64);

                let before = cpu(*pid);
                let many = crate::calls::CONCURRENT;
                let calls =
                    crate::calls::measure(&rmcp[g], tool, arguments, many, concurrent).await;
                let spent = cpu(*pid) - before;
                results[g][1].rate.push(calls.per_second());
                results[g][1]
                    .cpu_us
                    .push(spent.as_secs_f64() * 1e6 / (concurrent + 20) as f64);

                let before = cpu(*pid);
                let rate = raw::load(&connections[g], &bodies[g], raw_total).await;
                let spent = cpu(*pid) - before;
                results[g][2].rate.push(rate);
                results[g][2]
                    .cpu_us
                    .push(spent.as_secs_f64() * 1e6 / raw_total as f64);

                let (before, client_before) = (cpu(*pid), children_cpu());
                let (calls, _) = crate::calls::python_calls(
                    url,
                    token.as_deref(),
                    tool,
                    arguments,
                    python_total,
                    "legacy",
                );
                let spent = cpu(*pid) - before;
                let client = children_cpu() - client_before;
                results[g][3].rate.push(calls.per_second());
                results[g][3]
                    .cpu_us
                    .push(spent.as_secs_f64() * 1e6 / (python_total + 20) as f64);
                results[g][3]
                    .client_us
                    .push(client.as_secs_f64() * 1e6 / (python_total + 20) as f64);
            }
        }
        for client in rmcp {
            let _ = client.cancel().await;
        }
        drop(connections);
        drop(peer);
        drop(proxy);
        for (l, load) in loads.iter().enumerate() {
            let (sieve, peer) = (&results[0][l], &results[1][l]);
            let rate = ratio_runs(&sieve.rate, &peer.rate);
            let cpu = ratio_runs(&sieve.cpu_us, &peer.cpu_us);
            let client = if l == 3 {
                format!(
                    "{} against mcp-sieve, {} against the peer (start-up included)",
                    sieve.client_us.show(0),
                    peer.client_us.show(0)
                )
            } else {
                String::new()
            };
            table.row(vec![
                upstream.name.into(),
                load.clone(),
                sieve.rate.show(0),
                peer.rate.show(0),
                rate.ratios(),
                sieve.cpu_us.show(0),
                peer.cpu_us.show(0),
                cpu.ratios(),
                client,
            ]);
            if l == 3 {
                continue;
            }
            targets.push(Target {
                target: format!(
                    "HTTP, {}, {load}: mcp-sieve's CPU per call ≤ 0.6× the peer's",
                    upstream.name
                ),
                figure: format!(
                    "{:.2}× ({:.0} µs against {:.0})",
                    cpu.median(),
                    sieve.cpu_us.median(),
                    peer.cpu_us.median()
                ),
                met: cpu.median() <= 0.6,
            });
            targets.push(Target {
                target: format!(
                    "HTTP, {}, {load}: mcp-sieve's calls/s ahead of the peer's",
                    upstream.name
                ),
                figure: format!(
                    "{:.2}× ({:.0} against {:.0})",
                    rate.median(),
                    sieve.rate.median(),
                    peer.rate.median()
                ),
                met: rate.median() > 1.0,
            });
        }
    }
    table.print();
}

/// Run by run, `a / b`.
fn ratio_runs(a: &Runs, b: &Runs) -> Runs {
    Runs(a.0.iter().zip(&b.0).map(|(a, b)| a / b).collect())
}

/// A raw host's `tools/list`: the time to its last byte, and rmcp's
/// decoding of the same bytes into its typed message (what rmcp's client
/// does with them).
fn timed_list(pipe: &mut Pipe, tools: usize) -> (Duration, Duration) {
    let (received, line) = pipe.timed("tools/list", &serde_json::json!({}));
    let started = Instant::now();
    let message: rmcp::model::ServerJsonRpcMessage =
        serde_json::from_slice(&line).expect("the list decodes as rmcp's message");
    let decoded = started.elapsed();
    let rmcp::model::ServerJsonRpcMessage::Response(response) = message else {
        panic!("tools/list was not answered with a response");
    };
    let rmcp::model::ServerResult::ListToolsResult(list) = response.result else {
        panic!("tools/list's answer is not a list of tools");
    };
    assert_eq!(list.tools.len(), tools, "every tool is listed");
    (received, decoded)
}

/// `tools/list` of 10,000 tools: direct and through the proxy (stdio).
fn list(plan: &Plan, targets: &mut Vec<Target>) {
    // The smoke run lists 1,000 so that it takes seconds.
    let tools = plan.size(10_000, 1_000);
    let lists = plan.size(10, 2);
    let program = Program::new(CATALOG_SERVER, &[&tools.to_string()]);
    let home = clients::sieve_home(&[("catalog".into(), program.config_entry())]);
    let mut direct = Pipe::start(&program);
    let mut proxied = Pipe::start(&clients::serve(&home, &[]));
    let deadline = Instant::now() + crate::STEP_TIMEOUT;
    loop {
        let line = proxied.ask("tools/list", &serde_json::json!({}));
        let answer: serde_json::Value = serde_json::from_slice(&line).expect("an answer");
        if answer["result"]["tools"].as_array().map_or(0, Vec::len) == tools {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the proxy never lists {tools} tools"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let (mut direct_total, mut proxied_total, mut decode, mut extra) = (
        Runs::default(),
        Runs::default(),
        Runs::default(),
        Runs::default(),
    );
    for _ in 0..RUNS {
        let (mut d, mut p, mut dec) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..lists {
            let (received, decoded) = timed_list(&mut direct, tools);
            d.push((received + decoded).as_secs_f64() * 1e3);
            let (received, decoded) = timed_list(&mut proxied, tools);
            p.push((received + decoded).as_secs_f64() * 1e3);
            dec.push(decoded.as_secs_f64() * 1e3);
        }
        let (d, p, dec) = (Runs(d).median(), Runs(p).median(), Runs(dec).median());
        direct_total.push(d);
        proxied_total.push(p);
        decode.push(dec);
        extra.push(p - dec);
    }
    let mut table = Table::new(
        format!(
            "tools/list of {tools} tools over stdio from a raw host that decodes it as rmcp's client does, ms to the decoded list, p50 of {lists} lists, median of {RUNS} runs"
        ),
        &[
            "way",
            "list",
            "of it, decoding the bytes",
            "list minus decoding",
        ],
    );
    table.row(vec![
        "direct (catalog-server)".into(),
        direct_total.show(1),
        String::new(),
        String::new(),
    ]);
    table.row(vec![
        "mcp-sieve serve".into(),
        proxied_total.show(1),
        decode.show(1),
        extra.show(1),
    ]);
    table.print();
    targets.push(Target {
        target: format!("tools/list of {tools} tools within 20 ms of the client's decoding"),
        figure: format!(
            "+{:.1} ms ({:.1} ms list, {:.1} ms decoding)",
            extra.median(),
            proxied_total.median(),
            decode.median()
        ),
        met: extra.median() <= 20.0,
    });
}

/// `VmRSS` of `serve --http` with the demo alone, after an `initialize`
/// and a `tools/list`, in three fresh starts.
async fn memory(targets: &mut Vec<Target>) {
    let demo = Upstream::demo();
    let mut rss = Runs::default();
    for _ in 0..RUNS {
        let home = clients::sieve_home(&[("demo".into(), demo.program.config_entry())]);
        let proxy = HttpProxy::start(sieve(), home.path());
        let url = format!("{}/mcp", proxy.base);
        let client = clients::http(&url, Some(&proxy.token)).await;
        let deadline = Instant::now() + crate::STEP_TIMEOUT;
        while client
            .list_all_tools()
            .await
            .expect("tools/list works")
            .is_empty()
        {
            assert!(Instant::now() < deadline, "the demo's tools never listed");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        rss.push(rss_kib(proxy.pid()) as f64 / 1024.0);
        let _ = client.cancel().await;
        drop(proxy);
    }
    let mut table = Table::new(
        "mcp-sieve serve --http with the demo server alone, after one initialize and one tools/list: the proxy's VmRSS (MiB)",
        &["measure", "value"],
    );
    table.row(vec!["VmRSS".into(), rss.show(1)]);
    table.row(vec![
        "functions laid out (crates/sieve-cli/link-order.txt)".into(),
        laid_out(sieve()),
    ]);
    table.print();
    targets.push(Target {
        target: "VmRSS of serve --http with the demo after an initialize and a list < 25 MB".into(),
        figure: format!(
            "{:.1} MiB ({:.1} MB)",
            rss.median(),
            rss.median() * 1.048_576
        ),
        met: rss.median() * 1.048_576 < 25.0,
    });
}

/// How many of the functions `link-order.txt` names `binary` has, as
/// `scripts/link-order.py --check` counts them: a build whose names moved
/// away from the recorded ones is laid out only in part.
fn laid_out(binary: &str) -> String {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/link-order.py");
    let checked = std::process::Command::new("python3")
        .args([script, "--check", binary])
        .output()
        .expect("python3 runs scripts/link-order.py --check");
    // "link-order: BINARY holds N of the M functions crates/... names"
    let said = String::from_utf8_lossy(&checked.stdout);
    said.split_once(" holds ")
        .and_then(|(_, count)| count.split_once(" functions"))
        .map(|(count, _)| count.replace(" the ", " "))
        .unwrap_or_else(|| {
            format!(
                "unknown ({})",
                String::from_utf8_lossy(&checked.stderr).trim()
            )
        })
}
