#!/usr/bin/env bash
# The official TypeScript MCP client against mcptray-stdio (both eras).
#
#   scripts/tsclient.sh
#
# Installs the pinned client and a Node 22 runtime (tests/tsclient/package*.json)
# into .cache/tsclient once, starts
#   bin/mcptray serve --db TMP/db --addr 127.0.0.1:0 --catalog examples/conformance.json
# with a private XDG_CONFIG_HOME (so the endpoint file and the shim's token stay
# in TMP), and runs tests/tsclient/shim.test.mjs, which launches bin/mcptray-stdio
# through the client's StdioClientTransport.
#
# Environment: MCPTRAY_BIN, MCPTRAY_STDIO_BIN (default bin/mcptray, bin/mcptray-stdio),
# TSCLIENT_CACHE (default .cache/tsclient), TSCLIENT_KEEP=1 keeps the work dir.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
cache=${TSCLIENT_CACHE:-$root/.cache/tsclient}
manifest=$root/tests/tsclient
node=$cache/node_modules/node/bin/node
bin=${MCPTRAY_BIN:-$root/bin/mcptray}
shim=${MCPTRAY_STDIO_BIN:-$root/bin/mcptray-stdio}

say() { printf 'tsclient: %s\n' "$*" >&2; }
die() { say "$*"; exit 2; }

# shellcheck source=scripts/npm-cache.sh
. "$root/scripts/npm-cache.sh"
npm_cache_install "$manifest" "$cache" "@modelcontextprotocol/client" "$cache/node_modules/@modelcontextprotocol/client"
# ESM resolves imports next to the script, so it runs from the cache.
cp "$manifest/shim.test.mjs" "$cache/shim.test.mjs"

[[ -x $bin ]] || die "no executable at $bin (make build)"
[[ -x $shim ]] || die "no executable at $shim (make build)"

# shellcheck source=scripts/test-server.sh
. "$root/scripts/test-server.sh"
test_work tsclient "${TSCLIENT_KEEP:-0}"
export XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data XDG_CACHE_HOME=$work/cache XDG_STATE_HOME=$work/state
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_STATE_HOME"
test_serve "$bin" --db "$work/mcptray.db" --addr 127.0.0.1:0 --catalog examples/conformance.json

# The shim must never start a second server here, and finds the first one itself.
SHIM=$shim MCPTRAY=$bin MCPTRAY_BIN=$bin MCPTRAY_DB=$work/mcptray.db \
  timeout --kill-after=10 300 "$node" "$cache/shim.test.mjs" || { test_server_log; exit 1; }
