#!/usr/bin/env bash
# Runs every check and test of MCP Sieve: formatting, clippy, unit,
# property and integration tests.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/env.sh
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
