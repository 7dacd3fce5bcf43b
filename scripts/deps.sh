#!/usr/bin/env bash
# Make sure the Debian packages the build and the tests need are installed.
#
#   scripts/deps.sh CHECK:PACKAGE...
#
# CHECK is a command name (looked up with `command -v`) or an absolute path
# (a file that must exist); PACKAGE is the Debian package providing it.
# Prints nothing and exits 0 when everything is present. Otherwise installs
# the missing packages with apt-get (as root, or through passwordless sudo),
# or prints the command to run and exits 1.
set -euo pipefail

missing=()
for spec in "$@"; do
  check=${spec%%:*}
  pkg=${spec#*:}
  if [[ $check == /* ]]; then
    [[ -e $check ]] && continue
  else
    command -v "$check" >/dev/null 2>&1 && continue
  fi
  # The check failed; the package may still be installed (a tool off PATH).
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' && continue
  missing+=("$pkg")
done
((${#missing[@]} == 0)) && exit 0

echo "deps: missing Debian packages: ${missing[*]}" >&2
if ((EUID == 0)); then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "deps: run this, then try again:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { "${sudo[@]}" apt-get update -qq &&
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "deps: apt-get failed" >&2
  exit 1
fi
echo "deps: installed ${missing[*]}" >&2
