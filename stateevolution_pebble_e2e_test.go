package weir_test

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// accountsMapV1Fn keeps, per key, an account (value state) and every
// version of it by balance (map state), in version 1's struct.
type accountsMapV1Fn struct {
	acct      weir.ValueState[accountV1]
	byBalance weir.MapState[int64, accountV1]
	processed *progress
}

func (a *accountsMapV1Fn) Open(rc *weir.KeyedRuntimeContext[string]) error {
	var err error
	if a.acct, err = weir.GetValueState[accountV1](rc, "account"); err != nil {
		return err
	}
	a.byBalance, err = weir.GetMapState[int64, accountV1](rc, "byBalance")
	return err
}

func (a *accountsMapV1Fn) ProcessElement(_ *weir.KeyedContext[string, string], e ttlEvent) error {
	defer a.processed.add()
	acct, _ := a.acct.Value()
	acct = accountV1{Owner: e.Key, Balance: acct.Balance + 1, Note: "v1 note"}
	a.acct.Update(acct)
	a.byBalance.Put(acct.Balance, acct)
	return nil
}

// accountsMapV2Fn is version 2's: one more write in version 2's struct,
// then at the end of input a report of the account and its versions.
type accountsMapV2Fn struct {
	acct      weir.ValueState[accountV2]
	byBalance weir.MapState[int64, accountV2]
}

func (a *accountsMapV2Fn) Open(rc *weir.KeyedRuntimeContext[string]) error {
	var err error
	if a.acct, err = weir.GetValueState[accountV2](rc, "account"); err != nil {
		return err
	}
	a.byBalance, err = weir.GetMapState[int64, accountV2](rc, "byBalance")
	return err
}

func (a *accountsMapV2Fn) ProcessElement(ctx *weir.KeyedContext[string, string], _ ttlEvent) error {
	acct, _ := a.acct.Value()
	acct.Balance++
	acct.Currency = "EUR"
	a.acct.Update(acct)
	a.byBalance.Put(acct.Balance, acct)
	ctx.TimerService().RegisterEventTimeTimer(math.MaxInt64)
	return nil
}

func (a *accountsMapV2Fn) OnTimer(ctx *weir.KeyedContext[string, string], _ int64) error {
	acct, _ := a.acct.Value()
	versions := maps.Collect(a.byBalance.All())
	var hist []string
	for _, b := range slices.Sorted(maps.Keys(versions)) {
		h := versions[b]
		hist = append(hist, fmt.Sprintf("%d=%s/%q", b, h.Owner, h.Currency))
	}
	ctx.Collect(fmt.Sprintf("%s: %+v versions %v", ctx.Key(), acct, hist))
	return nil
}

// newGate returns a gate for gatedSource open up to n events.
func newGate(n int64) *atomic.Int64 {
	g := new(atomic.Int64)
	g.Store(n)
	return g
}

// awaitCheckpointsAfter waits until n more checkpoints than now completed
// and returns the latest's location. With one checkpoint in flight at a
// time, the second of them was triggered after this call, so it holds
// every record processed before it. The job reports checkpoints only as
// its status, so this polls it.
func awaitCheckpointsAfter(ctx context.Context, c *weir.JobClient, n int) (string, error) {
	want := c.Status().Checkpoints.Completed + n
	for {
		if s := c.Status().Checkpoints; s.Completed >= want {
			return s.Latest, nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("waiting for %d checkpoints: %w", n, ctx.Err())
		case <-c.Done():
			return "", fmt.Errorf("the job ended before %d more checkpoints", n)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// State schema evolution from a retained Pebble checkpoint (the database's
// own files, not a savepoint), full and incremental: version 1 keeps an
// accountV1 per key in value state and its versions in map state, and is
// cancelled after a checkpoint holding two writes per key. A version
// whose struct changed a field's type fails to restore, naming the
// operator, the state and the field, and leaves the checkpoint as it was:
// version 2 (a field dropped, one added, the rest reordered) restores from
// it, at the same parallelism and at another, and finds the old fields by
// name in both states.
func TestStateSchemaEvolutionFromPebbleCheckpoint(t *testing.T) {
	events, phaseEnd := evolutionEvents()
	for _, tt := range []struct {
		name        string
		incremental bool
		parallelism int // of version 2; version 1 runs at 2
	}{
		{"incremental/rescaled", true, 3},
		{"full/in-place", false, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			backend := weir.WithStateBackend(weir.StateBackend{Kind: weir.Pebble, Incremental: tt.incremental, LocalDir: t.TempDir()})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			gate := newGate(int64(phaseEnd))
			prog := newProgress()
			env := weir.NewEnv(weir.WithParallelism(2), backend,
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: 10 * time.Millisecond, Dir: t.TempDir()}))
			src := gatedSource(env, events, gate)
			discard(weir.Process(weir.KeyBy(src, func(e ttlEvent) string { return e.Key }),
				weir.KeyedProcessFunction[string, ttlEvent, string](&accountsMapV1Fn{processed: prog})).UID("accounts"))
			c, err := env.ExecuteAsync(ctx, "evolution-pebble-v1")
			if err != nil {
				t.Fatal(err)
			}
			if err := prog.reached(ctx, phaseEnd); err != nil {
				t.Fatal(err)
			}
			latest, err := awaitCheckpointsAfter(ctx, c, 2)
			if err != nil {
				t.Fatal(err)
			}
			c.Cancel()
			if _, err := c.Wait(); err == nil {
				t.Fatal("the cancelled job reported success")
			}

			// A changed field type fails the restore, naming the
			// operator, the state and the field.
			env = weir.NewEnv(weir.WithParallelism(2), backend, weir.WithRestoreFrom(latest, true),
				weir.WithRestartStrategy(weir.NoRestart()))
			src = gatedSource(env, events, newGate(int64(len(events))))
			discard(weir.Process(weir.KeyBy(src, func(e ttlEvent) string { return e.Key }),
				weir.KeyedProcessFunction[string, ttlEvent, string](accountsBadFn{})).Name("accounts").UID("accounts"))
			_, err = env.Execute(ctx, "evolution-pebble-bad")
			for _, part := range []string{`operator "accounts"`, `state "account"`, "field Balance", "int64 to string"} {
				if !contains(err, part) {
					t.Fatalf("restore with a changed field type: %v; want it to name %q", err, part)
				}
			}

			// Version 2 restores from the same checkpoint.
			var mu sync.Mutex
			var out []string
			env = weir.NewEnv(weir.WithParallelism(tt.parallelism), backend, weir.WithRestoreFrom(latest, false),
				weir.WithRestartStrategy(weir.NoRestart()))
			src = gatedSource(env, events, newGate(int64(len(events))))
			reports := weir.Process(weir.KeyBy(src, func(e ttlEvent) string { return e.Key }),
				weir.KeyedProcessFunction[string, ttlEvent, string](&accountsMapV2Fn{})).UID("accounts")
			weir.AddSink(reports, func(s string) error {
				mu.Lock()
				defer mu.Unlock()
				out = append(out, s)
				return nil
			})
			if _, err := env.Execute(ctx, "evolution-pebble-v2"); err != nil {
				t.Fatal(err)
			}
			var want []string
			for i := range 10 {
				k := fmt.Sprint("k", i)
				want = append(want, fmt.Sprintf(`%s: {Currency:EUR Balance:3 Owner:%s} versions [1=%s/"" 2=%s/"" 3=%s/"EUR"]`, k, k, k, k, k))
			}
			slices.Sort(out)
			if !slices.Equal(out, want) {
				t.Fatalf("reports:\n%s\nwant:\n%s", strings.Join(out, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
