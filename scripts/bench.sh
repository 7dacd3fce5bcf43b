#!/usr/bin/env bash
# make bench: tools/call throughput and p50/p99 latency of mcptray's MCP
# endpoint versus a bare go-sdk server with the same tool, over HTTP on
# 127.0.0.1, in both eras and with 1 and 8 concurrent clients; then the same
# calls replayed in-process (server cost only). See bench/cmd/mcpbench.
#
# Settings (environment; defaults in brackets):
#   BENCH_DURATION [3s]  BENCH_WARMUP [500ms]  BENCH_ROUNDS [3]
#   BENCH_CONC [1,8]  BENCH_ERAS [2026-07-28,2025-11-25]
#   BENCH_SERVERS [bare,ours,ours-noauth]  BENCH_TARGET [0.10]
#   BENCH_REPLAY [1]  BENCH_REPLAY_DURATION [1s]
#   BENCH_PROFILE_DIR (unset: no profiles; set: DIR/<server>.pprof per server process)
#   BENCH_STRICT [0]  (1: exit 1 when a configuration misses the target)
# Example, quick: BENCH_DURATION=1s BENCH_ROUNDS=1 scripts/bench.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

GO="${GO:-go}"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/mcpbench-build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

echo "==> building bench/cmd/mcpbench"
CGO_ENABLED=1 "$GO" build -o "$tmp/mcpbench" ./bench/cmd/mcpbench
echo "==> running (HTTP load, then server-only replay)"
"$tmp/mcpbench"
