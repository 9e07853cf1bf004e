package weir

import (
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/operator/keyedop"
)

// Evictor removes elements from a window before and after its function
// runs (Flink's Evictor): EvictBefore and EvictAfter each return the
// elements to keep, in order. A window with an evictor keeps all its
// elements, and a reduce or aggregate folds them at each firing.
type Evictor[T any] = keyedop.Evictor[T, TimeWindow]

// TimestampedValue is an element of a window with its timestamp.
type TimestampedValue[T any] = keyedop.Timestamped[T]

// Evictor sets the window's evictor (Flink's evictor).
func (ws WindowedStream[K, T]) Evictor(e Evictor[T]) WindowedStream[K, T] {
	ws.evictor = e
	return ws
}

// CountEvictor keeps the last count elements of a window before its
// function runs, or after it with after set (Flink's CountEvictor).
func CountEvictor[T any](count int64, after bool) Evictor[T] {
	return keyedop.CountEvictor[T, TimeWindow]{Count: count, After: after}
}

// TimeEvictor keeps the elements less than keep older than the window's
// newest element, before its function runs, or after it with after set
// (Flink's TimeEvictor).
func TimeEvictor[T any](keep time.Duration, after bool) Evictor[T] {
	return keyedop.TimeEvictor[T, TimeWindow]{Keep: keep.Milliseconds(), After: after}
}

// SlidingCountWindows are windows of each key's last size elements,
// evaluated every slide elements (Flink's countWindow(size, slide):
// GlobalWindows with a CountEvictor of size and a CountTrigger of slide).
func SlidingCountWindows[K comparable, T any](ks KeyedStream[K, T], size, slide int64) WindowedStream[K, T] {
	ws := Window(ks, GlobalWindows())
	if size < 1 || slide < 1 {
		ws.ks.DataStream = invalid[T](ks.env, fmt.Errorf("weir: count window size %d and slide %d must be at least 1", size, slide))
	}
	return ws.Evictor(CountEvictor[T](size, false)).Trigger(CountTrigger[T](slide))
}
