package grpcrpc

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/weir-engine/weir/internal/rpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// callError turns the error of a stream that carries method to addr (a
// call stream that broke, a heartbeat stream that could not open) into
// the error its caller gets: ctx's error when ctx ended;
// rpc.ErrUnreachable when no server answered or the stream ended;
// otherwise the transport's error with context.
func callError(ctx context.Context, addr, method string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("grpcrpc: %s on %s: %w", method, addr, ctxErr)
	}
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: %s on %s: the server ended the stream", rpc.ErrUnreachable, method, addr)
	}
	st, ok := status.FromError(err)
	if !ok {
		return fmt.Errorf("grpcrpc: %s on %s: %w", method, addr, err)
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
