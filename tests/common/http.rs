//! `mcp-sieve serve --http 127.0.0.1:0` as a test fixture.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// A running HTTP proxy; killed when dropped.
pub struct HttpProxy {
    child: Child,
    /// What the proxy has said on stderr so far, line by line.
    said: Arc<Mutex<Vec<String>>>,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    pub token: String,
}

impl HttpProxy {
    /// Starts the proxy on a free loopback port and waits until it serves.
    pub fn start(binary: &str, home: &Path) -> HttpProxy {
        let token = HttpProxy::token(binary, home);
        HttpProxy::start_with_token(binary, home, token)
    }

    /// The home's bearer token (`serve --print-token`, which makes one if
    /// there is none).
    pub fn token(binary: &str, home: &Path) -> String {
        let token = Command::new(binary)
            .arg("--home")
            .arg(home)
            .args(["serve", "--print-token"])
            .output()
            .expect("print-token runs");
        assert!(
            token.status.success(),
            "{}",
            String::from_utf8_lossy(&token.stderr)
        );
        String::from_utf8(token.stdout).unwrap().trim().to_string()
    }

    /// [`HttpProxy::start`] with the token already known, so that the time
    /// it takes is the proxy's start alone.
    pub fn start_with_token(binary: &str, home: &Path, token: String) -> HttpProxy {
        HttpProxy::start_with_env(binary, home, token, &[])
    }

    /// [`HttpProxy::start_with_token`] with more environment for the proxy
    /// (`MCP_SIEVE_STATE`, for a replica of a team gateway).
    pub fn start_with_env(
        binary: &str,
        home: &Path,
        token: String,
        env: &[(&str, &str)],
    ) -> HttpProxy {
        let mut child = Command::new(binary)
            .arg("--home")
            .arg(home)
            .args(["serve", "--http", "127.0.0.1:0"])
            .env("MCP_SIEVE_LOG", "warn,rmcp=error")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mcp-sieve serve --http starts");
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        let said = Arc::new(Mutex::new(Vec::new()));
        let keep = said.clone();
        // Reads stderr for the whole run so the proxy never blocks on it.
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(rest) = line.strip_prefix("MCP Sieve is serving http://") {
                    let addr = rest.split('/').next().unwrap_or_default().to_string();
                    let _ = tx.send(addr);
                } else {
                    eprintln!("[proxy] {line}");
                }
                keep.lock().unwrap_or_else(|e| e.into_inner()).push(line);
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the proxy says where it serves");
        HttpProxy {
            child,
            said,
            base: format!("http://{addr}"),
            token,
        }
    }
}

/// An rmcp host on `url` speaking 2026-07-28 (`server/discover`, no
/// session) with the bearer `token`.
pub async fn modern_host(
    url: String,
    token: &str,
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    use rmcp::model::ProtocolVersion;
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let config = StreamableHttpClientTransportConfig::with_uri(url).auth_header(token.to_string());
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    tokio::time::timeout(
        Duration::from_secs(30),
        ().serve_with_lifecycle(
            StreamableHttpClientTransport::from_config(config),
            lifecycle,
        ),
    )
    .await
    .expect("the proxy answers server/discover in time")
    .expect("a 2026-07-28 connection")
}

impl HttpProxy {
    /// The proxy's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The first line the proxy said on stderr that contains `text`,
    /// once it has said it (30 s at most).
    pub fn wait_for_stderr(&self, text: &str) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let said = self.said.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(line) = said.iter().find(|l| l.contains(text)) {
                return line.clone();
            }
            drop(said);
            assert!(
                std::time::Instant::now() < deadline,
                "the proxy never said {text:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl HttpProxy {
    /// Waits until the proxy's `/mcp` lists a tool of each of `servers`:
    /// for a test that calls right after the start (a host's first list
    /// waits only `settings.startupWaitMs` for servers starting, and a
    /// call to a server that has not answered yet is refused). 60 s at
    /// most.
    pub async fn until_listed(&self, servers: &[&str]) {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let names = self.tool_names().await;
            let listed = |server: &&str| {
                names
                    .iter()
                    .any(|name| name.starts_with(&format!("{server}__")))
            };
            if servers.iter().all(listed) {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the proxy never listed a tool of each of {servers:?}: {names:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The names `/mcp` lists now, asked as a 2026-07-28 host.
    async fn tool_names(&self) -> Vec<String> {
        let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "sieve-tests", "version": "1"}
            }
        }});
        let response = reqwest::Client::new()
            .post(format!("{}/mcp", self.base))
            .bearer_auth(&self.token)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/list")
            .json(&body)
            .send();
        let text = tokio::time::timeout(Duration::from_secs(30), response)
            .await
            .expect("tools/list answers in time")
            .expect("the proxy answers")
            .text()
            .await
            .unwrap_or_default();
        answer(&text)["result"]["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|tool| tool["name"].as_str().map(str::to_string))
            .collect()
    }
}

/// An answer's JSON: the body when it is plain JSON, else the last event
/// of its stream; a refusal's text as a string.
pub fn answer(text: &str) -> serde_json::Value {
    let json = text
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("data: "))
        .unwrap_or(text);
    serde_json::from_str(json).unwrap_or_else(|_| serde_json::Value::String(text.to_string()))
}

impl Drop for HttpProxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `mcp-sieve demo-server --http 127.0.0.1:0`: the demo server over
/// streamable HTTP on a free port; killed when dropped.
pub struct DemoHttp {
    child: Child,
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
}

impl DemoHttp {
    pub fn start(binary: &str) -> DemoHttp {
        let mut child = Command::new(binary)
            .args(["demo-server", "--http", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("mcp-sieve demo-server --http starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout is piped"))
            .read_line(&mut line)
            .expect("the demo says where it serves");
        let url = line
            .trim()
            .strip_prefix("demo server at ")
            .unwrap_or_else(|| panic!("not where the demo serves: {line:?}"))
            .to_string();
        DemoHttp { child, url }
    }
}

impl Drop for DemoHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A Python server of `tests/clients` run over streamable HTTP (`python
/// SCRIPT http`), which prints `serving URL` once its socket listens;
/// killed when dropped.
pub struct PythonHttp {
    child: Child,
    pub url: String,
}

impl PythonHttp {
    /// Starts `script` with the test deps' Python; `what` names it in a
    /// failure.
    pub fn start(script: &str, what: &str) -> PythonHttp {
        let mut child = Command::new(&crate::deps::deps().python)
            .arg(script)
            .arg("http")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("{what} does not start: {e}"));
        // The line is read on a thread, so a server that hangs fails the
        // test instead of holding it.
        let stdout = child.stdout.take().expect("piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("{what} did not say where it serves within a minute"));
        let url = line
            .trim()
            .strip_prefix("serving ")
            .unwrap_or_else(|| panic!("{what} printed {line:?}, not `serving URL`"))
            .to_string();
        PythonHttp { child, url }
    }
}

impl Drop for PythonHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
