"""Sequential tools/call timings from the Python `mcp` client over
streamable HTTP (httpx keeps the connection alive, as hosts do), for the
benchmark harness: prints one JSON line {perSecond, p50Ms, p99Ms}.

python_calls.py URL TOKEN|- TOOL ARGUMENTS_JSON CALLS
"""

import json
import math
import sys
import time

import anyio
import httpx2
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client


async def main(url: str, token: str, tool: str, arguments: str, calls: str) -> None:
    headers = {} if token == "-" else {"Authorization": f"Bearer {token}"}
    args = json.loads(arguments)
    async with httpx2.AsyncClient(headers=headers) as http:
        async with Client(streamable_http_client(url, http_client=http), mode="legacy", cache=None) as client:
            for _ in range(20):
                await client.call_tool(tool, args)
            times = []
            for _ in range(int(calls)):
                start = time.perf_counter()
                result = await client.call_tool(tool, args)
                times.append(time.perf_counter() - start)
                if result.is_error:
                    raise SystemExit(f"{tool} answered an error: {result}")
    times.sort()

    def quantile(q: float) -> float:
        # Nearest rank, as the Rust side computes it.
        rank = min(len(times), max(1, math.ceil(len(times) * q)))
        return times[rank - 1]

    print(json.dumps({"perSecond": len(times) / sum(times), "p50Ms": quantile(0.5) * 1000, "p99Ms": quantile(0.99) * 1000}))


anyio.run(main, *sys.argv[1:])
