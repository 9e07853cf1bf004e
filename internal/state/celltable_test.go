package state_test

import (
	"fmt"
	"maps"
	"sync"
	"testing"

	"github.com/weir-engine/weir/internal/state"
)

// TestValueStateCaptureIsCopyOnWrite checks that a ValueState's writes
// after a capture, including one between a Value and an Update of the same
// current key, leave the capture's sections as they were at the capture,
// while a goroutine serializes them.
func TestValueStateCaptureIsCopyOnWrite(t *testing.T) {
	tests := []struct {
		name string
		// readBefore reads the current key's value before the capture.
		readBefore bool
	}{
		{name: "update after capture"},
		{name: "value before capture, update after", readBefore: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := state.NewKeyedBackend[string](0, maxP-1)
			v, err := state.Value[string, int64](b, "sum")
			if err != nil {
				t.Fatal(err)
			}
			keys := make([]string, 50)
			for i := range keys {
				keys[i] = fmt.Sprintf("k%d", i)
				b.SetCurrentKey(keys[i], kgOf(keys[i]))
				v.Update(int64(i))
			}
			// values restores sections and reads every key's value.
			values := func(secs map[int][]byte) map[string]int64 {
				r := state.NewKeyedBackend[string](0, maxP-1)
				restore(t, []*state.KeyedBackend[string]{r}, secs)
				rv, err := state.Value[string, int64](r, "sum")
				if err != nil {
					t.Fatal(err)
				}
				out := map[string]int64{}
				for _, k := range keys {
					r.SetCurrentKey(k, kgOf(k))
					if x, ok := rv.Value(); ok {
						out[k] = x
					}
				}
				return out
			}
			want := values(snapshot(t, []*state.KeyedBackend[string]{b}))
			if len(want) != len(keys) {
				t.Fatalf("%d keys before the capture, want %d", len(want), len(keys))
			}
			// The last key is still current: its cell is cached.
			last := keys[len(keys)-1]
			if tt.readBefore {
				if got, ok := v.Value(); !ok || got != int64(len(keys)-1) {
					t.Fatalf("Value = %d, %v", got, ok)
				}
			}
			c, err := b.Capture("")
			if err != nil {
				t.Fatal(err)
			}
			sections := func() map[int][]byte {
				out := map[int][]byte{}
				for kg := range maxP {
					sec, err := c.Section(nil, kg)
					if err != nil {
						t.Error(err)
					}
					out[kg] = sec
				}
				return out
			}
			var wg sync.WaitGroup
			var during map[int][]byte
			wg.Go(func() { during = sections() })
			v.Update(1000)
			for _, k := range keys {
				b.SetCurrentKey(k, kgOf(k))
				old, _ := v.Value()
				v.Update(old + 1)
				v.Update(old + 2)
			}
			b.SetCurrentKey(keys[0], kgOf(keys[0]))
			v.Clear()
			wg.Wait()
			if got := values(sections()); !maps.Equal(got, want) {
				t.Errorf("capture after the writes = %v, want %v", got, want)
			}
			if got := values(during); !maps.Equal(got, want) {
				t.Errorf("capture during the writes = %v, want %v", got, want)
			}
			b.SetCurrentKey(last, kgOf(last))
			if got, ok := v.Value(); !ok || got != 1002 {
				t.Errorf("%s after the writes = %d, %v, want 1002", last, got, ok)
			}
			b.SetCurrentKey(keys[0], kgOf(keys[0]))
			if got, ok := v.Value(); ok {
				t.Errorf("%s after Clear = %d, want none", keys[0], got)
			}
		})
	}
}
