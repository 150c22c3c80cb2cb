"""A FastMCP server (PyPI `fastmcp`, the version pinned in scripts/setup.sh) over Streamable HTTP
whose tool answers with a large image: `python big_results_server.py PORT MODE` listens on
127.0.0.1:PORT, answering each POST with one `application/json` body (MODE `json`, FastMCP's
`json_response=True`) or with a `text/event-stream` (MODE `sse`, its default), and prints
`listening on port PORT` when ready.

`picture(megabytes)` returns a valid PNG of about that many MB of random pixels (stored
deflate blocks, so it stays as large as asked) as an image block, and its SHA-256 as text, so a
test can check that the stored artifact is the server's image, byte for byte. Used by
tests/http_results.rs.
"""

import base64
import hashlib
import os
import struct
import sys
import zlib

from fastmcp import FastMCP
from mcp.types import ImageContent, TextContent

port, mode = int(sys.argv[1]), sys.argv[2]
mcp = FastMCP("big-results")


def png(megabytes: int) -> bytes:
    width = 1000
    height = max(1, megabytes * 1_000_000 // (width * 3))
    row = width * 3
    pixels = os.urandom(row * height)
    raw = b"".join(b"\x00" + pixels[y * row:(y + 1) * row] for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 0)) + chunk(b"IEND", b"")


@mcp.tool
def picture(megabytes: int) -> list:
    """A PNG of about `megabytes` MB of random pixels, and its SHA-256."""
    data = png(megabytes)
    return [
        ImageContent(type="image", data=base64.b64encode(data).decode(), mimeType="image/png"),
        TextContent(type="text", text=f"sha256 {hashlib.sha256(data).hexdigest()} size {len(data)}"),
    ]


if __name__ == "__main__":
    print(f"listening on port {port}", flush=True)
    mcp.run(transport="http", host="127.0.0.1", port=port, path="/mcp", show_banner=False, json_response=(mode == "json"))
