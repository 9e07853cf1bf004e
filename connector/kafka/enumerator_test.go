package kafka

import (
	"encoding/json"
	"log/slog"
	"slices"
	"testing"
	"time"
)

// A restored enumerator hands each unassigned split to its owner at the
// new parallelism, says "none now" (more to come) to the others when
// unbounded and "no more" when bounded, and snapshots what it knows and
// what it still holds.
func TestEnumeratorRestore(t *testing.T) {
	var unassigned []split
	for p := range int32(6) {
		unassigned = append(unassigned, split{Topic: "t", Partition: p, Offset: int64(p) * 10, Stop: noStop})
	}
	known := []topicPartition{{"t", 0}, {"t", 1}, {"t", 2}, {"t", 3}, {"t", 4}, {"t", 5}, {"t", 6}}
	state, err := json.Marshal(enumeratorState{Known: known, Unassigned: unassigned})
	if err != nil {
		t.Fatal(err)
	}
	for _, bounded := range []bool{false, true} {
		cfg := config{brokers: []string{"127.0.0.1:1"}, bounded: bounded, timeout: time.Second, discovery: -1}
		e, err := newEnumerator(cfg, 3, state, slog.Default())
		if err != nil {
			t.Fatal(err)
		}
		var got []split
		for sub := range 3 {
			for {
				s, ok, more := e.Next(sub)
				if !ok {
					if more == bounded {
						t.Errorf("bounded=%v: subtask %d out of splits: more=%v", bounded, sub, more)
					}
					break
				}
				if o := owner(s.tp(), 3); o != sub {
					t.Errorf("split %s went to subtask %d, its owner is %d", s.id(), sub, o)
				}
				got = append(got, s)
			}
		}
		slices.SortFunc(got, func(a, b split) int { return int(a.Partition - b.Partition) })
		if !slices.Equal(got, unassigned) {
			t.Errorf("handed out %v, want %v", got, unassigned)
		}
		b, err := e.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		var st enumeratorState
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		if len(st.Unassigned) != 0 || len(st.Known) != len(known) {
			t.Errorf("snapshot after handing out everything: %+v", st)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// Partitions spread over the subtasks: each of p subtasks owns a share of
// a topic's partitions, within one of the others'.
func TestOwnerSpreadsPartitions(t *testing.T) {
	for _, p := range []int{1, 2, 3, 7} {
		counts := make([]int, p)
		for part := range int32(20) {
			counts[owner(topicPartition{"orders", part}, p)]++
		}
		if slices.Max(counts)-slices.Min(counts) > 1 {
			t.Errorf("p=%d: partitions per subtask %v", p, counts)
		}
	}
}
