package state_test

import (
	"fmt"
	"hash/fnv"

	"github.com/weir-engine/weir/internal/state"
)

// A keyed counter, as the sequence job's operator keeps it: the task sets the
// current key for each record, then reads and writes state for that key.
func Example() {
	const maxParallelism = 128
	keyGroup := func(key string) int {
		h := fnv.New32a()
		h.Write([]byte(key))
		return int(h.Sum32() % maxParallelism)
	}

	// This subtask owns all key groups.
	b := state.NewKeyedBackend[string](0, maxParallelism-1)
	count, err := state.Value[string, int64](b, "count")
	if err != nil {
		panic(err)
	}
	for _, key := range []string{"k0", "k1", "k0", "k0"} {
		b.SetCurrentKey(key, keyGroup(key))
		n, _ := count.Value()
		count.Update(n + 1)
		fmt.Printf("%s\t%d\n", key, n+1)
	}
	if err := b.Err(); err != nil {
		panic(err)
	}
	// Output:
	// k0	1
	// k1	1
	// k0	2
	// k0	3
}
