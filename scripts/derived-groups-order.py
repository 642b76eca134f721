#!/usr/bin/env python3
"""A prototype, not built into Sieve: derived groups read from the order a
server lists its tools in (docs/derived-groups.md, round 12).

Most servers list their tools area by area. This script cuts each list into
runs of neighbours that are alike (the same derived group, or words in
common) and scores those runs, or the derived groups split or filled by
them, against the published areas, beside the derived groups alone.

    scripts/derived-groups-order.py [--tau 0.3] [--form runs|meet|fill] [--details]

The derived groups come from the derive_groups example, as in
scripts/derived-groups-ari.py. A server whose list is sorted by name says
nothing by its order and keeps its derived groups.
"""

import argparse
import json
import math
import re
from collections import Counter
from pathlib import Path

import ari_scoring

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "crates/sieve-core/tests/fixtures/published"
# Words too common in tool texts to say that two tools are alike.
COMMON = set("""a an the of to in on for and or with by from as is are be this
that it its into at your you use used using can will all any when which if
not only one more get list""".split())
# The derivation's group of tools that fit no other: its members are not
# alike for being in it.
LEFTOVERS = "other"



def words(tool):
    """The words of a tool's name, title and first sentence, singular."""
    name = re.sub(r"([a-z])([A-Z])", r"\1 \2", tool["name"]).lower()
    first = (tool.get("description") or "").split(". ")[0]
    text = " ".join([name, tool.get("title") or "", first]).lower()
    return {w.rstrip("s") for w in re.findall(r"[a-z][a-z0-9]+", text)
            if w not in COMMON and len(w) > 2}


def likeness(tools, groups):
    """How alike each two tools are: 1 for one derived group (not the
    leftovers), plus the rarity-weighted share of the words they share."""
    n = len(tools)
    said = [words(t) for t in tools]
    counts = Counter(w for s in said for w in s)
    rarity = {w: math.log(n / c) for w, c in counts.items()}
    group = [groups.get(t["name"]) for t in tools]
    group = [g if g != LEFTOVERS else None for g in group]

    def alike(i, j):
        score = float(group[i] is not None and group[i] == group[j])
        shared = said[i] & said[j]
        if shared:
            whole = math.sqrt(sum(rarity[w] for w in said[i])
                              * sum(rarity[w] for w in said[j])) or 1.0
            score += sum(rarity[w] for w in shared) / whole
        return score
    return alike


def runs(tools, groups, tau):
    """Cuts the list into runs maximising, over the pairs in each run, the
    sum of their likeness less tau (dynamic programming over cut points)."""
    n = len(tools)
    alike = likeness(tools, groups)
    best = [0.0] * (n + 1)
    cut = [0] * (n + 1)
    for end in range(1, n + 1):
        best[end] = -math.inf
        inside = 0.0
        for start in range(end - 1, -1, -1):
            inside += sum(alike(start, k) - tau for k in range(start + 1, end))
            if best[start] + inside > best[end]:
                best[end], cut[end] = best[start] + inside, start
    label = {}
    end = n
    while end > 0:
        start = cut[end]
        for i in range(start, end):
            label[tools[i]["name"]] = start
        end = start
    return label


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tau", type=float, default=0.3)
    ap.add_argument("--form", choices=("runs", "meet", "fill"), default="runs",
                    help="runs: the runs alone; meet: each derived group split"
                    " by the runs, the ungrouped by their run; fill: only the"
                    " ungrouped take their run")
    ap.add_argument("--details", action="store_true")
    args = ap.parse_args()
    scoring = ari_scoring.load()
    paths = sorted(FIXTURES.glob("*.json"))
    derived = scoring.parse_groups(scoring.run_derivation(paths))
    rows = []
    for path in paths:
        fixture = json.loads(path.read_text())
        tools = fixture["tools"]
        names = [t["name"] for t in tools]
        published = [fixture["categories"][n] for n in names]
        groups = derived[path.stem]
        alone = scoring.ari(scoring.derived_labels(names, groups), published)
        if names == sorted(names):
            rows.append((path.stem, alone, alone, True))
            continue
        run = runs(tools, groups, args.tau)
        labels = []
        for n in names:
            group = groups.get(n)
            if args.form == "runs":
                labels.append(("run", run[n]))
            elif group is None or group == LEFTOVERS:
                labels.append(("run", run[n]))
            elif args.form == "meet":
                labels.append((group, run[n]))
            else:
                labels.append((group, None))
        rows.append((path.stem, alone, scoring.ari(labels, published), False))
    before = sum(r[1] for r in rows) / len(rows)
    after = sum(r[2] for r in rows) / len(rows)
    print(f"{args.form}, tau {args.tau}: mean {before:.3f} -> {after:.3f}; "
          f"under 0.5: {sum(r[1] < 0.5 for r in rows)} -> {sum(r[2] < 0.5 for r in rows)}; "
          f"0.05 or more better on {sum(r[2] > r[1] + 0.05 for r in rows)}, "
          f"worse on {sum(r[2] < r[1] - 0.05 for r in rows)} of {len(rows)}")
    if args.details:
        for name, alone, ordered, by_name in sorted(rows, key=lambda r: r[2] - r[1]):
            note = " (sorted by name: order unused)" if by_name else ""
            print(f"  {name:30} {alone:.3f} -> {ordered:.3f}{note}")


if __name__ == "__main__":
    main()
