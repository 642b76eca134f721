# Shared by run.sh, test.sh and .ci/run: one cargo target folder outside the
# clone, so a warm machine rebuilds only what changed.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mcp-sieve-target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
