#!/usr/bin/env python3
"""Checks that the code's layers hold (issue 21), so they are not a comment.

Run from the repository root: `python3 scripts/check-layers.py`. It prints
one line per problem and exits 1, or prints a one-line summary and exits 0.
`--self-test` runs the checks on small fixture crates built in a temporary
folder and asserts that they find exactly what they should.

Three checks, on every crate under crates/*/src and src-tauri/src:

1. No circle of references between sibling modules. Every `.rs` file is a
   module (`crate::a::b`), found by following `mod x;` from lib.rs, main.rs
   and src/bin/*.rs (`#[path]` honoured). A module references another when
   its code (comments, string contents and `#[cfg(test)]` items left out)
   names a path into it: `crate::..`, `super::..`, `self::..`, `use` trees
   with braces. A name that is no module resolves to the module that holds
   it. For each parent module, its children are the nodes of a graph; child
   A -> child B when anything in A's subtree references anything in B's.
   References between a module and its own ancestors are not edges (a child
   uses its parent's items; a parent re-exports its children's).
2. No file over MAX_CODE_LINES lines of code outside tests: lines with
   something other than whitespace and comments, `#[cfg(test)]` items (and
   files only they load) left out.
3. Crate layering from Cargo (LAYER_RULES): `cargo tree -e normal` of a crate
   must not contain the crates it is forbidden to know.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

# --- The rules --------------------------------------------------------------

MAX_CODE_LINES = 700

# crate -> crates that must not appear among its normal (non-dev, non-build)
# dependencies, however indirectly. STYLE.md: sieve-core knows nothing of
# tokio or rmcp; store and ledger nothing of rmcp; the API nothing of the
# command line. sieve-wire, the message layer, knows none of our crates,
# nor rmcp, nor tokio (an optional feature the workspace leaves off).
LAYER_RULES: dict[str, tuple[str, ...]] = {
    "sieve-wire": ("tokio", "rmcp", "sieve-core", "sieve-postgres", "sieve-store", "sieve-ledger", "sieve-gateway", "sieve-api", "sieve-demo"),
    "sieve-sentence": ("tokio", "rmcp", "sieve-core", "sieve-wire", "sieve-postgres", "sieve-store", "sieve-ledger", "sieve-gateway", "sieve-api", "sieve-demo"),
    "sieve-core": ("tokio", "rmcp", "sieve-postgres", "sieve-store", "sieve-ledger", "sieve-gateway", "sieve-api"),
    "sieve-postgres": ("rmcp", "sieve-core", "sieve-store", "sieve-ledger", "sieve-gateway", "sieve-api"),
    "sieve-store": ("rmcp", "sieve-ledger", "sieve-gateway", "sieve-api"),
    "sieve-ledger": ("rmcp", "sieve-store", "sieve-gateway", "sieve-api"),
    "sieve-gateway": ("sieve-api", "clap", "tauri"),
    "sieve-api": ("clap", "tauri"),
}

# crate -> the only workspace crates it may name in its own [dependencies]:
# the command line and the app's shell go through the API alone.
DIRECT_RULES: dict[str, tuple[str, ...]] = {
    "sieve-cli": ("sieve-api",),
    "sieve-app": ("sieve-api",),
}

# A crate named above that is not in the workspace fails the check, so a
# renamed or removed crate cannot silently escape its rule.
REQUIRE_ALL_CRATES = True

CRATE_GLOBS = ("crates/*/src", "src-tauri/src")


@dataclass(frozen=True)
class Problem:
    # What the self-test compares: kind and the names involved, no lines.
    key: tuple
    message: str


# --- Reading Rust -----------------------------------------------------------

IDENT = r"(?:r#)?[A-Za-z_][A-Za-z0-9_]*"
_CHAR = re.compile(r"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F_]{1,8}\}|.)|[^\\'\n])'")
_RAW = re.compile(r'r(#*)"')


def is_ident_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def mask(text: str) -> tuple[str, str]:
    """Two copies of `text`, each as long, line breaks kept: without
    comments (to count lines of code), and without comments or the contents
    of string and character literals (to read paths and brackets)."""
    no_comments = list(text)
    code = list(text)
    n = len(text)
    i = 0

    def blank(start: int, end: int, *targets: list[str]) -> None:
        for target in targets:
            for k in range(start, end):
                if target[k] != "\n":
                    target[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end, no_comments, code)
            i = end
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j, no_comments, code)
            i = j
        elif c == "r" and (raw := _RAW.match(text, i)) and _literal_prefix_ok(text, i):
            closing = '"' + raw.group(1)
            end = text.find(closing, raw.end())
            end = n if end < 0 else end
            blank(raw.end(), end, code)
            i = end + len(closing)
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            blank(i + 1, min(j, n), code)
            i = j + 1
        elif c == "'" and (char := _CHAR.match(text, i)):
            blank(i + 1, char.end() - 1, code)
            i = char.end()
        elif is_ident_char(c):
            # Skip the whole word, so the `r` in `for"` or `bar"` is no raw
            # string's start.
            j = i
            while j < n and is_ident_char(text[j]):
                j += 1
            if text[j - 1] == "r" and j - 1 > i and _literal_prefix_ok(text, j - 1):
                i = j - 1  # `br"..."`, `cr#"..."#`: the `r` starts a raw string
            else:
                i = j
        else:
            i += 1
    return "".join(no_comments), "".join(code)


def _literal_prefix_ok(text: str, i: int) -> bool:
    """Whether the `r` at `i` can start a raw string: it is a word of its
    own, or follows a lone `b` or `c`."""
    if i == 0 or not is_ident_char(text[i - 1]):
        return True
    return text[i - 1] in "bc" and (i == 1 or not is_ident_char(text[i - 2]))


def line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def match_forward(code: str, i: int) -> int:
    """The index after the bracket that closes the one at `i`."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    n = len(code)
    while i < n:
        c = code[i]
        if c in pairs:
            stack.append(pairs[c])
        elif c in ")]}":
            if stack and stack[-1] == c:
                stack.pop()
            if not stack:
                return i + 1
        i += 1
    return n


def item_end(code: str, i: int) -> int:
    """The end of the item starting at `i`: its `;`, or the brace that
    closes its first top-level block (a body, a struct's fields)."""
    depth, n = 0, len(code)
    while i < n:
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return i  # the enclosing block ended first
            if depth == 0 and c == "}":
                return i + 1
        elif c == ";" and depth == 0:
            return i + 1
        i += 1
    return n


_CFG_TEST = re.compile(r"#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]")
_INNER_CFG_TEST = re.compile(r"\A\s*(?:#!\s*\[[^\]]*\]\s*)*#!\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]")
_ATTR_START = re.compile(r"\s*#\s*\[")
_MOD_DECL = re.compile(rf"\b(?:pub\s*(?:\([^)]*\))?\s+)?mod\s+({IDENT})\s*([;{{])")
_PATH_ATTR = re.compile(r'#\s*\[\s*path\s*=\s*"([^"]*)"\s*\]')


@dataclass
class ModDecl:
    name: str
    path_attr: str | None
    test: bool


def strip_tests(text: str) -> tuple[str, str, list[ModDecl], bool]:
    """The two masks of `text` with every `#[cfg(test)]` item (attribute
    included) blanked, the file modules those items declare (`mod x;`), and
    whether the whole file is test-only (`#![cfg(test)]`)."""
    no_comments, code = mask(text)
    whole_file = bool(_INNER_CFG_TEST.match(code))
    nc, cd = list(no_comments), list(code)
    test_mods: list[ModDecl] = []
    pos = 0
    while (m := _CFG_TEST.search(code, pos)) is not None:
        start, i = m.start(), m.end()
        path_attr = None
        while (a := _ATTR_START.match(code, i)) is not None:
            end = match_forward(code, a.end() - 1)
            if p := _PATH_ATTR.match(text[a.start():end].strip()):
                path_attr = p.group(1)
            i = end
        while i < len(code) and code[i].isspace():
            i += 1
        end = item_end(code, i)
        if (d := _MOD_DECL.match(code, i)) and d.group(2) == ";":
            test_mods.append(ModDecl(_name(d.group(1)), path_attr, True))
        for k in range(start, end):
            if nc[k] != "\n":
                nc[k] = " "
                cd[k] = " "
        pos = max(end, m.end())
    return "".join(nc), "".join(cd), test_mods, whole_file


def _name(ident: str) -> str:
    return ident[2:] if ident.startswith("r#") else ident


def brace_depths(code: str) -> list[int]:
    depths, depth = [], 0
    for c in code:
        depths.append(depth)
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
    return depths


def file_mods(text: str, code: str) -> list[ModDecl]:
    """The `mod x;` declarations at the top level of a file (test ones are
    already blanked), with their `#[path]`."""
    depths = brace_depths(code)
    found = []
    for m in _MOD_DECL.finditer(code):
        if m.group(2) != ";" or depths[m.start()] != 0:
            continue
        found.append(ModDecl(_name(m.group(1)), _path_attr_before(text, code, m.start()), False))
    return found


def _path_attr_before(text: str, code: str, pos: int) -> str | None:
    i = pos
    while True:
        j = i
        while j > 0 and code[j - 1].isspace():
            j -= 1
        if j == 0 or code[j - 1] != "]":
            return None
        depth, k = 0, j - 1
        while k >= 0:
            if code[k] == "]":
                depth += 1
            elif code[k] == "[":
                depth -= 1
                if depth == 0:
                    break
            k -= 1
        h = k - 1
        while h >= 0 and code[h].isspace():
            h -= 1
        if h < 0 or code[h] != "#":
            return None
        if p := _PATH_ATTR.match(text[h:j]):
            return p.group(1)
        i = h


# --- Paths in code ----------------------------------------------------------

_USE = re.compile(r"\buse\b")
_TOKEN = re.compile(rf"\s*(::|\{{|\}}|,|\*|;|{IDENT})")
_PATH = re.compile(rf"(?<![A-Za-z0-9_])\$?(crate|self|super)((?:\s*::\s*{IDENT})+)")


def use_paths(code: str, start: int) -> list[tuple[list[str], int]]:
    """The paths a `use` tree starting at `start` (after `use`) names, each
    with the position of its last segment."""
    tokens: list[tuple[str, int]] = []
    i = start
    while (t := _TOKEN.match(code, i)) is not None:
        i = t.end()
        if t.group(1) == ";":
            break
        tokens.append((t.group(1), t.start(1)))
    else:
        return []  # no `use` declaration (say, `impl Trait + use<'a>`)
    paths: list[tuple[list[str], int]] = []

    def tree(k: int, prefix: list[str], at: int) -> int:
        path = list(prefix)
        while k < len(tokens):
            tok, pos = tokens[k]
            if tok == "{":
                k += 1
                while k < len(tokens) and tokens[k][0] != "}":
                    k = tree(k, path, at)
                    if k < len(tokens) and tokens[k][0] == ",":
                        k += 1
                return k + 1
            if tok == "*":
                break
            if tok in (",", "}"):
                paths.append((path, at))
                return k
            if tok == "as":
                paths.append((path, at))
                return k + 2  # past the alias
            if tok != "::" and not (tok == "self" and path):  # `a::{self}` is `a`
                path.append(_name(tok))
                at = pos
            k += 1
        paths.append((path, at))
        return k + 1

    tree(0, [], start)
    return [(p, at) for p, at in paths if p]


@dataclass
class Ref:
    segments: list[str]
    line: int
    text: str


def references(code: str) -> list[Ref]:
    refs = []
    for m in _USE.finditer(code):
        for path, at in use_paths(code, m.end()):
            if path[0] in ("crate", "self", "super"):
                refs.append(Ref(path, line_of(code, at), "::".join(path)))
    for m in _PATH.finditer(code):
        segs = [m.group(1)] + [_name(s) for s in re.findall(IDENT, m.group(2))]
        refs.append(Ref(segs, line_of(code, m.start()), "::".join(segs)))
    return refs


# --- Crates and modules -----------------------------------------------------


@dataclass
class Module:
    path: tuple[str, ...]
    file: Path
    test: bool
    children: dict[str, "Module"] = field(default_factory=dict)
    refs: list[Ref] = field(default_factory=list)
    code_lines: int = 0


@dataclass
class CrateTree:
    name: str
    root: Module
    files: set[Path]


def package_name(crate_dir: Path) -> str:
    manifest = crate_dir / "Cargo.toml"
    if manifest.exists():
        in_package = False
        for line in manifest.read_text().splitlines():
            line = line.strip()
            if line.startswith("["):
                in_package = line == "[package]"
            elif in_package and (m := re.match(r'name\s*=\s*"([^"]+)"', line)):
                return m.group(1)
    return crate_dir.name


def count_code_lines(no_comments: str) -> int:
    return sum(1 for line in no_comments.splitlines() if line.strip())


def load_module(path: tuple[str, ...], file: Path, mod_rs: bool, test: bool, files: set[Path]) -> Module:
    module = Module(path, file, test)
    files.add(file.resolve())
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return module
    no_comments, code, test_mods, whole_file = strip_tests(text)
    module.test = test = test or whole_file
    if not test:
        module.code_lines = count_code_lines(no_comments)
        module.refs = references(code)
    base = file.parent if mod_rs else file.parent / file.stem
    for decl in file_mods(text, code) + test_mods:
        if decl.path_attr is not None:
            # Relative to the declaring file's folder (the Reference).
            child_file, child_mod_rs = file.parent / decl.path_attr, True
        elif (base / f"{decl.name}.rs").exists():
            child_file, child_mod_rs = base / f"{decl.name}.rs", False
        else:
            child_file, child_mod_rs = base / decl.name / "mod.rs", True
        if child_file.exists():
            module.children[decl.name] = load_module(
                path + (decl.name,), child_file, child_mod_rs, test or decl.test, files
            )
    return module


def crate_trees(repo: Path) -> list[CrateTree]:
    trees = []
    for pattern in CRATE_GLOBS:
        for src in sorted(repo.glob(pattern)):
            if not src.is_dir():
                continue
            name = package_name(src.parent)
            roots = [src / "lib.rs", src / "main.rs"] + sorted((src / "bin").glob("*.rs"))
            roots = [r for r in roots if r.exists()]
            for root in roots:
                label = name if len(roots) == 1 or root.name == "lib.rs" else f"{name} ({root.relative_to(src)})"
                files: set[Path] = set()
                trees.append(CrateTree(label, load_module((), root, True, False, files), files))
    return trees


def all_modules(module: Module):
    yield module
    for child in module.children.values():
        yield from all_modules(child)


def resolve(tree: CrateTree, here: tuple[str, ...], segments: list[str]) -> tuple[str, ...] | None:
    """The deepest module a path from module `here` reaches."""
    first, rest = segments[0], segments[1:]
    if first in ("crate", "$crate"):
        at: tuple[str, ...] = ()
    elif first == "self":
        at = here
    elif first == "super":
        if not here:
            return None
        at = here[:-1]
    else:
        return None
    while rest and rest[0] == "super":
        if not at:
            return None
        at, rest = at[:-1], rest[1:]
    node = tree.root
    for name in at:
        node = node.children.get(name)
        if node is None:
            return at
    for name in rest:
        if name == "self":
            continue
        child = node.children.get(name)
        if child is None:
            break
        node = child
    return node.path


def fmt_module(path: tuple[str, ...]) -> str:
    return "::".join(("crate",) + path)


def check_cycles(repo: Path, trees: list[CrateTree]) -> list[Problem]:
    problems = []
    for tree in trees:
        # (parent, from child, to child) -> the first reference making it.
        edges: dict[tuple, tuple[str, int]] = {}
        where: dict[tuple, str] = {}
        for module in all_modules(tree.root):
            if module.test:
                continue
            for ref in module.refs:
                target = resolve(tree, module.path, ref.segments)
                if target is None:
                    continue
                common = 0
                while common < min(len(module.path), len(target)) and module.path[common] == target[common]:
                    common += 1
                if common == len(module.path) or common == len(target):
                    continue  # one is the other's ancestor
                key = (module.path[:common], module.path[: common + 1], target[: common + 1])
                site = (str(module.file.relative_to(repo)), ref.line)
                if key not in edges or site < edges[key]:
                    edges[key] = site
                    where[key] = f"{site[0]}:{site[1]} {ref.text}"
        by_parent: dict[tuple, dict[tuple, set[tuple]]] = {}
        for parent, a, b in edges:
            by_parent.setdefault(parent, {}).setdefault(a, set()).add(b)
        for parent in sorted(by_parent):
            graph = by_parent[parent]
            for cycle in cycles(graph):
                names = " -> ".join(fmt_module(m) for m in cycle + [cycle[0]])
                sites = "; ".join(
                    where[(parent, cycle[k], cycle[(k + 1) % len(cycle)])] for k in range(len(cycle))
                )
                problems.append(
                    Problem(
                        ("cycle", tree.name, tuple(fmt_module(m) for m in cycle)),
                        f"module cycle in {tree.name}: {names} ({sites})",
                    )
                )
    return problems


def cycles(graph: dict[tuple, set[tuple]]) -> list[list[tuple]]:
    """One shortest cycle through each edge that lies on a cycle, each
    cycle once, starting at its smallest node."""
    found: dict[tuple, list[tuple]] = {}
    for a in sorted(graph):
        for b in sorted(graph[a]):
            path = shortest_path(graph, b, a)
            if path is None:
                continue
            cycle = [a] + path[:-1]
            k = cycle.index(min(cycle))
            cycle = cycle[k:] + cycle[:k]
            found.setdefault(tuple(cycle), cycle)
    return [found[k] for k in sorted(found)]


def shortest_path(graph: dict[tuple, set[tuple]], start: tuple, goal: tuple) -> list[tuple] | None:
    previous: dict[tuple, tuple | None] = {start: None}
    queue = [start]
    for node in queue:
        if node == goal:
            path = []
            step: tuple | None = node
            while step is not None:
                path.append(step)
                step = previous[step]
            return path[::-1]
        for nxt in sorted(graph.get(node, ())):
            if nxt not in previous:
                previous[nxt] = node
                queue.append(nxt)
    return None


def check_sizes(repo: Path, trees: list[CrateTree]) -> list[Problem]:
    problems = []
    seen: set[Path] = set()
    counted: list[tuple[Path, int]] = []
    for tree in trees:
        for module in all_modules(tree.root):
            if module.file.resolve() in seen:
                continue
            seen.add(module.file.resolve())
            if not module.test:
                counted.append((module.file, module.code_lines))
    # Files no `mod` reaches (an include!, a file about to be wired in)
    # are still held to the limit.
    reached = set().union(*(t.files for t in trees)) if trees else set()
    for pattern in CRATE_GLOBS:
        for file in sorted(repo.glob(pattern + "/**/*.rs")):
            if file.resolve() not in reached and file.resolve() not in seen:
                seen.add(file.resolve())
                no_comments, _, _, whole_file = strip_tests(file.read_text(encoding="utf-8"))
                if not whole_file:
                    counted.append((file, count_code_lines(no_comments)))
    for file, lines in sorted(counted):
        if lines > MAX_CODE_LINES:
            rel = str(file.relative_to(repo))
            problems.append(
                Problem(
                    ("size", rel),
                    f"file too long: {rel} has {lines} lines of code outside tests (limit {MAX_CODE_LINES}); split it by concept",
                )
            )
    return problems


# --- Crate layering ---------------------------------------------------------

Runner = Callable[[list[str]], tuple[int, str, str]]


def run_command(args: list[str]) -> tuple[int, str, str]:
    done = subprocess.run(args, capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def cargo(run: Runner, args: list[str]) -> tuple[int, str, str]:
    """Runs cargo `args` with `--locked --offline`, so the check never
    reaches the network; only if that fails (the lock file's crates are not
    downloaded yet), once more without `--offline`."""
    done = run(["cargo", *args, "--locked", "--offline"])
    if done[0] != 0:
        done = run(["cargo", *args, "--locked"])
    return done


def check_layering(run: Runner, notes: list[str]) -> tuple[list[Problem], list[str]]:
    """Problems, and the crates whose rules were checked."""
    code, out, err = cargo(run, ["metadata", "--no-deps", "--format-version", "1"])
    if code != 0:
        return [Problem(("metadata",), f"crate layering: cargo metadata failed: {' '.join(err.split())}")], []
    packages = {p["name"] for p in json.loads(out)["packages"]}
    problems, checked = [], []
    for crate, forbidden in LAYER_RULES.items():
        rule = f"no {', '.join(forbidden)}"
        if crate not in packages:
            if REQUIRE_ALL_CRATES:
                problems.append(
                    Problem(("missing", crate), f"crate layering: {crate} is not in the workspace, so its rule ({rule}) cannot be checked")
                )
            else:
                notes.append(f"note: {crate} is not in the workspace yet; its rule ({rule}) is skipped")
            continue
        code, out, err = cargo(run, ["tree", "-p", crate, "-e", "normal", "--prefix", "none"])
        if code != 0:
            problems.append(Problem(("tree", crate), f"crate layering: cargo tree -p {crate} failed: {' '.join(err.split())}"))
            continue
        checked.append(crate)
        present = {line.split()[0] for line in out.splitlines() if line.strip()}
        for name in forbidden:
            if name in present:
                problems.append(
                    Problem(
                        ("layer", crate, name),
                        f"crate layering: {crate} depends on {name}, which it must not know (see: cargo tree -p {crate} -e normal -i {name})",
                    )
                )
    for crate, allowed in DIRECT_RULES.items():
        if crate not in packages:
            problems.append(Problem(("missing", crate), f"crate layering: {crate} is not in the workspace, so its rule cannot be checked"))
            continue
        code, out, err = cargo(run, ["tree", "-p", crate, "-e", "normal", "--depth", "1", "--prefix", "none"])
        if code != 0:
            problems.append(Problem(("tree", crate), f"crate layering: cargo tree -p {crate} failed: {' '.join(err.split())}"))
            continue
        checked.append(crate)
        direct = [line.split()[0] for line in out.splitlines()[1:] if line.strip()]
        for name in direct:
            if name in packages and name not in allowed:
                problems.append(
                    Problem(
                        ("direct", crate, name),
                        f"crate layering: {crate} depends on {name} directly; it may use only {', '.join(allowed)}",
                    )
                )
    return problems, checked


# --- Main -------------------------------------------------------------------


def check(repo: Path, run: Runner | None, notes: list[str]) -> tuple[list[Problem], str]:
    trees = crate_trees(repo)
    problems = check_cycles(repo, trees) + check_sizes(repo, trees)
    checked: list[str] = []
    if run is not None:
        layer_problems, checked = check_layering(run, notes)
        problems += layer_problems
    modules = sum(1 for t in trees for m in all_modules(t.root) if not m.test)
    summary = (
        f"check-layers: {len(trees)} crate targets, {modules} modules: no module cycles, "
        f"no file over {MAX_CODE_LINES} lines of code, crate rules hold ({', '.join(checked) or 'none checked'})"
    )
    return problems, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--self-test", action="store_true", help="check the checker on fixture crates")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    repo = Path.cwd()
    if not (repo / "Cargo.toml").exists():
        print("check-layers: run it from the repository root (no Cargo.toml here)", file=sys.stderr)
        return 2
    notes: list[str] = []
    problems, summary = check(repo, run_command, notes)
    for note in notes:
        print(note, file=sys.stderr)
    for problem in problems:
        print(problem.message)
    if problems:
        return 1
    print(summary)
    return 0


# --- Self-test --------------------------------------------------------------


def write_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def fixture_files() -> dict[str, str]:
    long_code = "\n".join(f"pub const C{i}: u32 = {i};" for i in range(MAX_CODE_LINES + 1))
    just_fits = "\n".join(f"pub const C{i}: u32 = {i};" for i in range(MAX_CODE_LINES))
    padding = "\n".join(["", "// a comment", "/* a block", "   comment */", "/// docs", ""] * 40)
    test_lines = "\n".join(f"    const T{i}: u32 = {i};" for i in range(200))
    return {
        "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n',
        # A plain cycle between siblings.
        "crates/siblings/Cargo.toml": '[package]\nname = "siblings"\n',
        "crates/siblings/src/lib.rs": """
            //! Root: its re-exports are no edges.
            pub mod a;
            pub mod b;
            pub mod c;
            pub use a::A;
            pub struct Root;
            """,
        "crates/siblings/src/a.rs": """
            use crate::Root; // the crate root is everyone's ancestor
            pub struct A(pub Root);
            pub fn make() -> crate::b::B { crate::b::B }
            """,
        "crates/siblings/src/b.rs": """
            pub struct B;

            pub fn back() -> super::a::A { todo!() }
            pub fn down() { let _ = crate::c::deep::D; }
            """,
        "crates/siblings/src/c.rs": """
            pub mod deep;
            pub fn c() {}
            """,
        # c.rs is no mod.rs: its `mod deep;` is c/deep.rs, whose super::super
        # is the crate root. deep -> b and b -> deep make a cycle c <-> b.
        "crates/siblings/src/c/deep.rs": """
            pub struct D;
            pub fn d() -> super::super::b::B { todo!() }
            """,
        # A cycle only seen by resolving super:: from a non-mod.rs file, and
        # one between outer/mod.rs and a root sibling.
        "crates/nested/Cargo.toml": '[package]\nname = "nested"\n',
        "crates/nested/src/lib.rs": """
            mod outer;
            mod side;
            mod calm;
            """,
        "crates/nested/src/outer/mod.rs": """
            mod x;
            mod y;
            pub use super::side::Side;
            use self::x::X; // own child: no edge
            """,
        "crates/nested/src/outer/x.rs": """
            use super::y::Y;
            pub struct X;
            pub fn parents() -> super::Side { todo!() } // an ancestor: no edge
            """,
        "crates/nested/src/outer/y.rs": """
            pub struct Y;
            pub fn f() { let _ = super::x::X; }
            """,
        "crates/nested/src/side.rs": """
            pub struct Side;
            pub fn g() { let _ = crate::outer::x::X; }
            pub fn calm() { let _ = crate::calm::h; }
            """,
        # side -> calm; calm names side only in tests, comments and
        # strings, so there is no cycle.
        "crates/nested/src/calm.rs": """
            // crate::side::Side is named in a comment only
            /* and in /* a nested */ block: super::side::Side */
            const S: &str = "crate::side::Side";
            const R: &str = r#"super::side "quoted" // not a comment"#;
            const Q: char = '"';
            pub fn h<'a>(s: &'a str) -> &'a str { s }
            #[cfg(test)]
            mod tests {
                use crate::side::Side;
            }
            #[cfg(test)]
            #[path = "calm_tests.rs"]
            mod more_tests;
            #[cfg(test)]
            fn helper() { let _ = crate::side::Side; }
            """,
        # Loaded only by a test module: neither its references nor its
        # length count.
        "crates/nested/src/calm_tests.rs": "use crate::side::Side;\n" + long_code + "\n",
        "crates/nested/src/outer/calm_user.rs": "// not wired in: no module\n",
        # Braced use trees: top names p and q::inner in one `use`; both
        # name top back.
        "crates/trees/Cargo.toml": '[package]\nname = "trees"\n',
        "crates/trees/src/lib.rs": """
            pub mod p;
            pub mod q;
            pub mod top;
            """,
        "crates/trees/src/top.rs": """
            use crate::{
                p::P,
                q::{inner::{self, I}, Q as Cue},
            };
            pub struct T;
            pub struct Helper;
            """,
        "crates/trees/src/p.rs": """
            pub use crate::top::T;
            pub struct P;
            """,
        "crates/trees/src/q/mod.rs": """
            pub mod inner;
            pub struct Q;
            """,
        "crates/trees/src/q/inner.rs": """
            use crate::top::Helper as H;
            pub struct I;
            """,
        # Sizes: code over the limit; code at the limit with comments and a
        # test module around it.
        "crates/sizes/Cargo.toml": '[package]\nname = "sizes"\n',
        "crates/sizes/src/lib.rs": "mod long;\nmod fits;\n",
        "crates/sizes/src/long.rs": long_code + "\n",
        "crates/sizes/src/fits.rs": padding + "\n" + just_fits + "\n#[cfg(test)]\nmod tests {\n" + test_lines + "\n}\n",
        # The desktop shell's place is checked too, lib and main.
        "src-tauri/Cargo.toml": '[package]\nname = "shell"\n',
        "src-tauri/src/lib.rs": "mod one;\nmod two;\n",
        "src-tauri/src/one.rs": "use crate::two::Two;\npub struct One;\n",
        "src-tauri/src/two.rs": "use crate::one::One;\npub struct Two;\n",
        "src-tauri/src/main.rs": "fn main() { shell::run(); }\n",
    }


def self_test() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_tree(root, fixture_files())
        problems, _ = check(root, None, [])
    got = {p.key: p.message for p in problems}
    expected = {
        ("cycle", "siblings", ("crate::a", "crate::b")): ["crates/siblings/src/a.rs:3 crate::b::B", "crates/siblings/src/b.rs:3 super::a::A"],
        ("cycle", "siblings", ("crate::b", "crate::c")): ["crates/siblings/src/b.rs:4 crate::c::deep::D", "crates/siblings/src/c/deep.rs:2 super::super::b::B"],
        ("cycle", "nested", ("crate::outer", "crate::side")): ["crates/nested/src/outer/mod.rs:3 super::side::Side", "crates/nested/src/side.rs:2 crate::outer::x::X"],
        ("cycle", "nested", ("crate::outer::x", "crate::outer::y")): ["crates/nested/src/outer/x.rs:1 super::y::Y", "crates/nested/src/outer/y.rs:2 super::x::X"],
        ("cycle", "trees", ("crate::p", "crate::top")): ["crates/trees/src/p.rs:1 crate::top::T", "crates/trees/src/top.rs:2 crate::p::P"],
        ("cycle", "trees", ("crate::q", "crate::top")): ["crates/trees/src/q/inner.rs:1 crate::top::Helper", "crates/trees/src/top.rs:3 crate::q::inner"],
        ("cycle", "shell", ("crate::one", "crate::two")): ["src-tauri/src/one.rs:1 crate::two::Two", "src-tauri/src/two.rs:1 crate::one::One"],
        ("size", "crates/sizes/src/long.rs"): [f"has {MAX_CODE_LINES + 1} lines of code"],
    }
    failures = []
    for key in sorted(set(got) | set(expected), key=repr):
        if key not in got:
            failures.append(f"missed: {key}")
        elif key not in expected:
            failures.append(f"unexpected: {got[key]}")
        else:
            for part in expected[key]:
                if part not in got[key]:
                    failures.append(f"{key}: {part!r} not in {got[key]!r}")
    failures += self_test_lexer() + self_test_layering()
    for failure in failures:
        print(f"self-test: {failure}")
    if failures:
        return 1
    print(f"check-layers self-test: {len(expected)} expected problems found, nothing else; lexer and crate rules as expected")
    return 0


def self_test_lexer() -> list[str]:
    failures = []
    cases = {
        # text -> what the code mask keeps (spaces squeezed)
        'let s = "a // b"; // c': 'let s = " "; ',
        "let r = br#\"x\"y\"#; f()": 'let r = br#" "#; f()',
        "let c = '\"'; let l: &'a str = x;": "let c = ' '; let l: &'a str = x;",
        "a /* b /* c */ d */ e": "a e",
        "let q = bar\"x\";": 'let q = bar" ";',
    }
    for text, want in cases.items():
        got = " ".join(mask(text)[1].split(" "))
        got = re.sub(" +", " ", got)
        if got != re.sub(" +", " ", want):
            failures.append(f"mask({text!r}) = {got!r}, want {want!r}")
    paths = [p for p, _ in use_paths("crate::{a, b::{self, c as d, e::*}, f};", 0)]
    want = [["crate", "a"], ["crate", "b"], ["crate", "b", "c"], ["crate", "b", "e"], ["crate", "f"]]
    if paths != want:
        failures.append(f"use tree read as {paths}, want {want}")
    return failures


def self_test_layering() -> list[str]:
    trees = {
        "sieve-wire": "sieve-wire v0.1.0 (/x)\nserde_json v1.0.0\nrmcp v3.9.0\n",
        "sieve-sentence": "sieve-sentence v0.1.0 (/x)\ncandle-core v0.9.2\n",
        "sieve-core": "sieve-core v0.1.0 (/x)\nserde v1.0.0\ntokio v1.0.0\n",
        "sieve-postgres": "sieve-postgres v0.1.0 (/x)\ntokio-postgres v0.7.0\n",
        "sieve-store": "sieve-store v0.1.0 (/x)\nrusqlite v0.1.0\nsieve-core v0.1.0 (/x) (*)\n",
        "sieve-ledger": "sieve-ledger v0.1.0 (/x)\nrusqlite v0.1.0\n",
        "sieve-gateway": "sieve-gateway v0.1.0 (/x)\nrmcp v3.9.0\nsieve-store v0.1.0 (/x)\n",
        "sieve-api": "sieve-api v0.1.0 (/x)\nsieve-gateway v0.1.0 (/x)\n",
        "sieve-cli": "sieve-cli v0.1.0 (/x)\nsieve-api v0.1.0 (/x)\nsieve-store v0.1.0 (/x)\nclap v4.0.0\n",
    }

    def fake(args: list[str]) -> tuple[int, str, str]:
        assert args[-2:] == ["--locked", "--offline"], args
        if args[1] == "metadata":
            return 0, json.dumps({"packages": [{"name": n} for n in trees]}), ""
        return 0, trees[args[args.index("-p") + 1]], ""

    notes: list[str] = []
    problems, checked = check_layering(fake, notes)
    failures = []
    keys = {p.key for p in problems}
    want = {
        ("layer", "sieve-wire", "rmcp"),
        ("layer", "sieve-core", "tokio"),
        ("direct", "sieve-cli", "sieve-store"),
        ("missing", "sieve-app"),
    }
    if keys != want:
        failures.append(f"layering found {keys}, want {want}")
    if checked != ["sieve-wire", "sieve-sentence", "sieve-core", "sieve-postgres", "sieve-store", "sieve-ledger", "sieve-gateway", "sieve-api", "sieve-cli"]:
        failures.append(f"layering checked {checked}, notes {notes}")
    return failures


if __name__ == "__main__":
    sys.exit(main())
