#!/usr/bin/env python3
"""A small MCP stdio server that misbehaves on purpose (stdlib only).

It speaks just enough JSON-RPC: `initialize` (echoing the client's protocol version),
`tools/list`, `tools/call`, and the resources methods. Every message it receives is logged to
stderr as `got <method or id>` so tests can see what the host sent (the host keeps stderr in
`logs/<server>.log`).

Tools (each misbehaves in one way when called):
  echo            answers {"text": ...} normally
  exit_mid_call   writes half a response, says why on stderr, exits with status 3
  never_answer    never answers this call (other calls still work)
  garbage         prints non-JSON lines (and a JSON line that is not JSON-RPC) before the answer
  big_line        answers with one ~50 MB line: an image block of a PNG padded with zeros
  big_garbage     prints one ~50 MB line of non-JSON, then answers normally
  flood           sends 20,000 notifications (log messages and progress) before the answer
  bad_result      answers with the right id but a result that is not a CallToolResult
  big_structured  answers with structuredContent {"file": {"name": "tile.png", "data": <base64 of a
                  PNG signature and 200,000 zero bytes>}} beside a text block
  paused_big      writes the first half of a ~2.7 MB answer (a PNG padded with zeros in an image
                  block), waits until the file `release` (an argument) exists, then the rest
  embedded_blob   answers with embedded `resource` blocks: a PNG blob and a text resource
  exit_after_answer  answers normally, then exits (the next call finds the server gone)
  announce_changes   sends tools/resources/prompts list_changed notifications, then answers

Options:
  --no-resources  do not advertise the resources capability
  --cursor-loop   resources/list returns the same nextCursor forever
  --silent-tools-list   answers initialize but never tools/list
  --tools-cursor-loop   tools/list returns the same nextCursor forever
  --linger        keeps running for a minute after stdin closes (a server that ignores EOF)
"""

import base64
import json
import os
import sys
import time
import zlib
import struct

ARGS = set(sys.argv[1:])
OUT = sys.stdout.buffer


def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def send(message):
    OUT.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
    OUT.flush()


def png(width, height):
    """A valid RGB PNG of the given size, all one colour."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + b"\x20\x80\xc0" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


# The payload of `big_line`: a 7x5 PNG followed by zeros, 37.5 MB decoded (50 MB as base64).
BIG_DECODED_LEN = 37_500_000
TOOLS = ["big_structured", "paused_big", "echo", "exit_after_answer", "exit_mid_call", "never_answer", "garbage", "big_line", "big_garbage", "flood", "bad_result", "embedded_blob", "announce_changes",
         "deep_result", "cut_result", "oversized_result", "deep_request", "refuse_arguments", "client_capabilities"]

# What the client declared in `initialize` (answered by the tool `client_capabilities`).
CLIENT_CAPABILITIES = {}

RESOURCES = [
    {"uri": "stub://page1/a.txt", "name": "a.txt", "mimeType": "text/plain"},
    {"uri": "stub://liar.png", "name": "liar.png", "mimeType": "image/png"},
    {"uri": "stub://multi", "name": "multi"},
    {"uri": "stub://empty", "name": "empty"},
]


def tool_list():
    schema = {"type": "object", "properties": {"text": {"type": "string"}}}
    return {"tools": [{"name": name, "description": f"misbehaves: {name}", "inputSchema": schema} for name in TOOLS]}


def text_result(text):
    return {"content": [{"type": "text", "text": text}], "isError": False}


def call(msg_id, name, arguments):
    if name == "client_capabilities":
        send({"jsonrpc": "2.0", "id": msg_id, "result": text_result(json.dumps(CLIENT_CAPABILITIES))})
    elif name == "echo":
        send({"jsonrpc": "2.0", "id": msg_id, "result": text_result(arguments.get("text", "echo"))})
    elif name == "exit_after_answer":
        send({"jsonrpc": "2.0", "id": msg_id, "result": text_result("goodbye")})
        log("exit_after_answer: answered, exiting")
        sys.exit(0)
    elif name == "exit_mid_call":
        OUT.write(b'{"jsonrpc":"2.0","id":' + json.dumps(msg_id).encode() + b',"result":{"content":[{"type":"te')
        OUT.flush()
        log("exit_mid_call: exiting in the middle of a response")
        sys.exit(3)
    elif name == "announce_changes":
        for kind in ("tools", "resources", "prompts"):
            send({"jsonrpc": "2.0", "method": f"notifications/{kind}/list_changed"})
        send({"jsonrpc": "2.0", "id": msg_id, "result": text_result("announced")})
    elif name == "never_answer":
        log("never_answer: not answering")
    elif name == "garbage":
        OUT.write(b"this is not JSON\n")
        OUT.write(b"{\"half\": \n")
        OUT.write(b"\xff\xfe\x00 binary \x01\x02\n")
        OUT.write(b"\n   \n")
        OUT.write(b"[1, 2, 3]\n")
        OUT.write(b'{"not": "json-rpc"}\n')
        OUT.flush()
        send({"jsonrpc": "2.0", "id": msg_id, "result": text_result("after the garbage")})
    elif name == "big_line":
        image = png(7, 5)
        payload = image + b"\x00" * (BIG_DECODED_LEN - len(image))
        data = base64.b64encode(payload).decode()
        send({"jsonrpc": "2.0", "id": msg_id, "result": {"content": [
            {"type": "text", "text": "a big picture"},
            {"type": "image", "mimeType": "image/png", "data": data}]}})
    elif name == "big_structured":
        data = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 200_000).decode()
        send({"jsonrpc": "2.0", "id": msg_id, "result": {"content": [{"type": "text", "text": "a tile"}],
                                                           "structuredContent": {"file": {"name": "tile.png", "data": data}}}})
    elif name == "paused_big":
        image = png(7, 5)
        data = base64.b64encode(image + b"\x00" * 2_000_000).decode()
        line = json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": {"content": [
            {"type": "text", "text": "a picture, slowly"},
            {"type": "image", "mimeType": "image/png", "data": data}]}}, separators=(",", ":")).encode() + b"\n"
        half = len(line) // 2
        OUT.write(line[:half])
        OUT.flush()
        while not os.path.exists(arguments.get("release", "")):
            time.sleep(0.02)
        OUT.write(line[half:])
        OUT.flush()
    elif name == "big_garbage":
        block = b"not json at all " * 65536
        for _ in range(50):
            OUT.write(block)
        OUT.write(b"\n")
        OUT.flush()
        send({"jsonrpc": "2.0", "id": msg_id, "result": text_result("after 50 MB of garbage")})
    elif name == "flood":
        lines = []
        for i in range(10_000):
            lines.append(json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                                     "params": {"level": "info", "logger": "flood", "data": f"message {i}"}}))
            lines.append(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                                     "params": {"progressToken": "nobody-asked", "progress": i, "total": 10_000}}))
        OUT.write(("\n".join(lines) + "\n").encode())
        OUT.flush()
        send({"jsonrpc": "2.0", "id": msg_id, "result": text_result("after the flood")})
    elif name == "bad_result":
        send({"jsonrpc": "2.0", "id": msg_id, "result": {"content": "this should be an array", "isError": "no"}})
    elif name == "deep_result":
        # structuredContent 5,000 levels deep, the id after it (as the TypeScript SDK orders keys);
        # built by hand: Python's own encoder refuses that depth.
        deep = '{"a":' * 5000 + "1" + "}" * 5000
        OUT.write(('{"jsonrpc":"2.0","result":{"content":[],"structuredContent":' + deep + '},"id":' + json.dumps(msg_id) + "}\n").encode())
        OUT.flush()
    elif name == "cut_result":
        # A response cut off in the middle, then the line ends: not JSON.
        OUT.write(b'{"jsonrpc":"2.0","id":' + json.dumps(msg_id).encode() + b',"result":{"content":[{"type":"text","text":"cut\n')
        OUT.flush()
    elif name == "oversized_result":
        # 2 MB of text (over a 1 MiB `max_message_bytes`), the id last.
        text = "x" * 2_000_000
        OUT.write(('{"jsonrpc":"2.0","result":' + json.dumps(text_result(text)) + ',"id":' + json.dumps(msg_id) + "}\n").encode())
        OUT.flush()
    elif name == "deep_request":
        # A server->client request nobody can read (params 5,000 levels deep), then the answer.
        deep = '{"a":' * 5000 + "1" + "}" * 5000
        OUT.write(('{"jsonrpc":"2.0","id":"srv-1","method":"elicitation/create","params":' + deep + "}\n").encode())
        OUT.flush()
        send({"jsonrpc": "2.0", "id": msg_id, "result": text_result("asked something unreadable")})
    elif name == "embedded_blob":
        send({"jsonrpc": "2.0", "id": msg_id, "result": {"content": [
            {"type": "text", "text": "two embedded resources"},
            {"type": "resource", "resource": {"uri": "stub://files/tile.png", "mimeType": "image/png",
                                              "blob": base64.b64encode(png(3, 2)).decode()}},
            {"type": "resource", "resource": {"uri": "stub://files/notes.txt", "mimeType": "text/plain",
                                              "text": "embedded notes"}}]}})
    elif name == "refuse_arguments":
        # Arguments the schema allows but the server refuses: JSON-RPC "invalid params".
        send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32602, "message": "Invalid params: text must name a city"}})
    else:
        send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32602, "message": f"Unknown tool: {name}"}})


def read(msg_id, uri):
    if uri == "stub://page1/a.txt":
        contents = [{"uri": uri, "mimeType": "text/plain", "text": "alpha"}]
    elif uri == "stub://liar.png":
        html = b"<!DOCTYPE html><html><body><script>alert(1)</script>not a png</body></html>"
        contents = [{"uri": uri, "mimeType": "image/png", "blob": base64.b64encode(html).decode()}]
    elif uri == "stub://multi":
        contents = [{"uri": "stub://multi/readme.md", "mimeType": "text/markdown", "text": "# Multi\n\ntwo parts"},
                    {"uri": "stub://multi/pixel.png", "mimeType": "image/png", "blob": base64.b64encode(png(1, 1)).decode()}]
    elif uri == "stub://empty":
        contents = []
    else:
        send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32002, "message": f"Resource not found: {uri}"}})
        return
    send({"jsonrpc": "2.0", "id": msg_id, "result": {"contents": contents}})


def main():
    capabilities = {"tools": {}}
    if "--no-resources" not in ARGS:
        capabilities["resources"] = {}
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            log("got unparsable input")
            continue
        method = message.get("method")
        msg_id = message.get("id")
        log(f"got {method or ('response ' + json.dumps(msg_id))}")
        if method is None and isinstance(message.get("error"), dict):
            log(f"got error {message['error'].get('code')} for {json.dumps(msg_id)}: {message['error'].get('message')}")
        if method is None or msg_id is None:
            continue  # notifications and responses (e.g. rmcp's answer to a non-JSON-RPC line)
        params = message.get("params") or {}
        if method == "initialize":
            CLIENT_CAPABILITIES.update(params.get("capabilities") or {})
            send({"jsonrpc": "2.0", "id": msg_id, "result": {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": capabilities,
                "serverInfo": {"name": "stub", "version": "0.0.1"}}})
        elif method == "tools/list":
            if "--silent-tools-list" in ARGS:
                log("tools/list: not answering")
            elif "--tools-cursor-loop" in ARGS:
                send({"jsonrpc": "2.0", "id": msg_id, "result": {**tool_list(), "nextCursor": "again"}})
            else:
                send({"jsonrpc": "2.0", "id": msg_id, "result": tool_list()})
        elif method == "tools/call":
            call(msg_id, params.get("name"), params.get("arguments") or {})
        elif method == "resources/list":
            cursor = params.get("cursor")
            if "--cursor-loop" in ARGS:
                send({"jsonrpc": "2.0", "id": msg_id, "result": {"resources": RESOURCES[:1], "nextCursor": "again"}})
            elif cursor is None:
                send({"jsonrpc": "2.0", "id": msg_id, "result": {"resources": RESOURCES[:2], "nextCursor": "page-2"}})
            else:
                send({"jsonrpc": "2.0", "id": msg_id, "result": {"resources": RESOURCES[2:]}})
        elif method == "resources/templates/list":
            send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32601, "message": "Method not found"}})
        elif method == "resources/read":
            read(msg_id, params.get("uri"))
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": msg_id, "result": {}})
        else:
            send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32601, "message": f"Method not found: {method}"}})
    if "--linger" in ARGS:
        log("stdin closed; lingering")
        import time
        time.sleep(60)


if __name__ == "__main__":
    main()
