#!/usr/bin/env bash
# A headless "browser" for sign-in tests: run as `$BROWSER URL` by
# `mcp-sieve servers login` and the probe. It requests the authorization
# URL as a browser would, follows the authorization server's redirects (the
# conformance suite's server, and our test servers, redirect straight back
# with a code, approving at once) and requests the last one, the loopback
# callback, so the waiting sign-in gets its code. Output goes to stderr.
set -euo pipefail
url="$1"
for _ in 1 2 3 4 5 6 7 8; do
  next="$(curl -sS -o /dev/null -w '%{redirect_url}' "$url")"
  if [ -z "$next" ]; then
    echo "follow-redirect: $url did not redirect; a person would have to act on that page" >&2
    exit 1
  fi
  case "$next" in
    http://127.0.0.1:*/callback*)
      curl -sS -o /dev/null "$next"
      exit 0
      ;;
  esac
  url="$next"
done
echo "follow-redirect: too many redirects, last $url" >&2
exit 1
