package weir_test

import (
	"context"
	"fmt"
	"log"
	"slices"
	"time"

	"github.com/weir-engine/weir"
)

// visit is a page view of a user at an event time in milliseconds.
type visit struct {
	User string
	TS   int64
}

// sessionReport receives the number of views of a session (incrementally
// counted) with the session's user and window.
type sessionReport struct{}

func (sessionReport) Process(ctx *weir.WindowContext[string, string], counts []int64) error {
	w := ctx.Window()
	ctx.Collect(fmt.Sprintf("%s: %d views in [%d, %d)", ctx.Key(), counts[0], w.Start, w.End))
	return nil
}

// viewCount counts views; its accumulators merge, as sessions need.
type viewCount struct{}

func (viewCount) CreateAccumulator() int64            { return 0 }
func (viewCount) Add(_ visit, n int64) (int64, error) { return n + 1, nil }
func (viewCount) GetResult(n int64) (int64, error)    { return n, nil }
func (viewCount) Merge(a, b int64) (int64, error)     { return a + b, nil }

// Sessions of page views with a 30-minute gap, counted incrementally and
// reported with their windows. Views up to 10 minutes out of order find
// their sessions; ann's view at minute 10 comes after the watermark
// passed her first session (which ended at minute 75, with 3 views), and
// within the hour of allowed lateness it fires the session again with 4.
func ExampleEventTimeSessionWindows() {
	const min = int64(time.Minute / time.Millisecond)
	views := []visit{
		{"ann", 0}, {"bob", 5 * min}, {"ann", 20 * min}, {"ann", 45 * min},
		{"bob", 100 * min}, {"ann", 10 * min}, {"ann", 200 * min},
	}
	env := weir.NewEnv(weir.WithParallelism(2))
	// A watermark after every view (for a deterministic example; the
	// default is periodic), trailing the latest view by 10 minutes.
	// One subtask reads and stamps the views, in order.
	src := weir.AssignTimestampsAndWatermarks(weir.FromSlice(env, views).SetParallelism(1), weir.WatermarkStrategy[visit]{
		Timestamp: func(v visit) int64 { return v.TS }, OutOfOrderness: 10 * time.Minute, PerElement: true,
	}).SetParallelism(1)
	sessions := weir.Window(weir.KeyBy(src, func(v visit) string { return v.User }), weir.EventTimeSessionWindows(30*time.Minute)).
		AllowedLateness(time.Hour)
	reports := weir.WindowAggregateProcess(sessions, weir.AggregateFunction[visit, int64, int64](viewCount{}), sessionReport{})
	got, err := weir.Collect(context.Background(), reports)
	if err != nil {
		log.Fatal(err)
	}
	slices.Sort(got) // subtasks emit in parallel
	for _, line := range got {
		fmt.Println(line)
	}
	// Output:
	// ann: 1 views in [12000000, 13800000)
	// ann: 3 views in [0, 4500000)
	// ann: 4 views in [0, 4500000)
	// bob: 1 views in [300000, 2100000)
	// bob: 1 views in [6000000, 7800000)
}
