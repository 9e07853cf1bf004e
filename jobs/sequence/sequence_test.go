package sequence_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/jobs/sequence"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// At any parallelism the sources emit every (key, seq) once, each key in
// sequence order, and without failures the job's output verifies.
func TestSequenceWithoutFailures(t *testing.T) {
	cfg := sequence.Config{Keys: 7, RecordsPerKey: 50, ShortRecords: 10}
	for _, p := range []int{1, 2, 3, 8} {
		t.Run(fmt.Sprint("p", p), func(t *testing.T) {
			env := weir.NewEnv(weir.WithParallelism(p))
			counts, err := sequence.Build(env, cfg)
			if err != nil {
				t.Fatal(err)
			}
			got, err := weir.Collect(context.Background(), weir.Map(counts, func(c sequence.Count) (string, error) { return c.String(), nil }))
			if err != nil {
				t.Fatal(err)
			}
			if err := sequence.Verify(cfg, got); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestVerifyCatchesMistakes(t *testing.T) {
	cfg := sequence.Config{Keys: 1, RecordsPerKey: 2}
	for _, tt := range []struct {
		name  string
		lines []string
	}{
		{"duplicate", []string{"k0\t0\t1", "k0\t1\t2", "k0\t1\t2"}},
		{"missing", []string{"k0\t0\t1"}},
		{"wrong count", []string{"k0\t0\t1", "k0\t1\t3"}},
		{"malformed", []string{"k0 0 1"}},
	} {
		if err := sequence.Verify(cfg, tt.lines); err == nil {
			t.Errorf("%s: Verify accepted %q", tt.name, tt.lines)
		}
	}
	if err := sequence.Verify(cfg, []string{"k0\t1\t2", "k0\t0\t1"}); err != nil {
		t.Errorf("correct output rejected: %v", err)
	}
}
