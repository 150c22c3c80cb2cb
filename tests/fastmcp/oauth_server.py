"""A FastMCP server (PyPI `fastmcp`, the version pinned in scripts/setup.sh) behind OAuth 2.1:
FastMCP's own authorization server (`InMemoryOAuthProvider`: dynamic client registration, PKCE,
refresh tokens, protected-resource and authorization-server metadata), which approves every
authorization request at once, as a user who clicks "Allow" would.

Used by tests/oauth.rs and the GUI test over Streamable HTTP: `python oauth_server.py PORT`
listens on 127.0.0.1:PORT and prints `listening on port PORT` when ready. Every MCP request needs
a bearer token with scope `notes:read`; `whoami` says which client the token was issued to.
"""

import sys

from fastmcp import FastMCP
from fastmcp.server.auth.auth import ClientRegistrationOptions
from fastmcp.server.auth.providers.in_memory import InMemoryOAuthProvider
from fastmcp.server.dependencies import get_access_token

port = int(sys.argv[1])
base = f"http://127.0.0.1:{port}"
auth = InMemoryOAuthProvider(
    base_url=base,
    client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=["notes:read", "offline_access"], default_scopes=["notes:read"]),
    required_scopes=["notes:read"],
)
mcp = FastMCP("signed-notes", auth=auth)


@mcp.tool
def whoami() -> str:
    """Which client the caller's token was issued to, and its scopes."""
    token = get_access_token()
    return f"client {token.client_id} with scopes {' '.join(sorted(token.scopes))}"


@mcp.tool
def note(title: str) -> str:
    """A short note."""
    return f"# {title}\n\nWritten for a signed-in user."


if __name__ == "__main__":
    print(f"listening on port {port}", flush=True)
    mcp.run(transport="http", host="127.0.0.1", port=port, path="/mcp", show_banner=False)
