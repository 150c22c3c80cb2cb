#!/usr/bin/env python3
"""Checks the workspace's dependency invariants (ARCHITECTURE.md) from `cargo metadata`.

1. Only the desktop shell (`mcp-canvas`, in src-tauri/) depends on Tauri, directly or not.
2. Nothing depends on the desktop shell.
3. `mcp-canvas-contract` does no I/O: no MCP transport, database or async runtime beneath it.
4. The wire crate (what crosses to the window) is light: no database, bucket or keyring beneath
   it, and none of our crates that bring them or a connection.
5. Layers: no crate depends on one above it (the order below), and the workspace has at most 18
   members, each named in ARCHITECTURE.md's codemap.
6. No small room for one user: a library crate of under 600 lines that only one other member
   depends on belongs in that member.
"""
import json
import subprocess
import sys

SHELL = "mcp-canvas"
NO_IO = {name: {"rmcp", "rusqlite", "tokio", "reqwest"} for name in ("mcp-canvas-contract", "mcp-canvas-canvas")}
# (rmcp is there for its model types; `cargo metadata` unifies its features across the workspace,
# so what its transports bring is not counted against the wire crate.)
NO_IO["mcp-canvas-wire"] = {"rusqlite", "tokio-postgres", "object_store", "keyring",
    "mcp-canvas-store", "mcp-canvas-team", "mcp-canvas-client", "mcp-canvas-sampling", "mcp-canvas-host"}
# Bottom to top: a crate may depend only on crates to its left (or on none of ours).
LAYERS = ["mcp-canvas-contract", "mcp-canvas-canvas", "mcp-canvas-store", "mcp-canvas-render", "mcp-canvas-ingest",
    "mcp-canvas-sampling", "mcp-canvas-elicitation", "mcp-canvas-config", "mcp-canvas-team", "mcp-canvas-client",
    "mcp-canvas-wire", "mcp-canvas-host", "mcp-canvas-proxy", "mcp-canvas-app", "mcp-canvas-cli", "mcp-canvas", "mcp-canvas-e2e"]
MAX_MEMBERS = 18

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

if len(members) > MAX_MEMBERS:
    problems.append(f"{len(members)} workspace members: at most {MAX_MEMBERS} (fold a crate that only one other uses into it)")
codemap = open("ARCHITECTURE.md").read()
for name, pid in sorted(members.items()):
    path = packages[pid]["manifest_path"].rsplit("/", 1)[0]
    folder = path.split("/")[-1]
    if f"`{name}`" not in codemap:
        problems.append(f"{name} ({folder}/) is not in ARCHITECTURE.md's codemap")
    if name in LAYERS:
        mine = LAYERS.index(name)
        direct = {packages[d["pkg"]]["name"] for d in nodes[pid]["deps"] if {k["kind"] for k in d["dep_kinds"]} - {"dev"}}
        for dep in sorted(direct & set(LAYERS)):
            if LAYERS.index(dep) > mine:
                problems.append(f"{name} depends on {dep}, a layer above it")
    elif name != "mcp-canvas-demo":
        problems.append(f"{name} has no place in check-deps.py's LAYERS")

import pathlib
dependents = {name: set() for name in members}
for name, pid in members.items():
    for dep in nodes[pid]["deps"]:
        dep_name = packages[dep["pkg"]]["name"]
        if dep_name in dependents and dep_name != name:
            dependents[dep_name].add(name)
for name, pid in sorted(members.items()):
    root = pathlib.Path(packages[pid]["manifest_path"]).parent
    lines = sum(len(p.read_text(errors="replace").splitlines()) for p in (root / "src").rglob("*.rs")) if (root / "src").is_dir() else 0
    if len(dependents[name]) == 1 and 0 < lines < 600:
        (user,) = dependents[name]
        problems.append(f"{name} ({lines} lines) is used only by {user}: fold it into {user}")

if problems:
    print("dependency invariants violated:\n  " + "\n  ".join(problems), file=sys.stderr)
    sys.exit(1)
print(f"dependency invariants hold for {len(members)} workspace members")
