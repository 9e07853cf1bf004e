package weir_test

import (
	"context"
	"fmt"
	"log"
	"math"
	"slices"
	"time"

	"github.com/weir-engine/weir"
)

// elementCounter counts the elements its subtask saw, in operator list state:
// the count survives failures and restores, at any parallelism (each
// restored subtask gets some of the old subtasks' counts).
type elementCounter struct {
	counts weir.ListState[int64]
	n      int64
}

func (c *elementCounter) InitializeState(ctx *weir.StateInitializationContext) error {
	var err error
	if c.counts, err = weir.GetOperatorListState[int64](ctx, "counts"); err != nil {
		return err
	}
	for _, n := range c.counts.Get() {
		c.n += n
	}
	return nil
}

func (c *elementCounter) SnapshotState(weir.StateSnapshotContext) error {
	c.counts.Update([]int64{c.n})
	return nil
}

func (c *elementCounter) Map(word string) (string, error) {
	c.n++
	return fmt.Sprintf("%s %d", word, c.n), nil
}

func ExampleCheckpointedFunction() {
	env := weir.NewEnv(weir.WithParallelism(1))
	words := weir.FromSlice(env, []string{"to", "be", "or", "not"})
	counted := weir.MapWith(words, weir.MapFunction[string, string](&elementCounter{}))
	out, err := weir.Collect(context.Background(), counted)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out)
	// Output: [to 1 be 2 or 3 not 4]
}

type sale struct {
	Product string
	Cents   int64
}

type rate struct {
	Currency string
	PerCent  int64
}

var rates = weir.NewMapStateDescriptor[string, int64]("rates")

// totals keeps each product's total in the rate that the broadcast stream
// set last: a new rate rescales every product's total (ApplyToKeyedState),
// so the result does not depend on when the rate arrived.
type totals struct{ total weir.ValueState[int64] }

func (t *totals) Open(rc *weir.KeyedRuntimeContext[string]) error {
	var err error
	t.total, err = weir.GetValueState[int64](rc, "total")
	return err
}

func (t *totals) ProcessElement(ctx *weir.KeyedReadOnlyBroadcastContext[string, string], s sale) error {
	rs, err := weir.GetReadOnlyBroadcastState(ctx, rates)
	if err != nil {
		return err
	}
	r, ok := rs.Get("EUR")
	if !ok {
		r = 1
	}
	n, _ := t.total.Value()
	t.total.Update(n + s.Cents*r)
	ctx.TimerService().RegisterEventTimeTimer(math.MaxInt64) // the end of input
	return nil
}

func (t *totals) ProcessBroadcastElement(ctx *weir.KeyedBroadcastContext[string, string], r rate) error {
	rs, err := weir.GetBroadcastState(ctx, rates)
	if err != nil {
		return err
	}
	old, ok := rs.Get(r.Currency)
	if !ok {
		old = 1
	}
	rs.Put(r.Currency, r.PerCent)
	return ctx.ApplyToKeyedState("total", func(string) error {
		n, _ := t.total.Value()
		t.total.Update(n / old * r.PerCent)
		return nil
	})
}

func (t *totals) OnTimer(ctx *weir.KeyedContext[string, string], _ int64) error {
	n, _ := t.total.Value()
	ctx.Collect(fmt.Sprintf("%s %d", ctx.Key(), n))
	return nil
}

func ExampleConnectKeyedBroadcast() {
	env := weir.NewEnv(weir.WithParallelism(2))
	sales := weir.KeyBy(weir.FromSlice(env, []sale{{"tea", 300}, {"cake", 450}, {"tea", 250}}), func(s sale) string { return s.Product })
	bc := weir.Broadcast(weir.FromSlice(env, []rate{{"EUR", 2}}), rates)
	out, err := weir.Collect(context.Background(),
		weir.ProcessKeyedBroadcast(weir.ConnectKeyedBroadcast(sales, bc), weir.KeyedBroadcastProcessFunction[string, sale, rate, string](&totals{})))
	if err != nil {
		log.Fatal(err)
	}
	slices.Sort(out)
	fmt.Println(out)
	// Output: [cake 900 tea 1100]
}

type userEvent struct {
	User string
	TS   int64
}

func ExampleIntervalJoin() {
	env := weir.NewEnv(weir.WithParallelism(2))
	ts := weir.WatermarkStrategy[userEvent]{Timestamp: func(c userEvent) int64 { return c.TS }, OutOfOrderness: time.Minute}
	user := func(c userEvent) string { return c.User }
	views := weir.KeyBy(weir.AssignTimestampsAndWatermarks(weir.FromSlice(env, []userEvent{{"ann", 1000}, {"bob", 5000}}), ts), user)
	buys := weir.KeyBy(weir.AssignTimestampsAndWatermarks(weir.FromSlice(env, []userEvent{{"ann", 1500}, {"ann", 9000}, {"bob", 4000}}), ts), user)
	// A buy joins a view of the same user from at most 2 s before it.
	joined := weir.IntervalJoin(views, buys, 0, 2*time.Second, func(v, b userEvent) (string, error) {
		return fmt.Sprintf("%s viewed at %d, bought at %d", v.User, v.TS, b.TS), nil
	})
	out, err := weir.Collect(context.Background(), joined)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range out {
		fmt.Println(s)
	}
	// Output: ann viewed at 1000, bought at 1500
}

var rejected = weir.NewOutputTag[string]("rejected")

type validate struct{}

func (validate) ProcessElement(ctx *weir.ProcessContext[int64], v int64) error {
	if v < 0 {
		weir.Output(ctx, rejected, fmt.Sprint("negative: ", v))
		return nil
	}
	ctx.Collect(v)
	return nil
}

func ExampleProcessStream() {
	env := weir.NewEnv(weir.WithParallelism(1))
	valid := weir.ProcessStream(weir.FromSlice(env, []int64{3, -1, 4}), weir.ProcessFunction[int64, int64](validate{}))
	out, err := weir.Collect(context.Background(), weir.Union(
		weir.Map(valid, func(v int64) (string, error) { return fmt.Sprint("valid: ", v), nil }),
		weir.SideOutput(valid, rejected)))
	if err != nil {
		log.Fatal(err)
	}
	slices.Sort(out)
	fmt.Println(out)
	// Output: [negative: -1 valid: 3 valid: 4]
}

func ExampleWindowCoGroup() {
	env := weir.NewEnv(weir.WithParallelism(2))
	ts := weir.WatermarkStrategy[userEvent]{Timestamp: func(c userEvent) int64 { return c.TS }, OutOfOrderness: time.Minute}
	user := func(c userEvent) string { return c.User }
	views := weir.KeyBy(weir.AssignTimestampsAndWatermarks(weir.FromSlice(env, []userEvent{{"ann", 1000}, {"ann", 1200}, {"bob", 5000}}), ts), user)
	buys := weir.KeyBy(weir.AssignTimestampsAndWatermarks(weir.FromSlice(env, []userEvent{{"ann", 1500}}), ts), user)
	// Per user and 10 s window: views and buys, also without any buy.
	grouped := weir.WindowCoGroup(views, buys, weir.TumblingEventTimeWindows(10*time.Second),
		func(u string, w weir.TimeWindow, vs, bs []userEvent, out weir.Collector[string]) error {
			out.Collect(fmt.Sprintf("%s in %v: %d views, %d buys", u, w, len(vs), len(bs)))
			return nil
		})
	out, err := weir.Collect(context.Background(), grouped)
	if err != nil {
		log.Fatal(err)
	}
	slices.Sort(out)
	for _, s := range out {
		fmt.Println(s)
	}
	// Output:
	// ann in [0, 10000): 2 views, 1 buys
	// bob in [0, 10000): 1 views, 0 buys
}
