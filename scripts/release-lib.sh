# shellcheck shell=bash
# Sourced by the release scripts (package.sh, windows.sh, mcpb.sh,
# install.sh): the version, timing and failure helpers they share. The
# caller sets GO (the go command) and runs from the repository's root.

APP_ID=io.github.mcptray.mcptray
GO=${GO:-go}
# GUI_TAGS are the build tags of the desktop app, wherever it is built (the
# Makefile reads them here). no_emoji leaves out Fyne's bundled colour emoji
# font: Fyne parses it once for every text style a window uses, about 4 MB
# each, and keeps them for the app's life (about 25 MB of mcptray's memory
# at rest in the tray); emoji in people's own text are drawn from the
# system's emoji font instead. docs/ARCHITECTURE.md has the figures.
GUI_TAGS=${GUI_TAGS-no_emoji}

# version is VERSION (env) when set, else Details.Version from FyneApp.toml,
# else `git describe`.
version() {
  if [[ -n ${VERSION:-} ]]; then
    echo "$VERSION"
    return
  fi
  local v
  v=$(sed -n '/^\[Details\]/,/^\[/s/^[[:space:]]*Version[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' FyneApp.toml 2>/dev/null | head -n1)
  if [[ -z $v ]]; then
    v=$(git describe --tags --always --dirty 2>/dev/null) || v=0.0.0-dev
    v=${v#v}
  fi
  echo "$v"
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }
fail() {
  echo "${0##*/}: $*" >&2
  exit 1
}
# size is a file's size for people.
size() { du -h "$1" | cut -f1; }

# Temporary folders, removed at exit.
TMPS=()
cleanup() { ((${#TMPS[@]} == 0)) || rm -rf "${TMPS[@]}"; }
trap cleanup EXIT
tmpdir() {
  local d
  d=$(mktemp -d "${TMPDIR:-/tmp}/mcptray-release.XXXXXX")
  TMPS+=("$d")
  echo "$d"
}

# mtime is the commit's time, for reproducible archives and release dates.
mtime() { echo "${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"; }
