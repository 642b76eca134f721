//! No change is lost when many processes change one home at once
//! (DESIGN §2): every change to `config.json`, a profile, `approvals.json`
//! and `secrets.json` is a read-modify-write under that file's lock.
//!
//! Eight processes at once: two `mcp-sieve servers import` loops (the
//! command line), three writers of one profile and two of `config.json`
//! and `secrets.json` through the library API (`edit-storm`, the functions
//! the app calls), 50 changes each, and a running `mcp-sieve serve --http`
//! that records the approvals of every server it sees appear. Afterwards
//! every one of the changes is there.

use serde_json::Value;
use sieve_tests::Home;
use sieve_tests::http::{DemoHttp, HttpProxy};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const BINARY: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");
const STORM: &str = env!("CARGO_BIN_EXE_edit-storm");
const CHANGES: usize = 50;

/// `prefix-0` .. `prefix-49`.
fn names(prefix: &str) -> BTreeSet<String> {
    (0..CHANGES).map(|i| format!("{prefix}-{i}")).collect()
}

fn json(home: &Home, relative: &str) -> Value {
    serde_json::from_str(&home.read(relative))
        .unwrap_or_else(|e| panic!("{relative} is not JSON: {e}"))
}

fn strings(value: &Value) -> BTreeSet<String> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {value}"))
        .iter()
        .map(|v| v.as_str().expect("a string").to_string())
        .collect()
}

fn keys(value: &Value) -> BTreeSet<String> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .cloned()
        .collect()
}

/// What of `wanted` is not in `found`, for an assertion's message.
fn missing(wanted: &BTreeSet<String>, found: &BTreeSet<String>) -> Vec<String> {
    wanted.difference(found).cloned().collect()
}

/// Runs `mcp-sieve servers import cursor` once per host file, in turn:
/// one writer of the command line, 50 changes.
fn import_loop(home: &Path, files: Vec<std::path::PathBuf>) -> std::thread::JoinHandle<()> {
    let home = home.to_path_buf();
    std::thread::spawn(move || {
        for file in files {
            let out = Command::new(BINARY)
                .arg("--home")
                .arg(&home)
                .args(["servers", "import", "cursor"])
                .arg(&file)
                .env_remove("MCP_SIEVE_HOME")
                .output()
                .expect("mcp-sieve runs");
            assert!(
                out.status.success(),
                "importing {} failed: {}",
                file.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    })
}

/// One `edit-storm` process: 50 changes of `kind` through the library.
fn storm(home: &Path, kind: &str, prefix: &str, arg: &str) -> std::thread::JoinHandle<()> {
    let mut command = Command::new(STORM);
    command
        .arg(home)
        .args([kind, prefix, &CHANGES.to_string(), arg])
        .env("MCP_SIEVE_SECRETS", "file");
    let what = format!("edit-storm {kind} {prefix}");
    std::thread::spawn(move || {
        let out = command.output().expect("edit-storm runs");
        assert!(
            out.status.success(),
            "{what} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    })
}

#[test]
fn eight_processes_changing_one_home_lose_no_change() {
    let home = Home::new(BINARY);
    let demo = DemoHttp::start(BINARY);
    // `vault` is never started: it only holds the env values moved into
    // the secret store.
    home.write(
        "config.json",
        r#"{"mcpServers": {"vault": {"command": "true", "disabled": true}}}"#,
    );
    home.write("profiles/work.json", "{}\n");
    let hosts = tempfile::tempdir().unwrap();
    let host_files = |prefix: &str| -> Vec<std::path::PathBuf> {
        names(prefix)
            .into_iter()
            .map(|name| {
                let path = hosts.path().join(format!("{name}.json"));
                // One URL each (the query is ignored by the demo): an
                // import skips a server that config.json has already.
                let url = format!("{}?server={name}", demo.url);
                let text = serde_json::json!({"mcpServers": {name: {"url": url}}});
                std::fs::write(&path, text.to_string()).unwrap();
                path
            })
            .collect()
    };
    let (files_a, files_b) = (host_files("imp-a"), host_files("imp-b"));
    // The eighth process: a proxy that sees every server appear and
    // records its approvals (trust on first use) while the others write.
    let _proxy = HttpProxy::start(BINARY, home.path());

    let writers = vec![
        import_loop(home.path(), files_a),
        import_loop(home.path(), files_b),
        storm(home.path(), "deny", "deny-a", "work"),
        storm(home.path(), "deny", "deny-b", "work"),
        storm(home.path(), "tag", "tag", "work"),
        storm(home.path(), "server", "add", &demo.url),
        storm(home.path(), "secret", "V", "vault"),
    ];
    for writer in writers {
        writer.join().expect("a writer failed");
    }

    let config = json(&home, "config.json");
    let servers = keys(&config["mcpServers"]);
    let http_servers: BTreeSet<String> = [names("imp-a"), names("imp-b"), names("add")]
        .into_iter()
        .flatten()
        .collect();
    let lost = missing(&http_servers, &servers);
    assert!(lost.is_empty(), "servers lost from config.json: {lost:?}");
    let env = &config["mcpServers"]["vault"]["env"];
    let secret_keys: BTreeSet<String> = (0..CHANGES).map(|i| format!("V_{i}")).collect();
    let lost = missing(&secret_keys, &keys(env));
    assert!(
        lost.is_empty(),
        "env entries lost from config.json: {lost:?}"
    );
    for key in &secret_keys {
        let value = env[key].as_str().expect("a string");
        assert!(
            value.starts_with("${secret:"),
            "{key} holds a reference, not {value:?}"
        );
    }
    let kept = keys(&json(&home, "secrets.json"));
    assert_eq!(kept.len(), CHANGES, "every secret is kept: {kept:?}");

    let work = json(&home, "profiles/work.json");
    let denied = strings(&work["tools"]["deny"]);
    for prefix in ["deny-a", "deny-b"] {
        let lost = missing(&names(prefix), &denied);
        assert!(lost.is_empty(), "deny patterns lost from work: {lost:?}");
    }
    let lost = missing(&names("tag"), &strings(&work["tags"]["none"]));
    assert!(lost.is_empty(), "excluded tags lost from work: {lost:?}");

    // The proxy approves each server once it has listed its tools; it may
    // still be connecting to the last ones.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let approved = std::fs::read_to_string(home.path().join("approvals.json"))
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .map(|approvals| keys(&approvals["servers"]))
            .unwrap_or_default();
        let lost = missing(&http_servers, &approved);
        if lost.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "servers whose approvals are not in approvals.json after 120 s: {lost:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}
