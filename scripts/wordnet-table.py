#!/usr/bin/env python3
"""Derives the related-words table the tool search expands queries with
(crates/sieve-core/data/wordnet-related.txt.gz) from WordNet 3.0 as Debian's
`wordnet-base` package installs it (/usr/share/wordnet).

For each word or collocation WordNet has, it keeps the synonyms and the
derivationally related forms of its most used senses: at most SENSES
senses per part of speech, and only senses that the tagged corpora saw
(tag count > 0), so rare senses ("kill" as a kind of painting) add no
noise; a word the corpora never saw (WordNet has "delete" so) keeps its
first sense. Words with digits are left out. Word forms WordNet lists as irregular (ran -> run) are kept too.
A line is `word related related ... | broader ... | defining ...`: after
the first `|`, the broader actions (hypernyms, one level) of its verb
senses; after the second, the content words of the definition of its most
used sense, for words the tagged corpora saw. The search tries both only
when a catalog has neither the word nor any of its relatives. Collocations
join their words with `_`. Deterministic: the same WordNet gives the same file.

Written gzipped (no time stamp, so the bytes are the same each run).

Usage: scripts/wordnet-table.py [OUT.txt.gz [WORDNET_DIR]]  (needs `apt-get install wordnet-base`)
"""
import collections
import gzip
import sys

SENSES = 2
MAX_RELATED = 16
# The broader words (WordNet's hypernyms, one level up) of the senses
# kept, after a `|`: "discard" is a way to "get rid of", "delete" to
# "remove". At most BROADER_WORDS of each broader sense, MAX_BROADER in all.
BROADER_WORDS = 3
MAX_BROADER = 8
# The content words of a definition kept, after a second `|`.
GLOSS_WORDS = 5
OUT = sys.argv[1] if len(sys.argv) > 1 else "crates/sieve-core/data/wordnet-related.txt.gz"
DIR = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/wordnet"
POS = ["noun", "verb", "adj", "adv"]


def synsets(pos):
    """offset -> (words, derivations {source word index: [target words]})"""
    table = {}
    with open(f"{DIR}/data.{pos}", encoding="latin-1") as data:
        for line in data:
            if line.startswith("  "):
                continue
            head, _, gloss = line.partition(" | ")
            fields = head.split()
            offset = fields[0]
            count = int(fields[3], 16)
            words = [fields[4 + 2 * i].lower() for i in range(count)]
            words = [w.split("(")[0] for w in words]
            at = 4 + 2 * count
            pointers = int(fields[at])
            at += 1
            derived = collections.defaultdict(list)
            broader = []
            for _ in range(pointers):
                symbol, target, target_pos, numbers = fields[at : at + 4]
                at += 4
                if symbol == "+" and numbers != "0000":
                    derived[int(numbers[:2], 16)].append((target, target_pos, int(numbers[2:], 16)))
                if symbol == "@":
                    broader.append(target)
            table[offset] = (words, derived, broader, gloss_words(gloss))
    return table


# Words a definition uses that say nothing of what it defines.
GLOSS_STOP = set(
    "a an the of in into on onto to from for with by at as is are was were be been being "
    "this that these those some any it its or and but not no so such than then there "
    "which who whom whose what when where how one ones someone something somebody "
    "usually especially often very more most much many used use using make made "
    "have has having do does done get gets having give take person thing things way "
    "kind sort type part act state quality etc e.g. i.e. other another own same "
    "by_means_of without within between about over under up down out off".split()
)


def gloss_words(gloss):
    """The content words of a definition's first clause."""
    definition = gloss.split(";")[0].split('"')[0]
    words = []
    for word in definition.lower().replace("(", " ").replace(")", " ").split():
        word = word.strip(".,:!?'")
        if len(word) > 2 and word.isalpha() and word not in GLOSS_STOP and word not in words:
            words.append(word)
    return words[:GLOSS_WORDS]


def index_entries(pos):
    """Each lemma of WordNet's index of `pos` with its fields and the
    count of its pointer kinds; lemmas with digits are left out."""
    with open(f"{DIR}/index.{pos}", encoding="latin-1") as index:
        for line in index:
            if line.startswith("  "):
                continue
            fields = line.split()
            lemma = fields[0].lower()
            if any(c.isdigit() for c in lemma):
                continue
            yield lemma, fields, int(fields[3])


def main():
    letter = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}
    data = {pos: synsets(pos) for pos in POS}
    related = collections.defaultdict(list)

    def add(word, other):
        if other != word and other not in related[word]:
            related[word].append(other)
        if other in broader_of[word]:
            broader_of[word].remove(other)

    broader_of = collections.defaultdict(list)

    def add_broader(word, other):
        if other not in broader_of[word]:
            broader_of[word].append(other)

    for pos in POS:
        for lemma, fields, pointer_kinds in index_entries(pos):
            senses = int(fields[2])
            tagged = int(fields[5 + pointer_kinds])
            offsets = fields[6 + pointer_kinds : 6 + pointer_kinds + senses]
            for offset in offsets[: min(SENSES, max(tagged, 1))]:
                words, derived, broader, gloss = data[pos][offset]
                for word in words:
                    add(lemma, word)
                # Only an action's broader action: a noun's broader
                # thing (a ship is a vessel) names other tools.
                for target in broader if pos == "verb" else []:
                    for word in data[pos][target][0][:BROADER_WORDS]:
                        if word != lemma and word not in related[lemma]:
                            add_broader(lemma, word)
                if lemma in words:
                    source = words.index(lemma) + 1
                    for target, target_pos, number in derived.get(source, []):
                        target_words = data[letter[target_pos]][target][0]
                        add(lemma, target_words[number - 1])
    for pos in ["noun", "verb", "adj"]:
        with open(f"{DIR}/{pos}.exc", encoding="latin-1") as exceptions:
            for line in exceptions:
                inflected, *bases = line.split()
                for base in bases:
                    add(inflected, base)
    # The content words of the definition of each word's most used sense
    # (noun, verb, adjective), after a second `|`: "remember" is to
    # recall from memory, "google" to search the internet.
    glossed = collections.defaultdict(list)
    for pos in POS[:3]:
        for lemma, fields, pointer_kinds in index_entries(pos):
            # Only words the tagged corpora saw: the words people use.
            if int(fields[5 + pointer_kinds]) == 0:
                continue
            first = fields[6 + pointer_kinds]
            for word in data[pos][first][3]:
                if word != lemma and word not in glossed[lemma]:
                    glossed[lemma].append(word)
    lines = [
        "# Related words derived from WordNet 3.0 (Princeton University; WordNet",
        "# license: free to use, copy, modify and distribute with this notice) by",
        "# scripts/wordnet-table.py. Regenerate, do not edit. Sorted by word.",
    ]
    for word in sorted(set(related) | set(broader_of) | set(glossed)):
        others = related[word][:MAX_RELATED]
        broader = [w for w in broader_of[word] if w not in others][:MAX_BROADER]
        gloss = [w for w in glossed[word] if w not in others and w not in broader][:GLOSS_WORDS]
        if broader or gloss:
            others = others + ["|"] + broader
        if gloss:
            others = others + ["|"] + gloss
        if others:
            lines.append(word + " " + " ".join(others))
    text = "\n".join(lines) + "\n"
    with open(OUT, "wb") as out:
        out.write(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))


main()
