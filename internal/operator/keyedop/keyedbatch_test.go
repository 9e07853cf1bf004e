package keyedop

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/state"
)

const keyedBatchMaxP = 16

// keyedBatchOp is a keyed operator (or input of one) under test, with its
// backend.
type keyedBatchOp struct {
	in      op.KeyedBatchInput[kv]
	backend func() *state.KeyedBackend[string]
}

// openKeyed opens o as subtask index of 2 on keyedBatchMaxP key groups.
func openKeyed(t *testing.T, o any, index int) {
	t.Helper()
	ctx := &op.Context{SubtaskIndex: index, Parallelism: 2, MaxParallelism: keyedBatchMaxP,
		KeyGroups: keygroup.RangeFor(keyedBatchMaxP, 2, index)}
	if err := o.(op.Operator).Open(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.(op.Operator).Close() })
}

// keyedBatchOps are the keyed operators that take key groups with their
// batches: the rolling reduce, and both inputs of a join (a co-process).
func keyedBatchOps(t *testing.T, index int, out *collected) map[string]keyedBatchOp {
	t.Helper()
	key := func(v kv) string { return v.K }
	sum := func(a, b kv) (kv, error) { return kv{a.K, a.V + b.V}, nil }
	r := NewReduce(sum, key, fnvHash, nil, op.Output[kv](kvStrings{out}))
	openKeyed(t, r, index)
	join := NewJoin(func(a, b kv) (string, error) { return fmt.Sprint(a, b), nil }, key, key, fnvHash, op.Output[string](out))
	openKeyed(t, join, index)
	joinBackend := func() *state.KeyedBackend[string] { return join.(*coProcessOp[string, kv, kv, string]).Backend() }
	m := join.(op.MultiInput)
	return map[string]keyedBatchOp{
		"reduce":     {r, r.Backend},
		"join left":  {m.InputAt(0).(op.KeyedBatchInput[kv]), joinBackend},
		"join right": {m.InputAt(1).(op.KeyedBatchInput[kv]), joinBackend},
	}
}

// kvStrings emits kv records as text into a collected.
type kvStrings struct{ *collected }

func (k kvStrings) Collect(ts int64, v kv) error { return k.collected.Collect(ts, fmt.Sprint(v)) }

// A keyed operator given its records' key groups with a batch puts every
// key's state into that group, as when it hashes the keys itself, and
// emits the same; a key group outside its subtask's range is an error, not
// state in the wrong place.
func TestKeyedBatchesUseTheSendersKeyGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var ts []int64
	var vs []kv
	var groups []uint16
	for i := range 400 {
		k := fmt.Sprint("key", r.IntN(60))
		kg := keygroup.Of(fnvHash(k), keyedBatchMaxP)
		if keygroup.OperatorIndex(keyedBatchMaxP, 2, kg) != 1 {
			continue // another subtask's
		}
		ts, vs, groups = append(ts, int64(i)), append(vs, kv{k, i}), append(groups, uint16(kg))
	}
	hashed, grouped := &collected{}, &collected{}
	plain, keyed := keyedBatchOps(t, 1, hashed), keyedBatchOps(t, 1, grouped)
	for _, name := range []string{"reduce", "join left", "join right"} {
		if err := plain[name].in.CollectBatch(slices.Clone(ts), slices.Clone(vs)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := keyed[name].in.CollectKeyedBatch(slices.Clone(ts), slices.Clone(groups), slices.Clone(vs)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if len(hashed.out) < 1000 || !slices.Equal(grouped.out, hashed.out) {
		t.Fatalf("with key groups %d results, hashing %d; they differ or are too few", len(grouped.out), len(hashed.out))
	}
	for name, o := range keyed {
		b := o.backend()
		start, end := b.KeyGroupRange()
		n := 0
		for _, s := range b.StateNames() {
			for kg := start; kg <= end; kg++ {
				for k := range b.Keys(s, kg) {
					n++
					if want := keygroup.Of(fnvHash(k), keyedBatchMaxP); kg != want {
						t.Errorf("%s: key %q in key group %d of state %q, hashes to %d", name, k, kg, s, want)
					}
				}
			}
		}
		if n == 0 {
			t.Errorf("%s: no state", name)
		}
	}

	// Subtask 0 owns key groups 0-7; a frame naming 12 for a key of
	// group 0-7 does not belong.
	own := "k"
	for keygroup.Of(fnvHash(own), keyedBatchMaxP) >= 8 {
		own += "k"
	}
	for name, o := range keyedBatchOps(t, 0, &collected{}) {
		err := o.in.CollectKeyedBatch(nil, []uint16{12}, []kv{{own, 1}})
		if !errors.Is(err, state.ErrKeyGroupOutOfRange) {
			t.Errorf("%s: key group 12 on subtask 0: err = %v, want ErrKeyGroupOutOfRange", name, err)
		}
	}
}
