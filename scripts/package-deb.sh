#!/usr/bin/env bash
# Builds the desktop app's Debian package, with the mcp-sieve command line
# inside it (installed beside the app, so the app's stdio snippets can
# name it), and the sentence model its tool search ranks with
# (scripts/model-deps.sh; /usr/share/mcp-sieve/models/all-MiniLM-L6-v2,
# 91 MB, where the program looks beside /usr/bin):
# target/release/bundle/deb/MCP Sieve_<version>_amd64.deb.
# AppImage is not built: its bundler downloads tools at build time, which
# the project's machines cannot. `--debug` packages a debug build instead
# (quicker; target/debug/bundle/deb/).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
eval "$(scripts/app-deps.sh)" >/dev/null
eval "$(scripts/model-deps.sh)"
profile=release
cargo_flags=(--release)
tauri_flags=()
if [ "${1:-}" = "--debug" ]; then
  profile=debug
  cargo_flags=()
  tauri_flags=(--debug)
fi
cargo build "${cargo_flags[@]}" --locked -p sieve-cli --bin mcp-sieve
if [ "$profile" = release ] && [ "$(uname -m)" = x86_64 ]; then
  # The functions `serve` runs laid out together (crates/sieve-cli/link_order.rs):
  # a list that drifted from the code is said here, before it ships.
  python3 scripts/link-order.py --check "$CARGO_TARGET_DIR/release/mcp-sieve" ||
    echo "package-deb: packaging anyway; the proxy holds more memory until the list is recorded again" >&2
fi
triple="$(rustc -vV | sed -n 's/^host: //p')"
mkdir -p src-tauri/binaries
cp "$CARGO_TARGET_DIR/$profile/mcp-sieve" "src-tauri/binaries/mcp-sieve-$triple"
model_files="$(python3 -c '
import json, sys
folder = sys.argv[1]
print(json.dumps({f"/usr/share/mcp-sieve/models/all-MiniLM-L6-v2/{name}": f"{folder}/{name}"
                  for name in ("model.safetensors", "config.json", "tokenizer.json")}))
' "$MCP_SIEVE_MODEL")"
# tauri build builds ui/dist first (beforeBuildCommand in tauri.conf.json).
ui/node_modules/.bin/tauri build "${tauri_flags[@]}" --bundles deb \
  --config "{\"bundle\": {\"externalBin\": [\"binaries/mcp-sieve\"], \"linux\": {\"deb\": {\"files\": $model_files}}}}"
ls -l "$CARGO_TARGET_DIR/$profile"/bundle/deb/*.deb
