#!/usr/bin/env bash
# The end-to-end tests of the desktop app: the real app (built with the
# custom-protocol feature, so it serves ui/dist) in real WebKit, driven
# through tauri-driver and WebKitWebDriver under Xvfb by the specs of
# tests/e2e (selenium-webdriver, `node --test`).
#
#   scripts/e2e.sh                 # every spec of tests/e2e/specs
#   scripts/e2e.sh tools profiles  # only those specs
#
# It builds the UI, mcp-sieve and the app, installs what is missing
# (scripts/app-deps.sh, scripts/test-deps.sh), then runs one spec file at a
# time, each with a tauri-driver of its own (one WebDriver session at a
# time), and ends every process it started. Screenshots go to
# docs/screenshots/; the measurements are printed. The exit status is
# non-zero when any spec fails.
#
# Environment: E2E_APP=FILE tests that app binary (a release build, say)
# instead of building one; E2E_KEEP=1 keeps the temp folder (homes, logs)
# for a look; E2E_SPEC_TIMEOUT (seconds, default 900) bounds each test.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
# shellcheck source=scripts/env.sh
source scripts/env.sh

say() { echo "e2e: $*" >&2; }

# Under Xvfb, in a session of our own: the specs, and the sweep after them.
if [ "${1:-}" = "--under-xvfb" ]; then
  shift
  cd "$root/tests/e2e"
  driver_pid=
  stop_driver() {
    if [ -n "$driver_pid" ]; then
      # tauri-driver ends WebKitWebDriver on SIGTERM.
      kill -TERM "$driver_pid" 2>/dev/null || true
      wait "$driver_pid" 2>/dev/null || true
      driver_pid=
    fi
  }
  # Everything started under this session (the app, WebKit, the upstream
  # servers, hosts) that is still there is named and ended.
  sweep() {
    local left
    left="$(node -e '
      const fs = require("fs");
      const session = process.argv[1];
      for (const name of fs.readdirSync("/proc")) {
        if (!/^\d+$/.test(name) || name === session || [process.pid, process.ppid].includes(Number(name))) continue;
        let text;
        try { text = fs.readFileSync(`/proc/${name}/stat`, "utf8"); } catch { continue; }
        const close = text.lastIndexOf(")");
        const fields = text.slice(close + 2).split(" ");
        // Field 6 of stat is the session id; zombies are only waiting for a parent.
        if (fields[3] === session && fields[0] !== "Z") console.log(name + " " + text.slice(text.indexOf("(") + 1, close));
      }' "$$")"
    if [ -n "$left" ]; then
      say "ending processes left behind: $(echo "$left" | tr '\n' ' ')"
      # shellcheck disable=SC2046
      kill -KILL $(echo "$left" | cut -d' ' -f1) 2>/dev/null || true
    fi
  }
  trap 'stop_driver; sweep' EXIT

  free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

  failed=()
  passed=()
  declare -A totals=([tests]=0 [pass]=0 [fail]=0)
  for spec in "$@"; do
    port="$(free_port)"
    native_port="$(free_port)"
    while [ "$native_port" = "$port" ]; do native_port="$(free_port)"; done
    log="$E2E_TMP/tauri-driver-$(basename "$spec" .spec.js).log"
    "$MCP_SIEVE_TAURI_DRIVER" --port "$port" --native-port "$native_port" \
      --native-driver "$MCP_SIEVE_WEBKIT_DRIVER" >"$log" 2>&1 &
    driver_pid=$!
    export E2E_WEBDRIVER_URL="http://127.0.0.1:$port"
    # Ready when WebKitWebDriver answers /status through tauri-driver.
    if ! node -e '
      const url = process.argv[1] + "/status";
      const deadline = Date.now() + 30000;
      (async () => {
        for (;;) {
          try { if ((await fetch(url)).ok) return; } catch {}
          if (Date.now() > deadline) { console.error("tauri-driver did not answer " + url); process.exit(1); }
          await new Promise((r) => setTimeout(r, 100));
        }
      })();' "$E2E_WEBDRIVER_URL"; then
      cat "$log" >&2
      failed+=("$spec")
      stop_driver
      continue
    fi
    say "running $spec"
    out="$E2E_TMP/$(basename "$spec" .spec.js).out"
    # A failing spec must not end the loop (set -e, pipefail).
    set +e
    node --test --test-reporter=spec --test-timeout="$((${E2E_SPEC_TIMEOUT:-900} * 1000))" "$spec" 2>&1 | tee "$out"
    spec_status="${PIPESTATUS[0]}"
    set -e
    # node's own summary lines, added up over the files.
    for count in tests pass fail; do
      n="$(sed -n "s/^ℹ $count \([0-9]*\)$/\1/p" "$out" | tail -n 1)"
      totals[$count]=$((${totals[$count]} + ${n:-0}))
    done
    if [ "$spec_status" -eq 0 ]; then
      passed+=("$spec")
    else
      failed+=("$spec")
      say "the log of tauri-driver, WebKitWebDriver and the app for $spec (last 60 lines):"
      tail -n 60 "$log" >&2
    fi
    stop_driver
  done
  echo
  echo "e2e: ${totals[tests]} tests, ${totals[pass]} passed, ${totals[fail]} failed;" \
    "${#passed[@]} spec files passed, ${#failed[@]} failed${failed[*]:+: ${failed[*]}}"
  if [ "${#failed[@]}" -eq 0 ]; then exit 0; else exit 1; fi
fi

# What the run needs, installed when missing.
eval "$(scripts/app-deps.sh)"
eval "$(scripts/test-deps.sh)"
export MCP_SIEVE_TAURI_DRIVER MCP_SIEVE_WEBKIT_DRIVER MCP_SIEVE_NODE22 MCP_SIEVE_SERVER_EVERYTHING

say "building mcp-sieve"
cargo build --quiet -p sieve-cli --bin mcp-sieve
app="${E2E_APP:-}"
if [ -z "$app" ]; then
  # The app embeds ui/dist when it is built, so the page comes first.
  say "building the UI (ui/dist) and the app (custom-protocol)"
  npm --prefix ui run build --silent >/dev/null
  cargo build --quiet -p sieve-app --features custom-protocol
  app="$CARGO_TARGET_DIR/debug/mcp-sieve-app"
  export E2E_APP_LABEL="debug build"
else
  say "testing the app $app"
  export E2E_APP_LABEL="$app"
fi

E2E_TMP="$(mktemp -d "${TMPDIR:-/tmp}/mcp-sieve-e2e.XXXXXX")"
export E2E_TMP
cleanup() {
  if [ -n "${E2E_KEEP:-}" ]; then
    say "kept $E2E_TMP"
  else
    rm -rf "$E2E_TMP"
  fi
}
trap cleanup EXIT

# The binaries under test, linked into the run's folder: a build of the
# shared target folder meanwhile (say, the app without custom-protocol)
# cannot swap them under the run. The app finds mcp-sieve beside itself.
mkdir -p "$E2E_TMP/bin"
link() { ln "$1" "$2" 2>/dev/null || cp "$1" "$2"; }
link "$CARGO_TARGET_DIR/debug/mcp-sieve" "$E2E_TMP/bin/mcp-sieve"
link "$app" "$E2E_TMP/bin/mcp-sieve-app"
export MCP_SIEVE_APP="$E2E_TMP/bin/mcp-sieve-app"
export MCP_SIEVE_CLI="$E2E_TMP/bin/mcp-sieve"
export E2E_SCREENSHOTS="$root/docs/screenshots"

# The screens first, then the screenshots, the measurements last; a spec
# not named here runs after the screens.
specs=()
if [ "$#" -gt 0 ]; then
  for name in "$@"; do specs+=("specs/$name.spec.js"); done
else
  order=(servers tools quarantine profiles tasks connect)
  last=(screenshots measure)
  for name in "${order[@]}"; do specs+=("specs/$name.spec.js"); done
  for file in tests/e2e/specs/*.spec.js; do
    name="$(basename "$file" .spec.js)"
    case " ${order[*]} ${last[*]} " in *" $name "*) ;; *) specs+=("specs/$name.spec.js") ;; esac
  done
  for name in "${last[@]}"; do specs+=("specs/$name.spec.js"); done
fi
for spec in "${specs[@]}"; do
  [ -f "tests/e2e/$spec" ] || { say "no spec tests/e2e/$spec"; exit 1; }
done

# 1920x1080 so the 1200x800 window fits whole in the screenshots.
status=0
xvfb-run -a -s "-screen 0 1920x1080x24" setsid --wait bash "$root/scripts/e2e.sh" --under-xvfb "${specs[@]}" || status=$?
exit "$status"
