"""Sequential tools/call timings from the Python `mcp` client over
streamable HTTP (httpx keeps the connection alive, as hosts do), for the
benchmark harness: prints one JSON line {protocolVersion, timesMs}, the
protocol the client settled on and each call's time.

python_calls.py URL TOKEN|- TOOL ARGUMENTS_JSON CALLS MODE

MODE is the library's: `legacy` (initialize, a 2025-11-25 session) or
`auto` (its default: server/discover, then initialize if the server is
older).
"""

import json
import sys
import time

import anyio
import httpx2
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client


async def main(url: str, token: str, tool: str, arguments: str, calls: str, mode: str) -> None:
    headers = {} if token == "-" else {"Authorization": f"Bearer {token}"}
    args = json.loads(arguments)
    async with httpx2.AsyncClient(headers=headers) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode, cache=None) as client:
            for _ in range(20):
                await client.call_tool(tool, args)
            times = []
            for _ in range(int(calls)):
                start = time.perf_counter()
                result = await client.call_tool(tool, args)
                times.append((time.perf_counter() - start) * 1000)
                if result.is_error:
                    raise SystemExit(f"{tool} answered an error: {result}")
            version = client.protocol_version
    print(json.dumps({"protocolVersion": version, "timesMs": times}))


anyio.run(main, *sys.argv[1:])
