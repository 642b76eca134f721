//! `tools/call` through each way a host can reach an upstream's `echo`:
//! calls per second and p50/p99, at 1 and at 32 concurrent callers on one
//! connection (a host with many calls in flight), each way beside the
//! direct one of its transport with the ratio.

use crate::Plan;
use crate::clients::{self, Client, SIEVE, Spawned, Upstream};
use crate::report::{Table, ms, quantile, ratio};
use rmcp::model::CallToolRequestParams;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Callers in flight at once in the concurrent runs.
const CONCURRENT: usize = 32;

/// What one run of calls gave.
#[derive(Debug, Clone)]
struct Calls {
    per_second: f64,
    p50: Duration,
    p99: Duration,
}

/// `total` calls of `tool` spread over `callers` tasks on `client`, after
/// a warm-up; every call must succeed.
async fn measure(
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
    let wall = started.elapsed();
    times.sort();
    Calls {
        per_second: total as f64 / wall.as_secs_f64(),
        p50: quantile(&times, 0.50),
        p99: quantile(&times, 0.99),
    }
}

/// `total` sequential calls from the Python `mcp` client (httpx, one
/// kept-alive connection) to an HTTP way.
fn python_calls(
    url: &str,
    token: Option<&str>,
    tool: &str,
    arguments: &serde_json::Value,
    total: usize,
) -> Calls {
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
    let millis =
        |key: &str| Duration::from_secs_f64(line[key].as_f64().expect("a number") / 1000.0);
    Calls {
        per_second: line["perSecond"].as_f64().expect("a number"),
        p50: millis("p50Ms"),
        p99: millis("p99Ms"),
    }
}

/// One way to reach the upstream, ready to be called.
struct Way {
    label: String,
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
            command = Command::new(SIEVE);
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

async fn ways(upstream: &Upstream) -> Vec<Way> {
    let mut ways = Vec::new();
    let entry = vec![(upstream.name.to_string(), upstream.program.config_entry())];
    let proxied = format!("{}__{}", upstream.name, upstream.echo);

    ways.push(Way {
        label: "direct, stdio".into(),
        base: "direct, stdio",
        client: clients::stdio(&upstream.program, &[]).await,
        tool: upstream.echo.into(),
        http: None,
        _keep: Vec::new(),
    });
    let home = clients::sieve_home(&entry);
    ways.push(Way {
        label: "mcp-sieve serve, stdio".into(),
        base: "direct, stdio",
        client: clients::stdio(&clients::serve(&home, &[]), &[]).await,
        tool: proxied.clone(),
        http: None,
        _keep: vec![Box::new(home)],
    });

    let (server, url) = direct_http(upstream);
    ways.push(Way {
        label: "direct, its own HTTP".into(),
        base: "direct, its own HTTP",
        client: clients::http(&url, None).await,
        tool: upstream.echo.into(),
        http: Some((url, None)),
        _keep: vec![Box::new(server)],
    });
    let home = clients::sieve_home(&entry);
    let (proxy, url) = clients::sieve_http(&home);
    let token = proxy.token.clone();
    ways.push(Way {
        label: "mcp-sieve serve --http".into(),
        base: "direct, its own HTTP",
        client: clients::http(&url, Some(&token)).await,
        tool: proxied,
        http: Some((url, Some(token))),
        // The proxy ends before its home goes.
        _keep: vec![Box::new(proxy), Box::new(home)],
    });
    let (peer, url, tool) = crate::peer::start(upstream);
    ways.push(Way {
        label: format!("{} (HTTP)", crate::peer::NAME),
        base: "direct, its own HTTP",
        client: clients::http(&url, None).await,
        tool,
        http: Some((url, None)),
        _keep: vec![Box::new(peer)],
    });
    ways
}

pub async fn run(plan: &Plan) {
    let sequential = plan.size(3_000, 150);
    let concurrent = plan.size(20_000, 320);
    let mut table = Table::new(
        format!(
            "tools/call of echo: {sequential} calls by 1 caller, {concurrent} by {CONCURRENT} callers on one connection (after 20 warm-up calls); ms"
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
    let python_total = plan.size(1_000, 100);
    let mut python = Table::new(
        format!(
            "tools/call of echo from the Python mcp client (httpx, one kept-alive connection), {python_total} sequential calls after 20; ms"
        ),
        &["upstream", "way", "calls/s", "p50", "p99", "vs direct"],
    );
    for upstream in [Upstream::everything(), Upstream::demo()] {
        let ways = ways(&upstream).await;
        let mut over_python: Vec<(String, Calls)> = Vec::new();
        for way in &ways {
            if let Some((url, token)) = &way.http {
                let calls = python_calls(
                    url,
                    token.as_deref(),
                    &way.tool,
                    &upstream.echo_arguments,
                    python_total,
                );
                over_python.push((way.label.clone(), calls));
            }
        }
        let base = over_python[0].1.per_second;
        for (label, calls) in &over_python {
            python.row(vec![
                upstream.name.into(),
                label.clone(),
                format!("{:.0}", calls.per_second),
                ms(calls.p50),
                ms(calls.p99),
                ratio(calls.per_second, base),
            ]);
        }
        let mut results: Vec<(String, &'static str, Calls, Calls)> = Vec::new();
        for way in &ways {
            let one = measure(
                &way.client,
                &way.tool,
                &upstream.echo_arguments,
                1,
                sequential,
            )
            .await;
            let many = measure(
                &way.client,
                &way.tool,
                &upstream.echo_arguments,
                CONCURRENT,
                concurrent,
            )
            .await;
            results.push((way.label.clone(), way.base, one, many));
        }
        for (label, base, one, many) in &results {
            let direct = results
                .iter()
                .find(|(l, ..)| l == base)
                .expect("the direct way of the transport was measured");
            table.row(vec![
                upstream.name.into(),
                label.clone(),
                format!("{:.0}", one.per_second),
                ms(one.p50),
                ms(one.p99),
                ratio(one.per_second, direct.2.per_second),
                format!("{:.0}", many.per_second),
                ms(many.p50),
                ms(many.p99),
                ratio(many.per_second, direct.3.per_second),
            ]);
        }
        for way in ways {
            let _ = way.client.cancel().await;
        }
    }
    table.print();
    python.print();
    println!(
        "\n\"vs direct\" is calls per second through the way over calls per second direct on the same transport (1.00× = no cost; higher is faster)."
    );
}
