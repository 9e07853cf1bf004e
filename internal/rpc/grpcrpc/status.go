package grpcrpc

import (
	"context"
	"errors"
	"fmt"

	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// toStatus turns a handler's error into the gRPC status that carries it:
// a code for the transport, and the error's text and kinds as an Error
// detail.
func toStatus(err error) error {
	code := codes.Unknown
	switch {
	case errors.Is(err, context.Canceled):
		code = codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		code = codes.DeadlineExceeded
	}
	st := status.New(code, err.Error())
	if d, derr := st.WithDetails(rpc.EncodeRemoteError(err)); derr == nil {
		st = d
	}
	return st.Err()
}

// callError turns the error of a call of method on addr into the error
// its caller gets: the handler's error, with its kinds, when the server
// sent one; ctx's error when ctx ended; rpc.ErrUnreachable when no server
// or endpoint answered; otherwise the transport's error with context.
func callError(ctx context.Context, addr, method string, err error) error {
	st, ok := status.FromError(err)
	if !ok {
		return fmt.Errorf("grpcrpc: %s on %s: %w", method, addr, err)
	}
	for _, d := range st.Details() {
		if m, ok := d.(*rpcpb.Error); ok {
			return rpc.DecodeError(incoming(m))
		}
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("grpcrpc: %s on %s: %w", method, addr, ctxErr)
	}
	switch st.Code() {
	case codes.Unavailable, codes.NotFound:
		return fmt.Errorf("%w: %s on %s: %s", rpc.ErrUnreachable, method, addr, st.Message())
	case codes.Canceled:
		return fmt.Errorf("grpcrpc: %s on %s: %s: %w", method, addr, st.Message(), context.Canceled)
	case codes.DeadlineExceeded:
		return fmt.Errorf("grpcrpc: %s on %s: %s: %w", method, addr, st.Message(), context.DeadlineExceeded)
	}
	return fmt.Errorf("grpcrpc: %s on %s: %s: %s", method, addr, st.Code(), st.Message())
}
