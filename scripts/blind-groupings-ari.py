#!/usr/bin/env python3
"""Scores blind readers' groupings and Sieve's derived groups against the
servers' published areas, side by side (docs/derived-groups.md, round 12).

    scripts/blind-groupings-ari.py [--readings docs/data/blind-groupings.json]

The readings hold, per server fixture, what each reader made of its tool
list alone. Sieve's groups come from the same derivation as
scripts/derived-groups-ari.py (cargo's derive_groups example). A tool a
reader or Sieve leaves without a group counts as an area of its own.
"""

import argparse
import json
from pathlib import Path

import ari_scoring

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "crates/sieve-core/tests/fixtures/published"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--readings", type=Path,
                    default=ROOT / "docs/data/blind-groupings.json")
    args = ap.parse_args()
    scoring = ari_scoring.load()
    readings = json.loads(args.readings.read_text())["servers"]
    paths = [FIXTURES / f"{name}.json" for name in sorted(readings)]
    derived = scoring.parse_groups(scoring.run_derivation(paths))

    readers = sorted({key for server in readings.values()
                      for key in server if key.startswith("reader")})
    header = ["server", "tools", "Sieve", *readers, "readers alike"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name in sorted(readings):
        fixture = json.loads((FIXTURES / f"{name}.json").read_text())
        names = [tool["name"] for tool in fixture["tools"]]
        published = [fixture["categories"][n] for n in names]
        ours = scoring.derived_labels(names, derived[name])
        read = [scoring.derived_labels(names, readings[name][r]) for r in readers]
        alike = scoring.ari(read[0], read[1]) if len(read) == 2 else float("nan")
        cells = [name, str(len(names)), f"{scoring.ari(ours, published):.3f}",
                 *(f"{scoring.ari(r, published):.3f}" for r in read), f"{alike:.3f}"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
