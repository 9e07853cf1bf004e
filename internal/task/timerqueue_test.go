package task

import (
	"slices"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/op"
	"pgregory.net/rapid"
)

// TestTimerQueueMatchesModel drives a timerQueue with bursts of pushes at
// a few times (so that many share one), removals of pending, popped and unknown
// ids, and rounds of popDue, against a list kept sorted by time and then
// by id.
func TestTimerQueueMatchesModel(t *testing.T) {
	base := time.Unix(1000, 0)
	rapid.Check(t, func(t *rapid.T) {
		var q timerQueue
		var model []timerEntry // sorted by (at, id)
		var prev op.TimerID
		t.Repeat(map[string]func(*rapid.T){
			"push": func(t *rapid.T) {
				for range rapid.IntRange(1, 20).Draw(t, "count") {
					at := base.Add(time.Duration(rapid.IntRange(0, 9).Draw(t, "at")) * time.Millisecond)
					id := q.push(at, nil, nil)
					if id <= prev {
						t.Fatalf("push returned id %d after %d", id, prev)
					}
					prev = id
					e := timerEntry{at: at, id: id}
					i, _ := slices.BinarySearchFunc(model, e, compareEntries)
					model = slices.Insert(model, i, e)
				}
			},
			"remove": func(t *rapid.T) {
				id := op.TimerID(rapid.Uint64Range(0, uint64(q.last)+1).Draw(t, "id"))
				i := slices.IndexFunc(model, func(e timerEntry) bool { return e.id == id })
				if got := q.remove(id); got != (i >= 0) {
					t.Fatalf("remove(%d) = %v, pending in the model: %v", id, got, i >= 0)
				}
				if i >= 0 {
					model = slices.Delete(model, i, i+1)
				}
			},
			"popDue": func(t *rapid.T) {
				now := base.Add(time.Duration(rapid.IntRange(-1, 10).Draw(t, "now")) * time.Millisecond)
				upTo := op.TimerID(rapid.Uint64Range(0, uint64(q.last)).Draw(t, "upTo"))
				for {
					e, ok := q.popDue(now, upTo)
					wantOK := len(model) > 0 && !model[0].at.After(now) && model[0].id <= upTo
					if ok != wantOK {
						t.Fatalf("popDue(%v, %d) ok = %v, want %v (model %v)", now, upTo, ok, wantOK, model)
					}
					if !ok {
						break
					}
					if e.id != model[0].id || !e.at.Equal(model[0].at) {
						t.Fatalf("popDue = %d at %v, want %d at %v", e.id, e.at, model[0].id, model[0].at)
					}
					model = model[1:]
				}
			},
		})
		if q.len() != len(model) {
			t.Fatalf("len = %d, want %d", q.len(), len(model))
		}
		if head, ok := q.peek(); ok != (len(model) > 0) || ok && head.id != model[0].id {
			t.Fatalf("peek = %d, %v, want the model's head %v", head.id, ok, model)
		}
	})
}

func compareEntries(a, b timerEntry) int {
	switch {
	case a.before(b):
		return -1
	case b.before(a):
		return 1
	}
	return 0
}
