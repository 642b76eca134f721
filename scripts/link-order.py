#!/usr/bin/env python3
"""Records the functions `mcp-sieve serve` runs, for the linker to lay out.

Runs a release build of `mcp-sieve` under valgrind's callgrind, as a host
would use it with the built-in demo server: `serve --http` (two sessions,
each an initialize, lists and calls) and `serve` over stdio (the same), then
writes the functions of the binary that ran, one mangled name a line, to
crates/sieve-cli/link-order.txt. The release build reads that file
(crates/sieve-cli/build.rs) and puts those functions first in its code.

Run it again when few of the names are found in the build (the code
changed since they were recorded; `--check` and `scripts/bench.sh targets`
say how many are):

    CARGO_TARGET_DIR=... cargo build --release -p sieve-cli
    python3 scripts/link-order.py TARGET_DIR/release/mcp-sieve

Needs valgrind (Debian: `apt-get install valgrind`). Takes about ten seconds.

    python3 scripts/link-order.py --check BINARY

prints how many of the recorded functions BINARY holds, and fails when it
holds fewer than nine in ten (scripts/package-deb.sh runs it).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "crates" / "sieve-cli" / "link-order.txt"
CALLS = 5


def under_valgrind(log: Path) -> list[str]:
    return [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={log}",
        "--dump-instr=no",
        "--compress-strings=no",
        "--demangle=no",
    ]


def home_with_demo(binary: str) -> str:
    home = tempfile.mkdtemp(prefix="link-order-")
    config = {"mcpServers": {"demo": {"command": binary, "args": ["demo-server"]}}}
    Path(home, "config.json").write_text(json.dumps(config))
    return home


def initialize(n: int) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": n,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "link-order", "version": "1"},
        },
    }


def call(n: int) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": n,
        "method": "tools/call",
        "params": {"name": "demo__list_issues", "arguments": {}},
    }


def over_http(binary: str, log: Path) -> None:
    home = home_with_demo(binary)
    token = subprocess.run(
        [binary, "--home", home, "serve", "--print-token"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    proxy = subprocess.Popen(
        under_valgrind(log) + [binary, "--home", home, "serve", "--http", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True,
    )
    address = None
    for line in proxy.stderr:
        if "MCP Sieve is serving http://" in line:
            address = line.split("http://")[1].split("/")[0]
            break
    if address is None:
        sys.exit("link-order: serve --http never said where it serves")
    url = f"http://{address}/mcp"

    def post(body: dict, session: str | None = None) -> tuple[str | None, bytes]:
        headers = {
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        if session:
            headers["Mcp-Session-Id"] = session
            headers["MCP-Protocol-Version"] = "2025-11-25"
        request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers)
        with urllib.request.urlopen(request, timeout=120) as answer:
            return answer.headers.get("Mcp-Session-Id"), answer.read()

    for _ in range(2):
        session, _ = post(initialize(1))
        post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        while b"demo__" not in post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session)[1]:
            time.sleep(0.2)
        for n in range(CALLS):
            post(call(10 + n), session)
    proxy.terminate()
    proxy.wait()
    shutil.rmtree(home, ignore_errors=True)


def over_stdio(binary: str, log: Path) -> None:
    home = home_with_demo(binary)
    proxy = subprocess.Popen(
        under_valgrind(log) + [binary, "--home", home, "serve"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )

    def ask(message: dict) -> dict:
        proxy.stdin.write(json.dumps(message).encode() + b"\n")
        proxy.stdin.flush()
        while True:
            line = proxy.stdout.readline()
            if not line:
                sys.exit("link-order: serve over stdio closed its output")
            answer = json.loads(line)
            if answer.get("id") == message["id"]:
                return answer

    ask(initialize(1))
    proxy.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    proxy.stdin.flush()
    n = 2
    while "demo__" not in json.dumps(ask({"jsonrpc": "2.0", "id": n, "method": "tools/list"})):
        n += 1
        time.sleep(0.2)
    for m in range(CALLS):
        ask(call(100 + m))
    proxy.stdin.close()
    proxy.wait(timeout=120)
    shutil.rmtree(home, ignore_errors=True)


def functions_run(log: Path, binary: str) -> set[str]:
    """The functions of `binary` that callgrind saw run."""
    name = os.path.basename(binary)
    run: set[str] = set()
    in_binary = False
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("ob="):
            in_binary = os.path.basename(line[3:].strip()) == name
        elif line.startswith("fn=") and in_binary:
            # callgrind marks a recursive call's cycle as NAME'2.
            run.add(re.sub(r"'\d+$", "", line[3:].strip()))
    return run


def defined_functions(binary: str) -> set[str]:
    listing = subprocess.run(
        ["nm", "--defined-only", binary], capture_output=True, text=True, check=True
    ).stdout
    return {
        fields[2]
        for fields in (line.split() for line in listing.splitlines())
        if len(fields) == 3 and fields[1] in "tTwW"
    }


def check(binary: str) -> None:
    recorded = [name for name in OUT.read_text().splitlines() if name]
    held = defined_functions(binary)
    found = sum(name in held for name in recorded)
    print(f"link-order: {binary} holds {found} of the {len(recorded)} functions {OUT.relative_to(ROOT)} names")
    if found * 10 < len(recorded) * 9:
        sys.exit(
            "link-order: fewer than nine in ten are laid out; record them again with "
            f"`python3 scripts/link-order.py {binary}` (needs valgrind) and commit the list"
        )


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        check(os.path.abspath(sys.argv[2]))
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    if shutil.which("valgrind") is None:
        sys.exit("link-order: valgrind is not installed; on Debian: apt-get install valgrind")
    work = Path(tempfile.mkdtemp(prefix="link-order-logs-"))
    over_http(binary, work / "http.out")
    over_stdio(binary, work / "stdio.out")
    run = functions_run(work / "http.out", binary) | functions_run(work / "stdio.out", binary)
    names = sorted(run & defined_functions(binary))
    if len(names) < 500:
        sys.exit(f"link-order: only {len(names)} functions seen; is {binary} a release build with symbols?")
    OUT.write_text("".join(f"{name}\n" for name in names))
    shutil.rmtree(work, ignore_errors=True)
    print(f"link-order: {len(names)} functions written to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
