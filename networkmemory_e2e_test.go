package weir_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/network"
)

// keyedCounts adds a job to env: n numbers over an ALL_TO_ALL keyBy into a
// running count per key (10 keys), whose final counts land in counts.
// generated counts the elements the source produced.
func keyedCounts(env *weir.Env, n int64, generated *atomic.Int64, counts *sync.Map) {
	src := weir.Generate(env, weir.Generator[int64]{Count: n, Fn: func(i int64) (int64, error) {
		generated.Add(1)
		return i, nil
	}})
	type kc struct{ Key, Count int64 }
	ones := weir.Map(src, func(i int64) (kc, error) { return kc{i % 10, 1}, nil })
	running := weir.Reduce(weir.KeyBy(ones, func(v kc) int64 { return v.Key }), func(a, b kc) (kc, error) {
		return kc{a.Key, a.Count + b.Count}, nil
	})
	weir.AddSink(running, func(v kc) error {
		// The running counts of a key arrive in order: the last is final.
		counts.Store(v.Key, v.Count)
		return nil
	})
}

// A job whose channels need more buffers than the network memory holds
// fails at submission, before any task runs, and says what to change.
func TestNetworkMemoryTooSmallFailsAtSubmission(t *testing.T) {
	// Parallelism 8 over an ALL_TO_ALL edge: 64 channels, at least 128
	// buffers of 36 KiB; 1 MiB holds 28.
	env := weir.NewEnv(weir.WithParallelism(8), weir.WithNetworkMemory(1<<20))
	var generated atomic.Int64
	var counts sync.Map
	keyedCounts(env, 1000, &generated, &counts)
	_, err := env.Execute(context.Background(), "too wide")
	if !errors.Is(err, network.ErrInsufficientBuffers) {
		t.Fatalf("Execute: %v, want ErrInsufficientBuffers", err)
	}
	for _, want := range []string{"the job needs 128 network buffers (36 KiB each, 4.50 MiB) on TaskManager tm-0",
		"tm-0 has 1 MiB (28 buffers): lower --parallelism or raise --network-memory (weir.WithNetworkMemory)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if n := generated.Load(); n != 0 {
		t.Errorf("the source generated %d elements: a task ran", n)
	}
}

// With just the network memory for the least buffers (one credit and no
// backlog per channel), the job still runs to the right result: every
// channel has its two buffers, the senders wait for credit and nothing
// deadlocks.
func TestLeastNetworkMemoryStillRuns(t *testing.T) {
	// Parallelism 4 over one ALL_TO_ALL edge (the map and sink chain):
	// 16 channels, 32 buffers at the least, 80 with the default sizing.
	const n = 200_000
	var logs lockedBuffer
	env := weir.NewEnv(weir.WithParallelism(4), weir.WithNetworkMemory(32*36<<10),
		weir.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	var generated atomic.Int64
	var counts sync.Map
	keyedCounts(env, n, &generated, &counts)
	if _, err := env.Execute(context.Background(), "least"); err != nil {
		t.Fatal(err)
	}
	if l := logs.String(); !strings.Contains(l, "channels have fewer buffers") || !strings.Contains(l, " credit=1 backlog=0 ") {
		t.Fatalf("the job did not run with the least sizing; its log:\n%s", logs.String())
	}
	for k := range int64(10) {
		if got, _ := counts.Load(k); got != int64(n/10) {
			t.Errorf("key %d: final count %v, want %d", k, got, n/10)
		}
	}
}

// lockedBuffer is a bytes.Buffer that the engine's goroutines may log to.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
