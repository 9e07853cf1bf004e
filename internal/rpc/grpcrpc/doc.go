// Package grpcrpc is the control plane between processes: the gateways of
// package rpc (JobMasterGateway, TaskExecutorGateway,
// ResourceManagerGateway) served and called over gRPC, with the services
// of proto/weir/rpc/v1/service.proto, and the heartbeat link that tells
// each end when the other is gone.
//
// It has the shape of rpc.Local: a Server serves gateways under names
// (Serve* returns the function that stops serving), and a Client hands out
// gateways by address. An address is "host:port" or "host:port/name": the
// server's listen address and the name of the endpoint there (several
// JobMasters share one JobManager port, one per job). A call to an
// address that no server or no endpoint answers fails at once with an error
// that matches rpc.ErrUnreachable.
//
// Calls keep their order, as with rpc.Local: a client has one stream per
// gateway kind and server (the JobMasterService, TaskExecutorService and
// ResourceManagerService of service.proto), it sends its calls on it in
// the order they are made, and the server hands them to the gateway in
// that order from one goroutine, so a handler must only queue work, as
// with rpc.Local. Answers come back as they are ready: a call that waits
// holds up no other. A call whose context ends is cancelled on the server
// too (its handler's context ends). When the stream breaks, the calls
// waiting on it fail with rpc.ErrUnreachable (they may or may not have
// run) and the next call opens a new stream.
//
// Errors cross with their kinds (rpc.EncodeRemoteError): a handler's error
// comes back as an rpc.RemoteError that matches the same sentinels under
// errors.Is (fs.ErrNotExist, scheduler.ErrUnrecoverable, ...). The
// process-local error references of rpc.EncodeError cannot cross a process
// boundary: the sending side takes them out of its rpc.Handoff and zeroes
// them, the receiving side zeroes any it gets, so a foreign id never
// resolves to one of its own values.
//
// Heartbeats run on one bidirectional stream per pair of processes
// (Client.Heartbeat, Server.ServeHeartbeats): each end sends a Heartbeat
// every interval and declares the other lost when the timeout passes
// without one, or at once when the stream breaks (the peer process died,
// its connection closed). The decision is package heartbeat's Monitor.
package grpcrpc
