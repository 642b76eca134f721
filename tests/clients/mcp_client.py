"""Drive an MCP server with the official Python client (`mcp` 2.3.0), from a script.

The integration tests of MCP Sieve use this to talk to the proxy (and to real
servers) through a real third-party client: its transports, its protocol
negotiation, its per-request envelope and its result validation.

    python mcp_client.py --stdio "mcp-sieve serve --profile work" script.json
    python mcp_client.py --http http://127.0.0.1:PORT/mcp --header "Authorization: Bearer T" < script.json

The script is a JSON list of steps, run in order on one connection:

    {"op": "list_tools", "params": {"filter": {"groups": ["files"]}}}
    {"op": "call_tool", "name": "demo__list_files", "arguments": {"prefix": "docs/"}}
    {"op": "list_prompts"}   {"op": "get_prompt", "name": "p", "arguments": {"a": "1"}}
    {"op": "list_resources"} {"op": "list_resource_templates"} {"op": "read_resource", "uri": "file:///x"}
    {"op": "ping"}                                   (2025-11-25 and older: 2026-07-28 has no ping)
    {"op": "request", "method": "groups/list", "params": {}}
    {"op": "wait_notification", "method": "notifications/tools/list_changed", "timeout": 5}
    {"op": "notifications"}

Every op also takes "params": extra fields merged into the request's params as
they are (how a host passes `filter` or `_meta`). A request op may take
"answers", an object from method (`elicitation/create`,
`sampling/createMessage`, `roots/list`) to the result to give: a 2026-07-28
`input_required` result is then answered and the request sent again, as a
host would, and the final result carries `"x-rounds"`. `wait_notification` takes the
oldest notification of that method not yet taken, received at any time since
the connection opened; `notifications` takes all the untaken ones.

Output, on stdout, one JSON object per line: first the connection

    {"step": 0, "op": "connect", "result": {"protocolVersion": ..., "serverInfo": ..., "capabilities": ..., ...}}

then one line per step, with the raw result as the server sent it, or the error:

    {"step": 1, "op": "call_tool", "result": {...}}
    {"step": 2, "op": "call_tool", "error": {"kind": "jsonrpc", "code": -32602, "message": "...", "data": ...}}

Error kinds: "jsonrpc" (the server answered with an error), "invalid_result"
(the answer does not match the negotiated protocol version's schema),
"timeout" (no such notification in time), "transport" (anything else).
A step's error never stops the script. Exit status: 0 when every step ran,
2 when the connection or the script failed (then the error is on line 0 or
stderr).

`--protocol` chooses the protocol generation: `auto` (the library's default:
probe `server/discover` at 2026-07-28, fall back to `initialize`),
`2025-11-25` (only `initialize`), `2026-07-28` (only `server/discover`, no
fallback). On 2026-07-28 a server sends list_changed notifications only on a
`subscriptions/listen` stream, so when the script waits for notifications the
client opens one at the start (reported as `listen` on line 0).

Requests go out through `ClientSession.send_request`, so they carry the
library's envelope and headers, but results are printed raw: the typed result
models drop fields they do not know (the proxy's labels, for one).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import sys
from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter, ValidationError

PROTOCOLS = ("auto", "2025-11-25", "2026-07-28")

# op -> (JSON-RPC method, step fields copied into params)
SIMPLE_OPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "list_tools": ("tools/list", ("cursor",)),
    "list_prompts": ("prompts/list", ("cursor",)),
    "list_resources": ("resources/list", ("cursor",)),
    "list_resource_templates": ("resources/templates/list", ("cursor",)),
    "call_tool": ("tools/call", ("name", "arguments")),
    "get_prompt": ("prompts/get", ("name", "arguments")),
    "read_resource": ("resources/read", ("uri",)),
    "ping": ("ping", ()),
}
NOTIFICATION_OPS = ("wait_notification", "notifications")
OPS = (*SIMPLE_OPS, "request", *NOTIFICATION_OPS)


class ScriptError(ValueError):
    """The script is not a list of well-formed steps."""


class RawRequest(types.Request[dict[str, Any] | None, str]):
    """Any request, params passed through untouched (the typed requests drop unknown fields)."""


_RAW_RESULT = TypeAdapter(dict[str, Any])


def parse_script(text: str) -> list[dict[str, Any]]:
    """Parse and check a script, so a typo fails before the server is started."""
    try:
        steps = json.loads(text)
    except json.JSONDecodeError as e:
        raise ScriptError(f"the script is not JSON: {e}") from None
    if not isinstance(steps, list):
        raise ScriptError("the script must be a JSON list of steps")
    for i, step in enumerate(steps, start=1):
        where = f"step {i}"
        if not isinstance(step, dict) or not isinstance(step.get("op"), str):
            raise ScriptError(f'{where}: must be an object with an "op"')
        op = step["op"]
        if op not in OPS:
            raise ScriptError(f"{where}: unknown op {op!r}; known: {', '.join(OPS)}")
        if "params" in step and not isinstance(step["params"], dict):
            raise ScriptError(f'{where}: "params" must be an object')
        if op in ("request", "wait_notification") and not isinstance(step.get("method"), str):
            raise ScriptError(f'{where}: {op} needs a "method"')
        needs = {"call_tool": "name", "get_prompt": "name", "read_resource": "uri"}.get(op)
        if needs and not isinstance(step.get(needs), str):
            raise ScriptError(f'{where}: {op} needs a "{needs}"')
        timeout = step.get("timeout", 5)
        if op == "wait_notification" and (not isinstance(timeout, int | float) or timeout <= 0):
            raise ScriptError(f'{where}: "timeout" must be a positive number of seconds')
    return steps


def request_of(step: Mapping[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """The JSON-RPC method and params a (checked) request step sends."""
    if step["op"] == "request":
        return step["method"], step.get("params")
    method, fields = SIMPLE_OPS[step["op"]]
    params = {name: step[name] for name in fields if name in step}
    params.update(step.get("params") or {})
    return method, params or None


def parse_header(text: str) -> tuple[str, str]:
    name, sep, value = text.partition(":")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"a header is 'Name: value', not {text!r}")
    return name.strip(), value.strip()


def parse_env(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"an environment variable is NAME=VALUE, not {text!r}")
    return name, value


def error_json(e: BaseException) -> dict[str, Any]:
    # anyio task groups wrap what went wrong inside; the first leaf is the cause.
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    if isinstance(e, MCPError):
        error: dict[str, Any] = {"kind": "jsonrpc", "code": e.code, "message": e.message}
        if e.data is not None:
            error["data"] = e.data
        return error
    if isinstance(e, ValidationError):
        return {"kind": "invalid_result", "message": str(e)}
    if isinstance(e, TimeoutError):
        return {"kind": "timeout", "message": str(e) or "timed out"}
    return {"kind": "transport", "message": f"{type(e).__name__}: {e}"}


def dump(value: Any) -> Any:
    if value is None:
        return None
    return value.model_dump(by_alias=True, mode="json", exclude_none=True)


@dataclass
class Inbox:
    """Notifications received and not yet taken by a step, oldest first."""

    items: list[dict[str, Any]] = field(default_factory=list)
    changed: anyio.Event = field(default_factory=anyio.Event)

    async def handle(self, message: Any) -> None:
        if isinstance(message, Exception):
            print(f"mcp_client: transport: {message!r}", file=sys.stderr)
            return
        if isinstance(message, types.Notification):
            self.items.append(dump(message))
            self.changed.set()
            self.changed = anyio.Event()

    def take(self, method: str) -> dict[str, Any] | None:
        for i, item in enumerate(self.items):
            if item["method"] == method:
                return self.items.pop(i)
        return None

    async def wait(self, method: str, timeout: float) -> dict[str, Any]:
        with anyio.move_on_after(timeout):
            while (found := self.take(method)) is None:
                await self.changed.wait()
            return found
        raise TimeoutError(f"no {method} within {timeout:g}s")

    def take_all(self) -> list[dict[str, Any]]:
        items, self.items = self.items, []
        return items


class Runner:
    def __init__(self, client: Client, inbox: Inbox) -> None:
        self.client = client
        self.inbox = inbox

    async def send(self, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
        request = RawRequest(method=method, params=params)
        return await self.client.session.send_request(request, _RAW_RESULT)

    async def step(self, step: Mapping[str, Any]) -> dict[str, Any]:
        op = step["op"]
        if op == "wait_notification":
            return await self.inbox.wait(step["method"], step.get("timeout", 5))
        if op == "notifications":
            return {"notifications": self.inbox.take_all()}
        method, params = request_of(step)
        result = await self.send(method, params)
        # `answers` (method -> result) answers a 2026-07-28 `input_required`
        # result the way a host would: the same request again, with the
        # answers and the server's requestState, until it completes.
        answers = step.get("answers")
        rounds = 0
        while answers and result.get("resultType") == "input_required" and rounds < 5:
            rounds += 1
            asked = result.get("inputRequests") or {}
            responses = {key: answers[request["method"]] for key, request in asked.items()}
            retry = dict(params or {})
            retry["inputResponses"] = responses
            retry["requestState"] = result.get("requestState")
            result = await self.send(method, retry)
        if rounds:
            result = dict(result, **{"x-rounds": rounds})
        return result


def connect_info(client: Client) -> dict[str, Any]:
    session = client.session
    info: dict[str, Any] = {
        "protocolVersion": client.protocol_version,
        "serverInfo": dump(client.server_info),
        "capabilities": dump(client.server_capabilities),
    }
    if client.instructions is not None:
        info["instructions"] = client.instructions
    if session.discover_result is not None:
        info["supportedVersions"] = session.discover_result.supported_versions
    return info


async def pin_modern(client: Client) -> None:
    """Replace the placeholder a version-pinned Client adopts with the server's real discover result."""
    raw = await client.session.send_discover("2026-07-28")
    client.session.adopt(types.DiscoverResult.model_validate(raw))


def emit(line: dict[str, Any]) -> None:
    print(json.dumps(line), flush=True)


async def run(args: argparse.Namespace, steps: list[dict[str, Any]]) -> int:
    inbox = Inbox()
    async with AsyncExitStack() as stack:
        if args.stdio is not None:
            argv = shlex.split(args.stdio)
            env = dict(os.environ) | dict(args.env)
            params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=args.cwd)
            transport = stdio_client(params)
        else:
            # The transport's own default client, plus our headers: long reads for SSE streams.
            timeout = httpx2.Timeout(30.0, read=300.0)
            http = await stack.enter_async_context(httpx2.AsyncClient(headers=dict(args.header), timeout=timeout))
            transport = streamable_http_client(args.http, http_client=http)
        mode = {"auto": "auto", "2025-11-25": "legacy", "2026-07-28": "2026-07-28"}[args.protocol]
        client = Client(
            transport,
            mode=mode,
            read_timeout_seconds=args.timeout,
            message_handler=inbox.handle,
            cache=None,
        )
        try:
            await stack.enter_async_context(client)
            if args.protocol == "2026-07-28":
                await pin_modern(client)
            info = connect_info(client)
        except Exception as e:
            emit({"step": 0, "op": "connect", "error": error_json(e)})
            return 2
        if client.protocol_version == "2026-07-28" and any(s["op"] in NOTIFICATION_OPS for s in steps):
            try:
                sub = await stack.enter_async_context(
                    client.listen(
                        tools_list_changed=True,
                        prompts_list_changed=True,
                        resources_list_changed=True,
                        resource_subscriptions=args.follow,
                    )
                )
                info["listen"] = {"honored": dump(sub.honored)}
            except Exception as e:
                info["listen"] = {"error": error_json(e)}
        emit({"step": 0, "op": "connect", "result": info})
        runner = Runner(client, inbox)
        for i, step in enumerate(steps, start=1):
            line: dict[str, Any] = {"step": i, "op": step["op"]}
            try:
                line["result"] = await runner.step(step)
            except Exception as e:
                line["error"] = error_json(e)
            emit(line)
    return 0


def arg_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Run a JSON script of MCP requests against a server with the Python mcp client.",
        epilog="See the top of this file for the script format and the output.",
    )
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--stdio", metavar="COMMAND", help="start this command line and talk over its stdio")
    target.add_argument("--http", metavar="URL", help="talk streamable HTTP to this endpoint")
    parser.add_argument(
        "--header", metavar="'NAME: VALUE'", type=parse_header, action="append", default=[], help="HTTP header (repeatable)"
    )
    parser.add_argument(
        "--env", metavar="NAME=VALUE", type=parse_env, action="append", default=[], help="extra environment for --stdio"
    )
    parser.add_argument("--cwd", help="working directory for --stdio")
    parser.add_argument(
        "--follow",
        metavar="URI",
        action="append",
        default=[],
        help="on 2026-07-28, also follow this resource's updates on the listen stream (repeatable)",
    )
    parser.add_argument("--protocol", choices=PROTOCOLS, default="auto", help="protocol generation (default: auto)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for each answer (default: 30)")
    parser.add_argument("script", nargs="?", default="-", help="script file, or - for stdin (the default)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = arg_parser().parse_args(argv)
    if args.header and args.http is None:
        print("mcp_client: --header needs --http", file=sys.stderr)
        return 2
    if not math.isfinite(args.timeout) or args.timeout <= 0:
        print("mcp_client: --timeout must be a positive number of seconds", file=sys.stderr)
        return 2
    try:
        text = sys.stdin.read() if args.script == "-" else open(args.script, encoding="utf-8").read()
        steps = parse_script(text)
    except (OSError, ScriptError) as e:
        print(f"mcp_client: {e}", file=sys.stderr)
        return 2
    return anyio.run(run, args, steps)


if __name__ == "__main__":
    sys.exit(main())
