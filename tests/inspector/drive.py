#!/usr/bin/env python3
"""Drive the MCP Inspector (npm @modelcontextprotocol/inspector 2.12.x) web UI in WebKitGTK
(MiniBrowser through WebKitWebDriver) under its own Xvfb: connect to a stdio MCP server and, in
ONE session, for each call of --calls, optionally run the tool in the Tools tab (to read what the
Inspector shows as the tool result; its arguments as JSON or typed into the form's fields), then
(unless the call is Tools-tab only) open it in the Apps tab so its MCP App view renders,
wait until the call's `ready` holds in the App frame, optionally click something in the frame
and wait again, run the call's `probe` there, and save screenshots. Stdlib only.

--calls is a JSON list of
  {"name": "chart",                     # screenshots <out>/<name>.png (page), <out>/<name>_frame.png (App frame)
   "tool": "demo__render_chart", "args": {...},
   "tools_tab": true,                   # also call it in the Tools tab first
   "tools_only": true,                  # only call it in the Tools tab (no App; <out>/<name>.png is the page)
   "type_args": {"image": "artifact:{ref:chart}"},  # instead of args: typed into the Tools tab's
                                        # form fields (<out>/<name>_typed.png before Execute);
                                        # {ref:NAME} = the id after "Reference:" in call NAME's
                                        # Tools-tab result
   "ready": "<JS expression>",          # in the App frame; polled every 50 ms until truthy
   "click": "<css>", "click_text": "x", # optional: then click (the first match whose text contains click_text)
   "after_click_ready": "<JS expr>",    #   and poll this until truthy
   "probe": "<JS function body>"}       # run in the App frame last; its return value is recorded

ready_ms counts from the click that starts the call (Open App, or the list item of a tool without
inputs) until `ready` held; click_ready_ms from the in-frame click until `after_click_ready` held.

The last stdout line is `RESULT {json}`: ok, tools, calls[{name, tool, tools_tab{call_status,
shown{text, html_len, has_base64_in_html, imgs}, typed, reference}, app_status_ready_ms, ready_ms, click_ready_ms,
probe, shot, frame_shot}], and on failure error, failed_call, failure_shot, *_log_tail (the
workdir with inspector.log / webdriver.log is then kept). Exit code 0 only when every call passed.
Everything started (Xvfb, inspector + server, WebKitWebDriver + MiniBrowser) is stopped on exit.
"""
import argparse
import base64
import http.client
import json
import os
import re
import secrets
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time

MINIBROWSER_CANDIDATES = [
    "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
    "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.0/MiniBrowser",
    "/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
    "/usr/libexec/webkit2gtk-4.1/MiniBrowser",
]
ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf"  # W3C web element identifier

T0 = time.monotonic()


def log(*a):
    print(f"[{time.monotonic() - T0:6.2f}s]", *a, flush=True)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_port(port, timeout, proc=None, what=""):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{what} exited early with code {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what}: port {port} not listening after {timeout}s")


class WebDriverError(RuntimeError):
    def __init__(self, status, value, what):
        self.status, self.value = status, value
        err = value.get("error") if isinstance(value, dict) else value
        super().__init__(f"{what}: HTTP {status} {err} {value.get('message', '') if isinstance(value, dict) else ''}")

    @property
    def error(self):
        return self.value.get("error") if isinstance(self.value, dict) else None


class WebDriver:
    """Plain W3C WebDriver over ONE kept-alive HTTP/1.1 connection."""

    def __init__(self, port):
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.sid = None

    def raw(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json; charset=utf-8", "Connection": "keep-alive"}
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                r = self.conn.getresponse()
                payload = r.read()
                break
            except (http.client.RemoteDisconnected, ConnectionError, BrokenPipeError):
                if attempt == 2:
                    raise
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        j = json.loads(payload or b"{}")
        if r.status != 200:
            raise WebDriverError(r.status, j.get("value", j), f"{method} {path}")
        return j.get("value")

    def cmd(self, method, path, body=None):
        return self.raw(method, f"/session/{self.sid}{path}", body)

    def new_session(self, binary, args):
        caps = {"capabilities": {"alwaysMatch": {
            "webkitgtk:browserOptions": {"binary": binary, "args": args}}}}
        v = self.raw("POST", "/session", caps)
        self.sid = v["sessionId"]
        return v["capabilities"]

    def delete_session(self):
        if self.sid:
            try:
                self.raw("DELETE", f"/session/{self.sid}")
            finally:
                self.sid = None

    # helpers
    def js(self, script, *args):
        return self.cmd("POST", "/execute/sync", {"script": script, "args": list(args)})

    def find(self, css=None, xpath=None, many=False):
        using, value = ("xpath", xpath) if xpath else ("css selector", css)
        v = self.cmd("POST", "/elements" if many else "/element", {"using": using, "value": value})
        if many:
            return [e[ELEMENT_KEY] for e in v]
        return v[ELEMENT_KEY]

    def try_find(self, css=None, xpath=None):
        try:
            els = self.find(css=css, xpath=xpath, many=True)
        except WebDriverError as e:
            # WebKit reports a node re-rendered while the query ran as stale (seen on a busy
            # machine): not found yet, look again.
            if e.error != "stale element reference":
                raise
            return None
        return els[0] if els else None

    def click(self, eid):
        return self.cmd("POST", f"/element/{eid}/click", {})

    def wait_find(self, css=None, xpath=None, timeout=20, what=None):
        end = time.monotonic() + timeout
        while True:
            e = self.try_find(css=css, xpath=xpath)
            if e:
                return e
            if time.monotonic() > end:
                raise TimeoutError(f"timed out waiting for {what or css or xpath}")
            time.sleep(0.2)

    def click_when_ready(self, css=None, xpath=None, timeout=20, what=None, index=0, scroll=False):
        """Find + click, retrying while the UI is mid-render/transition (Mantine
        animations make WebKit report 'element click intercepted' / stale nodes). With `scroll`,
        the element is first scrolled to the middle of its scroller (a list item further down
        is otherwise 'not interactable' in WebKit)."""
        end = time.monotonic() + timeout
        while True:
            try:
                els = self.find(css=css, xpath=xpath, many=True)
                if len(els) > index:
                    if scroll:
                        self.js("arguments[0].scrollIntoView({block:'center'})", {ELEMENT_KEY: els[index]})
                    return self.click(els[index])
                err = "not found"
            except WebDriverError as e:
                if e.error not in ("element click intercepted", "stale element reference",
                                   "element not interactable", "no such element"):
                    raise
                err = e.error
            if time.monotonic() > end:
                raise TimeoutError(f"could not click {what or css or xpath}: {err}")
            time.sleep(0.25)

    def frame(self, eid):
        self.cmd("POST", "/frame", {"id": None if eid is None else {ELEMENT_KEY: eid}})

    def screenshot(self, path, eid=None):
        b64 = self.cmd("GET", f"/element/{eid}/screenshot" if eid else "/screenshot")
        with open(path, "wb") as f:
            f.write(base64.b64decode(b64))


def png_crop(data, x, y, w, h):
    """Crop an 8-bit non-interlaced RGB/RGBA PNG (what WebKit returns); stdlib only."""
    import struct
    import zlib
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        ln, typ = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + ln]
        if typ == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", chunk)
        elif typ == b"IDAT":
            idat += chunk
        pos += 12 + ln
    W, H, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG format {ihdr}")
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), W * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(H):
        ft, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for k in range(stride):
            a = line[k - bpp] if k >= bpp else 0
            b = prev[k]
            c = prev[k - bpp] if k >= bpp else 0
            if ft == 1:
                line[k] = (line[k] + a) & 255
            elif ft == 2:
                line[k] = (line[k] + b) & 255
            elif ft == 3:
                line[k] = (line[k] + ((a + b) >> 1)) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[k] = (line[k] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    x, y = max(0, x), max(0, y)
    w, h = max(1, min(w, W - x)), max(1, min(h, H - y))
    out = b"".join(b"\x00" + bytes(rows[r][x * bpp:(x + w) * bpp]) for r in range(y, y + h))

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, ctype, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(out, 6)) + chunk(b"IEND", b""))


def start_xvfb(workdir):
    for n in range(90, 200):
        if not os.path.exists(f"/tmp/.X{n}-lock") and not os.path.exists(f"/tmp/.X11-unix/X{n}"):
            break
    else:
        raise RuntimeError("no free X display number")
    out = open(os.path.join(workdir, "xvfb.log"), "wb")
    p = subprocess.Popen(["Xvfb", f":{n}", "-screen", "0", "1400x1000x24", "-nolisten", "tcp"],
                         stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    end = time.monotonic() + 10
    while not os.path.exists(f"/tmp/.X11-unix/X{n}"):
        if p.poll() is not None or time.monotonic() > end:
            raise RuntimeError("Xvfb failed to start; see xvfb.log")
        time.sleep(0.05)
    return p, f":{n}"


def ace_set(wd, scope_css, text):
    """Set the content of the Ace JSON editor inside scope (react-ace; Ace keeps
    its Editor at container.env.editor).  Typing into Ace's textarea would be
    mangled by its auto-closing of brackets/quotes."""
    return wd.js(
        "const c=document.querySelector(arguments[0]+' .ace_editor');"
        "if(!c||!c.env||!c.env.editor) return null;"
        "c.env.editor.setValue(arguments[1], 1); return c.env.editor.getValue();",
        scope_css, text)


def enable_json_mode(wd, scope_css, scope_xpath, timeout=10):
    """Flip the Mantine 'Edit as JSON' switch in scope on (if present) and wait for the Ace editor."""
    return set_json_mode(wd, scope_css, scope_xpath, True, timeout)


def set_json_mode(wd, scope_css, scope_xpath, on, timeout=10):
    """Set the Mantine 'Edit as JSON' switch in scope to `on` (if present) and wait for the Ace
    editor to appear (on) or go (off, the form's own fields).  The <input role=switch> is covered
    by its track span, so a WebDriver click on the input fails with 'element click intercepted':
    click the track instead.  A click that lands while the panel is still animating in can be
    swallowed, so re-check data-checked and retry.  The switch keeps its state from one tool to
    the next."""
    track_x = (scope_xpath + '//label[contains(normalize-space(.),"Edit as JSON")]'
               '//span[contains(@class,"mantine-Switch-track")]')
    # The form renders after the item's click: wait for the switch (on a busy machine it comes
    # seconds later), rather than deciding at once that there is none.
    end = time.monotonic() + timeout
    while not wd.try_find(xpath=track_x):
        if time.monotonic() > end:
            return False
        time.sleep(0.2)
    state_js = ("const l=[...document.querySelectorAll(arguments[0]+' label')].find(l=>/Edit as JSON/.test(l.textContent));"
                "const i=l&&l.querySelector('input[role=switch]');"
                "return [i? i.getAttribute('data-checked'):null, !!document.querySelector(arguments[0]+' .ace_editor')];")
    want = "true" if on else None
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        checked, has_ace = wd.js(state_js, scope_css)
        checked = "true" if checked == "true" else None
        if checked == want and has_ace == on:
            return True
        if checked != want:
            wd.click_when_ready(xpath=track_x, what="Edit as JSON switch")
        time.sleep(0.6)
    log(f"'Edit as JSON' not {'on' if on else 'off'} (data-checked, has_ace = {wd.js(state_js, scope_css)})")
    return False


# The form's field for an argument: the input or textarea its label (the argument's name, with
# a required mark) is for.
FIELD_JS = """
const scope=document.querySelector(arguments[0]), name=arguments[1];
const labels=[...scope.querySelectorAll('label')].filter(l=>l.textContent.replace(/[*\u00a0]/g,'').trim()===name);
for (const l of labels) {
  const id=l.getAttribute('for'), byId=id&&document.getElementById(id);
  if (byId&&/^(INPUT|TEXTAREA)$/.test(byId.tagName)) return byId;
  const w=l.closest('.mantine-InputWrapper-root'), i=w&&w.querySelector('input,textarea');
  if (i) return i;
}
return null;"""


def type_into_field(wd, scope_css, name, text, timeout):
    """Type `text` into the form field of argument `name` with real key events (WebDriver
    element send keys), after clearing it; returns what the field then holds."""
    end = time.monotonic() + timeout
    while True:
        el = wd.js(FIELD_JS, scope_css, name)
        if el:
            break
        if time.monotonic() > end:
            labels = wd.js("return [...document.querySelectorAll(arguments[0]+' label')].map(l=>l.textContent)", scope_css)
            raise RuntimeError(f"no form field for argument {name!r}; labels in the form: {labels}")
        time.sleep(0.2)
    eid = el[ELEMENT_KEY]
    wd.js("arguments[0].scrollIntoView({block:'center'})", el)
    wd.cmd("POST", f"/element/{eid}/clear", {})
    wd.cmd("POST", f"/element/{eid}/value", {"text": text})
    return wd.js("return arguments[0].value", el)


REFERENCE_RE = re.compile(r"Reference: ([^\s)]+)")


def with_references(value, references):
    """`value` with each `{ref:NAME}` replaced by the reference the Inspector showed in call
    NAME's result (the id after "Reference:", as a model reads it)."""
    def sub(m):
        if m.group(1) not in references:
            raise RuntimeError(f"no reference shown in the result of call {m.group(1)!r} (calls with one: {sorted(references)})")
        return references[m.group(1)]
    return re.sub(r"\{ref:([^}]+)\}", sub, value)


def minibrowser():
    env = os.environ.get("MINIBROWSER")
    if env:
        return env
    for p in MINIBROWSER_CANDIDATES:
        if os.path.exists(p):
            return p
    raise RuntimeError("MiniBrowser not found (apt-get install webkit2gtk-driver); set MINIBROWSER")


def tail(path, n=3000):
    try:
        with open(path, errors="replace") as f:
            return f.read()[-n:]
    except OSError:
        return ""


class Inspector:
    """One Xvfb + MCP Inspector + WebKitWebDriver session, connected to the stdio server."""

    def __init__(self, ns, workdir):
        self.ns, self.workdir = ns, workdir
        self.procs = []  # (name, Popen), each in its own process group
        self.wd = None
        self.tools = []  # [{"display", "name"}]
        self.references = {}  # call name -> the reference its Tools-tab result showed
        self.out = ns.out

    # ---- lifecycle -------------------------------------------------------------------------
    def start(self):
        ns = self.ns
        xvfb, display = start_xvfb(self.workdir)
        self.procs.append(("xvfb", xvfb))
        log("Xvfb on", display)

        cport, sport, aport, wport = free_port(), free_port(), free_port(), free_port()
        token = secrets.token_hex(16)
        env = dict(os.environ)
        env.update({
            "HOST": "127.0.0.1", "CLIENT_PORT": str(cport), "MCP_SANDBOX_PORT": str(sport),
            "MCP_APP_ORIGIN_PORT": str(aport), "MCP_AUTO_OPEN_ENABLED": "false",
            "MCP_INSPECTOR_API_TOKEN": token, "MCP_INSPECTOR_SECRET_STORE": "memory",
            "MCP_STORAGE_DIR": os.path.join(self.workdir, "storage"),
        })
        cmd = [ns.node, ns.inspector, "--web"]
        for kv in ns.env:
            cmd += ["-e", kv]
        if ns.cwd:
            cmd += ["--cwd", ns.cwd]
        cmd += ["--"] + shlex.split(ns.server_cmd)
        ilog = open(os.path.join(self.workdir, "inspector.log"), "wb")
        insp = subprocess.Popen(cmd, env=env, stdout=ilog, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs.append(("inspector", insp))
        wait_port(cport, ns.timeout, insp, "inspector")
        wait_port(sport, ns.timeout, insp, "inspector sandbox")
        log(f"inspector up: ui http://127.0.0.1:{cport}  sandbox http://127.0.0.1:{sport}/sandbox")

        wenv = dict(os.environ, DISPLAY=display)
        wlog = open(os.path.join(self.workdir, "webdriver.log"), "wb")
        wdp = subprocess.Popen(["WebKitWebDriver", f"--port={wport}"], env=wenv, stdout=wlog,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs.append(("webdriver", wdp))
        wait_port(wport, 15, wdp, "WebKitWebDriver")
        self.wd = wd = WebDriver(wport)
        caps = wd.new_session(minibrowser(), ["--automation"])
        log("session", wd.sid, caps.get("browserName"), caps.get("browserVersion"))
        wd.cmd("POST", "/window/rect", {"width": 1400, "height": 1000})

        wd.cmd("POST", "/url", {"url": f"http://127.0.0.1:{cport}/?MCP_INSPECTOR_API_TOKEN={token}"})
        sw_css = 'input[role=switch][aria-label^="Connect or disconnect"]'
        wd.wait_find(css=sw_css, timeout=ns.timeout, what="server card connect switch")
        status = wd.js('return document.querySelector("[data-testid=connection-status]").dataset.status')
        if status != "connected":
            wd.click_when_ready(css=f"label:has(> {sw_css}) .mantine-Switch-track", what="connect switch")
        end = time.monotonic() + ns.timeout
        while True:
            st = wd.js('const h=document.querySelector("[data-testid=connection-status]");'
                       'return [h.dataset.status, h.dataset.errorMessage||null]')
            if st[0] == "connected":
                break
            if st[0] == "error" or time.monotonic() > end:
                raise RuntimeError(f"connect failed: status={st[0]} error={st[1]}")
            time.sleep(0.2)
        log("connected")

        self.tools_tab()
        items = wd.js('return [...document.querySelectorAll("[data-testid=tools-screen] button[data-variant=listItem]")]'
                      '.map(b=>b.innerText.split("\\n").map(s=>s.trim()).filter(Boolean))')
        self.tools = [{"display": it[0], "name": it[-1]} for it in items]
        log("tools:", ", ".join(t["name"] for t in self.tools))

    def cleanup(self):
        if self.wd is not None:
            try:
                self.wd.delete_session()
            except Exception as e:  # noqa: BLE001
                log("delete session:", e)
            self.wd = None
        for _, p in reversed(self.procs):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for _, p in reversed(self.procs):
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait(5)
        self.procs.clear()

    # ---- UI helpers ------------------------------------------------------------------------
    def tool(self, name):
        t = next((t for t in self.tools if t["name"] == name), None)
        if t is None:
            raise RuntimeError(f"tool {name!r} not in the tools list {[t['name'] for t in self.tools]}")
        return t

    def tools_tab(self):
        self.wd.click_when_ready(css='header label[for$="-Tools"]', timeout=self.ns.timeout, what="Tools tab")
        self.wd.wait_find(css="[data-testid=tools-screen] button[data-variant=listItem]",
                          timeout=self.ns.timeout, what="tool list items")

    def click_scrolled(self, css, index, what):
        """Scroll the index-th match of css into view, then click it."""
        return self.wd.click_when_ready(css=css, index=index, what=what, timeout=self.ns.timeout, scroll=True)

    def select_in_tools_tab(self, tool):
        """Select `tool` in the Tools tab by its name, not its position, and wait until the form
        shows that tool. A list that re-renders between reading and clicking (the proxy's
        tools/list_changed re-fetch) shifted positions: a click by index once ran `big_output`
        with the chart's arguments. The previous call's Results card takes the form's place:
        it is closed first (its ✕), which brings back the selected tool's form; a tool already
        selected is left so."""
        wd, ts = self.wd, "[data-testid=tools-screen]"
        display = self.tool(tool)["display"]
        item = (f'//*[@data-testid="tools-screen"]//button[@data-variant="listItem"]'
                f'[.//*[normalize-space(text())={json.dumps(tool)}]]')
        form_title = ("const b=[...document.querySelectorAll('" + ts + " button')].find(e=>e.textContent.trim()==='Execute Tool');"
                      "const c=b&&b.closest('.mantine-Card-root');"
                      "return c? c.innerText.split('\\n').map(s=>s.trim()).filter(Boolean)[0] : null;")
        close_js = ("const h=[...document.querySelectorAll('" + ts + " h3')].find(e=>e.textContent.trim()==='Results');"
                    "const c=h&&h.closest('.mantine-Card-root'); return c? c.querySelector('button') : null;")
        gone = time.monotonic() + self.ns.timeout
        while True:
            close = wd.js(close_js)
            if not close:
                break
            try:
                wd.click(close[ELEMENT_KEY])
            except WebDriverError as e:
                # Mid-animation (the result card sliding in) a click is intercepted: again.
                if e.error not in ("element click intercepted", "stale element reference", "element not interactable"):
                    raise
            if time.monotonic() > gone:
                raise TimeoutError("the Results card did not close")
            time.sleep(0.25)
        if wd.js(form_title) == display:
            return
        end = time.monotonic() + self.ns.timeout
        while True:
            if '"' in tool:
                raise RuntimeError(f"tool name {tool!r} cannot be selected by text")
            wd.click_when_ready(xpath=item, what=f"tool list item {tool!r}", timeout=self.ns.timeout, scroll=True)
            retry = time.monotonic() + 3
            while time.monotonic() < min(retry, end):
                if wd.js(form_title) == display:
                    return
                time.sleep(0.1)
            if time.monotonic() >= end:
                raise TimeoutError(f"the Tools tab's form did not show {tool!r} ({display!r}) after clicking its item; "
                                   f"it shows {wd.js(form_title)!r}")

    # ---- Tools tab: what the Inspector shows as the result --------------------------------
    def call_in_tools_tab(self, call):
        wd, ns = self.wd, self.ns
        ts, tx = "[data-testid=tools-screen]", '//*[@data-testid="tools-screen"]'
        self.tools_tab()
        self.select_in_tools_tab(call["tool"])
        typed = None
        if call.get("type_args"):
            # The form's own fields, typed into as a person would.
            if not set_json_mode(wd, ts, tx, False):
                raise RuntimeError("could not switch the Tools tab's form out of 'Edit as JSON'")
            typed = {}
            for name, text in call["type_args"].items():
                typed[name] = type_into_field(wd, ts, name, text, ns.timeout)
                if typed[name] != text:
                    raise RuntimeError(f"typed {text!r} into {name!r}, the field holds {typed[name]!r}")
                log(f"typed {text!r} into {name!r}")
            time.sleep(self.ns.settle)
            wd.screenshot(os.path.join(self.out, f"{call['name']}_typed.png"))
        elif enable_json_mode(wd, ts, tx):
            got = ace_set(wd, ts, json.dumps(call.get("args", {})))
            if got is None or json.loads(got) != call.get("args", {}):
                raise RuntimeError(f"could not set Tools-tab args editor (got {got!r})")
        elif call.get("args"):
            raise RuntimeError("no JSON args editor in the Tools tab but args given")
        time.sleep(1.0)  # let React (and react-ace's debounce) commit the onChange, also on a busy machine
        # Mark the current result card (if any): the new result must replace it.
        wd.js("const h=[...document.querySelectorAll('h3')].find(e=>e.textContent.trim()==='Results');"
              "const c=h&&h.closest('.mantine-Card-root'); if(c) c.dataset.driveOld='1';")
        wd.click_when_ready(xpath='//button[normalize-space()="Execute Tool"]', what="Execute Tool")
        end = time.monotonic() + ns.timeout
        while True:
            cs, fresh = wd.js(
                f'const s=document.querySelector("{ts}").dataset.callStatus;'
                "const h=[...document.querySelectorAll('h3')].find(e=>e.textContent.trim()==='Results');"
                "const c=h&&h.closest('.mantine-Card-root');"
                "return [s, !!c && c.dataset.driveOld!=='1'];")
            if cs not in ("idle", "pending") and fresh:
                break
            if time.monotonic() > end:
                raise TimeoutError(f"Tools-tab call of {call['tool']} did not finish (status {cs}, fresh card {fresh})")
            time.sleep(0.1)
        shown = wd.js(
            "const h=[...document.querySelectorAll('h3')].find(e=>e.textContent.trim()==='Results');"
            "const card=h&&h.closest('.mantine-Card-root');"
            "if(!card) return null;"
            "return {text: card.innerText, html_len: card.innerHTML.length,"
            " has_base64_in_html: /base64,|;base64/.test(card.innerHTML),"
            " imgs: [...card.querySelectorAll('img')].map(i=>(i.getAttribute('src')||'').slice(0,80))};")
        log(f"Tools tab {call['tool']}: data-call-status={cs}; base64 in panel: {shown and shown['has_base64_in_html']}")
        found = REFERENCE_RE.search((shown or {}).get("text") or "")
        return {"call_status": cs, "shown": shown, "typed": typed, "reference": found and found.group(1)}

    # ---- Apps tab --------------------------------------------------------------------------
    def apps_tab(self):
        self.wd.click_when_ready(css='header label[for$="-Apps"]', timeout=self.ns.timeout, what="Apps tab")
        self.wd.wait_find(css="main button[data-variant=listItem]", timeout=self.ns.timeout, what="app list")

    def open_app(self, call):
        """Select the app, fill the args, click Open App; returns the monotonic time of the click
        that starts the call (Open App, or the list item for a tool without inputs)."""
        wd = self.wd
        self.apps_tab()
        display = self.tool(call["tool"])["display"]
        app_items = wd.js('return [...document.querySelectorAll("main button[data-variant=listItem]")]'
                          '.map(b=>b.innerText.split("\\n").map(s=>s.trim()).filter(Boolean)[0])')
        if display not in app_items:
            raise RuntimeError(f"{call['tool']!r} ({display!r}) not in the Apps list {app_items}: no _meta.ui.resourceUri?")
        af, afx = "[data-testid=apps-form]", '//*[@data-testid="apps-form"]'
        # A click that lands while the list is still animating can be swallowed: clicked again
        # when neither the form nor the App has appeared 3 s later.
        end = time.monotonic() + self.ns.timeout
        shown = False
        while not shown:
            t_click = time.monotonic()
            # By its text, not its position: a list that re-renders between finding and clicking
            # shifts positions (a neighbour's form then got this call's arguments).
            by_text = f'//main//button[@data-variant="listItem"][.//*[normalize-space(text())={json.dumps(display)}]]'
            if wd.try_find(xpath=by_text) and '"' not in display:
                wd.click_when_ready(xpath=by_text, what=f"app list item {display!r}", timeout=self.ns.timeout, scroll=True)
            else:
                self.click_scrolled("main button[data-variant=listItem]", app_items.index(display), "app list item")
            retry = time.monotonic() + 3
            while time.monotonic() < min(retry, end):
                # The form must be this App's: the previous call's form (and its Open App button)
                # is still there until the click is taken, and once got this call's arguments.
                title, status = wd.js(f'const f=document.querySelector("{af}"); if(!f) return [null, null];'
                                      "return [f.innerText.split('\\n').map(s=>s.trim()).filter(Boolean)[0] ?? null, f.dataset.appStatus];")
                if title == display and wd.try_find(css="[data-testid=open-app]"):
                    shown = True
                    break
                if title == display and status in ("loading", "ready", "error"):
                    return t_click  # no inputs: selecting the item opened it
                time.sleep(0.1)
            if not shown and time.monotonic() >= end:
                raise TimeoutError(f"neither the form nor the App of {call['tool']!r} appeared after clicking its item")
        args = call.get("args", {})
        if enable_json_mode(wd, af, afx):
            got = ace_set(wd, af, json.dumps(args))
            if got is None or json.loads(got) != args:
                raise RuntimeError(f"could not set Apps-tab args editor (got {got!r})")
        elif args:
            raise RuntimeError("no JSON args editor in the Apps tab but args given")
        time.sleep(1.0)  # as above
        end = time.monotonic() + self.ns.timeout
        while True:
            try:
                el = wd.find(css="[data-testid=open-app]")
                t_click = time.monotonic()
                wd.click(el)
                return t_click
            except WebDriverError as e:
                if e.error not in ("element click intercepted", "stale element reference",
                                   "element not interactable", "no such element") or time.monotonic() > end:
                    raise
            time.sleep(0.25)

    def wait_app_status(self, t_click):
        af = "[data-testid=apps-form]"
        end = time.monotonic() + self.ns.timeout
        while True:
            a = self.wd.js(f'const f=document.querySelector("{af}"); return f? [f.dataset.appStatus, f.dataset.appError||null] : [null, null]')
            if a[0] == "ready":
                return time.monotonic() - t_click
            if a[0] == "error" or time.monotonic() > end:
                toast = self.wd.js('return [...document.querySelectorAll(".mantine-Notification-root")].map(n=>n.innerText)')
                raise RuntimeError(f"App did not become ready: status={a[0]} error={a[1]} toasts={toast}")
            time.sleep(0.05)

    def enter_app_frame(self):
        """Top -> outer iframe (sandbox proxy) -> inner iframe (srcdoc) = the App."""
        wd = self.wd
        wd.frame(None)
        outer = wd.find(css="[data-testid=apps-form] iframe")
        wd.frame(outer)
        inner = wd.wait_find(css="iframe", timeout=self.ns.timeout, what="inner App iframe")
        wd.frame(inner)
        return outer

    def frame_geometry(self, outer):
        """Sizes of the two frames and of the App's document (the host sizes the frame from the
        App's size-changed notifications). Leaves the WebDriver in the App frame."""
        wd = self.wd
        wd.frame(None)
        rect = "const r=arguments[0].getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)];"
        g = {"outer": wd.js(rect, {ELEMENT_KEY: outer})}
        wd.frame(outer)
        inner = wd.find(css="iframe")
        g["inner"] = wd.js(rect, {ELEMENT_KEY: inner})
        wd.frame(inner)
        g["app"] = wd.js("return {inner: [innerWidth, innerHeight], scroll_height: document.documentElement.scrollHeight,"
                         " body_height: Math.round(document.body.getBoundingClientRect().height)}")
        return g

    def wait_in_frame(self, expr, t0, what):
        """Poll expr (a JS expression) in the App frame every 50 ms until truthy; ms since t0."""
        script = f"try {{ return !!({expr}); }} catch (e) {{ return false; }}"
        end = time.monotonic() + self.ns.timeout
        while True:
            if self.wd.js(script):
                return round((time.monotonic() - t0) * 1000)
            if time.monotonic() > end:
                state = self.wd.js("return {state: document.body && document.body.dataset.state,"
                                   " problems: [...document.querySelectorAll('.problem,.status.error')].map(p=>p.textContent), why_empty: document.body.dataset.emptyBecause || null,"
                                   " text: document.body ? document.body.innerText.slice(0, 500) : null}")
                raise TimeoutError(f"{what} not true after {self.ns.timeout}s: {expr}; frame: {json.dumps(state)}")
            time.sleep(0.05)

    def click_in_frame(self, css, text=None):
        wd = self.wd
        end = time.monotonic() + self.ns.timeout
        while True:
            els = wd.find(css=css, many=True)
            if text is not None:
                texts = [wd.js("return arguments[0].textContent", {ELEMENT_KEY: e}) for e in els]
                els = [e for e, t in zip(els, texts) if text in (t or "")]
            if els:
                wd.js("arguments[0].scrollIntoView({block:'center'})", {ELEMENT_KEY: els[0]})
                t_click = time.monotonic()
                try:
                    wd.click(els[0])
                    return t_click
                except WebDriverError as e:
                    if e.error not in ("element click intercepted", "stale element reference", "element not interactable"):
                        raise
            if time.monotonic() > end:
                raise TimeoutError(f"nothing to click in the App frame: {css} text={text!r}")
            time.sleep(0.1)

    def screenshots(self, outer, page_path, frame_path):
        wd = self.wd
        wd.frame(None)
        # The host resizes the App frame after the App reports its size (and animates it): wait
        # until the frame's box has not changed for 0.5 s (at most 5 s), then let it paint.
        rect_js = ("const r=arguments[0].getBoundingClientRect();"
                   "return [r.left, r.top, r.width, r.height, window.devicePixelRatio||1]")
        r, since, end = None, time.monotonic(), time.monotonic() + 5
        while time.monotonic() < end:
            now = wd.js(rect_js, {ELEMENT_KEY: outer})
            if now != r:
                r, since = now, time.monotonic()
            elif time.monotonic() - since >= 0.5:
                break
            time.sleep(0.1)
        time.sleep(self.ns.settle)
        wd.screenshot(page_path)
        r = wd.js(rect_js, {ELEMENT_KEY: outer})
        dpr = r[4]
        with open(page_path, "rb") as f:
            png = f.read()
        with open(frame_path, "wb") as f:
            f.write(png_crop(png, int(r[0] * dpr), int(r[1] * dpr), max(1, int(r[2] * dpr)), max(1, int(r[3] * dpr))))

    def close_app(self):
        """Back from an open App to the Apps list/form."""
        wd = self.wd
        wd.frame(None)
        for label in ("Back to Input", "Close App", "Close"):
            x = f'//main//button[normalize-space()="{label}" or @aria-label="{label}"]'
            if wd.try_find(xpath=x):
                wd.click_when_ready(xpath=x, what=label)
                return label
        raise RuntimeError("no Back to Input / Close button for the open App")

    # ---- one call --------------------------------------------------------------------------
    def run_call(self, call, out):
        name = call["name"]
        res = {"name": name, "tool": call["tool"]}
        if call.get("type_args"):
            call = dict(call, type_args={k: with_references(v, self.references) for k, v in call["type_args"].items()})
        if call.get("tools_tab") or call.get("tools_only"):
            res["tools_tab"] = self.call_in_tools_tab(call)
            if res["tools_tab"]["reference"]:
                self.references[name] = res["tools_tab"]["reference"]
            if call.get("tools_only"):
                res["shot"] = os.path.join(out, f"{name}.png")
                time.sleep(self.ns.settle)
                self.wd.screenshot(res["shot"])
                return res
        t_click = self.open_app(call)
        res["app_status_ready_ms"] = round(self.wait_app_status(t_click) * 1000)
        outer = self.enter_app_frame()
        res["ready_ms"] = self.wait_in_frame(call.get("ready") or "document.body.dataset.state==='files'", t_click, "ready")
        log(f"{name}: ready after {res['ready_ms']} ms (app-status ready after {res['app_status_ready_ms']} ms)")
        if call.get("click"):
            t = self.click_in_frame(call["click"], call.get("click_text"))
            res["click_ready_ms"] = self.wait_in_frame(call.get("after_click_ready") or "true", t, "after_click_ready")
            log(f"{name}: clicked {call['click']} {call.get('click_text') or ''}; after_click_ready after {res['click_ready_ms']} ms")
        res["geometry"] = self.frame_geometry(outer)
        if call.get("probe"):
            res["probe"] = self.wd.js(call["probe"])
            log(f"{name}: probe = {json.dumps(res['probe'])[:600]}")
        res["shot"] = os.path.join(out, f"{name}.png")
        res["frame_shot"] = os.path.join(out, f"{name}_frame.png")
        self.screenshots(outer, res["shot"], res["frame_shot"])
        res["geometry_at_shot"] = self.frame_geometry(outer)
        log(f"{name}: screenshots -> {res['shot']}, {res['frame_shot']}")
        res["closed_with"] = self.close_app()
        return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server-cmd", required=True, help="stdio MCP server command line (shell-quoted)")
    ap.add_argument("--node", required=True, help="Node >= 22 binary for the inspector")
    ap.add_argument("--inspector", required=True, help="the inspector's launcher: .../inspector/clients/launcher/build/index.js")
    ap.add_argument("--calls", required=True, help="JSON file: a list of calls (see the module doc)")
    ap.add_argument("--out", required=True, help="directory for the screenshots")
    ap.add_argument("--env", action="append", default=[], help="KEY=VALUE for the server (inspector -e)")
    ap.add_argument("--cwd", help="working directory for the server (inspector --cwd)")
    ap.add_argument("--timeout", type=float, default=60, help="per-phase timeout (s)")
    ap.add_argument("--settle", type=float, default=0.3, help="seconds to wait before each screenshot, once the App frame stopped resizing")
    ap.add_argument("--keep-workdir", action="store_true")
    ns = ap.parse_args()

    with open(ns.calls) as f:
        calls = json.load(f)
    if not isinstance(calls, list) or not all(isinstance(c, dict) and c.get("name") and c.get("tool") for c in calls):
        sys.exit("--calls must hold a JSON list of objects with at least name and tool")
    os.makedirs(ns.out, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix="insp-drive-")
    result = {"ok": False, "workdir": workdir, "calls": []}
    insp = Inspector(ns, workdir)

    def on_term(*_):
        insp.cleanup()
        sys.exit(143)
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    current = None
    try:
        insp.start()
        result["tools"] = [t["name"] for t in insp.tools]
        for call in calls:
            current = call["name"]
            log(f"=== {current}: {call['tool']} {json.dumps(call.get('args', {}))}")
            result["calls"].append(insp.run_call(call, ns.out))
        current = None
        result["ok"] = True
    except Exception as e:  # noqa: BLE001
        result["error"] = f"{type(e).__name__}: {e}"
        if current:
            result["failed_call"] = current
        log("FAILED:", result["error"])
        if insp.wd is not None and insp.wd.sid:
            try:
                insp.wd.frame(None)
                shot = os.path.join(ns.out, f"failure_{current or 'setup'}.png")
                insp.wd.screenshot(shot)
                result["failure_shot"] = shot
                log("failure screenshot ->", shot)
            except Exception:  # noqa: BLE001
                pass
        for f in ("inspector.log", "webdriver.log"):
            t = tail(os.path.join(workdir, f))
            result[f"{f.split('.')[0]}_log_tail"] = t
            print(f"----- tail of {f} -----\n{t}", flush=True)
    finally:
        insp.cleanup()
        log("cleaned up")
    if result["ok"] and not ns.keep_workdir:
        subprocess.run(["rm", "-rf", workdir])
        result.pop("workdir")
    print("RESULT " + json.dumps(result), flush=True)
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
