# shellcheck shell=bash
# Sourced by the test scripts: installs a pinned npm manifest (package.json +
# package-lock.json, which also pins Node 22 as the npm package "node") into
# a cache dir once, re-installing only when the manifest changes. Concurrent
# runs sharing the cache take turns (flock).
#
#   npm_cache_install MANIFEST_DIR CACHE_DIR WHAT MUST_EXIST...
#
# Each MUST_EXIST is a file the install holds (a server's entry script): one
# missing means the cache is incomplete, and it is installed again.
#
# The caller defines say and die. After it, CACHE_DIR/node_modules/node/bin/node
# is Node 22.
npm_cache_install() {
  local manifest=$1 cache=$2 what=$3 must complete=1
  shift 3
  local node=$cache/node_modules/node/bin/node want have=""
  mkdir -p "$(dirname "$cache")"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$cache.lock"
    flock 9
  fi
  want=$(cat "$manifest/package.json" "$manifest/package-lock.json" | sha256sum | cut -d' ' -f1)
  [[ -f $cache/.installed ]] && have=$(<"$cache/.installed")
  for must in "$@"; do [[ -e $must ]] || complete=0; done
  if ! [[ $have == "$want" && -x $node && $complete == 1 ]]; then
    command -v npm >/dev/null 2>&1 || die "npm not found (make deps installs it)"
    say "installing $what and Node 22 into $cache (once)"
    local t0=$SECONDS v
    mkdir -p "$cache"
    rm -f "$cache/.installed"
    cp "$manifest/package.json" "$manifest/package-lock.json" "$cache/"
    if ! (cd "$cache" && npm ci --no-audit --no-fund --loglevel=error) >"$cache/npm.log" 2>&1; then
      tail -n 30 "$cache/npm.log" >&2
      die "npm ci failed (log: $cache/npm.log)"
    fi
    v=$("$node" --version) || die "the installed Node does not run: $node"
    [[ ${v%%.*} == v22 ]] || die "expected Node 22, got $v"
    printf '%s\n' "$want" >"$cache/.installed"
    say "installed in $((SECONDS - t0)) s (Node $v)"
  fi
  if command -v flock >/dev/null 2>&1; then exec 9>&-; fi
}
