#!/usr/bin/env bash
# Checks that a run of make test (or make package-check) leaves nothing
# behind: no process of mcptray's, of the X server, tray host or session bus
# the tests started, and no temporary folder or socket of theirs in $TMPDIR.
#
# Usage: scripts/leftovers.sh start STATE   (before: note what is there)
#        scripts/leftovers.sh check STATE   (after: fail on anything new)
#
# What was there before the run (a person's own mcptray, say) is not the
# run's. Silent when nothing is left. A process still ending is waited for, up to 30 s, before it counts.
set -euo pipefail

mode=${1:?usage: scripts/leftovers.sh start|check STATE}
state=${2:?usage: scripts/leftovers.sh start|check STATE}
tmp=${TMPDIR:-/tmp}

# procs lists "pid command" of the processes a run may start: a Windows
# program under Wine (make wine) shows its Windows path (C:\…\mcptray.exe).
procs() {
  ps -eo pid=,args= | grep -E '(^|/| )(mcptray|mcptray-stdio|mcptray-headless|Xvfb|gtk-sni-tray-standalone|dbus-daemon|sniwatcher|wineserver|wineserver64)( |$)|^ *[0-9]+ [A-Za-z]:\\' |
    grep -v -E 'leftovers\.sh|grep -E' || true
}

# files lists what the run's scripts and tests make in $TMPDIR.
files() {
  find "$tmp" -maxdepth 1 \( -name 'mcptray-*' -o -name 'dbus-*' -o -name 'Test*' -o -name '.stage.*' \) -printf '%f\n' 2>/dev/null | sort || true
}

case $mode in
start)
  { procs | awk '{print "p " $1}'; files | sed 's/^/f /'; } >"$state"
  ;;
check)
  [[ -f $state ]] || { echo "leftovers: no state file $state (run start first)" >&2; exit 2; }
  new_procs() { procs | awk 'NR==FNR { if ($1 == "p") seen[$2] = 1; next } !($1 in seen)' "$state" -; }
  deadline=$((SECONDS + 30))
  while [[ -n $(new_procs) ]] && ((SECONDS < deadline)); do
    sleep 0.5 # polling what is still ending; nothing to wait on but the process table
  done
  left_procs=$(new_procs)
  left_files=$(files | awk 'NR==FNR { if ($1 == "f") seen[$2] = 1; next } !($0 in seen)' "$state" -)
  rm -f "$state"
  if [[ -n $left_procs || -n $left_files ]]; then
    echo "leftovers: the run left these behind:" >&2
    [[ -z $left_procs ]] || sed 's/^/  process /' <<<"$left_procs" >&2
    [[ -z $left_files ]] || sed "s|^|  $tmp/|" <<<"$left_files" >&2
    exit 1
  fi
  ;;
*)
  echo "usage: scripts/leftovers.sh start|check STATE" >&2
  exit 2
  ;;
esac
