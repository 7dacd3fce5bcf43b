#!/usr/bin/env bash
# Builds bin/mcptray and bin/mcptray-stdio for this computer, with the one
# set of flags make build (hence make install and make run) and make
# package share. Sharing them lets each reuse what the other compiled (the
# cgo parts, SQLite and GLFW, take minutes cold), and makes the installed
# programs the packaged ones:
#
#   -trimpath         no folder of this computer in the programs
#   -buildmode=pie    position-independent, as Debian's hardening asks
#                     (lintian: hardening-no-pie)
#   -s -w             no symbol table or debug information: smaller programs
#   -X main.version   the version (FyneApp.toml, see release-lib.sh), which
#                     the programs say and make install and the packages name
#
# The Makefile's GOFLAGS hold the first two for every go command it runs
# (vet, staticcheck, the tests): change them together, or a cold make test
# compiles the desktop toolkit's C code twice.
#
# mcptray gets the desktop app's tags (GUI_TAGS, release-lib.sh says why);
# mcptray-stdio is built without cgo. VERSION (env) overrides the version;
# BIN_DIR (env) is where the programs go (default bin; the upgrade check
# builds a second version beside); GO (env) is the go command.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/release-lib.sh
. scripts/release-lib.sh

VER=$(version)
LDFLAGS="-s -w -X main.version=$VER"
FLAGS=(-trimpath -buildmode=pie -ldflags "$LDFLAGS")
echo "==> build $VER for $("$GO" env GOOS)/$("$GO" env GOARCH) (go build ${FLAGS[*]:0:${#FLAGS[@]}-1} \"$LDFLAGS\")"
# gobuild.sh says what it builds while it builds: a first build of the
# desktop app takes minutes.
BIN_DIR=${BIN_DIR:-bin}
CGO_ENABLED=1 GO=$GO bash scripts/gobuild.sh "$BIN_DIR/mcptray" . "${FLAGS[@]}" -tags "$GUI_TAGS"
CGO_ENABLED=0 GO=$GO bash scripts/gobuild.sh "$BIN_DIR/mcptray-stdio" ./cmd/mcptray-stdio "${FLAGS[@]}"
