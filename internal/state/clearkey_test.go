package state

import "testing"

func TestClearCurrentKey(t *testing.T) {
	for _, kind := range []string{"heap", "pebble"} {
		t.Run(kind, func(t *testing.T) {
			b := newTestBackend[string](t, kind, 0, 3)
			defer b.Close()
			v, _ := Value[string, int](b, "v")
			m, _ := Map[string, string, int](b, "m")
			for i, k := range []string{"a", "b"} {
				b.SetCurrentKey(k, i)
				v.Update(i + 1)
				m.Put("x", i)
			}
			b.SetCurrentKey("a", 0)
			b.ClearCurrentKey()
			mustNoErr(t, b)
			if _, ok := v.Value(); ok {
				t.Errorf("value of a survived ClearCurrentKey")
			}
			if m.Contains("x") {
				t.Errorf("map of a survived ClearCurrentKey")
			}
			b.SetCurrentKey("b", 1)
			if got, _ := v.Value(); got != 2 {
				t.Errorf("value of b = %d, want 2", got)
			}
			if got := b.NumEntries(); got != 2 {
				t.Errorf("NumEntries = %d, want 2 (b's value and map)", got)
			}
		})
	}
}
