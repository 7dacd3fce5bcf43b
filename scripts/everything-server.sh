#!/usr/bin/env bash
# Installs the pinned reference MCP test server, @modelcontextprotocol/server-everything,
# and a Node 22 runtime (tests/everything/package*.json) into .cache/everything once,
# and prints two lines: the node program, and the server's entry script.
#
#   scripts/everything-server.sh
#
# package upstream's TestEverythingServer runs it (and skips, saying why, when it fails:
# no npm, no network). Environment: EVERYTHING_CACHE (default .cache/everything).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${EVERYTHING_CACHE:-$root/.cache/everything}
entry=$cache/node_modules/@modelcontextprotocol/server-everything/dist/index.js

say() { printf 'everything-server: %s\n' "$*" >&2; }
die() { say "$*"; exit 2; }

# shellcheck source=scripts/npm-cache.sh
. "$root/scripts/npm-cache.sh"
npm_cache_install "$root/tests/everything" "$cache" "@modelcontextprotocol/server-everything" "$entry"
printf '%s\n%s\n' "$cache/node_modules/node/bin/node" "$entry"
