"""An S3 endpoint in front of the S3 server at argv[2] that misbehaves as argv[1] says:

  ignore-conditions      forwards every request without its If-None-Match / If-Match headers
                         (as some S3-compatible servers behave);
  fail-first-completion  answers the first CompleteMultipartUpload (a POST with `uploadId` in
                         its query) with 503 SlowDown without forwarding it, as a busy S3 does.

Everything else is forwarded unchanged. Prints its URL, then serves until killed."""
import http.client
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

MODE = sys.argv[1]
if MODE not in ("ignore-conditions", "fail-first-completion"):
    sys.exit(f"unknown mode {MODE!r}: ignore-conditions or fail-first-completion")
UPSTREAM = urlsplit(sys.argv[2])
DROPPED = {"host", "content-length", "connection"} | ({"if-none-match", "if-match"} if MODE == "ignore-conditions" else set())
FAILED = threading.Event()
SLOW_DOWN = b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>'


class Forward(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self, status, headers, data):
        self.send_response(status)
        for k, v in headers:
            if k.lower() not in ("transfer-encoding", "content-length", "connection"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        completion = self.command == "POST" and "uploadId=" in self.path
        if MODE == "fail-first-completion" and completion and not FAILED.is_set():
            FAILED.set()
            return self.answer(503, [("Content-Type", "application/xml")], SLOW_DOWN)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in DROPPED}
        upstream = http.client.HTTPConnection(UPSTREAM.hostname, UPSTREAM.port, timeout=60)
        upstream.request(self.command, self.path, body=body, headers=headers)
        response = upstream.getresponse()
        self.answer(response.status, response.getheaders(), response.read())

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = forward

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Forward)
print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()
