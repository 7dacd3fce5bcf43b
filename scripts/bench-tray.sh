#!/usr/bin/env bash
# The tray app at rest (the last part of make bench): the desktop mcptray,
# its window closed and living in the tray, against a Fyne hello world with
# a tray (bench/cmd/trayhello), measured by bench/cmd/trayidle under Xvfb in
# a private D-Bus session whose tray host is tests/sniwatcher (as in part b
# of scripts/smoke.sh), with a throw-away HOME: context switches and CPU per
# second, both over the same window (target: no more than the hello world,
# within a tolerance; see bench.TrayIdleFactor) and RSS, with PASS/FAIL.
#
#   scripts/bench-tray.sh
#
# Settings: BENCH_TRAY_WINDOW [20s]  BENCH_TRAY_SETTLE [5s]
#   BENCH_TRAY_SERVE [1] (0: skip measuring `mcptray serve` alone)
#   BENCH_STRICT [0] (1: exit 1 on FAIL)
# Needs xvfb-run, dbus-run-session and xdotool (make smoke installs them);
# when one is missing it says so and exits 0, so make bench does not fail.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ -z ${BENCH_TRAY_INNER:-} ]]; then
  missing=()
  for tool in xvfb-run dbus-run-session xdotool; do
    command -v "$tool" >/dev/null || missing+=("$tool")
  done
  if ((${#missing[@]})); then
    echo "==> tray app at rest: SKIPPED, ${missing[*]} missing (apt-get install xvfb dbus xdotool, or make smoke's deps)"
    exit 0
  fi
  GO="${GO:-go}"
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/benchtray.XXXXXX")
  trap 'rm -rf "$tmp" 2>/dev/null || true' EXIT
  echo "==> building the desktop mcptray, bench/cmd/trayhello, bench/cmd/trayidle, tests/sniwatcher"
  # mcptray as make builds it (its GUI tags); the hello world as Fyne
  # builds by default.
  gui_tags=$(bash -c '. scripts/release-lib.sh && echo "$GUI_TAGS"')
  CGO_ENABLED=1 "$GO" build -tags "$gui_tags" -o "$tmp/mcptray" .
  CGO_ENABLED=1 "$GO" build -o "$tmp/trayhello" ./bench/cmd/trayhello
  "$GO" build -o "$tmp/trayidle" ./bench/cmd/trayidle
  "$GO" build -o "$tmp/sniwatcher" ./tests/sniwatcher
  # A throw-away home: a new database and Fyne preferences, and nothing the
  # session bus activates (the keyring) touches the real ones.
  export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/config XDG_DATA_HOME=$tmp/home/data XDG_CACHE_HOME=$tmp/home/cache
  mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME"
  export BENCH_TRAY_INNER=$tmp LANG=${LANG:-C.UTF-8}
  unset XDG_CURRENT_DESKTOP XDG_SESSION_TYPE WAYLAND_DISPLAY
  xvfb-run -a -s "-screen 0 1366x768x24 -nolisten tcp" dbus-run-session -- bash "$0" 2> >(grep -v '^dbus-daemon' >&2)
  exit
fi

tmp=$BENCH_TRAY_INNER
watcher=
trap '[[ -n $watcher ]] && kill "$watcher" 2>/dev/null && wait "$watcher" 2>/dev/null; true' EXIT
"$tmp/sniwatcher" >"$tmp/sniwatcher.log" 2>&1 &
watcher=$!
for _ in $(seq 50); do grep -q '^ready' "$tmp/sniwatcher.log" && break; sleep 0.1; done
grep -q '^ready' "$tmp/sniwatcher.log" || {
  echo "bench-tray: the tray host stand-in did not start: $(cat "$tmp/sniwatcher.log")" >&2
  exit 1
}
serve=true
[[ ${BENCH_TRAY_SERVE:-1} == 0 ]] && serve=false
"$tmp/trayidle" -mcptray "$tmp/mcptray" -hello "$tmp/trayhello" -serve="$serve" \
  -window "${BENCH_TRAY_WINDOW:-20s}" -settle "${BENCH_TRAY_SETTLE:-5s}" ${BENCH_TRAY_KEEP:+-keep}
n=$(grep -c RegisterStatusNotifierItem "$tmp/sniwatcher.log" || true)
((n >= 2)) || echo "bench-tray: warning: only $n tray icon(s) registered with the tray host (2 expected)" >&2
