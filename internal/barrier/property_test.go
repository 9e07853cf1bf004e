package barrier

import (
	"fmt"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/network/event"
	"pgregory.net/rapid"
)

// mode is the kind of a checkpoint in the generated runs.
type mode int

const (
	modeAligned mode = iota
	modeUnaligned
	modeTimeout
)

// itemKind is what a channel delivers next.
type itemKind int

const (
	itemData itemKind = iota
	itemBarrier
	itemCancel
	itemEOP
)

type item struct {
	kind itemKind
	id   int64
}

// run is one generated scenario: per checkpoint a mode, per channel the
// sequence it delivers (ids increasing, as an upstream emits them), and the
// ids the coordinator triggers by RPC.
type run struct {
	channels int
	modes    []mode          // modes[id-1]
	timeouts []time.Duration // timeouts[id-1], for modeTimeout
	scripts  [][]item
	triggers []int64
}

func (r run) barrier(id int64) event.CheckpointBarrier {
	b := event.CheckpointBarrier{ID: id, Timestamp: 1000 * id}
	switch r.modes[id-1] {
	case modeUnaligned:
		b.Unaligned = true
	case modeTimeout:
		b.AlignedTimeoutMillis = r.timeouts[id-1].Milliseconds()
	}
	return b
}

func drawRun(t *rapid.T) run {
	r := run{channels: rapid.IntRange(0, 4).Draw(t, "channels")}
	ids := rapid.IntRange(1, 4).Draw(t, "ids")
	for i := 0; i < ids; i++ {
		r.modes = append(r.modes, mode(rapid.IntRange(0, 2).Draw(t, "mode")))
		r.timeouts = append(r.timeouts, time.Duration(rapid.IntRange(1, 12).Draw(t, "timeout"))*time.Millisecond)
	}
	for c := 0; c < r.channels; c++ {
		var s []item
		data := func() {
			for range rapid.IntRange(0, 2).Draw(t, "data") {
				s = append(s, item{kind: itemData})
			}
		}
		for id := int64(1); id <= int64(ids); id++ {
			data()
			// Mostly barriers; sometimes the upstream declined (cancel) or
			// never saw the checkpoint (skip).
			switch rapid.IntRange(0, 5).Draw(t, "what") {
			case 0:
				s = append(s, item{kind: itemCancel, id: id})
			case 1:
			default:
				s = append(s, item{kind: itemBarrier, id: id})
			}
		}
		data()
		if rapid.IntRange(0, 4).Draw(t, "eop") > 0 {
			s = append(s, item{kind: itemEOP})
		}
		r.scripts = append(r.scripts, s)
	}
	for id := int64(1); id <= int64(ids); id++ {
		if rapid.IntRange(0, 3).Draw(t, "trigger") == 0 {
			r.triggers = append(r.triggers, id)
		}
	}
	return r
}

// TestProperties delivers random interleavings of the generated channel
// scripts, triggers and ticks, as a gate would (a blocked channel delivers
// nothing), and checks every batch of actions against a model (model_test.go).
func TestProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := drawRun(t)
		h := New(r.channels, Options{})
		m := newModel(t, r)
		pos := make([]int, r.channels)
		nextTrigger := 0
		now := epoch
		ticks := 0
		for {
			// The sources of the next event: open, unblocked channels with
			// something left, the trigger queue, and a clock tick.
			var chans []int
			for c := 0; c < r.channels; c++ {
				if pos[c] < len(r.scripts[c]) && !m.blocked[c] {
					chans = append(chans, c)
				}
			}
			canTrigger := nextTrigger < len(r.triggers)
			if len(chans) == 0 && !canTrigger {
				break
			}
			now = now.Add(time.Duration(rapid.IntRange(0, 4).Draw(t, "advance")) * time.Millisecond)
			choices := len(chans)
			if canTrigger {
				choices++
			}
			if ticks < 20 {
				choices++
			}
			pick := rapid.IntRange(0, choices-1).Draw(t, "pick")
			var ev Event
			switch {
			case pick < len(chans):
				c := chans[pick]
				it := r.scripts[c][pos[c]]
				pos[c]++
				switch it.kind {
				case itemData:
					m.buffer(h, c)
					continue
				case itemBarrier:
					ev = BarrierReceived{Channel: c, Barrier: r.barrier(it.id), Now: now}
				case itemCancel:
					ev = CancelReceived{Channel: c, ID: it.id}
				case itemEOP:
					ev = EndOfPartitionReceived{Channel: c}
				}
			case pick == len(chans) && canTrigger:
				ev = Triggered{Barrier: r.barrier(r.triggers[nextTrigger]), Now: now}
				nextTrigger++
			default:
				ticks++
				ev = Tick{Now: now}
			}
			m.step(h, ev, now)
		}
		// Let every deadline pass.
		now = now.Add(time.Hour)
		m.step(h, Tick{Now: now}, now)
		m.final(h)
	})
}

// TestStepMatchesMethods checks that Step routes each event to its method.
func TestStepMatchesMethods(t *testing.T) {
	at := epoch.Add(time.Millisecond)
	a, b := New(2, Options{}), New(2, Options{})
	cp1 := event.CheckpointBarrier{ID: 1, AlignedTimeoutMillis: 1}
	a.Step(BarrierReceived{Channel: 0, Barrier: cp1, Now: epoch})
	b.OnBarrier(0, cp1, false, epoch)
	a.Step(Tick{Now: at})
	b.OnTick(at)
	// Switched to unaligned: channel 1 persists, and its barrier's
	// overtaken buffers become channel state (PersistOvertaken).
	a.Step(BarrierReceived{Channel: 1, Barrier: cp1, Overtook: true, Now: at})
	b.OnBarrier(1, cp1, true, at)
	a.Step(EndOfPartitionReceived{Channel: 1})
	b.OnEndOfPartition(1)
	a.Step(CancelReceived{Channel: 0, ID: 2})
	b.OnCancelMarker(0, 2)
	a.Step(Triggered{Barrier: event.CheckpointBarrier{ID: 3}, Now: at})
	b.OnTrigger(event.CheckpointBarrier{ID: 3}, at)
	a.Step(SnapshotDone{ID: 3})
	b.OnSnapshotDone(3)
	if x, y := fmt.Sprint(a.Ready()), fmt.Sprint(b.Ready()); x != y {
		t.Fatalf("Step: %s\nmethods: %s", x, y)
	}
	if x, y := a.Status().String(), b.Status().String(); x != y {
		t.Fatalf("Step: %s\nmethods: %s", x, y)
	}
}

func TestNewPanicsOnBadInput(t *testing.T) {
	for _, f := range []func(){
		func() { New(-1, Options{}) },
		func() { New(1, Options{LastCheckpointID: -1}) },
		func() { New(1, Options{}).OnBarrier(1, event.CheckpointBarrier{ID: 1}, false, epoch) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		}()
	}
}
