#!/usr/bin/env python3
"""How well `security` derived from a tool's words (issue 32 item 3) agrees
with what servers that send annotations say of the same tools.

For every recorded server whose tools carry MCP's behaviour hints, each
tool's `security` is taken twice with the release build's `mcp-sieve tools
--catalog`: as the server's annotations give it (read-only: high; not
destructive: medium; else low), and as Sieve derives it with the
annotations taken away. Prints, per server and in all, how often the two
agree and where they part.

    scripts/security-derived-vs-annotations.py [--binary PATH] [--details]

Only tools whose annotations say both whether they are read-only and, for
those that are not, whether they destroy are counted: a hint left out is
the spec's default, not the server's word.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = [ROOT / "crates/sieve-core/tests/fixtures/published",
           ROOT / "tests/fixtures/catalogs"]
ORDER = ("high", "medium", "low")


def tools_of(path):
    document = json.loads(path.read_text())
    if isinstance(document, dict) and isinstance(document.get("tools"), list):
        return document["tools"]
    if isinstance(document, list):
        return document
    return None


def said(tool):
    """The security the server's own hints give, when they say enough."""
    hints = tool.get("annotations") or {}
    if hints.get("readOnlyHint") is True:
        return "high"
    if hints.get("readOnlyHint") is False and "destructiveHint" in hints:
        return "low" if hints["destructiveHint"] else "medium"
    return None


def derived(binary, tools):
    """Sieve's security for each tool, its annotations taken away."""
    bare = []
    for tool in tools:
        tool = dict(tool)
        tool.pop("annotations", None)
        bare.append(tool)
    with tempfile.TemporaryDirectory() as home:
        catalog = Path(home) / "catalog.json"
        catalog.write_text(json.dumps({"tools": bare}))
        out = subprocess.run(
            [binary, "--home", home, "tools", "--catalog", str(catalog),
             "--server", "x", "--json"],
            capture_output=True, text=True, check=True).stdout
    return {row["name"]: (row["concerns"]["security"],
                          row["concernReasons"]["security"])
            for row in json.loads(out)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    target = os.environ.get("CARGO_TARGET_DIR", ROOT / "target")
    ap.add_argument("--binary", default=str(Path(target) / "release/mcp-sieve"))
    ap.add_argument("--details", action="store_true")
    args = ap.parse_args()
    if not Path(args.binary).exists():
        sys.exit(f"{args.binary} is missing: build it with "
                 "`cargo build --release -p sieve-cli`, or say --binary PATH")
    seen = set()
    confusion = Counter()
    print("| server | tools judged | agree | derived higher | derived lower |")
    print("|---|---|---|---|---|")
    for folder in FOLDERS:
        for path in sorted(folder.glob("*.json")):
            tools = tools_of(path)
            if not tools or path.stem in seen:
                continue
            seen.add(path.stem)
            judged = {t["name"]: said(t) for t in tools if said(t)}
            if len(judged) < 5:
                continue
            ours = derived(args.binary, tools)
            counts = Counter()
            for name, theirs in judged.items():
                mine, why = ours[name]
                confusion[(theirs, mine)] += 1
                kind = ("agree" if mine == theirs else
                        "higher" if ORDER.index(mine) < ORDER.index(theirs)
                        else "lower")
                counts[kind] += 1
                if args.details and kind != "agree":
                    print(f"    {path.stem} {name}: server {theirs}, derived "
                          f"{mine} ({why})")
            print(f"| {path.stem} | {len(judged)} | {counts['agree']} | "
                  f"{counts['higher']} | {counts['lower']} |")
    total = sum(confusion.values())
    agree = sum(v for (a, b), v in confusion.items() if a == b)
    print(f"\nin all: {agree} of {total} agree ({100 * agree / total:.0f} %)")
    print("\n| the server says | derived high | derived medium | derived low |")
    print("|---|---|---|---|")
    for theirs in ORDER:
        cells = [str(confusion[(theirs, mine)]) for mine in ORDER]
        print(f"| {theirs} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
