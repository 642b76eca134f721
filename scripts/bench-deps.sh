#!/usr/bin/env bash
# Installs what the benchmark harness (tests/benches/proxy) compares the
# proxy with, beyond what scripts/test-deps.sh installs: the peer gateway
# `mcp-proxy` from crates.io, pinned, without its optional features (the
# harness uses only its stdio backends and streamable HTTP front). Safe to
# run again: skipped while the pinned version is installed. Prints
# MCP_SIEVE_PEER_GATEWAY=PATH for `eval "$(scripts/bench-deps.sh)"`;
# progress goes to stderr.
#
# Environment: MCP_SIEVE_TOOLS (default ~/.cache/mcp-sieve-tools).
set -euo pipefail
tools="${MCP_SIEVE_TOOLS:-$HOME/.cache/mcp-sieve-tools}"
version=0.6.0
root="$tools/mcp-proxy-$version"
binary="$root/bin/mcp-proxy"

say() { echo "bench-deps: $*" >&2; }

if [ ! -x "$binary" ] || [ ! -f "$root/.installed" ]; then
  say "cargo install mcp-proxy $version (several minutes, once)"
  # Its own target folder, so it never waits on the project's build lock.
  CARGO_TARGET_DIR="$tools/build-mcp-proxy" cargo install --quiet --locked \
    --no-default-features --version "=$version" --root "$root" mcp-proxy >&2
  rm -rf "$tools/build-mcp-proxy"
  touch "$root/.installed"
fi

echo "MCP_SIEVE_PEER_GATEWAY=$binary"
