package alignment

import (
	"strings"
	"testing"
	"time"
)

// Two sources in group "g": fast (drift 100ms, 1 subtask) and slow (drift
// 50ms, 2 subtasks); "other" is alone in group "h".
func sources() []Source {
	return []Source{
		{UID: "fast", Parallelism: 1, Group: "g", MaxDrift: 100 * time.Millisecond},
		{UID: "slow", Parallelism: 2, Group: "g", MaxDrift: 50 * time.Millisecond},
		{UID: "other", Parallelism: 1, Group: "h", MaxDrift: time.Second},
	}
}

func TestCoordinator(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reports []Report
		// want is MaxAllowed of fast, slow and other after the reports.
		want [3]int64
	}{
		{"nothing reported holds every group at the start", nil,
			[3]int64{MinWatermark + 100, MinWatermark + 50, MinWatermark + 1000}},
		{"one unreported subtask holds the group",
			[]Report{{UID: "fast", Watermark: 5000}, {UID: "slow", Subtask: 0, Watermark: 1000}},
			[3]int64{MinWatermark + 100, MinWatermark + 50, MinWatermark + 1000}},
		{"least of the group plus each source's drift",
			[]Report{{UID: "fast", Watermark: 5000}, {UID: "slow", Watermark: 1000}, {UID: "slow", Subtask: 1, Watermark: 2000}},
			[3]int64{1100, 1050, MinWatermark + 1000}},
		{"a later report replaces the earlier",
			[]Report{{UID: "fast", Watermark: 5000}, {UID: "slow", Watermark: 1000}, {UID: "slow", Subtask: 1, Watermark: 2000}, {UID: "slow", Watermark: 3000}},
			[3]int64{2100, 2050, MinWatermark + 1000}},
		{"an idle subtask does not hold the group",
			[]Report{{UID: "fast", Watermark: 5000}, {UID: "slow", Watermark: 1000, State: Idle}, {UID: "slow", Subtask: 1, Watermark: 2000}},
			[3]int64{2100, 2050, MinWatermark + 1000}},
		{"an idle subtask that reports a watermark again holds it",
			[]Report{{UID: "fast", Watermark: 5000}, {UID: "slow", State: Idle}, {UID: "slow", Subtask: 1, Watermark: 2000}, {UID: "slow", Watermark: 1500}},
			[3]int64{1600, 1550, MinWatermark + 1000}},
		{"a finished subtask never holds it again",
			[]Report{{UID: "fast", Watermark: 5000}, {UID: "slow", State: Finished}, {UID: "slow", Watermark: 10}, {UID: "slow", Subtask: 1, Watermark: 2000}},
			[3]int64{2100, 2050, MinWatermark + 1000}},
		{"all idle or finished: nothing holds the group",
			[]Report{{UID: "fast", State: Idle}, {UID: "slow", State: Finished}, {UID: "slow", Subtask: 1, State: Idle}, {UID: "other", State: Finished}},
			[3]int64{MaxWatermark, MaxWatermark, MaxWatermark}},
		{"the drift saturates at MaxWatermark",
			[]Report{{UID: "fast", Watermark: MaxWatermark - 10}, {UID: "slow", State: Finished}, {UID: "slow", Subtask: 1, State: Finished}, {UID: "other", Watermark: 7}},
			[3]int64{MaxWatermark, MaxWatermark, 1007}},
		{"groups are independent",
			[]Report{{UID: "other", Watermark: 7}},
			[3]int64{MinWatermark + 100, MinWatermark + 50, 1007}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(sources())
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tc.reports {
				got, err := c.Report(r)
				if err != nil {
					t.Fatalf("report %+v: %v", r, err)
				}
				if want := c.MaxAllowed(r.UID); got != want {
					t.Fatalf("report %+v answered %d, MaxAllowed says %d", r, got, want)
				}
			}
			for i, uid := range []string{"fast", "slow", "other"} {
				if got := c.MaxAllowed(uid); got != tc.want[i] {
					t.Errorf("MaxAllowed(%s) = %d, want %d", uid, got, tc.want[i])
				}
			}
		})
	}
}

func TestCoordinatorFinishedOnRestore(t *testing.T) {
	c, err := New([]Source{
		{UID: "done", Parallelism: 2, Group: "g", MaxDrift: time.Second, Finished: true},
		{UID: "live", Parallelism: 1, Group: "g"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Report(Report{UID: "live", Watermark: 42}); got != 42 {
		t.Fatalf("a source finished on restore holds the group: live may run to %d, want 42", got)
	}
}

func TestCoordinatorErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sources []Source
		report  Report
		want    string
	}{
		{"empty group", []Source{{UID: "a", Parallelism: 1}}, Report{}, "empty group"},
		{"negative drift", []Source{{UID: "a", Parallelism: 1, Group: "g", MaxDrift: -1}}, Report{}, "negative drift"},
		{"no parallelism", []Source{{UID: "a", Group: "g"}}, Report{}, "parallelism 0"},
		{"uid twice", []Source{{UID: "a", Parallelism: 1, Group: "g"}, {UID: "a", Parallelism: 1, Group: "h"}}, Report{}, "source a twice"},
		{"unknown source", []Source{{UID: "a", Parallelism: 1, Group: "g"}}, Report{UID: "b"}, "unknown source b"},
		{"unknown subtask", []Source{{UID: "a", Parallelism: 1, Group: "g"}}, Report{UID: "a", Subtask: 1}, "no subtask 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(tc.sources)
			if err == nil {
				_, err = c.Report(tc.report)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one containing %q", err, tc.want)
			}
		})
	}
}
