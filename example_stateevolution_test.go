package weir_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weir-engine/weir"
)

// Version 1 and version 2 of the struct a job keeps as keyed state: version
// 2 dropped Note, added Tier and moved Visits.
type (
	visitorV1 struct {
		Name   string
		Visits int
		Note   string
	}
	visitorV2 struct {
		Visits int
		Tier   string
		Name   string
	}
)

// countV1 is version 1's function: it counts visits.
type countV1 struct {
	v    weir.ValueState[visitorV1]
	seen *progress
}

func (c *countV1) Open(rc *weir.KeyedRuntimeContext[string]) (err error) {
	c.v, err = weir.GetValueState[visitorV1](rc, "visitor")
	return err
}

func (c *countV1) ProcessElement(ctx *weir.KeyedContext[string, string], e ttlEvent) error {
	defer c.seen.add()
	v, _ := c.v.Value()
	c.v.Update(visitorV1{Name: e.Key, Visits: v.Visits + 1, Note: "from v1"})
	return nil
}

// reportV2 is version 2's: it reports what it restored.
type reportV2 struct{ v weir.ValueState[visitorV2] }

func (r *reportV2) Open(rc *weir.KeyedRuntimeContext[string]) (err error) {
	r.v, err = weir.GetValueState[visitorV2](rc, "visitor")
	return err
}

func (r *reportV2) ProcessElement(ctx *weir.KeyedContext[string, string], e ttlEvent) error {
	v, _ := r.v.Value()
	ctx.Collect(fmt.Sprintf("%+v", v))
	return nil
}

// A job keeps a struct per key in a ValueState; it is stopped with a
// savepoint, and a new version of the job, whose struct gained and lost
// fields, is started from that savepoint at another parallelism. Fields
// are matched by name: the restored state has the old Name and Visits, an
// empty Tier, and no Note.
func ExampleGetValueState_schemaEvolution() {
	ctx := context.Background()
	events := []ttlEvent{{"ann", "visit"}, {"bob", "visit"}, {"ann", "visit"}, {"ann", "report"}, {"bob", "report"}}
	var gate atomic.Int64
	dir, err := os.MkdirTemp("", "weir-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	byKey := func(e ttlEvent) string { return e.Key }

	// Version 1 sees the three visits, then stops with a savepoint.
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour}))
	seen := newProgress()
	discard(weir.Process(weir.KeyBy(gatedSource(env, events, &gate), byKey),
		weir.KeyedProcessFunction[string, ttlEvent, string](&countV1{seen: seen})).UID("visitors"))
	job, err := env.ExecuteAsync(ctx, "visitors-v1")
	if err != nil {
		fmt.Println(err)
		return
	}
	gate.Store(3)
	if err := seen.reached(ctx, 3); err != nil {
		fmt.Println(err)
		return
	}
	savepoint, err := job.StopWithSavepoint(ctx, dir, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := job.Wait(); err != nil {
		fmt.Println(err)
		return
	}

	// Version 2 restores the state into visitorV2 and reports it.
	env = weir.NewEnv(weir.WithParallelism(3), weir.WithRestoreFrom(savepoint, false))
	var mu sync.Mutex
	var out []string
	reports := weir.Process(weir.KeyBy(gatedSource(env, events, &gate), byKey),
		weir.KeyedProcessFunction[string, ttlEvent, string](&reportV2{})).UID("visitors")
	weir.AddSink(reports, func(s string) error {
		mu.Lock()
		defer mu.Unlock()
		out = append(out, s)
		return nil
	})
	gate.Store(int64(len(events)))
	if _, err := env.Execute(ctx, "visitors-v2"); err != nil {
		fmt.Println(err)
		return
	}
	slices.Sort(out)
	for _, s := range out {
		fmt.Println(s)
	}
	// Output:
	// {Visits:1 Tier: Name:bob}
	// {Visits:2 Tier: Name:ann}
}
