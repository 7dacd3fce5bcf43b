#!/usr/bin/env bash
# Installs the programs built in bin/ for the current user, without root
# (make install; make run installs, then starts the installed app):
#
#   ~/.local/bin/mcptray, ~/.local/bin/mcptray-stdio
#   ~/.local/share/applications/mcptray.desktop (Exec names the full path:
#     ~/.local/bin may not be on the desktop session's PATH)
#   ~/.local/share/icons/hicolor/SIZExSIZE/apps/mcptray.png
#   ~/.local/share/metainfo/io.github.mcptray.mcptray.metainfo.xml
#
# AI clients' entries then name ~/.local/bin/mcptray-stdio, which neither
# `make clean` nor moving the checkout breaks, and a later `make install`
# replaces the programs in place, so the entries keep working.
#
#   scripts/install.sh             install (PREFIX, default ~/.local)
#   scripts/install.sh uninstall   remove what install put there (never the database)
#
# BIN_DIR (env) is where the built programs are (default bin); GO (env) is
# the go command.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/release-lib.sh
. scripts/release-lib.sh

PREFIX=${PREFIX:-$HOME/.local}
BIN_DIR=${BIN_DIR:-bin}
ICON_SIZES=(16 32 48 64 128 256)
DESKTOP=$PREFIX/share/applications/mcptray.desktop
METAINFO=$PREFIX/share/metainfo/$APP_ID.metainfo.xml

# put installs SRC as DST through a temporary file and a rename, so a
# running mcptray keeps its old file and a shim started meanwhile never
# sees half a program.
put() {
  local mode=$1 src=$2 dst=$3
  mkdir -p "$(dirname "$dst")"
  install -m"$mode" "$src" "$dst.new"
  mv -f "$dst.new" "$dst"
}

install_all() {
  local b tmp s said
  # What the programs say is what this says, and what the packages name:
  # a program built otherwise than by scripts/build.sh is not installed.
  for b in mcptray mcptray-stdio; do
    [[ -x $BIN_DIR/$b ]] || fail "$BIN_DIR/$b: not built (make build)"
    said=$("$BIN_DIR/$b" --version 2>&1) || fail "$BIN_DIR/$b --version failed: $said"
    [[ $said == "$b $(version)" ]] || fail "$BIN_DIR/$b says it is '$said', not '$b $(version)': build it with make build"
  done
  for b in mcptray mcptray-stdio; do
    put 0755 "$BIN_DIR/$b" "$PREFIX/bin/$b"
  done
  tmp=$(tmpdir)
  sed "s,^Exec=mcptray$,Exec=$PREFIX/bin/mcptray," packaging/mcptray.desktop >"$tmp/mcptray.desktop"
  put 0644 "$tmp/mcptray.desktop" "$DESKTOP"
  sed -e "s/@VERSION@/$(version)/" -e "s/@DATE@/$(date -u -d "@$(mtime)" +%F)/" \
    "packaging/$APP_ID.metainfo.xml" >"$tmp/metainfo.xml"
  put 0644 "$tmp/metainfo.xml" "$METAINFO"
  "$GO" run packaging/icons.go assets/icon.png "$tmp/icons" "${ICON_SIZES[@]}"
  for s in "${ICON_SIZES[@]}"; do
    put 0644 "$tmp/icons/${s}x$s/apps/mcptray.png" "$PREFIX/share/icons/hicolor/${s}x$s/apps/mcptray.png"
  done
  if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$PREFIX/share/applications" 2>/dev/null || true
  fi
  echo "installed mcptray $(version) into $PREFIX (programs in $PREFIX/bin)"
  case ":$PATH:" in
  *":$PREFIX/bin:"*) ;;
  *) echo "note: $PREFIX/bin is not on your PATH; add it to run mcptray from a terminal" ;;
  esac
}

uninstall_all() {
  local s
  rm -f "$PREFIX/bin/mcptray" "$PREFIX/bin/mcptray-stdio" "$DESKTOP" "$METAINFO"
  for s in "${ICON_SIZES[@]}"; do
    rm -f "$PREFIX/share/icons/hicolor/${s}x$s/apps/mcptray.png"
  done
  echo "removed mcptray from $PREFIX (your database and settings stay)"
}

case ${1:-install} in
install) install_all ;;
uninstall) uninstall_all ;;
*) fail "usage: scripts/install.sh [install|uninstall]" ;;
esac
