#!/usr/bin/env bash
# Runs every check and test of MCP Sieve: formatting, clippy, unit,
# property and integration tests (the integration tests install their
# third-party clients and servers with scripts/test-deps.sh on first use).
set -euo pipefail
cd "$(dirname "$0")"
. scripts/env.sh
eval "$(scripts/test-deps.sh)"
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
# The Python driver the integration tests use has tests of its own.
"$MCP_SIEVE_PYTHON" -m unittest discover -s tests/clients
cargo test --workspace --locked
