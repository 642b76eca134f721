//! A host speaking raw JSON-RPC lines to `mcp-sieve serve` over stdio.
//!
//! The proxy's additions live in params that typed clients (rmcp's among
//! them) cannot send (`filter`, `filters`, concerns in `initialize`), so
//! wire-level tests write the JSON themselves. Notifications that arrive
//! while waiting for a response are kept for [`Wire::notification`].

use crate::procs::descendants;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// How long a test waits for any one message before calling the proxy
/// hung: a liveness limit, not a speed target (speed is in the
/// benchmarks). A debug build answers the 5 MB list of `proxy_faults` in
/// about 13 s alone and past 20 s beside the other tests of its binary.
pub const WAIT: Duration = Duration::from_secs(45);

/// One host connection over the proxy's stdin/stdout.
pub struct Wire {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    next_id: u64,
    notifications: VecDeque<Value>,
    /// Requests the proxy sent us (sampling, elicitation), unanswered.
    pub requests: VecDeque<Value>,
    /// How long the proxy took to answer `initialize`.
    pub initialized_in: Duration,
}

impl Wire {
    /// Starts `binary --home HOME serve ARGS` and does the 2025-11-25
    /// handshake with `initialize_params` merged in.
    pub async fn start(binary: &str, home: &Path, args: &[&str], initialize_extra: Value) -> Wire {
        Wire::start_with_env(binary, home, args, &[], initialize_extra).await
    }

    /// [`Wire::start`] with `env` added to the proxy's environment.
    pub async fn start_with_env(
        binary: &str,
        home: &Path,
        args: &[&str],
        env: &[(&str, &str)],
        initialize_extra: Value,
    ) -> Wire {
        let mut child = Command::new(binary)
            .envs(env.iter().copied())
            .arg("--home")
            .arg(home)
            .arg("serve")
            .args(args)
            .env("MCP_SIEVE_LOG", "warn,rmcp=error")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("mcp-sieve starts");
        let stdin = child.stdin.take().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut wire = Wire {
            child,
            stdin,
            lines,
            next_id: 0,
            notifications: VecDeque::new(),
            requests: VecDeque::new(),
            initialized_in: Duration::ZERO,
        };
        let mut params = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"sampling": {}, "elicitation": {}},
            "clientInfo": {"name": "wire-test", "version": "1"}
        });
        if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), initialize_extra) {
            params.extend(extra);
        }
        let asked = std::time::Instant::now();
        let init = wire.request("initialize", params).await;
        wire.initialized_in = asked.elapsed();
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
        wire.notify("notifications/initialized", json!({})).await;
        wire
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .await
            .expect("proxy stdin open");
        self.stdin.flush().await.unwrap();
    }

    /// Sends a notification.
    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Sends a request and returns the whole response (`result` or `error`).
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let message = self.read().await;
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                return message;
            }
            self.stash(message);
        }
    }

    /// Lists tools until each of `servers` has one there, waiting for
    /// `notifications/tools/list_changed` in between; returns the last
    /// list. For a test that calls a server's tools right after the start:
    /// a host's first list waits only `settings.startupWaitMs` for servers
    /// starting, and a call to one that has not answered yet is refused.
    pub async fn listing(&mut self, servers: &[&str]) -> Value {
        loop {
            let listed = self.request("tools/list", json!({})).await;
            let names = tool_names(&listed);
            let missing = servers
                .iter()
                .any(|server| !names.iter().any(|n| n.starts_with(&format!("{server}__"))));
            if !missing {
                return listed;
            }
            self.notification("notifications/tools/list_changed").await;
        }
    }

    /// Sends a request without waiting; returns its id.
    pub async fn send_request(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id
    }

    /// Waits for the response to request `id`.
    pub async fn response(&mut self, id: u64) -> Value {
        loop {
            let message = self.read().await;
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                return message;
            }
            self.stash(message);
        }
    }

    /// Answers a request the proxy sent us.
    pub async fn answer(&mut self, id: Value, result: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "result": result}))
            .await;
    }

    /// Writes `line` as it is (plus the newline): for lines that are no
    /// JSON-RPC message.
    pub async fn send_line(&mut self, line: &str) {
        self.stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("proxy stdin writable");
        self.stdin.flush().await.expect("proxy stdin flushes");
    }

    /// The next message the proxy writes, whatever it is.
    pub async fn next_message(&mut self) -> Value {
        self.read().await
    }

    /// Waits for the next request the proxy sends us.
    pub async fn server_request(&mut self) -> Value {
        if let Some(request) = self.requests.pop_front() {
            return request;
        }
        loop {
            let message = self.read().await;
            if message.get("method").is_some() && message.get("id").is_some() {
                return message;
            }
            self.stash(message);
        }
    }

    fn stash(&mut self, message: Value) {
        if message.get("id").is_some() {
            self.requests.push_back(message);
        } else {
            self.notifications.push_back(message);
        }
    }

    /// Waits for a notification with `method` (earlier ones included).
    pub async fn notification(&mut self, method: &str) -> Value {
        if let Some(at) = self
            .notifications
            .iter()
            .position(|n| n["method"] == method)
        {
            return self.notifications.remove(at).unwrap();
        }
        loop {
            let message = self.read().await;
            if message["method"] == method && message.get("id").is_none() {
                return message;
            }
            self.stash(message);
        }
    }

    /// The oldest notification with `method` received so far, consumed.
    pub fn take_notification(&mut self, method: &str) -> Option<Value> {
        let at = self
            .notifications
            .iter()
            .position(|n| n["method"] == method)?;
        self.notifications.remove(at)
    }

    /// The proxy's process id.
    pub fn pid(&self) -> u32 {
        self.child.id().expect("the proxy is running")
    }

    /// Notifications with `method` received so far, consumed.
    pub fn drain(&mut self, method: &str) -> usize {
        let before = self.notifications.len();
        self.notifications.retain(|n| n["method"] != method);
        before - self.notifications.len()
    }

    /// Reads whatever arrives within `window`, keeping it; for checking
    /// that something was NOT sent after an action that has been answered.
    pub async fn settle(&mut self, window: Duration) {
        while let Ok(Ok(Some(line))) = tokio::time::timeout(window, self.lines.next_line()).await {
            let message: Value = serde_json::from_str(&line).expect("proxy writes JSON lines");
            self.stash(message);
        }
    }

    async fn read(&mut self) -> Value {
        let line = tokio::time::timeout(WAIT, self.lines.next_line())
            .await
            .expect("the proxy answers in time")
            .expect("proxy stdout readable")
            .expect("the proxy is still running");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Closes stdin and waits for the proxy to exit.
    pub async fn close(mut self) -> std::process::ExitStatus {
        drop(self.stdin);
        tokio::time::timeout(WAIT, self.child.wait())
            .await
            .expect("the proxy exits when its host leaves")
            .unwrap()
    }

    /// [`Wire::close`], then waits until every process the proxy had
    /// started (its servers and whatever they started) is gone.
    pub async fn close_leaving_nothing(self) {
        let started = descendants(self.pid());
        assert!(
            !started.is_empty(),
            "the proxy runs its servers as children"
        );
        assert!(self.close().await.success(), "the proxy exits cleanly");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left: Vec<_> = started
                .iter()
                .filter(|p| Path::new(&format!("/proc/{}", p.pid)).exists())
                .collect();
            if left.is_empty() {
                return;
            }
            assert!(Instant::now() < deadline, "left behind: {left:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// The names of the tools in a `tools/list` response.
pub fn tool_names(response: &Value) -> Vec<String> {
    response["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("not a tools/list result: {response}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}
