package queries

import (
	"maps"
	"testing"

	"pgregory.net/rapid"
)

// TestIDCountsModel checks idCounts against a map[int64]int64 over random
// adds (sequential ids as Nexmark's, far and negative ones, zeros) and
// resets, enough ids to grow the table several times.
func TestIDCountsModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, model := newIDCounts(), map[int64]int64{}
		id := rapid.OneOf(rapid.Int64Range(1000, 1400), rapid.Int64Range(-3, 3), rapid.Int64())
		for range rapid.IntRange(1, 2000).Draw(t, "steps") {
			if rapid.IntRange(0, 200).Draw(t, "op") == 0 {
				c.reset()
				clear(model)
				continue
			}
			k, n := id.Draw(t, "id"), rapid.Int64Range(0, 3).Draw(t, "n")
			c.add(k, n)
			if n != 0 {
				model[k] += n
			}
			if c.len() != len(model) {
				t.Fatalf("len %d, the map has %d", c.len(), len(model))
			}
		}
		if got := maps.Collect(c.all()); !maps.Equal(got, model) {
			t.Fatalf("the table holds %v, the map %v", got, model)
		}
	})
}

// BenchmarkIDCounts counts Nexmark-like auction ids (half on one hot id,
// the rest over the last 100) with the table and, in the same run, with a
// map[int64]int64.
func BenchmarkIDCounts(b *testing.B) {
	ids := make([]int64, 1<<16)
	for i := range ids {
		ids[i] = 1000 + int64(i)/50*3
		if i%2 == 1 {
			ids[i] -= int64(i*7919) % 100
		}
	}
	b.Run("table", func(b *testing.B) {
		c := newIDCounts()
		for b.Loop() {
			for _, id := range ids {
				c.add(id, 1)
			}
			c.reset()
		}
	})
	b.Run("map", func(b *testing.B) {
		m := map[int64]int64{}
		for b.Loop() {
			for _, id := range ids {
				m[id]++
			}
			clear(m)
		}
	})
}
