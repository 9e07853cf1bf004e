package weir

import (
	"errors"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/keyedop"
)

// WindowCoGroup hands f, for every key and event-time window in which
// either keyed stream has elements, the elements of both with that key in
// that window (either list may be empty), when the watermark passes the
// window's end (Flink's window coGroup). What f collects carries the
// window's max timestamp. Both streams need event timestamps; elements of
// a window that already fired are dropped.
func WindowCoGroup[K comparable, A, B, R any](a KeyedStream[K, A], b KeyedStream[K, B], assigner WindowAssigner, f func(key K, w TimeWindow, as []A, bs []B, out Collector[R]) error) DataStream[R] {
	if f == nil {
		return invalid[R](a.env, errors.New("weir: WindowCoGroup: nil function"))
	}
	if err := assigner.a.Validate(); err != nil {
		return invalid[R](a.env, err)
	}
	group := func(ctx *KeyedContext[K, R], w keyedop.Window, as []A, bs []B) error {
		return f(ctx.Key(), TimeWindow(w), as, bs, ctx)
	}
	return coOperator(Connect(a, b), "WindowCoGroup", f, func(out op.Output[R]) any {
		return keyedop.NewWindowCoGroup(group, assigner.a, a.key, b.key, a.hash, out)
	})
}
