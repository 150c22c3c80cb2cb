"""An S3 endpoint that ignores conditional writes: forwards every request to the S3 server at
argv[1] without its If-None-Match / If-Match headers (as some S3-compatible servers behave).
Prints its URL, then serves until killed."""
import http.client
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

UPSTREAM = urlsplit(sys.argv[1])
DROPPED = {"if-none-match", "if-match", "host", "content-length", "connection"}


class Forward(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in DROPPED}
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
