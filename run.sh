#!/usr/bin/env bash
# Builds MCP Sieve and runs its main job. The desktop app is not built yet,
# so that is the proxy: streamable HTTP on 127.0.0.1:${MCP_SIEVE_PORT:-8765}
# (endpoint /mcp, bearer token from `mcp-sieve serve --print-token`), in front
# of the servers of config.json, or of the built-in demo server when it lists
# none. Ctrl-C stops it. With arguments, runs `mcp-sieve ARGS...` instead.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/env.sh
cargo build --quiet -p sieve-cli --bin mcp-sieve
bin="$CARGO_TARGET_DIR/debug/mcp-sieve"
if [ "$#" -gt 0 ]; then
  exec "$bin" "$@"
fi
echo "token: $("$bin" serve --print-token)" >&2
exec "$bin" serve --http "127.0.0.1:${MCP_SIEVE_PORT:-8765}"
