#!/usr/bin/env bash
# The proxy's benchmarks (tests/benches/proxy): installs what they compare
# with (scripts/test-deps.sh, scripts/bench-deps.sh), then runs the harness
# in a release build and prints its tables.
#
#   scripts/bench.sh                    # every section, full size
#   scripts/bench.sh --smoke            # every section, a few hundred calls
#   scripts/bench.sh calls lists        # only those sections
#
# Sections: calls, lists, changes, ledger, memory, team, targets
# (docs/benchmarks.md says what each measures; `targets` is issue 33's
# figures side by side with a yes or no). The first full `ledger` run builds a 1,000,000-entry
# ledger (about 770 MB) once under the target folder.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/env.sh
source scripts/env.sh
eval "$(scripts/test-deps.sh)"
eval "$(scripts/bench-deps.sh)"
export MCP_SIEVE_PEER_GATEWAY
# The harness measures `mcp-sieve` as it ships: the release build of
# sieve-cli, its code laid out by crates/sieve-cli/link-order.txt.
cargo build --release --locked -p sieve-cli --bin mcp-sieve
MCP_SIEVE_BENCH_SIEVE="$CARGO_TARGET_DIR/release/mcp-sieve"
export MCP_SIEVE_BENCH_SIEVE
exec cargo bench -p sieve-tests --bench proxy -- "$@"
