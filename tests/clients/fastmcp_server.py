"""A small FastMCP server whose tools carry FastMCP tags, for the proxy's tests.

FastMCP (the `fastmcp` package, pinned in requirements.txt) sends a tool's
`tags={...}` as `_meta.fastmcp.tags`; tests/server_fastmcp.rs checks that
they reach MCP Sieve's labels over stdio and over streamable HTTP.

    python fastmcp_server.py stdio
    python fastmcp_server.py http [PORT]

Over HTTP it listens on 127.0.0.1, on PORT or else a free port, and prints
one line to stdout once the socket is bound: `serving http://127.0.0.1:PORT/mcp`.
"""

from __future__ import annotations

import os
import socket
import sys

# No banner or update check: stdout is the protocol over stdio, and the tests
# run offline.
os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

from fastmcp import FastMCP  # noqa: E402

mcp = FastMCP("fastmcp-tags")

INVOICES = {"INV-1": 120.0, "INV-2": 75.5}


@mcp.tool(tags={"billing", "toolset:invoices"})
def list_invoices() -> list[str]:
    """List the ids of all invoices."""
    return sorted(INVOICES)


@mcp.tool(tags={"billing", "reports", "toolset:invoices"})
def invoice_total(invoice_id: str) -> str:
    """The total of one invoice, as text."""
    return f"{invoice_id}: {INVOICES[invoice_id]:.2f} EUR"


@mcp.tool(tags={"reports", "toolset:reporting"})
def monthly_report(month: str) -> str:
    """A one-line report for a month (YYYY-MM)."""
    return f"report for {month}: {len(INVOICES)} invoices"


@mcp.tool
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[1] not in ("stdio", "http"):
        sys.exit("usage: fastmcp_server.py stdio | http [PORT]")
    if argv[1] == "stdio":
        mcp.run(transport="stdio")
        return
    port = int(argv[2]) if len(argv) > 2 else 0
    # Bound and listening here, not in uvicorn, so the port is known, and
    # connections queue, before the server has started.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    port = sock.getsockname()[1]
    print(f"serving http://127.0.0.1:{port}/mcp", flush=True)
    mcp.run(
        transport="http",
        host="127.0.0.1",
        port=port,
        path="/mcp",
        sockets=[sock],
        log_level="warning",
    )


if __name__ == "__main__":
    main(sys.argv)
