package weir_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// The state struct of the "accounts" operator in version 1 of a job and
// in version 2, which dropped Note, added Currency and reordered the rest;
// the running total of the "totals" reduce likewise.
type (
	accountV1 struct {
		Owner   string
		Balance int64
		Note    string
	}
	accountV2 struct {
		Currency string
		Balance  int64
		Owner    string
	}
	totalV1 struct {
		Key   string
		Count int
		Debug string
	}
	totalV2 struct {
		Count  int
		Key    string
		Region string
	}
	// accountBadV2 changed Balance's type: its restore must fail.
	accountBadV2 struct {
		Owner   string
		Balance string
	}
)

// accountsV1Fn is version 1's process function: it counts a key's writes
// in its account and keeps their history.
type accountsV1Fn struct {
	acct      weir.ValueState[accountV1]
	hist      weir.ListState[accountV1]
	processed *progress
}

func (a *accountsV1Fn) Open(rc *weir.KeyedRuntimeContext[string]) error {
	var err error
	if a.acct, err = weir.GetValueState[accountV1](rc, "account"); err != nil {
		return err
	}
	a.hist, err = weir.GetListState[accountV1](rc, "history")
	return err
}

func (a *accountsV1Fn) ProcessElement(ctx *weir.KeyedContext[string, string], e ttlEvent) error {
	defer a.processed.add()
	acct, _ := a.acct.Value()
	acct = accountV1{Owner: e.Key, Balance: acct.Balance + 1, Note: "v1 note"}
	a.acct.Update(acct)
	a.hist.Add(acct)
	return nil
}

// accountsV2Fn is version 2's: one more write, then at the end of input
// it reports each account and its history.
type accountsV2Fn struct {
	acct    weir.ValueState[accountV2]
	hist    weir.ListState[accountV2]
	opens   *progress
	failKey string
	failed  *atomic.Bool
}

func (a *accountsV2Fn) Open(rc *weir.KeyedRuntimeContext[string]) error {
	a.opens.add()
	var err error
	if a.acct, err = weir.GetValueState[accountV2](rc, "account"); err != nil {
		return err
	}
	a.hist, err = weir.GetListState[accountV2](rc, "history")
	return err
}

func (a *accountsV2Fn) ProcessElement(ctx *weir.KeyedContext[string, string], e ttlEvent) error {
	if e.Key == a.failKey && a.failed.CompareAndSwap(false, true) {
		return fmt.Errorf("account %s: %w", e.Key, errDesignated)
	}
	acct, _ := a.acct.Value()
	acct.Balance++
	acct.Currency = "EUR"
	a.acct.Update(acct)
	a.hist.Add(acct)
	ctx.TimerService().RegisterEventTimeTimer(math.MaxInt64)
	return nil
}

func (a *accountsV2Fn) OnTimer(ctx *weir.KeyedContext[string, string], _ int64) error {
	acct, _ := a.acct.Value()
	var hist []string
	for _, h := range a.hist.Get() {
		hist = append(hist, fmt.Sprintf("%s/%d/%q", h.Owner, h.Balance, h.Currency))
	}
	ctx.Collect(fmt.Sprintf("%s: %+v history %v", ctx.Key(), acct, hist))
	return nil
}

// accountsBadFn registers the account state with a changed field type.
type accountsBadFn struct{}

func (accountsBadFn) Open(rc *weir.KeyedRuntimeContext[string]) error {
	_, err := weir.GetValueState[accountBadV2](rc, "account")
	return err
}

func (accountsBadFn) ProcessElement(*weir.KeyedContext[string, string], ttlEvent) error { return nil }

// evolutionEvents: phase 1 writes k0..k9 twice (version 1), phase 2 once
// more (version 2).
func evolutionEvents() (events []ttlEvent, phaseEnd int) {
	for range 2 {
		for i := range 10 {
			events = append(events, ttlEvent{fmt.Sprint("k", i), "write"})
		}
	}
	phaseEnd = len(events)
	for i := range 10 {
		events = append(events, ttlEvent{fmt.Sprint("k", i), "write"})
	}
	return events, phaseEnd
}

// State schema evolution through a savepoint (Flink's POJO evolution):
// version 1 of a job keeps an accountV1 per key in value and list state
// and a totalV1 per key in a reduce; it stops with a savepoint after every
// key was written twice. Version 2, whose structs dropped a field, gained
// one and reordered the rest, restores at parallelism 3 instead of 2,
// fails once (restarting from its checkpoint or the savepoint) and writes
// each key once more. On the heap and in Pebble: the old fields come back
// by name, the new ones zero until written, the dropped ones gone.
func TestStateSchemaEvolutionAcrossSavepointRescaleAndFailure(t *testing.T) {
	events, phaseEnd := evolutionEvents()
	for _, kind := range []weir.StateBackendKind{weir.HashMap, weir.Pebble} {
		t.Run(fmt.Sprint(kind), func(t *testing.T) {
			backend := weir.WithStateBackend(weir.StateBackend{Kind: kind})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var gate atomic.Int64
			var mu sync.Mutex
			var out []string
			totals := map[string]totalV2{}
			prog := newProgress()

			env := weir.NewEnv(weir.WithParallelism(2), backend,
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: 10 * time.Millisecond}))
			src := gatedSource(env, events, &gate)
			keyed := weir.KeyBy(src, func(e ttlEvent) string { return e.Key })
			discard(weir.Process(keyed, weir.KeyedProcessFunction[string, ttlEvent, string](&accountsV1Fn{processed: prog})).UID("accounts"))
			t1 := weir.Map(src, func(e ttlEvent) (totalV1, error) { return totalV1{Key: e.Key, Count: 1, Debug: "v1"}, nil })
			discard(weir.Reduce(weir.KeyBy(t1, func(v totalV1) string { return v.Key }), func(a, b totalV1) (totalV1, error) {
				return totalV1{Key: a.Key, Count: a.Count + b.Count, Debug: a.Debug}, nil
			}).UID("totals"))
			c, err := env.ExecuteAsync(ctx, "evolution-v1")
			if err != nil {
				t.Fatal(err)
			}
			gate.Store(int64(phaseEnd))
			if err := prog.reached(ctx, phaseEnd); err != nil {
				t.Fatal(err)
			}
			loc, err := c.StopWithSavepoint(ctx, t.TempDir(), false)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Wait(); err != nil {
				t.Fatal(err)
			}

			var failed atomic.Bool
			opens := newProgress()
			env = weir.NewEnv(weir.WithParallelism(3), backend, weir.WithRestoreFrom(loc, false),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: 10 * time.Millisecond}),
				weir.WithRestartStrategy(weir.FixedDelayRestart(1, 0)))
			src = gatedSource(env, events, &gate)
			keyed = weir.KeyBy(src, func(e ttlEvent) string { return e.Key })
			reports := weir.Process(keyed, weir.KeyedProcessFunction[string, ttlEvent, string](
				&accountsV2Fn{opens: opens, failKey: "k5", failed: &failed})).UID("accounts")
			weir.AddSink(reports, func(s string) error {
				mu.Lock()
				defer mu.Unlock()
				out = append(out, s)
				return nil
			})
			t2 := weir.Map(src, func(e ttlEvent) (totalV2, error) { return totalV2{Key: e.Key, Count: 1, Region: "eu"}, nil })
			sums := weir.Reduce(weir.KeyBy(t2, func(v totalV2) string { return v.Key }), func(a, b totalV2) (totalV2, error) {
				return totalV2{Key: a.Key, Count: a.Count + b.Count, Region: b.Region}, nil
			}).UID("totals")
			weir.AddSink(sums, func(v totalV2) error {
				mu.Lock()
				defer mu.Unlock()
				totals[v.Key] = v // replays after the failure repeat the same values
				return nil
			})
			c, err = env.ExecuteAsync(ctx, "evolution-v2")
			if err != nil {
				t.Fatal(err)
			}
			// The write of k5 fails; the rest of the input follows once
			// the job restarted (its functions opened a second time), so
			// the reports, emitted at the end of input, are emitted once.
			gate.Store(int64(phaseEnd + 6))
			if err := opens.reached(ctx, 6); err != nil {
				t.Fatal(err)
			}
			gate.Store(int64(len(events)))
			res, err := c.Wait()
			if err != nil {
				t.Fatal(err)
			}
			if res.Restarts != 1 {
				t.Fatalf("%d restarts, want the designated failure's 1", res.Restarts)
			}
			var want []string
			for i := range 10 {
				k := fmt.Sprint("k", i)
				want = append(want, fmt.Sprintf(`%s: {Currency:EUR Balance:3 Owner:%s} history [%s/1/"" %s/2/"" %s/3/"EUR"]`, k, k, k, k, k))
				if got, w := totals[k], (totalV2{Key: k, Count: 3, Region: "eu"}); got != w {
					t.Errorf("total of %s = %+v, want %+v", k, got, w)
				}
			}
			slices.Sort(out)
			if !slices.Equal(out, want) {
				t.Fatalf("reports:\n%s\nwant:\n%s", strings.Join(out, "\n"), strings.Join(want, "\n"))
			}

			// A changed field type fails the restore, naming the
			// operator, the state and the field.
			env = weir.NewEnv(weir.WithParallelism(2), backend, weir.WithRestoreFrom(loc, true),
				weir.WithRestartStrategy(weir.NoRestart()))
			src = gatedSource(env, events, &gate)
			discard(weir.Process(weir.KeyBy(src, func(e ttlEvent) string { return e.Key }),
				weir.KeyedProcessFunction[string, ttlEvent, string](accountsBadFn{})).Name("accounts").UID("accounts"))
			_, err = env.Execute(ctx, "evolution-bad")
			for _, part := range []string{`operator "accounts"`, `state "account"`, "field Balance", "int64 to string"} {
				if !contains(err, part) {
					t.Fatalf("restore with a changed field type: %v; want it to name %q", err, part)
				}
			}
		})
	}
}

// discard ends a stream in a sink that drops its elements.
func discard[T any](s weir.DataStream[T]) { weir.AddSink(s, func(T) error { return nil }) }
