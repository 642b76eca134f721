"""An MCP server written as raw JSON, for tests/proxy_fields.rs.

No MCP library decodes or encodes its messages, so it sends what a typed
model would drop: a tool's `execution`, top-level `groups` and `tags`,
`annotations.category`, a field no revision names, and a call result with
a field no revision names. A call's answer quotes the params the server
received, so a test sees whether a host's unknown param reached it.

    python fields_server.py stdio
    python fields_server.py http [PORT]

Over HTTP it answers each POST with one JSON body (202 for notifications)
on 127.0.0.1, on PORT or else a free port, and prints one line once the
socket is bound: `serving http://127.0.0.1:PORT/mcp`. Standard library only.
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOOLS = [
    {
        "name": "file_issue",
        "description": "File an issue in the tracker.",
        "inputSchema": {
            "type": "object",
            "properties": {"title": {"type": "string"}},
        },
        "execution": {"taskSupport": "optional"},
        "groups": ["issues"],
        "tags": ["tracker"],
        "annotations": {"category": "triage", "readOnlyHint": False},
        "x-vendor-rank": {"weight": 3, "notes": ["kept", "as", "sent"]},
    },
    {
        "name": "read_issue",
        "description": "Read one issue.",
        "inputSchema": {
            "type": "object",
            "properties": {"id": {"type": "string"}},
        },
        "annotations": {"readOnlyHint": True},
        "_meta": {"tags": ["from-meta"]},
    },
]


def answer(message: dict) -> dict | None:
    """The answer to one JSON-RPC message; None for a notification."""
    if "id" not in message or "method" not in message:
        return None
    method = message["method"]
    params = message.get("params") or {}
    if method == "initialize":
        result = {
            "protocolVersion": params.get("protocolVersion", "2025-11-25"),
            "capabilities": {
                "tools": {"listChanged": False},
                "prompts": {"listChanged": False},
                "resources": {"listChanged": False},
            },
            "serverInfo": {"name": "fields", "version": "1.0.0"},
        }
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "prompts/list":
        result = {"prompts": [{"name": "triage", "description": "Triage the open issues."}]}
    elif method == "prompts/get":
        result = {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Triage them."}}],
            "x-result-extra": {"prompt": params.get("name")},
        }
    elif method == "resources/list":
        result = {"resources": [{"uri": "fields://board", "name": "board"}]}
    elif method == "resources/templates/list":
        result = {"resourceTemplates": []}
    elif method == "resources/read":
        result = {
            "contents": [{"uri": params.get("uri"), "text": "three open issues"}],
            "x-result-extra": {"read": params.get("uri")},
        }
    elif method == "tools/call":
        result = {
            "content": [{"type": "text", "text": json.dumps(params, sort_keys=True)}],
            "isError": False,
            "x-result-extra": {"served": params.get("name")},
        }
    else:
        return {
            "jsonrpc": "2.0",
            "id": message["id"],
            "error": {"code": -32601, "message": f"method {method!r} not found"},
        }
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def stdio() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
        length = int(self.headers.get("Content-Length", "0"))
        reply = answer(json.loads(self.rfile.read(length)))
        if reply is None:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        # No stream for server-sent messages.
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_DELETE(self) -> None:  # noqa: N802
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def http(port: int) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"serving http://127.0.0.1:{server.server_address[1]}/mcp", flush=True)
    server.serve_forever()


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[1] not in ("stdio", "http"):
        sys.exit("usage: fields_server.py stdio | http [PORT]")
    if argv[1] == "stdio":
        stdio()
    else:
        http(int(argv[2]) if len(argv) > 2 else 0)


if __name__ == "__main__":
    main(sys.argv)
