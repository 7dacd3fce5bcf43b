#!/usr/bin/env bash
# make bench: tools/call throughput and p50/p99 latency of mcptray's MCP
# endpoint versus a bare go-sdk server with the same tool, over HTTP on
# 127.0.0.1, in both eras and with 1 and 8 concurrent clients; then the same
# calls replayed in-process (server cost only). See bench/cmd/mcpbench.
#
# Settings (environment; defaults in brackets; `mcpbench -h` has the full list):
#   BENCH_DURATION [3s] per server, configuration and round
#   BENCH_WARMUP [500ms]  BENCH_SLICE [250ms] (servers take turns in slices)
#   BENCH_ROUNDS [3]  BENCH_CONC [1,8]  BENCH_ERAS [2026-07-28,2025-11-25]
#   BENCH_SERVERS [bare,ours,ours-noauth] (also: ours-quietlog)
#   BENCH_TARGET [0.10]  BENCH_HTTP [1]  BENCH_REPLAY [1]  BENCH_REPLAY_DURATION [1s]
#   BENCH_PROFILE_DIR (set: each server process writes DIR/<server>.pprof)
#   BENCH_STRICT [0] (1: exit 1 when a configuration misses the target)
# Quick: BENCH_DURATION=1s BENCH_ROUNDS=1 scripts/bench.sh  (default run: ~3 min)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

GO="${GO:-go}"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/mcpbench-build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

echo "==> building bench/cmd/mcpbench"
CGO_ENABLED=1 "$GO" build -o "$tmp/mcpbench" ./bench/cmd/mcpbench
echo "==> running (HTTP load, then server-only replay)"
"$tmp/mcpbench"
