#!/bin/sh
# deps.sh: installs the Debian packages ndlua needs, when any is missing.
# Usage: scripts/deps.sh PACKAGE...   (the Makefile passes its DEPS list)
set -eu
missing=""
for pkg in "$@"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  case "$status" in
    *"install ok installed"*) ;;
    *) missing="$missing $pkg" ;;
  esac
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing" >&2
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
$sudo apt-get install -y --no-install-recommends $missing >&2 ||
  { $sudo apt-get update >&2 && $sudo apt-get install -y --no-install-recommends $missing >&2; }
