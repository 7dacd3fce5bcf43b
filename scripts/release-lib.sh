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

# Temporary folders, removed at exit. Each lives in one folder the script
# makes as it starts: tmpdir is called as $(tmpdir), in a subshell, where
# anything it noted for the cleanup would be lost with the subshell.
RELEASE_TMP=$(mktemp -d "${TMPDIR:-/tmp}/mcptray-release.XXXXXX")
REMOVE_AT_EXIT=("$RELEASE_TMP")
cleanup() { rm -rf "${REMOVE_AT_EXIT[@]}"; }
trap cleanup EXIT
tmpdir() { mktemp -d "$RELEASE_TMP/XXXXXX"; }
# remove_at_exit removes paths made elsewhere (a staging folder inside
# dist/) when the script ends; call it in the script's own shell.
remove_at_exit() { REMOVE_AT_EXIT+=("$@"); }

# mtime is the commit's time, for reproducible archives and release dates.
mtime() { echo "${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"; }
