package heartbeat

import (
	"reflect"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

// step is one event fed to a monitor with a 10 s timeout, and what it must
// produce.
type step struct {
	op     string // add, heard, disconnected, expire, remove
	id     string
	at     time.Duration
	ok     bool   // heard, disconnected: the result
	lost   []Loss // expire, disconnected: the losses
	next   time.Duration
	noNext bool // after the step: no deadline
}

func TestMonitor(t *testing.T) {
	const timeout = 10 * time.Second
	tests := []struct {
		name  string
		steps []step
	}{
		{"silent target times out at its deadline, not before", []step{
			{op: "add", id: "tm1", at: 0, next: 10 * time.Second},
			{op: "expire", at: 9999 * time.Millisecond, next: 10 * time.Second},
			{op: "expire", at: 10 * time.Second, lost: []Loss{{Target: "tm1", Reason: Timeout, LastSeen: at(0), At: at(10 * time.Second)}}, noNext: true},
			{op: "expire", at: 20 * time.Second, noNext: true},
		}},
		{"heartbeats push the deadline", []step{
			{op: "add", id: "tm1", at: 0},
			{op: "heard", id: "tm1", at: 4 * time.Second, ok: true, next: 14 * time.Second},
			{op: "heard", id: "tm1", at: 8 * time.Second, ok: true, next: 18 * time.Second},
			{op: "expire", at: 17 * time.Second, next: 18 * time.Second},
			{op: "heard", id: "tm1", at: 3 * time.Second, ok: true, next: 18 * time.Second}, // late, out of order: no step back
		}},
		{"closed connection is lost at once", []step{
			{op: "add", id: "tm1", at: 0},
			{op: "heard", id: "tm1", at: time.Second, ok: true},
			{op: "disconnected", id: "tm1", at: 2 * time.Second, ok: true, lost: []Loss{{Target: "tm1", Reason: Disconnected, LastSeen: at(time.Second), At: at(2 * time.Second)}}, noNext: true},
			{op: "disconnected", id: "tm1", at: 3 * time.Second, ok: false, noNext: true},
			{op: "expire", at: time.Hour, noNext: true},
			{op: "heard", id: "tm1", at: 4 * time.Second, ok: false},
		}},
		{"several targets expire in order of their last heartbeat", []step{
			{op: "add", id: "b", at: 0},
			{op: "add", id: "a", at: 0},
			{op: "add", id: "c", at: time.Second},
			{op: "add", id: "d", at: time.Second},
			{op: "heard", id: "d", at: 30 * time.Second, ok: true, next: 0},
			{op: "expire", at: 11 * time.Second, lost: []Loss{
				{Target: "a", Reason: Timeout, LastSeen: at(0), At: at(11 * time.Second)},
				{Target: "b", Reason: Timeout, LastSeen: at(0), At: at(11 * time.Second)},
				{Target: "c", Reason: Timeout, LastSeen: at(time.Second), At: at(11 * time.Second)},
			}, next: 40 * time.Second},
		}},
		{"unknown target is ignored", []step{
			{op: "heard", id: "x", at: 0, ok: false, noNext: true},
			{op: "disconnected", id: "x", at: 0, ok: false, noNext: true},
		}},
		{"re-added target is alive again; removed one is forgotten", []step{
			{op: "add", id: "tm1", at: 0},
			{op: "disconnected", id: "tm1", at: time.Second, ok: true, lost: []Loss{{Target: "tm1", Reason: Disconnected, LastSeen: at(0), At: at(time.Second)}}},
			{op: "add", id: "tm1", at: 5 * time.Second, next: 15 * time.Second},
			{op: "heard", id: "tm1", at: 6 * time.Second, ok: true, next: 16 * time.Second},
			{op: "remove", id: "tm1", noNext: true},
			{op: "heard", id: "tm1", at: 7 * time.Second, ok: false},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := NewMonitor(timeout)
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range tc.steps {
				var lost []Loss
				switch s.op {
				case "add":
					m.Add(s.id, at(s.at))
				case "remove":
					m.Remove(s.id)
				case "heard":
					if got := m.Heard(s.id, at(s.at)); got != s.ok {
						t.Fatalf("step %d: Heard(%s) = %v, want %v", i, s.id, got, s.ok)
					}
				case "disconnected":
					l, ok := m.Disconnected(s.id, at(s.at))
					if ok != s.ok {
						t.Fatalf("step %d: Disconnected(%s) = %v, want %v", i, s.id, ok, s.ok)
					}
					if ok {
						lost = []Loss{l}
					}
				case "expire":
					lost = m.Expire(at(s.at))
				default:
					t.Fatalf("step %d: unknown op %q", i, s.op)
				}
				if !reflect.DeepEqual(lost, s.lost) {
					t.Fatalf("step %d (%s): lost %v, want %v", i, s.op, lost, s.lost)
				}
				next, ok := m.NextDeadline()
				switch {
				case s.noNext && ok:
					t.Fatalf("step %d: NextDeadline = %v, want none", i, next)
				case !s.noNext && s.next != 0 && (!ok || !next.Equal(at(s.next))):
					t.Fatalf("step %d: NextDeadline = %v %v, want %v", i, next, ok, at(s.next))
				}
			}
		})
	}
}

func TestMonitorLostIsReportedOnce(t *testing.T) {
	m, err := NewMonitor(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	m.Add("tm1", t0)
	if got := m.Expire(at(time.Second)); len(got) != 1 {
		t.Fatalf("first expire: %v, want one loss", got)
	}
	if !m.Lost("tm1") || !m.Watching("tm1") {
		t.Fatalf("Lost = %v, Watching = %v, want both", m.Lost("tm1"), m.Watching("tm1"))
	}
	if got := m.Expire(at(time.Hour)); len(got) != 0 {
		t.Fatalf("second expire: %v, want nothing", got)
	}
	if _, ok := m.Disconnected("tm1", at(time.Hour)); ok {
		t.Fatal("a lost target was declared lost again by its connection")
	}
}

func TestNewMonitorRejectsNonPositiveTimeout(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		if _, err := NewMonitor(d); err == nil {
			t.Errorf("NewMonitor(%v) accepted it", d)
		}
	}
}
