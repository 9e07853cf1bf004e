#!/usr/bin/env bash
# Installs the headless browser of the dashboard's tests (cmd/weir's
# TestDashboard*): Debian's chromium, when missing.
#
#   scripts/chromium.sh install
set -euo pipefail

die() { echo "chromium.sh: $*" >&2; exit 1; }

have() { command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null; }

install_chromium() {
  if have; then return 0; fi
  [ "$(id -u)" -eq 0 ] || die "chromium is not installed; run '$0 install' as root"
  export DEBIAN_FRONTEND=noninteractive
  local apt=(apt-get install -y -qq --no-install-recommends)
  echo "chromium.sh: installing chromium (Debian package)" >&2
  # A fresh machine may have no package lists yet: update once on failure.
  if ! "${apt[@]}" chromium >/dev/null 2>&1; then
    apt-get update -qq >/dev/null
    "${apt[@]}" chromium >/dev/null || die "apt-get could not install chromium"
  fi
  have || die "installed, but no chromium on PATH"
}

case "${1:-}" in
  install) install_chromium ;;
  *) die "usage: $0 install" ;;
esac
