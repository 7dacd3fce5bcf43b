#!/usr/bin/env bash
# Run the official MCP conformance suite (server side) against mcptray.
#
#   scripts/conformance.sh [REVISION...]      (default: 2026-07-28 2025-11-25)
#
# Installs the pinned suite and a Node 22 runtime (scripts/conformance/package*.json)
# into .cache/conformance once, builds bin/mcptray, starts
#   bin/mcptray serve --db TMP/conf.db --addr 127.0.0.1:0 --catalog examples/conformance.json --no-auth
# waits for its "serving MCP on http://.../mcp" line on stderr, runs
#   conformance server --url URL --requirements REVISION
# for each revision, and prints one line per scenario, a summary per revision and
# a final "N passed, M failed" line over the scenarios that gate the run.
#
# A scenario passes when none of its checks is a FAILURE (warnings and skips never
# fail it). The run fails when a scored scenario fails, or one of the not-scored
# scenarios we require anyway (REQUIRED_NOT_SCORED below). The tasks-* extension
# scenarios are reported only, unless CONFORMANCE_STRICT_TASKS=1 (which `make
# conformance` sets).
#
# Environment:
#   CONFORMANCE_URL            test a server that is already running instead of mcptray
#   CONFORMANCE_URL_<REV>      the same for one revision only, e.g. CONFORMANCE_URL_2025_11_25
#   CONFORMANCE_STRICT_TASKS=1 the tasks-* scenarios must pass too
#   CONFORMANCE_KEEP=1         keep the work dir (results, logs) even when the run passes
#   CONFORMANCE_CACHE          install dir (default .cache/conformance)
#   CONFORMANCE_CATALOG        catalog for the server (default examples/conformance.json)
#   CONFORMANCE_DB             serve this database as it is (no catalog imported), e.g. one
#                              fronting another server (scripts/conformance-upstream.sh)
#   CONFORMANCE_STARTUP_TIMEOUT  seconds to wait for the URL line (default 30)
#   CONFORMANCE_SCENARIO_TIMEOUT_MS  per-scenario timeout passed to the suite (default 30000)
#   MCPTRAY_BIN                use this binary instead of building bin/mcptray
#
# Exit status: 0 all gating scenarios passed, 1 a failure, 2 a usage or setup error.
set -euo pipefail

REQUIRED_NOT_SCORED=(json-schema-2020-12 http-header-validation http-custom-header-server-validation)

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

cache=${CONFORMANCE_CACHE:-$root/.cache/conformance}
manifest=$root/scripts/conformance
node=$cache/node_modules/node/bin/node
suite=$cache/node_modules/@modelcontextprotocol/conformance
startup_timeout=${CONFORMANCE_STARTUP_TIMEOUT:-30}
scenario_timeout_ms=${CONFORMANCE_SCENARIO_TIMEOUT_MS:-30000}

if (($# > 0)); then revisions=("$@"); else revisions=(2026-07-28 2025-11-25); fi

say() { printf 'conformance: %s\n' "$*" >&2; }
die() { say "$*"; exit 2; }

# ---------------------------------------------------------------- install

# shellcheck source=scripts/npm-cache.sh
. "$root/scripts/npm-cache.sh"
npm_cache_install "$manifest" "$cache" "the conformance suite" "$suite/dist/index.js"

known=("$suite"/requirements/*.yaml)
known=("${known[@]##*/}")
for rev in "${revisions[@]}"; do
  [[ -f $suite/requirements/$rev.yaml ]] || die "unknown revision '$rev' (known: ${known[*]%.yaml})"
done

# ---------------------------------------------------------------- server

work=$(mktemp -d "${TMPDIR:-/tmp}/mcptray-conformance.XXXXXX")
server_pid=""
keep=${CONFORMANCE_KEEP:-0}

stop_server() {
  [[ -n $server_pid ]] || return 0
  if kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    local i
    for ((i = 0; i < 100; i++)); do
      kill -0 "$server_pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$server_pid" 2>/dev/null; then
      say "server did not exit within 10 s of SIGTERM; killing it"
      kill -KILL "$server_pid" 2>/dev/null || true
    fi
  fi
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

server_tail() {
  [[ -f $work/server.err ]] || return 0
  say "last lines of the server's stderr:"
  tail -n 40 "$work/server.err" | sed 's/^/  | /' >&2
  if [[ -s $work/server.out ]]; then
    say "last lines of the server's stdout:"
    tail -n 10 "$work/server.out" | sed 's/^/  | /' >&2
  fi
}

cleanup() {
  local rc=$?
  stop_server
  if ((rc == 0)) && [[ $keep != 1 ]]; then
    rm -rf "$work"
  elif ! rmdir "$work" 2>/dev/null; then
    say "work dir kept: $work"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# URL for a revision: CONFORMANCE_URL_<REV> > CONFORMANCE_URL > our own server.
url_override() {
  local var=CONFORMANCE_URL_${1//-/_}
  if [[ -n ${!var:-} ]]; then
    printf '%s\n' "${!var}"
  else
    printf '%s\n' "${CONFORMANCE_URL:-}"
  fi
}

need_server=0
for rev in "${revisions[@]}"; do
  [[ -n $(url_override "$rev") ]] || need_server=1
done

server_url=""
start_server() {
  local bin=${MCPTRAY_BIN:-}
  if [[ -z $bin ]]; then
    say "building bin/mcptray"
    go build -o bin/mcptray . || die "go build failed"
    bin=$root/bin/mcptray
  fi
  [[ -x $bin ]] || die "no executable at $bin"
  local db=$work/conf.db source=(--catalog "${CONFORMANCE_CATALOG:-examples/conformance.json}")
  if [[ -n ${CONFORMANCE_DB:-} ]]; then
    db=$CONFORMANCE_DB source=()
    [[ -f $db ]] || die "database not found: $db"
  else
    [[ -f ${source[1]} ]] || die "catalog not found: ${source[1]}"
  fi

  # Keep the server away from the user's config, data and keyring dirs.
  mkdir -p "$work/home/config" "$work/home/data" "$work/home/cache" "$work/home/state"
  # Made before the server starts: the loop below may read it before the
  # background shell has opened it (and sed failing would end the script).
  : >"$work/server.err"
  XDG_CONFIG_HOME=$work/home/config XDG_DATA_HOME=$work/home/data \
    XDG_CACHE_HOME=$work/home/cache XDG_STATE_HOME=$work/home/state \
    "$bin" serve --db "$db" --addr 127.0.0.1:0 "${source[@]}" --no-auth \
    </dev/null >"$work/server.out" 2>"$work/server.err" &
  server_pid=$!

  local deadline=$((SECONDS + startup_timeout))
  while :; do
    server_url=$(sed -nE 's|.*serving MCP on (http://[^[:space:]"'\'']*/mcp).*|\1|p' "$work/server.err" | head -n 1)
    [[ -n $server_url ]] && break
    if ! kill -0 "$server_pid" 2>/dev/null; then
      local rc=0
      wait "$server_pid" || rc=$?
      server_pid=""
      server_tail
      die "the server exited (status $rc) before it printed 'serving MCP on http://.../mcp'"
    fi
    if ((SECONDS >= deadline)); then
      server_tail
      die "no 'serving MCP on http://.../mcp' line on the server's stderr within $startup_timeout s"
    fi
    sleep 0.1
  done
  say "server pid $server_pid at $server_url"
}

((need_server)) && start_server

# ---------------------------------------------------------------- run + report

# report REV RESULTS_DIR SUITE_STATUS SUITE_LOG -> scenario lines and summaries on
# stdout; "<gating passed> <gating failed>" on the last line of $work/counts.
report() {
  REQUIRED_NOT_SCORED="${REQUIRED_NOT_SCORED[*]}" "$node" - "$suite" "$@" "$work/counts" <<'JS'
'use strict';
const fs = require('fs');
const path = require('path');
const [suiteDir, rev, resultsDir, suiteStatus, suiteLog, countsFile] = process.argv.slice(2);
const YAML = require(require.resolve('yaml', { paths: [suiteDir] }));
const required = new Set((process.env.REQUIRED_NOT_SCORED || '').split(/\s+/).filter(Boolean));
const strictTasks = process.env.CONFORMANCE_STRICT_TASKS === '1';

// requirements/<rev>.yaml: `server:` lists the scored scenarios, `not_scored:` the
// ones that run but do not count ({scenario, leg, reason}).
const req = YAML.parse(fs.readFileSync(path.join(suiteDir, 'requirements', rev + '.yaml'), 'utf8'));
const scenarios = (req.server || []).map(name => ({ name, scored: true }));
for (const e of req.not_scored || []) {
  if (e.leg === 'server') scenarios.push({ name: e.scenario, scored: false, reason: e.reason });
}

// -o DIR holds one folder per scenario, "server-<scenario>-<ISO time with : and . as ->",
// each with checks.json: an array of {id, name, status, errorMessage?, ...} where
// status is SUCCESS | FAILURE | WARNING | SKIPPED | INFO.
const results = new Map();
const dirName = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;
for (const entry of fs.existsSync(resultsDir) ? fs.readdirSync(resultsDir).sort() : []) {
  const m = dirName.exec(entry);
  if (!m) continue;
  let checks = null;
  try {
    checks = JSON.parse(fs.readFileSync(path.join(resultsDir, entry, 'checks.json'), 'utf8'));
    if (!Array.isArray(checks)) checks = null;
  } catch { /* reported as missing */ }
  results.set(m[1], checks);
}
for (const name of results.keys()) {
  if (!scenarios.some(s => s.name === name)) scenarios.push({ name, scored: false, reason: 'unlisted' });
}

const groups = { scored: [0, 0], required: [0, 0], report: [0, 0] };
const requiredNames = [];
const oneLine = s => String(s ?? '').replace(/\s+/g, ' ').trim().slice(0, 300);
for (const s of scenarios) {
  const group = s.scored ? 'scored'
    : required.has(s.name) || (strictTasks && s.name.startsWith('tasks-')) ? 'required' : 'report';
  if (group === 'required') {
    const shown = strictTasks && s.name.startsWith('tasks-') ? 'tasks-*' : s.name;
    if (!requiredNames.includes(shown)) requiredNames.push(shown);
  }
  const checks = results.get(s.name);
  const note = s.scored ? '' : ` [not scored: ${s.reason}${group === 'required' ? '; required by mcptray' : ''}]`;
  if (!checks) {
    console.log(`FAIL ${s.name} (no results)${note}`);
    groups[group][1]++;
    continue;
  }
  const count = status => checks.filter(c => c.status === status).length;
  const failed = count('FAILURE');
  const extra = [['WARNING', 'warning'], ['SKIPPED', 'skipped']]
    .map(([st, word]) => count(st) ? `, ${count(st)} ${word}${word === 'warning' && count(st) > 1 ? 's' : ''}` : '')
    .join('');
  console.log(`${failed ? 'FAIL' : 'PASS'} ${s.name} (${count('SUCCESS')} ok, ${failed} failed${extra})${note}`);
  groups[group][failed ? 1 : 0]++;
  if (failed && group !== 'report') {
    for (const c of checks.filter(c => c.status === 'FAILURE')) {
      console.log(`    x ${c.id}: ${oneLine(c.errorMessage || c.description)}`);
    }
  }
}

let extraFailures = 0;
if (results.size === 0 || !['0', '1'].includes(suiteStatus)) {
  console.log(`FAIL the suite itself (exit status ${suiteStatus}, ${results.size} result folders); end of its log:`);
  const log = fs.existsSync(suiteLog) ? fs.readFileSync(suiteLog, 'utf8').trimEnd().split('\n') : [];
  for (const line of log.slice(-25)) console.log(`    | ${line}`);
  extraFailures = 1;
}

const [sp, sf] = groups.scored, [rp, rf] = groups.required, [op, of] = groups.report;
console.log(`${rev}: ${sp} passed, ${sf} failed (scored)`);
if (rp + rf) console.log(`${rev}: ${rp} passed, ${rf} failed (not scored, required by mcptray: ${requiredNames.join(', ')})`);
if (op + of) console.log(`${rev}: ${op} passed, ${of} failed (not scored, reported only)`);
fs.appendFileSync(countsFile, `${sp + rp} ${sf + rf + extraFailures}\n`);
JS
}

total_pass=0
total_fail=0
for rev in "${revisions[@]}"; do
  url=$(url_override "$rev")
  url=${url:-$server_url}
  echo "== MCP conformance $rev against $url"
  results=$work/results-$rev
  log=$work/suite-$rev.log
  t0=$SECONDS
  status=0
  timeout --kill-after=10 1800 \
    "$node" "$suite/dist/index.js" server --url "$url" --requirements "$rev" \
    --timeout "$scenario_timeout_ms" -o "$results" >"$log" 2>&1 || status=$?
  report "$rev" "$results" "$status" "$log"
  read -r p f < <(tail -n 1 "$work/counts")
  total_pass=$((total_pass + p))
  total_fail=$((total_fail + f))
  say "$rev took $((SECONDS - t0)) s"
done

if [[ -n $server_pid ]] && ! kill -0 "$server_pid" 2>/dev/null; then
  rc=0
  wait "$server_pid" || rc=$?
  server_pid=""
  echo "FAIL the server exited during the run (status $rc)"
  total_fail=$((total_fail + 1))
fi

echo "== overall (${revisions[*]}; scored + required not-scored scenarios):"
echo "$total_pass passed, $total_fail failed"
if ((total_fail > 0)); then
  server_tail
  exit 1
fi
