//! The proxy in front of two real servers from npm, over stdio, as a host
//! runs them: Playwright MCP (`@playwright/mcp@0.0.79`, driving Debian's
//! chromium headless) and Desktop Commander
//! (`@wonderwhy-er/desktop-commander@0.2.52`, whose searches run ripgrep).
//!
//! For each: a host sees the tools the server itself lists, under exposed
//! names; `tools --server NAME --json` labels them live (derived groups
//! `SERVER/GROUP` with reasons, a `security` and a `cost` for every tool,
//! each with its reason); a host on a profile that keeps `security: high`
//! sees the reading tools only and is refused the others; real calls come
//! back with what is there; and a host leaving leaves no process behind,
//! the browser included.

use serde_json::{Value, json};
use sieve_tests::deps::deps;
use sieve_tests::wire::{Wire, tool_names};
use sieve_tests::{Home, python_client};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

/// The profile of a careful host: only tools that change nothing.
const CAREFUL: &str = r#"{"concerns": {"security": "high"}}"#;

/// One npm server as config.json runs it, with a folder of its own for its
/// HOME (what it keeps there stays out of the tester's) and its files.
struct Live {
    /// Its key in config.json: exposed names are `<key>__<tool>`.
    key: &'static str,
    args: Vec<String>,
    env: Vec<(&'static str, String)>,
    dir: tempfile::TempDir,
}

impl Live {
    fn new(key: &'static str) -> Live {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join("home")).unwrap();
        let home = dir.path().join("home").display().to_string();
        Live {
            key,
            args: Vec::new(),
            env: vec![("HOME", home)],
            dir,
        }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    /// A Sieve home whose one server is this one, with the profile
    /// `careful`.
    fn sieve_home(&self) -> Home {
        let home = Home::new(BIN);
        let env: serde_json::Map<String, Value> = self
            .env
            .iter()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect();
        let entry = json!({"command": deps().node22, "args": self.args, "env": env});
        home.write(
            "config.json",
            &json!({"mcpServers": {self.key: entry}}).to_string(),
        );
        home.write("profiles/careful.json", CAREFUL);
        home
    }

    /// The names of the tools the server lists to a client of its own (the
    /// Python `mcp` client), without the proxy.
    fn own_tools(&self) -> BTreeSet<String> {
        let command: Vec<String> = std::iter::once(deps().node22.display().to_string())
            .chain(self.args.iter().cloned())
            .map(|word| format!("'{}'", word.replace('\'', r"'\''")))
            .collect();
        let mut args = vec!["--stdio".to_string(), command.join(" ")];
        for (name, value) in &self.env {
            args.extend(["--env".to_string(), format!("{name}={value}")]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let lines = python_client(&args, &json!([{"op": "list_tools"}]));
        let tools = lines[1]["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{} lists its tools: {lines:?}", self.key));
        tools
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    }

    fn exposed(&self, tool: &str) -> String {
        format!("{}__{tool}", self.key)
    }
}

/// Playwright MCP on Debian's chromium: headless, without the sandbox
/// (the tests run as root), the profile in memory, its files in its folder.
fn playwright() -> Live {
    let mut live = Live::new("playwright");
    let deps = deps();
    live.args = vec![
        deps.playwright_mcp.display().to_string(),
        "--browser".into(),
        "chromium".into(),
        "--executable-path".into(),
        deps.chromium.display().to_string(),
        "--headless".into(),
        "--no-sandbox".into(),
        "--isolated".into(),
        "--output-dir".into(),
        live.path("out").display().to_string(),
    ];
    live
}

/// Desktop Commander, allowed into `work/` only, its telemetry off (by its
/// config and by its environment switch) and its onboarding done.
fn desktop_commander() -> Live {
    let mut live = Live::new("commander");
    let work = live.path("work");
    std::fs::create_dir(&work).unwrap();
    std::fs::write(
        work.join("notes.txt"),
        "first line\nthe sieve keeps a needle\n",
    )
    .unwrap();
    let config = live.path("home/.claude-server-commander/config.json");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let settings = json!({
        "allowedDirectories": [work],
        "telemetryEnabled": false,
        "welcomeOnboardingEligible": false,
        "pendingWelcomeOnboarding": false,
    });
    std::fs::write(config, settings.to_string()).unwrap();
    live.args = vec![deps().desktop_commander.display().to_string()];
    live.env
        .push(("DESKTOP_COMMANDER_DISABLE_TELEMETRY", "1".to_string()));
    live
}

/// `tools --server KEY --json` on the live server.
fn labels(home: &Home, live: &Live) -> Vec<Value> {
    let rows = home.run(&["tools", "--server", live.key, "--json"]).json();
    rows.as_array().expect("an array of tools").clone()
}

fn row<'a>(rows: &'a [Value], name: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {rows:#?}"))
}

/// What holds for any server: the labels cover the server's own tools,
/// each with a security and a cost and why, and each derived group is the
/// server's, with why.
fn labelled_live(rows: &[Value], live: &Live, own: &BTreeSet<String>) {
    let names: BTreeSet<String> = rows
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(&names, own, "tools --server shows the server's own tools");
    let mut grouped = 0;
    for row in rows {
        let name = row["name"].as_str().unwrap();
        assert_eq!(row["exposedName"], live.exposed(name), "{row:#}");
        for (concern, values) in [
            ("security", ["high", "medium", "low"]),
            ("cost", ["minimal", "moderate", "high"]),
        ] {
            let value = row["concerns"][concern].as_str().unwrap_or_default();
            assert!(
                values.contains(&value),
                "{name} has a {concern} value: {:#}",
                row["concerns"]
            );
            let reason = row["concernReasons"][concern].as_str().unwrap_or_default();
            assert!(
                reason.starts_with(&format!("{concern} {value}: ")),
                "{name} says why its {concern} is {value}: {:#}",
                row["concernReasons"]
            );
        }
        for group in row["derivedGroups"].as_array().into_iter().flatten() {
            let group = group.as_str().unwrap();
            assert!(
                group.starts_with(&format!("{}/", live.key)),
                "{name}'s derived group {group} is written SERVER/GROUP"
            );
            assert!(
                row["groupReasons"][group]
                    .as_str()
                    .is_some_and(|r| !r.is_empty()),
                "{name} says why it is in {group}: {row:#}"
            );
            grouped += 1;
        }
    }
    assert!(
        grouped * 2 > rows.len(),
        "most of {}'s tools fall into a derived group ({grouped} of {})",
        live.key,
        rows.len()
    );
}

/// Checks `tool`'s value for each concern in `expected`.
fn concerns_are(rows: &[Value], tool: &str, expected: &[(&str, &str)]) {
    let row = row(rows, tool);
    for (concern, value) in expected {
        assert_eq!(
            row["concerns"][concern], *value,
            "{tool}'s {concern}: {:#}",
            row["concernReasons"]
        );
    }
}

fn in_group(rows: &[Value], tool: &str, group: &str) {
    let row = row(rows, tool);
    assert!(
        row["derivedGroups"]
            .as_array()
            .is_some_and(|g| g.iter().any(|g| g == group)),
        "{tool} is in the derived group {group}: {:#}",
        row["groupReasons"]
    );
}

/// The exposed names of the tools a host on `careful` must see: those the
/// labels mark `security: high`.
fn reading_tools(rows: &[Value], live: &Live) -> BTreeSet<String> {
    rows.iter()
        .filter(|r| r["concerns"]["security"] == "high")
        .map(|r| live.exposed(r["name"].as_str().unwrap()))
        .collect()
}

fn listed(response: &Value) -> BTreeSet<String> {
    tool_names(response).into_iter().collect()
}

async fn call(host: &mut Wire, name: &str, arguments: Value) -> Value {
    host.request("tools/call", json!({"name": name, "arguments": arguments}))
        .await
}

/// The text of a call that went through; panics on an error.
fn text(response: &Value) -> String {
    assert!(
        response.get("error").is_none() && response["result"]["isError"] != true,
        "the call went through: {response}"
    );
    response["result"]["content"]
        .as_array()
        .unwrap_or_else(|| panic!("a call result: {response}"))
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn refused(response: &Value, tool: &str) {
    let message = response["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("hidden by profile \"careful\""),
        "{tool} is refused under the careful profile: {response}"
    );
}

/// A web page on a free loopback port, the answer to every request, for
/// as long as the test runs.
fn serve_page(html: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let url = format!("http://{}/", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            // The request's head ends with an empty line; its content does
            // not matter.
            let mut reader = BufReader::new(&stream);
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                line.clear();
            }
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{html}",
                html.len()
            );
        }
    });
    url
}

#[tokio::test(flavor = "multi_thread")]
async fn playwright_mcp_through_the_proxy() {
    let live = playwright();
    let own = live.own_tools();
    for tool in ["browser_navigate", "browser_snapshot", "browser_click"] {
        assert!(own.contains(tool), "Playwright MCP lists {tool}: {own:?}");
    }
    let home = live.sieve_home();

    let rows = labels(&home, &live);
    labelled_live(&rows, &live, &own);
    for (tool, security) in [
        ("browser_snapshot", "high"),
        ("browser_console_messages", "high"),
        ("browser_navigate", "low"),
        ("browser_click", "low"),
        ("browser_evaluate", "low"),
    ] {
        concerns_are(&rows, tool, &[("security", security)]);
    }
    concerns_are(&rows, "browser_snapshot", &[("cost", "moderate")]);
    concerns_are(&rows, "browser_close", &[("cost", "minimal")]);
    in_group(
        &rows,
        "browser_network_requests",
        "playwright/network-requests",
    );
    in_group(
        &rows,
        "browser_network_request",
        "playwright/network-requests",
    );

    // A host on the default profile: every tool, and a real page.
    let url = serve_page(
        "<!doctype html><title>Sieve test page</title><h1>Hello through the sieve</h1><p>Seven filtered words</p>",
    );
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let exposed: BTreeSet<String> = own.iter().map(|t| live.exposed(t)).collect();
    assert_eq!(
        listed(&host.listing(&[live.key]).await),
        exposed,
        "the host sees the server's own tools, exposed"
    );
    let navigated = text(
        &call(
            &mut host,
            "playwright__browser_navigate",
            json!({"url": url}),
        )
        .await,
    );
    assert!(
        navigated.contains("Page Title: Sieve test page"),
        "the browser opened the page: {navigated}"
    );
    let snapshot = text(&call(&mut host, "playwright__browser_snapshot", json!({})).await);
    for seen in [
        "heading \"Hello through the sieve\"",
        "Seven filtered words",
    ] {
        assert!(
            snapshot.contains(seen),
            "the snapshot shows {seen}: {snapshot}"
        );
    }
    host.close_leaving_nothing().await;

    // A careful host: the reading tools only, and no navigation.
    let mut host = Wire::start(BIN, home.path(), &["--profile", "careful"], json!({})).await;
    let kept = listed(&host.listing(&[live.key]).await);
    assert_eq!(
        kept,
        reading_tools(&rows, &live),
        "security high keeps the read-only tools"
    );
    assert!(kept.contains("playwright__browser_snapshot"), "{kept:?}");
    for hidden in [
        "playwright__browser_navigate",
        "playwright__browser_evaluate",
    ] {
        assert!(!kept.contains(hidden), "{hidden} is hidden: {kept:?}");
    }
    refused(
        &call(
            &mut host,
            "playwright__browser_navigate",
            json!({"url": url}),
        )
        .await,
        "browser_navigate",
    );
    let blank = text(&call(&mut host, "playwright__browser_snapshot", json!({})).await);
    assert!(
        blank.contains("about:blank"),
        "a new browser, never sent anywhere: {blank}"
    );
    host.close_leaving_nothing().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn desktop_commander_through_the_proxy() {
    let live = desktop_commander();
    let own = live.own_tools();
    for tool in ["read_file", "write_file", "start_search", "kill_process"] {
        assert!(
            own.contains(tool),
            "Desktop Commander lists {tool}: {own:?}"
        );
    }
    let home = live.sieve_home();

    let rows = labels(&home, &live);
    labelled_live(&rows, &live, &own);
    for (tool, security) in [
        ("read_file", "high"),
        ("list_directory", "high"),
        ("start_search", "high"),
        ("create_directory", "medium"),
        ("write_file", "low"),
        ("kill_process", "low"),
        ("set_config_value", "low"),
    ] {
        concerns_are(&rows, tool, &[("security", security)]);
    }
    concerns_are(&rows, "read_file", &[("cost", "moderate")]);
    concerns_are(&rows, "kill_process", &[("cost", "minimal")]);
    in_group(&rows, "read_file", "commander/files");
    in_group(&rows, "write_file", "commander/files");
    in_group(&rows, "start_search", "commander/searches");
    in_group(&rows, "kill_process", "commander/processes");

    // A host on the default profile: every tool; it reads, writes and
    // searches the work folder.
    let work = live.path("work");
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let exposed: BTreeSet<String> = own.iter().map(|t| live.exposed(t)).collect();
    assert_eq!(
        listed(&host.listing(&[live.key]).await),
        exposed,
        "the host sees the server's own tools, exposed"
    );
    let notes = work.join("notes.txt");
    let read = text(&call(&mut host, "commander__read_file", json!({"path": notes})).await);
    assert!(
        read.contains("the sieve keeps a needle"),
        "read_file: {read}"
    );
    let written = work.join("written.txt");
    text(
        &call(
            &mut host,
            "commander__write_file",
            json!({"path": written, "content": "written through the proxy\n"}),
        )
        .await,
    );
    assert_eq!(
        std::fs::read_to_string(&written).expect("write_file wrote the file"),
        "written through the proxy\n"
    );
    let found = search(&mut host, &work, "needle").await;
    // ripgrep's match: the file, the line, the matched text.
    assert!(
        found.contains("(1 matches)") && found.contains("notes.txt:2 - needle"),
        "the search found the one needle: {found}"
    );
    host.close_leaving_nothing().await;

    // A careful host: it reads, and may not write.
    let mut host = Wire::start(BIN, home.path(), &["--profile", "careful"], json!({})).await;
    let kept = listed(&host.listing(&[live.key]).await);
    assert_eq!(
        kept,
        reading_tools(&rows, &live),
        "security high keeps the read-only tools"
    );
    for shown in ["commander__read_file", "commander__start_search"] {
        assert!(kept.contains(shown), "{shown} is kept: {kept:?}");
    }
    for hidden in [
        "commander__write_file",
        "commander__kill_process",
        "commander__start_process",
    ] {
        assert!(!kept.contains(hidden), "{hidden} is hidden: {kept:?}");
    }
    let refused_path = work.join("refused.txt");
    refused(
        &call(
            &mut host,
            "commander__write_file",
            json!({"path": refused_path, "content": "never"}),
        )
        .await,
        "write_file",
    );
    assert!(!refused_path.exists(), "a refused write writes nothing");
    let read = text(&call(&mut host, "commander__read_file", json!({"path": written})).await);
    assert!(read.contains("written through the proxy"), "{read}");
    host.close_leaving_nothing().await;
}

/// Starts a content search of `folder` for `pattern` and follows it to its
/// end; returns what it found.
async fn search(host: &mut Wire, folder: &Path, pattern: &str) -> String {
    let started = text(
        &call(
            host,
            "commander__start_search",
            json!({"path": folder, "pattern": pattern, "searchType": "content"}),
        )
        .await,
    );
    let session = started
        .lines()
        .find_map(|l| l.strip_prefix("Started content search session: "))
        .unwrap_or_else(|| panic!("start_search names its session: {started}"))
        .trim()
        .to_string();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let more = text(
            &call(
                host,
                "commander__get_more_search_results",
                json!({"sessionId": session}),
            )
            .await,
        );
        if more.contains("Search completed") {
            return more;
        }
        assert!(
            Instant::now() < deadline,
            "the search ends within 30 s: {more}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
