#!/usr/bin/env python3
"""A standalone self-test of file_transfer_server.py (stdlib only; not part of the cargo tests).

    python3 tests/fault_servers/file_transfer_selftest.py [--big]

Speaks JSON-RPC to the server over stdio and uploads with urllib / raw sockets. `--big` adds a
~200 MB streamed upload (over upload_only's 100 MiB maxSize).
"""

import base64
import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "file_transfer_server.py")
PASSED = []


def check(name, condition, detail=""):
    if not condition:
        raise AssertionError(f"{name}: {detail}")
    PASSED.append(name)
    print(f"ok  {name}")


class Server:
    def __init__(self, *flags):
        self.proc = subprocess.Popen([sys.executable, SERVER, *flags], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.stderr, self.next_id = [], 0
        threading.Thread(target=lambda: self.stderr.extend(l.decode() for l in self.proc.stderr), daemon=True).start()

    def request(self, method, params=None):
        self.next_id += 1
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}}).encode() + b"\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        assert answer["id"] == self.next_id, answer
        return answer

    def notify(self, method):
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}).encode() + b"\n")
        self.proc.stdin.flush()

    def call(self, tool, file):
        return self.request("tools/call", {"name": tool, "arguments": {"file": file}})["result"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(10)
        return self.proc.returncode


def http(method, url, body=b"", headers=None):
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def raw_put(url, head_lines, body):
    """A PUT through a socket, for the requests urllib will not make (chunked, no length)."""
    parts = urllib.parse.urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as s:
        s.sendall(f"PUT {parts.path}?{parts.query} HTTP/1.1\r\nHost: x\r\n{head_lines}\r\n".encode() + body)
        return int(s.recv(4096).split(b" ")[1])


def b64url(digest):
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def main():
    data = os.urandom(300_000) + b"a,b\n1,2\n"
    sha = hashlib.sha256(data).hexdigest()
    s = Server()
    init = s.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {"experimental": {"files": {}, "fileInputs": {}}}, "clientInfo": {"name": "t", "version": "1"}})["result"]
    check("initialize echoes the protocol version", init["protocolVersion"] == "2025-06-18" and init["serverInfo"] == {"name": "file-transfer", "version": "0.0.1"} and init["capabilities"] == {"tools": {}}, init)
    s.notify("notifications/initialized")
    check("ping", s.request("ping")["result"] == {})
    tools = {t["name"]: t for t in s.request("tools/list")["result"]["tools"]}
    spec = {n: t["inputSchema"]["properties"]["file"]["x-mcp-file"] for n, t in tools.items() if "file" in t["inputSchema"]["properties"]}
    check("tools/list", list(tools) == ["checksum", "upload_only", "inline_only", "make_file"] and spec["upload_only"]["transferModes"] == ["upload"]
          and spec["inline_only"] == {"maxSize": 1048576, "transferModes": ["inline"]} and spec["checksum"]["maxSize"] == 2 ** 31, spec)

    # Inline.
    uri = "data:application/octet-stream;base64," + base64.b64encode(data).decode()
    r = s.call("checksum", uri)
    check("checksum of a base64 data: URI", r["structuredContent"] == {"sha256": sha, "size": len(data), "via": "inline"}
          and r["content"][0]["text"] == f"sha256 {sha}, {len(data)} bytes, via inline", r)
    r = s.call("inline_only", "data:text/csv;charset=utf-8,a%2Cb%0A1%2C2%0A")
    check("inline_only of a percent-encoded data: URI", r["structuredContent"]["sha256"] == hashlib.sha256(b"a,b\n1,2\n").hexdigest(), r)
    r = s.call("checksum", "data:,hello")
    check("data: URI without a media type", r["structuredContent"]["size"] == 5, r)
    r = s.call("upload_only", uri)
    check("upload_only refuses inline", r.get("isError") and "inline" in r["content"][0]["text"], r)
    r = s.call("inline_only", "data:;base64," + base64.b64encode(b"x" * (1048576 + 1)).decode())
    check("inline_only over maxSize", r.get("isError") and "1048576" in r["content"][0]["text"], r)
    r = s.call("checksum", "data:;base64,@@@")
    check("bad base64", r.get("isError"), r)
    r = s.call("checksum", "https://example.com/a.csv")
    check("other scheme refused", r.get("isError") and "must be a data: URI or a file URI this server issued" in r["content"][0]["text"], r)

    # Upload (PUT).
    auth = s.request("files/authorizeUpload", {"name": "t.csv", "mimeType": "text/csv", "size": len(data), "digest": {"algorithm": "sha-256", "value": b64url(hashlib.sha256(data).digest())}})["result"]
    up, file_uri = auth["upload"], auth["file"]["uri"]
    check("authorizeUpload", file_uri.startswith("mcp-file://file-transfer/") and up["method"] == "PUT" and up["transport"] == "https"
          and re.fullmatch(r"http://127\.0\.0\.1:\d+/upload/[0-9a-f]+\?token=\S+", up["url"]) and up["headers"] == {"Content-Type": "text/csv"}
          and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", up["expiresAt"]) and auth["file"]["size"] == len(data) and auth["file"]["name"] == "t.csv", auth)
    r = s.call("checksum", file_uri)
    check("file URI before upload: not fully uploaded", r.get("isError") and "not fully uploaded" in r["content"][0]["text"] and file_uri in r["content"][0]["text"], r)
    check("wrong token -> 403", http("PUT", up["url"].split("?")[0] + "?token=nope", data)[0] == 403)
    check("no Content-Length -> 411", raw_put(up["url"], "Transfer-Encoding: chunked\r\n", b"5\r\nhello\r\n0\r\n\r\n") == 411)
    check("over the authorized size -> 413", http("PUT", up["url"], data + b"x", up["headers"])[0] == 413)
    check("short body -> 422", http("PUT", up["url"], data[:-1], up["headers"])[0] == 422)
    status, body = http("PUT", up["url"], data, up["headers"])
    check("PUT -> 201", status == 201 and body["sha256"] == sha, (status, body))
    status, body = http("PUT", up["url"], data, up["headers"])
    check("second upload -> 409", status == 409, (status, body))
    for tool in ("checksum", "upload_only"):
        r = s.call(tool, file_uri)
        check(f"{tool} of the uploaded file", r["structuredContent"] == {"sha256": sha, "size": len(data), "via": "upload"}, r)
    r = s.call("inline_only", file_uri)
    check("inline_only refuses the file URI", r.get("isError") and "inline" in r["content"][0]["text"], r)
    r = s.call("checksum", "mcp-file://file-transfer/0123456789abcdef")
    check("unknown file URI", r.get("isError") and "unknown file URI mcp-file://file-transfer/0123456789abcdef" in r["content"][0]["text"], r)

    bad = s.request("files/authorizeUpload", {"size": len(data), "digest": {"algorithm": "sha-256", "value": b64url(b"\0" * 32)}})["result"]
    status, body = http("PUT", bad["upload"]["url"], data, bad["upload"]["headers"])
    check("wrong digest -> 422", status == 422 and body["error"] == "digest mismatch", (status, body))
    check("the mismatched upload is discarded", s.call("checksum", bad["file"]["uri"]).get("isError"))
    nosize = s.request("files/authorizeUpload", {})["result"]
    check("authorizeUpload without metadata", nosize["upload"]["headers"] == {"Content-Type": "application/octet-stream"} and set(nosize["file"]) == {"uri"}, nosize)
    check("upload without a declared size", http("PUT", nosize["upload"]["url"], b"")[0] == 201 and s.call("checksum", nosize["file"]["uri"])["structuredContent"]["size"] == 0)

    e = s.request("files/authorizeUpload", {"name": "huge.bin", "size": 2 ** 31 + 1})["error"]
    check("oversize authorize -> -32602", e["code"] == -32602 and e["data"] == {"reason": "maxSizeExceeded", "maxSize": 2 ** 31, "actualSize": 2 ** 31 + 1}, e)
    e = s.request("files/authorizeUpload", {"digest": {"algorithm": "md5", "value": "x"}})["error"]
    check("bad digest algorithm -> -32602", e["code"] == -32602, e)
    check("authorizeDownload of an uploaded (not offered) file -> -32602", s.request("files/authorizeDownload", {"uri": file_uri})["error"]["code"] == -32602)
    check("unknown method -> -32601", s.request("resources/list")["error"]["code"] == -32601)
    check("malformed params -> -32603, server alive", s.request("tools/call", [1])["error"]["code"] == -32603 and s.request("ping")["result"] == {})

    if "--big" in sys.argv:
        with tempfile.NamedTemporaryFile() as big:
            chunk, hasher = os.urandom(1 << 20), hashlib.sha256()
            for _ in range(200):
                big.write(chunk)
                hasher.update(chunk)
            big.flush()
            size = 200 << 20
            auth = s.request("files/authorizeUpload", {"name": "big.csv", "size": size, "digest": {"algorithm": "sha-256", "value": b64url(hasher.digest())}})["result"]
            started = time.time()
            with open(big.name, "rb") as f:
                status, body = http("PUT", auth["upload"]["url"], f, {"Content-Length": str(size), "Content-Type": "text/csv"})
            check(f"200 MiB PUT -> 201 in {time.time() - started:.1f}s", status == 201, (status, body))
            r = s.call("checksum", auth["file"]["uri"])
            check("checksum of 200 MiB", r["structuredContent"] == {"sha256": hasher.hexdigest(), "size": size, "via": "upload"}, r)
            r = s.call("upload_only", auth["file"]["uri"])
            check("upload_only over its 100 MiB maxSize", r.get("isError") and "104857600" in r["content"][0]["text"], r)

    directory = next(l for l in s.stderr if "files in" in l).split("files in ")[1].strip()
    check("log names the port and the upload", any("upload endpoint on http://127.0.0.1:" in l for l in s.stderr) and any(l.startswith("uploaded ") for l in s.stderr))
    check("exit on EOF removes the upload directory", s.close() == 0 and os.path.isdir(os.path.dirname(directory)) and not os.path.exists(directory), directory)

    # Expiry.
    s = Server("--upload-ttl", "1")
    auth = s.request("files/authorizeUpload", {"size": 3})["result"]
    time.sleep(1.5)
    check("expired upload URL -> 410", http("PUT", auth["upload"]["url"], b"abc")[0] == 410)
    r = s.call("checksum", auth["file"]["uri"])
    check("expired file URI refused", r.get("isError") and "expired" in r["content"][0]["text"], r)
    s.close()

    # Multipart.
    s = Server("--multipart")
    auth = s.request("files/authorizeUpload", {"name": "m.csv", "mimeType": "text/csv", "size": len(data), "digest": {"algorithm": "sha-256", "value": b64url(hashlib.sha256(data).digest())}})["result"]
    up = auth["upload"]
    check("multipart descriptor", up["method"] == "POST" and "?" not in up["url"] and up["headers"] == {"Content-Type": "multipart/form-data"}
          and up["multipart"]["fileField"] == "file" and set(up["multipart"]["fields"]) == {"token"}, up)

    def form(token, payload, boundary="----selftest7MA4YWxkTrZu0gW"):
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\n{token}\r\n"
                f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"m.csv\"\r\nContent-Type: text/csv\r\n\r\n").encode()
        return body + payload + f"\r\n--{boundary}--\r\n".encode(), {"Content-Type": f"multipart/form-data; boundary=\"{boundary}\""}

    check("multipart wrong token -> 403", http("POST", up["url"], *form("nope", data))[0] == 403)
    tricky = data + b"\r\n--not-the-boundary\r\n\r\n"  # bytes that look like multipart syntax
    auth2 = s.request("files/authorizeUpload", {"size": len(tricky)})["result"]
    status, body = http("POST", auth2["upload"]["url"], *form(auth2["upload"]["multipart"]["fields"]["token"], tricky))
    check("multipart keeps CRLF-laden bytes exact", status == 201 and body["sha256"] == hashlib.sha256(tricky).hexdigest(), (status, body))
    status, body = http("POST", up["url"], *form(up["multipart"]["fields"]["token"], data))
    check("multipart POST -> 201", status == 201 and body["sha256"] == sha, (status, body))
    check("multipart second upload -> 409", http("POST", up["url"], *form(up["multipart"]["fields"]["token"], data))[0] == 409)
    r = s.call("upload_only", auth["file"]["uri"])
    check("checksum of the multipart upload", r["structuredContent"] == {"sha256": sha, "size": len(data), "via": "upload"}, r)
    s.close()

    # Advertised URL prefix; SIGTERM cleans up too.
    s = Server("--upload-url", "http://10.0.0.1:9/")
    url = s.request("files/authorizeUpload", {"size": 1})["result"]["upload"]["url"]
    check("--upload-url prefix", re.fullmatch(r"http://10\.0\.0\.1:9/upload/[0-9a-f]+\?token=\S+", url), url)
    time.sleep(0.2)
    directory = next(l for l in s.stderr if "files in" in l).split("files in ")[1].strip()
    s.proc.send_signal(signal.SIGTERM)
    s.proc.wait(10)
    check("SIGTERM removes the upload directory", not os.path.exists(directory), directory)

    print(f"all {len(PASSED)} checks passed")


if __name__ == "__main__":
    main()
