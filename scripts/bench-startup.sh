#!/usr/bin/env bash
# Cold start to a painted window with the demo server connected (release build, Xvfb), and the
# idle memory of every process after it, against
# the same work without a window (`mcp-canvas-cli tools demo`) as the baseline of the same run.
# Usage: scripts/bench-startup.sh [--runs N] [--debug]
exec "$(dirname "$0")/bench-window.sh" bench_startup "$@"
