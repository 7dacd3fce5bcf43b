#!/usr/bin/env bash
# Build mcptray's Linux release archive, the equivalent of `fyne package -os linux`
# without its cold -trimpath rebuild of the whole tool (~250 s): our own
# `go build -trimpath` shares the build cache with later runs.
#
#   scripts/package.sh          build bin/mcptray + bin/mcptray-stdio, write
#                               dist/mcptray-VERSION-linux-ARCH.tar.gz, then check it
#   scripts/package.sh check [ARCHIVE]
#                               only check an archive (default: this version's)
#
# Layout (no top-level directory, like Fyne's tarballs):
#   Makefile  README.md
#   usr/local/bin/{mcptray,mcptray-stdio}
#   usr/local/share/applications/mcptray.desktop
#   usr/local/share/icons/hicolor/SIZExSIZE/apps/mcptray.png
#   usr/local/share/metainfo/io.github.mcptray.mcptray.metainfo.xml
#
# VERSION (env) overrides the version; otherwise Details.Version from
# FyneApp.toml, else `git describe`. GO (env) is the go command.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
ICON_SIZES=(16 32 48 64 128 256)
APP_ID=io.github.mcptray.mcptray

version() {
  if [[ -n ${VERSION:-} ]]; then
    echo "$VERSION"
    return
  fi
  local v
  # Version = "x.y.z" in the [Details] table.
  v=$(sed -n '/^\[Details\]/,/^\[/s/^[[:space:]]*Version[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' FyneApp.toml 2>/dev/null | head -n1)
  if [[ -z $v ]]; then
    v=$(git describe --tags --always --dirty 2>/dev/null) || v=0.0.0-dev
    v=${v#v}
  fi
  echo "$v"
}

VER=$(version)
ARCH=$("$GO" env GOARCH)
NAME=mcptray-$VER-linux-$ARCH
ARCHIVE=dist/$NAME.tar.gz

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }
fail() {
  echo "package: $*" >&2
  exit 1
}
TMPS=()
cleanup() { ((${#TMPS[@]} == 0)) || rm -rf "${TMPS[@]}"; }
trap cleanup EXIT

# The paths the archive must hold (files only).
expected_paths() {
  echo Makefile
  [[ ! -f README.md ]] || echo README.md
  echo LICENSE
  echo usr/local/bin/mcptray
  echo usr/local/bin/mcptray-stdio
  echo usr/local/share/applications/mcptray.desktop
  echo "usr/local/share/metainfo/$APP_ID.metainfo.xml"
  local s
  for s in "${ICON_SIZES[@]}"; do
    echo "usr/local/share/icons/hicolor/${s}x$s/apps/mcptray.png"
  done
}

check() {
  local archive=$1 t0 tmp listing p out
  t0=$(now)
  [[ -f $archive ]] || fail "$archive: no such archive (run make package)"
  tmp=$(mktemp -d)
  TMPS+=("$tmp")
  echo "==> check $archive"
  listing=$(tar -tzf "$archive")
  tar -tvzf "$archive"
  while read -r p; do
    grep -qxF -- "$p" <<<"$listing" || fail "$archive lacks $p"
  done < <(expected_paths)
  tar -xzf "$archive" -C "$tmp"
  local bin=$tmp/usr/local/bin
  # Both were built with -trimpath (which also keeps -ldflags out of the build
  # info, so the version is checked by running them below).
  for p in mcptray mcptray-stdio; do
    [[ -x $bin/$p ]] || fail "$p is not executable"
    out=$("$GO" version -m "$bin/$p")
    grep -qE '^[[:space:]]*build[[:space:]]+-trimpath=true' <<<"$out" || fail "$p: not built with -trimpath"
  done
  grep -qE '^[[:space:]]*build[[:space:]]+CGO_ENABLED=0' <<<"$("$GO" version -m "$bin/mcptray-stdio")" ||
    fail "mcptray-stdio was built with cgo"
  # They run from the extracted tree, in an empty home (no config is touched).
  local home=(env LANG=en_US.UTF-8 HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" XDG_DATA_HOME="$tmp/home/.local/share")
  mkdir -p "$tmp/home/.config"
  out=$("${home[@]}" timeout 10 "$bin/mcptray" --version) || fail "mcptray --version failed"
  [[ $out == "mcptray $VER" ]] || fail "mcptray --version printed '$out', want 'mcptray $VER'"
  echo "mcptray --version: $out"
  out=$("${home[@]}" timeout 10 "$bin/mcptray" version) || fail "mcptray version failed"
  [[ $out == "mcptray $VER" ]] || fail "mcptray version printed '$out'"
  # mcptray-stdio: --version if it has one; it has no flags today, so
  # otherwise it must start and end cleanly at EOF on stdin (no mcptray is
  # started: that happens on the first request).
  if out=$("${home[@]}" timeout 10 "$bin/mcptray-stdio" --version </dev/null 2>&1) && [[ $out == *"$VER"* ]]; then
    echo "mcptray-stdio --version: $out"
  else
    out=$("${home[@]}" timeout 10 "$bin/mcptray-stdio" </dev/null 2>&1) || fail "mcptray-stdio did not exit 0 at EOF: $out"
    echo "mcptray-stdio: has no --version flag; started and exited 0 at EOF on stdin"
  fi
  # The desktop entry and the AppStream file are valid.
  if command -v desktop-file-validate >/dev/null 2>&1; then
    desktop-file-validate "$tmp/usr/local/share/applications/mcptray.desktop" || fail "desktop-file-validate failed"
    echo "desktop-file-validate: ok"
  else
    echo "package: desktop-file-validate not installed (apt desktop-file-utils); skipped" >&2
  fi
  if command -v appstreamcli >/dev/null 2>&1; then
    appstreamcli validate --no-net --no-color "$tmp/usr/local/share/metainfo/$APP_ID.metainfo.xml" >"$tmp/as.log" 2>&1 ||
      {
        cat "$tmp/as.log" >&2
        fail "appstreamcli validate failed"
      }
    echo "appstreamcli validate: ok"
  fi
  # The archive's Makefile installs every file under DESTDIR/PREFIX and uninstall removes them.
  make -s -C "$tmp" install DESTDIR="$tmp/root" PREFIX=/usr >/dev/null
  while read -r p; do
    case $p in usr/local/*) [[ -f $tmp/root/usr/${p#usr/local/} ]] || fail "make install did not install ${p#usr/local/}" ;; esac
  done < <(expected_paths)
  make -s -C "$tmp" uninstall DESTDIR="$tmp/root" PREFIX=/usr >/dev/null
  [[ -z $(find "$tmp/root" -type f) ]] || fail "make uninstall left: $(find "$tmp/root" -type f)"
  echo "make install/uninstall (DESTDIR, PREFIX=/usr): ok"
  echo "check: ok ($(elapsed "$t0"))"
}

if [[ ${1:-} == check ]]; then
  check "${2:-$ARCHIVE}"
  exit 0
fi
[[ $# -eq 0 ]] || fail "usage: scripts/package.sh [check [ARCHIVE]]"

T0=$(now)
LDFLAGS="-s -w -X main.version=$VER"
echo "==> build $VER for linux/$ARCH (-trimpath -ldflags \"$LDFLAGS\")"
t=$(now)
CGO_ENABLED=1 "$GO" build -trimpath -ldflags "$LDFLAGS" -o bin/mcptray .
echo "bin/mcptray ($(elapsed "$t"))"
t=$(now)
CGO_ENABLED=0 "$GO" build -trimpath -ldflags "$LDFLAGS" -o bin/mcptray-stdio ./cmd/mcptray-stdio
echo "bin/mcptray-stdio ($(elapsed "$t"))"

echo "==> stage $ARCHIVE"
t=$(now)
mkdir -p dist
STAGE=$(mktemp -d dist/.stage.XXXXXX)
TMPS+=("$STAGE")
root=$STAGE/usr/local
install -Dm0755 bin/mcptray "$root/bin/mcptray"
install -Dm0755 bin/mcptray-stdio "$root/bin/mcptray-stdio"
install -Dm0644 packaging/mcptray.desktop "$root/share/applications/mcptray.desktop"
mkdir -p "$root/share/metainfo"
# Reproducible: the commit's time for the release date and the archive's mtimes.
mtime=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
sed -e "s/@VERSION@/$VER/" -e "s/@DATE@/$(date -u -d "@$mtime" +%F)/" "packaging/$APP_ID.metainfo.xml" >"$root/share/metainfo/$APP_ID.metainfo.xml"
"$GO" run packaging/icons.go assets/icon.png "$root/share/icons/hicolor" "${ICON_SIZES[@]}"
sed "s/@ICON_SIZES@/${ICON_SIZES[*]}/" packaging/Makefile >"$STAGE/Makefile"
[[ ! -f README.md ]] || install -m0644 README.md "$STAGE/README.md"
install -m0644 LICENSE "$STAGE/LICENSE"
chmod -R u=rwX,go=rX "$STAGE"

# Sorted names, root owner, no gzip timestamp.
(cd "$STAGE" && tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$mtime" -cf - -- *) |
  gzip -n >"$ARCHIVE.tmp"
mv "$ARCHIVE.tmp" "$ARCHIVE"
echo "$ARCHIVE: $(du -h "$ARCHIVE" | cut -f1) ($(elapsed "$t"))"

check "$ARCHIVE"
echo "package: $ARCHIVE ($(elapsed "$T0") in all)"
