#!/usr/bin/env bash
# Installs the AI hosts' own programs, whose `mcp` commands judge the entries
# MCP Sieve writes into their config files (DESIGN §11): claude, codex,
# gemini, qwen and opencode, with a Node 22 for the two that ask for it, all
# pinned by scripts/host-programs/package.json and its lock file. They go into
# a folder outside the clone named after the hash of those two files (about
# 1.4 GB, most of it native binaries). Safe to run again: skipped while that
# folder's install is complete; concurrent runs wait for each other. Prints
# MCP_SIEVE_HOST_BIN=DIR for `eval "$(scripts/host-programs.sh)"`: DIR holds
# claude, codex, gemini, qwen, opencode and node (22); put it first on PATH
# when running them. Progress goes to stderr. How each program reads its file
# and what it prints is in docs/hosts-programs.md.
#
# Environment: MCP_SIEVE_TOOLS (default ~/.cache/mcp-sieve-tools).
set -euo pipefail
pins="$(cd "$(dirname "$0")" && pwd)/host-programs"
tools="${MCP_SIEVE_TOOLS:-$HOME/.cache/mcp-sieve-tools}"
hash="$(cat "$pins/package.json" "$pins/package-lock.json" | sha256sum | cut -c1-12)"
root="$tools/hosts-$hash"
bin="$root/node_modules/.bin"

say() { echo "host-programs: $*" >&2; }

install() {
  command -v npm >/dev/null || {
    say "npm is missing; install Node.js with npm (apt-get install nodejs npm) and run again"
    exit 1
  }
  local stage="$root.partial"
  rm -rf "$stage"
  mkdir -p "$stage"
  cp "$pins/package.json" "$pins/package-lock.json" "$stage/"
  say "npm install into $root (about 1.4 GB, once)"
  # `npm install`, not `npm ci`: a lock file written against a registry that
  # lacks some other platform's optional package (opencode-darwin-arm64 is
  # not on every mirror) is "out of sync" to npm ci, and install keeps to the
  # lock file anyway; the check after it says whether it did.
  #
  # Without install scripts: node-pty's (an optional dependency of gemini)
  # compiles with node-gyp, which fetches Node's headers from nodejs.org, not
  # the registry, and none of these programs needs it for `mcp`. The scripts
  # that matter only copy a binary out of a platform package that npm has
  # already fetched from the registry; they run below.
  (cd "$stage" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
  if ! cmp -s "$pins/package-lock.json" "$stage/package-lock.json"; then
    diff "$pins/package-lock.json" "$stage/package-lock.json" | head -40 >&2 || true
    say "npm install strayed from scripts/host-programs/package-lock.json (above); update the lock file"
    exit 1
  fi
  local modules="$stage/node_modules"
  (cd "$modules/@anthropic-ai/claude-code" && node install.cjs >&2)
  (cd "$modules/opencode-ai" && node postinstall.mjs >&2)
  (cd "$modules/@github/keytar" && node script/install.js >&2)

  # Each program must start: a postinstall that finds no platform package
  # leaves a stub behind and still succeeds. A scratch HOME keeps their first
  # run out of the user's.
  local home
  home="$(mktemp -d)"
  local program
  for program in claude codex gemini qwen opencode node; do
    if ! HOME="$home" PATH="$modules/.bin:$PATH" "$modules/.bin/$program" --version \
      </dev/null >/dev/null 2>"$home/stderr"; then
      cat "$home/stderr" >&2
      rm -rf "$home"
      say "$program does not start after the install; see above"
      exit 1
    fi
  done
  rm -rf "$home"

  rm -rf "$root"
  mv "$stage" "$root"
  touch "$root/.installed"
}

if [ ! -f "$root/.installed" ]; then
  mkdir -p "$tools"
  exec 9>"$root.lock"
  flock 9
  [ -f "$root/.installed" ] || install
  exec 9>&-
fi

echo "MCP_SIEVE_HOST_BIN=$bin"
