//! `mcp-sieve hosts list|route|unroute` through the real binary, on a home
//! folder holding the real files of the hosts (the fixtures of
//! crates/sieve-store/tests/fixtures/hosts, each at its host's place):
//! their states, routing them all at once (each its own profile made from
//! what it had, its file down to `sieve` and what MCP Sieve cannot run for
//! it), routing again (not a byte changes), giving each its servers back,
//! a file that does not parse, a profile named by the person, and HTTP.
//! What routing does to each format is sieve-store's tests/hosts.rs; here
//! it is what the command line says and leaves on disk.

use serde_json::{Map, Value, json};
use sieve_store::hosts::{HostFile, HostKind};
use sieve_store::import::{is_server_key, server_key};
use sieve_tests::installed::mcp_sieve;
use sieve_tests::{Run, files_under};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

/// Where each host keeps its user file under the home folder, on Linux.
const PLACES: [(&str, &str); 15] = [
    (
        "claude-desktop",
        ".config/Claude/claude_desktop_config.json",
    ),
    ("claude-code", ".claude.json"),
    ("cursor", ".cursor/mcp.json"),
    ("vscode", ".config/Code/User/mcp.json"),
    ("windsurf", ".codeium/windsurf/mcp_config.json"),
    ("codex", ".codex/config.toml"),
    ("gemini", ".gemini/settings.json"),
    ("qwen", ".qwen/settings.json"),
    ("opencode", ".config/opencode/opencode.json"),
    ("zed", ".config/zed/settings.json"),
    ("lmstudio", ".lmstudio/mcp.json"),
    ("kiro", ".kiro/settings/mcp.json"),
    (
        "cline",
        ".config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
    ),
    ("continue", ".continue/config.yaml"),
    ("goose", ".config/goose/config.yaml"),
];

fn place(host: &str) -> &'static str {
    PLACES
        .iter()
        .find(|(id, _)| *id == host)
        .unwrap_or_else(|| panic!("no host {host}"))
        .1
}

fn fixture(host: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/sieve-store/tests/fixtures/hosts")
        .join(host)
}

/// A fixture's `expect.json`: the servers routing moves into config.json
/// and those it leaves in the file, in the file's order, and text of the
/// file that every rewrite keeps.
struct Expect {
    moved: Vec<String>,
    left: Vec<String>,
    kept: Vec<String>,
}

fn expect(host: &str) -> Expect {
    let path = fixture(host).join("expect.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let value: Value = serde_json::from_str(&text).expect("expect.json parses");
    let list = |key: &str| -> Vec<String> {
        serde_json::from_value(value[key].clone())
            .unwrap_or_else(|e| panic!("{}: {key}: {e}", path.display()))
    };
    Expect {
        moved: list("moved"),
        left: list("left"),
        kept: list("kept"),
    }
}

fn sorted(mut names: Vec<String>) -> Vec<String> {
    names.sort();
    names
}

/// A home folder with the files of some hosts, and an MCP Sieve home
/// beside it.
struct Machine {
    dir: tempfile::TempDir,
}

impl Machine {
    /// The fixture files of `hosts` at their places, and the `folders` of
    /// hosts that have none.
    fn new(hosts: &[&str], folders: &[&str]) -> Machine {
        let machine = Machine {
            dir: tempfile::tempdir().expect("a temporary folder"),
        };
        for host in hosts {
            let file = machine.file(host);
            let name = file.file_name().unwrap();
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::copy(fixture(host).join(name), &file)
                .unwrap_or_else(|e| panic!("{host}'s fixture {name:?}: {e}"));
        }
        for folder in folders {
            std::fs::create_dir_all(machine.home().join(folder)).unwrap();
        }
        // An empty PATH: a host's program on this machine must not count.
        std::fs::create_dir_all(machine.bin()).unwrap();
        machine
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn sieve_home(&self) -> PathBuf {
        self.dir.path().join("sieve")
    }

    fn bin(&self) -> PathBuf {
        self.dir.path().join("bin")
    }

    fn file(&self, host: &str) -> PathBuf {
        self.home().join(place(host))
    }

    fn read(&self, host: &str) -> String {
        std::fs::read_to_string(self.file(host))
            .unwrap_or_else(|e| panic!("cannot read {host}'s file: {e}"))
    }

    /// `mcp-sieve --home SIEVE ARGS`.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(mcp_sieve(BIN));
        command
            .arg("--home")
            .arg(self.sieve_home())
            .args(args)
            .env("PATH", self.bin())
            .env_remove("MCP_SIEVE_HOME")
            .env_remove("MCP_SIEVE_HOST_HOME");
        command
    }

    /// `mcp-sieve --home SIEVE hosts --host-home HOME ARGS`.
    fn hosts(&self, args: &[&str]) -> Output {
        let mut command = self.command(&["hosts", "--host-home"]);
        command.arg(self.home()).args(args);
        command.output().expect("mcp-sieve runs")
    }

    fn run_hosts(&self, args: &[&str]) -> Run {
        Run::from(self.hosts(args))
    }

    fn run(&self, args: &[&str]) -> Run {
        Run::from(self.command(args).output().expect("mcp-sieve runs"))
    }

    /// `hosts list --json`, by host id.
    fn list(&self) -> BTreeMap<String, Value> {
        let list = self.run_hosts(&["list", "--json"]).json();
        list.as_array()
            .unwrap_or_else(|| panic!("not a list: {list}"))
            .iter()
            .map(|host| (host["host"].as_str().unwrap().to_string(), host.clone()))
            .collect()
    }

    /// `profiles list --json`, by name.
    fn profiles(&self) -> BTreeMap<String, Value> {
        let list = self.run(&["profiles", "list", "--json"]).json();
        list.as_array()
            .unwrap()
            .iter()
            .map(|profile| {
                (
                    profile["name"].as_str().unwrap().to_string(),
                    profile.clone(),
                )
            })
            .collect()
    }

    /// The servers of `host`'s file as the file writes them.
    fn servers(&self, host: &str) -> Map<String, Value> {
        let kind: HostKind = host.parse().unwrap();
        HostFile::open(kind, &self.file(host))
            .and_then(|file| file.servers())
            .unwrap_or_else(|e| panic!("{host}'s file: {e}"))
            .into_iter()
            .collect()
    }

    /// Every file of both homes, with its bytes.
    fn snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        [self.home(), self.sieve_home()]
            .iter()
            .flat_map(|dir| files_under(dir))
            .map(|path| {
                let bytes = std::fs::read(&path).unwrap();
                (path, bytes)
            })
            .collect()
    }
}

/// The hosts whose fixtures the big machine holds: all but Windsurf, Kiro
/// and LM Studio, which is there by its folder alone.
const WITH_FILES: [&str; 12] = [
    "claude-desktop",
    "claude-code",
    "cursor",
    "vscode",
    "codex",
    "gemini",
    "qwen",
    "opencode",
    "zed",
    "cline",
    "continue",
    "goose",
];

#[test]
fn every_host_routed_at_once_routed_again_and_given_back() {
    let machine = Machine::new(&WITH_FILES, &[".lmstudio"]);
    let originals: BTreeMap<&str, Map<String, Value>> = WITH_FILES
        .iter()
        .map(|host| (*host, machine.servers(host)))
        .collect();

    // Before: each host with a file is installed with the servers it has,
    // LM Studio is installed with none, Windsurf and Kiro are absent.
    let before = machine.list();
    assert_eq!(
        before.keys().cloned().collect::<Vec<_>>(),
        sorted(PLACES.iter().map(|(id, _)| id.to_string()).collect())
    );
    for (id, status) in &before {
        assert_eq!(
            status["path"],
            json!(machine.file(id)),
            "{id} is looked for at its place"
        );
        assert_eq!(status["takesHttp"], id != "claude-desktop", "{status}");
        assert!(status.get("problem").is_none(), "{status}");
        let (state, servers) = if WITH_FILES.contains(&id.as_str()) {
            let expect = expect(id);
            ("installed", sorted([expect.moved, expect.left].concat()))
        } else if id == "lmstudio" {
            ("installed", Vec::new())
        } else {
            ("absent", Vec::new())
        };
        assert_eq!(status["state"], state, "{status}");
        let listed: Vec<String> = serde_json::from_value(status["servers"].clone()).unwrap();
        assert_eq!(sorted(listed), servers, "{id}'s servers");
    }
    let title = |id: &str| before[id]["title"].as_str().unwrap().to_string();
    let routed: Vec<&str> = WITH_FILES.iter().copied().chain(["lmstudio"]).collect();
    let mut renamed: Vec<String> = Vec::new();

    // Route all: a paragraph of sentences for each host that is there.
    let route = machine.run_hosts(&["route", "--all"]);
    assert!(route.ok, "{}", route.stderr);
    for id in &routed {
        let title = title(id);
        let mut said = route
            .stdout
            .split(&format!("{title} now goes through MCP Sieve"))
            .nth(1)
            .unwrap_or_else(|| panic!("nothing said of {title}:\n{}", route.stdout))
            .lines();
        assert_eq!(
            said.next(),
            Some(format!(" with profile {id} (made from what it had)").as_str()),
            "{}",
            route.stdout
        );
        let said: Vec<&str> = said.take_while(|line| line.starts_with("  ")).collect();
        let expect = if *id == "lmstudio" {
            Expect {
                moved: Vec::new(),
                left: Vec::new(),
                kept: Vec::new(),
            }
        } else {
            expect(id)
        };
        if !expect.moved.is_empty() {
            let moved = format!("  moved into config.json: {}", expect.moved.join(", "));
            assert!(said.contains(&moved.as_str()), "{title}: {said:#?}");
        }
        for name in &expect.left {
            let left = format!("  left {name:?} in its file: ");
            assert!(
                said.iter().any(|line| line.starts_with(&left)),
                "{title} says why {name} stays: {said:#?}"
            );
        }
        // A server added under a key other than its name (Continue's
        // "SQLite") is said, with the key.
        for line in said.iter().filter_map(|l| l.strip_prefix("  imported ")) {
            let (name, key) = line.split_once(" as ").expect("`imported NAME as KEY`");
            let name: String = serde_json::from_str(name).expect("the name quoted");
            let key = key.split(':').next().unwrap();
            assert!(expect.moved.contains(&name), "{title}: {line}");
            let short = server_key(&name);
            assert!(
                key == short || key.starts_with(&format!("{short}-")),
                "{title}: {name} is {key} in config.json: {line}"
            );
            assert!(is_server_key(key), "{title}: {line}");
            renamed.push(name);
        }
        let wrote = format!("  wrote {}", machine.file(id).display());
        assert!(said.contains(&wrote.as_str()), "{title}: {said:#?}");
        let restart = format!("  restart {title} to connect it");
        assert_eq!(said.last(), Some(&restart.as_str()), "{title}: {said:#?}");

        // Its file: MCP Sieve's entry and what it could not take, comments
        // and other settings kept.
        let mut names: Vec<String> = machine.servers(id).keys().cloned().collect();
        names.sort();
        let mut wanted = expect.left.clone();
        wanted.push("sieve".into());
        assert_eq!(names, sorted(wanted), "{id}'s file:\n{}", machine.read(id));
        for text in &expect.kept {
            assert!(
                machine.read(id).contains(text),
                "{id}'s file lost {text:?}:\n{}",
                machine.read(id)
            );
        }
        // Its profile, made from its servers, all in config.json.
        let profile = machine.run(&["profiles", "show", id, "--json"]).json();
        let servers = profile["servers"]
            .as_array()
            .unwrap_or_else(|| panic!("{id}'s profile names no servers: {profile}"));
        assert_eq!(servers.len(), expect.moved.len(), "{id}: {profile}");
    }
    assert!(
        renamed.contains(&"SQLite".to_string()),
        "Continue's \"SQLite\" is said to have a short key: {renamed:?}\n{}",
        route.stdout
    );
    for absent in ["windsurf", "kiro"] {
        assert!(!route.stdout.contains(&title(absent)), "{}", route.stdout);
        assert!(!machine.file(absent).exists(), "{absent} got a file");
    }
    let config: Value = serde_json::from_str(
        &std::fs::read_to_string(machine.sieve_home().join("config.json")).unwrap(),
    )
    .unwrap();
    let in_config = config["mcpServers"].as_object().unwrap();
    // config.json was empty: it holds exactly what the profiles name.
    let mut named: Vec<String> = Vec::new();
    for id in &routed {
        let profile = machine.run(&["profiles", "show", id, "--json"]).json();
        for server in profile["servers"].as_array().unwrap() {
            let server = server.as_str().unwrap().to_string();
            assert!(
                in_config.contains_key(&server),
                "{id}'s profile names {server}, which config.json lacks: {config}"
            );
            if !named.contains(&server) {
                named.push(server);
            }
        }
    }
    assert_eq!(
        sorted(named),
        sorted(in_config.keys().cloned().collect()),
        "config.json: {config}"
    );

    // Each host is routed with its own profile, which says so.
    let after = machine.list();
    let profiles = machine.profiles();
    for id in &routed {
        let status = &after[*id];
        assert_eq!(
            (&status["state"], &status["profile"], &status["transport"]),
            (&json!("routed"), &json!(id), &json!("stdio")),
            "{status}"
        );
        assert_eq!(profiles[*id]["usedBy"], json!([id]), "{}", profiles[*id]);
    }
    let text = machine.run_hosts(&["list"]);
    let line = |id: &str| {
        text.stdout
            .lines()
            .find(|line| line.starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("no line for {id}:\n{}", text.stdout))
            .to_string()
    };
    assert!(
        line("codex").contains("routed, profile codex (stdio)"),
        "{}",
        text.stdout
    );
    assert!(
        line("cursor").contains("routed, profile cursor (stdio), 1 other server(s)"),
        "{}",
        text.stdout
    );
    assert!(line("kiro").contains("absent"), "{}", text.stdout);

    // Routing again changes no byte of any file, and says so.
    let snapshot = machine.snapshot();
    let again = machine.run_hosts(&["route", "--all", "--json"]).json();
    for outcome in again.as_array().unwrap() {
        let report = &outcome["report"];
        assert_eq!(
            (&report["moved"], &report["write"]["changed"]),
            (&json!([]), &json!(false)),
            "{outcome}"
        );
    }
    let again = machine.run_hosts(&["route", "--all"]);
    assert!(again.ok, "{}", again.stderr);
    assert!(
        again
            .stdout
            .contains("Claude Code goes through MCP Sieve already, with profile claude-code\n"),
        "{}",
        again.stdout
    );
    assert!(
        machine.snapshot() == snapshot,
        "a second route --all changed files"
    );

    // Unroute gives each host the servers it had, as it had them.
    for id in &routed {
        let unroute = machine.run_hosts(&["unroute", id]);
        assert!(unroute.ok, "{}", unroute.stderr);
        let back = if *id == "lmstudio" {
            "none to give back".to_string()
        } else {
            expect(id).moved.join(", ")
        };
        assert!(
            unroute.stdout.starts_with(&format!(
                "{} has its own servers again: {back}\n",
                title(id)
            )),
            "{}",
            unroute.stdout
        );
        let servers = machine.servers(id);
        let original = originals.get(id).cloned().unwrap_or_default();
        assert_eq!(servers, original, "{id}'s servers after unroute");
    }
    let given_back = machine.list();
    let profiles = machine.profiles();
    for id in &routed {
        assert_eq!(given_back[*id]["state"], "installed", "{}", given_back[*id]);
        assert!(
            profiles[*id].get("usedBy").is_none(),
            "{id}'s profile stays, used by none: {}",
            profiles[*id]
        );
    }
}

#[test]
fn a_file_that_does_not_parse_is_named_and_left_as_it_is() {
    let machine = Machine::new(&["codex", "gemini", "qwen"], &[]);
    let whole = machine.read("qwen");
    let broken = &whole[..whole.find("\"github\"").expect("qwen's fixture has github")];
    std::fs::write(machine.file("qwen"), broken).unwrap();
    let path = machine.file("qwen").display().to_string();

    let listed = machine.list();
    let problem = listed["qwen"]["problem"].as_str().unwrap_or_default();
    assert!(
        problem.starts_with(&format!("{path} does not parse (JSON at line ")),
        "{}",
        listed["qwen"]
    );
    let text = machine.run_hosts(&["list"]);
    assert!(text.stdout.contains(problem), "{}", text.stdout);

    let route = machine.hosts(&["route", "--all"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&route.stdout),
        String::from_utf8_lossy(&route.stderr),
    );
    assert_eq!(route.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!("Qwen Code: not routed: {problem}\n")),
        "{stdout}"
    );
    assert_eq!(stderr, "error: qwen could not be routed; see above\n");
    assert_eq!(
        machine.read("qwen"),
        broken,
        "the broken file is left as it was"
    );
    assert!(
        !Path::new(&format!("{path}.bak")).exists(),
        "nothing was written beside it"
    );
    let listed = machine.list();
    for id in ["codex", "gemini"] {
        assert_eq!(listed[id]["state"], "routed", "{}", listed[id]);
    }

    let json = machine.hosts(&["route", "--all", "--json"]);
    assert_eq!(json.status.code(), Some(1));
    let outcomes: Value = serde_json::from_slice(&json.stdout).expect("JSON on stdout");
    let qwen = outcomes
        .as_array()
        .unwrap()
        .iter()
        .find(|outcome| outcome["host"] == "qwen")
        .unwrap_or_else(|| panic!("qwen is not in {outcomes}"));
    assert_eq!(
        qwen["error"],
        json!({"code": "broken_file", "message": problem}),
        "{qwen}"
    );

    let alone = machine.hosts(&["route", "qwen"]);
    assert_eq!(alone.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&alone.stderr),
        format!("error: {problem}\n")
    );
    assert_eq!(machine.read("qwen"), broken);
}

#[test]
fn a_host_routed_with_a_profile_that_exists_gets_it_as_it_is() {
    let machine = Machine::new(&["cursor"], &[]);
    assert!(machine.run(&["profiles", "new", "work"]).ok);
    let work = machine.sieve_home().join("profiles/work.json");
    let profile = std::fs::read(&work).unwrap();

    let route = machine.run_hosts(&["route", "cursor", "--profile", "work"]);
    assert!(route.ok, "{}", route.stderr);
    assert!(
        route
            .stdout
            .starts_with("Cursor now goes through MCP Sieve with profile work\n  moved into config.json: linear, postgres\n"),
        "{}",
        route.stdout
    );
    assert_eq!(
        std::fs::read(&work).unwrap(),
        profile,
        "work is used as it is"
    );
    let profiles = machine.profiles();
    assert_eq!(profiles["work"]["usedBy"], json!(["cursor"]));
    assert!(
        !profiles.contains_key("cursor"),
        "no profile made: {profiles:?}"
    );
    assert_eq!(machine.list()["cursor"]["profile"], "work");
    let sieve = &machine.servers("cursor")["sieve"];
    assert!(
        sieve.to_string().contains(r#""serve","--profile","work""#),
        "{sieve}"
    );

    // Routed again without naming it, the host keeps its profile.
    let again = machine.run_hosts(&["route", "cursor"]);
    assert!(
        again
            .stdout
            .starts_with("Cursor goes through MCP Sieve already, with profile work\n"),
        "{}",
        again.stdout
    );
    assert_eq!(std::fs::read(&work).unwrap(), profile);
}

#[test]
fn route_all_over_http_leaves_claude_desktop_on_stdio() {
    let machine = Machine::new(&["claude-desktop", "claude-code", "zed"], &[]);
    let route = machine.run_hosts(&[
        "route",
        "--all",
        "--http",
        "--url",
        "http://127.0.0.1:9/mcp",
    ]);
    assert!(route.ok, "{}", route.stderr);
    let token = machine.run(&["serve", "--print-token"]);
    let token = token.stdout.trim();
    let listed = machine.list();
    for (id, transport) in [
        ("claude-desktop", "stdio"),
        ("claude-code", "http"),
        ("zed", "http"),
    ] {
        assert_eq!(listed[id]["transport"], transport, "{}", listed[id]);
    }
    let sieve = machine.servers("claude-code")["sieve"].to_string();
    for part in [
        "http://127.0.0.1:9/mcp/p/claude-code".to_string(),
        format!("Bearer {token}"),
    ] {
        assert!(sieve.contains(&part), "{part} is not in {sieve}");
    }
}

/// `hosts list` says, per host, whether it already defers MCP tools
/// behind a tool search of its own and whether MCP Sieve's search mode is
/// worth offering (issue 34), in the text and in `--json`'s `toolSearch`.
#[test]
fn hosts_list_says_which_hosts_defer_tools_behind_their_own_search() {
    let machine = Machine::new(&[], &[]);
    let listed = machine.list();
    let claude = &listed["claude-code"]["toolSearch"];
    assert_eq!(claude["kind"], "defers", "{claude}");
    assert_eq!(claude["since"], "2.1.7", "{claude}");
    assert_eq!(claude["offerSearchMode"], false, "{claude}");
    assert!(
        claude["how"].as_str().unwrap().contains("ToolSearch"),
        "{claude}"
    );
    let gemini = &listed["gemini"]["toolSearch"];
    assert_eq!(gemini["kind"], "none", "{gemini}");
    assert_eq!(gemini["offerSearchMode"], true, "{gemini}");
    assert_eq!(listed["codex"]["toolSearch"]["kind"], "defers");
    assert_eq!(listed["codex"]["toolSearch"]["offerSearchMode"], false);
    assert_eq!(listed["qwen"]["toolSearch"]["kind"], "defers");
    assert_eq!(listed["opencode"]["toolSearch"]["kind"], "none");
    assert_eq!(listed["cursor"]["toolSearch"]["kind"], "unknown");
    // The status fields stay where they were.
    assert_eq!(listed["gemini"]["state"], "absent", "{}", listed["gemini"]);

    let text = machine.run_hosts(&["list"]);
    assert!(text.ok, "{}", text.stderr);
    let line = |host: &str| {
        text.stdout
            .lines()
            .skip_while(|l| !l.starts_with("Tool search"))
            .find(|l| l.starts_with(&format!("{host} ")))
            .unwrap_or_else(|| panic!("no advice for {host}: {}", text.stdout))
            .to_string()
    };
    assert!(
        line("claude-code")
            .contains("Claude Code defers MCP tools behind its own tool search (since 2.1.7)"),
        "{}",
        text.stdout
    );
    assert!(
        line("gemini").contains("\"disclosure\": \"search\""),
        "{}",
        text.stdout
    );
}
