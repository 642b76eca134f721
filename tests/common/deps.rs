//! The third-party clients and servers of the tests (MCP Inspector,
//! server-everything, server-filesystem, Playwright MCP with Debian's
//! chromium, Desktop Commander, the MCP conformance suite, the Python `mcp`
//! client, Node 22, the OpenID provider `oidc-provider`), installed by
//! `scripts/test-deps.sh` on first use in a test run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Where the installed tools are.
#[derive(Debug)]
pub struct Deps {
    /// `tests/clients`: the npm packages' folder and our scripts that import
    /// them (e.g. `oidc/provider.mjs`).
    pub clients: PathBuf,
    pub node22: PathBuf,
    pub inspector: PathBuf,
    pub server_everything: PathBuf,
    pub server_filesystem: PathBuf,
    /// `@playwright/mcp`'s `cli.js`.
    pub playwright_mcp: PathBuf,
    /// `@wonderwhy-er/desktop-commander`'s `dist/index.js`.
    pub desktop_commander: PathBuf,
    /// Debian's `chromium` launcher, the browser Playwright MCP drives.
    pub chromium: PathBuf,
    /// The MCP conformance suite, 0.1.16 and the 0.2 alpha (`dist/index.js`).
    pub conformance: PathBuf,
    pub conformance_next: PathBuf,
    pub python: PathBuf,
    pub mcp_client: PathBuf,
}

/// Installs (or finds) the tools; panics with the installer's output when
/// that fails, since the tests that need them cannot run without them.
pub fn deps() -> &'static Deps {
    static DEPS: OnceLock<Deps> = OnceLock::new();
    DEPS.get_or_init(|| {
        let tests = Path::new(env!("CARGO_MANIFEST_DIR"));
        let script = tests.join("../scripts/test-deps.sh");
        let output = Command::new("bash")
            .arg(&script)
            .output()
            .expect("bash runs");
        assert!(
            output.status.success(),
            "scripts/test-deps.sh failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let vars: HashMap<String, PathBuf> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), PathBuf::from(v)))
            .collect();
        let get = |name: &str| {
            let path = vars
                .get(name)
                .unwrap_or_else(|| panic!("test-deps.sh did not print {name}"))
                .clone();
            assert!(path.exists(), "{name}={} does not exist", path.display());
            path
        };
        Deps {
            clients: tests.join("clients"),
            node22: get("MCP_SIEVE_NODE22"),
            inspector: get("MCP_SIEVE_INSPECTOR"),
            server_everything: get("MCP_SIEVE_SERVER_EVERYTHING"),
            server_filesystem: get("MCP_SIEVE_SERVER_FILESYSTEM"),
            playwright_mcp: get("MCP_SIEVE_PLAYWRIGHT_MCP"),
            desktop_commander: get("MCP_SIEVE_DESKTOP_COMMANDER"),
            chromium: get("MCP_SIEVE_CHROMIUM"),
            conformance: get("MCP_SIEVE_CONFORMANCE"),
            conformance_next: get("MCP_SIEVE_CONFORMANCE_NEXT"),
            python: get("MCP_SIEVE_PYTHON"),
            mcp_client: get("MCP_SIEVE_MCP_CLIENT"),
        }
    })
}
