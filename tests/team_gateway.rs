//! The team gateway (DESIGN §12) with real parts: a PostgreSQL server of
//! the test's own, two `mcp-sieve serve --http` replicas sharing it
//! (`MCP_SIEVE_STATE`), the command line pointed at the same database, and
//! real clients (rmcp, Python `mcp`) as hosts.

use rmcp::model::{ServerNotification, SubscriptionFilter};
use serde_json::{Value, json};
use sieve_postgres::Database;
use sieve_postgres::testing::TestServer;
use sieve_tests::http::modern_host;
use sieve_tests::team::{Replica, cli, request};
use std::process::Command;
use std::time::{Duration, Instant};
use tokio::time::timeout;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");
const STORM: &str = env!("CARGO_BIN_EXE_edit-storm");
const WAIT: Duration = Duration::from_secs(30);

/// A team database whose config has the demo server, and its token.
fn team(server: &TestServer, name: &str) -> (String, String) {
    let url = server.database(name);
    let db = Database::connect(&url).expect("the database takes the schema");
    let config = json!({"mcpServers": {"demo": {"command": BIN, "args": ["demo-server"]}}});
    db.update_document::<sieve_postgres::DbError>("config.json", &mut |_| {
        Ok(Some(format!("{config:#}\n")))
    })
    .unwrap();
    db.update_document::<sieve_postgres::DbError>("profiles/billing.json", &mut |_| {
        Ok(Some("{\"groups\": [\"billing\"]}\n".into()))
    })
    .unwrap();
    let token = cli(BIN, &url, &["serve", "--print-token"])
        .trim()
        .to_string();
    (url, token)
}

async fn tool_count(host: &rmcp::service::RunningService<rmcp::RoleClient, ()>) -> usize {
    timeout(WAIT, host.peer().list_all_tools())
        .await
        .expect("tools/list answers in time")
        .expect("tools/list works")
        .len()
}

/// Runs the Python `mcp` client's `script` against `endpoint` at 2026-07-28.
fn python(endpoint: &str, token: &str, script: Value) -> Vec<Value> {
    sieve_tests::python_client(
        &[
            "--http",
            endpoint,
            "--header",
            &format!("Authorization: Bearer {token}"),
            "--protocol",
            "2026-07-28",
        ],
        &script,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_through_the_team_database_reaches_a_host_on_another_replica() {
    let server = TestServer::start();
    let (url, token) = team(&server, "live");
    let a = Replica::start(BIN, &url, &token);
    let b = Replica::start(BIN, &url, &token);
    a.until_listed(&["demo"]).await;
    b.until_listed(&["demo"]).await;
    let on_b = modern_host(b.url("/mcp"), &token).await;
    assert_eq!(
        tool_count(&on_b).await,
        40,
        "the demo's tools under default"
    );
    let filter = SubscriptionFilter::builder().tools_list_changed().build();
    let mut listening = timeout(WAIT, on_b.peer().listen(filter))
        .await
        .expect("the listen is acknowledged")
        .expect("the replica accepts the listen");

    // The active profile switched by the command line on the database.
    let started = Instant::now();
    cli(BIN, &url, &["profiles", "use", "billing"]);
    let heard = timeout(WAIT, listening.next())
        .await
        .expect("the switch reaches the host on B")
        .expect("the stream stays open")
        .expect("a notification");
    let took = started.elapsed();
    assert!(
        matches!(heard, ServerNotification::ToolListChangedNotification(_)),
        "{heard:?}"
    );
    eprintln!("list_changed on replica B {took:?} after the command line's change");
    assert!(
        took < Duration::from_secs(3),
        "within about a second: {took:?}"
    );
    assert_eq!(tool_count(&on_b).await, 8, "B serves the billing group now");
    let on_a = modern_host(a.url("/mcp"), &token).await;
    assert_eq!(tool_count(&on_a).await, 8, "and so does A");

    // A replica started later serves the state as it is now.
    let c = Replica::start(BIN, &url, &token);
    c.until_listed(&["demo"]).await;
    let on_c = modern_host(c.url("/mcp"), &token).await;
    assert_eq!(
        tool_count(&on_c).await,
        8,
        "C starts with the current state"
    );
    for h in [on_a, on_b, on_c] {
        h.cancel().await.expect("the host disconnects");
    }
}

#[test]
fn a_failed_call_through_one_replica_is_listed_and_retried_through_another() {
    let server = TestServer::start();
    let (url, token) = team(&server, "tasks");
    let a = Replica::start(BIN, &url, &token);
    let b = Replica::start(BIN, &url, &token);
    tokio::runtime::Runtime::new()
        .expect("a runtime")
        .block_on(a.until_listed(&["demo"]));
    let through_a = python(
        &a.url("/mcp"),
        &token,
        json!([{"op": "call_tool", "name": "demo__get_issue", "arguments": {"id": 999}}]),
    );
    assert_eq!(through_a[1]["result"]["isError"], true, "{through_a:?}");
    let listed = python(
        &b.url("/mcp"),
        &token,
        json!([{"op": "request", "method": "tasks/list", "params": {}}]),
    );
    let tasks = listed[1]["result"]["tasks"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(tasks.len(), 1, "B lists what A recorded: {listed:?}");
    assert_eq!(tasks[0]["status"], "failed");
    let id = tasks[0]["taskId"].as_str().unwrap().to_string();
    let retried = python(
        &b.url("/mcp"),
        &token,
        json!([
            {"op": "request", "method": "tasks/retry", "params": {"taskId": id}},
            {"op": "request", "method": "tasks/list", "params": {"orderBy": "createdAt", "order": "asc"}}
        ]),
    );
    assert!(
        retried[1].get("result").is_some(),
        "B retries A's entry: {retried:?}"
    );
    let all = retried[2]["result"]["tasks"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(all.len(), 2, "{retried:?}");
    assert_eq!(all[1]["_meta"]["dev.mcp-sieve/retryOf"], id.as_str());
    let again_from_a = python(
        &a.url("/mcp"),
        &token,
        json!([{"op": "request", "method": "tasks/list", "params": {}}]),
    );
    assert_eq!(
        again_from_a[1]["result"]["tasks"].as_array().map(Vec::len),
        Some(2),
        "A lists B's retry: {again_from_a:?}"
    );
}

#[test]
fn eight_writers_on_one_profile_through_the_team_database_lose_nothing() {
    let server = TestServer::start();
    let (url, token) = team(&server, "writers");
    let _a = Replica::start(BIN, &url, &token);
    let _b = Replica::start(BIN, &url, &token);
    let writers: Vec<_> = (0..8)
        .map(|w| {
            let url = url.clone();
            std::thread::spawn(move || {
                let home = tempfile::tempdir().unwrap();
                let out = Command::new(STORM)
                    .arg(home.path())
                    .args(["deny", &format!("w{w}"), "20", "billing"])
                    .env("MCP_SIEVE_STATE", &url)
                    .output()
                    .expect("edit-storm runs");
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    let shown = cli(BIN, &url, &["profiles", "show", "billing", "--json"]);
    let profile: Value = serde_json::from_str(&shown).unwrap();
    let denied = profile["tools"]["deny"].as_array().unwrap();
    assert_eq!(denied.len(), 160, "8 writers × 20 edits, none lost");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_keeps_serving_while_the_database_restarts_and_catches_up() {
    let server = TestServer::start();
    let (url, token) = team(&server, "restart");
    let a = Replica::start(BIN, &url, &token);
    a.until_listed(&["demo"]).await;
    let on_a = modern_host(a.url("/mcp/p/default"), &token).await;
    assert_eq!(tool_count(&on_a).await, 40);

    server.stop();
    for _ in 0..5 {
        assert_eq!(
            tool_count(&on_a).await,
            40,
            "the host is served from the last good state while the database is down"
        );
    }
    server.start_again();

    // Once the replica is back on the database, a change reaches it again.
    let on_billing = modern_host(a.url("/mcp/p/billing"), &token).await;
    let filter = SubscriptionFilter::builder().tools_list_changed().build();
    let mut listening = timeout(WAIT, on_billing.peer().listen(filter))
        .await
        .expect("the listen is acknowledged")
        .expect("the replica accepts the listen");
    // Each round changes what billing shows (demo__echo in and out of
    // the group), so each is a change its host must hear.
    let deadline = Instant::now() + WAIT;
    let mut n = 0;
    loop {
        n += 1;
        let action = if n % 2 == 1 { "add" } else { "remove" };
        cli(
            BIN,
            &url,
            &["labels", "group", action, "billing", "demo__echo"],
        );
        if let Ok(Ok(Some(_))) = timeout(Duration::from_millis(1500), listening.next()).await {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the replica hears changes again after the restart"
        );
    }
}

/// The entry of `tool` among `replica`'s `tasks/list`, if there is one.
fn listed_entry(replica: &Replica, token: &str, tool: &str) -> Option<Value> {
    let listed = python(
        &replica.url("/mcp"),
        token,
        json!([{"op": "request", "method": "tasks/list", "params": {}}]),
    );
    listed[1]["result"]["tasks"]
        .as_array()?
        .iter()
        .find(|t| t["_meta"]["dev.mcp-sieve/tool"] == tool)
        .cloned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_killed_mid_call_leaves_a_failed_entry_that_another_lists() {
    let server = TestServer::start();
    let (url, token) = team(&server, "killed");
    let a = Replica::start(BIN, &url, &token);
    let b = Replica::start(BIN, &url, &token);
    a.until_listed(&["demo"]).await;
    // A plain call of some 20 seconds through A, from a host of its own.
    let on_a = modern_host(a.url("/mcp"), &token).await;
    let arguments = json!({"steps": 50, "step_ms": 400});
    let call = rmcp::model::CallToolRequestParams::new("demo__reindex")
        .with_arguments(arguments.as_object().cloned().unwrap());
    let peer = on_a.peer().clone();
    let host = tokio::spawn(async move { peer.call_tool(call).await });
    let deadline = Instant::now() + WAIT;
    let running = loop {
        if let Some(entry) = listed_entry(&b, &token, "demo__reindex") {
            break entry;
        }
        assert!(
            Instant::now() < deadline,
            "B never listed A's call in flight"
        );
    };
    assert_eq!(running["status"], "working", "{running}");
    let id = running["taskId"].as_str().unwrap().to_string();

    let killed = Command::new("kill")
        .args(["-KILL", &a.proxy.pid().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success(), "replica A is killed");
    let answered = timeout(WAIT, host)
        .await
        .expect("the host hears that A is gone")
        .expect("the call's task ends");
    assert!(answered.is_err(), "A died before answering: {answered:?}");

    // B (the only one left) notices A's silence and marks its call.
    let deadline = Instant::now() + WAIT;
    let failed = loop {
        let entry = listed_entry(&b, &token, "demo__reindex").expect("the entry stays listed");
        assert_eq!(entry["taskId"], id.as_str(), "the same entry");
        if entry["status"] != "working" {
            break entry;
        }
        assert!(
            Instant::now() < deadline,
            "A's call was never marked: {entry}"
        );
    };
    assert_eq!(failed["status"], "failed", "{failed}");
    let message = failed["statusMessage"].as_str().unwrap_or_default();
    assert!(message.starts_with("cut off"), "{failed}");

    // And it can be retried through B.
    let retried = python(
        &b.url("/mcp"),
        &token,
        json!([{"op": "request", "method": "tasks/retry", "params": {"taskId": id}}]),
    );
    assert!(
        retried[1].get("result").is_some(),
        "B retries the cut-off call: {retried:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_kept_through_the_command_line_reaches_every_replica_sealed() {
    let deps = sieve_tests::deps::deps();
    let server = TestServer::start();
    let url = server.database("secrets");
    let db = Database::connect(&url).expect("the database takes the schema");
    let config = json!({"mcpServers": {"everything": {
        "command": deps.node22,
        "args": [deps.server_everything],
        "env": {"TEAM_TOKEN": "team-value-1234"}
    }}});
    db.update_document::<sieve_postgres::DbError>("config.json", &mut |_| {
        Ok(Some(format!("{config:#}\n")))
    })
    .unwrap();
    let key = [(
        "MCP_SIEVE_TEAM_KEY",
        "q3mX2f0Z8yQ1N0m2x1Q3n9s6t4r2p0o8i6u4y2t0r8E=",
    )];
    let kept = sieve_tests::team::cli_with(
        BIN,
        &url,
        &["servers", "secret", "everything", "TEAM_TOKEN"],
        &key,
    );
    assert!(kept.contains("team's database"), "{kept}");
    let text = db.read_document("config.json").unwrap().unwrap();
    assert!(!text.contains("team-value-1234"), "moved out: {text}");
    assert!(text.contains("${secret:"), "{text}");

    // Two replicas, each given the key: both start the server with it.
    let token = cli(BIN, &url, &["serve", "--print-token"])
        .trim()
        .to_string();
    for replica in [
        Replica::start_with(BIN, &url, &token, &key),
        Replica::start_with(BIN, &url, &token, &key),
    ] {
        replica.until_listed(&["everything"]).await;
        let host = modern_host(replica.url("/mcp"), &token).await;
        let env = timeout(
            WAIT,
            host.peer()
                .call_tool(rmcp::model::CallToolRequestParams::new(
                    "everything__get-env",
                )),
        )
        .await
        .expect("get-env answers in time")
        .expect("get-env works");
        let printed = serde_json::to_string(&env.content).unwrap();
        assert!(
            printed.contains("team-value-1234"),
            "the replica put the team's secret in the server's environment"
        );
        host.cancel().await.ok();
    }
}

/// `binary --state URL ARGS` from a home of its own, which may fail: its
/// exit status, standard output and standard error.
fn cli_run(url: &str, args: &[&str]) -> (bool, String, String) {
    let out = sieve_tests::team::run(BIN, url, args, &[]);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The entries `mcp-sieve --state URL tasks --json ARGS` lists.
fn cli_tasks(url: &str, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["tasks", "--json"];
    all.extend_from_slice(args);
    let page: Value = serde_json::from_str(&cli(BIN, url, &all)).expect("a JSON page");
    page["tasks"].as_array().cloned().expect("a page of tasks")
}

/// The command line's `tasks` on a team's database: it lists (with every
/// filter), shows, retries and cancels the entries two replicas wrote,
/// never this machine's own ledger; a task that failed says so rather
/// than what it said while it ran.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_lists_shows_retries_and_cancels_the_team_entries() {
    let server = TestServer::start();
    // A server every replica and the command line reach alike, so a task
    // one of them started can be cancelled by another.
    let shared = sieve_tests::http::DemoHttp::start(BIN);
    let url = server.database("cli_tasks");
    let db = Database::connect(&url).expect("the database takes the schema");
    let config = json!({"mcpServers": {
        "demo": {"command": BIN, "args": ["demo-server"]},
        "shared": {"type": "http", "url": shared.url},
    }});
    db.update_document::<sieve_postgres::DbError>("config.json", &mut |_| {
        Ok(Some(format!("{config:#}\n")))
    })
    .unwrap();
    let token = cli(BIN, &url, &["serve", "--print-token"])
        .trim()
        .to_string();
    let a = Replica::start(BIN, &url, &token);
    let b = Replica::start(BIN, &url, &token);
    a.until_listed(&["demo", "shared"]).await;
    b.until_listed(&["demo", "shared"]).await;

    // A failed call through each replica, a task that fails through A and
    // one that runs for a minute through B.
    let call = |name: &str, arguments: Value| json!({"name": name, "arguments": arguments});
    let (_, failed) = request(
        &a.url("/mcp"),
        &token,
        "tools/call",
        call("demo__get_issue", json!({"id": 999})),
    )
    .await;
    assert_eq!(failed["result"]["isError"], true, "{failed}");
    let (_, failed) = request(
        &b.url("/mcp"),
        &token,
        "tools/call",
        call("shared__get_invoice", json!({"id": "INV-9999"})),
    )
    .await;
    assert_eq!(failed["result"]["isError"], true, "{failed}");
    let (_, task) = request(
        &a.url("/mcp"),
        &token,
        "tools/call",
        call(
            "shared__run_job",
            json!({"duration_ms": 200, "outcome": "failure", "label": "nightly"}),
        ),
    )
    .await;
    let failing = task["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {task}"))
        .to_string();
    let (_, task) = request(
        &b.url("/mcp"),
        &token,
        "tools/call",
        call("shared__run_job", json!({"duration_ms": 60_000})),
    )
    .await;
    let long = task["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {task}"))
        .to_string();

    // The failing task ends; its entry says how, not "nightly is running".
    let deadline = Instant::now() + WAIT;
    let ended = loop {
        let (_, got) = request(
            &b.url("/mcp"),
            &token,
            "tasks/get",
            json!({"taskId": failing}),
        )
        .await;
        if got["result"]["status"] == "failed" {
            break got;
        }
        assert!(Instant::now() < deadline, "the task never failed: {got}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let message = ended["result"]["statusMessage"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.starts_with("failed") && message.contains("nightly failed"),
        "the status message of a failed task: {ended}"
    );

    // Listed by the command line on the database, with every filter.
    let all = cli_tasks(&url, &[]);
    assert_eq!(all.len(), 4, "both replicas' entries: {all:?}");
    let ids = |tasks: &[Value]| -> Vec<String> {
        let mut ids: Vec<String> = tasks
            .iter()
            .map(|t| t["taskId"].as_str().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    };
    let failed = cli_tasks(&url, &["--status", "failed"]);
    assert_eq!(failed.len(), 3, "{failed:?}");
    assert!(!ids(&failed).contains(&long));
    let entry = failed
        .iter()
        .find(|t| t["taskId"] == failing.as_str())
        .expect("the failed task is listed");
    assert_eq!(entry["statusMessage"], message, "{entry}");
    assert_eq!(cli_tasks(&url, &["--status", "working"]).len(), 1);
    assert_eq!(cli_tasks(&url, &["--server", "shared"]).len(), 3);
    assert_eq!(cli_tasks(&url, &["--server", "demo"]).len(), 1);
    assert_eq!(cli_tasks(&url, &["--method", "tools/call"]).len(), 4);
    assert_eq!(cli_tasks(&url, &["--since", "1h"]).len(), 4);
    assert!(cli_tasks(&url, &["--until", "1h"]).is_empty());
    assert!(cli_tasks(&url, &["--owner", "nobody"]).is_empty());
    let oldest = cli_tasks(&url, &["--order-by", "createdAt", "--asc", "--limit", "1"]);
    assert_eq!(oldest[0]["_meta"]["dev.mcp-sieve/tool"], "demo__get_issue");
    let table = cli(BIN, &url, &["tasks"]);
    assert!(table.contains(&long), "{table}");

    // One entry in full.
    let shown: Value = serde_json::from_str(&cli(BIN, &url, &["tasks", "show", &failing])).unwrap();
    assert_eq!(shown["taskId"], failing.as_str(), "{shown}");
    assert_eq!(shown["params"]["name"], "run_job", "{shown}");

    // A retry from the command line is a new entry the replicas list.
    let invoice = failed
        .iter()
        .find(|t| t["_meta"]["dev.mcp-sieve/tool"] == "shared__get_invoice")
        .and_then(|t| t["taskId"].as_str())
        .expect("the failed invoice call")
        .to_string();
    let (_, out, err) = cli_run(&url, &["tasks", "retry", &invoice]);
    assert!(out.contains(&format!("(retry of {invoice})")), "{out}{err}");
    let (_, listed) = request(
        &a.url("/mcp"),
        &token,
        "tasks/list",
        json!({"orderBy": "createdAt", "order": "desc", "limit": 1}),
    )
    .await;
    assert_eq!(
        listed["result"]["tasks"][0]["_meta"]["dev.mcp-sieve/retryOf"],
        invoice.as_str(),
        "{listed}"
    );

    // Cancelled from the command line, as replica A lists it.
    let (ok, out, err) = cli_run(&url, &["tasks", "cancel", &long]);
    assert!(ok, "{out}{err}");
    assert!(out.contains(&format!("cancelled {long}")), "{out}");
    let (_, got) = request(&a.url("/mcp"), &token, "tasks/get", json!({"taskId": long})).await;
    assert_eq!(got["result"]["status"], "cancelled", "{got}");

    // An id no replica wrote is not found in the database either.
    let (ok, _, err) = cli_run(&url, &["tasks", "show", "st-none"]);
    assert!(!ok);
    assert!(err.contains("there is no task \"st-none\""), "{err}");
}

/// Under `--state`, `serve` says the token is kept in the team's
/// database, where every replica finds it, not in a file of this machine.
#[test]
fn serve_says_the_team_token_is_in_the_database() {
    let server = TestServer::start();
    let (url, token) = team(&server, "token_message");
    let a = Replica::start(BIN, &url, &token);
    let said = a.proxy.wait_for_stderr("the token is kept in");
    assert!(
        said.contains("the team's database at postgres://"),
        "{said}"
    );
    assert!(
        said.contains("mcp-sieve --state URL serve --print-token"),
        "{said}"
    );
    assert!(!said.contains("http-token"), "no local file: {said}");
}
