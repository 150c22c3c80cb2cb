#!/usr/bin/env python3
"""A reference MCP stdio server (stdlib only) that takes files into tools, for end-to-end tests of
MCP Canvas sending files: inline as `data:` URIs (SEP-2356 `x-mcp-file`) and out of band through
`files/authorizeUpload` and an HTTP upload (SEP-2631, PR head `8799c5c1`, content `c3cf0eba`,
2026-06-09). Newline-delimited JSON-RPC on stdin/stdout; every message received is logged to
stderr as `got <method or id>`, and so is the upload endpoint's port and each upload.

Tools (each takes one argument, `file`, and answers "sha256 <hex>, <n> bytes, via <inline|upload>"
with structuredContent {"sha256", "size", "via"}):
  checksum     transferModes inline and upload, maxSize 2 GiB
  upload_only  transferModes upload, maxSize 100 MiB, accept text/csv and .csv (not enforced)
  inline_only  transferModes inline, maxSize 1 MiB

`files/authorizeUpload` answers a file URI `mcp-file://file-transfer/<id>` and a PUT to
`http://127.0.0.1:<port>/upload/<id>?token=...` (a ThreadingHTTPServer on an ephemeral port).
The upload: 403 for a wrong token, 404 for an unknown id, 410 once expiresAt has passed, 411
without Content-Length (or chunked), 413 over the authorized size (2 GiB when none), 422 for a
digest mismatch or a body shorter than the authorized size (the upload is discarded and may be
retried), 409 once the id has a file (or while another upload of it runs), else 201. A file URI is
usable once its upload has succeeded; before that it is "not fully uploaded" ("expired" once the
upload window has passed).

File outputs (SEP-2631 file values): `make_file {"text", "name"}` answers structuredContent
{"report": FileValue} ({uri, name, mimeType, size, digest}) for a file it made;
`files/authorizeDownload {uri}` answers {file, download: {transport: "https", method: "GET", url:
http://127.0.0.1:<port>/download/<id>?token=..., expiresAt}} (403 for a wrong token). With
`--bad-digest` the FileValue and the authorization carry a digest of other bytes (a download to
refuse). Anything else: -32601.

Options:
  --multipart          the descriptor is a multipart/form-data POST, the token a form field
  --upload-url PREFIX  advertise PREFIX instead of http://127.0.0.1:<port> (a URL to refuse)
  --upload-ttl SECONDS how long an upload URL is valid (default 600), to test expiry
  --bad-digest         the files make_file offers announce a wrong digest
"""

import argparse
import atexit
import base64
import datetime
import hashlib
import hmac
import http.server
import json
import os
import secrets
import shutil
import signal
import sys
import tempfile
import threading
import time
import urllib.parse
from email.message import Message

MAX_SIZE = 2 * 1024 ** 3
URI_PREFIX = "mcp-file://file-transfer/"
CHUNK = 1024 * 1024
OUT = sys.stdout.buffer
LOCK = threading.Lock()
UPLOADS = {}  # id -> dict(token, name, mimeType, size, digest (bytes or None), expires, state, path, sha256, actual)
CLIENT_CAPABILITIES = {}
DIR = tempfile.mkdtemp(prefix="mcp-file-transfer-")
atexit.register(shutil.rmtree, DIR, True)


def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def send(message):
    OUT.write(json.dumps({"jsonrpc": "2.0", **message}, separators=(",", ":")).encode() + b"\n")
    OUT.flush()


def file_tool(name, description, spec):
    prop = {"type": "string", "format": "uri", "description": "Any file.", "x-mcp-file": spec}
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": {"file": prop}, "required": ["file"]}}


TOOLS = [
    file_tool("checksum", "SHA-256 and size of a file, sent inline or uploaded",
              {"maxSize": MAX_SIZE, "transferModes": ["inline", "upload"]}),
    file_tool("upload_only", "SHA-256 and size of a CSV file, which must be uploaded",
              {"accept": ["text/csv", ".csv"], "maxSize": 104857600, "transferModes": ["upload"]}),
    file_tool("inline_only", "SHA-256 and size of a small file, which must be sent inline",
              {"maxSize": 1048576, "transferModes": ["inline"]}),
    {"name": "make_file", "description": "Makes a text file and answers it as a SEP-2631 file value (download it with files/authorizeDownload)",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}, "name": {"type": "string"}}, "required": ["text"]}},
]
DOWNLOADS = {}  # id -> dict(path, name, mimeType, size, digest (FileDigest), token)


def make_file(args):
    """A file this server made, offered as a file value (not inline)."""
    data, name = str(args.get("text", "")).encode(), str(args.get("name") or "made.txt")
    id_ = secrets.token_hex(8)
    path = os.path.join(DIR, "download-" + id_)
    with open(path, "wb") as out:
        out.write(data)
    digest_bytes = hashlib.sha256(b"other bytes" if ARGS.bad_digest else data).digest()
    digest = {"algorithm": "sha-256", "value": base64.urlsafe_b64encode(digest_bytes).rstrip(b"=").decode()}
    value = {"uri": URI_PREFIX + "out/" + id_, "name": name, "mimeType": "text/plain", "size": len(data), "digest": digest}
    with LOCK:
        DOWNLOADS[id_] = {"path": path, "file": value, "token": secrets.token_urlsafe(24)}
    return {"content": [{"type": "text", "text": f"made {name} ({len(data)} bytes), offered as {value['uri']}"}],
            "structuredContent": {"report": value}}


def authorize_download(params):
    uri = params.get("uri")
    if not isinstance(uri, str) or not uri.startswith(URI_PREFIX + "out/"):
        raise RpcError(-32602, f"not a file URI this server offers: {uri!r}")
    with LOCK:
        entry = DOWNLOADS.get(uri[len(URI_PREFIX + "out/"):])
    if entry is None:
        raise RpcError(-32602, f"unknown file URI {uri}")
    expires_at = datetime.datetime.fromtimestamp(time.time() + 600, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    base = (ARGS.upload_url or f"http://127.0.0.1:{PORT}").rstrip("/")
    url = f"{base}/download/{uri[len(URI_PREFIX + 'out/'):]}?token={entry['token']}"
    return {"file": entry["file"], "download": {"transport": "https", "method": "GET", "url": url, "expiresAt": expires_at}}


class RpcError(Exception):
    def __init__(self, code, message, data=None):
        super().__init__(message)
        self.code, self.data = code, data


def decode_data_uri(uri):
    """RFC 2397: data:[<mediatype>][;param=value...][;base64],<data>; raises ValueError."""
    header, comma, payload = uri[5:].partition(",")
    if not comma:
        raise ValueError("no ',' before the data")
    if header.split(";")[-1].strip().lower() == "base64":
        raw = urllib.parse.unquote_to_bytes(payload) if "%" in payload else payload.encode("ascii")
        raw = b"".join(raw.split())
        return base64.b64decode(raw + b"=" * (-len(raw) % 4), validate=True)
    return urllib.parse.unquote_to_bytes(payload)


def tool_error(text):
    return {"content": [{"type": "text", "text": text}], "isError": True}


def call_tool(params):
    name, args = params.get("name"), params.get("arguments") or {}
    tool = next((t for t in TOOLS if t["name"] == name), None)
    if tool is None:
        raise RpcError(-32602, f"unknown tool: {name}")
    spec = tool["inputSchema"]["properties"]["file"]["x-mcp-file"]
    modes, max_size, value = spec["transferModes"], spec["maxSize"], args.get("file")
    if not isinstance(value, str):
        return tool_error("file: expected a string (a data: URI or a file URI)")
    if value[:5].lower() == "data:":
        if "inline" not in modes:
            return tool_error(f"{name} takes no inline file (transferModes {modes}): upload it and send its file URI")
        try:
            data = decode_data_uri(value)
        except ValueError as e:
            return tool_error(f"file: not a valid data: URI ({e})")
        digest, size, via = hashlib.sha256(data).hexdigest(), len(data), "inline"
    elif value.startswith(URI_PREFIX):
        if "upload" not in modes:
            return tool_error(f"{name} takes no uploaded file (transferModes {modes}): send {value} inline as a data: URI")
        with LOCK:
            entry = UPLOADS.get(value[len(URI_PREFIX):])
            state = entry and ("expired" if entry["state"] != "done" and time.time() > entry["expires"] else entry["state"])
        if entry is None:
            return tool_error(f"file: unknown file URI {value} (this server did not issue it)")
        if state == "expired":
            return tool_error(f"file: {value} has expired (never uploaded before its expiresAt)")
        if state != "done":
            return tool_error(f"file: {value} is not fully uploaded")
        digest, size, via = entry["sha256"], entry["actual"], "upload"
    else:
        return tool_error(f"file: {value[:80]!r} must be a data: URI or a file URI this server issued ({URI_PREFIX}<id>)")
    if size > max_size:
        return tool_error(f"file: {size} bytes is over {name}'s maxSize of {max_size} bytes")
    return {"content": [{"type": "text", "text": f"sha256 {digest}, {size} bytes, via {via}"}],
            "structuredContent": {"sha256": digest, "size": size, "via": via}}


def authorize_upload(params):
    size, digest = params.get("size"), params.get("digest")
    name, mime = params.get("name"), params.get("mimeType")
    if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 0):
        raise RpcError(-32602, "size must be a non-negative integer")
    if size is not None and size > MAX_SIZE:
        raise RpcError(-32602, f"file too large: {size} bytes, over {MAX_SIZE}",
                       {"reason": "maxSizeExceeded", "maxSize": MAX_SIZE, "actualSize": size})
    expected = None
    if digest is not None:
        if not isinstance(digest, dict) or digest.get("algorithm") != "sha-256" or not isinstance(digest.get("value"), str):
            raise RpcError(-32602, "digest must be {algorithm: \"sha-256\", value: <base64url>}")
        try:
            expected = base64.urlsafe_b64decode(digest["value"] + "=" * (-len(digest["value"]) % 4))
        except ValueError:
            expected = b""
        if len(expected) != 32:
            raise RpcError(-32602, "digest value is not base64url of 32 bytes")
    id_, token = secrets.token_hex(8), secrets.token_urlsafe(24)
    expires = time.time() + ARGS.upload_ttl
    with LOCK:
        UPLOADS[id_] = {"token": token, "size": size, "digest": expected, "expires": expires, "state": "pending"}
    file = {k: v for k, v in (("uri", URI_PREFIX + id_), ("name", name), ("mimeType", mime), ("size", size), ("digest", digest)) if v is not None}
    expires_at = datetime.datetime.fromtimestamp(expires, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    base = (ARGS.upload_url or f"http://127.0.0.1:{PORT}").rstrip("/") + "/upload/" + id_
    if ARGS.multipart:
        upload = {"transport": "https", "method": "POST", "url": base, "headers": {"Content-Type": "multipart/form-data"},
                  "multipart": {"fileField": "file", "fields": {"token": token}}, "expiresAt": expires_at}
    else:
        upload = {"transport": "https", "method": "PUT", "url": f"{base}?token={token}",
                  "headers": {"Content-Type": mime or "application/octet-stream"}, "expiresAt": expires_at}
    return {"file": file, "upload": upload}


def parse_multipart(body, content_type):
    """{field name: bytes} of a multipart/form-data body. A simple in-memory parse (the whole body
    is read first, unlike a PUT, which streams to disk): acceptable for the sizes tests upload."""
    header = Message()
    header["content-type"] = content_type
    boundary = header.get_param("boundary")
    if not boundary:
        raise ValueError("no boundary")
    fields = {}
    for part in (b"\r\n" + body).split(b"\r\n--" + boundary.encode("latin-1"))[1:]:
        if part.startswith(b"--"):
            return fields
        head, blank, content = part.partition(b"\r\n\r\n")
        if not blank:
            raise ValueError("a part without headers")
        headers = Message()
        for line in head.decode("latin-1").split("\r\n")[1:]:
            key, _, val = line.partition(":")
            headers[key.strip()] = val.strip()
        fields[headers.get_param("name", header="content-disposition")] = content
    raise ValueError("no closing boundary")


class Upload(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # for Expect: 100-continue

    def log_message(self, format, *args):
        log("http: " + format % args)

    def answer(self, status, body, close=False):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if close:  # the body was not read
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(data)
        if close:
            self.discard_body()

    def discard_body(self):
        """Reads (up to 256 MiB of) the unread body, so a client that sends it all before reading
        the answer sees the answer rather than a connection reset."""
        try:
            left = min(int(self.headers.get("Content-Length") or 0), 256 << 20)
            self.wfile.flush()
            self.connection.settimeout(2)
            while left > 0 and (chunk := self.rfile.read(min(CHUNK, left))):
                left -= len(chunk)
        except (OSError, ValueError):
            pass

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        id_ = url.path[len("/download/"):] if url.path.startswith("/download/") else ""
        with LOCK:
            entry = DOWNLOADS.get(id_)
        if entry is None:
            return self.answer(404, {"error": f"unknown download {url.path}"})
        token = urllib.parse.parse_qs(url.query).get("token", [""])[0]
        if not hmac.compare_digest(token.encode(), entry["token"].encode()):
            return self.answer(403, {"error": "wrong token"})
        data = open(entry["path"], "rb").read()
        self.send_response(200)
        self.send_header("Content-Type", entry["file"]["mimeType"])
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        log(f"downloaded {id_}: {len(data)} bytes")

    def do_PUT(self):
        self.receive(multipart=False)

    def do_POST(self):
        self.receive(multipart=True)

    def receive(self, multipart):
        started = time.monotonic()
        url = urllib.parse.urlsplit(self.path)
        id_ = url.path[len("/upload/"):] if url.path.startswith("/upload/") else ""
        with LOCK:
            entry = UPLOADS.get(id_)
        if entry is None:
            return self.answer(404, {"error": f"unknown upload {url.path}"}, close=True)
        token = urllib.parse.parse_qs(url.query).get("token", [""])[0]
        if not multipart and not hmac.compare_digest(token.encode(), entry["token"].encode()):
            return self.answer(403, {"error": "wrong token"}, close=True)
        length = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding") or length is None or not length.isdigit():
            return self.answer(411, {"error": "Content-Length required"}, close=True)
        limit, length = entry["size"] if entry["size"] is not None else MAX_SIZE, int(length)
        if length > limit + (65536 if multipart else 0):
            return self.answer(413, {"error": f"{length} bytes is over the authorized {limit}"}, close=True)
        if multipart:
            body = self.rfile.read(length)
            if len(body) < length:
                return self.answer(400, {"error": "body cut short"}, close=True)
            try:
                fields = parse_multipart(body, self.headers.get("Content-Type", ""))
            except ValueError as e:
                return self.answer(400, {"error": f"bad multipart/form-data: {e}"})
            if not hmac.compare_digest(fields.get("token", b""), entry["token"].encode()):
                return self.answer(403, {"error": "wrong token"})
            if "file" not in fields:
                return self.answer(400, {"error": "no 'file' field"})
            if len(fields["file"]) > limit:
                return self.answer(413, {"error": f"{len(fields['file'])} bytes is over the authorized {limit}"})
        with LOCK:
            if entry["state"] != "pending":
                return self.answer(409, {"error": f"upload {id_} already {entry['state']}"}, close=not multipart)
            if time.time() > entry["expires"]:
                return self.answer(410, {"error": f"upload {id_} expired"}, close=not multipart)
            entry["state"] = "uploading"
        path, hasher, written = os.path.join(DIR, id_), hashlib.sha256(), 0
        try:
            with open(path + ".part", "wb") as out:
                chunks = [fields["file"]] if multipart else iter(lambda: self.rfile.read(min(CHUNK, length - written)), b"")
                for chunk in chunks:
                    out.write(chunk)
                    hasher.update(chunk)
                    written += len(chunk)
            if not multipart and written < length:
                return self.fail(entry, path, 400, {"error": "body cut short"}, close=True)
            if entry["size"] is not None and written != entry["size"]:
                return self.fail(entry, path, 422, {"error": f"size mismatch: {written} bytes, authorized {entry['size']}"})
            if entry["digest"] is not None and hasher.digest() != entry["digest"]:
                return self.fail(entry, path, 422, {"error": "digest mismatch", "expected": entry["digest"].hex(), "actual": hasher.hexdigest()})
            os.replace(path + ".part", path)
        except BaseException:
            self.fail(entry, path, None, None)
            raise
        with LOCK:
            entry.update(state="done", path=path, sha256=hasher.hexdigest(), actual=written)
        log(f"uploaded {URI_PREFIX}{id_}: {written} bytes, sha256 {hasher.hexdigest()}, in {time.monotonic() - started:.3f} s")
        self.answer(201, {"uri": URI_PREFIX + id_, "size": written, "sha256": hasher.hexdigest()})

    def fail(self, entry, path, status, body, close=False):
        """Discards a failed upload; the id can be uploaded again."""
        if os.path.exists(path + ".part"):
            os.remove(path + ".part")
        with LOCK:
            entry["state"] = "pending"
        if status:
            log(f"upload refused: {status} {body['error']}")
            self.answer(status, body, close)


def main():
    global ARGS, PORT
    parser = argparse.ArgumentParser(description="MCP file-transfer reference server (stdio)")
    parser.add_argument("--multipart", action="store_true")
    parser.add_argument("--upload-url")
    parser.add_argument("--upload-ttl", type=float, default=600)
    parser.add_argument("--bad-digest", action="store_true")
    ARGS = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # so atexit removes the upload directory
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Upload)
    PORT = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    log(f"upload endpoint on http://127.0.0.1:{PORT}, files in {DIR}")
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            log("not JSON: " + line[:200].decode("utf-8", "replace"))
            continue
        if not isinstance(message, dict):
            continue
        method, id_, params = message.get("method"), message.get("id"), message.get("params") or {}
        log(f"got {method or id_}")
        if id_ is None:
            continue  # notifications (and stray responses) need no answer
        try:
            if method == "initialize":
                CLIENT_CAPABILITIES.update(params.get("capabilities") or {})
                caps = CLIENT_CAPABILITIES.get("experimental") or {}
                log(f"client declares files={'files' in caps or 'files' in CLIENT_CAPABILITIES} fileInputs={'fileInputs' in caps}")
                result = {"protocolVersion": params.get("protocolVersion", "2025-11-25"), "capabilities": {"tools": {}},
                          "serverInfo": {"name": "file-transfer", "version": "0.0.1"}}
            elif method == "ping":
                result = {}
            elif method == "tools/list":
                result = {"tools": TOOLS}
            elif method == "tools/call" and params.get("name") == "make_file":
                result = make_file(params.get("arguments") or {})
            elif method == "tools/call":
                result = call_tool(params)
            elif method == "files/authorizeDownload":
                result = authorize_download(params)
            elif method == "files/authorizeUpload":
                result = authorize_upload(params)
            else:
                raise RpcError(-32601, f"method not supported: {method}")
            send({"id": id_, "result": result})
        except RpcError as e:
            send({"id": id_, "error": {"code": e.code, "message": str(e), **({"data": e.data} if e.data else {})}})
        except Exception as e:  # a malformed request must not take the server down
            log(f"error handling {method}: {e!r}")
            send({"id": id_, "error": {"code": -32603, "message": f"internal error: {e!r}"}})
    server.shutdown()


if __name__ == "__main__":
    main()
