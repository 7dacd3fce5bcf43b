#!/usr/bin/env bash
# The Claude Desktop extension, dist/mcptray-VERSION.mcpb (an MCP Bundle,
# manifest 0.3): the stdio shim for each platform, which finds the installed
# mcptray (or answers every request with how to install it), the icon, and
# a manifest made by packaging/mcpb/manifest.go. Packed and validated with
# the official CLI (npm @anthropic-ai/mcpb, pinned in packaging/mcpb),
# installed once into .cache/mcpb.
#
#   scripts/mcpb.sh build    build and pack dist/mcptray-VERSION.mcpb, then check it
#   scripts/mcpb.sh check    validate its manifest, list it and inspect its programs
#
# VERSION (env) overrides the version; GO (env) is the go command.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/release-lib.sh
. scripts/release-lib.sh
# shellcheck source=scripts/npm-cache.sh
. scripts/npm-cache.sh

VER=$(version)
MCPB=dist/mcptray-$VER.mcpb
CACHE=$PWD/.cache/mcpb
CLI=$CACHE/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js

say() { echo "mcpb: $*"; }
die() { fail "$@"; }

# mcpb runs the pinned CLI with the pinned Node.
mcpb() {
  npm_cache_install packaging/mcpb "$CACHE" "the MCP Bundle CLI (@anthropic-ai/mcpb)" "$CLI"
  "$CACHE/node_modules/node/bin/node" "$CLI" "$@"
}

# shim builds the shim for one platform.
shim() {
  local goos=$1 goarch=$2 out=$3
  CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch "$GO" build -trimpath -ldflags "-s -w -X main.version=$VER" -o "$out" ./cmd/mcptray-stdio
}

build() {
  local t0 dir
  t0=$(now)
  dir=$(tmpdir)/mcptray
  mkdir -p "$dir/server" dist
  echo "==> build the shims for $MCPB"
  shim linux amd64 "$dir/server/mcptray-stdio"
  shim windows amd64 "$dir/server/mcptray-stdio.exe"
  shim darwin arm64 "$dir/mcptray-stdio-darwin-arm64"
  shim darwin amd64 "$dir/mcptray-stdio-darwin-amd64"
  "$GO" run packaging/mcpb/fat.go "$dir/server/mcptray-stdio-darwin" "$dir"/mcptray-stdio-darwin-*
  rm "$dir"/mcptray-stdio-darwin-*
  cp assets/icon.png "$dir/icon.png"
  cp LICENSE "$dir/LICENSE"
  "$GO" run packaging/mcpb/manifest.go "$VER" >"$dir/manifest.json"
  mcpb validate "$dir/manifest.json"
  rm -f "$MCPB"
  mcpb pack "$dir" "$PWD/$MCPB"
  echo "$MCPB: $(size "$MCPB") ($(elapsed "$t0"))"
  check
}

check() {
  local tmp p
  echo "==> check $MCPB"
  [[ -f $MCPB ]] || fail "$MCPB: no such bundle (run make package)"
  tmp=$(tmpdir)
  mcpb unpack "$PWD/$MCPB" "$tmp/x" >/dev/null
  mcpb validate "$tmp/x/manifest.json"
  mcpb info "$PWD/$MCPB"
  unzip -l "$MCPB"
  for p in manifest.json icon.png server/mcptray-stdio server/mcptray-stdio.exe server/mcptray-stdio-darwin; do
    [[ -f $tmp/x/$p ]] || fail "$MCPB lacks $p"
  done
  file "$tmp/x/server/"* 2>/dev/null || true
  "$GO" run packaging/windows/pecheck.go console "$tmp/x/server/mcptray-stdio.exe"
  # What Claude Desktop shows before the extension is used says first that
  # the mcptray app must be installed, and lists no tools it may not have.
  "$CACHE/node_modules/node/bin/node" -e '
    const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const ok = m.description.startsWith("Needs the mcptray app") && m.long_description.startsWith("**First install the mcptray app") && !(m.tools || []).length;
    if (!ok) { console.error("the manifest does not say first that mcptray must be installed:\n" + m.description + "\n" + m.long_description); process.exit(1); }
  ' "$tmp/x/manifest.json" || fail "$MCPB: its page would not say that mcptray must be installed"
  echo "extension page: says first that the mcptray app must be installed, declares no tools"
  # The Linux shim, run from the bundle with no mcptray to find (an empty
  # home, no PATH), says how to install it in its answer to initialize.
  local out init
  # With mcptray installed system-wide the shim finds it and starts its
  # server, which would outlive this check: then it is not run at all.
  if [[ -e /usr/bin/mcptray || -e /usr/local/bin/mcptray ]]; then
    echo "bundled shim without mcptray: not checked (mcptray is installed system-wide here, and the shim would start it)"
  else
    init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"check","version":"1"}}}'
    out=$(echo "$init" | timeout 20 env -i HOME="$tmp/home" PATH=/nonexistent "$tmp/x/server/mcptray-stdio" 2>/dev/null) || true
    grep -q 'Install mcptray' <<<"$out" || fail "the bundled shim, with no mcptray installed, answered: $out"
    echo "bundled shim without mcptray: answers with how to install it"
  fi
  echo "mcpb check: ok"
}

case ${1:-} in
build) build ;;
check) check ;;
*) fail "usage: scripts/mcpb.sh build|check" ;;
esac
