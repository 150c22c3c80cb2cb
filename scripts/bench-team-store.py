#!/usr/bin/env python3
"""The team store (bytes in an S3-compatible bucket, catalog in PostgreSQL) against baselines
measured in the same run, on the same servers: moto (from .deps/moto, `scripts/setup.sh
--tests`) and a PostgreSQL of its own (Debian's initdb + postgres, as user postgres when root).

  1. upload: `store migrate` of a data dir holding one big artifact (stored with the local
     backend first), against boto3 `upload_file` of the same bytes to the same bucket;
  2. download: `store pull ID --out FILE` in a second member's fresh data dir, against boto3
     `download_file` of the same object;
  3. a teammate's big PDF, page 1: `preview` in a fresh member's data dir (read by HTTP range
     requests, the file not fetched; the bytes it read are reported), then after `store pull`
     (cached), against the same `preview` in the data dir that stored it (local).

Wall time and each child's own peak RSS (os.wait4) are reported as medians over --runs; each
run has its own catalog database and bucket prefix, so nothing is "already there".

Usage: scripts/bench-team-store.py [--runs 1] [--size-mb 1024] [--pdf-mb 100] [--width 800] [--only pdf|transfer]
(temp files in $TMPDIR: about 6x --size-mb plus 5x --pdf-mb, removed on exit)
"""
import argparse, base64, contextlib, hashlib, json, os, shutil, signal, socket, statistics, subprocess, sys, tempfile, time, urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MOTO = ROOT / ".deps/moto/venv/bin"
MB = 1 << 20
PASSWORD = "team-secret-7f3a"
IS_ROOT = os.geteuid() == 0
RUNNING = []  # children to stop on the way out: (Popen, postmaster.pid or None)
LAST_STDERR = [""]  # the last measured command's stderr
TEMP = []  # directories to remove on the way out
BOTO = """import boto3, sys
op, endpoint, key, path = sys.argv[1:]
s3 = boto3.client('s3', endpoint_url=endpoint, region_name='us-east-1')
getattr(s3, op)('team', key, path) if op == 'download_file' else s3.upload_file(path, 'team', key)
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, what, child):
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return
        except OSError:
            if child.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"{what} did not listen on {port} (exit {child.poll()})")
            time.sleep(0.1)


def as_postgres(cmd):
    return ["runuser", "-u", "postgres", "--", *cmd] if IS_ROOT else cmd


def start_postgres(tmp):
    bins = sorted(p for p in Path("/usr/lib/postgresql").glob("*/bin") if (p / "initdb").is_file())
    if not bins:
        sys.exit("PostgreSQL is not installed: run `scripts/setup.sh --tests`")
    # a directory of its own (the bench's is root's, 0700): the postgres user must reach it
    bin_dir, pg_dir = bins[-1], Path(tempfile.mkdtemp(prefix="pg-", dir=tmp.parent))
    TEMP.append(pg_dir)
    (pg_dir / "pw").write_text("admin-secret\n")
    if IS_ROOT:
        subprocess.run(["chown", "-R", "postgres", str(pg_dir)], check=True)
    init = subprocess.run(as_postgres([str(bin_dir / "initdb"), "-D", str(pg_dir / "data"), "-A", "scram-sha-256", "-U", "admin", "--no-sync", "-E", "UTF8", f"--pwfile={pg_dir / 'pw'}"]), capture_output=True, text=True)
    if init.returncode != 0:
        sys.exit(f"initdb failed: {init.stderr.strip()}")
    port = free_port()
    child = subprocess.Popen(as_postgres([str(bin_dir / "postgres"), "-D", str(pg_dir / "data"), "-p", str(port), "-k", str(pg_dir), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"]),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    RUNNING.append((child, pg_dir / "data/postmaster.pid"))
    wait_port(port, "postgres", child)

    def admin(sql, db="postgres"):
        subprocess.run([str(bin_dir / "psql"), "-h", "127.0.0.1", "-p", str(port), "-U", "admin", "-d", db, "-v", "ON_ERROR_STOP=1", "-tAq", "-c", sql],
                       env={**os.environ, "PGPASSWORD": "admin-secret"}, check=True, stdout=subprocess.DEVNULL)
    admin(f"CREATE ROLE canvas LOGIN PASSWORD '{PASSWORD}'")
    return port, admin


def start_moto():
    port = free_port()
    child = subprocess.Popen([str(MOTO / "moto_server"), "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    RUNNING.append((child, None))
    wait_port(port, "moto_server", child)
    endpoint = f"http://127.0.0.1:{port}"
    urllib.request.urlopen(urllib.request.Request(f"{endpoint}/team", method="PUT")).read()
    return endpoint


def stop_all():
    for child, pidfile in reversed(RUNNING):
        if child.poll() is None:
            try:  # the postmaster itself (runuser does not pass signals on): fast shutdown
                pid = int(pidfile.read_text().split()[0]) if pidfile else child.pid
                os.kill(pid, signal.SIGINT if pidfile else signal.SIGTERM)
                child.wait(20)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                child.kill()
                child.wait()
    RUNNING.clear()


def env():
    e = {k: v for k, v in os.environ.items() if k not in ("MCP_CANVAS_DATA_DIR", "PGPASSWORD", "AWS_PROFILE")}
    return {**e, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent", "MCP_CANVAS_CATALOG_PASSWORD": PASSWORD}


def measure(cmd, logs):
    """Runs cmd; returns (seconds, peak RSS MB of that child, exit code, stdout, stderr)."""
    out, err = logs / "stdout", logs / "stderr"
    with open(out, "wb") as o, open(err, "wb") as e:
        start = time.perf_counter()
        child = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=o, stderr=e, env=env(), cwd=ROOT)
        RUNNING.append((child, None))
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        RUNNING.remove((child, None))
    return seconds, usage.ru_maxrss * 1024 / MB, child.returncode, out.read_text(errors="replace"), err.read_text(errors="replace").strip()


def settings(member, team=None):
    text = f'[identity]\nusername = "{member}"\n'
    if team:
        endpoint, port, db, prefix = team
        text += (f'\n[store]\nbackend = "team"\ns3_url = "s3://team/{prefix}"\ns3_endpoint = "{endpoint}"\ns3_region = "us-east-1"\n'
                 f'catalog_url = "postgres://canvas@127.0.0.1:{port}/{db}"\nteam = "t"\n')
    return text


def member_dir(tmp, name, member, team=None):
    d = tmp / name
    d.mkdir()
    (d / "settings.toml").write_text(settings(member, team))
    return d


def write_result(path, mime, name, chunks):
    """Writes a CallToolResult embedding the bytes of `chunks` as base64, streaming; returns
    their sha256."""
    sha, carry = hashlib.sha256(), b""
    with open(path, "wb") as out:
        out.write(json.dumps({"content": [{"type": "resource", "resource": {"uri": f"file:///{name}", "mimeType": mime, "blob": "@"}}]}).encode().split(b"@")[0])
        for chunk in chunks:
            sha.update(chunk)
            data = carry + chunk
            cut = len(data) // 3 * 3
            out.write(base64.b64encode(data[:cut]))
            carry = data[cut:]
        out.write(base64.b64encode(carry) + b'"}}]}')
    return sha.hexdigest()


def random_chunks(size, raw_path):
    with open(raw_path, "wb") as raw:
        for i in range(0, size, 3 * MB):
            raw.write(chunk := os.urandom(min(3 * MB, size - i)))
            yield chunk


def pdf_chunks(size):
    """A valid PDF of about `size` bytes: 3 pages of text, the last also showing a big
    noise image (raw RGB, incompressible) that page 1 never touches."""
    width, offsets, pages = 2048, [], 3
    img_len = max(width * 3, size // (width * 3) * width * 3)
    objs = {1: b"<< /Type /Catalog /Pages 2 0 R >>", 3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            2: ("<< /Type /Pages /Count %d /Kids [%s] >>" % (pages, " ".join(f"{5 + 2 * p} 0 R" for p in range(pages)))).encode()}
    for p in range(pages):
        text = "".join(f"BT /F1 14 Tf 72 {700 - 20 * i} Td (Page {p + 1}, line {i + 1}: team store benchmark report) Tj ET\n" for i in range(20))
        if p == pages - 1:
            text += "q 468 0 0 300 72 72 cm /Im0 Do Q\n"
        objs[5 + 2 * p] = f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {6 + 2 * p} 0 R /Resources << /Font << /F1 3 0 R >> /XObject << /Im0 4 0 R >> >> >>".encode()
        objs[6 + 2 * p] = b"<< /Length %d >>\nstream\n%s\nendstream" % (len(text), text.encode())
    yield (head := b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    pos = len(head)
    for n in sorted(set(objs) | {4}):
        offsets.append(pos)
        if n == 4:  # the image, streamed
            yield (part := b"4 0 obj\n<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 /Length %d >>\nstream\n" % (width, img_len // (width * 3), img_len))
            pos += len(part)
            for i in range(0, img_len, 3 * MB):
                yield os.urandom(min(3 * MB, img_len - i))
            pos += img_len
            part = b"\nendstream\nendobj\n"
        else:
            part = b"%d 0 obj\n%s\nendobj\n" % (n, objs[n])
        yield part
        pos += len(part)
    xref = b"xref\n0 %d\n0000000000 65535 f \n%s" % (len(offsets) + 1, b"".join(b"%010d 00000 n \n" % o for o in offsets))
    yield xref + b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%EOF\n" % (len(offsets) + 1, pos)


def transfer_run(ns, r, tmp, team, pristine, run, cmd, sha, size, failures, endpoint, prefix):
    raw = tmp / "big.bin"
    ada = tmp / f"ada{r}"
    shutil.copytree(pristine, ada)
    (ada / "settings.toml").write_text(settings("ada", team))
    print(f"run {r + 1}/{ns.runs}: upload", flush=True)
    code, out = run("upload: store migrate", cmd(ada, "store", "migrate", "--json"))
    if code == 0 and json.loads(out).get("uploaded") != 1:
        failures.append(f"store migrate uploaded {json.loads(out).get('uploaded')} objects, not 1: {out.strip()}")
    run("upload: boto3 upload_file", [str(MOTO / "python"), "-c", BOTO, "upload_file", endpoint, f"baseline-r{r}/big.bin", str(raw)])
    bo = member_dir(tmp, f"bo{r}", "bo", team)
    code, out = run("team list", cmd(bo, "store", "list", "--json"), ok=False)
    ids = [a["record"]["id"] for a in json.loads(out) if a["record"].get("sha256", sha) == sha] if code == 0 else []
    print(f"run {r + 1}/{ns.runs}: download", flush=True)
    if ids:
        pulled = tmp / f"pulled{r}.bin"
        if run("download: store pull --out", cmd(bo, "store", "pull", ids[0], "--out", str(pulled)))[0] == 0 and pulled.stat().st_size != size:
            failures.append(f"store pull wrote {pulled.stat().st_size} bytes, not {size}")
        pulled.unlink(missing_ok=True)
    else:
        failures.append(f"store list shows no artifact with sha256 {sha}: {out.strip()[:300]}")
    down = tmp / f"down{r}.bin"
    run("download: boto3 download_file", [str(MOTO / "python"), "-c", BOTO, "download_file", endpoint, f"baseline-r{r}/big.bin", str(down)])
    down.unlink(missing_ok=True)
    for d in (ada, bo):
        shutil.rmtree(d, ignore_errors=True)
    for key in (f"{prefix}/blobs/{sha[:2]}/{sha}", f"baseline-r{r}/big.bin"):  # moto keeps objects in memory
        with contextlib.suppress(OSError):
            urllib.request.urlopen(urllib.request.Request(f"{endpoint}/team/{key}", method="DELETE")).read()


def pdf_run(ns, r, tmp, team, run, cmd, failures, read_bytes):
    pdf_json = tmp / "report.json"
    print(f"run {r + 1}/{ns.runs}: PDF page 1", flush=True)
    pa, pb = member_dir(tmp, f"pa{r}", "ada", team), member_dir(tmp, f"pb{r}", "bo", team)
    code, out = run("A stores the PDF (normalize + upload)", cmd(pa, "normalize", "--server", "reports", "--tool", "render", str(pdf_json), "--json"))
    arts = json.loads(out).get("artifacts") or [] if code == 0 else []
    if not arts:
        failures.append(f"storing the PDF gave no artifact: {out.strip()[:300]}")
        return
    pid, png = arts[0]["id"], tmp / "page.png"
    preview = lambda d: cmd(d, "preview", pid, "--page", "1", "--width", str(ns.width), "--out", str(png))
    if run("page 1: preview, file local in A", preview(pa))[0] == 0 and not png.read_bytes().startswith(b"\x89PNG"):
        failures.append("preview in A wrote no PNG")
    if run("page 1: preview in B (range reads)", preview(pb))[0] == 0:
        read_bytes.append(LAST_STDERR[0])
    run("B: store pull (fetch into cache)", cmd(pb, "store", "pull", pid))
    run("page 1: preview in B again (cached)", preview(pb))
    for d in (pa, pb):
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--size-mb", type=int, default=1024, help="the upload/download artifact (MiB)")
    ap.add_argument("--pdf-mb", type=int, default=100, help="the teammate's PDF (MiB)")
    ap.add_argument("--width", type=int, default=800)
    ap.add_argument("--only", choices=["pdf", "transfer"], help="run one part only")
    ap.add_argument("--cli", type=Path, help="the mcp-canvas-cli to measure (default: target/release, else target/debug)")
    ns = ap.parse_args()
    cli = ns.cli.resolve() if ns.cli else next((p for p in (ROOT / "target/release/mcp-canvas-cli", ROOT / "target/debug/mcp-canvas-cli") if p.exists()), None)
    if cli is None or not (MOTO / "moto_server").exists():
        sys.exit("needs target/*/mcp-canvas-cli and moto in .deps/moto (scripts/setup.sh --tests)")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tmp = Path(tempfile.mkdtemp(prefix="bench-team-"))
    TEMP.append(tmp)
    try:
        bench(ns, cli, tmp)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
    finally:
        stop_all()
        for d in TEMP:
            shutil.rmtree(d, ignore_errors=True)


def bench(ns, cli, tmp):
    (logs := tmp / "logs").mkdir()
    pg_port, admin = start_postgres(tmp)
    endpoint = start_moto()
    size, failures, rows, read_bytes = ns.size_mb * MB, [], {}, []

    def run(label, cmd, ok=True):
        seconds, rss, code, out, err = measure(cmd, logs)
        LAST_STDERR[0] = err
        if code != 0:
            failures.append(f"{label}: exit {code}: {err or out.strip()}")
        elif ok:
            rows.setdefault(label, []).append((seconds, rss))
        return code, out

    def cmd(d, *args):
        return [str(cli), "--data-dir", str(d), *args]

    raw, big_json, pdf_json = tmp / "big.bin", tmp / "big.json", tmp / "report.json"
    print(f"generating {ns.size_mb} MiB artifact and {ns.pdf_mb} MiB PDF in {tmp} ...", flush=True)
    transfer, pdf = ns.only != "pdf", ns.only != "transfer"
    sha = write_result(big_json, "application/octet-stream", "big.bin", random_chunks(size, raw)) if transfer else None
    if pdf:
        write_result(pdf_json, "application/pdf", "report.pdf", pdf_chunks(ns.pdf_mb * MB))
    # The big artifact stored once with the local backend; each run migrates a copy of that dir.
    pristine = member_dir(tmp, "local", "ada")
    if transfer and run("store (local backend)", cmd(pristine, "normalize", "--server", "bench", "--tool", "big", str(big_json), "--json"), ok=False)[0] != 0:
        sys.exit("\n".join(failures))
    for r in range(ns.runs):
        db, prefix = f"canvas_r{r}", f"canvas-r{r}"
        admin(f"CREATE DATABASE {db} OWNER canvas")
        team = (endpoint, pg_port, db, prefix)
        if transfer:
            transfer_run(ns, r, tmp, team, pristine, run, cmd, sha, size, failures, endpoint, prefix)
        if pdf:
            pdf_run(ns, r, tmp, team, run, cmd, failures, read_bytes)

    run("python + import boto3", [str(MOTO / "python"), "-c", "import boto3; boto3.client('s3', region_name='us-east-1')"])

    def cell(label, mb=None):
        got = rows.get(label)
        if not got:
            return "failed"
        s, rss = (statistics.median(x[k] for x in got) for k in (0, 1))
        return f"{s:.2f} s" + (f", {mb / s:.0f} MB/s" if mb else "") + f", peak {rss:.0f} MB"

    debug = "  (debug build: numbers mean little)" if "debug" in str(cli) else ""
    print(f"\nteam store benchmark: {cli}{debug}; {ns.runs} run(s), medians; moto + PostgreSQL on this machine")
    print("MB = MiB; peak = that process's own peak RSS (os.wait4)\n")
    local = cell("page 1: preview, file local in A")
    table = [("what", "ours", "baseline", ""), (f"upload {ns.size_mb} MiB", cell("upload: store migrate", ns.size_mb), "boto3 upload_file", cell("upload: boto3 upload_file", ns.size_mb)),
             (f"download {ns.size_mb} MiB", cell("download: store pull --out", ns.size_mb), "boto3 download_file", cell("download: boto3 download_file", ns.size_mb)),
             (f"{ns.pdf_mb} MiB PDF p.1, B by ranges", cell("page 1: preview in B (range reads)"), "preview in A (local)", local),
             (f"{ns.pdf_mb} MiB PDF p.1, B cached", cell("page 1: preview in B again (cached)"), "preview in A (local)", local),
             (f"A stores the {ns.pdf_mb} MiB PDF", cell("A stores the PDF (normalize + upload)", ns.pdf_mb), "-", "")]
    table.append(("B store pull of the PDF", cell("B: store pull (fetch into cache)", ns.pdf_mb), "-", ""))
    table = [row for row in table if ns.only != "pdf" or "PDF" in row[0]]
    table = [row for row in table if ns.only != "transfer" or "PDF" not in row[0]]
    for row in table:
        print(f"{row[0]:<28} {row[1]:<34} {row[2]:<21} {row[3]}".rstrip())
    print(f"\nboto3's peak includes its interpreter: python + import boto3 alone is {cell('python + import boto3')}")
    for line in read_bytes:
        print(f"B's page 1 by ranges: {line.strip()}")
    if failures:
        print("\ndid not work:")
        for f in dict.fromkeys(failures):
            print(f"  - {f}")

if __name__ == "__main__":
    main()
