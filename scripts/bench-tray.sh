#!/usr/bin/env bash
# The desktop app at rest, and its questions (the last part of make bench):
# under Xvfb, in a private D-Bus session, with a throw-away HOME.
#  1. bench/cmd/trayidle: the serving process of the desktop mcptray, its
#     window opened once and closed, at rest in the tray, beside a Fyne hello
#     world with a tray (bench/cmd/trayhello): context switches and CPU per
#     second, RSS and its private part, with PASS/FAIL against the targets
#     (bench.TrayVerdicts); once with each tray host: tests/sniwatcher (a
#     stand-in watcher) and gtk-sni-tray-standalone (a real host drawing the
#     icon and its menu; skipped with a note where it is not installed).
#  2. bench/cmd/asktime: the time from an AI app's call to its approval's
#     window shown, with no window process before (median of 10), and the
#     wait for an answer when the window process is killed meanwhile.
#
#   scripts/bench-tray.sh
#
# Settings: BENCH_TRAY_WINDOW [20s]  BENCH_TRAY_SETTLE [5s]
#   BENCH_TRAY_SERVE [1] (0: skip measuring `mcptray serve` alone)
#   BENCH_ASK_N [10]  BENCH_ASK_BASELINE (another mcptray binary, an earlier
#   build say, whose questions are timed beside)
#   BENCH_STRICT [0] (1: exit 1 on FAIL)
# Needs xvfb-run, dbus-run-session and xdotool (make smoke installs them);
# when one is missing it says so and exits 0, so make bench does not fail.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ -z ${BENCH_TRAY_INNER:-} ]]; then
  missing=()
  for tool in xvfb-run dbus-run-session xdotool gdbus; do
    command -v "$tool" >/dev/null || missing+=("$tool")
  done
  if ((${#missing[@]})); then
    echo "==> tray app at rest: SKIPPED, ${missing[*]} missing (apt-get install xvfb dbus xdotool libglib2.0-bin, or make smoke's deps)"
    exit 0
  fi
  GO="${GO:-go}"
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/benchtray.XXXXXX")
  trap 'rm -rf "$tmp" 2>/dev/null || true' EXIT
  echo "==> building the desktop mcptray, bench/cmd/trayhello, bench/cmd/trayidle, bench/cmd/asktime, tests/sniwatcher"
  # mcptray as make builds it (its GUI tags); the hello world as Fyne
  # builds by default.
  gui_tags=$(bash -c '. scripts/release-lib.sh && echo "$GUI_TAGS"')
  CGO_ENABLED=1 "$GO" build -tags "$gui_tags" -o "$tmp/mcptray" .
  CGO_ENABLED=1 "$GO" build -o "$tmp/trayhello" ./bench/cmd/trayhello
  "$GO" build -o "$tmp/trayidle" ./bench/cmd/trayidle
  "$GO" build -o "$tmp/asktime" ./bench/cmd/asktime
  "$GO" build -o "$tmp/sniwatcher" ./tests/sniwatcher
  # A throw-away home: a new database and Fyne preferences, and nothing the
  # session bus activates (the keyring) touches the real ones.
  export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/config XDG_DATA_HOME=$tmp/home/data XDG_CACHE_HOME=$tmp/home/cache
  mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME"
  export BENCH_TRAY_INNER=$tmp LANG=${LANG:-C.UTF-8}
  unset XDG_CURRENT_DESKTOP XDG_SESSION_TYPE WAYLAND_DISPLAY
  # The session bus's socket in the throw-away folder, not /tmp.
  sed "s|<listen>unix:tmpdir=/tmp</listen>|<listen>unix:dir=$tmp</listen>|" /usr/share/dbus-1/session.conf >"$tmp/session.conf"
  xvfb-run -a -s "-screen 0 1366x768x24 -nolisten tcp" dbus-run-session --config-file="$tmp/session.conf" -- bash "$0" 2> >(grep -v '^dbus-daemon' >&2)
  exit
fi

tmp=$BENCH_TRAY_INNER
host=
trap '[[ -n $host ]] && kill "$host" 2>/dev/null && { wait "$host" 2>/dev/null || true; }; true' EXIT
# start_host NAME: starts the tray host NAME and waits until it watches.
start_host() {
  case $1 in
  sniwatcher) "$tmp/sniwatcher" >"$tmp/host.log" 2>&1 & ;;
  # In a session of its own: ended, it signals its whole process group.
  gtk-sni-tray-standalone) setsid gtk-sni-tray-standalone -w >"$tmp/host.log" 2>&1 & ;;
  esac
  host=$!
  for _ in $(seq 100); do
    [[ $(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
      --method org.freedesktop.DBus.NameHasOwner org.kde.StatusNotifierWatcher 2>/dev/null) == "(true,)" ]] && return
    sleep 0.1
  done
  echo "bench-tray: the tray host $1 did not start: $(cat "$tmp/host.log")" >&2
  exit 1
}
stop_host() {
  kill "$host" 2>/dev/null && { wait "$host" 2>/dev/null || true; }
  host=
}
serve=true
[[ ${BENCH_TRAY_SERVE:-1} == 0 ]] && serve=false
hosts=(sniwatcher)
if command -v gtk-sni-tray-standalone >/dev/null; then
  hosts+=(gtk-sni-tray-standalone)
else
  echo "==> the desktop app at rest under gtk-sni-tray-standalone: SKIPPED (apt-get install haskell-gtk-sni-tray-utils)"
fi
for h in "${hosts[@]}"; do
  start_host "$h"
  "$tmp/trayidle" -mcptray "$tmp/mcptray" -hello "$tmp/trayhello" -host "$h" -serve="$serve" \
    -window "${BENCH_TRAY_WINDOW:-20s}" -settle "${BENCH_TRAY_SETTLE:-5s}" ${BENCH_TRAY_KEEP:+-keep}
  serve=false # once is enough
  stop_host
done
start_host "${hosts[-1]}"
"$tmp/asktime" -mcptray "$tmp/mcptray" -n "${BENCH_ASK_N:-10}" ${BENCH_ASK_BASELINE:+-baseline "$BENCH_ASK_BASELINE"}
stop_host
