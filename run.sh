#!/usr/bin/env bash
# Builds MCP Sieve and runs it. With no arguments it shows what the built-in
# demo server offers under the default profile (the embedded default when
# config.json lists no server); any arguments go to `mcp-sieve`.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/env.sh
cargo build --quiet -p sieve-proxy --bin mcp-sieve
bin="$CARGO_TARGET_DIR/debug/mcp-sieve"
if [ "$#" -gt 0 ]; then
  exec "$bin" "$@"
fi
"$bin" tools --explain
"$bin" tokens
