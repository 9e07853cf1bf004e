package async

import (
	"slices"
	"testing"
)

// Inputs 1, 2, 3, a watermark, then 4 and 5, whose requests complete in
// reverse order: ordered mode emits everything in input order once 1
// completed; unordered mode emits each result as it completes, but 4 and 5
// only after the watermark, which waits for 1, 2 and 3 (Flink's
// AsyncWaitOperatorTest: testOrderedWait, testUnorderedWait with
// watermarks).
func TestOrder(t *testing.T) {
	for _, tt := range []struct {
		name    string
		ordered bool
		// after[i] is the output after the i-th release (5 first).
		after [][]string
	}{
		{"ordered", true, [][]string{nil, nil, nil, nil,
			{"1:r1", "2:r2", "3:r3", "wm:10", "4:r4", "5:r5"}}},
		{"unordered", false, [][]string{nil, nil,
			{"3:r3"}, {"3:r3", "2:r2"},
			{"3:r3", "2:r2", "1:r1", "wm:10", "5:r5", "4:r4"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			svc := newService()
			h := newHarness(t, Config[int, string]{Fn: svc.call, Ordered: tt.ordered}, nil)
			for i := 1; i <= 3; i++ {
				h.must(h.op.ProcessElement(int64(i), i))
			}
			h.must(h.op.ProcessWatermark(10))
			for i := 4; i <= 5; i++ {
				h.must(h.op.ProcessElement(int64(i), i))
			}
			if len(h.out.got) != 0 {
				t.Fatalf("emitted %v before any request completed", h.out.got)
			}
			for step, in := range []int{5, 4, 3, 2, 1} {
				svc.release(in)
				h.must(h.runMail())
				if !slices.Equal(h.out.got, tt.after[step]) {
					t.Fatalf("after releasing %d: %v, want %v", in, h.out.got, tt.after[step])
				}
			}
			h.must(h.op.Finish())
		})
	}
}

// A watermark with nothing in flight leaves at once, in both modes.
func TestWatermarkWithEmptyQueue(t *testing.T) {
	for _, ordered := range []bool{true, false} {
		svc := newService()
		h := newHarness(t, Config[int, string]{Fn: svc.call, Ordered: ordered}, nil)
		h.must(h.op.ProcessWatermark(7))
		if !slices.Equal(h.out.got, []string{"wm:7"}) {
			t.Fatalf("ordered=%v: %v", ordered, h.out.got)
		}
	}
}

// At capacity, ProcessElement waits, on the task's goroutine, for a
// request to complete, and emits its results before it issues the next;
// Finish waits for all.
func TestCapacityAndFinish(t *testing.T) {
	for _, ordered := range []bool{true, false} {
		svc := newService()
		h := newHarness(t, Config[int, string]{Fn: svc.call, Ordered: ordered, Capacity: 2}, nil)
		h.must(h.op.ProcessElement(1, 1))
		h.must(h.op.ProcessElement(2, 2))
		go func() {
			<-svc.started
			<-svc.started
			svc.release(1) // only once both are in flight
		}()
		h.must(h.op.ProcessElement(3, 3))
		if got := h.op.Issued(); got != 3 {
			t.Fatalf("%d issued", got)
		}
		if !slices.Equal(h.out.got, []string{"1:r1"}) {
			t.Fatalf("ordered=%v: emitted %v while waiting for room, want the first result", ordered, h.out.got)
		}
		go func() {
			svc.release(3)
			svc.release(2)
		}()
		h.must(h.op.Finish())
		want := map[bool][]string{true: {"1:r1", "2:r2", "3:r3"}}[ordered]
		if ordered && !slices.Equal(h.out.got, want) {
			t.Fatalf("after Finish: %v, want %v", h.out.got, want)
		}
		if got := slices.Sorted(slices.Values(h.out.got)); !slices.Equal(got, []string{"1:r1", "2:r2", "3:r3"}) {
			t.Fatalf("after Finish: %v", h.out.got)
		}
	}
}
