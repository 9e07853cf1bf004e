package typeinfo_test

import (
	"testing"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// watermarkHandler is an operator that handles watermarks itself and takes
// batches, as a process function's operator: it has no Collect, so it
// cannot be its predecessor's output directly.
type watermarkHandler struct {
	batches, records int
}

func (w *watermarkHandler) ProcessElement(int64, string) error { w.records++; return nil }
func (w *watermarkHandler) ProcessWatermark(int64) error       { return nil }
func (w *watermarkHandler) CollectBatch(_ []int64, vs []string) error {
	w.batches++
	w.records += len(vs)
	return nil
}

// The chain's adapter in front of an operator that handles watermarks
// passes batches on whole when the operator takes them.
func TestChainInputPassesBatchesToAnOperatorThatHandlesWatermarks(t *testing.T) {
	target := &watermarkHandler{}
	in, err := typeinfo.New[string]().ChainInput(target, func(int64) error { return nil }, func(err error) error { return err })
	if err != nil {
		t.Fatal(err)
	}
	b, ok := in.(op.BatchOutput[string])
	if !ok {
		t.Fatalf("the chain's input %T takes no batches", in)
	}
	if err := b.CollectBatch(nil, []string{"a", "b", "c"}); err != nil {
		t.Fatal(err)
	}
	if target.batches != 1 || target.records != 3 {
		t.Fatalf("the operator got %d batches and %d records, want 1 batch of 3", target.batches, target.records)
	}
}
