#!/usr/bin/env python3
"""Team store throughput against boto3 on the same S3 servers, measured in the same run:
moto (.deps/moto, `scripts/setup.sh --tests`; it checks no signatures and no checksums) and
s3s-fs (crates.io; it checks SigV4 and each part's checksum, stores on disk; installed into
.deps/s3s-fs by this script when missing), with a PostgreSQL of its own for the catalog.

For each server and run, one artifact of --size-mb random bytes:
  upload    `store migrate` of a data dir holding it (stored with the local backend first)
            against boto3 `upload_file` of the same bytes to the same bucket;
  download  `store pull ID` in a second member's fresh data dir (into the cache: streamed,
            sha256-checked, fsynced) against boto3 `download_file` of the same object.
Both are whole processes (start, catalog, bucket); each child's own peak RSS is os.wait4's.

Usage: scripts/bench-team-transfer.py [--size-mb 1024] [--runs 1] [--servers moto,s3s-fs] [--cli PATH]
(temp files in $TMPDIR: about 6x --size-mb)
"""
import argparse, importlib.util, json, os, shutil, signal, statistics, subprocess, sys, tempfile, time, urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("bench_team_store", ROOT / "scripts/bench-team-store.py")
common = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(common)  # PostgreSQL, moto, measuring, data dirs: shared with bench-team-store.py

MB = common.MB
S3S_FS_VERSION = "0.14.1"  # 0.17 needs a newer rustc
S3S_FS = ROOT / ".deps/s3s-fs/bin/s3s-fs"
KEY, SECRET = "testing", "testing"  # what common.env() hands every child
BOTO = """import boto3, sys
from botocore.config import Config
op, endpoint, key, path = sys.argv[1:]
s3 = boto3.client('s3', endpoint_url=endpoint, region_name='us-east-1', config=Config(s3={'addressing_style': 'path'}))
s3.download_file('team', key, path) if op == 'download_file' else s3.upload_file(path, 'team', key)
"""


def install_s3s_fs():
    if S3S_FS.exists():
        return
    print(f"installing s3s-fs {S3S_FS_VERSION} into .deps/s3s-fs (cargo install, a few minutes) ...", flush=True)
    subprocess.run(["cargo", "install", "--locked", "--quiet", f"s3s-fs@{S3S_FS_VERSION}", "--features", "binary", "--root", str(S3S_FS.parent.parent)], check=True)


def start_s3s_fs(tmp):
    data = tmp / "s3s-fs"
    (data / "team").mkdir(parents=True)  # a bucket is a directory
    port = common.free_port()
    child = subprocess.Popen([str(S3S_FS), "--host", "127.0.0.1", "--port", str(port), "--access-key", KEY, "--secret-key", SECRET, str(data)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    common.RUNNING.append((child, None))
    common.wait_port(port, "s3s-fs", child)
    return f"http://127.0.0.1:{port}", data / "team"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, default=1024)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--servers", default="moto,s3s-fs")
    ap.add_argument("--cli", type=Path, help="the mcp-canvas-cli to measure (default: target/release)")
    ns = ap.parse_args()
    cli = (ns.cli or ROOT / "target/release/mcp-canvas-cli").resolve()
    servers = [s for s in ns.servers.split(",") if s]
    if not cli.exists():
        sys.exit(f"{cli} is missing: cargo build --release -p mcp-canvas-cli")
    if "moto" in servers and not (common.MOTO / "moto_server").exists():
        sys.exit("moto is missing: scripts/setup.sh --tests")
    if "s3s-fs" in servers:
        install_s3s_fs()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tmp = Path(tempfile.mkdtemp(prefix="bench-transfer-"))
    common.TEMP.append(tmp)
    try:
        bench(ns, cli, servers, tmp)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
    finally:
        common.stop_all()
        for d in common.TEMP:
            shutil.rmtree(d, ignore_errors=True)


def bench(ns, cli, servers, tmp):
    (logs := tmp / "logs").mkdir()
    pg_port, admin = common.start_postgres(tmp)
    size, failures, rows = ns.size_mb * MB, [], {}

    def run(label, cmd, ok=True):
        seconds, rss, code, out, err = common.measure(cmd, logs)
        if code != 0:
            failures.append(f"{label}: exit {code}: {(err or out.strip())[-600:]}")
        elif ok:
            rows.setdefault(label, []).append((seconds, rss))
        return code, out

    def cmd(d, *args):
        return [str(cli), "--data-dir", str(d), *args]

    raw, big_json = tmp / "big.bin", tmp / "big.json"
    print(f"generating a {ns.size_mb} MiB artifact in {tmp} ...", flush=True)
    sha = common.write_result(big_json, "application/octet-stream", "big.bin", common.random_chunks(size, raw))
    pristine = common.member_dir(tmp, "local", "ada")
    if run("store (local backend)", cmd(pristine, "normalize", "--server", "bench", "--tool", "big", str(big_json), "--json"), ok=False)[0] != 0:
        sys.exit("\n".join(failures))
    big_json.unlink()
    python = str(common.MOTO / "python")
    for server in servers:
        if server == "moto":
            endpoint, on_disk = common.start_moto(), None
        elif server == "s3s-fs":
            endpoint, on_disk = start_s3s_fs(tmp)
        else:
            sys.exit(f"unknown server {server}: moto or s3s-fs")
        for r in range(ns.runs):
            db, prefix = f"canvas_{server.replace('-', '_')}_r{r}", f"canvas-r{r}"
            admin(f"CREATE DATABASE {db} OWNER canvas")
            team = (endpoint, pg_port, db, prefix)
            ada = tmp / f"ada-{server}{r}"
            shutil.copytree(pristine, ada)
            (ada / "settings.toml").write_text(common.settings("ada", team))
            print(f"{server} run {r + 1}/{ns.runs}: upload", flush=True)
            code, out = run(f"{server} up ours", cmd(ada, "store", "migrate", "--json"))
            if code == 0 and json.loads(out).get("uploaded") != 1:
                failures.append(f"{server}: store migrate uploaded {json.loads(out).get('uploaded')} objects, not 1: {out.strip()}")
            run(f"{server} up boto3", [python, "-c", BOTO, "upload_file", endpoint, f"baseline-r{r}/big.bin", str(raw)])
            bo = common.member_dir(tmp, f"bo-{server}{r}", "bo", team)
            code, out = run("store list", cmd(bo, "store", "list", "--json"), ok=False)
            ids = [a["record"]["id"] for a in json.loads(out) if a["record"].get("sha256") == sha] if code == 0 else []
            print(f"{server} run {r + 1}/{ns.runs}: download", flush=True)
            if ids:
                run(f"{server} down ours", cmd(bo, "store", "pull", ids[0], "--json"))
            else:
                failures.append(f"{server}: store list shows no artifact with sha256 {sha}: {out.strip()[:300]}")
            down = tmp / f"down{r}.bin"
            run(f"{server} down boto3", [python, "-c", BOTO, "download_file", endpoint, f"baseline-r{r}/big.bin", str(down)])
            if down.exists() and down.stat().st_size != size:
                failures.append(f"{server}: boto3 downloaded {down.stat().st_size} bytes, not {size}")
            down.unlink(missing_ok=True)
            for d in (ada, bo):
                shutil.rmtree(d, ignore_errors=True)
            for key in (f"{prefix}/blobs/{sha[:2]}/{sha}", f"baseline-r{r}/big.bin"):
                if on_disk is not None:
                    (on_disk / key).unlink(missing_ok=True)
                else:  # moto keeps objects in memory
                    try:
                        urllib.request.urlopen(urllib.request.Request(f"{endpoint}/team/{key}", method="DELETE")).read()
                    except OSError:
                        pass
        for child, pidfile in [x for x in common.RUNNING if x[1] is None]:  # this server only
            child.terminate()
            child.wait(20)
            common.RUNNING.remove((child, pidfile))

    def median(label):
        got = rows.get(label)
        return (statistics.median(x[0] for x in got), statistics.median(x[1] for x in got)) if got else None

    print(f"\nteam store transfer: {cli}; {ns.size_mb} MiB, {ns.runs} run(s), medians; MB = MiB; peak = that process's own peak RSS")
    print(f"{'server':<8} {'way':<5} {'ours':<30} {'boto3':<30} ours/boto3")
    for server in servers:
        for way in ("up", "down"):
            ours, boto = median(f"{server} {way} ours"), median(f"{server} {way} boto3")
            cell = lambda m: f"{m[0]:6.2f} s {ns.size_mb / m[0]:5.0f} MB/s peak {m[1]:4.0f} MB" if m else "failed"
            ratio = f"{boto[0] / ours[0]:.2f}x" if ours and boto else "-"
            print(f"{server:<8} {way:<5} {cell(ours):<30} {cell(boto):<30} {ratio}")
    if failures:
        print("\ndid not work:")
        for f in dict.fromkeys(failures):
            print(f"  - {f}")
        sys.exit(1)


if __name__ == "__main__":
    main()
