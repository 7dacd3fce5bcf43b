#!/usr/bin/env bash
# Builds one Go program, saying what it does while it does it: a first
# build compiles the desktop toolkit's C code (GLFW and OpenGL, through
# cgo), which takes minutes and prints nothing of its own.
#
# Usage: GO=go scripts/gobuild.sh OUTPUT PACKAGE [go build flags...]
set -euo pipefail

out=${1:?usage: scripts/gobuild.sh OUTPUT PACKAGE [flags...]}
pkg=${2:?usage: scripts/gobuild.sh OUTPUT PACKAGE [flags...]}
shift 2
GO=${GO:-go}
# How often a long build says it is still going.
EVERY=${BUILD_PROGRESS_EVERY:-20}

log=$(mktemp "${TMPDIR:-/tmp}/mcptray-build.XXXXXX")
pid=
trap 'rm -f "$log"; [[ -z $pid ]] || kill "$pid" 2>/dev/null || true' EXIT

echo "building $out"
start=$SECONDS
# -v names each package as it is compiled, on stderr with any error.
"$GO" build -v "$@" -o "$out" "$pkg" 2>"$log" &
pid=$!
told=
while kill -0 "$pid" 2>/dev/null; do
  # Waiting for the build to end, up to EVERY seconds; wait cannot time out.
  for ((i = 0; i < EVERY * 4; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  kill -0 "$pid" 2>/dev/null || break
  if [[ -z $told ]]; then
    echo "  The first build compiles the desktop toolkit's C code (GLFW, OpenGL): about 6 minutes,"
    echo "  up to 20 on a busy 2-core machine. Later builds reuse it and take seconds."
    told=1
  fi
  last=$(grep -v -e '^#' -e '^$' "$log" | tail -1)
  echo "  still building ($((SECONDS - start)) s so far; last compiled: ${last:-nothing yet})"
done
rc=0
wait "$pid" || rc=$?
pid=
if ((rc != 0)); then
  # The errors, without the list of packages that built.
  grep -v -E '^[A-Za-z0-9_./-]+$' "$log" >&2 || cat "$log" >&2
  exit "$rc"
fi
echo "built $out ($(grep -c -v -e '^#' -e '^$' "$log" || true) packages compiled, $((SECONDS - start)) s)"
