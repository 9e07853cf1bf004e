package weir_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

var oddTag = weir.NewOutputTag[string]("odd")

// splitParity emits even numbers to the main output and odd ones, as
// text, to a side output.
type splitParity struct{}

func (splitParity) ProcessElement(ctx *weir.ProcessContext[int64], v int64) error {
	if v%2 == 0 {
		ctx.Collect(v)
		return nil
	}
	weir.Output(ctx, oddTag, fmt.Sprint("odd ", v))
	return nil
}

func TestProcessStreamSideOutput(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(3))
	ints := weir.Generate(env, weir.Generator[int64]{Fn: func(i int64) (int64, error) { return i, nil }, Count: 1000})
	even := weir.ProcessStream(ints, weir.ProcessFunction[int64, int64](splitParity{}))
	got, err := weir.Collect(context.Background(), weir.Union(
		weir.Map(even, func(v int64) (string, error) { return fmt.Sprint("even ", v), nil }),
		weir.SideOutput(even, oddTag)))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for v := range 1000 {
		want = append(want, fmt.Sprintf("%s %d", map[bool]string{true: "even", false: "odd"}[v%2 == 0], v))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%d elements, want %d; first %v", len(got), len(want), got[:min(3, len(got))])
	}
}

// timerUser registers a timer on a non-keyed stream.
type timerUser struct{ processing bool }

func (f timerUser) ProcessElement(ctx *weir.ProcessContext[int64], v int64) error {
	if f.processing {
		ctx.TimerService().RegisterProcessingTimeTimer(ctx.TimerService().CurrentProcessingTime() + 10)
	} else {
		ctx.TimerService().RegisterEventTimeTimer(v)
	}
	ctx.Collect(v)
	return nil
}

// A non-keyed stream has no timers: registering one fails the job with an
// error that says so, as in Flink.
func TestProcessStreamRefusesTimers(t *testing.T) {
	for _, tt := range []struct {
		name       string
		processing bool
		want       string
	}{
		{"processing time", true, "processing-time timer"},
		{"event time", false, "event-time timer at 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := weir.NewEnv(weir.WithParallelism(1))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err := weir.Collect(ctx, weir.ProcessStream(weir.FromSlice(env, []int64{1, 2}), weir.ProcessFunction[int64, int64](timerUser{tt.processing})))
			if !errors.Is(err, weir.ErrTimerNotKeyed) || !contains(err, tt.want) {
				t.Fatalf("error %v, want ErrTimerNotKeyed naming the %s", err, tt.want)
			}
		})
	}
}
