#!/usr/bin/env python3
"""Compare derived tool groups with servers' own published categories.

For each fixture in crates/sieve-core/tests/fixtures/published/*.json
({"server", "source", "categories": {tool: category}, "tools": [...]},
optionally "alt_categories": {label: {tool: category}}), runs

    cargo run -q -p sieve-core --example derive_groups -- --json FILE...

once on all of them, and prints per server: tools, published areas,
derived groups, coverage (the share of tools in a group), largest derived
group and the adjusted Rand index (ARI) between derived groups and
published areas, first the servers tuned on, then those held out. A tool
with a null group counts as its own singleton cluster.

Twelve parts. Tuned: the servers derivation was developed on (Bright Data
since the fourth round, which looked at it). Held out (old),
HELD_OUT_OLD: recorded for evaluation only in the first round; the
second round looked at desktop-commander's groups (its weakness was
known) but tuned on none of them; the third round tuned on
desktop-commander too. Held out (new), HELD_OUT_NEW: recorded after the
second round's method was fixed (digitalocean-mcp, gitlab-mcp,
launchdarkly-mcp), scored once, and not tuned on afterwards. Held out
(round 3), HELD_OUT_ROUND3: recorded before the third round changed the
method (azure-devops-mcp, heroku-mcp; brightdata-mcp too, tuned on in
the fourth round), scored once at its end. Held out (round 4),
HELD_OUT_ROUND4: recorded before the fourth round changed the method
(browserstack-mcp, git-mcp-server), scored once at its end. Held out
(round 5), HELD_OUT_ROUND5: recorded before the fifth round changed the
method (codacy-mcp, executeautomation-playwright), scored once before
it and once at its end. Held out (round 6), HELD_OUT_ROUND6: recorded
before the sixth round changed the method (backlog-mcp, datadog-mcp,
shortcut-mcp), scored once before it and once when its first rule was
fixed; the round's second rule was made after looking at backlog-mcp.
Held out (round 7), HELD_OUT_ROUND7: recorded before the seventh round
changed the method (grafana-mcp, plane-mcp), scored once before it and
once at its end; linear-mcp recorded after the round's one change, scored
once with it. Held out (round 8), HELD_OUT_ROUND8: recorded before the
eighth round changed the method (github-mcp-server-npm,
mcp-server-kubernetes, redis-mcp), scored once before it and once at its
end. Held out (round 9), HELD_OUT_ROUND9: recorded before the ninth round
changed the method (agent-infra-browser, executeautomation-database,
mcp-server-sqlite), scored once before it and once at its end. Held out
(round 10), HELD_OUT_ROUND10: recorded in the tenth round (sanity-mcp,
xcodebuildmcp), kept out of the folder while the round changed the
method, scored once at its end. Held out (round 11), HELD_OUT_ROUND11:
recorded in the eleventh round (awslabs-eks, azure-devops-tiberriver),
kept out of the folder while the round worked, scored once at its end with
the Rust method and with the sentence-model prototype
(derived-groups-embed.py). Held out (round 12), HELD_OUT_ROUND12: recorded
live in the twelfth round by helpers who read none of the method (atlassian,
auth0, creem, dbt, metabase, pagerduty), scored once with the method as it
stood, unchanged since. Held out (round 13), HELD_OUT_ROUND13: six more
recorded live in the twelfth round, after its one change (to `security`,
not to groups), by two helpers who read none of the method (airflow,
alpaca, elasticsearch, iterable, paddle, resend), scored once at its end.
Held out (round 14), HELD_OUT_ROUND14: six recorded live on 2026-11-29 by
a helper who read none of the method (apify-mcp, dataforseo-mcp,
google-workspace-mcp, salesforce-dx-mcp, stripe-mcp, todoist-mcp), scored
once with the method as it stood (commit 7f1f915's groups). Held out
(round 15), HELD_OUT_ROUND15: mapbox-mcp, recorded live by the lead on
2026-11-29 while trying servers, and more recorded the same day by a
helper who read none of the method, each scored once with the method as
it stood (commit 2a80405's groups).

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
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "crates/sieve-core/tests/fixtures/published"
HELD_OUT_OLD = {
    "cloudflare-mcp",
    "desktop-commander",
    "hubspot-mcp",
    "mongodb-mcp",
    "notion-mcp",
    "server-github-legacy",
}
HELD_OUT_NEW = {
    "digitalocean-mcp",
    "gitlab-mcp",
    "launchdarkly-mcp",
}
HELD_OUT_ROUND3 = {
    "azure-devops-mcp",
    "heroku-mcp",
}
HELD_OUT_ROUND4 = {
    "browserstack-mcp",
    "git-mcp-server",
}
HELD_OUT_ROUND5 = {
    "codacy-mcp",
    "executeautomation-playwright",
}
HELD_OUT_ROUND6 = {
    "backlog-mcp",
    "datadog-mcp",
    "shortcut-mcp",
}
HELD_OUT_ROUND7 = {
    "grafana-mcp",
    "linear-mcp",
    "plane-mcp",
}
HELD_OUT_ROUND8 = {
    "github-mcp-server-npm",
    "mcp-server-kubernetes",
    "redis-mcp",
}
HELD_OUT_ROUND9 = {
    "agent-infra-browser",
    "executeautomation-database",
    "mcp-server-sqlite",
}
HELD_OUT_ROUND10 = {
    "sanity-mcp",
    "xcodebuildmcp",
}
HELD_OUT_ROUND11 = {
    "awslabs-eks",
    "azure-devops-tiberriver",
}
HELD_OUT_ROUND12 = {
    "atlassian",
    "auth0",
    "creem",
    "dbt",
    "metabase",
    "pagerduty",
}
HELD_OUT_ROUND13 = {
    "airflow",
    "alpaca",
    "elasticsearch",
    "iterable",
    "paddle",
    "resend",
}
HELD_OUT_ROUND14 = {
    "apify-mcp",
    "dataforseo-mcp",
    "google-workspace-mcp",
    "salesforce-dx-mcp",
    "stripe-mcp",
    "todoist-mcp",
}
HELD_OUT_ROUND15 = {
    "asana-mcp",
    "firebase-mcp",
    "lunchmoney-mcp",
    "mapbox-mcp",
    "n8n-mcp",
    "quickbooks-mcp",
    "wordpress-mcp",
}
HELD_OUT = (HELD_OUT_OLD | HELD_OUT_NEW | HELD_OUT_ROUND3 | HELD_OUT_ROUND4
            | HELD_OUT_ROUND5 | HELD_OUT_ROUND6 | HELD_OUT_ROUND7
            | HELD_OUT_ROUND8 | HELD_OUT_ROUND9 | HELD_OUT_ROUND10
            | HELD_OUT_ROUND11 | HELD_OUT_ROUND12
            | HELD_OUT_ROUND13 | HELD_OUT_ROUND14 | HELD_OUT_ROUND15)
PARTS = ("tuned", "held out (old)", "held out (new)", "held out (round 3)",
         "held out (round 4)", "held out (round 5)", "held out (round 6)",
         "held out (round 7)", "held out (round 8)", "held out (round 9)",
         "held out (round 10)", "held out (round 11)", "held out (round 12)",
         "held out (round 13)", "held out (round 14)", "held out (round 15)")


def part_of(name):
    if name in HELD_OUT_ROUND15:
        return PARTS[15]
    if name in HELD_OUT_ROUND14:
        return PARTS[14]
    if name in HELD_OUT_ROUND13:
        return PARTS[13]
    if name in HELD_OUT_ROUND12:
        return PARTS[12]
    if name in HELD_OUT_ROUND11:
        return PARTS[11]
    if name in HELD_OUT_ROUND10:
        return PARTS[10]
    if name in HELD_OUT_ROUND9:
        return PARTS[9]
    if name in HELD_OUT_ROUND8:
        return PARTS[8]
    if name in HELD_OUT_ROUND7:
        return PARTS[7]
    if name in HELD_OUT_ROUND6:
        return PARTS[6]
    if name in HELD_OUT_ROUND5:
        return PARTS[5]
    if name in HELD_OUT_ROUND4:
        return PARTS[4]
    if name in HELD_OUT_ROUND3:
        return PARTS[3]
    if name in HELD_OUT_NEW:
        return PARTS[2]
    if name in HELD_OUT_OLD:
        return PARTS[1]
    return PARTS[0]


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


def run_derivation(paths):
    cmd = ["cargo", "run", "-q", "-p", "sieve-core", "--example",
           "derive_groups", "--", "--json", *map(str, paths)]
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
    ap.add_argument("--tuned-only", action="store_true",
                    help="leave the held-out servers out (while tuning)")
    ap.add_argument("--fixtures", type=Path, default=FIXTURES)
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--save-groups", type=Path)
    src.add_argument("--groups-from", type=Path)
    args = ap.parse_args()

    paths = sorted((p for p in args.fixtures.glob("*.json")
                    if not (args.tuned_only and p.stem in HELD_OUT)),
                   key=lambda p: (PARTS.index(part_of(p.stem)), p.stem))
    fixtures = [(p.stem, json.loads(p.read_text())) for p in paths]
    if not fixtures:
        sys.exit(f"no fixtures in {args.fixtures}")

    if args.groups_from:
        raw = args.groups_from.read_text()
    else:
        raw = run_derivation(paths)
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
        part = part_of(name)
        coverage = 1 - n_alone / len(names)
        variants = [("", fixture["categories"])]
        for label, cats in sorted(fixture.get("alt_categories", {}).items()):
            variants.append((f" [{label}]", cats))
        for suffix, cats in variants:
            pl = [cats[n] for n in names]
            rows.append((name + suffix, part, len(names), len(set(pl)),
                         n_groups, coverage, largest, ari(dl, pl), suffix))
        details.append((name, names, groups, fixture["categories"]))

    header = ("server", "part", "tools", "published", "derived",
              "coverage", "largest", "ARI")
    table = [header] + [
        (r[0], r[1], str(r[2]), str(r[3]), str(r[4]), f"{r[5]:.0%}",
         str(r[6]), f"{r[7]:.3f}") for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for i, row in enumerate(table):
        print("  ".join(
            cell.ljust(widths[j]) if j < 2 else cell.rjust(widths[j])
            for j, cell in enumerate(row)))
        if i == 0:
            print("  ".join("-" * w for w in widths))
    for part in PARTS:
        scores = [r[7] for r in rows if r[1] == part and not r[8]]
        if scores:
            print(f"{part}: {len(scores)} servers, mean ARI "
                  f"{sum(scores) / len(scores):.3f}, min {min(scores):.3f}")

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
