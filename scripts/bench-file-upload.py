#!/usr/bin/env python3
"""A large file to a tool out of band (SEP-2631 upload), against curl uploading the same file to
the same endpoint, in the same run: the reference server (tests/fault_servers/file_transfer_server.py)
times each upload it receives (from its request line to its last byte), so both are measured at
the same place. Also the peak memory of the `mcp-canvas-cli call` process (its VmHWM, read while
it runs; the Python server it starts is not counted).

    python3 scripts/bench-file-upload.py [--mb 200] [--runs 3]     # needs a built target/release (or debug) CLI and curl
"""
import argparse, base64, hashlib, json, os, re, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.path.join(ROOT, "tests/fault_servers/file_transfer_server.py")


def cli_binary():
    for profile in ("release", "debug"):
        path = os.path.join(ROOT, "target", profile, "mcp-canvas-cli")
        if os.path.exists(path):
            return path, profile
    sys.exit("build the CLI first: cargo build --release -p mcp-canvas-cli")


def upload_seconds(log_text):
    return [float(m) for m in re.findall(r"uploaded .*? in ([0-9.]+) s", log_text)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    cli, profile = cli_binary()
    work = tempfile.mkdtemp(prefix="bench-upload-")
    data = os.path.join(work, "data")
    os.makedirs(data)
    with open(os.path.join(data, "servers.json"), "w") as f:
        json.dump({"mcpServers": {"files": {"command": "python3", "args": [SERVER]}}}, f)
    path = os.path.join(work, "big.bin")
    with open(path, "wb") as f:
        f.write(os.urandom(args.mb << 20))
    digest = hashlib.sha256(open(path, "rb").read()).digest()

    # Ours: the file stored once, then sent by reference (each run: CLI start, handshake, authorize, upload, the tool's answer).
    stored = subprocess.run([cli, "--data-dir", data, "call", "files", "checksum", "--file", f"file={path}", "--json"], capture_output=True, text=True, check=True)
    reference = re.search(r"stored .* as (\S+)", stored.stderr).group(1)
    ours, peak = [], 0
    for _ in range(args.runs):
        run = subprocess.Popen([cli, "--data-dir", data, "call", "files", "checksum", "--file", f"file={reference}", "--json"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        while run.poll() is None:
            try:
                status = open(f"/proc/{run.pid}/status").read()
                peak = max(peak, int(re.search(r"VmHWM:\s+(\d+)", status).group(1)))
            except (OSError, AttributeError):
                pass
            time.sleep(0.005)
        assert run.returncode == 0, run.stderr.read()
    log = "".join(open(os.path.join(data, "logs", name), errors="replace").read() for name in os.listdir(os.path.join(data, "logs")) if name.startswith("files"))
    ours = upload_seconds(log)[-args.runs:]

    # Baseline: the same server, authorized over raw JSON-RPC, the file sent by `curl -T`.
    server = subprocess.Popen(["python3", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    def request(i, method, params):
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
        server.stdin.flush()
        return json.loads(server.stdout.readline())
    request(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
    curl = []
    for i in range(args.runs):
        value = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
        answer = request(i + 1, "files/authorizeUpload", {"name": "big.bin", "mimeType": "application/octet-stream", "size": args.mb << 20, "digest": {"algorithm": "sha-256", "value": value}})
        url = answer["result"]["upload"]["url"]
        subprocess.run(["curl", "-sS", "-f", "-T", path, "-H", "Content-Type: application/octet-stream", url, "-o", "/dev/null"], check=True)
    server.stdin.close()
    curl = upload_seconds(server.stderr.read())
    server.wait()

    median = lambda v: sorted(v)[len(v) // 2]
    mb = args.mb
    o, c = median(ours), median(curl)
    print(f"{mb} MB out of band to the reference server's upload URL, median of {args.runs} ({profile} CLI):")
    print(f"  mcp-canvas-cli call … --file (streamed from the store): {o:.2f} s = {mb / o:.0f} MB/s")
    print(f"  baseline: curl -T of the same file to the same endpoint: {c:.2f} s = {mb / c:.0f} MB/s")
    print(f"  throughput ours / curl: {c / o:.2f}× (target ≥ 0.9×); peak RSS of mcp-canvas-cli: {peak / 1024:.0f} MB (target ≤ 64 MB)")


if __name__ == "__main__":
    main()
