package rest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/rest"
)

// AwaitResultsRead returns at once without operations, waits while an
// operation runs and after it ended until a client read its result, and
// gives up when its context ends.
func TestAwaitResultsRead(t *testing.T) {
	f, g := newFake(), newGate()
	f.savepoint = g.savepoint
	ts := serve(t, f, rest.Options{})
	if err := ts.srv.AwaitResultsRead(context.Background()); err != nil {
		t.Fatalf("without operations: %v, want nil at once", err)
	}
	id := ts.trigger(t, "/jobs/"+runningID+"/stop", `{"drain": false}`)
	<-g.started

	awaited := make(chan error, 1)
	go func() { awaited <- ts.srv.AwaitResultsRead(context.Background()) }()
	if op := ts.status(t, runningID, id); op.Status.ID != "IN_PROGRESS" {
		t.Fatalf("status %+v, want IN_PROGRESS", op)
	}
	// A context that ends first: the wait gives up with its error.
	short, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ts.srv.AwaitResultsRead(short); !errors.Is(err, context.Canceled) {
		t.Fatalf("with a canceled context: %v, want context.Canceled", err)
	}
	g.release <- nil
	// The operation ended but nobody read it: still waiting. Reading it
	// ends the wait. (Reads before completion do not count.)
	select {
	case err := <-awaited:
		t.Fatalf("returned %v before the result was read", err)
	default:
	}
	waitFor(t, "COMPLETED", func() bool { return ts.status(t, runningID, id).Status.ID == "COMPLETED" })
	select {
	case err := <-awaited:
		if err != nil {
			t.Fatalf("after the read: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still waiting 10 s after the result was read")
	}
}
