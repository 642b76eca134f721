//! The binary under test under the name it is installed with, `mcp-sieve`.
//!
//! `mcp-sieve hosts route` writes its own path into a host's file, and
//! knows that entry again (to leave it out of what it imports, to replace
//! it, to take it out on unroute) by the program's name. Under cargo's name
//! for it, `mcp-sieve-under-test`, a second route would take the entry the
//! first one wrote for one of the host's servers, so the tests of routing
//! run a hard link named `mcp-sieve` beside it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// `binary` (pass `env!("CARGO_BIN_EXE_mcp-sieve-under-test")`) as
/// `<its folder>/installed/mcp-sieve`: linked on first use, and again
/// whenever cargo has rebuilt it since.
pub fn mcp_sieve(binary: &str) -> &'static Path {
    static INSTALLED: OnceLock<PathBuf> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let binary = Path::new(binary);
        let folder = binary
            .parent()
            .expect("the binary is in a folder")
            .join("installed");
        std::fs::create_dir_all(&folder)
            .unwrap_or_else(|e| panic!("cannot make {}: {e}", folder.display()));
        let installed = folder.join("mcp-sieve");
        if !same_file(binary, &installed) {
            // Linked under a name of this process's own, then renamed over
            // the old link, so that another test binary running the old one
            // meanwhile never finds it half made.
            let fresh = folder.join(format!("mcp-sieve.{}", std::process::id()));
            let _ = std::fs::remove_file(&fresh);
            if std::fs::hard_link(binary, &fresh).is_err() {
                std::fs::copy(binary, &fresh).unwrap_or_else(|e| {
                    panic!(
                        "cannot copy {} to {}: {e}",
                        binary.display(),
                        fresh.display()
                    )
                });
            }
            std::fs::rename(&fresh, &installed)
                .unwrap_or_else(|e| panic!("cannot make {}: {e}", installed.display()));
        }
        installed
    })
}

fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (a.metadata(), b.metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// The folder of the hosts' own programs that scripts/host-programs.sh
/// installs and names in `MCP_SIEVE_HOST_BIN`, with each of `programs` in
/// it; fails, saying how to install them, when one is not there: the tests
/// they judge are part of every run.
pub fn host_programs(programs: &[&str]) -> PathBuf {
    let install = "install them with `eval \"$(scripts/host-programs.sh)\"; export MCP_SIEVE_HOST_BIN` (./test.sh does)";
    let dir = std::env::var_os("MCP_SIEVE_HOST_BIN")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!("MCP_SIEVE_HOST_BIN is not set: the hosts' own programs judge these tests; {install}")
        });
    for program in programs {
        assert!(
            dir.join(program).is_file(),
            "{program} is missing from MCP_SIEVE_HOST_BIN={}; {install}",
            dir.display()
        );
    }
    dir
}
