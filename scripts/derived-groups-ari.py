#!/usr/bin/env python3
"""Compare derived tool groups with servers' own published categories.

For each fixture in crates/sieve-core/tests/fixtures/published/*.json
({"source", "categories": {tool: category}, "tools": [...]}, optionally
"alt_categories": {label: {tool: category}}), writes its tools to a temp
file, runs

    cargo run -q -p sieve-core --example derive_groups -- --json FILE...

once on all of them, and prints per server: tools, published categories,
derived groups, largest derived group and the adjusted Rand index (ARI)
between derived groups and published categories. A tool with a null group
counts as its own singleton cluster.

    scripts/derived-groups-ari.py [--details] [--save-groups F | --groups-from F]

--details lists each derived group with its members' published categories,
and each published category split over more than one derived group.
--save-groups keeps the example's output (JSON lines); --groups-from reads
such a file instead of running cargo.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "crates/sieve-core/tests/fixtures/published"


def comb2(n):
    return n * (n - 1) // 2


def ari(labels_a, labels_b):
    """Adjusted Rand index of two labelings of the same items (Hubert-Arabie)."""
    n = len(labels_a)
    assert n == len(labels_b)
    if n < 2:
        return 1.0
    table = Counter(zip(labels_a, labels_b))
    rows = Counter(labels_a)
    cols = Counter(labels_b)
    index = sum(comb2(v) for v in table.values())
    sum_rows = sum(comb2(v) for v in rows.values())
    sum_cols = sum(comb2(v) for v in cols.values())
    expected = sum_rows * sum_cols / comb2(n)
    maximum = (sum_rows + sum_cols) / 2
    if maximum == expected:
        # Both partitions trivial (all singletons or one cluster) and equal.
        return 1.0
    return (index - expected) / (maximum - expected)


def derived_labels(names, groups):
    """Cluster label per tool; a null group becomes the tool's own singleton."""
    return [
        ("group", groups[n]) if groups.get(n) is not None else ("alone", n)
        for n in names
    ]


def run_derivation(fixtures):
    with tempfile.TemporaryDirectory(prefix="derived-groups-") as tmp:
        paths = []
        for name, fixture in fixtures:
            path = Path(tmp) / f"{name}.json"
            path.write_text(json.dumps(fixture["tools"]))
            paths.append(str(path))
        cmd = ["cargo", "run", "-q", "-p", "sieve-core", "--example",
               "derive_groups", "--", "--json", *paths]
        result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if result.returncode != 0:
            sys.stderr.write(result.stderr)
            sys.exit(f"derive_groups failed ({result.returncode})")
        return result.stdout


def parse_groups(text):
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        obj = json.loads(line)
        out[Path(obj["file"]).stem] = obj["groups"]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--details", action="store_true")
    ap.add_argument("--fixtures", type=Path, default=FIXTURES)
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--save-groups", type=Path)
    src.add_argument("--groups-from", type=Path)
    args = ap.parse_args()

    fixtures = []
    for path in sorted(args.fixtures.glob("*.json")):
        fixtures.append((path.stem, json.loads(path.read_text())))
    if not fixtures:
        sys.exit(f"no fixtures in {args.fixtures}")

    if args.groups_from:
        raw = args.groups_from.read_text()
    else:
        raw = run_derivation(fixtures)
        if args.save_groups:
            args.save_groups.write_text(raw)
    derived = parse_groups(raw)

    rows = []
    details = []
    for name, fixture in fixtures:
        groups = derived.get(name)
        if groups is None:
            sys.exit(f"no derived groups for {name}")
        names = [t["name"] for t in fixture["tools"]]
        missing = [n for n in names if n not in fixture["categories"]]
        if missing:
            sys.exit(f"{name}: no published category for {missing}")
        dl = derived_labels(names, groups)
        sizes = Counter(dl)
        n_groups = len({l for l in dl if l[0] == "group"})
        n_alone = sum(1 for l in dl if l[0] == "alone")
        largest = max(sizes.values())
        variants = [("", fixture["categories"])]
        for label, cats in sorted(fixture.get("alt_categories", {}).items()):
            variants.append((f" [{label}]", cats))
        for suffix, cats in variants:
            pl = [cats[n] for n in names]
            rows.append((name + suffix, len(names), len(set(pl)), n_groups,
                         n_alone, largest, ari(dl, pl)))
        details.append((name, names, groups, fixture["categories"]))

    header = ("server", "tools", "published", "derived", "ungrouped",
              "largest", "ARI")
    table = [header] + [
        (r[0], str(r[1]), str(r[2]), str(r[3]), str(r[4]), str(r[5]),
         f"{r[6]:.3f}") for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for i, row in enumerate(table):
        print("  ".join(
            cell.ljust(widths[j]) if j == 0 else cell.rjust(widths[j])
            for j, cell in enumerate(row)))
        if i == 0:
            print("  ".join("-" * w for w in widths))

    if not args.details:
        return
    for name, names, groups, cats in details:
        print(f"\n== {name}")
        members = defaultdict(list)
        for n in names:
            members[groups.get(n) or "(none)"].append(n)
        print("derived groups (member: published category):")
        for group in sorted(members, key=lambda g: (-len(members[g]), g)):
            tools = members[group]
            mix = Counter(cats[t] for t in tools)
            summary = ", ".join(f"{c} {k}" for c, k in
                                sorted(((c, k) for k, c in mix.items()),
                                       key=lambda x: (-x[0], x[1])))
            print(f"  {group} ({len(tools)}; {summary})")
            for t in sorted(tools, key=lambda t: (cats[t], t)):
                print(f"    {t}: {cats[t]}")
        by_cat = defaultdict(list)
        for n in names:
            by_cat[cats[n]].append(n)
        split = []
        for cat, tools in sorted(by_cat.items()):
            spread = Counter(groups.get(t) or f"(none:{t})" for t in tools)
            if len(spread) > 1:
                split.append((cat, len(tools), spread))
        if split:
            print("published categories split over derived groups:")
            for cat, count, spread in split:
                parts = ", ".join(f"{g} {c}" for g, c in spread.most_common())
                print(f"  {cat} ({count}): {parts}")


if __name__ == "__main__":
    main()
