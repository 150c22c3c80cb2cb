#!/usr/bin/env python3
"""What the proxy's MCP App view costs, against a baseline from the same run.

Starts `mcp-canvas-cli proxy` (release if built, else debug) in front of the demo server as an AI
host that renders MCP Apps would (raw JSON-RPC over stdio, the UI extension declared), calls
`demo__get_view_as_pdf` for a 50-page PDF, then does what the view does to show page 1 — read
the view once, ask for the file's facts, ask for page 1 at 800 px — and prints:

  * the view's weight (the one document the host loads), raw and gzipped;
  * the bytes that cross the host bridge for that page, against the baseline of moving the PDF
    itself to a viewer (`resources/read` of the call's artifact link, base64 in JSON);
  * the proxy's time from the tool result to page 1's PNG, against the same page rendered by
    `mcp-canvas-cli` alone (`preview`, the canvas's renderer) as a process of its own.

Usage: scripts/bench-proxy-view.py [--runs N] [--pages 50] [--width 800]
"""

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def binary(name):
    for profile in ("release", "debug"):
        path = os.path.join(ROOT, "target", profile, name)
        if os.path.exists(path):
            return path, profile
    sys.exit(f"{name} is not built: cargo build --release -p mcp-canvas-cli -p mcp-canvas-demo")


class Proxy:
    def __init__(self, cli, data_dir):
        self.p = subprocess.Popen([cli, "--data-dir", data_dir, "proxy"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0

    def request(self, method, params):
        self.next_id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        self.p.stdin.write(line.encode() + b"\n")
        self.p.stdin.flush()
        while True:
            raw = self.p.stdout.readline()
            if not raw:
                sys.exit("the proxy closed its output")
            message = json.loads(raw)
            if message.get("id") == self.next_id:
                if "error" in message:
                    sys.exit(f"{method}: {message['error']}")
                return message["result"], len(line) + len(raw)

    def notify(self, method):
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}).encode() + b"\n")
        self.p.stdin.flush()

    def close(self):
        self.p.stdin.close()
        self.p.wait(10)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pages", type=int, default=50)
    ap.add_argument("--width", type=int, default=800)
    ns = ap.parse_args()
    cli, profile = binary("mcp-canvas-cli")
    demo, _ = binary("mcp-canvas-demo")
    data_dir = tempfile.mkdtemp(prefix="bench-view-")
    with open(os.path.join(data_dir, "servers.json"), "w") as f:
        json.dump({"mcpServers": {"demo": {"command": demo}}}, f)
    proxy = Proxy(cli, data_dir)
    proxy.request("initialize", {
        "protocolVersion": "2025-06-18",
        "capabilities": {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}},
        "clientInfo": {"name": "bench", "version": "1"},
    })
    proxy.notify("notifications/initialized")
    view, view_bytes = proxy.request("resources/read", {"uri": "ui://mcp-canvas/files"})
    html = view["contents"][0]["text"].encode()
    proxy_ms, direct_ms = [], []
    for run in range(ns.runs):
        result, _ = proxy.request("tools/call", {"name": "demo__get_view_as_pdf", "arguments": {"pages": ns.pages, "seed": run + 1}})
        meta = result["_meta"]["io.github.mcp-canvas/view"]
        cap, file = meta["capability"], meta["files"][0]
        started = time.perf_counter()
        _, file_bytes = proxy.request("tools/call", {"name": "mcp-canvas.view.file", "arguments": {"capability": cap, "id": file["id"]}})
        _, page_bytes = proxy.request("tools/call", {"name": "mcp-canvas.view.page", "arguments": {"capability": cap, "id": file["id"], "page": 0, "width": ns.width}})
        proxy_ms.append((time.perf_counter() - started) * 1000)
        _, whole_bytes = proxy.request("resources/read", {"uri": f"artifact://localhost/{file['id']}"})
        out = os.path.join(data_dir, f"page{run}.png")
        started = time.perf_counter()
        subprocess.run([cli, "--data-dir", data_dir, "preview", file["id"], "--page", "1", "--width", str(ns.width), "--out", out], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        direct_ms.append((time.perf_counter() - started) * 1000)
    proxy.close()
    print(f"proxy view benchmark ({profile} build, {ns.runs} runs, a {ns.pages}-page PDF of {file['size'] / 1024:.0f} KB, page 1 at {ns.width} px)")
    print(f"  view weight: {len(html) / 1024:.0f} KB ({len(gzip.compress(html)) / 1024:.0f} KB gzipped), read once per host session ({view_bytes / 1024:.0f} KB on the wire)")
    print(f"  bridge bytes for page 1: {(file_bytes + page_bytes) / 1024:.0f} KB (file facts {file_bytes / 1024:.1f} KB + page {page_bytes / 1024:.0f} KB)")
    print(f"    baseline, the PDF itself through resources/read: {whole_bytes / 1024:.0f} KB ({whole_bytes / (file_bytes + page_bytes):.1f}x more)")
    print(f"  proxy, result to page 1 PNG: median {statistics.median(proxy_ms):.0f} ms (min {min(proxy_ms):.0f}, max {max(proxy_ms):.0f})")
    print(f"    baseline, mcp-canvas-cli preview of the same page (process start included): median {statistics.median(direct_ms):.0f} ms")


if __name__ == "__main__":
    main()
