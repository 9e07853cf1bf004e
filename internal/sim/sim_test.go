package sim_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/sim"
)

// recorder is a node that records what reaches it.
type recorder struct {
	w    *sim.World
	name string
	got  []string
}

func (r *recorder) Receive(from string, msg []byte) {
	r.got = append(r.got, fmt.Sprintf("%s<-%s:%s", r.name, from, msg))
	r.w.Tracef("%s received %q from %s", r.name, msg, from)
}

func (r *recorder) Disconnected(peer string) {
	r.got = append(r.got, fmt.Sprintf("%s: lost %s", r.name, peer))
	r.w.Tracef("%s lost %s", r.name, peer)
}

func TestEventsRunInTimeThenScheduleOrder(t *testing.T) {
	w := sim.New(1)
	var order []string
	w.After(2*time.Second, func() { order = append(order, "b") })
	w.After(time.Second, func() { order = append(order, "a1") })
	w.After(time.Second, func() { order = append(order, "a2") })
	canceled := w.After(1500*time.Millisecond, func() { order = append(order, "never") })
	if !canceled.Cancel() || canceled.Cancel() {
		t.Fatal("Cancel: want true for a pending event, then false")
	}
	if w.Pending() != 3 {
		t.Fatalf("pending %d, want 3", w.Pending())
	}
	for w.Step() {
	}
	if want := []string{"a1", "a2", "b"}; !reflect.DeepEqual(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	if got := w.Now().Sub(sim.Epoch); got != 2*time.Second {
		t.Errorf("clock at %v, want 2s", got)
	}
}

func TestClockTimers(t *testing.T) {
	w := sim.New(1)
	c := w.Clock()
	fired := 0
	c.AfterFunc(time.Minute, func() { fired++ })
	stopped := c.AfterFunc(time.Second, func() { fired += 100 })
	if !stopped.Stop() {
		t.Fatal("Stop of a pending timer: false")
	}
	w.RunFor(59 * time.Second)
	if fired != 0 || c.Now().Sub(sim.Epoch) != 59*time.Second {
		t.Fatalf("after 59s: fired %d at %v", fired, c.Now().Sub(sim.Epoch))
	}
	w.RunFor(time.Second)
	if fired != 1 {
		t.Errorf("after 60s: fired %d, want 1", fired)
	}
}

func TestRunUntil(t *testing.T) {
	w := sim.New(7)
	n := 0
	var tick func()
	tick = func() { n++; w.After(time.Second, tick) }
	w.After(0, tick)
	if err := w.RunUntil(func() bool { return n == 5 }, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := w.RunUntil(func() bool { return false }, 10*time.Second); err == nil {
		t.Error("RunUntil of a condition never met: no error")
	}
	empty := sim.New(7)
	if err := empty.RunUntil(func() bool { return false }, time.Hour); !errors.Is(err, sim.ErrStalled) {
		t.Errorf("RunUntil without events: %v, want ErrStalled", err)
	}
}

func TestMessagesOnOneConnectionKeepTheirOrder(t *testing.T) {
	w := sim.New(3)
	net := sim.NewNetwork(w, sim.Faults{MinLatency: time.Millisecond, MaxLatency: 50 * time.Millisecond})
	a, b := &recorder{w: w, name: "a"}, &recorder{w: w, name: "b"}
	net.Register("a", a)
	net.Register("b", b)
	var want []string
	for i := range 100 {
		net.Send("a", "b", []byte(fmt.Sprint(i)))
		want = append(want, fmt.Sprintf("b<-a:%d", i))
		w.RunFor(time.Duration(w.Rand().IntN(3)) * time.Millisecond)
	}
	for w.Step() {
	}
	if !reflect.DeepEqual(b.got, want) {
		t.Errorf("b received %v", b.got)
	}
}

func TestCutLosesInFlightMessagesAndTellsBothEnds(t *testing.T) {
	w := sim.New(5)
	net := sim.NewNetwork(w, sim.Faults{MinLatency: 10 * time.Millisecond, MaxLatency: 10 * time.Millisecond})
	a, b := &recorder{w: w, name: "a"}, &recorder{w: w, name: "b"}
	net.Register("a", a)
	net.Register("b", b)
	net.Send("a", "b", []byte("in flight"))
	net.Cut("a", "b")
	net.Send("a", "b", []byte("after the cut"))
	w.RunFor(time.Second)
	net.Heal("a", "b")
	net.Send("b", "a", []byte("healed"))
	w.RunFor(time.Second)
	if want := []string{"a: lost b", "a<-b:healed"}; !reflect.DeepEqual(a.got, want) {
		t.Errorf("a got %v, want %v", a.got, want)
	}
	if want := []string{"b: lost a"}; !reflect.DeepEqual(b.got, want) {
		t.Errorf("b got %v, want %v", b.got, want)
	}
}

func TestUnregisterClosesEveryConnection(t *testing.T) {
	w := sim.New(9)
	net := sim.NewNetwork(w, sim.Faults{})
	nodes := map[string]*recorder{}
	for _, name := range []string{"jm", "tm1", "tm2"} {
		nodes[name] = &recorder{w: w, name: name}
		net.Register(name, nodes[name])
	}
	net.Unregister("tm1")
	net.Send("jm", "tm1", []byte("deploy"))
	w.RunFor(time.Second)
	// Every peer learns of the dead process once; the message to it is lost.
	for _, name := range []string{"jm", "tm2"} {
		if want := []string{name + ": lost tm1"}; !reflect.DeepEqual(nodes[name].got, want) {
			t.Errorf("%s got %v, want %v", name, nodes[name].got, want)
		}
	}
	if len(nodes["tm1"].got) != 0 {
		t.Errorf("the dead tm1 got %v", nodes["tm1"].got)
	}
}

// chatter runs a small exchange with random latencies and drops and
// returns its trace.
func chatter(seed uint64) []string {
	w := sim.New(seed)
	net := sim.NewNetwork(w, sim.Faults{MinLatency: time.Millisecond, MaxLatency: 20 * time.Millisecond, DropRate: 0.2})
	for _, name := range []string{"a", "b", "c"} {
		net.Register(name, &recorder{w: w, name: name})
	}
	for i := range 30 {
		from := []string{"a", "b", "c"}[w.Rand().IntN(3)]
		to := []string{"a", "b", "c"}[w.Rand().IntN(3)]
		net.Send(from, to, []byte(fmt.Sprint(i)))
		w.RunFor(time.Duration(w.Rand().IntN(5)) * time.Millisecond)
	}
	w.RunFor(time.Second)
	return w.Trace()
}

func TestASeedReplaysExactly(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		first, second := chatter(seed), chatter(seed)
		if !reflect.DeepEqual(first, second) {
			t.Fatalf("seed %d: two runs differ:\n%v\n%v", seed, first, second)
		}
	}
	if reflect.DeepEqual(chatter(1), chatter(2)) {
		t.Error("seeds 1 and 2 gave the same run: the seed does not reach the faults")
	}
}

func TestDropRateLosesAboutThatShare(t *testing.T) {
	w := sim.New(11)
	net := sim.NewNetwork(w, sim.Faults{DropRate: 0.3})
	b := &recorder{w: w, name: "b"}
	net.Register("a", &recorder{w: w, name: "a"})
	net.Register("b", b)
	const n = 2000
	for range n {
		net.Send("a", "b", []byte("x"))
	}
	w.RunFor(time.Second)
	if lost := n - len(b.got); lost < n/4 || lost > n*35/100 {
		t.Errorf("%d of %d lost at drop rate 0.3", lost, n)
	}
}
