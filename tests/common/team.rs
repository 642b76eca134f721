//! A team gateway's parts for its tests (DESIGN §12): `mcp-sieve serve
//! --http` replicas on one database (`MCP_SIEVE_STATE`), and the command
//! line pointed at it (`--state`).

use crate::http::HttpProxy;
use std::process::Command;

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

/// [`cli`] with more environment.
pub fn cli_with(binary: &str, url: &str, args: &[&str], env: &[(&str, &str)]) -> String {
    let home = tempfile::tempdir().expect("a temp home");
    let out = Command::new(binary)
        .envs(env.iter().copied())
        .arg("--home")
        .arg(home.path())
        .arg("--state")
        .arg(url)
        .args(args)
        .output()
        .expect("mcp-sieve runs");
    assert!(
        out.status.success(),
        "mcp-sieve {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}
