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
// Errors cross with their kinds (rpc.EncodeRemoteError): a handler's error
// comes back as an rpc.RemoteError that matches the same sentinels under
// errors.Is (fs.ErrNotExist, scheduler.ErrUnrecoverable, ...). The
// process-local error references of rpc.EncodeError cannot cross a process
// boundary: the sending side takes them out of its rpc.Handoff and zeroes
// them, the receiving side zeroes any it gets, so a foreign id never
// resolves to one of its own values.
//
// Unlike rpc.Local, calls run concurrently: two calls from one sender may
// reach the handler in either order. A caller that needs an order chains on
// the first call's Future.
//
// Heartbeats run on one bidirectional stream per pair of processes
// (Client.Heartbeat, Server.ServeHeartbeats): each end sends a Heartbeat
// every interval and declares the other lost when the timeout passes
// without one, or at once when the stream breaks (the peer process died,
// its connection closed). The decision is package heartbeat's Monitor.
package grpcrpc
