#!/usr/bin/env bash
# Continue's CLI (cn, npm @continuedev/cli, pinned in tests/continue) reads
# what `mcptray config continue --install --yes` writes and gets mcptray's
# tools, without a model or an account (tests/continue/cn.test.mjs says how).
#
#   scripts/continue-cli.sh
#
# Installs cn and a Node 22 runtime into .cache/continue-cli once (skipped,
# with the reason, when npm cannot install them: no npm, no registry),
# starts
#   bin/mcptray serve --db TMP/db --addr 127.0.0.1:0 --catalog examples/starter.json
# with a private HOME and XDG folders, and runs the test there.
#
# Environment: MCPTRAY_BIN, MCPTRAY_STDIO_BIN (default bin/mcptray,
# bin/mcptray-stdio), CONTINUE_CLI_CACHE (default .cache/continue-cli),
# CONTINUE_CLI_KEEP=1 keeps the work dir.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
cache=${CONTINUE_CLI_CACHE:-$root/.cache/continue-cli}
manifest=$root/tests/continue
node=$cache/node_modules/node/bin/node
cn=$cache/node_modules/@continuedev/cli/dist/cn.js
bin=${MCPTRAY_BIN:-$root/bin/mcptray}
shim=${MCPTRAY_STDIO_BIN:-$root/bin/mcptray-stdio}
catalog=$root/examples/starter.json

say() { printf 'continue-cli: %s\n' "$*" >&2; }
# Only npm's failing to install cn skips the check; anything after is a failure.
die() { say "skipped: $* — Continue's CLI was not tried"; exit 0; }

# shellcheck source=scripts/npm-cache.sh
. "$root/scripts/npm-cache.sh"
npm_cache_install "$manifest" "$cache" "Continue's CLI (@continuedev/cli)" "$cn"
die() { say "$*"; exit 2; }
cp "$manifest/cn.test.mjs" "$cache/cn.test.mjs"

[[ -x $bin ]] || die "no executable at $bin (make build)"
[[ -x $shim ]] || die "no executable at $shim (make build)"

# shellcheck source=scripts/test-server.sh
. "$root/scripts/test-server.sh"
test_work continue-cli "${CONTINUE_CLI_KEEP:-0}"
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_DATA_HOME=$work/data XDG_CACHE_HOME=$work/cache XDG_STATE_HOME=$work/state
unset CONTINUE_GLOBAL_DIR
mkdir -p "$HOME" "$XDG_CONFIG_HOME/mcptray" "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_STATE_HOME"
# The default database, which config --install prepares the shim's token in.
test_serve "$bin" --db "$XDG_CONFIG_HOME/mcptray/mcptray.db" --addr 127.0.0.1:0 --catalog "$catalog"

# The shim finds the running server by itself (the endpoint file in
# XDG_CONFIG_HOME). Node keeps what it compiled of cn's 13 MB bundle in the
# cache, for the next run.
NODE_COMPILE_CACHE=$cache/compile-cache MCPTRAY=$bin SHIM=$shim CN=$cn HOME=$HOME CATALOG=$catalog \
  timeout --kill-after=10 180 "$node" "$cache/cn.test.mjs" || { test_server_log; exit 1; }
