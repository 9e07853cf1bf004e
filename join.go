package weir

import (
	"errors"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/keyedop"
)

// Join is the inner join of two keyed streams on their key, without a
// window: every element is kept in keyed state and joined, through f, with
// every element of the other stream with the same key, whether it came
// before or comes after. The state grows with the input; use it for
// bounded inputs or keys that stop arriving, or WindowJoin.
func Join[K comparable, A, B, R any](a KeyedStream[K, A], b KeyedStream[K, B], f func(A, B) (R, error)) DataStream[R] {
	if f == nil {
		return invalid[R](a.env, errors.New("weir: Join: nil function"))
	}
	return coOperator(Connect(a, b), "Join", f, func(out op.Output[R]) any {
		return keyedop.NewJoin(f, a.key, b.key, a.hash, out)
	})
}

// WindowJoin joins, through f, the elements of two keyed streams with the
// same key that fall into the same event-time window, when the watermark
// passes the window's end (Flink's window join). Both streams need event
// timestamps; elements of a window that already fired are dropped.
func WindowJoin[K comparable, A, B, R any](a KeyedStream[K, A], b KeyedStream[K, B], assigner WindowAssigner, f func(A, B) (R, error)) DataStream[R] {
	if f == nil {
		return invalid[R](a.env, errors.New("weir: WindowJoin: nil function"))
	}
	if err := assigner.a.Validate(); err != nil {
		return invalid[R](a.env, err)
	}
	if !assigner.a.EventTime() || assigner.a.Merging() {
		return invalid[R](a.env, errors.New("weir: WindowJoin takes tumbling or sliding event-time windows"))
	}
	return coOperator(Connect(a, b), "WindowJoin", f, func(out op.Output[R]) any {
		return keyedop.NewWindowJoin(f, assigner.a, a.key, b.key, a.hash, out)
	})
}
