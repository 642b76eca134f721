//! Servers from an MCP registry (docs/cli.md, `mcp-sieve registry`): the
//! real command line against a registry of the v0.1 API on loopback
//! (`fixtures/registry/serve.py`) serving real servers' `server.json`
//! entries, a page of two servers at a time. Search follows every page;
//! show lists versions, packages and what an entry asks for; add pins the
//! version, writes npm, PyPI and OCI entries as commands and a remote as
//! its URL and header, keeps secrets in the keychain and the origin in the
//! entry. An npm server is added for real (`npx` from the npm registry)
//! and its tools listed through the proxy; a remote is reached through
//! `mcp-sieve serve --http`, which checks the header; a newer version is
//! announced; an unreachable registry is one sentence and a non-zero exit.

use serde_json::{Value, json};
use sieve_tests::Home;
use sieve_tests::http::HttpProxy;
use sieve_tests::keychain::Keychain;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

/// `serve.py` on a free loopback port; stopped when dropped.
struct Registry {
    child: Child,
    url: String,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Registry {
    /// Serves the fixtures and the entries of `extra`, two servers a page.
    fn start(extra: &[Value]) -> Registry {
        let dir = tempfile::tempdir().expect("temp dir");
        for (n, entry) in extra.iter().enumerate() {
            std::fs::write(
                dir.path().join(format!("extra-{n}.json")),
                entry.to_string(),
            )
            .unwrap();
        }
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/registry");
        let log = dir.path().join("requests.log");
        let mut child = Command::new("python3")
            .arg(fixtures.join("serve.py"))
            .arg(&fixtures)
            .arg(dir.path())
            .args(["--page-size", "2", "--log"])
            .arg(&log)
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs serve.py");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("serve.py says where it serves");
        let url = line
            .trim()
            .strip_prefix("serving ")
            .unwrap_or_else(|| panic!("serve.py said {line:?}"))
            .to_string();
        Registry {
            child,
            url,
            log,
            _dir: dir,
        }
    }

    fn requests(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect()
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A home whose `settings.registries` names `registry` first.
fn home_of(registry: &Registry) -> Home {
    let home = Home::new(BIN);
    let config = json!({"settings": {"registries": [registry.url, "http://127.0.0.1:9/unused"]}});
    home.write("config.json", &config.to_string());
    home
}

fn run(home: &Home, args: &[&str], env: &[(&str, &str)]) -> sieve_tests::Run {
    let mut command = home.command();
    command
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null());
    sieve_tests::Run::from(command.output().expect("the binary runs"))
}

fn config(home: &Home) -> Value {
    serde_json::from_str(&home.read("config.json")).expect("config.json is JSON")
}

#[test]
fn search_follows_every_page_and_lists_each_server_once() {
    let registry = Registry::start(&[]);
    let home = home_of(&registry);
    let found = run(&home, &["registry", "search", "io.github", "--json"], &[]).json();
    assert_eq!(found["registry"], registry.url.as_str(), "{found}");
    let names: Vec<&str> = found["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "io.github.github/github-mcp-server",
            "io.github.microsoft/playwright-mcp",
            "io.github.modelcontextprotocol/server-everything",
            "io.github.oraios/serena",
            "io.github.upstash/context7",
        ],
        "every server once, from every page"
    );
    let everything = &found["servers"][2];
    assert_eq!(everything["version"], "2026.8.31", "the latest version");
    let pages = registry
        .requests()
        .iter()
        .filter(|r| r.starts_with("/v0.1/servers?"))
        .count();
    assert_eq!(
        pages,
        3,
        "five servers two a page: {:?}",
        registry.requests()
    );

    // The text form, and a word nothing holds.
    let text = run(&home, &["registry", "search", "context7"], &[]);
    assert!(text.ok, "{}", text.stderr);
    assert!(
        text.stdout
            .starts_with("io.github.upstash/context7  1.0.0  Up-to-date"),
        "{}",
        text.stdout
    );
    let none = run(&home, &["registry", "search", "no-such-words"], &[]);
    assert!(none.ok && none.stdout.contains("has no server"), "{none:?}");
}

#[test]
fn show_lists_versions_packages_and_what_an_entry_asks_for() {
    let registry = Registry::start(&[]);
    let home = home_of(&registry);
    let name = "io.github.modelcontextprotocol/server-everything";
    let shown = run(&home, &["registry", "show", name, "--json"], &[]).json();
    assert_eq!(shown["versions"], json!(["2026.8.31", "2.0.0"]), "{shown}");
    assert_eq!(shown["latest"], "2026.8.31");
    assert_eq!(shown["source"], json!({"kind": "package", "index": 0}));
    let old = run(
        &home,
        &["registry", "show", name, "--version", "2.0.0", "--json"],
        &[],
    )
    .json();
    assert_eq!(old["entry"]["version"], "2.0.0");

    let github = run(
        &home,
        &["registry", "show", "io.github.github/github-mcp-server"],
        &[],
    );
    assert!(github.ok, "{}", github.stderr);
    assert!(
        github
            .stdout
            .contains("package: oci ghcr.io/github/github-mcp-server:0.20.1 over stdio (added)"),
        "{}",
        github.stdout
    );
    assert!(
        github
            .stdout
            .contains("asks: --arg token=VALUE   [required, secret]"),
        "{}",
        github.stdout
    );
    let missing = run(&home, &["registry", "show", "io.example/none"], &[]);
    assert!(!missing.ok, "{missing:?}");
    assert!(
        missing.stderr.contains("has no server \"io.example/none\""),
        "{}",
        missing.stderr
    );
}

#[test]
fn pypi_and_oci_entries_are_written_as_commands_their_secrets_kept_out() {
    let registry = Registry::start(&[]);
    let home = home_of(&registry);
    let file = [("MCP_SIEVE_SECRETS", "file")];

    // Not on a terminal, adding takes --yes; nothing is written without.
    let unasked = run(&home, &["registry", "add", "io.github.oraios/serena"], &[]);
    assert!(
        !unasked.ok && unasked.stderr.contains("--yes"),
        "{unasked:?}"
    );
    assert!(config(&home)["mcpServers"].is_null());

    // PyPI, with no uvx on PATH: written, and the missing runner named.
    let mut command = home.command();
    command
        .args(["registry", "add", "io.github.oraios/serena", "--yes"])
        .env("PATH", "/nonexistent")
        .stdin(Stdio::null());
    let serena = sieve_tests::Run::from(command.output().unwrap());
    assert!(serena.ok, "{}", serena.stderr);
    assert!(serena.stdout.contains("as \"serena\""), "{}", serena.stdout);
    assert!(
        serena.stderr.contains("uvx is not installed") && serena.stderr.contains("install uv"),
        "{}",
        serena.stderr
    );
    let entry = &config(&home)["mcpServers"]["serena"];
    assert_eq!(entry["command"], "uvx");
    assert_eq!(
        entry["args"],
        json!([
            "-p",
            "3.13",
            "start-mcp-server",
            "--project-from-cwd",
            "--context",
            "desktop-app",
            "serena-agent==1.7.0"
        ])
    );
    assert_eq!(entry["env"], json!({"UV_PYTHON_DOWNLOADS": "never"}));
    assert_eq!(
        entry["origin"],
        json!({"registry": registry.url, "name": "io.github.oraios/serena", "version": "1.7.0"})
    );

    // OCI: the required secret is refused by name until given.
    let github = "io.github.github/github-mcp-server";
    let refused = run(&home, &["registry", "add", github, "--yes"], &file);
    assert!(!refused.ok, "{refused:?}");
    assert_eq!(
        refused.stderr.trim(),
        "error: io.github.github/github-mcp-server needs the value \"token\"; give it with --arg token=VALUE"
    );
    let token = "ghp_registry_test_0b7e";
    let added = run(
        &home,
        &[
            "registry",
            "add",
            github,
            "--arg",
            &format!("token={token}"),
            "--yes",
            "--json",
        ],
        &file,
    )
    .json();
    assert_eq!(added["key"], "github", "{added}");
    let entry = &config(&home)["mcpServers"]["github"];
    assert_eq!(entry["command"], "docker");
    assert_eq!(
        entry["args"],
        json!([
            "run",
            "-i",
            "--rm",
            "-e",
            "GITHUB_PERSONAL_ACCESS_TOKEN",
            "ghcr.io/github/github-mcp-server:0.20.1"
        ])
    );
    assert_eq!(
        entry["env"]["GITHUB_PERSONAL_ACCESS_TOKEN"],
        "${secret:github/env/GITHUB_PERSONAL_ACCESS_TOKEN}"
    );
    assert!(!home.read("config.json").contains(token));
    assert!(
        added["command"]
            .as_str()
            .unwrap()
            .contains("GITHUB_PERSONAL_ACCESS_TOKEN=(secret)"),
        "{added}"
    );

    // --as never replaces an entry; without it a second one gets -2.
    let taken = run(
        &home,
        &[
            "registry", "add", github, "--arg", "token=x", "--as", "serena", "--yes",
        ],
        &file,
    );
    assert!(!taken.ok, "{taken:?}");
    assert!(
        taken
            .stderr
            .contains("there is a server \"serena\" already"),
        "{}",
        taken.stderr
    );
    assert_eq!(config(&home)["mcpServers"]["serena"]["command"], "uvx");
    let again = run(
        &home,
        &[
            "registry", "add", github, "--arg", "token=y", "--yes", "--json",
        ],
        &file,
    )
    .json();
    assert_eq!(again["key"], "github-2");
}

#[test]
fn a_secret_goes_to_the_system_keychain_never_to_a_file() {
    let registry = Registry::start(&[]);
    let home = home_of(&registry);
    let keychain = Keychain::start();
    let secret = "ctx7-key-5f2a-in-the-keychain";
    let added = run(
        &home,
        &[
            "registry",
            "add",
            "io.github.upstash/context7",
            "--env",
            &format!("CONTEXT7_API_KEY={secret}"),
            "--yes",
            "--json",
        ],
        &keychain.env(),
    )
    .json();
    assert_eq!(added["key"], "context7", "the short key: {added}");
    assert_eq!(
        added["secrets"][0]["secret"],
        "context7/env/CONTEXT7_API_KEY"
    );
    assert!(
        added["secrets"][0]["location"]
            .as_str()
            .unwrap()
            .contains("keychain"),
        "{added}"
    );
    let entry = &config(&home)["mcpServers"]["context7"];
    assert_eq!(entry["args"], json!(["-y", "@upstash/context7-mcp@1.0.26"]));
    assert_eq!(
        entry["env"]["CONTEXT7_API_KEY"],
        "${secret:context7/env/CONTEXT7_API_KEY}"
    );
    for file in sieve_tests::files_under(home.path()) {
        let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap()).into_owned();
        assert!(
            !text.contains(secret),
            "{} holds the secret",
            file.display()
        );
    }
}

#[test]
fn an_npm_server_added_for_real_lists_its_tools_through_the_proxy() {
    let registry = Registry::start(&[]);
    let home = home_of(&registry);
    let name = "io.github.modelcontextprotocol/server-everything";
    let added = run(
        &home,
        &[
            "registry",
            "add",
            name,
            "--version",
            "2026.8.31",
            "--as",
            "everything",
            "--yes",
            "--json",
        ],
        &[],
    )
    .json();
    assert_eq!(
        added["command"],
        "npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio"
    );
    // npx fetches the package from the npm registry (or its cache).
    let rows = run(&home, &["servers", "list", "--json"], &[]).json();
    let row = &rows[0];
    assert_eq!(row["name"], "everything", "{rows}");
    assert_eq!(row["state"], "up", "{rows}");
    assert!(row["tools"].as_u64().unwrap() >= 5, "{rows}");
    assert!(
        row.get("newerVersion").is_none(),
        "the latest was added: {rows}"
    );
    assert_eq!(row["origin"]["version"], "2026.8.31");
    let tools = run(&home, &["tools", "--json"], &[]).json();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["exposedName"].as_str())
        .collect();
    assert!(names.contains(&"everything__echo"), "{names:?}");
}

#[test]
fn a_remote_is_reached_with_its_header_and_a_newer_version_is_announced() {
    // The remote: MCP Sieve's own HTTP endpoint, which takes only its
    // bearer token, serving a demo server.
    let upstream = Home::new(BIN);
    let demo = json!({"mcpServers": {"demo": {"command": BIN, "args": ["demo-server"]}}});
    upstream.write("config.json", &demo.to_string());
    let proxy = HttpProxy::start(BIN, upstream.path());
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/registry/apify-0.17.4.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let at = |version: &str| {
        let mut entry = fixture.clone();
        entry["name"] = json!("io.example/apify-local");
        entry["version"] = json!(version);
        entry["remotes"][0]["url"] = json!(format!("{}/mcp", proxy.base));
        entry
    };
    let registry = Registry::start(&[at("0.17.3"), at("0.17.4")]);
    let home = home_of(&registry);
    let file = [("MCP_SIEVE_SECRETS", "file")];
    let bearer = format!("Authorization: Bearer {}", proxy.token);
    let added = run(
        &home,
        &[
            "registry",
            "add",
            "io.example/apify-local",
            "--version",
            "0.17.3",
            "--header",
            &bearer,
            "--yes",
            "--json",
        ],
        &file,
    )
    .json();
    assert_eq!(added["key"], "apify-local", "{added}");
    let wrong = run(
        &home,
        &[
            "registry",
            "add",
            "io.example/apify-local",
            "--as",
            "wrong",
            "--header",
            "Authorization: Bearer not-the-token",
            "--yes",
        ],
        &file,
    );
    assert!(wrong.ok, "{}", wrong.stderr);
    let entry = &config(&home)["mcpServers"]["apify-local"];
    assert_eq!(entry["url"], format!("{}/mcp", proxy.base));
    assert_eq!(
        entry["headers"]["Authorization"],
        "${secret:apify-local/headers/Authorization}"
    );
    assert!(!home.read("config.json").contains(&proxy.token));

    let rows = run(&home, &["servers", "list", "--json"], &file).json();
    let row = |name: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("no {name}: {rows}"))
            .clone()
    };
    let good = row("apify-local");
    assert_eq!(good["state"], "up", "{rows}");
    assert!(good["tools"].as_u64().unwrap() > 0, "{rows}");
    assert_eq!(good["newerVersion"], "0.17.4", "{rows}");
    let refused = row("wrong");
    assert_ne!(refused["state"], "up", "the header is checked: {rows}");
    assert!(refused.get("newerVersion").is_none(), "{rows}");
    let text = run(&home, &["servers", "list"], &file);
    assert!(
        text.stdout
            .contains("io.example/apify-local 0.17.4 is published (this is 0.17.3)"),
        "{}",
        text.stdout
    );
}

#[test]
fn an_unreachable_registry_is_one_sentence_and_everything_else_works() {
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let home = Home::new(BIN);
    let config = json!({
        "settings": {"registries": [closed]},
        "mcpServers": {"demo": {"command": BIN, "args": ["demo-server"],
            "origin": {"registry": closed, "name": "io.example/demo", "version": "1.0.0"}}}
    });
    home.write("config.json", &config.to_string());
    for args in [
        &["registry", "search", "demo"][..],
        &["registry", "show", "io.example/demo"],
        &["registry", "add", "io.example/demo", "--yes"],
    ] {
        let offline = run(&home, args, &[]);
        assert!(!offline.ok, "{args:?}: {offline:?}");
        let said = offline.stderr.trim();
        assert!(
            said.starts_with(&format!("error: the registry {closed} cannot be reached"))
                && said.ends_with("settings.registries")
                && said.lines().count() == 1,
            "{args:?}: {said}"
        );
    }
    let rows = run(&home, &["servers", "list", "--json"], &[]).json();
    assert_eq!(rows[0]["state"], "up", "{rows}");
    assert!(rows[0].get("newerVersion").is_none(), "{rows}");
}

/// Runs `args` on a terminal of its own (`script` gives it a pty); each
/// `(question, answer)` types the answer once the terminal shows the
/// question. Returns what the terminal showed.
fn on_a_terminal(home: &Home, args: &[&str], answers: &[(&str, &str)]) -> String {
    use std::io::{Read, Write};
    use std::sync::{Arc, Mutex};
    let mut line = format!("'{BIN}' --home '{}'", home.path().display());
    for arg in args {
        line.push_str(&format!(" '{arg}'"));
    }
    let mut child = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env("MCP_SIEVE_SECRETS", "file")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("script (util-linux) runs");
    let shown = Arc::new(Mutex::new(String::new()));
    let mut stdout = child.stdout.take().unwrap();
    let reader = {
        let shown = shown.clone();
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n @ 1..) = stdout.read(&mut buffer) {
                shown
                    .lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buffer[..n]));
            }
        })
    };
    let mut stdin = child.stdin.take().unwrap();
    for (question, answer) in answers {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !shown.lock().unwrap().contains(question) {
            assert!(
                std::time::Instant::now() < deadline,
                "the terminal never asked {question:?}: {}",
                shown.lock().unwrap()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        writeln!(stdin, "{answer}").unwrap();
    }
    drop(stdin);
    let status = child.wait().unwrap();
    reader.join().unwrap();
    let shown = shown.lock().unwrap().clone();
    assert!(status.code().is_some(), "{shown}");
    shown
}

#[test]
fn on_a_terminal_it_asks_for_the_secret_unseen_and_adds_only_when_told() {
    let registry = Registry::start(&[]);
    let home = home_of(&registry);
    let github = "io.github.github/github-mcp-server";
    let secret = "ghp_typed_on_the_terminal_33d1";
    let declined = on_a_terminal(
        &home,
        &["registry", "add", github],
        &[("token: ", secret), ("Add it?", "n")],
    );
    assert!(declined.contains("run as:"), "{declined}");
    assert!(
        declined.contains("docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN"),
        "{declined}"
    );
    assert!(declined.contains("nothing was added"), "{declined}");
    assert!(
        !declined.contains(secret),
        "the secret is not echoed: {declined}"
    );
    assert!(config(&home)["mcpServers"].is_null(), "nothing written");

    let accepted = on_a_terminal(
        &home,
        &["registry", "add", github],
        &[("token: ", secret), ("Add it?", "y")],
    );
    assert!(
        accepted.contains("added io.github.github/github-mcp-server 0.20.1 as \"github\""),
        "{accepted}"
    );
    assert!(!accepted.contains(secret), "{accepted}");
    assert!(!home.read("config.json").contains(secret));
    assert_eq!(
        config(&home)["mcpServers"]["github"]["env"]["GITHUB_PERSONAL_ACCESS_TOKEN"],
        "${secret:github/env/GITHUB_PERSONAL_ACCESS_TOKEN}"
    );
}
