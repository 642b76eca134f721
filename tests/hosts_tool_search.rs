//! What `hosts list` and the Connect screen say of a host's own tool
//! search (issue 34), judged by the host's own program: Claude Code,
//! Codex CLI, Qwen Code and opencode, pinned by
//! scripts/host-programs.sh, each given MCP Sieve
//! over stdio (serving the demo server) and a model endpoint of this test
//! that records each request and refuses it. The program's first request
//! to the model shows whether it sent the MCP tools or deferred them
//! behind a search tool of its own, and `hosts list --json` must say the
//! same.

use serde_json::{Value, json};
use sieve_tests::Home;
use sieve_tests::installed::host_programs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

/// How long one run of a program may take; it takes seconds, this only
/// ends a hang.
const PATIENCE: Duration = Duration::from_secs(120);

/// A model endpoint on loopback: every request's path and JSON body kept,
/// every request answered 400, so the program gives up after its first
/// attempts.
struct ModelEndpoint {
    url: String,
    requests: Arc<Mutex<Vec<(String, Value)>>>,
}

impl ModelEndpoint {
    fn start() -> ModelEndpoint {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests: Arc<Mutex<Vec<(String, Value)>>> = Arc::default();
        let kept = requests.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = kept.clone();
                std::thread::spawn(move || {
                    if let Some(request) = read_request(&stream) {
                        kept.lock().unwrap().push(request);
                    }
                    refuse(stream);
                });
            }
        });
        ModelEndpoint { url, requests }
    }

    /// The first request to `path` that offers the model tools.
    fn first_with_tools(&self, path: &str) -> Value {
        let requests = self.requests.lock().unwrap();
        requests
            .iter()
            .find(|(at, body)| at.starts_with(path) && body.get("tools").is_some())
            .map(|(_, body)| body.clone())
            .unwrap_or_else(|| {
                let seen: Vec<&String> = requests.iter().map(|(at, _)| at).collect();
                panic!("no request to {path} offered tools; requests: {seen:?}")
            })
    }
}

/// One HTTP/1.1 request: its path and its body as JSON.
fn read_request(stream: &TcpStream) -> Option<(String, Value)> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1)?.to_string();
    let mut length = 0;
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok()?;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((path, serde_json::from_slice(&body).unwrap_or(Value::Null)))
}

fn refuse(mut stream: TcpStream) {
    let body = r#"{"type":"error","error":{"type":"invalid_request_error","message":"this endpoint only records requests"}}"#;
    let _ = write!(
        stream,
        "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// MCP Sieve's home with the demo server, and the entry a host runs it by.
fn sieve_home() -> Home {
    let home = Home::new(BIN);
    home.write(
        "config.json",
        &json!({"mcpServers": {"demo": {"command": BIN, "args": ["demo-server"]}}}).to_string(),
    );
    home
}

/// Runs `command` to its end (or kills it past [`PATIENCE`]); what it
/// printed, for messages.
fn run(mut command: Command) -> String {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the host's program starts");
    let started = Instant::now();
    while child.try_wait().expect("waits").is_none() {
        if started.elapsed() > PATIENCE {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let output = child.wait_with_output().expect("its output");
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// What `hosts list --json` says of `host`'s own tool search.
fn said_of(home: &Home, host: &str, user_home: &Path) -> Value {
    let listed = home
        .command()
        .args(["hosts", "list", "--json", "--host-home"])
        .arg(user_home)
        .output()
        .expect("hosts list runs");
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let listed: Value = serde_json::from_slice(&listed.stdout).expect("JSON");
    listed
        .as_array()
        .expect("a list of hosts")
        .iter()
        .find(|h| h["host"] == host)
        .unwrap_or_else(|| panic!("{host} is not in hosts list"))["toolSearch"]
        .clone()
}

/// The names of the tools a request offers: `name` (Codex's namespaces
/// by theirs), `function.name` in Chat Completions, else the `type`.
fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|tool| {
            tool["name"]
                .as_str()
                .or(tool["function"]["name"].as_str())
                .or(tool["type"].as_str())
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// Claude Code offers the model its ToolSearch and names the MCP tools
/// without their schemas; `hosts list` says it defers and offers no search
/// mode.
#[test]
fn claude_code_defers_mcp_tools_as_hosts_list_says() {
    let dir = host_programs(&["claude", "node"]);
    let home = sieve_home();
    let user = tempfile::tempdir().unwrap();
    let model = ModelEndpoint::start();
    let entry = json!({"mcpServers": {"sieve": {
        "type": "stdio",
        "command": BIN,
        "args": ["--home", home.path(), "serve"],
    }}});
    let mut claude = Command::new(dir.join("claude"));
    claude
        .args(["-p", "hello", "--strict-mcp-config", "--mcp-config"])
        .arg(entry.to_string())
        .current_dir(user.path())
        .env("HOME", user.path())
        .env("PATH", path_with(&dir))
        .env("ANTHROPIC_API_KEY", "sk-ant-test-not-a-key")
        .env("ANTHROPIC_BASE_URL", &model.url)
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env_remove("ENABLE_TOOL_SEARCH");
    let printed = run(claude);

    let request = model.first_with_tools("/v1/messages");
    let tools = offered(&request);
    let text = request.to_string();
    assert!(
        text.contains("mcp__sieve__demo__"),
        "the program reached MCP Sieve's tools: {printed}"
    );
    assert!(
        tools.iter().all(|name| !name.starts_with("mcp__sieve__")),
        "no MCP tool's schema is offered: {tools:?}"
    );
    assert!(
        tools.iter().any(|name| name == "ToolSearch"),
        "its own search is: {tools:?}"
    );

    let said = said_of(&home, "claude-code", user.path());
    assert_eq!(said["kind"], "defers", "{said}");
    assert_eq!(said["offerSearchMode"], false, "{said}");
}

/// Codex CLI, with a model it knows to search (gpt-5.5), offers
/// `tool_search` and lists the MCP server as a deferred namespace; with a
/// model it has no metadata for, it offers every MCP tool. `hosts list`
/// says it defers and offers no search mode.
#[test]
fn codex_defers_mcp_tools_for_the_models_it_knows_as_hosts_list_says() {
    let dir = host_programs(&["codex", "node"]);
    let home = sieve_home();
    let user = tempfile::tempdir().unwrap();
    let codex_home = user.path().join("codex");
    let first = |model_name: &str| {
        let model = ModelEndpoint::start();
        std::fs::create_dir_all(&codex_home).unwrap();
        let config = format!(
            r#"model = "{model_name}"
model_provider = "recorder"

[model_providers.recorder]
name = "recorder"
base_url = "{url}/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[mcp_servers.sieve]
command = {bin}
args = ["--home", {home}, "serve"]
"#,
            url = model.url,
            bin = json!(BIN),
            home = json!(home.path()),
        );
        std::fs::write(codex_home.join("config.toml"), config).unwrap();
        let mut codex = Command::new(dir.join("codex"));
        codex
            .args(["exec", "--skip-git-repo-check", "hello"])
            .current_dir(user.path())
            .env("HOME", user.path())
            .env("CODEX_HOME", &codex_home)
            .env("PATH", path_with(&dir))
            .env("OPENAI_API_KEY", "sk-test-not-a-key");
        let printed = run(codex);
        (model.first_with_tools("/v1/responses"), printed)
    };

    let (request, printed) = first("gpt-5.5");
    let tools = offered(&request);
    assert!(
        tools.iter().any(|name| name == "tool_search"),
        "its own search is offered: {tools:?}\n{printed}"
    );
    assert!(
        !tools.iter().any(|name| name == "mcp__sieve"),
        "MCP Sieve's tools are not: {tools:?}"
    );
    assert!(
        request.to_string().contains("- mcp__sieve"),
        "MCP Sieve is a deferred namespace: {printed}"
    );

    let (request, _) = first("a-model-codex-does-not-know");
    let sieve = request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "mcp__sieve")
        .unwrap_or_else(|| panic!("every MCP tool is offered: {:?}", offered(&request)));
    assert!(
        !sieve["tools"].as_array().expect("its tools").is_empty(),
        "{sieve}"
    );

    let said = said_of(&home, "codex", user.path());
    assert_eq!(said["kind"], "defers", "{said}");
    assert_eq!(said["offerSearchMode"], false, "{said}");
    assert!(
        said["how"].as_str().unwrap().contains("no metadata"),
        "{said}"
    );
}

/// Qwen Code keeps MCP tools behind its `tool_search` and `tool_call`
/// bridge, naming them in the prompt; `hosts list` says it defers.
#[test]
fn qwen_code_defers_mcp_tools_as_hosts_list_says() {
    let dir = host_programs(&["qwen", "node"]);
    let home = sieve_home();
    let user = tempfile::tempdir().unwrap();
    let model = ModelEndpoint::start();
    let settings = json!({
        "mcpServers": {"sieve": {"command": BIN, "args": ["--home", home.path(), "serve"]}},
        "security": {"auth": {"selectedType": "openai"}},
    });
    std::fs::create_dir_all(user.path().join(".qwen")).unwrap();
    std::fs::write(
        user.path().join(".qwen/settings.json"),
        settings.to_string(),
    )
    .unwrap();
    let mut qwen = Command::new(dir.join("qwen"));
    qwen.args(["-p", "hello"])
        .current_dir(user.path())
        .env("HOME", user.path())
        .env("PATH", path_with(&dir))
        .env("OPENAI_API_KEY", "sk-test-not-a-key")
        .env("OPENAI_BASE_URL", format!("{}/v1", model.url))
        .env("OPENAI_MODEL", "qwen3-coder-plus");
    let printed = run(qwen);

    let request = model.first_with_tools("/v1/chat/completions");
    let tools = offered(&request);
    assert!(
        request.to_string().contains("mcp__sieve__demo__"),
        "the program reached MCP Sieve's tools: {printed}"
    );
    assert!(
        tools.iter().all(|name| !name.starts_with("mcp__sieve__")),
        "no MCP tool's schema is offered: {tools:?}"
    );
    for bridge in ["tool_search", "tool_call"] {
        assert!(
            tools.iter().any(|name| name == bridge),
            "{bridge}: {tools:?}"
        );
    }

    let said = said_of(&home, "qwen", user.path());
    assert_eq!(said["kind"], "defers", "{said}");
    assert_eq!(said["offerSearchMode"], false, "{said}");
}

/// opencode offers the model every MCP tool, so `hosts list` offers
/// search mode for it.
#[test]
fn opencode_sends_every_mcp_tool_as_hosts_list_says() {
    let dir = host_programs(&["opencode", "node"]);
    let home = sieve_home();
    let user = tempfile::tempdir().unwrap();
    let model = ModelEndpoint::start();
    let config = json!({
        "model": "recorder/some-model",
        "provider": {"recorder": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "recorder",
            "options": {"baseURL": format!("{}/v1", model.url), "apiKey": "sk-test-not-a-key"},
            "models": {"some-model": {"name": "some model"}},
        }},
        "mcp": {"sieve": {
            "type": "local",
            "command": [BIN, "--home", home.path(), "serve"],
            "enabled": true,
        }},
    });
    std::fs::create_dir_all(user.path().join(".config/opencode")).unwrap();
    std::fs::write(
        user.path().join(".config/opencode/opencode.json"),
        config.to_string(),
    )
    .unwrap();
    let mut opencode = Command::new(dir.join("opencode"));
    opencode
        .args(["run", "hello"])
        .current_dir(user.path())
        .env("HOME", user.path())
        .env("PATH", path_with(&dir));
    let printed = run(opencode);

    let request = model.first_with_tools("/v1/chat/completions");
    let tools = offered(&request);
    let sieve: Vec<&String> = tools
        .iter()
        .filter(|name| name.starts_with("sieve_demo__"))
        .collect();
    let listed = home.run(&["tools", "--json"]).json();
    let demo_tools = listed
        .as_array()
        .expect("a list of tools")
        .iter()
        .filter(|tool| tool["visible"] != false)
        .count();
    assert!(demo_tools > 0, "{listed}");
    assert_eq!(
        sieve.len(),
        demo_tools,
        "every tool MCP Sieve lists is offered: {tools:?}\n{printed}"
    );
    assert!(
        !tools.iter().any(|name| name.contains("tool_search")),
        "{tools:?}"
    );

    let said = said_of(&home, "opencode", user.path());
    assert_eq!(said["kind"], "none", "{said}");
    assert_eq!(said["offerSearchMode"], true, "{said}");
}

/// `PATH` with the programs' folder first (Claude Code and Codex start
/// through `node`).
fn path_with(dir: &Path) -> std::ffi::OsString {
    let mut paths = vec![dir.to_path_buf()];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).expect("a PATH")
}
