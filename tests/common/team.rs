//! A team gateway's parts for its tests (DESIGN §12): `mcp-sieve serve
//! --http` replicas on one database (`MCP_SIEVE_STATE`), and the command
//! line pointed at it (`--state`).

use crate::http::HttpProxy;
use serde_json::{Value, json};
use std::process::Command;
use std::time::Duration;

/// A replica: `mcp-sieve serve --http` on the team's database `url`, with
/// a home of its own for what stays on its machine; killed when dropped.
pub struct Replica {
    pub proxy: HttpProxy,
    _home: tempfile::TempDir,
}

impl Replica {
    /// Starts `binary` as a replica on `url`, taking the static `token`.
    pub fn start(binary: &str, url: &str, token: &str) -> Replica {
        Replica::start_with(binary, url, token, &[])
    }

    /// [`Replica::start`] with more environment, e.g. the team's key.
    pub fn start_with(binary: &str, url: &str, token: &str, env: &[(&str, &str)]) -> Replica {
        let home = tempfile::tempdir().expect("a temp home");
        let mut all = vec![("MCP_SIEVE_STATE", url)];
        all.extend_from_slice(env);
        let proxy = HttpProxy::start_with_env(binary, home.path(), token.to_string(), &all);
        Replica { proxy, _home: home }
    }

    /// Waits until this replica lists a tool of each of `servers`
    /// ([`HttpProxy::until_listed`]).
    pub async fn until_listed(&self, servers: &[&str]) {
        self.proxy.until_listed(servers).await;
    }

    /// `path` (`/mcp`, `/mcp/p/NAME`, ...) on this replica.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.proxy.base)
    }
}

/// `binary --state URL ARGS` from a home of its own, which must succeed:
/// its standard output.
pub fn cli(binary: &str, url: &str, args: &[&str]) -> String {
    cli_with(binary, url, args, &[])
}

/// `binary --state URL ARGS` from a home of its own, with `env` too, which
/// may fail: what it did.
pub fn run(binary: &str, url: &str, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let home = tempfile::tempdir().expect("a temp home");
    Command::new(binary)
        .envs(env.iter().copied())
        .arg("--home")
        .arg(home.path())
        .arg("--state")
        .arg(url)
        .args(args)
        .output()
        .expect("mcp-sieve runs")
}

/// [`cli`] with more environment.
pub fn cli_with(binary: &str, url: &str, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = run(binary, url, args, env);
    assert!(
        out.status.success(),
        "mcp-sieve {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// One 2026-07-28 request with `token` to `endpoint`, as a host that
/// takes tasks sends it (named `identity-test 1`): the status, and the
/// answer (its JSON, the last event of a stream, or a refusal's text).
pub async fn request(endpoint: &str, token: &str, method: &str, mut params: Value) -> (u16, Value) {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        },
        "io.modelcontextprotocol/clientInfo": {"name": "identity-test", "version": "1"},
    });
    // What the request is about, in a header as this generation wants.
    let name = params
        .get("taskId")
        .or_else(|| params.get("name"))
        .or_else(|| params.get("uri"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut post = reqwest::Client::new()
        .post(endpoint)
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = name {
        post = post.header("mcp-name", name);
    }
    let response = tokio::time::timeout(
        Duration::from_secs(30),
        post.json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
            .send(),
    )
    .await
    .expect("the gateway answers in time")
    .expect("the gateway answers");
    let status = response.status().as_u16();
    (status, answer(&response.text().await.unwrap_or_default()))
}

pub use crate::http::answer;
