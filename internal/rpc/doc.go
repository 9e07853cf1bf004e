// Package rpc is the boundary between Weir's processes: the asynchronous
// gateways of the JobMaster, the TaskExecutor (a TaskManager's RPC side)
// and the ResourceManager, whose methods take and return the protobuf
// messages of package rpcpb (generated from proto/weir/rpc/v1, see
// scripts/gen-proto.sh), and Local, the in-process transport between them
// (package grpcrpc carries the same gateways between processes).
//
// A gateway method never blocks its caller: it returns a Future, which the
// callee completes when it has answered. A caller that runs an event loop
// (the JobMaster) registers a callback with OnComplete that queues the
// answer as an event; a test may Wait.
//
// Local delivers a call on the caller's goroutine, so calls from one
// sender to one receiver arrive in the order they were made, as on one TCP
// connection; a handler must therefore not block either (every handler
// queues its work: into the JobMaster's loop, into a task's mailbox). When
// encoding is on (Encoding), every request and every answer is marshalled
// to bytes and unmarshalled into a fresh message on the other side, so that
// nothing but what a message can carry crosses: no pointer, no closure, no
// shared buffer. It is on in every test binary and with WEIR_RPC_ENCODE=1,
// off otherwise (the messages are then handed over as they are, which the
// gateways' types already restrict to messages).
//
// Checkpointed state crosses only as handles (TaskStateHandles in
// acknowledgements and declines, TaskRestore in deployments); convert.go
// maps them to and from the checkpoint storage's types. One thing still
// crosses by reference inside one process, by an id a message carries and
// only a receiver in the same process can resolve: an error's identity (so
// errors.Is finds a user's sentinel in embedded mode; the message carries
// its text and kinds for any other receiver). See Handoff. (A function
// spec's embedded job resolves in a process-local table by design, see
// internal/funcspec.)
package rpc
