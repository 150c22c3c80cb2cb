#!/usr/bin/env python3
"""An MCP Apps server (stdlib only) whose view is written with the official ext-apps SDK: the
`App` class from `@modelcontextprotocol/ext-apps` (its bundled `app-with-deps.js`, read from the
path given and inlined as a classic script). Used by tests/gui_apps.rs for what no npm example
does: picture-in-picture and `sampling/createMessage` from a view.

Usage: sdk_app.py PATH/TO/app-with-deps.js

Tool `show` opens `ui://sdk/view.html`. Once connected the view writes into:
  #status  "connected; sampling offered: <bool>"
  #mode    "mode: <display mode>" as the host grants or changes it
  #answer  "answer: <the model's text>" or "refused: <the host's reason>"
and has buttons #pip (asks for pip), #inline (asks for inline), #ask (asks the host for an LLM
completion of "Name a fruit.", at most 24 tokens).
"""

import json
import re
import sys

SDK_PATH = sys.argv[1]
OUT = sys.stdout.buffer


def classic_sdk():
    """The ESM bundle as a classic script: its trailing `export{a as B,…}` becomes `window.ExtApps`."""
    code = open(SDK_PATH, encoding="utf-8").read()
    if "</script" in code.lower():
        raise SystemExit(f"{SDK_PATH}: holds `</script`, which would end the inline script early")
    match = re.search(r"export\s*\{([^}]*)\}\s*;?\s*$", code)
    if not match:
        raise SystemExit(f"{SDK_PATH}: no trailing export list")
    pairs = []
    for item in match.group(1).split(","):
        local, _, exported = item.strip().partition(" as ")
        pairs.append(f"{json.dumps(exported or local)}:{local}")
    return code[:match.start()] + "window.ExtApps={" + ",".join(pairs) + "};"


VIEW = """<!doctype html><html><head><meta charset="utf-8"><title>sdk app</title></head>
<body><h1>SDK App</h1>
<p><button id="pip">Float</button> <button id="inline">Back inline</button> <button id="ask">Ask the model</button></p>
<pre id="status">loading</pre><pre id="mode">mode: ?</pre><pre id="answer">answer: none</pre>
<script>%SDK%</script>
<script>
(async () => {
  const { App, PostMessageTransport } = window.ExtApps;
  const app = new App({ name: "sdk-app", version: "1" }, { availableDisplayModes: ["inline", "pip", "fullscreen"] });
  const show = (id, text) => { document.getElementById(id).textContent = text; };
  app.onhostcontextchanged = (context) => { if (context.displayMode) show("mode", "mode: " + context.displayMode); };
  await app.connect(new PostMessageTransport(window.parent, window.parent));
  show("status", "connected; sampling offered: " + !!app.getHostCapabilities()?.sampling);
  show("mode", "mode: " + (app.getHostContext()?.displayMode ?? "?"));
  const ask = (mode) => async () => {
    try { show("mode", "mode: " + (await app.requestDisplayMode({ mode })).mode); } catch (e) { show("mode", "mode refused: " + e.message); }
  };
  document.getElementById("pip").onclick = ask("pip");
  document.getElementById("inline").onclick = ask("inline");
  document.getElementById("ask").onclick = async () => {
    show("answer", "asking");
    try {
      const result = await app.createSamplingMessage({ messages: [{ role: "user", content: { type: "text", text: "Name a fruit." } }], maxTokens: 24 });
      const content = Array.isArray(result.content) ? result.content[0] : result.content;
      show("answer", "answer: " + (content?.text ?? JSON.stringify(result.content)));
    } catch (e) {
      show("answer", "refused: " + e.message);
    }
  };
})().catch((e) => { document.getElementById("status").textContent = "failed: " + e.message; });
</script></body></html>"""

TOOLS = [{"name": "show", "title": "SDK view", "inputSchema": {"type": "object"},
          "_meta": {"ui": {"resourceUri": "ui://sdk/view.html"}}}]


def send(message):
    OUT.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
    OUT.flush()


def answer(message, view):
    method, params = message.get("method"), message.get("params") or {}
    if method == "initialize":
        return {"protocolVersion": params.get("protocolVersion", "2025-11-25"),
                "capabilities": {"tools": {}, "resources": {}},
                "serverInfo": {"name": "sdk-app", "version": "1"}}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call" and params.get("name") == "show":
        return {"content": [{"type": "text", "text": "the SDK view"}]}
    if method == "resources/list":
        return {"resources": [{"uri": "ui://sdk/view.html", "name": "view", "mimeType": "text/html;profile=mcp-app"}]}
    if method == "resources/read" and params.get("uri") == "ui://sdk/view.html":
        return {"contents": [{"uri": "ui://sdk/view.html", "mimeType": "text/html;profile=mcp-app", "text": view}]}
    if method == "ping":
        return {}
    return None


def main():
    view = VIEW.replace("%SDK%", classic_sdk())
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if "id" not in message or "method" not in message:
            continue
        result = answer(message, view)
        if result is None:
            send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "unknown: " + str(message.get("method"))}})
        else:
            send({"jsonrpc": "2.0", "id": message["id"], "result": result})


main()
