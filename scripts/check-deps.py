#!/usr/bin/env python3
"""Checks the workspace's dependency invariants (ARCHITECTURE.md) from `cargo metadata`.

1. Only the desktop shell (`mcp-canvas`, in src-tauri/) depends on Tauri, directly or not.
2. Nothing depends on the desktop shell.
3. `mcp-canvas-contract` does no I/O: no MCP transport, database or async runtime beneath it.
"""
import json
import subprocess
import sys

SHELL = "mcp-canvas"
NO_IO = {name: {"rmcp", "rusqlite", "tokio", "reqwest"} for name in ("mcp-canvas-contract", "mcp-canvas-canvas")}

meta = json.loads(subprocess.check_output(["cargo", "metadata", "--format-version", "1"]))
packages = {p["id"]: p for p in meta["packages"]}
nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
members = {packages[i]["name"]: i for i in meta["workspace_members"]}


def closure(root_id, include_dev_of_root):
    """Package names reachable from root through normal and build edges (and the root's dev edges)."""
    seen, stack = set(), [(root_id, True)]
    while stack:
        pid, is_root = stack.pop()
        for dep in nodes[pid]["deps"]:
            kinds = {k["kind"] for k in dep["dep_kinds"]}
            if kinds <= {"dev"} and not (is_root and include_dev_of_root):
                continue
            if dep["pkg"] not in seen:
                seen.add(dep["pkg"])
                stack.append((dep["pkg"], False))
    return {packages[p]["name"] for p in seen}


problems = []
for name, pid in sorted(members.items()):
    reachable = closure(pid, include_dev_of_root=True)
    if name != SHELL:
        tauri = sorted(n for n in reachable if n == "tauri" or n.startswith("tauri-"))
        if tauri:
            problems.append(f"{name} depends on {', '.join(tauri)}: only src-tauri may depend on Tauri")
        if SHELL in reachable:
            problems.append(f"{name} depends on the desktop shell `{SHELL}`")
    for forbidden in sorted(NO_IO.get(name, set()) & reachable):
        problems.append(f"{name} must do no I/O but depends on {forbidden}")

if problems:
    print("dependency invariants violated:\n  " + "\n  ".join(problems), file=sys.stderr)
    sys.exit(1)
print(f"dependency invariants hold for {len(members)} workspace members")
