#!/usr/bin/env bash
# Runs every test of Weir on a fresh machine: installs what the tests need,
# then checks formatting, vets and runs the suite. This is the README's test
# command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/postgres.sh install # PostgreSQL for the connector tests, when missing

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
echo "== go vet"
go vet ./...
echo "== staticcheck"
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
echo "== go test"
go test -count=1 -timeout 15m "$@" ./...
echo "== go test -race (the concurrent core, short runs)"
go test -race -short -count=1 -timeout 10m . ./internal/task ./internal/network ./internal/jobmaster ./jobs/sequence
