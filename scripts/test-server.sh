# shellcheck shell=bash
# Sourced by the scripts that try a real AI client against mcptray
# (tsclient.sh, continue-cli.sh): a temporary work folder and a running
# `mcptray serve`, both gone when the script exits — the folder is kept
# when the script fails, or when the caller's KEEP variable is 1.
#
#   test_work NAME KEEP       makes $work (TMPDIR/mcptray-NAME.XXXXXX) and the exit trap
#   test_serve BIN ARGS...    runs BIN serve ARGS... (output in $work/server.out and .err),
#                             then waits up to 30 s for its endpoint file in
#                             $XDG_CONFIG_HOME/mcptray, which the caller set
#   test_server_log           the end of the server's stderr, indented, on stderr
#
# The caller defines say and die.
server_pid=""
test_keep=0

test_work() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/mcptray-$1.XXXXXX")
  test_keep=${2:-0}
  trap test_cleanup EXIT
}

test_cleanup() {
  local rc=$?
  if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2>/dev/null || true
  fi
  [[ -n $server_pid ]] && wait "$server_pid" 2>/dev/null || true
  if ((rc == 0)) && [[ $test_keep != 1 ]]; then rm -rf "$work"; else say "work dir kept: $work"; fi
  exit "$rc"
}

test_serve() {
  local bin=$1 endpoint=$XDG_CONFIG_HOME/mcptray/endpoint.json
  shift
  "$bin" serve "$@" </dev/null >"$work/server.out" 2>"$work/server.err" &
  server_pid=$!
  for _ in $(seq 300); do
    [[ -s $endpoint ]] && return 0
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.err" >&2; die "the server exited"; }
    sleep 0.1 # polling a file another process writes; nothing to wait on
  done
  cat "$work/server.err" >&2
  die "no endpoint file within 30 s"
}

test_server_log() {
  say "server stderr:"
  tail -n 30 "$work/server.err" | sed 's/^/  | /' >&2
}
