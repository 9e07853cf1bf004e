package scheduler_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/scheduler"
)

func TestRestartStrategies(t *testing.T) {
	t0 := time.Unix(0, 0)
	type step struct {
		at    time.Duration
		delay time.Duration
		ok    bool
	}
	tests := []struct {
		name     string
		strategy scheduler.RestartStrategy
		steps    []step
	}{
		{"none", scheduler.NoRestart{}, []step{{0, 0, false}}},
		{"fixed", &scheduler.FixedDelay{Attempts: 2, Delay: time.Second}, []step{
			{0, time.Second, true}, {time.Minute, time.Second, true}, {time.Hour, 0, false},
		}},
		{"exponential", &scheduler.ExponentialDelay{Initial: time.Second, Max: 5 * time.Second, Multiplier: 2, ResetAfter: time.Hour}, []step{
			{0, time.Second, true}, {time.Second, 2 * time.Second, true}, {2 * time.Second, 4 * time.Second, true},
			{3 * time.Second, 5 * time.Second, true}, {4 * time.Second, 5 * time.Second, true},
			// A quiet hour resets the backoff.
			{2 * time.Hour, time.Second, true},
		}},
		{"exponential with jitter", &scheduler.ExponentialDelay{Initial: 10 * time.Second, Max: time.Minute, Multiplier: 2, Jitter: 0.1, Rand: func() float64 { return 1 }}, []step{
			{0, 11 * time.Second, true}, {time.Second, 22 * time.Second, true},
		}},
		{"exponential with attempts", &scheduler.ExponentialDelay{Initial: time.Second, Max: 5 * time.Second, Multiplier: 2, ResetAfter: time.Hour, Attempts: 2}, []step{
			{0, time.Second, true}, {time.Second, 2 * time.Second, true},
			{2 * time.Second, 0, false}, // a third failure without a quiet hour
		}},
		{"exponential attempts reset", &scheduler.ExponentialDelay{Initial: time.Second, Max: 5 * time.Second, Multiplier: 2, ResetAfter: time.Hour, Attempts: 2}, []step{
			{0, time.Second, true}, {time.Second, 2 * time.Second, true},
			// A quiet hour starts the count over.
			{2 * time.Hour, time.Second, true}, {2*time.Hour + time.Second, 2 * time.Second, true},
			{2*time.Hour + 2*time.Second, 0, false},
		}},
		{"failure rate", &scheduler.FailureRate{MaxFailures: 2, Interval: time.Minute, Delay: time.Second}, []step{
			{0, time.Second, true}, {10 * time.Second, time.Second, true},
			{20 * time.Second, 0, false}, // third within a minute
		}},
		{"failure rate window slides", &scheduler.FailureRate{MaxFailures: 1, Interval: time.Minute, Delay: time.Second}, []step{
			{0, time.Second, true}, {2 * time.Minute, time.Second, true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i, s := range tt.steps {
				d, ok := tt.strategy.OnFailure(t0.Add(s.at))
				if d != s.delay || ok != s.ok {
					t.Fatalf("failure %d at %v: got %v %v, want %v %v", i, s.at, d, ok, s.delay, s.ok)
				}
			}
		})
	}
}

func TestUnrecoverable(t *testing.T) {
	_, statErr := os.Stat(filepath.Join(t.TempDir(), "missing"))
	tests := []struct {
		err  error
		want bool
	}{
		{errors.New("boom"), false},
		{fmt.Errorf("task: %w", scheduler.ErrUnrecoverable), true},
		{fmt.Errorf("open input: %w", statErr), true},
		{fmt.Errorf("open output: %w", &fs.PathError{Op: "open", Path: "/x", Err: syscall.EACCES}), true},
		{fmt.Errorf("write: %w", &fs.PathError{Op: "write", Path: "/x", Err: syscall.ENOSPC}), false},
		{context.DeadlineExceeded, false},
	}
	for _, tt := range tests {
		if got := scheduler.Unrecoverable(tt.err); got != tt.want {
			t.Errorf("Unrecoverable(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestMarkUnrecoverable(t *testing.T) {
	cause := errors.New("graph fingerprint mismatch")
	cases := []struct {
		name          string
		err           error
		unrecoverable bool
		text          string
	}{
		{"plain", fmt.Errorf("deploy: %w", cause), false, "deploy: graph fingerprint mismatch"},
		{"marked", scheduler.MarkUnrecoverable(fmt.Errorf("deploy: %w", cause)), true, "deploy: graph fingerprint mismatch"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := scheduler.Unrecoverable(c.err); got != c.unrecoverable {
				t.Errorf("Unrecoverable = %v; want %v", got, c.unrecoverable)
			}
			if !errors.Is(c.err, cause) || c.err.Error() != c.text {
				t.Errorf("err %q; want %q wrapping its cause", c.err, c.text)
			}
		})
	}
	if err := scheduler.MarkUnrecoverable(nil); err != nil {
		t.Errorf("MarkUnrecoverable(nil) = %v; want nil", err)
	}
}
