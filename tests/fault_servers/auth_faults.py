"""An MCP server behind an authorization server that misbehaves in one way (argv[1]):

- `garbage-token`: the token endpoint answers 200 with an HTML page;
- `as-nonce-rotates`: the token endpoint asks for a DPoP nonce (400 use_dpop_nonce) with a new
  nonce every time, whatever the proof carries;
- `rs-nonce-rotates`: tokens are issued, but the MCP endpoint asks for a DPoP nonce (401
  use_dpop_nonce) with a new nonce on every request;
- `short-lived`: no fault — Bearer tokens that last 2 s, and a minimal MCP server (2025-11-25,
  JSON answers) whose one tool, `whoami`, says which token the call came with; a token it did
  not issue is refused.

Client credentials only. `GET /counts` says how many token and MCP requests came. Prints its URL,
then serves until killed. Standard library only."""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[1]
COUNTS = {"token": 0, "mcp": 0, "dpop_proofs": 0}
ISSUED = set()
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def base(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def send(self, status, body, content_type="application/json", headers=()):
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def mcp(self, body, challenge):
        authorization = self.headers.get("Authorization") or ""
        token = authorization[len("Bearer "):] if authorization.startswith("Bearer ") else None
        if token not in ISSUED:
            self.send(401, {"error": "invalid_token"}, headers=[("WWW-Authenticate", challenge)])
            return
        message = json.loads(body or b"{}")
        method, id_ = message.get("method"), message.get("id")
        if id_ is None:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if method == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "short-lived", "version": "1"}}
        elif method == "tools/list":
            result = {"tools": [{"name": "whoami", "inputSchema": {"type": "object"}}]}
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": token}]}
        elif method == "ping":
            result = {}
        else:
            self.send(400, {"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": f"Method not found: {method}"}})
            return
        self.send(200, {"jsonrpc": "2.0", "id": id_, "result": result})

    def do_GET(self):
        base = self.base()
        if self.path.startswith("/.well-known/oauth-protected-resource"):
            self.send(200, {"resource": f"{base}/mcp", "authorization_servers": [base]})
        elif self.path.startswith("/.well-known/oauth-authorization-server"):
            self.send(200, {
                "issuer": base,
                "authorization_endpoint": f"{base}/authorize",
                "token_endpoint": f"{base}/token",
                "response_types_supported": ["code"],
                "grant_types_supported": ["client_credentials"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic"],
                "dpop_signing_alg_values_supported": ["ES256"],
            })
        elif self.path == "/counts":
            with LOCK:
                self.send(200, dict(COUNTS))
        else:
            self.send(405 if self.path == "/mcp" else 404, {"error": "not here"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        base = self.base()
        with LOCK:
            if self.headers.get("DPoP"):
                COUNTS["dpop_proofs"] += 1
        if self.path == "/token":
            with LOCK:
                COUNTS["token"] += 1
                n = COUNTS["token"]
            if MODE == "short-lived":
                ISSUED.add(f"token-{n}")
                self.send(200, {"access_token": f"token-{n}", "token_type": "Bearer", "expires_in": 2})
            elif MODE == "garbage-token":
                self.send(200, "<html><body>Welcome to the portal</body></html>", "text/html")
            elif MODE == "as-nonce-rotates":
                self.send(400, {"error": "use_dpop_nonce", "error_description": "a nonce is required"}, headers=[("DPoP-Nonce", f"as-nonce-{n}")])
            else:
                self.send(200, {"access_token": f"token-{n}", "token_type": "DPoP", "expires_in": 3600})
        elif self.path == "/mcp":
            with LOCK:
                COUNTS["mcp"] += 1
                n = COUNTS["mcp"]
            challenge = f'DPoP resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"'
            if MODE == "short-lived":
                self.mcp(body, f'Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"')
                return
            if self.headers.get("Authorization") and MODE == "rs-nonce-rotates":
                self.send(401, {"error": "use_dpop_nonce"}, headers=[("WWW-Authenticate", f'DPoP error="use_dpop_nonce", {challenge[5:]}'), ("DPoP-Nonce", f"rs-nonce-{n}")])
            else:
                self.send(401, {"error": "unauthorized"}, headers=[("WWW-Authenticate", challenge)])
        else:
            self.send(404, {"error": "not here"})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"http://127.0.0.1:{server.server_address[1]}/mcp", flush=True)
server.serve_forever()
