package state

import (
	"fmt"
	"testing"
)

// BenchmarkValueState measures the per-record cost of a keyed counter,
// SetCurrentKey + Value + Update, beside the same loop on a plain
// map[string]int64: "map" reads then writes as Value+Update do (two hash
// lookups), "map-incr" is m[k]++, which the compiler turns into one.
func BenchmarkValueState(b *testing.B) {
	const maxPar = 128
	for _, numKeys := range []int{100, 100_000} {
		keys := make([]string, numKeys)
		groups := make([]int, numKeys)
		for i := range keys {
			keys[i] = fmt.Sprint("key-", i)
			groups[i] = keyGroupOf(keys[i], maxPar)
		}

		b.Run(fmt.Sprintf("keys=%d/map", numKeys), func(b *testing.B) {
			m := make(map[string]int64)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				k := keys[i%numKeys]
				x := m[k]
				m[k] = x + 1
				i++
			}
		})
		b.Run(fmt.Sprintf("keys=%d/map-incr", numKeys), func(b *testing.B) {
			m := make(map[string]int64)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				m[keys[i%numKeys]]++
				i++
			}
		})
		for _, kind := range backendKinds {
			name := "backend"
			if kind != "heap" {
				name = kind
			}
			b.Run(fmt.Sprintf("keys=%d/%s", numKeys, name), func(b *testing.B) {
				benchmarkCounter(b, newTestBackend[string](b, kind, 0, maxPar-1), keys, groups)
			})
		}
	}
}

// benchmarkCounter runs the keyed counter on be over keys, round robin,
// and closes be.
func benchmarkCounter(b *testing.B, be *KeyedBackend[string], keys []string, groups []int) {
	defer be.Close()
	numKeys := len(keys)
	v, _ := Value[string, int64](be, "count")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		j := i % numKeys
		be.SetCurrentKey(keys[j], groups[j])
		x, _ := v.Value()
		v.Update(x + 1)
		i++
	}
	if be.Err() != nil {
		b.Fatal(be.Err())
	}
}
