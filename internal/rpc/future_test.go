package rpc_test

import (
	"context"
	"errors"
	"testing"

	"github.com/weir-engine/weir/internal/rpc"
)

// A future is set once; callbacks registered before and after run with the
// answer, in order; Then maps a value and passes an error through.
func TestFuture(t *testing.T) {
	f := rpc.NewFuture[int]()
	var got []int
	f.OnComplete(func(v int, _ error) { got = append(got, v) })
	select {
	case <-f.Done():
		t.Fatal("done before Complete")
	default:
	}
	doubled := rpc.Then(f, func(v int) (int, error) { return 2 * v, nil })
	if !f.Complete(21, nil) || f.Complete(5, nil) {
		t.Fatal("Complete should succeed once and only once")
	}
	f.OnComplete(func(v int, _ error) { got = append(got, v+1) })
	if len(got) != 2 || got[0] != 21 || got[1] != 22 {
		t.Fatalf("callbacks saw %v", got)
	}
	if v, err := doubled.Wait(context.Background()); v != 42 || err != nil {
		t.Fatalf("Then: %d, %v", v, err)
	}
	boom := errors.New("boom")
	failed := rpc.Then(rpc.Failed[int](boom), func(v int) (string, error) { return "unreachable", nil })
	if _, err := failed.Wait(context.Background()); !errors.Is(err, boom) {
		t.Fatalf("Then of a failed future: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := rpc.NewFuture[int]().Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait with a cancelled context: %v", err)
	}
}
