#!/usr/bin/env python3
"""Scores plain-words search with a sentence model (issue 34, round 8):
the cosine between the query's and each tool's sentence vector
(all-MiniLM-L6-v2, mean-pooled, scripts/minilm.py), alone and blended with
the lexical ranking of crates/sieve-core/src/search.rs.

The tools and the lexical rankings come from the quality test's own sets
and catalogs, so both read the same tools in the same order:

  cargo run -p sieve-core --example search_rankings -- /tmp/rankings.json

A tool is read as its name split into words, its title and its
description, cut to 128 word pieces. A blend is chosen on the seen sets
only; the last held-out sets (HELD_OUT) are left out of every figure unless
--final is given, and are then scored once with the blend chosen.

Methods: `lexical` (the Rust ranking), `model` (the cosine alone), `rrf K W`
(reciprocal-rank fusion, the model's share W), `sum W` ((1 - W) times the
lexical score over the query's best, plus W times the cosine) and `zsum W`
(the same with both standardised over the catalog's tools).

Usage: scripts/sentence-search-eval.py MODEL_DIR RANKINGS.json [--final] [--misses SET]
  --final: score the HELD_OUT sets too, with `lexical`, `model` and the blend BLEND
    names (BLEND="sum 0.85"), nothing else
  --misses SET: print SET's misses of the method SHOW names (SHOW="model")
  --bench-input FILE: write the texts round 8's scripts/sentence-bench timed, and stop
  SENTENCE_CACHE: where sentence vectors are kept (/tmp/sentence-vectors.npz);
    about half an hour for the 2,561 tools in numpy on two shared cores
"""
import hashlib
import json
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from minilm import Model  # noqa: E402

# The sets scored only once, at the end, with the blend chosen.
HELD_OUT = {"held-out-6", "held-out-7"}
TOP = 3


def name_words(name):
    """`get_pullRequest-files` → "get pull request files"."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return " ".join(w for w in re.split(r"[^A-Za-z0-9]+", spaced) if w).lower()


def tool_text(tool):
    parts = [name_words(tool["name"]), tool.get("title") or "", tool.get("description") or ""]
    return ". ".join(p.strip() for p in parts if p.strip())


def embed(model, texts, cache):
    """Sentence vectors of `texts`, kept in `cache` (an .npz) by their text's hash."""
    known = dict(np.load(cache)) if os.path.exists(cache) else {}
    keys = [hashlib.sha256(t.encode()).hexdigest()[:24] for t in texts]
    missing = sorted({(k, t) for k, t in zip(keys, texts) if k not in known})
    if missing:
        vectors = model.sentences([t for _, t in missing])
        known.update({k: v for (k, _), v in zip(missing, vectors)})
        np.savez(cache, **known)
    return np.stack([known[k] for k in keys])


def lexical_rank(row, tools):
    """Each tool's lexical rank (0 best; None when it matches no word) and
    its score over the query's best."""
    rank, score = [None] * tools, np.zeros(tools, dtype=np.float32)
    best = row["ranked"][0][1] if row["ranked"] else 1.0
    for r, (i, s) in enumerate(row["ranked"]):
        rank[i], score[i] = r, s / best
    return rank, score


def ranking(method, row, cosines):
    tools = len(cosines)
    rank, score = lexical_rank(row, tools)
    kind, *p = method
    if kind == "lexical":
        # A tool that matches no word of the query is not found at all.
        return [i for i, _ in row["ranked"]]
    if kind == "model":
        combined = cosines
    elif kind == "rrf":
        k, w = p
        model_rank = np.argsort(np.argsort(-cosines, kind="stable"), kind="stable")
        lex = np.array([0 if r is None else 1 / (k + r + 1) for r in rank])
        combined = (1 - w) * lex + w / (k + model_rank + 1)
    elif kind == "sum":
        (w,) = p
        combined = (1 - w) * score + w * cosines
    elif kind == "zsum":
        (w,) = p
        z = lambda v: (v - v.mean()) / (v.std() + 1e-9)  # noqa: E731
        combined = (1 - w) * z(score) + w * z(cosines)
    return list(np.lexsort((np.arange(tools), -combined)))


def label(method):
    kind, *p = method
    return kind + ("" if not p else " " + " ".join(f"{x:g}" for x in p))


def write_bench_input(data, path):
    """The texts round 8's scripts/sentence-bench timed: 500 tools of three large
    catalogs, read as above, and the queries of two sets."""
    tools = [
        tool_text(t)
        for name in ("github-mcp-server", "gitlab-mcp", "linear-mcp")
        for t in data["catalogs"][name]
    ][:500]
    queries = [r["query"] for s in ("tuned", "held-out") for r in data["sets"][s]]
    json.dump({"tools": tools, "queries": queries}, open(path, "w"))


def main():
    model_dir, rankings = sys.argv[1], sys.argv[2]
    final = "--final" in sys.argv
    misses = sys.argv[sys.argv.index("--misses") + 1] if "--misses" in sys.argv else None
    data = json.load(open(rankings))
    if "--bench-input" in sys.argv:
        write_bench_input(data, sys.argv[sys.argv.index("--bench-input") + 1])
        return
    model = Model(model_dir)
    cache = os.environ.get("SENTENCE_CACHE", "/tmp/sentence-vectors.npz")
    tool_vectors = {
        name: embed(model, [tool_text(t) for t in tools], cache)
        for name, tools in data["catalogs"].items()
    }
    sets = {s: rows for s, rows in data["sets"].items() if final or s not in HELD_OUT}
    if misses and misses not in sets:
        sys.exit(f"{misses} is not scored")
    for rows in sets.values():
        queries = embed(model, [r["query"] for r in rows], cache)
        for row, q in zip(rows, queries):
            row["cosines"] = tool_vectors[row["catalog"]] @ q
    methods = [("lexical",), ("model",)]
    methods += [("rrf", k, w) for k in (10, 30, 60) for w in (0.3, 0.4, 0.5, 0.6)]
    methods += [("sum", w) for w in (0.3, 0.5, 0.7, 0.8, 0.85, 0.9, 0.95)]
    methods += [("zsum", w) for w in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)]
    chosen = os.environ.get("BLEND")
    if final and not chosen:
        sys.exit("--final needs BLEND, the blend chosen on the seen sets")
    if final:
        # The held-out set is scored with the lexical ranking, the model
        # and the one blend chosen on the seen sets, nothing else.
        kind, *parameters = chosen.split()
        methods = [("lexical",), ("model",), (kind, *map(float, parameters))]
    names = list(sets)
    print("| method | " + " | ".join(names) + " | seen |")
    print("|---" * (len(names) + 2) + "|")
    for method in methods:
        hits = {}
        for s, rows in sets.items():
            found = 0
            for row in rows:
                order = ranking(method, row, row["cosines"])
                tools = data["catalogs"][row["catalog"]]
                top = [tools[i]["name"] for i in order[:10]]
                at = next((r for r, n in enumerate(top) if n in row["meant"]), None)
                found += at is not None and at < TOP
                if misses == s and label(method) == os.environ.get("SHOW", "model") and not (at is not None and at < TOP):
                    print(f"  {row['catalog']} | {row['query']} | {'|'.join(row['meant'])} | "
                          f"{'—' if at is None else at + 1} | {', '.join(top[:3])}")
            hits[s] = (found, len(rows))
        seen = [hits[s] for s in names if s not in HELD_OUT]
        total = (sum(h for h, _ in seen), sum(n for _, n in seen))
        print(f"| {label(method)} | " + " | ".join(f"{h}/{n}" for h, n in hits.values())
              + f" | {total[0]}/{total[1]} |")


if __name__ == "__main__":
    main()
