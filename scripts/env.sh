# Sourced by run.sh and test.sh (and so by .ci/run). Each clone builds into
# its own target folder, so a test never runs a binary that another checkout
# built. A caller that wants one folder for several clones sets
# CARGO_TARGET_DIR itself.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
