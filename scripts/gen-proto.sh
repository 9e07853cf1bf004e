#!/usr/bin/env bash
# Generates the Go code of Weir's protobuf messages (proto/ ->
# internal/rpc/rpcpb) with the pinned generators: buf v1.75.0, and
# protoc-gen-go (google.golang.org/protobuf) and protoc-gen-go-grpc
# (google.golang.org/grpc/cmd/protoc-gen-go-grpc) as go.mod pins them
# (`tool`).
#
#   scripts/gen-proto.sh          regenerate in place
#   scripts/gen-proto.sh -check   fail if the checked-in code differs from
#                                 what the generator produces
#
# buf is built from the Go module proxy on first use (about 2 minutes on 2
# cores; then cached). When it cannot be built (offline, no module cache),
# -check says so and exits 0 with SKIP, so an offline machine is not failed
# for a tool it cannot fetch; a real difference always fails.
set -euo pipefail
cd "$(dirname "$0")/.."
BUF_VERSION=v1.75.0
OUT=internal/rpc/rpcpb

buf() {
  # GOFLAGS=-mod=mod: buf's module graph is its own, not Weir's go.mod.
  GOFLAGS=-mod=mod go run "github.com/bufbuild/buf/cmd/buf@${BUF_VERSION}" "$@"
}

if [ "${1:-}" != "-check" ]; then
  buf lint
  rm -f "$OUT"/*.pb.go
  buf generate
  exit 0
fi

if ! buf --version >/dev/null 2>&1; then
  echo "SKIP: buf ${BUF_VERSION} cannot be built here (offline?); generated code not checked"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Generate into a copy of the tree's inputs so the checkout is untouched.
mkdir -p "$tmp/src"
cp -r proto buf.yaml buf.gen.yaml go.mod go.sum "$tmp/src/"
(cd "$tmp/src" && buf lint && buf generate)
if ! diff -ru "$OUT" "$tmp/src/$OUT"; then
  echo "generated code in $OUT is stale: run scripts/gen-proto.sh" >&2
  exit 1
fi
echo "generated protobuf code is up to date"
