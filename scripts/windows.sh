#!/usr/bin/env bash
# mcptray for Windows, cross-compiled here: the desktop app (Fyne and SQLite
# need cgo, so mingw-w64's gcc compiles their C) and the stdio shim (pure Go).
# Here they are checked by inspecting their PE headers and resources, and
# the archives by listing them; make wine runs them under Wine (tests/wine).
#
#   scripts/windows.sh build     dist/windows/mcptray.exe (GUI subsystem, icon,
#                                manifest and version embedded) and mcptray-stdio.exe
#                                (console), each inspected (make windows; make test)
#   scripts/windows.sh package   build, then dist/mcptray-VERSION-windows-amd64.zip and
#                                the per-user installer dist/mcptray-VERSION-windows-amd64-setup.exe
#   scripts/windows.sh installer the installer alone, of the programs build made (make wine)
#   scripts/windows.sh check     inspect the programs and list the zip and the installer
#
# VERSION (env) overrides the version; GO (env) is the go command.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/release-lib.sh
. scripts/release-lib.sh

VER=$(version)
OUT=dist/windows
NAME=mcptray-$VER-windows-amd64
ZIP=dist/$NAME.zip
SETUP=dist/$NAME-setup.exe
CC_WIN=${CC_WIN:-x86_64-w64-mingw32-gcc}
WINDRES=${WINDRES:-x86_64-w64-mingw32-windres}
SYSO=rsrc_windows_amd64.syso

# version4 is VERSION as Windows wants it in a version block: four numbers.
version4() {
  local v=${VER%%[-+]*} a b c
  IFS=. read -r a b c _ <<<"$v"
  echo "${a:-0}.${b:-0}.${c:-0}.0"
}

# resources compiles the icon, the manifest and the version block into the
# .syso the Go linker embeds in mcptray.exe (it takes every .syso of the
# package's folder, hence the root; removed again after the build).
resources() {
  local tmp=$1
  "$GO" run packaging/icons.go assets/icon.png "$tmp/mcptray.ico" 16 24 32 48 64 128 256
  cp packaging/windows/mcptray.exe.manifest "$tmp/"
  sed -e "s/@VERSION4@/$(version4 | tr . ,)/g" -e "s/@VERSION@/$VER/g" packaging/windows/mcptray.rc.in >"$tmp/mcptray.rc"
  "$WINDRES" -I "$tmp" -i "$tmp/mcptray.rc" -O coff -o "$tmp/$SYSO"
}

build() {
  local t0 t tmp ldflags
  t0=$(now)
  tmp=$(tmpdir)
  mkdir -p "$OUT"
  resources "$tmp"
  ldflags="-s -w -X main.version=$VER"
  echo "==> build $VER for windows/amd64 ($CC_WIN)"
  t=$(now)
  cp "$tmp/$SYSO" "$SYSO"
  # shellcheck disable=SC2064 # the name is fixed now
  trap "rm -f '$PWD/$SYSO'; cleanup" EXIT
  CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC=$CC_WIN "$GO" build -trimpath -tags "$GUI_TAGS" -ldflags "$ldflags -H windowsgui" -o "$OUT/mcptray.exe" .
  rm -f "$SYSO"
  echo "$OUT/mcptray.exe: $(size "$OUT/mcptray.exe") ($(elapsed "$t"))"
  t=$(now)
  CGO_ENABLED=0 GOOS=windows GOARCH=amd64 "$GO" build -trimpath -ldflags "$ldflags" -o "$OUT/mcptray-stdio.exe" ./cmd/mcptray-stdio
  echo "$OUT/mcptray-stdio.exe: $(size "$OUT/mcptray-stdio.exe") ($(elapsed "$t"))"
  inspect
  echo "windows build: ok ($(elapsed "$t0"))"
}

inspect() {
  [[ -f $OUT/mcptray.exe && -f $OUT/mcptray-stdio.exe ]] || fail "no Windows programs in $OUT (run make windows)"
  "$GO" run packaging/windows/pecheck.go gui "$OUT/mcptray.exe" "$VER"
  "$GO" run packaging/windows/pecheck.go console "$OUT/mcptray-stdio.exe"
}

# stage DIR: what the zip and the installer hold, in DIR/mcptray.
stage() {
  mkdir -p "$1/mcptray"
  cp "$OUT/mcptray.exe" "$OUT/mcptray-stdio.exe" "$1/mcptray/"
  # Notepad reads CRLF; the files are the repository's.
  sed 's/$/\r/' LICENSE >"$1/mcptray/LICENSE.txt"
  cp README.md "$1/mcptray/README.md"
}

# installer: the per-user installer of the programs in $OUT, as built.
installer() {
  local t tmp id
  t=$(now)
  tmp=$(tmpdir)
  stage "$tmp"
  # The installer's uninstaller offers to take mcptray out of every client.
  for id in $("$GO" run ./packaging/clientids.go); do
    echo "!insertmacro RemoveEntry \"$id\""
  done >"$tmp/clients.nsh"
  "$GO" run packaging/icons.go assets/icon.png "$tmp/mcptray.ico" 16 24 32 48 64 128 256
  # NSIS_COMPRESSOR (make wine: zlib) trades size for time: lzma takes
  # minutes on a loaded machine, and the checks install, not download.
  makensis -V2 ${NSIS_COMPRESSOR:+"-XSetCompressor /FINAL $NSIS_COMPRESSOR"} -NOCD -DVERSION="$VER" -DVERSION4="$(version4)" -DSRC="$tmp/mcptray" -DICON="$tmp/mcptray.ico" \
    -DCLIENTS="$tmp/clients.nsh" -DOUTFILE="$PWD/$SETUP" packaging/windows/mcptray.nsi
  echo "$SETUP: $(size "$SETUP") ($(elapsed "$t"))"
}

package() {
  local t tmp
  build
  echo "==> $ZIP and $SETUP"
  t=$(now)
  tmp=$(tmpdir)
  stage "$tmp"
  rm -f "$ZIP"
  (cd "$tmp" && TZ=UTC find mcptray -exec touch -d "@$(mtime)" {} + && zip -qX -r - mcptray) >"$ZIP"
  echo "$ZIP: $(size "$ZIP") ($(elapsed "$t"))"
  installer
  check
}

check() {
  echo "==> check the Windows artefacts"
  inspect
  [[ -f $ZIP ]] || fail "$ZIP: no such archive (run make package)"
  local listing p
  listing=$(unzip -Z1 "$ZIP")
  unzip -l "$ZIP"
  for p in mcptray/mcptray.exe mcptray/mcptray-stdio.exe mcptray/LICENSE.txt mcptray/README.md; do
    grep -qxF "$p" <<<"$listing" || fail "$ZIP lacks $p"
  done
  [[ -f $SETUP ]] || fail "$SETUP: no such installer (run make package)"
  # A 64-bit installer (NSIS's amd64 stub) for 64-bit programs: Debian's
  # Wine runs 64-bit programs alone, and the checks run it (make wine).
  local kind
  kind=$(file -b "$SETUP")
  [[ $kind == "PE32+ executable (GUI) x86-64"* ]] || fail "$SETUP: $kind, not a 64-bit Windows GUI program"
  echo "$SETUP: $kind"
  # 7-Zip reads NSIS installers: the files it installs.
  if command -v 7z >/dev/null 2>&1; then
    listing=$(7z l -ba "$SETUP" 2>/dev/null | awk '{print $NF}')
    7z l "$SETUP" | sed -n '/^---/,$p'
    for p in mcptray.exe mcptray-stdio.exe uninstall.exe; do
      grep -q "$p" <<<"$listing" || fail "$SETUP does not install $p"
    done
  fi
  echo "windows check: ok"
}

case ${1:-} in
build) build ;;
package) package ;;
check) check ;;
installer) inspect && installer ;;
*) fail "usage: scripts/windows.sh build|package|installer|check" ;;
esac
