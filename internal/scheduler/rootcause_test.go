package scheduler_test

import (
	"errors"
	"testing"

	"github.com/weir-engine/weir/internal/scheduler"
)

// A consequence keeps its error's text and identity and is marked once.
func TestConsequence(t *testing.T) {
	released := errors.New("send to channel 0: network: channel released")
	c := scheduler.Consequence(released)
	if c.Error() != released.Error() || !errors.Is(c, released) || !scheduler.IsConsequence(c) {
		t.Fatalf("Consequence(%v) = %v: want the same text, wrapping it, marked", released, c)
	}
	if again := scheduler.Consequence(c); again != c {
		t.Fatalf("marked twice: %#v", again)
	}
	if scheduler.Consequence(nil) != nil || scheduler.IsConsequence(released) {
		t.Fatal("nil, or an unmarked error, is a consequence")
	}
}

// Later replaces a consequence by the first real failure and keeps the
// wrapping; nothing else replaces a cause.
func TestRootCauseLater(t *testing.T) {
	released := scheduler.Consequence(errors.New("released"))
	boom, other := errors.New("boom"), errors.New("other")
	exhausted := scheduler.RestartsExhausted(&scheduler.FixedDelay{Attempts: 1})
	cases := []struct {
		name      string
		cause     error
		wrap      func(error) error
		later     []error
		want      error
		wantText  string
		exhausted bool
	}{
		{"a consequence is replaced", released, nil, []error{boom}, boom, "boom", false},
		{"by the first real failure only", released, nil, []error{boom, other}, boom, "boom", false},
		{"not by another consequence", released, nil, []error{scheduler.Consequence(other), nil}, released, "released", false},
		{"a real cause stays", boom, nil, []error{other}, boom, "boom", false},
		{"the wrapping stays", released, exhausted, []error{boom}, boom,
			"scheduler: restarts exhausted (fixed delay (1 attempts, 0s)): boom", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := scheduler.NewRootCause(c.cause, c.wrap)
			for _, err := range c.later {
				r = r.Later(err)
			}
			if r.Cause() != c.want || r.Err().Error() != c.wantText || !errors.Is(r.Err(), c.want) ||
				errors.Is(r.Err(), scheduler.ErrRestartsExhausted) != c.exhausted {
				t.Fatalf("cause %v, err %v; want cause %v, err %q", r.Cause(), r.Err(), c.want, c.wantText)
			}
		})
	}
	if err := (scheduler.RootCause{}).Later(boom).Err(); err != nil {
		t.Fatalf("no failure became %v", err)
	}
}
