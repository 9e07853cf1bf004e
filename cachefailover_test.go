package weir

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/rpc"
)

// The failover's decision over a sequence of execution ends: what is
// recomputed, and when the end stands.
func TestCacheFailoverDecision(t *testing.T) {
	const a, b = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	lostRead := func(ds string) error {
		return fmt.Errorf("%w: %q: %w", ErrJobFailed, "wc", &cache.ReadError{Dataset: ds, Err: errors.New("checksum mismatch")})
	}
	remoteLost := func(ds string) error { // as it reaches the JobManager from a TaskManager
		m := rpc.EncodeRemoteError(&cache.ReadError{Dataset: ds, Err: errors.New("connection reset")})
		return fmt.Errorf("%w: %q: %w", ErrJobFailed, "wc", rpc.DecodeError(m))
	}
	tmLost := errors.New("TaskManager tm-2 lost")
	incomplete := func(ids ...string) func(string) bool {
		return func(id string) bool { return slices.Contains(ids, id) }
	}
	type step struct {
		end  executionEnd
		want []string
	}
	for _, tt := range []struct {
		name  string
		steps []step
	}{
		{"finished", []step{{executionEnd{reads: []string{a}}, nil}}},
		{"failed, read nothing", []step{{executionEnd{err: lostRead(a)}, nil}}},
		{"another failure", []step{{executionEnd{err: tmLost, reads: []string{a}, incomplete: incomplete()}, nil}}},
		{"read failure", []step{{executionEnd{err: lostRead(a), reads: []string{a, b}}, []string{a}}}},
		{"read failure from another process", []step{{executionEnd{err: remoteLost(b), reads: []string{a, b}}, []string{b}}}},
		{"a dataset it did not read", []step{{executionEnd{err: lostRead(b), reads: []string{a}}, nil}}},
		{"canceled", []step{{executionEnd{err: lostRead(a), canceled: true, reads: []string{a}}, nil}}},
		{"holder lost while it ran", []step{{executionEnd{err: tmLost, reads: []string{a, b}, incomplete: incomplete(b)}, []string{b}}}},
		{"read failure and another dataset incomplete", []step{
			{executionEnd{err: remoteLost(a), reads: []string{a, b}, incomplete: incomplete(a, b)}, []string{a, b}},
		}},
		{"once per dataset", []step{
			{executionEnd{err: lostRead(a), reads: []string{a, b}}, []string{a}},
			{executionEnd{err: lostRead(a), reads: []string{b}}, nil},
		}},
		{"then another dataset", []step{
			{executionEnd{err: lostRead(a), reads: []string{a, b}}, []string{a}},
			{executionEnd{err: lostRead(b), reads: []string{b}}, []string{b}},
			{executionEnd{err: tmLost, reads: nil, incomplete: incomplete(a, b)}, nil},
		}},
		{"recomputed, then the new cache's holder lost", []step{
			{executionEnd{err: tmLost, reads: []string{a}, incomplete: incomplete(a)}, []string{a}},
			{executionEnd{err: tmLost, reads: []string{a}, incomplete: incomplete(a)}, nil},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var f cacheFailover
			for i, s := range tt.steps {
				if got := f.next(s.end); !slices.Equal(got, s.want) {
					t.Fatalf("end %d (%v): recompute %v, want %v", i, s.end.err, got, s.want)
				}
			}
		})
	}
}
