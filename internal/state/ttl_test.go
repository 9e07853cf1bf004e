package state

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// ttlClock is the processing-time clock the tests set: no sleeping.
type ttlClock struct{ now time.Time }

func (c *ttlClock) at(sec int) { c.now = time.Unix(int64(sec), 0) }

func newTTLBackend(t *testing.T, kind string, c *ttlClock) *KeyedBackend[string] {
	t.Helper()
	c.at(0)
	b := newTestBackend[string](t, kind, 0, 7)
	b.SetClock(func() time.Time { return c.now })
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	})
	return b
}

func (b *KeyedBackend[K]) setKey(k K, kg int) { b.SetCurrentKey(k, kg) }

// Visibility, as Flink's TtlStateTestBase: with a TTL of 10 s, a value
// written at 0 and read at 6 is gone at 11 when only writes refresh
// (OnCreateAndWrite) and still there at 11 when reads refresh too
// (OnReadAndWrite), gone at 16 (the read at 6 + 10: an entry expires when
// refresh time + TTL <= now). A write refreshes under both.
func TestTTLVisibility(t *testing.T) {
	type step struct {
		sec   int
		op    string // "write", "read"
		value int    // written, or expected (-1: none)
	}
	for _, tt := range []struct {
		update TTLUpdate
		steps  []step
	}{
		{OnCreateAndWrite, []step{{0, "write", 1}, {6, "read", 1}, {9, "read", 1}, {10, "read", -1}, {11, "write", 2}, {20, "read", 2}, {21, "read", -1}}},
		{OnReadAndWrite, []step{{0, "write", 1}, {6, "read", 1}, {11, "read", 1}, {20, "read", 1}, {30, "read", -1}, {31, "write", 3}, {40, "read", 3}}},
	} {
		for _, kind := range backendKinds {
			t.Run(fmt.Sprint(tt.update, "/", kind), func(t *testing.T) {
				c := &ttlClock{}
				b := newTTLBackend(t, kind, c)
				v, err := Value[string, int](b, "v", WithTTL(TTLConfig{TTL: 10 * time.Second, Update: tt.update}))
				if err != nil {
					t.Fatal(err)
				}
				b.setKey("k", 3)
				for _, s := range tt.steps {
					c.at(s.sec)
					switch s.op {
					case "write":
						v.Update(s.value)
					case "read":
						got, ok := v.Value()
						if !ok {
							got = -1
						}
						if got != s.value {
							t.Fatalf("read at %ds: %d, want %d", s.sec, got, s.value)
						}
					}
				}
				mustNoErr(t, b)
			})
		}
	}
}

// Every state kind hides an expired key's entry.
func TestTTLAllKinds(t *testing.T) {
	for _, kind := range backendKinds {
		t.Run(kind, func(t *testing.T) {
			c := &ttlClock{}
			b := newTTLBackend(t, kind, c)
			ttl := WithTTL(TTLConfig{TTL: time.Second})
			l, err := List[string, int](b, "l", ttl)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Map[string, string, int](b, "m", ttl)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Reducing[string, int](b, "r", func(a, b int) (int, error) { return a + b, nil }, ttl)
			if err != nil {
				t.Fatal(err)
			}
			b.setKey("k", 0)
			l.Add(1)
			m.Put("a", 1)
			if err := r.Add(5); err != nil {
				t.Fatal(err)
			}
			c.at(1)
			if got := l.Get(); len(got) != 0 {
				t.Errorf("expired list: %v", got)
			}
			if _, ok := m.Get("a"); ok {
				t.Error("expired map entry returned")
			}
			if _, ok := r.Get(); ok {
				t.Error("expired reducing state returned")
			}
			if err := r.Add(2); err != nil {
				t.Fatal(err)
			}
			if got, _ := r.Get(); got != 2 {
				t.Errorf("reducing state after expiry and add: %d, want 2 (a fresh start)", got)
			}
			mustNoErr(t, b)
		})
	}
}

// fillExpired writes n keys at time 0 into v, over all key groups.
func fillExpired(b *KeyedBackend[string], v *ValueState[string, int], n int) {
	for i := range n {
		b.setKey(fmt.Sprint("old", i), i%8)
		v.Update(i)
	}
}

// Incremental cleanup: each access checks IncrementalCleanupSize more
// entries; accesses of one live key remove 100 expired ones no one reads.
func TestTTLIncrementalCleanup(t *testing.T) {
	for _, kind := range backendKinds {
		t.Run(kind, func(t *testing.T) {
			c := &ttlClock{}
			b := newTTLBackend(t, kind, c)
			v, err := Value[string, int](b, "v", WithTTL(TTLConfig{TTL: time.Second, IncrementalCleanupSize: 10}))
			if err != nil {
				t.Fatal(err)
			}
			fillExpired(b, v, 100)
			c.at(5)
			b.setKey("live", 0)
			v.Update(1)
			// 101 entries, 10 checked per access: 11 accesses see them all,
			// however the key groups fall.
			for range 11 {
				v.Value()
			}
			if n := b.NumEntries(); n != 1 {
				t.Fatalf("%d entries after incremental cleanup, want the live one", n)
			}
			mustNoErr(t, b)
		})
	}
}

// Cleanup at capture: a heap backend with CleanupFullSnapshot removes every
// expired entry before capturing, so the snapshot has none; a Pebble
// backend deletes CompactionCleanupSize of them per capture.
func TestTTLCleanupAtCapture(t *testing.T) {
	for _, tt := range []struct {
		kind string
		cfg  TTLConfig
		// left holds the entries after each of two captures: at least
		// [0], at most [1] (whether the cleanup checked the live key
		// among its entries depends on the key groups' order).
		left [][2]int
	}{
		{"heap", TTLConfig{TTL: time.Second, CleanupFullSnapshot: true}, [][2]int{{1, 1}, {1, 1}}},
		{"heap", TTLConfig{TTL: time.Second}, [][2]int{{41, 41}, {41, 41}}},
		{"pebble", TTLConfig{TTL: time.Second, CompactionCleanupSize: 25}, [][2]int{{16, 17}, {1, 1}}},
	} {
		t.Run(fmt.Sprint(tt.kind, tt.cfg.CleanupFullSnapshot, tt.cfg.CompactionCleanupSize), func(t *testing.T) {
			c := &ttlClock{}
			b := newTTLBackend(t, tt.kind, c)
			v, err := Value[string, int](b, "v", WithTTL(tt.cfg))
			if err != nil {
				t.Fatal(err)
			}
			fillExpired(b, v, 40)
			c.at(5)
			b.setKey("live", 0)
			v.Update(1)
			for i, want := range tt.left {
				capt, err := b.Capture(filepath.Join(t.TempDir(), fmt.Sprint("cp", i)))
				if err != nil {
					t.Fatal(err)
				}
				restored := NewKeyedBackend[string](0, 7)
				for kg := 0; kg <= 7; kg++ {
					sec, err := capt.Section(nil, kg)
					if err != nil {
						t.Fatal(err)
					}
					if err := restored.RestoreKeyGroup(kg, sec); err != nil {
						t.Fatal(err)
					}
				}
				if err := capt.Release(); err != nil {
					t.Fatal(err)
				}
				if _, err := Value[string, int](restored, "v", WithTTL(tt.cfg)); err != nil {
					t.Fatal(err)
				}
				if n, m := b.NumEntries(), restored.NumEntries(); n < want[0] || n > want[1] || m != n {
					t.Fatalf("after capture %d: %d entries, %d in the snapshot, want %v", i+1, n, m, want)
				}
			}
			mustNoErr(t, b)
		})
	}
}

// The refresh times are in the snapshot: a value written at 0 with a TTL
// of 10 s, restored into a new backend (at another parallelism: the key
// groups 0..7 of one backend go to two), is there at 9 and gone at 10.
func TestTTLAfterRestore(t *testing.T) {
	for _, kind := range backendKinds {
		t.Run(kind, func(t *testing.T) {
			c := &ttlClock{}
			b := newTTLBackend(t, kind, c)
			cfg := WithTTL(TTLConfig{TTL: 10 * time.Second})
			v, err := Value[string, int](b, "v", cfg)
			if err != nil {
				t.Fatal(err)
			}
			for kg := range 8 {
				b.setKey(fmt.Sprint("k", kg), kg)
				v.Update(kg)
			}
			secs := map[int][]byte{}
			for kg := range 8 {
				if secs[kg], err = b.SnapshotKeyGroup(nil, kg); err != nil {
					t.Fatal(err)
				}
			}
			for _, half := range [][2]int{{0, 3}, {4, 7}} {
				r := newTestBackend[string](t, kind, half[0], half[1])
				r.SetClock(func() time.Time { return c.now })
				for kg := half[0]; kg <= half[1]; kg++ {
					if err := r.RestoreKeyGroup(kg, secs[kg]); err != nil {
						t.Fatal(err)
					}
				}
				rv, err := Value[string, int](r, "v", cfg)
				if err != nil {
					t.Fatal(err)
				}
				for _, tc := range []struct {
					sec  int
					seen bool
				}{{9, true}, {10, false}} {
					c.at(tc.sec)
					for kg := half[0]; kg <= half[1]; kg++ {
						r.setKey(fmt.Sprint("k", kg), kg)
						got, ok := rv.Value()
						if ok != tc.seen || ok && got != kg {
							t.Fatalf("restored key group %d at %ds: %d, %v", kg, tc.sec, got, ok)
						}
					}
				}
				mustNoErr(t, r)
				if err := r.Close(); err != nil {
					t.Fatal(err)
				}
				c.at(0)
			}
		})
	}
}

// A TTL of zero is refused at registration.
func TestTTLInvalid(t *testing.T) {
	b := NewKeyedBackend[string](0, 0)
	if _, err := Value[string, int](b, "v", WithTTL(TTLConfig{})); err == nil {
		t.Fatal("TTL 0 accepted")
	}
}
