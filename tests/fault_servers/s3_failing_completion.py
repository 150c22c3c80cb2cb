"""An S3 endpoint in front of the S3 server at argv[1] that answers the first
CompleteMultipartUpload (a POST with `uploadId` in its query) with 503 SlowDown without
forwarding it, as a busy S3 does; everything else is forwarded unchanged.
Prints its URL, then serves until killed."""
import http.client
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

UPSTREAM = urlsplit(sys.argv[1])
DROPPED = {"host", "content-length", "connection"}
FAILED = threading.Event()
SLOW_DOWN = b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>'


class Forward(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        if self.command == "POST" and "uploadId=" in self.path and not FAILED.is_set():
            FAILED.set()
            self.send_response(503)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(SLOW_DOWN)))
            self.end_headers()
            self.wfile.write(SLOW_DOWN)
            return
        headers = {k: v for k, v in self.headers.items() if k.lower() not in DROPPED}
        headers["Host"] = f"{UPSTREAM.hostname}:{UPSTREAM.port}"
        upstream = http.client.HTTPConnection(UPSTREAM.hostname, UPSTREAM.port, timeout=60)
        upstream.request(self.command, self.path, body=body, headers=headers)
        response = upstream.getresponse()
        data = response.read()
        self.send_response(response.status)
        for k, v in response.getheaders():
            if k.lower() not in ("transfer-encoding", "content-length", "connection"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = forward

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Forward)
print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()
