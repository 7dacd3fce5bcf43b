#!/usr/bin/env bash
# The upgrade check (part of make package-check): mcptray version A is
# installed and a client connects; version B is installed over it; the
# client's next call must be answered by B — endpoint.json names B, and the
# answer's serverInfo says B. Without the hand-over (issue 27), the old
# server went on answering, running a program the upgrade had deleted.
#
# The client is the stdio shim, kept running across the upgrade as Claude
# Desktop keeps it, speaking the 2026-07-28 protocol; it starts mcptray as
# it does for a client, headless (no display here).
#
#   A  this version as make package made it: dist's .deb, and bin/ for
#      make install
#   B  the same source built as a later version (VERSION, BIN_DIR: the flags
#      of scripts/build.sh, so the build cache serves it), packaged as A's
#      .deb with its programs and version replaced
#
# Both installs go into a temporary folder: the .deb with dpkg --root (as
# root, else under fakeroot), which replaces the programs as it does on a
# real system (the running A's program then shows as deleted), and
# make install with PREFIX. The home is temporary too, and the server
# listens on a port of its own: a person's mcptray is not touched.
#
#   scripts/upgrade.sh [deb|install]   (default: both)
#
# GO (env) is the go command.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/release-lib.sh
. scripts/release-lib.sh

VER=$(version)
DEBARCH=$(dpkg --print-architecture 2>/dev/null || "$GO" env GOARCH)
DEB=dist/mcptray_${VER}_$DEBARCH.deb
TMP=$(tmpdir)

# later is a version after VER: its patch number plus one, marked as a test.
later() {
  [[ $VER =~ ^([0-9]+)\.([0-9]+)\.([0-9]+) ]] || fail "cannot make a version later than '$VER' (not MAJOR.MINOR.PATCH)"
  echo "${BASH_REMATCH[1]}.${BASH_REMATCH[2]}.$((BASH_REMATCH[3] + 1))-upgradetest"
}
B=$(later)

# build_b builds version B into $TMP/b, once.
build_b() {
  [[ -x $TMP/b/mcptray ]] && return
  echo "==> build $B (the version installed over $VER)"
  mkdir -p "$TMP/b"
  GO=$GO VERSION=$B BIN_DIR=$TMP/b bash scripts/build.sh >/dev/null
}

# The client: the shim, started as a client starts it, in a home of its
# own. CLIENT is its coprocess; its stderr goes to $TMP/shim.log.
start_client() {
  local shim=$1 home=$TMP/home
  mkdir -p "$home/.config"
  coproc CLIENT {
    exec env -i PATH=/usr/bin:/bin HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" \
      LANG=C.UTF-8 MCPTRAY_START_ARGS="--addr 127.0.0.1:0" "$shim" 2>>"$TMP/shim.log"
  }
}

# stop_all ends the client (its input closed, as a client quitting does)
# and the servers it started, and waits for them: the shim starts mcptray
# detached, so they are followed by their process ids.
SERVERS=()
stop_all() {
  local pid ep=$TMP/home/.config/mcptray/endpoint.json deadline
  if [[ -n ${CLIENT[1]:-} ]]; then
    pid=$CLIENT_PID
    eval "exec ${CLIENT[1]}>&-"
    wait "$pid" 2>/dev/null || true
  fi
  [[ ! -f $ep ]] || SERVERS+=("$(jq -r .pid "$ep")")
  for pid in "${SERVERS[@]}"; do
    kill -TERM "$pid" 2>/dev/null || continue
    deadline=$((SECONDS + 30))
    while kill -0 "$pid" 2>/dev/null; do
      ((SECONDS < deadline)) || { kill -KILL "$pid" 2>/dev/null || true; echo "${0##*/}: mcptray (pid $pid) did not stop within 30 s of SIGTERM" >&2; }
      sleep 0.1 # not our child: nothing to wait on but its process id
    done
  done
  SERVERS=()
}

# call ID asks the server the time (the starter catalog's current_time)
# through the client, and sets ANSWERED to the version the answer's
# serverInfo names. (No subshell: the coprocess's pipes live in this one.)
ANSWERED=
call() {
  local id=$1 line meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
  printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"current_time","arguments":{},%s}}\n' "$id" "$meta" >&"${CLIENT[1]}"
  while IFS= read -r -t 60 line <&"${CLIENT[0]}"; do
    [[ $(jq -r '.id // empty' <<<"$line") == "$id" ]] || continue
    jq -e '.result and (.result.isError | not)' <<<"$line" >/dev/null || fail "call $id was not answered with a result: $line"
    ANSWERED=$(jq -r '.result._meta["io.modelcontextprotocol/serverInfo"].version // empty' <<<"$line")
    return
  done
  fail "no answer to call $id within 60 s; the shim said: $(tail -n5 "$TMP/shim.log")"
}

# endpoint prints "VERSION PID" of the server endpoint.json names.
endpoint() { jq -r '"\(.version) \(.pid)"' "$TMP/home/.config/mcptray/endpoint.json"; }

# upgrade_check NAME SHIM INSTALL_B: the client through SHIM (version A
# installed) calls; INSTALL_B installs B; the next call must be B's.
upgrade_check() {
  local name=$1 shim=$2 install_b=$3 t0 ep_a pid_a v exe
  t0=$(now)
  : >"$TMP/shim.log"
  start_client "$shim"
  call 1
  [[ $ANSWERED == "$VER" ]] || fail "$name: before the upgrade, the answer came from '$ANSWERED', not $VER"
  ep_a=$(endpoint)
  [[ ${ep_a% *} == "$VER" ]] || fail "$name: endpoint.json names version ${ep_a% *}, not $VER"
  pid_a=${ep_a#* }
  SERVERS+=("$pid_a")
  "$install_b"
  # What the issue saw: the old server runs a program the upgrade deleted.
  exe=$(readlink "/proc/$pid_a/exe" 2>/dev/null || true)
  [[ $exe == *" (deleted)" ]] || echo "$name: note: the running $VER's program is '$exe', not shown as deleted"
  call 2
  [[ $ANSWERED == "$B" ]] || fail "$name: after installing $B over $VER, the client's next call was answered by '$ANSWERED' (shim: $(tail -n3 "$TMP/shim.log"))"
  v=$(endpoint)
  [[ ${v% *} == "$B" ]] || fail "$name: after the upgrade, endpoint.json names version ${v% *}, not $B"
  ! kill -0 "$pid_a" 2>/dev/null || fail "$name: the old server (pid $pid_a) still runs"
  stop_all
  echo "$name: $VER -> $B: the client's next call was answered by $B (serverInfo, endpoint.json); $VER (pid $pid_a) stopped ($(elapsed "$t0"))"
  rm -rf "$TMP/home"
}

# The .deb: dpkg --root into a folder of its own.
DPKG=()
deb_dpkg() {
  local root=$TMP/debroot
  if [[ ${#DPKG[@]} -eq 0 ]]; then
    mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
    : >"$root/var/lib/dpkg/status"
    DPKG=(dpkg --root="$root" --force-depends)
    if [[ $(id -u) != 0 ]]; then
      command -v fakeroot >/dev/null || fail "installing the .deb into a folder needs root or fakeroot (apt-get install fakeroot)"
      DPKG=(fakeroot "${DPKG[@]}")
    fi
  fi
  "${DPKG[@]}" "$@" >/dev/null 2>"$TMP/dpkg.log" || fail "dpkg $*: $(cat "$TMP/dpkg.log")"
}

# deb_b writes B's .deb: A's, with B's programs and version.
deb_b() {
  local raw=$TMP/deb-b
  dpkg-deb --raw-extract "$DEB" "$raw"
  install -m0755 "$TMP/b/mcptray" "$TMP/b/mcptray-stdio" "$raw/usr/bin/"
  sed -i "s/^Version: .*/Version: $B/" "$raw/DEBIAN/control"
  dpkg-deb --root-owner-group -Zgzip --build "$raw" "$TMP/mcptray_${B}_$DEBARCH.deb" >/dev/null
}

install_deb_b() { deb_dpkg --install "$TMP/mcptray_${B}_$DEBARCH.deb"; }

check_deb() {
  [[ -f $DEB ]] || fail "$DEB: no such package (run make package)"
  build_b
  deb_b
  deb_dpkg --install "$DEB"
  upgrade_check ".deb (dpkg)" "$TMP/debroot/usr/bin/mcptray-stdio" install_deb_b
}

# make install: scripts/install.sh into a PREFIX of its own.
install_b() { PREFIX=$TMP/prefix GO=$GO VERSION=$B BIN_DIR=$TMP/b bash scripts/install.sh >/dev/null; }

check_install() {
  build_b
  PREFIX=$TMP/prefix GO=$GO bash scripts/install.sh >/dev/null
  upgrade_check "make install" "$TMP/prefix/bin/mcptray-stdio" install_b
}

trap 'stop_all; cleanup' EXIT
case ${1:-all} in
deb) check_deb ;;
install) check_install ;;
all)
  check_deb
  check_install
  ;;
*) fail "usage: scripts/upgrade.sh [deb|install]" ;;
esac
