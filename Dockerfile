# The weir binary in a small image: `weir jobmanager`, `weir taskmanager`
# and the client commands. Build: docker build -t weir .
# A program with jobs of its own builds its own main package the same way
# (every process of a cluster must run the same binary).

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Static (no cgo): the image has no C library.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/weir ./cmd/weir

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/weir /usr/local/bin/weir
# 65532:65532, distroless's nonroot; Kubernetes checks it with runAsNonRoot.
USER 65532:65532
# The ports of Flink's defaults: RPC, REST, and the ones the Kubernetes
# manifests give a TaskManager's RPC and data plane.
EXPOSE 6123 8081 6122 6121
ENTRYPOINT ["/usr/local/bin/weir"]
CMD ["--help"]
