#!/usr/bin/env bash
# make bench: tools/call throughput and p50/p99 latency of mcptray's MCP
# endpoint versus a bare go-sdk server with the same tool, over HTTP on
# 127.0.0.1, in both eras and with 1 and 8 concurrent clients; then the same
# calls replayed in-process (server cost only); first, an idle `mcptray serve`
# (context switches and CPU per second), a 10k-tool catalog (import, start,
# first tools/list page, memory), the memory after listing 10,000 tools of a
# server mcptray fronts, `mcptray import-openapi` of a
# 10,000-operation spec (time, peak RSS) and a command printing its whole
# output cap (the server's peak live heap during the call). See
# bench/cmd/mcpbench. Last, the desktop app at rest in the tray against a
# Fyne hello world with a tray (scripts/bench-tray.sh; needs xvfb-run,
# dbus-run-session and xdotool, else it is skipped with a note).
#
# Settings (environment; defaults in brackets; `mcpbench -h` has the full list):
#   BENCH_DURATION [3s] per server, configuration and round
#   BENCH_WARMUP [500ms]  BENCH_SLICE [250ms] (servers take turns in slices)
#   BENCH_ROUNDS [3]  BENCH_CONC [1,8]  BENCH_ERAS [2026-07-28,2025-11-25]
#   BENCH_SERVERS [bare,ours,ours-noauth] (also: ours-quietlog)
#   BENCH_TARGET [0.10]  BENCH_HTTP [1]  BENCH_REPLAY [1]  BENCH_REPLAY_DURATION [1s]
#   BENCH_PROFILE_DIR (set: each server process writes DIR/<server>.pprof)
#   BENCH_STRICT [0] (1: exit 1 when a configuration misses the target)
#   BENCH_MCPTRAY_BIN [a headless mcptray built here; empty: skip idle, 10k tools and the import]
#   BENCH_IDLE_WINDOW [30s]  BENCH_BIG [1]  BENCH_BIG_UPSTREAM [1]  BENCH_IMPORT [1]  BENCH_CALLMEM [1]
#   BENCH_TRAY [1] (0: skip the tray app at rest)  BENCH_TRAY_WINDOW [20s]  BENCH_TRAY_SETTLE [5s]
# Quick: BENCH_DURATION=1s BENCH_ROUNDS=1 scripts/bench.sh  (default run: ~3 min)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

GO="${GO:-go}"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/mcpbench-build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

echo "==> building bench/cmd/mcpbench, mcptray (headless: idle, 10k-tool and OpenAPI import figures), bench/baseline"
CGO_ENABLED=1 "$GO" build -o "$tmp/mcpbench" ./bench/cmd/mcpbench
CGO_ENABLED=1 "$GO" build -tags headless -o "$tmp/mcptray" .
export BENCH_MCPTRAY_BIN="${BENCH_MCPTRAY_BIN-$tmp/mcptray}"
CGO_ENABLED=0 "$GO" build -o "$tmp/mcptray-stdio" ./cmd/mcptray-stdio
export BENCH_SHIM_BIN="${BENCH_SHIM_BIN-$tmp/mcptray-stdio}"
# The bare go-sdk server of the HTTP load: its own module, so unpatched go-sdk.
(cd bench/baseline && CGO_ENABLED=0 "$GO" build -o "$tmp/baseline" .)
export BENCH_BASELINE_BIN="${BENCH_BASELINE_BIN-$tmp/baseline}"
echo "==> running (idle serve, 10k tools, OpenAPI import, HTTP load, then server-only replay)"
"$tmp/mcpbench"
if [[ ${BENCH_TRAY:-1} != 0 ]]; then
  GO=$GO scripts/bench-tray.sh
else
  echo "==> tray app at rest: skipped (BENCH_TRAY=0)"
fi
