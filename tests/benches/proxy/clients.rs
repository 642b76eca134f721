//! The processes a measurement talks to, and the host's side of it: rmcp's
//! client over stdio or over streamable HTTP, as rmcp makes it: its
//! default HTTP client keeps no connection idle, so every request opens a
//! TCP connection of its own, and every request carries a progress token.

use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use sieve_tests::Home;
use sieve_tests::http::HttpProxy;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The `mcp-sieve` under test: `MCP_SIEVE_BENCH_SIEVE`, the program as it
/// ships (`scripts/bench.sh` builds it: `cargo build --release -p
/// sieve-cli`), else the same code built with the bench. The two differ in
/// their layout: the shipped one links the functions a proxy runs side by
/// side (crates/sieve-cli/link_order.rs), and its names are the ones
/// recorded; the bench's build compiles its libraries with the test
/// package's features, under other names.
pub fn sieve() -> &'static str {
    static SIEVE: OnceLock<String> = OnceLock::new();
    SIEVE.get_or_init(|| {
        binary_named_by("MCP_SIEVE_BENCH_SIEVE").map_or_else(
            || env!("CARGO_BIN_EXE_mcp-sieve-under-test").to_owned(),
            |path| path.display().to_string(),
        )
    })
}

/// The `mcp-sieve` environment variable `variable` names, when it is set.
pub fn binary_named_by(variable: &str) -> Option<PathBuf> {
    let path = PathBuf::from(std::env::var_os(variable)?);
    assert!(
        path.is_file(),
        "{variable}={} is no file: build that mcp-sieve (`cargo build --release -p sieve-cli`) or unset {variable}",
        path.display()
    );
    Some(path)
}

pub type Client = RunningService<RoleClient, ()>;

/// A program and its arguments.
#[derive(Debug, Clone)]
pub struct Program {
    pub command: PathBuf,
    pub args: Vec<String>,
}

impl Program {
    pub fn new(command: impl Into<PathBuf>, args: &[&str]) -> Program {
        Program {
            command: command.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
        }
    }

    /// As a server entry of `config.json`.
    pub fn config_entry(&self) -> Value {
        json!({"command": self.command, "args": self.args})
    }
}

/// A stdio MCP server to measure against.
#[derive(Debug, Clone)]
pub struct Upstream {
    /// Its name in tables and in `config.json`.
    pub name: &'static str,
    pub program: Program,
    /// Its echo tool and the arguments it takes.
    pub echo: &'static str,
    pub echo_arguments: Value,
}

impl Upstream {
    /// `@modelcontextprotocol/server-everything` on Node 22.
    pub fn everything() -> Upstream {
        let deps = sieve_tests::deps::deps();
        Upstream {
            name: "everything",
            program: Program::new(
                &deps.node22,
                &[&deps.server_everything.display().to_string(), "stdio"],
            ),
            echo: "echo",
            echo_arguments: json!({"message": "ping"}),
        }
    }

    /// The demo server, as its own process.
    pub fn demo() -> Upstream {
        Upstream {
            name: "demo",
            program: Program::new(sieve(), &["demo-server"]),
            echo: "echo",
            echo_arguments: json!({"text": "ping"}),
        }
    }
}

/// A child process ended when dropped (and its process group with it).
pub struct Spawned {
    child: Child,
    /// A folder it uses (its config), removed after it ends.
    dir: Option<tempfile::TempDir>,
}

impl Spawned {
    pub fn start(mut command: Command) -> Spawned {
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let child = command
            .stdin(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{command:?} cannot start: {e}"));
        Spawned { child, dir: None }
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Keeps `dir` until the process has ended.
    pub fn with_dir(mut self, dir: tempfile::TempDir) -> Spawned {
        self.dir = Some(dir);
        self
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        #[cfg(unix)]
        kill_group(self.child.id());
        let _ = self.child.kill();
        let _ = self.child.wait();
        drop(self.dir.take());
    }
}

/// Ends the process group `pid` leads (the proxy and the upstreams it runs).
#[cfg(unix)]
fn kill_group(pid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stderr(Stdio::null())
        .status();
}

/// A free loopback port (bound, then let go).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Waits until something accepts connections on `port`.
pub fn wait_for_port(port: u16, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "{what} did not listen on {port} within 60 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A host on stdio: starts `program` and does the handshake.
pub async fn stdio(program: &Program, env: &[(&str, &str)]) -> Client {
    let command = tokio::process::Command::new(&program.command).configure(|c| {
        c.args(&program.args);
        c.env("MCP_SIEVE_LOG", "error");
        for (k, v) in env {
            c.env(k, v);
        }
    });
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{} cannot start: {e}", program.command.display()));
    let client = tokio::time::timeout(crate::STEP_TIMEOUT, ().serve(transport))
        .await
        .expect("the handshake answers in time")
        .expect("the handshake succeeds");
    uncached(client).await
}

/// A host on streamable HTTP at `url`, with a bearer `token` if any.
pub async fn http(url: &str, token: Option<&str>) -> Client {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    if let Some(token) = token {
        config = config.auth_header(token.to_string());
    }
    let transport = StreamableHttpClientTransport::from_config(config);
    let client = tokio::time::timeout(crate::STEP_TIMEOUT, ().serve(transport))
        .await
        .expect("the handshake answers in time")
        .unwrap_or_else(|e| panic!("the handshake with {url} fails: {e}"));
    uncached(client).await
}

/// Every request must reach the server, never the client's cache.
async fn uncached(client: Client) -> Client {
    client
        .peer()
        .set_response_cache_config(rmcp::service::ClientCacheConfig::disabled())
        .await;
    client
}

/// A temporary MCP Sieve home (the tests' own) with `servers` in
/// `config.json`.
pub fn sieve_home(servers: &[(String, Value)]) -> Home {
    let home = Home::new(sieve());
    let servers: serde_json::Map<String, Value> = servers.iter().cloned().collect();
    home.write("config.json", &json!({"mcpServers": servers}).to_string());
    home
}

/// `mcp-sieve --home H serve [args]` as a program a host starts.
pub fn serve(home: &Home, args: &[&str]) -> Program {
    let mut all = vec![
        "--home".to_string(),
        home.path().display().to_string(),
        "serve".into(),
    ];
    all.extend(args.iter().map(|a| a.to_string()));
    Program {
        command: sieve().into(),
        args: all,
    }
}

/// `binary serve --http` (an `mcp-sieve`: [`sieve`], or another build
/// to compare with) on a free port of `home` (the tests' fixture), and its
/// `/mcp` URL.
pub fn sieve_http(binary: &str, home: &Home) -> (HttpProxy, String) {
    let proxy = HttpProxy::start(binary, home.path());
    let url = format!("{}/mcp", proxy.base);
    (proxy, url)
}
