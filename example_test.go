package weir_test

import (
	"context"
	"fmt"
	"log"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/weir-engine/weir"
)

// counter keeps a count per word and emits it when the input ends.
type counter struct{ count weir.ValueState[int64] }

// Open registers keyed state; each parallel subtask gets its own copy.
func (c *counter) Open(rc *weir.KeyedRuntimeContext[string]) error {
	var err error
	c.count, err = weir.GetValueState[int64](rc, "count")
	return err
}

func (c *counter) ProcessElement(ctx *weir.KeyedContext[string, string], word string) error {
	n, seen := c.count.Value()
	c.count.Update(n + 1)
	if !seen {
		// A bounded source ends with the maximal watermark, which fires
		// every event-time timer: a hook for "at the end of input".
		ctx.TimerService().RegisterEventTimeTimer(math.MaxInt64)
	}
	return nil
}

func (c *counter) OnTimer(ctx *weir.KeyedContext[string, string], _ int64) error {
	n, _ := c.count.Value()
	ctx.Collect(ctx.Key() + "\t" + strconv.FormatInt(n, 10))
	return nil
}

// The README's tour program: final word counts with keyed state and a timer.
func Example() {
	env := weir.NewEnv(weir.WithParallelism(4), weir.WithStdout(os.Stdout))
	lines := weir.FromSlice(env, []string{"to be or not to be", "that is the question"})
	words := weir.FlatMap(lines, func(line string, out weir.Collector[string]) error {
		for _, w := range strings.Fields(line) {
			out.Collect(strings.ToLower(w))
		}
		return nil
	})
	counts := weir.Process(weir.KeyBy(words, func(w string) string { return w }),
		weir.KeyedProcessFunction[string, string, string](&counter{}))
	// Sort for a stable example output; the program itself would Print.
	got, err := weir.Collect(context.Background(), counts)
	if err != nil {
		log.Fatal(err)
	}
	slicesSort(got)
	for _, line := range got {
		fmt.Println(line)
	}
	// Output:
	// be	2
	// is	1
	// not	1
	// or	1
	// question	1
	// that	1
	// the	1
	// to	2
}

// ExampleMap shows a stateless transformation collected back.
func ExampleMap() {
	env := weir.NewEnv(weir.WithParallelism(1))
	squares := weir.Map(weir.FromSlice(env, []int{1, 2, 3}), func(v int) (int, error) { return v * v, nil })
	got, err := weir.Collect(context.Background(), squares)
	fmt.Println(got, err)
	// Output: [1 4 9] <nil>
}

// ExampleWindow sums readings per sensor in one-second tumbling windows of
// event time.
func ExampleWindow() {
	type reading struct {
		Sensor string
		TS     int64
		Value  int
	}
	env := weir.NewEnv(weir.WithParallelism(2))
	in := weir.FromSlice(env, []reading{{"a", 100, 1}, {"a", 900, 2}, {"b", 950, 5}, {"a", 1200, 4}})
	timed := weir.AssignTimestampsAndWatermarks(in,
		weir.BoundedOutOfOrderness(0, func(r reading) int64 { return r.TS }))
	sums := weir.WindowReduce(
		weir.Window(weir.KeyBy(timed, func(r reading) string { return r.Sensor }), weir.TumblingEventTimeWindows(1e9)),
		func(a, b reading) (reading, error) { return reading{a.Sensor, max(a.TS, b.TS), a.Value + b.Value}, nil })
	out := weir.Map(sums, func(r reading) (string, error) { return fmt.Sprintf("%s %d", r.Sensor, r.Value), nil })
	got, _ := weir.Collect(context.Background(), out)
	slicesSort(got)
	fmt.Println(got)
	// Output: [a 3 a 4 b 5]
}
