//! The hosts' own programs as the judges of what `mcp-sieve hosts route`
//! writes (DESIGN §11, docs/hosts-programs.md): `claude` (Claude Code),
//! `codex`, `gemini`, `qwen` and `opencode`, pinned and installed by
//! scripts/host-programs.sh, which names their folder in
//! `MCP_SIEVE_HOST_BIN`.
//!
//! Each host starts from its own user file (its fixture, other settings
//! and comments kept) whose two servers work offline: `github` runs the
//! demo server over stdio, `context7` is the demo server over HTTP. The
//! program lists both, connected; after `hosts route` it lists `sieve`
//! alone, connected over stdio, and after `hosts route --http` to a running
//! proxy, connected over HTTP with the bearer token; after `hosts unroute`
//! it lists its two servers again. `codex mcp list` does not connect, so
//! for Codex the judge of the connection is its app server
//! (`mcpServerStatus/list`), and `codex mcp list --json` of the entry.

use serde_json::{Value, json};
use sieve_tests::http::{DemoHttp, HttpProxy};
use sieve_tests::installed::mcp_sieve;
use sieve_tests::{Run, procs};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

/// How long one run of a program may take. They take seconds
/// (docs/hosts-programs.md); this only ends a hang.
const PATIENCE: Duration = Duration::from_secs(120);

/// The fixtures' servers, in the order of their files, and the URL of the
/// HTTP one.
const SERVERS: [&str; 2] = ["github", "context7"];
const CONTEXT7: &str = "https://mcp.context7.com/mcp";

/// The programs the judges need, `node` for the Node ones among them.
const PROGRAMS: [&str; 6] = ["claude", "codex", "gemini", "qwen", "opencode", "node"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Host {
    ClaudeCode,
    Codex,
    Gemini,
    Qwen,
    Opencode,
}

impl Host {
    fn id(self) -> &'static str {
        match self {
            Host::ClaudeCode => "claude-code",
            Host::Codex => "codex",
            Host::Gemini => "gemini",
            Host::Qwen => "qwen",
            Host::Opencode => "opencode",
        }
    }

    fn program(self) -> &'static str {
        match self {
            Host::ClaudeCode => "claude",
            Host::Codex => "codex",
            Host::Gemini => "gemini",
            Host::Qwen => "qwen",
            Host::Opencode => "opencode",
        }
    }

    /// Its user file, under the home folder.
    fn place(self) -> &'static str {
        match self {
            Host::ClaudeCode => ".claude.json",
            Host::Codex => ".codex/config.toml",
            Host::Gemini => ".gemini/settings.json",
            Host::Qwen => ".qwen/settings.json",
            Host::Opencode => ".config/opencode/opencode.json",
        }
    }
}

/// The folder of the hosts' programs, each of [`PROGRAMS`] in it.
fn programs() -> PathBuf {
    sieve_tests::installed::host_programs(&PROGRAMS)
}

/// What a program said of one server.
#[derive(Debug)]
struct Listed {
    connected: bool,
    /// Its line (opencode: with the lines under it; codex: its status).
    says: String,
    /// The tools it reached, by name (codex's app server only).
    tools: Vec<String>,
}

/// A program's list: the servers by name, and everything it printed.
struct Listing {
    servers: BTreeMap<String, Listed>,
    printed: String,
}

/// One host's machine: its home folder with its user file, MCP Sieve's
/// home, and the demo server over HTTP that the file's `context7` names.
struct Machine {
    host: Host,
    programs: PathBuf,
    dir: tempfile::TempDir,
    _demo: DemoHttp,
}

impl Machine {
    fn new(host: Host) -> Machine {
        let programs = programs();
        let dir = tempfile::tempdir().expect("a temporary folder");
        let demo = DemoHttp::start(BIN);
        // The fixture runs `github-mcp-server stdio`; here that is a script
        // that runs the demo server.
        let github = dir.path().join("bin/github-mcp-server");
        std::fs::create_dir_all(github.parent().unwrap()).unwrap();
        std::fs::write(&github, format!("#!/bin/sh\nexec '{BIN}' demo-server\n")).unwrap();
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&github, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../crates/sieve-store/tests/fixtures/hosts")
            .join(host.id())
            .join(Path::new(host.place()).file_name().unwrap());
        let text = std::fs::read_to_string(&fixture)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", fixture.display()));
        assert!(
            text.contains("github-mcp-server") && text.contains(CONTEXT7),
            "{} no longer has the github and context7 servers this test stands in for",
            fixture.display()
        );
        let text = text
            .replace("github-mcp-server", &github.display().to_string())
            .replace(CONTEXT7, &demo.url);
        let machine = Machine {
            host,
            programs,
            dir,
            _demo: demo,
        };
        let file = machine.home().join(host.place());
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::create_dir_all(machine.sieve_home()).unwrap();
        std::fs::write(&file, text).unwrap();
        machine
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn sieve_home(&self) -> PathBuf {
        self.dir.path().join("sieve")
    }

    /// `mcp-sieve --home SIEVE hosts --host-home HOME ARGS --json`.
    fn hosts(&self, args: &[&str]) -> Value {
        let mut command = Command::new(mcp_sieve(BIN));
        command
            .arg("--home")
            .arg(self.sieve_home())
            .arg("hosts")
            .arg("--host-home")
            .arg(self.home())
            .args(args)
            .arg("--json")
            .env_remove("MCP_SIEVE_HOME");
        let what = format!("mcp-sieve hosts {}", args.join(" "));
        Run::from(finish(command, &what)).json()
    }

    /// The host's program in the environment of docs/hosts-programs.md:
    /// nothing of this machine's but `PATH` (the programs' folder first, for
    /// their Node 22), the host's home as `HOME` and working directory, and
    /// each program's switches for running unattended and offline.
    fn program(&self, name: &str) -> Command {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let path = std::env::join_paths(
            std::iter::once(self.programs.clone()).chain(std::env::split_paths(&path)),
        )
        .expect("PATH joins");
        let mut command = Command::new(self.programs.join(name));
        command
            .env_clear()
            .current_dir(self.home())
            .env("HOME", self.home())
            .env("PATH", path)
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
            .env("GEMINI_CLI_NO_RELAUNCH", "true")
            .env("QWEN_USAGE_STATISTICS_ENABLED", "0")
            .env("MCP_SIEVE_LOG", "warn,rmcp=error");
        command
    }

    /// The host's servers as its program lists them.
    fn list(&self) -> Listing {
        let program = self.host.program();
        if self.host == Host::Codex {
            return self.codex_status();
        }
        let mut command = self.program(program);
        command.args(["mcp", "list"]);
        let output = finish(command, &format!("{program} mcp list"));
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let printed = format!("{stdout}{stderr}");
        assert!(
            output.status.success(),
            "{program} mcp list failed ({}):\n{printed}",
            output.status
        );
        let servers = match self.host {
            Host::ClaudeCode => claude_list(&stdout),
            // Gemini prints its list on stderr.
            Host::Gemini => gemini_list(&stderr),
            Host::Qwen => gemini_list(&stdout),
            Host::Opencode => opencode_list(&stdout),
            Host::Codex => unreachable!("codex lists through its app server"),
        };
        Listing { servers, printed }
    }

    /// Lists the servers and checks that they are `names`, each connected.
    fn expect(&self, names: &[&str], when: &str) -> BTreeMap<String, Listed> {
        let program = self.host.program();
        let listing = self.list();
        let mut wanted: Vec<&str> = names.to_vec();
        wanted.sort_unstable();
        let seen: Vec<&str> = listing.servers.keys().map(String::as_str).collect();
        assert_eq!(
            seen, wanted,
            "{program} {when} lists other servers than it should:\n{}",
            listing.printed
        );
        for (name, listed) in &listing.servers {
            assert!(
                listed.connected,
                "{program} {when} does not connect to {name}: {}\n{}",
                listed.says, listing.printed
            );
        }
        listing.servers
    }

    /// `mcpServerStatus/list` of `codex app-server`, which starts every
    /// server of the file and says what each answered. `--strict-config`
    /// makes a key Codex does not know in the file an error, not a warning.
    fn codex_status(&self) -> Listing {
        let stderr = self.dir.path().join("codex-app-server.stderr");
        let mut child = self
            .program("codex")
            .args(["app-server", "--strict-config"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .expect("codex app-server starts");
        let mut stdin = child.stdin.take().unwrap();
        for message in [
            json!({"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "sieve-tests", "version": "0"}}}),
            json!({"method": "initialized"}),
            json!({"id": 2, "method": "mcpServerStatus/list", "params": {}}),
        ] {
            writeln!(stdin, "{message}").expect("codex app-server reads its stdin");
        }
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Ok(message) = serde_json::from_str::<Value>(&line)
                    && message["id"] == 2
                {
                    let _ = tx.send(message);
                }
            }
        });
        let answer = rx.recv_timeout(PATIENCE);
        let _ = child.kill();
        let _ = child.wait();
        let answer = answer.unwrap_or_else(|_| {
            panic!(
                "codex app-server gave no answer to mcpServerStatus/list within {PATIENCE:?}; it printed:\n{}",
                std::fs::read_to_string(&stderr).unwrap_or_default()
            )
        });
        let servers = answer["result"]["data"]
            .as_array()
            .unwrap_or_else(|| panic!("no result.data in {answer}"))
            .iter()
            .map(|server| {
                let name = server["name"].as_str().unwrap_or_default().to_string();
                let tools = server["tools"]
                    .as_object()
                    .map(|tools| tools.keys().cloned().collect())
                    .unwrap_or_default();
                let listed = Listed {
                    connected: server["serverInfo"].is_object() && server["toolsError"].is_null(),
                    says: format!(
                        "serverInfo {}, toolsError {}",
                        server["serverInfo"], server["toolsError"]
                    ),
                    tools,
                };
                (name, listed)
            })
            .collect();
        Listing {
            servers,
            printed: answer.to_string(),
        }
    }

    /// The transport of `name` as `codex mcp list --json` parsed it.
    fn codex_transport(&self, name: &str) -> Value {
        let mut command = self.program("codex");
        command.args(["mcp", "list", "--json"]);
        let run = Run::from(finish(command, "codex mcp list --json"));
        let list = run.json();
        list.as_array()
            .and_then(|servers| servers.iter().find(|server| server["name"] == name))
            .unwrap_or_else(|| panic!("codex mcp list --json has no {name}: {list}"))["transport"]
            .clone()
    }

    /// Codex's app server reached MCP Sieve and, through it, the tools of
    /// both servers the profile made from Codex's own has.
    fn expect_codex_tools(&self, sieve: &Listed, when: &str) {
        assert!(
            sieve.says.contains(r#""name":"mcp-sieve""#),
            "codex {when}: {}",
            sieve.says
        );
        for server in SERVERS {
            let prefix = format!("{server}__");
            let count = sieve
                .tools
                .iter()
                .filter(|t| t.starts_with(&prefix))
                .count();
            assert_eq!(
                count, 40,
                "codex {when}: {server}'s tools: {:?}",
                sieve.tools
            );
        }
        assert_eq!(sieve.tools.len(), 80, "codex {when}: {:?}", sieve.tools);
    }
}

/// Runs `command` to its end with nothing on stdin, or fails the test
/// when it takes longer than [`PATIENCE`].
fn finish(mut command: Command, what: &str) -> Output {
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what} does not start: {e}"));
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(PATIENCE) {
        Ok(output) => output.unwrap_or_else(|e| panic!("{what}: {e}")),
        Err(_) => {
            procs::crash(pid);
            panic!("{what} did not finish within {PATIENCE:?}");
        }
    }
}

/// `NAME: COMMAND OR URL - ✔ Connected`, one line a server.
fn claude_list(stdout: &str) -> BTreeMap<String, Listed> {
    stdout
        .lines()
        .filter_map(|line| {
            let (name, rest) = line.split_once(": ")?;
            let (_, status) = rest.rsplit_once(" - ")?;
            let listed = Listed {
                connected: status == "✔ Connected",
                says: line.to_string(),
                tools: Vec::new(),
            };
            Some((name.to_string(), listed))
        })
        .collect()
}

/// Gemini's and Qwen's `✓ NAME: COMMAND OR URL (stdio) - Connected`.
fn gemini_list(printed: &str) -> BTreeMap<String, Listed> {
    strip_colours(printed)
        .lines()
        .filter_map(|line| {
            let (mark, rest) = line.split_once(' ')?;
            if !["✓", "✗", "○", "●"].contains(&mark) {
                return None;
            }
            let (name, _) = rest.split_once(": ")?;
            let listed = Listed {
                connected: mark == "✓" && line.ends_with(" - Connected"),
                says: line.to_string(),
                tools: Vec::new(),
            };
            Some((name.to_string(), listed))
        })
        .collect()
}

/// opencode's `●  ✓ NAME connected`, its command or URL on a line under it.
fn opencode_list(stdout: &str) -> BTreeMap<String, Listed> {
    let mut servers: BTreeMap<String, Listed> = BTreeMap::new();
    let mut current = None;
    for line in strip_colours(stdout).lines() {
        if let Some(rest) = line.strip_prefix('●') {
            let words: Vec<&str> = rest.split_whitespace().collect();
            if let [mark, name, status @ ..] = words.as_slice() {
                let listed = Listed {
                    connected: *mark == "✓" && status == ["connected"],
                    says: line.to_string(),
                    tools: Vec::new(),
                };
                servers.insert(name.to_string(), listed);
                current = Some(name.to_string());
            }
        } else if let (Some(name), Some(detail)) = (&current, line.strip_prefix('│')) {
            let detail = detail.trim();
            if let Some(listed) = servers.get_mut(name)
                && !detail.is_empty()
            {
                listed.says.push_str(" | ");
                listed.says.push_str(detail);
            }
        }
    }
    servers
}

/// The text without its ANSI colour codes (qwen and opencode colour even
/// into a pipe).
fn strip_colours(text: &str) -> String {
    let mut plain = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            plain.push(c);
        } else if chars.next() == Some('[') {
            // A control sequence ends with a byte from '@' to '~'.
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        }
    }
    plain
}

/// The whole story for one host: its own servers, routed over stdio, over
/// HTTP, and given back.
fn judge(host: Host) {
    let machine = Machine::new(host);
    let id = host.id();
    let program = host.program();
    machine.expect(&SERVERS, "before routing");

    let routed = machine.hosts(&["route", id]);
    assert_eq!(routed["moved"], json!(SERVERS), "{routed}");
    let listed = machine.expect(&["sieve"], "routed over stdio");
    let sieve = mcp_sieve(BIN);
    let sieve_home = machine.sieve_home();
    if host == Host::Codex {
        let transport = machine.codex_transport("sieve");
        assert_eq!(
            (
                &transport["type"],
                &transport["command"],
                &transport["args"]
            ),
            (
                &json!("stdio"),
                &json!(sieve),
                &json!(["--home", sieve_home, "serve", "--profile", id])
            ),
            "{transport}"
        );
        machine.expect_codex_tools(&listed["sieve"], "routed over stdio");
    } else {
        let command = format!(
            "{} --home {} serve --profile {id}",
            sieve.display(),
            sieve_home.display()
        );
        assert!(
            listed["sieve"].says.contains(&command),
            "{program} routed over stdio should run {command}: {}",
            listed["sieve"].says
        );
    }

    let proxy = HttpProxy::start(sieve.to_str().unwrap(), &sieve_home);
    let base = format!("{}/mcp", proxy.base);
    let routed = machine.hosts(&["route", id, "--http", "--url", &base]);
    assert_eq!(routed["moved"], json!([]), "{routed}");
    let url = format!("{base}/p/{id}");
    let listed = machine.expect(&["sieve"], "routed over HTTP");
    if host == Host::Codex {
        let transport = machine.codex_transport("sieve");
        assert_eq!(
            (
                &transport["type"],
                &transport["url"],
                &transport["http_headers"]
            ),
            (
                &json!("streamable_http"),
                &json!(url),
                &json!({"Authorization": format!("Bearer {}", proxy.token)})
            ),
            "{transport}"
        );
        machine.expect_codex_tools(&listed["sieve"], "routed over HTTP");
    } else {
        assert!(
            listed["sieve"].says.contains(&url),
            "{program} routed over HTTP should connect to {url}: {}",
            listed["sieve"].says
        );
    }

    let unrouted = machine.hosts(&["unroute", id]);
    assert_eq!(unrouted["restored"], json!(SERVERS), "{unrouted}");
    machine.expect(&SERVERS, "unrouted");
}

#[test]
fn claude_code_judges_the_routed_file() {
    judge(Host::ClaudeCode);
}

#[test]
fn codex_judges_the_routed_file() {
    judge(Host::Codex);
}

#[test]
fn gemini_judges_the_routed_file() {
    judge(Host::Gemini);
}

#[test]
fn qwen_judges_the_routed_file() {
    judge(Host::Qwen);
}

#[test]
fn opencode_judges_the_routed_file() {
    judge(Host::Opencode);
}
