#!/usr/bin/env bash
# Rebuilds the web dashboard: compiles the TypeScript of
# internal/dashboard/web/src into internal/dashboard/web/dist, which is
# checked in and embedded in the binary (so building Weir needs no Node).
# Run it after changing the sources, and commit dist/ with them.
#
#   scripts/build-dashboard.sh          rebuild dist/
#   scripts/build-dashboard.sh -check   rebuild into a temporary directory and
#                                       fail if the checked-in dist/ differs
#
# Needs node and npm; the TypeScript compiler comes from the npm registry at
# the version package-lock.json pins (npm ci).
set -euo pipefail
cd "$(dirname "$0")/../internal/dashboard/web"

command -v npm >/dev/null || { echo "build-dashboard.sh: npm is not installed (Debian: apt-get install npm)" >&2; exit 1; }
npm ci --no-audit --no-fund --silent

if [ "${1:-}" = "-check" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  npx --no-install tsc -p . --outDir "$tmp"
  if ! diff -r "$tmp" dist >/dev/null; then
    echo "build-dashboard.sh: internal/dashboard/web/dist is stale; run scripts/build-dashboard.sh and commit it" >&2
    diff -r "$tmp" dist >&2 || true
    exit 1
  fi
  exit 0
fi
rm -rf dist
npx --no-install tsc -p .
echo "build-dashboard.sh: built $(ls dist | wc -l) files into internal/dashboard/web/dist" >&2
