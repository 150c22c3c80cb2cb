#!/usr/bin/env bash
# A very large answer (default 1000 MB) to a call made from the window, with the window open:
# the page's round-trip time meanwhile against the idle window's, the peak memory of every process,
# pages swapped out, and the same call by `mcp-canvas-cli call` as the baseline of the same run.
# Usage: scripts/bench-big-call.sh [--mb N] [--debug]
exec "$(dirname "$0")/bench-window.sh" bench_big_call "$@"
