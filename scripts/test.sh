#!/usr/bin/env bash
# Runs every test of Weir on a fresh machine: installs what the tests need,
# then checks formatting, vets and runs the suite. This is the README's test
# command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/postgres.sh install # PostgreSQL for the connector tests, when missing
./scripts/chromium.sh install # headless Chromium for the dashboard's browser tests, when missing
# The browser tests skip without Chromium only when this is unset: here
# they must run.
export WEIR_REQUIRE_CHROMIUM=1

echo "== gofmt (at ${SECONDS}s)"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
echo "== go vet (at ${SECONDS}s)"
go vet ./...
echo "== staticcheck (at ${SECONDS}s)"
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
echo "== generated protobuf code (scripts/gen-proto.sh -check) (at ${SECONDS}s)"
./scripts/gen-proto.sh -check
echo "== go test (at ${SECONDS}s)"
# Every message between the JobMaster, the TaskManagers and the
# ResourceManager crosses the in-process transport as encoded protobuf
# (internal/rpc; on in any test binary already, stated here for clarity).
export WEIR_RPC_ENCODE=1
go test -count=1 -timeout 15m "$@" ./...
echo "== go test bench/peers (nested module: Beam Go's Nexmark checked against the reference, short) (at ${SECONDS}s)"
# ./... stops at a nested go.mod; -short runs each query on one stream.
(cd bench/peers && go vet ./... && go test -short -count=1 -timeout 10m ./...)
echo "== go test -race (the concurrent core, short runs) (at ${SECONDS}s)"
go test -race -short -count=1 -timeout 10m . ./internal/task ./internal/codec ./internal/network ./internal/jobmaster ./jobs/sequence
echo "== all tests passed in ${SECONDS}s"
