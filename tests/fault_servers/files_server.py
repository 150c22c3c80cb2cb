#!/usr/bin/env python3
"""A stdlib MCP stdio server whose one tool, `give`, returns a file chosen by `kind`, each hostile
or huge in one way, as an embedded resource (a base64 blob with its MIME type):

  hostile_html  an HTML report with <script>, an onerror handler, a javascript: link, an iframe
  svg_script    an SVG carrying a <script> and an onload handler
  bad_pdf       bytes that start like a PDF and then are not one
  wide_csv      a CSV whose header has 1,000,000 columns (and two data rows)
  tall_csv      a CSV of 1,000,000 rows ("row,value" then "i,i*i")
  exact_csv     a header and 255 rows: 256 records, a whole number of the proxy's row marks
  nothing       text only: no file at all
  png_bomb      a 100-byte PNG whose header claims 40000 x 40000 pixels (as an image block)
  user_only_png a PNG and a text, both annotated audience ["user"] (as an image block)
  hostile_mime  a PNG declared "image/png\r\nX-Injected: 1" and a text block with a 10 KB type
"""

import base64
import json
import struct
import sys
import zlib


def png(width, height, pixels=(1, 1)):
    """A PNG whose header says width x height; its pixel data is that of a pixels-sized image."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + b"\xc8\x1e\x1e" * pixels[0] for _ in range(pixels[1]))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def image(data, mime="image/png", **extra):
    return {"type": "image", "data": base64.b64encode(data).decode(), "mimeType": mime, **extra}


def blob(uri, mime, data):
    return {"type": "resource", "resource": {"uri": uri, "mimeType": mime, "blob": base64.b64encode(data).decode()}}


def make(kind):
    if kind == "hostile_html":
        html = (
            "<html><body><h1>Quarterly report</h1><p id=p>Revenue grew.</p>"
            "<script>document.title='pwned';parent.postMessage('pwned','*')</script>"
            "<img src=x onerror=\"parent.postMessage('pwned','*')\">"
            "<a href=\"javascript:parent.postMessage('pwned','*')\">click</a>"
            "<iframe src=\"https://example.com\"></iframe></body></html>"
        )
        return [{"type": "text", "text": "Here is the report."}, blob("file:///report.html", "text/html", html.encode())]
    if kind == "svg_script":
        svg = (
            '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" onload="parent.postMessage(\'pwned\',\'*\')">'
            "<script>parent.postMessage('pwned','*')</script><rect width=\"40\" height=\"40\" fill=\"red\"/></svg>"
        )
        return [blob("file:///badge.svg", "image/svg+xml", svg.encode())]
    if kind == "bad_pdf":
        return [blob("file:///broken.pdf", "application/pdf", b"%PDF-1.7\n" + b"\x00garbage " * 5000)]
    if kind == "wide_csv":
        header = ",".join(f"c{i}" for i in range(1_000_000))
        rows = "\n".join(",".join(str(r * 10 + (i % 10)) for i in range(1_000_000)) for r in range(2))
        return [blob("file:///wide.csv", "text/csv", (header + "\n" + rows + "\n").encode())]
    if kind == "tall_csv":
        lines = ["row,value"] + [f"{i},{i * i}" for i in range(1_000_000)]
        return [blob("file:///tall.csv", "text/csv", ("\n".join(lines) + "\n").encode())]
    if kind == "exact_csv":
        lines = ["n"] + [str(i) for i in range(255)]
        return [blob("file:///exact.csv", "text/csv", ("\n".join(lines) + "\n").encode())]
    if kind == "png_bomb":
        return [{"type": "text", "text": "The rendering."}, image(png(40000, 40000))]
    if kind == "user_only_png":
        user = {"audience": ["user"]}
        return [image(png(3, 2, (3, 2)), annotations=user), {"type": "text", "text": "Account 4711, for your eyes.", "annotations": user}]
    if kind == "hostile_mime":
        return [image(png(4, 1, (4, 1)), "image/png\r\nX-Injected: 1"), {"type": "text", "text": "Typed.", "mimeType": "text/" + "x" * 10240}]
    return [{"type": "text", "text": "No files this time."}]


def main():
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method, id_ = message.get("method"), message.get("id")
        if id_ is None:
            continue
        if method == "initialize":
            result = {
                "protocolVersion": message["params"].get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "files", "version": "1"},
            }
        elif method == "tools/list":
            result = {"tools": [{
                "name": "give",
                "description": "Returns a file of the given kind",
                "inputSchema": {"type": "object", "properties": {"kind": {"type": "string"}}, "required": ["kind"]},
            }]}
        elif method == "tools/call":
            result = {"content": make(message["params"].get("arguments", {}).get("kind", ""))}
        else:
            print(json.dumps({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": method}}), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": id_, "result": result}), flush=True)


if __name__ == "__main__":
    main()
