//! Helpers shared by the integration tests: a temporary `--home`, the real
//! `mcp-sieve` binary, and the fixture catalogs.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The folder of the real tool catalogs copied from `shared/catalogs`.
pub fn catalogs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/catalogs")
}

/// A fixture catalog by stem, e.g. `github-mcp-server`.
pub fn catalog(stem: &str) -> PathBuf {
    catalogs_dir().join(format!("{stem}.json"))
}

/// A temporary MCP Sieve home, removed when dropped.
pub struct Home {
    dir: tempfile::TempDir,
    binary: PathBuf,
}

/// What one run of the command printed.
#[derive(Debug)]
pub struct Run {
    pub ok: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// What a finished command printed.
    pub fn from(output: Output) -> Run {
        Run {
            ok: output.status.success(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Stdout parsed as JSON; panics with the output when it is not.
    pub fn json(&self) -> Value {
        assert!(self.ok, "command failed: {}", self.stderr);
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", self.stdout))
    }
}

impl Home {
    /// A fresh, empty home for the binary `binary` (pass
    /// `env!("CARGO_BIN_EXE_mcp-sieve-under-test")`).
    pub fn new(binary: &str) -> Home {
        Home {
            dir: tempfile::tempdir().expect("temp dir"),
            binary: PathBuf::from(binary),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `relative` under the home.
    pub fn write(&self, relative: &str, text: &str) {
        let path = self.path().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Replaces `relative` under the home the way the app writes: a
    /// temporary file renamed over it, so a watcher never reads it half
    /// written.
    pub fn replace(&self, relative: &str, text: &str) {
        let path = self.path().join(relative);
        let mut temp = path.clone().into_os_string();
        temp.push(".tmp-test");
        std::fs::write(&temp, text).unwrap();
        std::fs::rename(&temp, &path).unwrap();
    }

    /// Reads `relative` under the home.
    pub fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.path().join(relative))
            .unwrap_or_else(|e| panic!("cannot read {relative}: {e}"))
    }

    /// A command for the binary with `--home` set.
    pub fn command(&self) -> Command {
        let mut command = Command::new(&self.binary);
        command.arg("--home").arg(self.path());
        command.env_remove("MCP_SIEVE_HOME");
        command
    }

    /// Runs the binary with `args`.
    pub fn run(&self, args: &[&str]) -> Run {
        Run::from(self.command().args(args).output().expect("binary runs"))
    }
}

/// Writes a config.json with demo servers `alpha` and `beta` (`binary
/// demo-server`), each writing its pid to `<name>.pid` in the home at start,
/// so a test can kill one.
pub fn two_demo_servers(home: &Home, binary: &str) {
    let server = |name: &str| {
        let pid_file = home.path().join(format!("{name}.pid"));
        serde_json::json!({
            "command": "sh",
            "args": ["-c", format!("echo $$ > '{}'; exec '{binary}' demo-server", pid_file.display())]
        })
    };
    let config =
        serde_json::json!({"mcpServers": {"alpha": server("alpha"), "beta": server("beta")}});
    home.write("config.json", &config.to_string());
}

/// The step at which the demo's `reindex` saw its cancellation, as it
/// says in a log message through the proxy (waited for).
pub async fn reindex_cancelled_at(host: &mut wire::Wire) -> u64 {
    loop {
        let log = host.notification("notifications/message").await;
        if let Some(step) = log["params"]["data"].get("reindex_cancelled_at_step") {
            return step.as_u64().expect("a step number");
        }
    }
}

pub mod conformance;
pub mod deps;
pub mod http;
pub mod installed;
pub mod keychain;
pub mod oidc;
pub mod procs;
pub mod team;
pub mod wire;

/// Runs `mcp_client.py` (the Python `mcp` client) with `args` and a script;
/// returns its output lines as JSON (line 0 is the connection).
pub fn python_client(args: &[&str], script: &Value) -> Vec<Value> {
    use std::io::Write;
    let deps = deps::deps();
    let mut child = Command::new(&deps.python)
        .arg(&deps.mcp_client)
        .args(["--timeout", "30"])
        .args(args)
        .env("MCP_SIEVE_LOG", "warn,rmcp=error")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let lines: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    assert!(
        output.status.success(),
        "mcp_client.py failed ({}):\n{}\n{lines:?}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    lines
}

/// server-everything as a child process; killed when dropped.
pub struct Everything(std::process::Child);

impl Drop for Everything {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A port nothing listens on now (bound, then let go).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Every file under `dir`, at any depth.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// server-everything over streamable HTTP on a free port.
pub fn everything_http() -> (Everything, String) {
    let port = free_port();
    let deps = deps::deps();
    let child = Command::new(&deps.node22)
        .arg(&deps.server_everything)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("server-everything starts");
    let url = format!("http://localhost:{port}/mcp");
    // It answers once it listens; poll the port, bounded.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "server-everything did not listen on {port}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    (Everything(child), url)
}
