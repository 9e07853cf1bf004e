package source

import (
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/watermark"
)

// pauser records what alignment tells a SplitPauser reader.
type pauser struct{ log []string }

func (p *pauser) PauseOrResumeSplits(pause, resume []string) error {
	p.log = append(p.log, "pause "+strings.Join(pause, ",")+" resume "+strings.Join(resume, ","))
	return nil
}

// TestAlignmentBlocked: the subtask stops polling when its watermark (least
// of the live splits, the highest reached when all are idle) is above the
// allowed maximum; a SplitPauser reader is told to pause the splits above
// it and to resume them when they no longer are.
func TestAlignmentBlocked(t *testing.T) {
	type split struct {
		id   string
		ts   int64 // largest timestamp emitted; MinWatermark: none
		idle bool
	}
	for _, tc := range []struct {
		name       string
		splits     []split
		maxAllowed []int64 // one check per value
		wantPaused []bool  // blocked, per check
		wantLog    []string
	}{
		{"no split, no watermark: never blocked", nil, []int64{op.MinWatermark}, []bool{false}, nil},
		{"a split that emitted nothing is never ahead",
			[]split{{"a", op.MinWatermark, false}}, []int64{op.MinWatermark}, []bool{false}, nil},
		{"the subtask waits while its least split is ahead; splits pause and resume",
			[]split{{"a", 101, false}, {"b", 301, false}}, []int64{99, 100, 299, 400},
			[]bool{true, false, false, false},
			[]string{"pause a,b resume ", "pause  resume a", "pause  resume b"}},
		{"an idle split behind does not keep the subtask polling",
			[]split{{"a", 11, true}, {"b", 301, false}}, []int64{50},
			[]bool{true}, []string{"pause b resume "}},
		{"all idle: the highest watermark reached counts",
			[]split{{"a", 11, true}, {"b", 301, true}}, []int64{200, 300},
			[]bool{true, false}, []string{"pause b resume ", "pause  resume b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newSplitOutputs[string](&logOutput{}, &watermark.Strategy[string]{}, &manualTimers{})
			for _, s := range tc.splits {
				out := m.ForSplit(s.id).(*splitOutput[string])
				out.maxTS, out.idle = s.ts, s.idle
			}
			p := &pauser{}
			a := &aligner{paused: map[string]bool{}}
			for i, ma := range tc.maxAllowed {
				a.maxAllowed = ma
				got, err := blocked(a, m, p)
				if err != nil {
					t.Fatal(err)
				}
				if got != tc.wantPaused[i] {
					t.Errorf("check %d (max %d): blocked %v, want %v", i, ma, got, tc.wantPaused[i])
				}
			}
			if !slices.Equal(p.log, tc.wantLog) {
				t.Errorf("reader told %q, want %q", p.log, tc.wantLog)
			}
		})
	}
}
