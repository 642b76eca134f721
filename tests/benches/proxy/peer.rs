//! The peer gateway the proxy is compared with: `mcp-proxy` from crates.io
//! (a Rust MCP gateway with allow/deny filtering), installed pinned by
//! `scripts/bench-deps.sh`, in front of the same stdio upstream. It serves
//! streamable HTTP at `/` (plain JSON answers, no auth unless configured)
//! and names tools `<backend>/<tool>`. Its log level is set to `warn`: left
//! unset it logs every call at debug level.

use crate::clients::{self, Spawned, Upstream};
use std::path::PathBuf;
use std::process::{Command, Stdio};

pub const NAME: &str = "mcp-proxy 0.6.0";

/// The installed binary: `MCP_SIEVE_PEER_GATEWAY` when set (scripts/bench.sh
/// sets it), else what `scripts/bench-deps.sh` installs and prints.
fn binary() -> PathBuf {
    static BINARY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BINARY
        .get_or_init(|| {
            if let Some(path) = std::env::var_os("MCP_SIEVE_PEER_GATEWAY") {
                return PathBuf::from(path);
            }
            let script =
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/bench-deps.sh");
            let output = Command::new("bash")
                .arg(&script)
                .stderr(Stdio::inherit())
                .output()
                .expect("bash runs");
            assert!(output.status.success(), "scripts/bench-deps.sh failed");
            let stdout = String::from_utf8_lossy(&output.stdout);
            let path = stdout
                .lines()
                .find_map(|l| l.strip_prefix("MCP_SIEVE_PEER_GATEWAY="))
                .expect("bench-deps.sh prints MCP_SIEVE_PEER_GATEWAY");
            PathBuf::from(path)
        })
        .clone()
}

/// Starts the gateway in front of `upstream`: the process, the URL, and
/// the name it gives the echo tool.
pub fn start(upstream: &Upstream) -> (Spawned, String, String) {
    let port = clients::free_port();
    let dir = tempfile::tempdir().expect("a temp dir");
    let args: Vec<String> = upstream
        .program
        .args
        .iter()
        .map(|a| format!("{a:?}"))
        .collect();
    let config = format!(
        "[proxy]\nname = \"bench\"\nseparator = \"/\"\n\n[proxy.listen]\nhost = \"127.0.0.1\"\nport = {port}\n\n[[backends]]\nname = \"{}\"\ntransport = \"stdio\"\ncommand = {:?}\nargs = [{}]\n\n[observability]\nlog_level = \"warn\"\n",
        upstream.name,
        upstream.program.command.display().to_string(),
        args.join(", ")
    );
    let file = dir.path().join("proxy.toml");
    std::fs::write(&file, config).expect("the gateway's config is written");
    let mut command = Command::new(binary());
    command
        .arg("--config")
        .arg(&file)
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let spawned = Spawned::start(command).with_dir(dir);
    clients::wait_for_port(port, NAME);
    (
        spawned,
        format!("http://127.0.0.1:{port}/"),
        format!("{}/{}", upstream.name, upstream.echo),
    )
}
