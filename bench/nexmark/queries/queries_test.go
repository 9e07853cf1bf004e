package queries

import (
	"context"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/reference"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// query runs one query on an engine and on the reference.
type query struct {
	name string
	// run builds the query over events, runs it and returns its result
	// sorted as the reference sorts it (the sort is part of its time).
	run func(ctx context.Context, events weir.DataStream[nexmark.Event]) (any, error)
	// want is the reference's answer.
	want func(events iter.Seq[nexmark.Event]) any
}

// collectSorted collects s and sorts it with cmp.
func collectSorted[R any](ctx context.Context, s weir.DataStream[R], cmp func(a, b R) int) (any, error) {
	rows, err := weir.Collect(ctx, s)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(rows, cmp)
	return rows, nil
}

// rowQuery is a query whose result is rows sorted by cmp.
func rowQuery[R any](name string, of func(weir.DataStream[nexmark.Event]) weir.DataStream[R],
	ref func(iter.Seq[nexmark.Event]) []R, cmp func(a, b R) int) query {
	return query{
		name: name,
		run: func(ctx context.Context, events weir.DataStream[nexmark.Event]) (any, error) {
			return collectSorted(ctx, of(events), cmp)
		},
		want: func(events iter.Seq[nexmark.Event]) any { return ref(events) },
	}
}

// queries lists every implemented query with its reference.
var queries = []query{
	{
		name: "q0",
		run: func(ctx context.Context, events weir.DataStream[nexmark.Event]) (any, error) {
			rows, err := weir.Collect(ctx, Q0Of(events))
			if err != nil {
				return nil, err
			}
			return rows, nil
		},
		want: func(events iter.Seq[nexmark.Event]) any {
			return []reference.Q0Result{reference.Q0(events)}
		},
	},
	rowQuery("q1", Q1Of, reference.Q1, reference.CompareQ1),
	rowQuery("q2", Q2Of, reference.Q2, reference.CompareQ2),
	rowQuery("q3", Q3Of, reference.Q3, reference.CompareQ3),
	rowQuery("q4", Q4Of, reference.Q4, func(a, b reference.Q4Row) int { return int(a.Category - b.Category) }),
	rowQuery("q4-winners", WinningBids, reference.WinningBids, func(a, b reference.Winner) int { return int(a.Auction - b.Auction) }),
	rowQuery("q5", Q5Of, reference.Q5, reference.CompareQ5),
	rowQuery("q7", Q7Of, reference.Q7, reference.CompareQ7),
	rowQuery("q8", Q8Of, reference.Q8, reference.CompareQ8),
}

// testConfigs are the streams every query is checked on.
var testConfigs = []struct {
	name string
	cfg  func() nexmark.Config
	opts SourceOptions
}{
	{"in-order", func() nexmark.Config {
		c := nexmark.DefaultConfig()
		c.NumEvents = 4000
		return c
	}, SourceOptions{}},
	// 50 events/s spreads 4000 events over 80 s of event time, so there
	// are many windows; per-element watermarks fire them during the run.
	{"slow-out-of-order", func() nexmark.Config {
		c := nexmark.DefaultConfig()
		c.NumEvents = 4000
		c.FirstEventRate = 50
		c.OutOfOrderGroupSize = 37
		c.Seed = 7
		return c
	}, SourceOptions{PerElementWatermarks: true}},
}

func TestQueriesMatchReference(t *testing.T) {
	for _, q := range queries {
		for _, tc := range testConfigs {
			cfg := tc.cfg()
			want := q.want(nexmark.NewGenerator(cfg).All())
			if reflect.ValueOf(want).Len() == 0 {
				t.Fatalf("%s %s: the reference answer is empty; the test checks nothing", q.name, tc.name)
			}
			for _, p := range []int{1, 3} {
				t.Run(q.name+"/"+tc.name+"/p"+string(rune('0'+p)), func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					env := weir.NewEnv(weir.WithParallelism(p))
					got, err := q.run(ctx, Source(env, cfg, tc.opts))
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("got %d rows, want %d:\ngot  %s\nwant %s", reflect.ValueOf(got).Len(), reflect.ValueOf(want).Len(), head(got), head(want))
					}
				})
			}
		}
	}
}

// head is the start of v's printed form, for failure messages.
func head(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 600 {
		return s[:600] + "..."
	}
	return s
}
