#!/usr/bin/env bash
# Installs what the desktop app needs to build, run and be tested end to
# end: Debian's WebKitGTK and GTK development packages, the appindicator
# library of the tray, Xvfb and WebKitWebDriver (apt, as root), the UI's
# npm packages (ui/, from its lock file), the end-to-end tests' npm
# packages (tests/e2e/) and tauri-driver (crates.io, pinned). Safe to run
# again: each part is skipped while its pinned inputs are unchanged.
# Prints NAME=PATH lines for `eval "$(scripts/app-deps.sh)"`; progress goes
# to stderr.
#
# Environment: MCP_SIEVE_TOOLS (default ~/.cache/mcp-sieve-tools) is where
# tauri-driver is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
tools="${MCP_SIEVE_TOOLS:-$HOME/.cache/mcp-sieve-tools}"
tauri_driver_version=2.1.0

say() { echo "app-deps: $*" >&2; }

packages=(
  build-essential pkg-config libssl-dev
  libwebkit2gtk-4.1-dev libgtk-3-dev libsoup-3.0-dev libjavascriptcoregtk-4.1-dev
  librsvg2-dev libayatana-appindicator3-dev
  xvfb xauth webkit2gtk-driver
)
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    say "missing ${missing[*]}; install them (apt-get install ${missing[*]}) and run again"
    exit 1
  fi
  say "installing ${missing[*]} with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq "${missing[@]}" >&2
fi

hash_of() { cat "$@" | sha256sum | cut -d' ' -f1; }

# `npm install`, not `npm ci`: npm ci has rejected lock files written by
# npm 11 here, and install keeps to the lock file anyway.
npm_packages() {
  local dir="$1"
  local stamp="$dir/node_modules/.mcp-sieve-stamp"
  local want
  want="$(hash_of "$dir/package.json" "$dir/package-lock.json")"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    say "npm install in ${dir#"$root"/}"
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error >&2)
    hash_of "$dir/package.json" "$dir/package-lock.json" >"$stamp"
  fi
}
npm_packages "$root/ui"
if [ -f "$root/tests/e2e/package.json" ]; then
  npm_packages "$root/tests/e2e"
fi

driver="$tools/bin/tauri-driver"
driver_stamp="$tools/.tauri-driver-$tauri_driver_version"
if [ ! -x "$driver" ] || [ ! -f "$driver_stamp" ]; then
  say "cargo install tauri-driver $tauri_driver_version (a few minutes, once)"
  # Its own target folder, so it never waits on the project's build lock.
  CARGO_TARGET_DIR="$tools/build" cargo install --quiet --locked \
    --version "=$tauri_driver_version" --root "$tools" tauri-driver >&2
  rm -rf "$tools/build"
  touch "$driver_stamp"
fi

cat <<OUT
MCP_SIEVE_TAURI_DRIVER=$driver
MCP_SIEVE_WEBKIT_DRIVER=$(command -v WebKitWebDriver)
OUT
