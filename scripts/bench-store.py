#!/usr/bin/env python3
"""Benchmark: ingesting base64 payloads into the artifact store, beside the shell pipeline
`base64 -d | tee FILE | sha256sum` (+ sync) over the same bytes, in the same run.

    python3 scripts/bench-store.py [--sizes 1,10,100] [--runs 3] [--cli PATH]

Each payload (an MCP image block holding base64 of N MB) goes through
`mcp-canvas-cli normalize` (parse, validate, stream-decode, hash, write, fsync, catalog row).
Wall time and the child's own peak RSS (os.wait4) are reported as medians. This is a benchmark,
not a test. The catalog side (queries at 100k rows) is `cargo bench -p mcp-canvas-store`.
"""
import argparse, base64, importlib.util, os, statistics, subprocess, sys, tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("bench_normalize", ROOT / "scripts" / "bench-normalize.py")
bench_normalize = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench_normalize)
measure, MB = bench_normalize.measure, bench_normalize.MB


def generate(size_mb, b64_file, result_file):
    encoded = base64.b64encode(b"\x89PNG\r\n\x1a\n" + os.urandom(size_mb * MB - 8))
    Path(b64_file).write_bytes(encoded)
    with open(result_file, "wb") as out:
        out.write(b'{"content": [{"type": "image", "mimeType": "image/png", "data": "')
        out.write(encoded)
        out.write(b'"}]}')


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--generate":
        return generate(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,10,100", help="payload sizes in MB (decoded)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cli", default=None)
    args = parser.parse_args()
    cli = Path(args.cli) if args.cli else next((p for p in (ROOT / "target/release/mcp-canvas-cli", ROOT / "target/debug/mcp-canvas-cli") if p.exists()), None)
    if cli is None:
        sys.exit("no mcp-canvas-cli: run `cargo build --release -p mcp-canvas-cli`")
    print(f"using {cli}{'  (debug build: numbers mean little)' if 'debug' in str(cli) else ''}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-store-") as tmp:
        for size in [int(s) for s in args.sizes.split(",")]:
            b64_file, result_file = Path(tmp, f"{size}.b64"), Path(tmp, f"{size}.json")
            # Generated in a child: a forked child's peak RSS counts the parent's pages until it
            # execs, so this process must stay small.
            subprocess.run([sys.executable, __file__, "--generate", str(size), str(b64_file), str(result_file)], check=True)
            sides = {
                "mcp-canvas ingest": lambda run: [str(cli), "--data-dir", str(Path(tmp, f"store-{size}-{run}")), "normalize", "--server", "bench", "--tool", "ingest", str(result_file), "--json"],
                "base64 -d | sha256sum": lambda run: ["sh", "-c", f"base64 -d {b64_file} | tee {tmp}/out-{size}-{run}.bin | sha256sum > {tmp}/hash-{size}-{run} && sync {tmp}/out-{size}-{run}.bin"],
            }
            for label, command in sides.items():
                times, rss = [], []
                for run in range(args.runs):
                    seconds, peak, code, _, err = measure(command(run), tmp)
                    if code != 0:
                        sys.exit(f"{label} failed: {err}")
                    times.append(seconds)
                    rss.append(peak)
                median = statistics.median(times)
                rows.append((label, size, median, size / median, statistics.median(rss)))
    print(f"\n{'what':<24} {'MB':>5} {'median s':>9} {'MB/s':>8} {'peak RSS MB':>12}")
    for label, size, seconds, speed, rss in rows:
        print(f"{label:<24} {size:>5} {seconds:>9.3f} {speed:>8.1f} {rss:>12.1f}")
    print("\nPeak RSS of the shell pipeline is the shell's own (its children are not included).")


if __name__ == "__main__":
    main()
