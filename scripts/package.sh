#!/usr/bin/env bash
# Build mcptray's Linux release archive, the equivalent of `fyne package -os linux`
# without its cold -trimpath rebuild of the whole tool (~250 s): our own
# `go build -trimpath` shares the build cache with later runs; and the
# Debian package, built with dpkg-deb from the same files under /usr.
#
#   scripts/package.sh          build bin/mcptray + bin/mcptray-stdio (scripts/build.sh,
#                               as make build does), write
#                               dist/mcptray-VERSION-linux-ARCH.tar.gz and
#                               dist/mcptray_VERSION_DEBARCH.deb, then check both
#   scripts/package.sh check [ARCHIVE]
#                               only check an archive (default: this version's)
#                               and this version's .deb
#
# The archive holds one folder, named as the archive is (unpacking it puts
# nothing else in the current folder):
#   mcptray-VERSION-linux-ARCH/
#     Makefile  README.md  LICENSE
#     usr/local/bin/{mcptray,mcptray-stdio}
#     usr/local/share/applications/mcptray.desktop
#     usr/local/share/icons/hicolor/SIZExSIZE/apps/mcptray.png
#     usr/local/share/metainfo/io.github.mcptray.mcptray.metainfo.xml
#
# VERSION (env) overrides the version; otherwise Details.Version from
# FyneApp.toml, else `git describe`. GO (env) is the go command.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/release-lib.sh
. scripts/release-lib.sh
ICON_SIZES=(16 32 48 64 128 256)

VER=$(version)
ARCH=$("$GO" env GOARCH)
NAME=mcptray-$VER-linux-$ARCH
ARCHIVE=dist/$NAME.tar.gz
DEBARCH=$(dpkg --print-architecture 2>/dev/null || echo "$ARCH")
DEB=dist/mcptray_${VER}_$DEBARCH.deb

# validate_entries checks the desktop entry and the AppStream file under
# SHARE (a share/ folder). desktop-file-validate's hints fail it too: it
# exits 0 on them, and one (two main categories) let the menu list mcptray
# twice.
validate_entries() {
  local share=$1 out
  out=$(desktop-file-validate "$share/applications/mcptray.desktop" 2>&1) || fail "desktop-file-validate failed: $out"
  [[ -z $out ]] || fail "desktop-file-validate: $out"
  echo "desktop-file-validate: ok"
  out=$(appstreamcli validate --no-net --no-color "$share/metainfo/$APP_ID.metainfo.xml" 2>&1) ||
    fail "appstreamcli validate failed: $out"
  echo "appstreamcli validate: ok"
}

# The paths the archive's folder must hold (files only).
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
  local archive=$1 t0 tmp top dir listing p out
  t0=$(now)
  [[ -f $archive ]] || fail "$archive: no such archive (run make package)"
  tmp=$(tmpdir)
  top=$(basename "$archive" .tar.gz)
  echo "==> check $archive"
  listing=$(tar -tzf "$archive")
  tar -tvzf "$archive"
  out=$(grep -v -e "^$top/" <<<"$listing" || true)
  [[ -z $out ]] || fail "$archive holds more than its folder $top/: $(head -n3 <<<"$out" | tr '\n' ' ')"
  while read -r p; do
    grep -qxF -- "$top/$p" <<<"$listing" || fail "$archive lacks $top/$p"
  done < <(expected_paths)
  tar -xzf "$archive" -C "$tmp"
  dir=$tmp/$top
  local bin=$dir/usr/local/bin
  # Both were built by scripts/build.sh: -trimpath (which also keeps
  # -ldflags out of the build info, so the version is checked by running
  # them below) and position-independent, as Debian's hardening wants.
  for p in mcptray mcptray-stdio; do
    [[ -x $bin/$p ]] || fail "$p is not executable"
    out=$("$GO" version -m "$bin/$p")
    grep -qE '^[[:space:]]*build[[:space:]]+-trimpath=true' <<<"$out" || fail "$p: not built with -trimpath"
    grep -qE '^[[:space:]]*build[[:space:]]+-buildmode=pie' <<<"$out" || fail "$p: not built with -buildmode=pie"
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
  validate_entries "$dir/usr/local/share"
  # The archive's Makefile installs every file under DESTDIR/PREFIX and uninstall removes them.
  make -s -C "$dir" install DESTDIR="$tmp/root" PREFIX=/usr >/dev/null
  while read -r p; do
    case $p in usr/local/*) [[ -f $tmp/root/usr/${p#usr/local/} ]] || fail "make install did not install ${p#usr/local/}" ;; esac
  done < <(expected_paths)
  make -s -C "$dir" uninstall DESTDIR="$tmp/root" PREFIX=/usr >/dev/null
  [[ -z $(find "$tmp/root" -type f) ]] || fail "make uninstall left: $(find "$tmp/root" -type f)"
  echo "make install/uninstall (DESTDIR, PREFIX=/usr): ok"
  echo "check: ok ($(elapsed "$t0"))"
}

# deb_depends is the Depends line for the programs in DIR: the packages of
# the shared libraries they link (mcptray: libc, GL, X11), as dpkg-shlibdeps
# finds them, which wants a debian/control beside it.
deb_depends() {
  local dir=$1 tmp
  tmp=$(tmpdir)
  mkdir -p "$tmp/debian"
  printf 'Source: mcptray\n\nPackage: mcptray\nArchitecture: any\n' >"$tmp/debian/control"
  (cd "$tmp" && dpkg-shlibdeps -O "$dir"/* 2>/dev/null) | sed -n 's/^shlibs:Depends=//p'
}

# build_deb writes $DEB from the staged tree STAGE (usr/local/...): the same
# files under /usr, the copyright and changelog Debian wants, and a control
# file.
build_deb() {
  local stage=$1 root deb t
  t=$(now)
  root=$(tmpdir)/mcptray
  mkdir -p "$root/DEBIAN" "$root/usr"
  cp -a "$stage/usr/local/." "$root/usr/"
  local doc=$root/usr/share/doc/mcptray
  install -d "$doc"
  {
    echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    echo "Upstream-Name: mcptray"
    echo "Source: https://github.com/mcptray/mcptray"
    echo
    echo "Files: *"
    echo "Copyright: $(sed -n 's/^Copyright (c) //p' LICENSE | head -n1)"
    echo "License: Expat"
    sed -n '/^Permission/,$p' LICENSE | sed -e 's/^$/./' -e 's/^/ /'
  } >"$doc/copyright"
  {
    echo "mcptray ($VER) unstable; urgency=medium"
    echo
    echo "  * Release $VER."
    echo
    echo " -- mcptray authors <mcptray@users.noreply.github.com>  $(date -u -R -d "@$(mtime)")"
  } | gzip -9n >"$doc/changelog.gz"
  # Not packaging faults: Go builds the libraries a program uses into it;
  # the programs' help is their --help; and mcptray-stdio, position-
  # independent and without cgo, is a program that needs no shared library
  # (Go's runtime calls the kernel itself), which lintian takes for a
  # shared library lacking its prerequisites.
  install -d "$root/usr/share/lintian/overrides"
  printf '%s\n' "mcptray: embedded-library *" "mcptray: no-manual-page *" \
    "mcptray: shared-library-lacks-prerequisites [usr/bin/mcptray-stdio]" >"$root/usr/share/lintian/overrides/mcptray"
  {
    echo "Package: mcptray"
    echo "Version: $VER"
    echo "Architecture: $DEBARCH"
    echo "Maintainer: mcptray authors <mcptray@users.noreply.github.com>"
    echo "Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)"
    echo "Depends: $(deb_depends "$root/usr/bin")"
    echo "Section: utils"
    echo "Priority: optional"
    echo "Homepage: https://github.com/mcptray/mcptray"
    echo "Description: MCP server for your own tools, in the system tray"
    echo " Define tools, resources and prompts and serve them to AI assistants"
    echo " over MCP. AI clients connect over HTTP or through mcptray-stdio, a"
    echo " small stdio bridge that starts mcptray when needed."
  } >"$root/DEBIAN/control"
  # The desktop's caches pick up the new entry and icons (triggers do it on
  # current Debian; these are for older ones and cost nothing).
  chmod -R u=rwX,go=rX "$root"
  TZ=UTC find "$root" -exec touch -h -d "@$(mtime)" {} +
  deb=$DEB.tmp
  dpkg-deb --root-owner-group -Zgzip --build "$root" "$deb" >/dev/null
  mv "$deb" "$DEB"
  echo "$DEB: $(size "$DEB") ($(elapsed "$t"))"
}

# check_deb lists the package, checks its files and runs lintian, and the
# desktop and AppStream validators on what it installs.
check_deb() {
  local deb=$1 t0 listing p tmp
  t0=$(now)
  [[ -f $deb ]] || fail "$deb: no such package (run make package)"
  echo "==> check $deb"
  dpkg-deb --info "$deb"
  listing=$(dpkg-deb --contents "$deb" | awk '{print $NF}' | sed 's,^\./,/,')
  dpkg-deb --contents "$deb"
  while read -r p; do
    case $p in usr/local/*) grep -qxF "/usr/${p#usr/local/}" <<<"$listing" || fail "$deb lacks /usr/${p#usr/local/}" ;; esac
  done < <(expected_paths)
  tmp=$(tmpdir)
  dpkg-deb --extract "$deb" "$tmp"
  validate_entries "$tmp/usr/share"
  local out
  # Errors and warnings fail the check (a warning was how a program built
  # without PIE showed: hardening-no-pie); what lintian only notes (I:) is
  # not shown.
  out=$(lintian --tag-display-limit 0 "$deb" 2>&1 | grep -v 'running with root privileges') || true
  [[ -z $out ]] || echo "$out"
  ! grep -q '^[EW]: ' <<<"$out" || fail "lintian reported errors or warnings"
  echo "lintian: no errors, no warnings"
  echo "check: ok ($(elapsed "$t0"))"
}

if [[ ${1:-} == check ]]; then
  check "${2:-$ARCHIVE}"
  check_deb "$DEB"
  exit 0
fi
[[ $# -eq 0 ]] || fail "usage: scripts/package.sh [check [ARCHIVE]]"

T0=$(now)
# The flags make build uses too: one build cache, and the installed
# programs are the packaged ones.
GO=$GO VERSION=$VER bash scripts/build.sh

echo "==> stage $ARCHIVE"
t=$(now)
mkdir -p dist
STAGE=$(mktemp -d dist/.stage.XXXXXX)
remove_at_exit "$STAGE"
TOP=$STAGE/$NAME
root=$TOP/usr/local
install -Dm0755 bin/mcptray "$root/bin/mcptray"
install -Dm0755 bin/mcptray-stdio "$root/bin/mcptray-stdio"
install -Dm0644 packaging/mcptray.desktop "$root/share/applications/mcptray.desktop"
mkdir -p "$root/share/metainfo"
# Reproducible: the commit's time for the release date and the archive's mtimes.
mtime=$(mtime)
sed -e "s/@VERSION@/$VER/" -e "s/@DATE@/$(date -u -d "@$mtime" +%F)/" "packaging/$APP_ID.metainfo.xml" >"$root/share/metainfo/$APP_ID.metainfo.xml"
"$GO" run packaging/icons.go assets/icon.png "$root/share/icons/hicolor" "${ICON_SIZES[@]}"
sed "s/@ICON_SIZES@/${ICON_SIZES[*]}/" packaging/Makefile >"$TOP/Makefile"
[[ ! -f README.md ]] || install -m0644 README.md "$TOP/README.md"
install -m0644 LICENSE "$TOP/LICENSE"
chmod -R u=rwX,go=rX "$STAGE"

# Sorted names, root owner, no gzip timestamp.
(cd "$STAGE" && tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$mtime" -cf - -- "$NAME") |
  gzip -n >"$ARCHIVE.tmp"
mv "$ARCHIVE.tmp" "$ARCHIVE"
echo "$ARCHIVE: $(size "$ARCHIVE") ($(elapsed "$t"))"
build_deb "$TOP"

check "$ARCHIVE"
check_deb "$DEB"
echo "package: $ARCHIVE, $DEB ($(elapsed "$T0") in all)"
