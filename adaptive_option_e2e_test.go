package weir_test

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir"
)

// WithScheduler("adaptive", ...) runs the job on the adaptive scheduler of
// the embedded mini-cluster (its states are in the engine's log), with
// the same results; an unknown scheduler or mode fails the job with a
// clear error.
func TestAdaptiveSchedulerOption(t *testing.T) {
	for _, mode := range []string{"", "reactive"} {
		t.Run("mode="+mode, func(t *testing.T) {
			var logs bytes.Buffer
			env := weir.NewEnv(weir.WithParallelism(2), weir.WithScheduler("adaptive", mode),
				weir.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			in := make([]int, 1000)
			for i := range in {
				in[i] = i
			}
			doubled := weir.Map(weir.FromSlice(env, in).Rebalance(), func(v int) (int, error) { return 2 * v, nil })
			got, err := weir.Collect(context.Background(), doubled)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			for i, v := range got {
				if v != 2*i {
					t.Fatalf("got[%d] = %d, want %d (of %d records)", i, v, 2*i, len(got))
				}
			}
			if len(got) != len(in) {
				t.Fatalf("got %d records, want %d", len(got), len(in))
			}
			if !strings.Contains(logs.String(), "to=Executing") {
				t.Fatalf("the adaptive scheduler never executed the job; log:\n%s", logs.String())
			}
		})
	}
	for _, tt := range []struct{ scheduler, mode, want string }{
		{"fast", "", `unknown scheduler "fast"`},
		{"adaptive", "lazy", `mode "lazy"`},
	} {
		env := weir.NewEnv(weir.WithScheduler(tt.scheduler, tt.mode))
		_, err := weir.Collect(context.Background(), weir.FromSlice(env, []int{1}))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("scheduler %q mode %q: %v, want an error with %q", tt.scheduler, tt.mode, err, tt.want)
		}
	}
}
