#!/usr/bin/env python3
"""Benchmark: our Rust normalizer (`mcp-canvas-cli normalize`) against a plain Python version of
RFC 003's pipeline (§3.2 signatures, §4.2 min size, §5.2 ids, §5.3 summary), in the same run.

    python3 scripts/bench-normalize.py [--mb 100] [--runs 3] [--cli PATH] [--variants text,structured]

It writes a seeded "Tableau download_workbook" CallToolResult (RFC 003 appendix B) of ~--mb MB of
base64 PDF into a temp dir, once with the payload inside a JSON text block ("text") and once in
`structuredContent` ("structured"). Each side runs --runs times as its own child process; wall time
is perf_counter around the child, peak RSS is the child's own ru_maxrss from os.wait4. Medians are
reported. Both sides must store one artifact whose sha256 equals the generated PDF's, and the
stored bytes must hash to it. Standard library only; Linux (ru_maxrss in KiB). This is a
benchmark, not a test: it exits 0 unless the Python side fails.
"""
import argparse, base64, binascii, collections, hashlib, json, os, random, re, shlex, statistics, subprocess, sys, tempfile, threading, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIGNATURES = {  # RFC 003 §3.2 / appendix A: base64 prefix -> (extension, MIME, label)
    "JVBERi": ("pdf", "application/pdf", "PDF"), "iVBORw": ("png", "image/png", "PNG image"),
    "/9j/": ("jpg", "image/jpeg", "JPEG image"), "R0lGOD": ("gif", "image/gif", "GIF image"),
    "UEsDB": ("zip", "application/zip", "ZIP archive"),
}
MIN_SIZE_FOR_DETECTION = 1000  # RFC 003 §4.2
MB = 1_000_000
LONG_BASE64 = re.compile(r"[A-Za-z0-9+/]{200,}")


# ---------------------------------------------------------------- Python reference (the worker)
def human_size(n):
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n} bytes" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024


def store_durably(outdir, data):
    """sha256, then the bytes written under it and fsynced; returns the hex digest."""
    digest = hashlib.sha256(data).hexdigest()
    with open(os.path.join(outdir, digest), "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    return digest


def python_normalize(path, outdir, namespace="bench"):
    """RFC 003 layer 2: find signature-prefixed base64 strings, store them, replace with references."""
    artifacts, warnings, lines = [], [], []  # lines: one summary line per stored artifact

    def store(value, key, parent, ext, mime, label):
        try:
            data = base64.b64decode(value, validate=True)
        except ValueError as e:
            warnings.append(f"field '{key}': invalid base64 ({e}); kept as is")
            return value
        digest = store_durably(outdir, data)
        stem = parent.get("name") if isinstance(parent, dict) and isinstance(parent.get("name"), str) else key
        name = stem if stem.lower().endswith("." + ext) else f"{stem}.{ext}"
        art = {"id": f"{namespace}_{digest[:12]}", "name": name, "mime": mime, "size": len(data), "sha256": digest}
        artifacts.append(art)
        lines.append(f"Downloaded {label} '{name}' ({human_size(len(data))}). Reference: {art['id']}")
        return f"[{label} stored as artifact {art['id']}]"

    def walk(node, key="value", parent=None):
        if isinstance(node, dict):
            return {k: walk(v, k, node) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v, key) for v in node]
        if isinstance(node, str) and len(node) >= MIN_SIZE_FOR_DETECTION:
            for prefix, (ext, mime, label) in SIGNATURES.items():
                if node.startswith(prefix):
                    return store(node, key, parent, ext, mime, label)
        return node

    with open(path, "rb") as f:
        result = json.loads(f.read())
    texts = []
    for block in result.get("content", []):
        if block.get("type") in ("image", "audio") and isinstance(block.get("data"), str):
            block["data"] = store(block["data"], "data", block, *SIGNATURES.get(block["data"][:6], ("bin", block.get("mimeType"), "file")))
        if block.get("type") == "resource" and isinstance(block.get("resource", {}).get("blob"), str):
            res = block["resource"]
            res["blob"] = store(res["blob"], "blob", res, *SIGNATURES.get(res["blob"][:6], ("bin", res.get("mimeType"), "file")))
        if block.get("type") != "text":
            continue
        text = block.pop("text", "")
        if text.lstrip()[:1] in ("{", "["):
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
            if parsed is not None:
                text = json.dumps(walk(parsed))
        texts.append(text[:2000] + ("…" if len(text) > 2000 else ""))
    if "structuredContent" in result:
        result["structuredContent"] = walk(result["structuredContent"], "structuredContent")
    return {"summary": "\n".join(texts + lines), "artifacts": artifacts, "warnings": warnings, "error": None}


def machine_limit(path, outdir):
    """The unavoidable work on the same bytes with the fastest primitives at hand (C base64
    decoding, OpenSSL SHA-256 with SHA-NI where the CPU has it, one write, fsync): read the
    file, decode the one long base64 run, hash, write, fsync. No JSON parsing at all."""
    data = open(path, "rb").read()
    start = data.index(b"JVBERi")
    end = min(i for i in (data.find(b'"', start), data.find(b"\\", start), len(data)) if i >= 0)
    payload = binascii.a2b_base64(data[start:end])
    del data
    digest = store_durably(outdir, payload)
    return {"summary": "", "artifacts": [{"sha256": digest, "size": len(payload)}], "error": None}


def replay_server(path):
    """A stdio MCP server whose one tool answers with the CallToolResult in `path`, streamed from
    the file in 1 MiB pieces (so its own memory stays small): the `call` side's server."""
    out = sys.stdout.buffer
    def send(message):
        out.write(json.dumps(message).encode() + b"\n")
        out.flush()
    for line in sys.stdin.buffer:
        message = json.loads(line)
        method, msg_id, params = message.get("method"), message.get("id"), message.get("params") or {}
        if method is None or msg_id is None:
            continue
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": msg_id, "result": {"protocolVersion": params.get("protocolVersion"),
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "replay", "version": "1"}}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": msg_id, "result": {"tools": [
                {"name": "download_workbook", "inputSchema": {"type": "object"}}]}})
        elif method == "tools/call":
            out.write(b'{"jsonrpc":"2.0","id":' + json.dumps(msg_id).encode() + b',"result":')
            with open(path, "rb") as f:
                while piece := f.read(1 << 20):
                    out.write(piece)
            out.write(b"}\n")
            out.flush()
            # When the last byte was handed to the pipe (the `call` side's "from the last byte").
            Path(str(path) + ".last-byte").write_text(repr(time.monotonic()))
        else:
            send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32601, "message": f"Method not found: {method}"}})


def http_replay_server(path, mode, last_byte):
    """A Streamable HTTP MCP server (in a thread of this process, so not in the measured child's
    memory) whose one tool answers with the CallToolResult in `path`, streamed from the file in
    1 MiB pieces: as one `application/json` body (mode "json") or one `text/event-stream` event
    (mode "sse"). Returns its URL and the server (to shut down)."""
    import http.server
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        def log_message(self, *args):
            pass
        def reply(self, status, body=b"", content_type="application/json"):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Mcp-Session-Id", "bench")
            self.end_headers()
            self.wfile.write(body)
        def do_GET(self):
            self.reply(405, b"")
        def do_DELETE(self):
            self.reply(200, b"")
        def do_POST(self):
            message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            method, msg_id, params = message.get("method"), message.get("id"), message.get("params") or {}
            if msg_id is None:
                return self.reply(202)
            def answer(result):
                self.reply(200, json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}).encode())
            if method == "initialize":
                answer({"protocolVersion": params.get("protocolVersion"), "capabilities": {"tools": {}},
                        "serverInfo": {"name": "replay", "version": "1"}})
            elif method == "tools/list":
                answer({"tools": [{"name": "download_workbook", "inputSchema": {"type": "object"}}]})
            elif method == "tools/call":
                head = b'{"jsonrpc":"2.0","id":' + json.dumps(msg_id).encode() + b',"result":'
                tail = b"}"
                if mode == "sse":
                    head, tail = b"event: message\ndata: " + head, tail + b"\n\n"
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream" if mode == "sse" else "application/json")
                self.send_header("Content-Length", str(len(head) + Path(path).stat().st_size + len(tail)))
                self.end_headers()
                self.wfile.write(head)
                with open(path, "rb") as f:
                    while piece := f.read(1 << 20):
                        self.wfile.write(piece)
                self.wfile.write(tail)
                self.wfile.flush()
                last_byte.write_text(repr(time.monotonic()))
            else:
                self.reply(200, json.dumps({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32601, "message": f"Method not found: {method}"}}).encode())
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/mcp", server


# ---------------------------------------------------------------- input generation
def pdf_chunks(total, seed):
    """~total bytes of PDF-looking data: a real header, then half random, half repetitive text."""
    rng = random.Random(seed)
    ops = [b"BT /F1 12 Tf 72 712 Td (Sales by Region) Tj ET\n", b"0.2 0.4 0.8 rg 100 200 50 80 re f\n",
           b"q 1 0 0 1 36 36 cm /Im1 Do Q\n", b"<< /Type /Page /Parent 2 0 R >>\nendobj\n"]
    yield b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"
    left, step = total - 15, 1 << 20
    while left > 0:
        chunk = rng.randbytes(step // 2) + b"stream\n" + b"".join(rng.choices(ops, k=step // 80)) + b"endstream\n"
        yield chunk[:left]
        left -= len(chunk[:left])


VARIANTS = ("text", "structured", "image", "resource", "v2", "legacy")


def generate(path, mb, seed, variant):
    """Streams the CallToolResult to `path`; returns the sha256 and size of the PDF bytes."""
    meta = {"content": "@B64@", "name": "Sales Dashboard", "format": "pdf"}
    said = {"type": "text", "text": "Workbook 'Sales Dashboard' exported as PDF."}
    if variant == "text":  # base64 in a JSON text block
        doc = {"content": [{"type": "text", "text": json.dumps(meta)}]}
    elif variant == "structured":  # base64 in structuredContent
        doc = {"content": [said], "structuredContent": meta}
    elif variant == "image":  # an MCP image block (the bytes say PDF: stored as what they are)
        doc = {"content": [said, {"type": "image", "mimeType": "image/png", "data": "@B64@"}]}
    elif variant == "resource":  # an embedded resource's blob
        doc = {"content": [said, {"type": "resource", "resource": {
            "uri": "file:///exports/Sales%20Dashboard.pdf", "mimeType": "application/pdf", "blob": "@B64@"}}]}
    elif variant == "v2":  # the v2 contract's artifacts, in a JSON text block
        doc = {"content": [{"type": "text", "text": json.dumps({"results": "Exported.", "artifacts": [
            {"name": "Sales Dashboard.pdf", "mime": "application/pdf", "b64": "@B64@"}]})}]}
    elif variant == "legacy":  # legacy parallel arrays, in a JSON text block
        doc = {"content": [{"type": "text", "text": json.dumps({"returned_file_names": ["Sales Dashboard.pdf"],
                                                                "returned_file_contents": ["@B64@"]})}]}
    else:
        raise SystemExit(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}")
    head, tail = json.dumps(doc).split("@B64@")
    digest, size, carry = hashlib.sha256(), 0, b""
    with open(path, "wb") as f:
        f.write(head.encode())
        for chunk in pdf_chunks(mb * MB * 3 // 4, seed):
            digest.update(chunk)
            size += len(chunk)
            carry += chunk
            cut = len(carry) // 3 * 3
            f.write(base64.b64encode(carry[:cut]))
            carry = carry[cut:]
        f.write(base64.b64encode(carry) + tail.encode())
    return digest.hexdigest(), size


# ---------------------------------------------------------------- measuring
def measure(cmd, workdir):
    """Runs cmd as a child; returns (seconds, peak RSS MB, exit code, stdout, stderr, when its
    first output came on the time.monotonic() clock)."""
    err = Path(workdir, "stderr")
    with open(err, "wb") as e:
        start = time.perf_counter()
        child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=e, cwd=ROOT)
        chunks, first = [], []
        def drain():
            while piece := child.stdout.read1(1 << 16):
                if not first:
                    first.append(time.monotonic())
                chunks.append(piece)
        reader = threading.Thread(target=drain)
        reader.start()
        _, status, usage = os.wait4(child.pid, 0)  # this child's own rusage, not a running max
        seconds = time.perf_counter() - start
        reader.join()
    child.returncode = os.waitstatus_to_exitcode(status)
    rss = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024) / MB
    out = b"".join(chunks).decode(errors="replace")
    return seconds, rss, child.returncode, out, err.read_text(errors="replace"), (first or [None])[0]


def check(outcome, sha, size, store_dir):
    """PASS when exactly one artifact with the PDF's sha256 is stored and the summary has no base64."""
    arts = outcome.get("artifacts") or []
    if outcome.get("error"):
        return f"FAIL (error: {outcome['error']})"
    if len(arts) != 1 or arts[0].get("sha256") != sha or arts[0].get("size") != size:
        return f"FAIL ({len(arts)} artifacts: {[(str(a.get('sha256'))[:12], a.get('size')) for a in arts]})"
    if LONG_BASE64.search(outcome.get("summary") or ""):
        return "FAIL (summary carries base64)"
    blobs = [Path(d, sha) for d, _, files in os.walk(store_dir) if sha in files]
    if not blobs:
        return "FAIL (no stored blob named by the sha256)"
    with open(blobs[0], "rb") as f:
        if hashlib.file_digest(f, "sha256").hexdigest() != sha:
            return "FAIL (stored bytes differ)"
    return "PASS"


def find_cli(explicit):
    if explicit:
        return Path(explicit), "--cli"
    for profile in ("release", "debug"):
        path = ROOT / "target" / profile / "mcp-canvas-cli"
        if path.exists():
            return path, profile
    return None, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=int, default=100, help="base64 payload size in MB (default 100)")
    ap.add_argument("--runs", type=int, default=3, help="runs per side and variant (default 3)")
    ap.add_argument("--cli", help="mcp-canvas-cli binary (default target/release, else target/debug)")
    ap.add_argument("--variants", default="text,structured", help=f"comma-separated, of {','.join(VARIANTS)} (default text,structured)")
    ap.add_argument("--transports", default="stdio", help="comma-separated, of stdio,http-json,http-sse: how the `call` side's server answers (default stdio)")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--tmp", help="parent dir for the temp dir (default: system temp)")
    ap.add_argument("--python-worker", nargs=2, metavar=("FILE", "OUTDIR"), help=argparse.SUPPRESS)
    ap.add_argument("--limit-worker", nargs=2, metavar=("FILE", "OUTDIR"), help=argparse.SUPPRESS)
    ap.add_argument("--replay-server", metavar="FILE", help=argparse.SUPPRESS)
    ap.add_argument("--generate-only", metavar="FILE", help="write the first variant's result of --mb MB to FILE, print its PDF's sha256 and size, and stop (other benchmarks' input)")
    args = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    if args.python_worker:
        print(json.dumps(python_normalize(*args.python_worker)))
        return 0
    if args.replay_server:
        replay_server(args.replay_server)
        return 0
    if args.limit_worker:
        print(json.dumps(machine_limit(*args.limit_worker)))
        return 0
    if args.generate_only:
        sha, size = generate(Path(args.generate_only), args.mb, args.seed, args.variants.split(",")[0])
        print(json.dumps({"sha256": sha, "size": size}))
        return 0

    cli, origin = find_cli(args.cli)
    rust_note = None
    if cli is None:
        rust_note = "no mcp-canvas-cli in target/release or target/debug (cargo build --release -p mcp-canvas-cli)"
    elif not cli.exists():
        rust_note = f"{cli} does not exist"
    else:
        probe = subprocess.run([cli, "normalize", "--help"], capture_output=True, text=True)
        if probe.returncode != 0:
            first = ((probe.stderr or probe.stdout).strip().splitlines() or ["no output"])[0]
            rust_note = f"{cli} has no working `normalize` subcommand yet ({first})"
    debug = " - DEBUG build, Rust numbers not representative" if origin == "debug" else ""
    print(f"Rust CLI: {cli} ({origin}{debug})" if rust_note is None else f"Rust side SKIPPED: {rust_note}")

    rows, commands, failed = [], [], False
    servers_up = []  # HTTP replay servers, shut down after each run
    after_last = collections.defaultdict(list)  # (side, variant) -> seconds from the server's last byte to the answer
    with tempfile.TemporaryDirectory(prefix="bench-normalize-", dir=args.tmp) as tmp:
        for variant in args.variants.split(","):
            raw = Path(tmp, f"download_workbook-{variant}.json")
            t0 = time.perf_counter()
            sha, pdf_size = generate(raw, args.mb, args.seed, variant)
            input_mb = raw.stat().st_size / MB
            print(f"[{variant}] generated {raw.name}: {input_mb:.1f} MB JSON, PDF {pdf_size / MB:.1f} MB "
                  f"sha256 {sha[:16]}… ({time.perf_counter() - t0:.1f} s)")
            sides = {"python": lambda d: [sys.executable, __file__, "--python-worker", str(raw), d],
                     "limit": lambda d: [sys.executable, __file__, "--limit-worker", str(raw), d]}
            if rust_note is None:
                sides["rust"] = lambda d: [str(cli), "--data-dir", d, "normalize", "--server", "bench",
                                           "--tool", "download_workbook", str(raw), "--json"]
                def call(d):
                    servers = {"mcpServers": {"bench": {"command": sys.executable, "args": [__file__, "--replay-server", str(raw)],
                                                        "max_message_bytes": 1 << 30, "timeout_seconds": 3600}}}
                    Path(d, "servers.json").write_text(json.dumps(servers))
                    return [str(cli), "--data-dir", d, "call", "bench", "download_workbook", "--json", "--timeout", "3600"]
                for transport in args.transports.split(","):
                    if transport == "stdio":
                        sides["call"] = call
                    else:
                        def call_http(d, mode=transport.removeprefix("http-")):
                            url, server = http_replay_server(raw, mode, Path(str(raw) + ".last-byte"))
                            servers_up.append(server)
                            servers = {"mcpServers": {"bench": {"type": "http", "url": url, "max_message_bytes": 1 << 30, "timeout_seconds": 3600}}}
                            Path(d, "servers.json").write_text(json.dumps(servers))
                            return [str(cli), "--data-dir", d, "call", "bench", "download_workbook", "--json", "--timeout", "3600"]
                        sides[transport] = call_http
            samples = {side: [] for side in sides}
            for run in range(args.runs):  # interleaved so drift hits both sides alike
                for side, make in sides.items():
                    store = tempfile.mkdtemp(prefix=f"{side}-{run}-", dir=tmp)
                    cmd = make(store)
                    if run == 0:
                        commands.append(shlex.join(cmd))
                    last_byte = Path(str(raw) + ".last-byte")
                    last_byte.unlink(missing_ok=True)
                    seconds, rss, code, out, err, answered = measure(cmd, tmp)
                    while servers_up:
                        servers_up.pop().shutdown()
                    if side in ("call", "http-json", "http-sse") and answered is not None and last_byte.exists():
                        after_last[(side, variant)].append(answered - float(last_byte.read_text()))
                    try:
                        outcome = json.loads(out) if out.strip() else {"error": f"no output, exit {code}"}
                    except ValueError:
                        outcome = {"error": f"unreadable output, exit {code}: {out[:200]!r}"}
                    if code != 0 and not outcome.get("error"):
                        outcome["error"] = f"exit {code}: {err.strip()[-300:]}"
                    verdict = check(outcome, sha, pdf_size, store)
                    samples[side].append((seconds, rss, verdict))
                    print(f"  {side:6} run {run + 1}: {seconds:6.2f} s  {rss:7.1f} MB peak RSS  {verdict}")
                    subprocess.run(["rm", "-rf", store])
            for side, runs in samples.items():
                secs = statistics.median(s for s, _, _ in runs)
                rss = statistics.median(r for _, r, _ in runs)
                bad = [v for _, _, v in runs if v != "PASS"]
                failed |= side in ("python", "limit") and bool(bad)
                rows.append((side, variant, input_mb, secs, input_mb / secs, rss, bad[0] if bad else "PASS"))
            raw.unlink()

    print(f"\nMedian of {args.runs} run(s); MB = 10^6 bytes; times include process start-up. 'limit': read, decode,"
          f" hash, write and fsync the payload alone with C primitives (no JSON), the machine's floor for the same bytes."
          f" 'rust': `mcp-canvas-cli normalize FILE`; 'call': `mcp-canvas-cli call` of a stdio server that streams the"
          f" same result from the file.")
    print(f"{'impl':8}{'variant':12}{'input MB':>9}{'median s':>10}{'MB/s':>9}{'peak RSS MB':>13}  check")
    for side, variant, mb, secs, rate, rss, verdict in rows:
        print(f"{side:8}{variant:12}{mb:9.1f}{secs:10.2f}{rate:9.1f}{rss:13.1f}  {verdict}")
    by_key = {(r[0], r[1]): r for r in rows}
    for variant in args.variants.split(","):
        py, rs, limit = by_key.get(("python", variant)), by_key.get(("rust", variant)), by_key.get(("limit", variant))
        if py and rs:
            for side, how in (("call", "stdio"), ("http-json", "Streamable HTTP, one JSON body"), ("http-sse", "Streamable HTTP, one SSE event")):
                call = by_key.get((side, variant))
                if not call:
                    continue
                whose = "; the replay server's own is in it" if side == "call" else "; the server runs in the benchmark's process"
                print(f"Call over {how} [{variant}]: {call[3]:.2f} s (server start and handshake included), peak RSS "
                      f"{call[5]:.1f} MB ({call[5] / call[2]:.2f}x the input{whose})")
                if after_last[(side, variant)]:
                    tail = statistics.median(after_last[(side, variant)])
                    print(f"  from the server's last byte to the stored, acknowledged answer: {tail * 1000:.0f} ms "
                          f"= {tail / limit[3]:.2f}x the machine limit's whole run ({limit[3]:.2f} s)")
            print(f"Rust/Python [{variant}]: speed {rs[4] / py[4]:.2f}x (MB/s), peak RSS {rs[5] / py[5]:.2f}x; "
                  f"Rust time / machine limit {rs[3] / limit[3]:.2f}x; peak RSS / input {rs[5] / rs[2]:.2f}x")
    if rust_note:
        print(f"Rust side not measured: {rust_note}")
    print("\nCommands (first run of each; the data/out dir is a fresh temp dir per run):")
    for command in commands:
        print(f"  {command}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
