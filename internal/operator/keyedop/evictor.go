package keyedop

// Timestamped is an element of a window with an evictor, with its
// timestamp (Flink's TimestampedValue).
type Timestamped[T any] struct {
	TS int64
	V  T
}

// Evictor removes elements from a window before and after its function
// runs (Flink's Evictor): each returns the elements to keep, in order.
type Evictor[T any, W WindowType] interface {
	EvictBefore(es []Timestamped[T], w W) []Timestamped[T]
	EvictAfter(es []Timestamped[T], w W) []Timestamped[T]
}

// CountEvictor keeps the last Count elements, before the function or, with
// After, after it (Flink's CountEvictor).
type CountEvictor[T any, W WindowType] struct {
	Count int64
	After bool
}

func (c CountEvictor[T, W]) evict(es []Timestamped[T]) []Timestamped[T] {
	if int64(len(es)) <= c.Count {
		return es
	}
	return es[int64(len(es))-c.Count:]
}

func (c CountEvictor[T, W]) EvictBefore(es []Timestamped[T], _ W) []Timestamped[T] {
	if c.After {
		return es
	}
	return c.evict(es)
}

func (c CountEvictor[T, W]) EvictAfter(es []Timestamped[T], _ W) []Timestamped[T] {
	if !c.After {
		return es
	}
	return c.evict(es)
}

// TimeEvictor keeps the elements less than Keep milliseconds older than
// the window's newest element, before the function or, with After, after
// it (Flink's TimeEvictor).
type TimeEvictor[T any, W WindowType] struct {
	Keep  int64
	After bool
}

func (e TimeEvictor[T, W]) evict(es []Timestamped[T]) []Timestamped[T] {
	if len(es) == 0 {
		return es
	}
	newest := es[0].TS
	for _, x := range es {
		newest = max(newest, x.TS)
	}
	kept := make([]Timestamped[T], 0, len(es))
	for _, x := range es {
		if x.TS > newest-e.Keep {
			kept = append(kept, x)
		}
	}
	return kept
}

func (e TimeEvictor[T, W]) EvictBefore(es []Timestamped[T], _ W) []Timestamped[T] {
	if e.After {
		return es
	}
	return e.evict(es)
}

func (e TimeEvictor[T, W]) EvictAfter(es []Timestamped[T], _ W) []Timestamped[T] {
	if !e.After {
		return es
	}
	return e.evict(es)
}

// Evicting returns the functions of fns over windows that keep all their
// elements, so that ev can remove some before and after each firing; the
// elements are folded with fns at the firing (Flink's
// EvictingWindowOperator).
func Evicting[K comparable, T, A, O any, W WindowType](fns WindowFuncs[K, T, A, O, W], ev Evictor[T, W]) WindowFuncs[K, T, []Timestamped[T], O, W] {
	fold := func(es []Timestamped[T]) (A, error) {
		acc := fns.NewAcc()
		for _, e := range es {
			var err error
			if acc, err = fns.Add(e.V, acc); err != nil {
				return acc, err
			}
		}
		return acc, nil
	}
	out := WindowFuncs[K, T, []Timestamped[T], O, W]{
		NewAcc: func() []Timestamped[T] { return nil },
		AddAt: func(v T, ts int64, es []Timestamped[T]) ([]Timestamped[T], error) {
			return append(es, Timestamped[T]{ts, v}), nil
		},
		Merge: func(a, b []Timestamped[T]) ([]Timestamped[T], error) {
			return append(append(make([]Timestamped[T], 0, len(a)+len(b)), a...), b...), nil
		},
		EvictBefore: ev.EvictBefore,
		EvictAfter:  ev.EvictAfter,
	}
	if fns.Process != nil {
		out.Process = func(ctx *WindowContext[K, O, W], es []Timestamped[T]) error {
			acc, err := fold(es)
			if err != nil {
				return err
			}
			return fns.Process(ctx, acc)
		}
	} else {
		out.Result = func(k K, w W, es []Timestamped[T]) (O, error) {
			acc, err := fold(es)
			if err != nil {
				var zero O
				return zero, err
			}
			return fns.Result(k, w, acc)
		}
	}
	return out
}
