// Package cachetest writes real cached datasets for the tests of the
// packages that list and delete them (REST, CLI).
package cachetest

import (
	"testing"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/op"
)

type discard struct{}

func (discard) Collect(int64, string) error { return nil }
func (discard) EmitWatermark(int64) error   { return nil }

// Write creates dataset id of one partition holding words in r, through
// the Writer executions use.
func Write(t testing.TB, r *cache.Registry, id string, words ...string) {
	t.Helper()
	c, err := codec.For[string]()
	if err != nil {
		t.Fatal(err)
	}
	prod, err := r.Begin(id, "words", 1)
	if err != nil {
		t.Fatal(err)
	}
	w := cache.NewWriter(prod, c, op.Output[string](discard{}))
	if err := w.Open(&op.Context{}); err != nil {
		t.Fatal(err)
	}
	for _, s := range words {
		if err := w.ProcessElement(op.NoTimestamp, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	if !r.Commit(prod) {
		t.Fatalf("dataset %s not created", id)
	}
}
