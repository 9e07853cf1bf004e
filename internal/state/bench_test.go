package state

import (
	"fmt"
	"maps"
	"testing"
)

// BenchmarkValueState measures the per-record cost of a keyed counter,
// SetCurrentKey + Value + Update, beside the same loop on a plain
// map[string]int64: "map" reads then writes as Value+Update do (two hash
// lookups), "map-incr" is m[k]++, which the compiler turns into one.
func BenchmarkValueState(b *testing.B) {
	const maxPar = 128
	for _, numKeys := range []int{100, 100_000} {
		keys, groups := benchKeys(numKeys, maxPar)

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

// benchKeys returns n keys and their key groups of maxPar.
func benchKeys(n, maxPar int) ([]string, []int) {
	keys, groups := make([]string, n), make([]int, n)
	for i := range keys {
		keys[i] = fmt.Sprint("key-", i)
		groups[i] = keyGroupOf(keys[i], maxPar)
	}
	return keys, groups
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

// BenchmarkMapStateWindows measures MapState as a window operator uses
// it: per key a handful of windows, each record a Get and a Put of one of
// them, a range over all of them and the Remove of the oldest. "cells" is
// the heap's table (mapCellTable), "gomap" the same state on a heap table
// of Go maps, as MapState kept before it.
func BenchmarkMapStateWindows(b *testing.B) {
	const maxPar, windows = 128, 5
	for _, numKeys := range []int{1_000, 100_000} {
		keys, groups := benchKeys(numKeys, maxPar)
		tables := map[string]func(be *KeyedBackend[string]) *MapState[string, int, int64]{
			"cells": func(be *KeyedBackend[string]) *MapState[string, int, int64] {
				m, _ := Map[string, int, int64](be, "windows")
				return m
			},
			"gomap": func(be *KeyedBackend[string]) *MapState[string, int, int64] {
				return &MapState[string, int, int64]{b: be, t: newHeapTable[string, map[int]int64](be.numGroups(), maps.Clone)}
			},
		}
		for _, name := range []string{"gomap", "cells"} {
			b.Run(fmt.Sprintf("keys=%d/%s", numKeys, name), func(b *testing.B) {
				be := NewKeyedBackend[string](0, maxPar-1)
				m := tables[name](be)
				b.ReportAllocs()
				var sum int64
				i := 0
				for b.Loop() {
					j, pass := i%numKeys, i/numKeys
					be.SetCurrentKey(keys[j], groups[j])
					w := pass % windows
					n, _ := m.Get(w)
					m.Put(w, n+1)
					for _, n := range m.All() {
						sum += n
					}
					m.Remove((pass + 1) % windows)
					i++
				}
				if be.Err() != nil || sum == 0 {
					b.Fatal(be.Err(), sum)
				}
			})
		}
	}
}
