package async

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/op"
)

// A request that does not answer within the timeout has its context
// cancelled; the timeout handler gives its results, in order with the
// others; without a handler the task fails with ErrTimeout. Time is the
// fake clock's: the test advances it past the deadline.
func TestTimeout(t *testing.T) {
	for _, tt := range []struct {
		name    string
		handler func(int) ([]string, error)
		want    []string
		wantErr error
	}{
		{"handler", func(in int) ([]string, error) { return []string{"late" + strconv.Itoa(in)}, nil }, []string{"1:late1", "2:r2"}, nil},
		{"no handler fails", nil, nil, ErrTimeout},
		{"handler error fails", func(int) ([]string, error) { return nil, errors.New("gave up") }, nil, errGaveUp},
	} {
		t.Run(tt.name, func(t *testing.T) {
			svc := newService()
			h := newHarness(t, Config[int, string]{Fn: svc.call, Ordered: true, Timeout: time.Second, OnTimeout: tt.handler}, nil)
			h.must(h.op.ProcessElement(1, 1))
			h.must(h.op.ProcessElement(2, 2))
			<-svc.started
			<-svc.started
			svc.release(2)
			h.must(h.runMail()) // 2 completes but waits for 1
			h.clock.Advance(time.Second)
			err := h.runMail()
			switch {
			case tt.wantErr == errGaveUp:
				if err == nil || err.Error() != "async function: gave up" {
					t.Fatalf("error %v, want the handler's", err)
				}
				return
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error %v, want %v", err, tt.wantErr)
				}
				return
			}
			h.must(err)
			if !slices.Equal(h.out.got, tt.want) {
				t.Fatalf("%v, want %v", h.out.got, tt.want)
			}
			if h.op.Timeouts() != 1 {
				t.Fatalf("%d timeouts", h.op.Timeouts())
			}
		})
	}
}

var errGaveUp = errors.New("sentinel for the handler's error")

// flaky fails, or answers empty, until its attempt number reaches ok.
type flaky struct {
	ok       int
	empty    bool // answer empty instead of failing
	attempts atomic.Int32
	fatal    bool // fail with errFatal
}

var errTransient, errFatal = errors.New("transient"), errors.New("fatal")

func (f *flaky) call(_ context.Context, in int) ([]string, error) {
	n := int(f.attempts.Add(1))
	switch {
	case f.fatal:
		return nil, errFatal
	case n >= f.ok:
		return []string{"r" + strconv.Itoa(in) + "@" + strconv.Itoa(n)}, nil
	case f.empty:
		return nil, nil
	}
	return nil, errTransient
}

// Retries, as Flink's AsyncRetryStrategies: an error or a result the
// predicate accepts is tried again after the strategy's delay, up to
// MaxAttempts; then the last outcome counts. The test advances the fake
// clock by each delay once the retry's timer is set.
func TestRetry(t *testing.T) {
	transient := func(err error) bool { return errors.Is(err, errTransient) }
	emptyResult := func(r []string) bool { return len(r) == 0 }
	exp := func(n int) time.Duration { return time.Duration(1<<(n-1)) * 10 * time.Millisecond }
	for _, tt := range []struct {
		name   string
		fn     *flaky
		retry  Retry[string]
		delays []time.Duration // the waits the test expects, in order
		want   []string
		err    error
	}{
		{"error retried until success", &flaky{ok: 3}, Retry[string]{MaxAttempts: 3, Delay: exp, IfError: transient},
			[]time.Duration{10 * time.Millisecond, 20 * time.Millisecond}, []string{"1:r1@3"}, nil},
		{"any error retried by default", &flaky{ok: 2}, Retry[string]{MaxAttempts: 5, Delay: func(int) time.Duration { return time.Second }},
			[]time.Duration{time.Second}, []string{"1:r1@2"}, nil},
		{"result predicate", &flaky{ok: 2, empty: true}, Retry[string]{MaxAttempts: 2, Delay: exp, IfResult: emptyResult},
			[]time.Duration{10 * time.Millisecond}, []string{"1:r1@2"}, nil},
		{"attempts exhausted: last error", &flaky{ok: 9}, Retry[string]{MaxAttempts: 2, Delay: exp, IfError: transient},
			[]time.Duration{10 * time.Millisecond}, nil, errTransient},
		{"attempts exhausted: last result", &flaky{ok: 9, empty: true}, Retry[string]{MaxAttempts: 2, Delay: exp, IfResult: emptyResult},
			[]time.Duration{10 * time.Millisecond}, nil, nil},
		{"error the predicate refuses", &flaky{fatal: true}, Retry[string]{MaxAttempts: 3, Delay: exp, IfError: transient},
			nil, nil, errFatal},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Config[int, string]{Fn: tt.fn.call, Retry: tt.retry}, nil)
			h.must(h.op.ProcessElement(1, 1))
			for _, d := range tt.delays {
				h.clock.BlockUntil(2) // the deadline and the retry's delay
				h.clock.Advance(d - time.Nanosecond)
				if h.clock.Waiting() != 2 {
					t.Fatalf("retried before its delay of %v", d)
				}
				h.clock.Advance(time.Nanosecond)
			}
			err := h.runMail()
			if !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
				t.Fatalf("error %v, want %v", err, tt.err)
			}
			if !slices.Equal(h.out.got, tt.want) {
				t.Fatalf("%v, want %v", h.out.got, tt.want)
			}
			if got, want := int(h.op.Retries()), len(tt.delays); got != want {
				t.Fatalf("%d retries, want %d", got, want)
			}
		})
	}
}

// The requests in flight at a snapshot, and the results held back by
// order, are in it; a new operator restored from it issues them again and
// emits each result once.
func TestSnapshotRestore(t *testing.T) {
	for _, ordered := range []bool{true, false} {
		svc := newService()
		h := newHarness(t, Config[int, string]{Fn: svc.call, Ordered: ordered}, nil)
		for i := 1; i <= 4; i++ {
			h.must(h.op.ProcessElement(int64(i*10), i))
		}
		svc.release(2) // done, but held back by 1 in ordered mode
		h.must(h.runMail())
		snap, err := h.op.SnapshotState(1)
		h.must(err)
		want := []int{1, 2, 3, 4}
		if !ordered {
			want = []int{1, 3, 4}
		}
		restored := &op.Restored{Lists: snap.Lists}
		if n := len(restored.List(stateName)); n != len(want) {
			t.Fatalf("ordered=%v: %d in the snapshot, want %v", ordered, n, want)
		}

		svc2 := newService()
		for _, in := range want {
			svc2.release(in)
		}
		h2 := newHarness(t, Config[int, string]{Fn: svc2.call, Ordered: ordered}, restored)
		h.must(h2.op.Finish())
		var wantOut []string
		for _, in := range want {
			wantOut = append(wantOut, strconv.Itoa(in*10)+":r"+strconv.Itoa(in))
		}
		got := h2.out.got
		if !ordered {
			got = slices.Sorted(slices.Values(got))
		}
		if !slices.Equal(got, wantOut) {
			t.Fatalf("ordered=%v: restored operator emitted %v, want %v", ordered, got, wantOut)
		}
	}
}

// A snapshot entry that does not decode fails the restore with an error.
func TestRestoreCorrupt(t *testing.T) {
	svc := newService()
	c, err := codec.For[int]()
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config[int, string]{Fn: svc.call, Timeout: time.Second, Codec: c}
	o, err := New(cfg, op.Output[string](&output{}))
	if err != nil {
		t.Fatal(err)
	}
	err = o.Open(&op.Context{Restored: &op.Restored{Lists: []op.NamedList{{Name: stateName, Entries: [][]byte{{0x80}}}}}})
	if !errors.Is(err, codec.ErrCorrupt) || !strings.Contains(err.Error(), "restore request 1 of 1") {
		t.Fatalf("corrupt snapshot: %v", err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
}
