package async

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/op"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// mailbox is the task's mailbox as the test drives it: the test goroutine
// plays the task's and runs the actions it receives.
type mailbox struct{ actions chan func() error }

func (m *mailbox) Put(a func() error) bool { m.actions <- a; return true }

// output records what the operator emits, as "ts:value" and "wm:n".
type output struct{ got []string }

func (o *output) Collect(ts int64, v string) error {
	o.got = append(o.got, fmt.Sprintf("%d:%s", ts, v))
	return nil
}

func (o *output) EmitWatermark(wm int64) error {
	o.got = append(o.got, fmt.Sprintf("wm:%d", wm))
	return nil
}

// service answers each int once the test releases it; calls counts the
// calls per input, started receives each input as its call begins.
type service struct {
	mu      sync.Mutex
	gates   map[int]chan struct{}
	calls   map[int]int
	started chan int
}

func newService() *service {
	return &service{gates: map[int]chan struct{}{}, calls: map[int]int{}, started: make(chan int, 1000)}
}

func (s *service) gate(in int) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.gates[in]
	if !ok {
		g = make(chan struct{})
		s.gates[in] = g
	}
	return g
}

func (s *service) release(in int) { close(s.gate(in)) }

func (s *service) call(ctx context.Context, in int) ([]string, error) {
	s.mu.Lock()
	s.calls[in]++
	s.mu.Unlock()
	s.started <- in
	select {
	case <-s.gate(in):
		return []string{fmt.Sprint("r", in)}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// harness is an operator opened on a test mailbox and a fake clock.
type harness struct {
	t     *testing.T
	op    *Operator[int, string]
	mail  *mailbox
	out   *output
	clock *clock.Fake
	done  chan struct{}
}

func newHarness(t *testing.T, cfg Config[int, string], restored *op.Restored) *harness {
	t.Helper()
	h := &harness{t: t, mail: &mailbox{actions: make(chan func() error, 1000)}, out: &output{},
		clock: clock.NewFake(time.Unix(0, 0)), done: make(chan struct{})}
	cfg.Clock = h.clock
	if cfg.Timeout == 0 {
		cfg.Timeout = time.Minute
	}
	c, err := codec.For[int]()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Codec = c
	o, err := New(cfg, op.Output[string](h.out))
	if err != nil {
		t.Fatal(err)
	}
	h.op = o
	if err := o.Open(&op.Context{Mailbox: h.mail, Done: h.done, Restored: restored}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		close(h.done)
		if err := o.Close(); err != nil {
			t.Error(err)
		}
	})
	return h
}

// runMail waits for the next mailbox action and runs it.
func (h *harness) runMail() error {
	h.t.Helper()
	return (<-h.mail.actions)()
}

// must fails the test on err.
func (h *harness) must(err error) {
	h.t.Helper()
	if err != nil {
		h.t.Fatal(err)
	}
}
