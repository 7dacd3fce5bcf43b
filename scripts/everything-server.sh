#!/usr/bin/env bash
# Installs the pinned reference MCP servers of the end-to-end tests,
# @modelcontextprotocol/server-everything and @modelcontextprotocol/server-filesystem,
# and a Node 22 runtime (tests/everything/package*.json) into .cache/everything once,
# and prints the node program, then each named server's entry script, one a line.
#
#   scripts/everything-server.sh [SERVER...]    SERVER: everything (the default), filesystem
#
# package upstream's TestEverythingServer and package daemon's TestNPMServersFronted run it
# (through testutil.NPMServers, which skips, saying why, when it fails: no npm, no network).
# Environment: EVERYTHING_CACHE (default .cache/everything).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${EVERYTHING_CACHE:-$root/.cache/everything}

say() { printf 'everything-server: %s\n' "$*" >&2; }
die() { say "$*"; exit 2; }

(($# > 0)) || set -- everything
entries=()
for server in "$@"; do
  case $server in
    everything | filesystem) entries+=("$cache/node_modules/@modelcontextprotocol/server-$server/dist/index.js") ;;
    *) die "unknown server $server: want everything or filesystem" ;;
  esac
done

# shellcheck source=scripts/npm-cache.sh
. "$root/scripts/npm-cache.sh"
npm_cache_install "$root/tests/everything" "$cache" "the reference MCP servers" "${entries[@]}"
printf '%s\n' "$cache/node_modules/node/bin/node" "${entries[@]}"
