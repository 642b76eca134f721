#!/usr/bin/env bash
# Builds MCP Sieve and runs its main job: the desktop app when there is a
# display, else the proxy alone.
#
# * With a display ($DISPLAY or $WAYLAND_DISPLAY): the app (installing what
#   it needs on first use, see scripts/app-deps.sh). While it is open it
#   serves hosts at http://127.0.0.1:${MCP_SIEVE_APP_PORT:-8765}/mcp.
# * Without one: the proxy over streamable HTTP on
#   127.0.0.1:${MCP_SIEVE_PORT:-8765} (endpoint /mcp, bearer token from
#   `mcp-sieve serve --print-token`). Ctrl-C stops it.
#
# Either way it stands in front of the servers of config.json, or of the
# built-in demo server when it lists none. With arguments, runs
# `mcp-sieve ARGS...` instead. MCP_SIEVE_HOME or --home chooses the folder.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/env.sh
cargo build --quiet --locked -p sieve-cli --bin mcp-sieve
# The sentence model the tool search ranks with, fetched once into the
# cache the program looks in; without it, search ranks by words alone.
scripts/model-deps.sh >/dev/null ||
  echo "run.sh: the sentence model could not be fetched; the tool search ranks by words alone until scripts/model-deps.sh succeeds" >&2
bin="$CARGO_TARGET_DIR/debug/mcp-sieve"
if [ "$#" -gt 0 ]; then
  exec "$bin" "$@"
fi
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  eval "$(scripts/app-deps.sh)" >/dev/null
  npm --prefix ui run build >&2
  cargo build --quiet --locked -p sieve-app --features custom-protocol
  exec "$CARGO_TARGET_DIR/debug/mcp-sieve-app"
fi
echo "token: $("$bin" serve --print-token)" >&2
exec "$bin" serve --http "127.0.0.1:${MCP_SIEVE_PORT:-8765}"
