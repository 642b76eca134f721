//! Hosts that are nothing but the wire, for the `targets` section: a
//! stdio client that writes JSON-RPC lines and reads answer lines (one
//! call at a time, or many in flight on the one pipe), and an HTTP/1.1
//! client that posts a fixed `tools/call` body on a kept-alive connection
//! with its session's header. Neither uses an MCP SDK, so what they
//! measure is the server's side and the hop, not a client's decoding.

use crate::clients::Program;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// The protocol version the raw hosts ask for.
const VERSION: &str = "2025-11-25";

/// One JSON-RPC request line.
pub fn request(id: u64, method: &str, params: &Value) -> Vec<u8> {
    let mut line = serde_json::to_vec(
        &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    )
    .expect("a request encodes");
    line.push(b'\n');
    line
}

fn initialize_params() -> Value {
    json!({
        "protocolVersion": VERSION,
        "capabilities": {},
        "clientInfo": {"name": "bench-raw-host", "version": "1"}
    })
}

/// Whether an answer line is a call's successful result (checked on the
/// bytes: the hot loop decodes nothing).
fn succeeded(line: &[u8]) -> bool {
    let has = |needle: &[u8]| line.windows(needle.len()).any(|w| w == needle);
    has(b"\"result\"") && !has(b"\"isError\":true")
}

/// Whether a line is an answer rather than a notification or a request:
/// of the keys `"method"`, `"result"` and `"error"`, the first to appear is
/// not `"method"` (a tool's schema may well have a property `method`, but
/// a list's `"result"` comes before its tools).
fn is_answer(line: &[u8]) -> bool {
    // The top-level keys come first: a long answer is not scanned whole.
    let line = &line[..line.len().min(256)];
    let at = |needle: &[u8]| {
        line.windows(needle.len())
            .position(|w| w == needle)
            .unwrap_or(usize::MAX)
    };
    let method = at(b"\"method\":");
    method == usize::MAX || at(b"\"result\":").min(at(b"\"error\":")) < method
}

/// A stdio MCP server (or a proxy of one) driven over its pipes.
pub struct Pipe {
    child: Child,
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

impl Pipe {
    /// Starts `program` and does the handshake.
    pub fn start(program: &Program) -> Pipe {
        let mut command = Command::new(&program.command);
        command
            .args(&program.args)
            .env("MCP_SIEVE_LOG", "error")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("{} cannot start: {e}", program.command.display()));
        let input = child.stdin.take();
        let output = BufReader::with_capacity(1 << 20, child.stdout.take().expect("piped"));
        let mut pipe = Pipe {
            child,
            input,
            output,
            next_id: 1,
        };
        pipe.ask("initialize", &initialize_params());
        pipe.send(
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}
"#,
        );
        pipe
    }

    fn send(&mut self, bytes: &[u8]) {
        let input = self.input.as_mut().expect("the pipe is open");
        input.write_all(bytes).expect("the server reads its stdin");
    }

    /// The next line that is an answer (not a notification or a request
    /// of the server's).
    fn answer(&mut self) -> Vec<u8> {
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = self
                .output
                .read_until(b'\n', &mut line)
                .expect("stdout reads");
            assert!(n > 0, "the server closed its stdout");
            if is_answer(&line) {
                return line;
            }
        }
    }

    /// Sends a request and returns its answer line.
    pub fn ask(&mut self, method: &str, params: &Value) -> Vec<u8> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&request(id, method, params));
        self.answer()
    }

    /// Lists until `tool` is there (a proxy connects its upstreams in the
    /// background).
    pub fn wait_for(&mut self, tool: &str) {
        let needle = format!("\"name\":\"{tool}\"");
        let deadline = Instant::now() + crate::STEP_TIMEOUT;
        loop {
            let line = self.ask("tools/list", &json!({}));
            if line.windows(needle.len()).any(|w| w == needle.as_bytes()) {
                return;
            }
            assert!(Instant::now() < deadline, "{tool} is never listed");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `total` calls of `tool`, one at a time; calls per second.
    pub fn sequential(&mut self, tool: &str, arguments: &Value, total: usize) -> f64 {
        let params = json!({"name": tool, "arguments": arguments});
        for _ in 0..20 {
            let line = self.ask("tools/call", &params);
            assert!(
                succeeded(&line),
                "{tool} failed: {}",
                String::from_utf8_lossy(&line)
            );
        }
        let started = Instant::now();
        for _ in 0..total {
            let line = self.ask("tools/call", &params);
            assert!(
                succeeded(&line),
                "{tool} failed: {}",
                String::from_utf8_lossy(&line)
            );
        }
        total as f64 / started.elapsed().as_secs_f64()
    }

    /// `total` calls of `tool`, one at a time, each with arguments of
    /// about `bytes` bytes: `key` set to lines of source code, as a file
    /// a model writes (quotes and line ends escaped). Each answer must be
    /// a result at least that long (an echo's); calls per second.
    pub fn sequential_large(&mut self, tool: &str, key: &str, bytes: usize, total: usize) -> f64 {
        const LINE: &str =
            "        let path = format!(\"{}/{}\", root, \"notes.txt\"); // one line\n";
        let text: String = LINE.repeat(bytes / LINE.len() + 1);
        // The request after its id, encoded once; each call writes its id
        // and then these bytes.
        let mut rest = serde_json::to_vec(&json!({
            "method": "tools/call",
            "params": {"name": tool, "arguments": {key: text}}
        }))
        .expect("a request encodes");
        rest[0] = b',';
        rest.push(b'\n');
        let call = |pipe: &mut Pipe| {
            let id = pipe.next_id;
            pipe.next_id += 1;
            pipe.send(format!(r#"{{"jsonrpc":"2.0","id":{id}"#).as_bytes());
            pipe.send(&rest);
            let line = pipe.answer();
            let head = &line[..line.len().min(256)];
            let has = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
            assert!(
                has(b"\"result\"") && line.len() >= bytes,
                "{tool} failed: {}",
                String::from_utf8_lossy(head)
            );
        };
        for _ in 0..3 {
            call(self);
        }
        let started = Instant::now();
        for _ in 0..total {
            call(self);
        }
        total as f64 / started.elapsed().as_secs_f64()
    }

    /// `total` calls of `tool` with up to `window` in flight on the pipe
    /// (a writer thread, answers read here); calls per second.
    pub fn pipelined(&mut self, tool: &str, arguments: &Value, total: usize, window: usize) -> f64 {
        let params = json!({"name": tool, "arguments": arguments});
        let first = self.next_id;
        self.next_id += total as u64;
        let lines: Vec<Vec<u8>> = (0..total as u64)
            .map(|i| request(first + i, "tools/call", &params))
            .collect();
        let mut input = self.input.take().expect("the pipe is open");
        // A slot per call in flight: the writer takes one before each
        // request, the reader gives one back with each answer.
        let (slots, freed) = std::sync::mpsc::sync_channel::<()>(window);
        let started = Instant::now();
        let writer = std::thread::spawn(move || {
            for line in lines {
                slots.send(()).expect("the reader is there");
                input.write_all(&line).expect("the server reads its stdin");
            }
            input
        });
        for _ in 0..total {
            let line = self.answer();
            assert!(
                succeeded(&line),
                "{tool} failed: {}",
                String::from_utf8_lossy(&line)
            );
            let _ = freed.recv();
        }
        let rate = total as f64 / started.elapsed().as_secs_f64();
        self.input = Some(writer.join().expect("the writer ends"));
        rate
    }

    /// Asks `method` and times the answer: until its last byte is read,
    /// and the line itself.
    pub fn timed(&mut self, method: &str, params: &Value) -> (Duration, Vec<u8>) {
        let started = Instant::now();
        let line = self.ask(method, params);
        (started.elapsed(), line)
    }
}

impl Drop for Pipe {
    fn drop(&mut self) {
        drop(self.input.take());
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP/1.1 host on one kept-alive connection with a 2025-11-25
/// session: posts a fixed body.
pub struct Connection {
    http: reqwest::Client,
    url: String,
    headers: reqwest::header::HeaderMap,
}

impl Connection {
    /// Connects and opens a session (`initialize`, `initialized`).
    pub async fn open(url: &str, token: Option<&str>) -> Connection {
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(1)
            .tcp_nodelay(true)
            .http1_only()
            .build()
            .expect("an HTTP client");
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("content-type", "application/json".parse().unwrap());
        headers.insert(
            "accept",
            "application/json, text/event-stream".parse().unwrap(),
        );
        if let Some(token) = token {
            headers.insert("authorization", format!("Bearer {token}").parse().unwrap());
        }
        let mut connection = Connection {
            http,
            url: url.to_string(),
            headers,
        };
        let response = connection
            .post(request(0, "initialize", &initialize_params()))
            .await;
        let session = response
            .headers()
            .get("mcp-session-id")
            .unwrap_or_else(|| panic!("{url} opened no session"))
            .clone();
        let status = response.status();
        let body = response.bytes().await.expect("the handshake's body");
        assert!(
            status.is_success(),
            "initialize at {url}: {status} {body:?}"
        );
        connection.headers.insert("mcp-session-id", session);
        connection
            .headers
            .insert("mcp-protocol-version", VERSION.parse().unwrap());
        let body = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec();
        let status = connection.post(body).await.status();
        assert!(status.is_success(), "initialized at {url}: {status}");
        connection
    }

    async fn post(&self, body: Vec<u8>) -> reqwest::Response {
        self.http
            .post(&self.url)
            .headers(self.headers.clone())
            .body(body)
            .send()
            .await
            .unwrap_or_else(|e| panic!("POST {}: {e}", self.url))
    }

    /// Posts `body` (a `tools/call`) and checks the answer.
    pub async fn call(&self, body: &[u8]) {
        let response = self.post(body.to_vec()).await;
        let status = response.status();
        let answer = response.bytes().await.expect("the answer's body");
        assert!(
            status.is_success() && succeeded(&answer),
            "tools/call at {}: {status} {}",
            self.url,
            String::from_utf8_lossy(&answer)
        );
    }
}

/// `connections` kept-alive connections to `url`, each with its session
/// and a few calls of `body` made on it.
pub async fn connect(
    url: &str,
    token: Option<&str>,
    body: &[u8],
    connections: usize,
) -> Vec<Connection> {
    let mut opened = Vec::with_capacity(connections);
    for _ in 0..connections {
        let connection = Connection::open(url, token).await;
        for _ in 0..5 {
            connection.call(body).await;
        }
        opened.push(connection);
    }
    opened
}

/// A fixed `tools/call` body.
pub fn call_body(tool: &str, arguments: &Value) -> std::sync::Arc<Vec<u8>> {
    std::sync::Arc::new(
        serde_json::to_vec(&json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}
        }))
        .expect("a body"),
    )
}

/// `total` calls of `body` spread over `connections`, one at a time on
/// each; calls per second.
pub async fn load(
    connections: &[std::sync::Arc<Connection>],
    body: &std::sync::Arc<Vec<u8>>,
    total: usize,
) -> f64 {
    let started = Instant::now();
    let mut tasks = Vec::with_capacity(connections.len());
    for (i, connection) in connections.iter().enumerate() {
        let share = total / connections.len() + usize::from(i < total % connections.len());
        let (connection, body) = (connection.clone(), body.clone());
        tasks.push(tokio::spawn(async move {
            for _ in 0..share {
                connection.call(&body).await;
            }
        }));
    }
    for task in tasks {
        task.await.expect("a connection's calls finish");
    }
    total as f64 / started.elapsed().as_secs_f64()
}
