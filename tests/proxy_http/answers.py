"""What the Python `mcp` client receives from the proxy's HTTP front, for
tests/proxy_http.rs: for each POST the client makes, its JSON-RPC method,
the HTTP status and the answer's Content-Type, seen by an httpx response
hook, while the client calls the demo's echo, lists its tools and calls its
reindex with a progress callback.

    answers.py URL TOKEN MODE        (MODE: legacy or auto, as the library takes it)

Prints one JSON object: {"protocolVersion", "answers": [{"method",
"status", "contentType"}, ...], "echo", "tools", "progress", "reindex"}.
"""

import json
import sys

import anyio
import httpx2
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client


async def main(url: str, token: str, mode: str) -> None:
    answers = []

    async def record(response: httpx2.Response) -> None:
        request = response.request
        if request.method != "POST":
            return
        message = json.loads(request.content)
        answers.append(
            {
                "method": message.get("method"),
                "status": response.status_code,
                "contentType": response.headers.get("content-type"),
            }
        )

    progress = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, event_hooks={"response": [record]}) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode, cache=None) as client:
            echo = await client.call_tool("demo__echo", {"text": "hi"})
            tools = await client.list_tools()
            reindex = await client.call_tool(
                "demo__reindex", {"steps": 3, "step_ms": 20}, progress_callback=on_progress
            )
            print(
                json.dumps(
                    {
                        "protocolVersion": client.protocol_version,
                        "answers": answers,
                        "echo": echo.structured_content,
                        "tools": len(tools.tools),
                        "progress": progress,
                        "reindex": reindex.structured_content,
                    }
                )
            )


anyio.run(main, *sys.argv[1:])
