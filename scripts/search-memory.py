#!/usr/bin/env python3
"""VmRSS of `mcp-sieve serve` (stdio, the demo) after initialize and a
list, under a list profile and a search profile; for the search profile
also after the sentence model has read the tools and after 20 queries
(issue 34, docs/benchmarks.md round 9).

Usage: scripts/search-memory.py BINARY (the model as scripts/model-deps.sh
puts it, or MCP_SIEVE_MODEL)."""
import json, os, subprocess, sys, tempfile, time

binary = sys.argv[1]

def rss(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    return 0

def run(profile):
    home = tempfile.mkdtemp()
    os.makedirs(f"{home}/profiles")
    json.dump({"disclosure": "search"}, open(f"{home}/profiles/search.json", "w"))
    p = subprocess.Popen([binary, "--home", home, "serve", "--profile", profile],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    n = [0]
    def req(method, params):
        n[0] += 1
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": n[0], "method": method, "params": params}) + "\n").encode())
        p.stdin.flush()
        while True:
            msg = json.loads(p.stdout.readline())
            if msg.get("id") == n[0]:
                return msg
    req("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "m", "version": "1"}})
    p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'); p.stdin.flush()
    req("tools/list", {})
    time.sleep(0.5)
    out = {"after list": rss(p.pid)}
    if profile == "search":
        find = {"name": "sieve__find_tools", "arguments": {"query": "give the customer their money back"}}
        while req("tools/call", find)["result"]["_meta"]["dev.mcp-sieve/ranking"] != "words and meaning":
            time.sleep(0.1)
        out["model read the tools"] = rss(p.pid)
        for q in ["kick bob out", "pay this bill", "what changed lately", "rename the file"] * 5:
            req("tools/call", {"name": "sieve__find_tools", "arguments": {"query": q}})
        out["after 20 queries"] = rss(p.pid)
    p.kill()
    return out

for profile in ["default", "search"]:
    print(profile, {k: f"{v:.1f} MiB" for k, v in run(profile).items()})
