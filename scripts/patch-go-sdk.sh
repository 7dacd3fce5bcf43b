#!/usr/bin/env bash
# Re-creates third_party/go-sdk: the pristine go-sdk module VERSION (from the
# module cache, downloaded if missing) with third_party/go-sdk.patch applied.
# go.mod replaces github.com/modelcontextprotocol/go-sdk with that folder; see
# docs/go-sdk-patch.md for why.
#
# Usage: scripts/patch-go-sdk.sh [VERSION]   (default: the version go.mod requires)
# To move to a new go-sdk: bump the require in go.mod, run this with the new
# version; if the patch no longer applies, update it (and the upstream text in
# docs/go-sdk-patch.md), then run `cd third_party/go-sdk && go test ./internal/json/... ./internal/jsonrpc2/... ./mcp`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

GO="${GO:-go}"
mod=github.com/modelcontextprotocol/go-sdk
version="${1:-$(awk -v m="$mod" '$1 == m && $2 ~ /^v/ { print $2; exit }' go.mod)}"
[[ -n "$version" ]] || { echo "patch-go-sdk: no $mod version in go.mod; pass one" >&2; exit 1; }

src="$(cd "$(mktemp -d)" && GOFLAGS=-mod=mod "$GO" mod download -json "$mod@$version" | awk -F'"' '/"Dir":/ { print $4 }')"
[[ -d "$src" ]] || { echo "patch-go-sdk: could not download $mod@$version" >&2; exit 1; }

dst=third_party/go-sdk
rm -rf "$dst"
mkdir -p "$dst"
cp -R "$src/." "$dst/"
chmod -R u+w "$dst"
patch -d "$dst" -p1 --no-backup-if-mismatch < third_party/go-sdk.patch
echo "$dst: $mod $version + third_party/go-sdk.patch"
