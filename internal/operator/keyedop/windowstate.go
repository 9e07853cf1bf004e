package keyedop

import (
	"fmt"

	"github.com/weir-engine/weir/internal/codec"
)

// windowStore keeps per-window state of the current key: encoded values
// by window and name, in one keyed map state of the operator, so that
// state of any type needs no registration and goes with the window.
type windowStore[W WindowType] interface {
	getState(w W, name string) ([]byte, bool)
	putState(w W, name string, b []byte)
	removeState(w W, name string)
}

// windowStateKey names one per-window state of a window.
type windowStateKey[W WindowType] struct {
	W    W
	Name string
}

// WindowStateHolder is a context with per-window state: a TriggerContext
// or a WindowContext.
type WindowStateHolder[W WindowType] interface {
	// store returns the store and window at hand, or why the context
	// has no per-window state.
	store() (windowStore[W], W, error)
}

// WindowValueState is a value per key and window, kept until the window is
// cleared.
type WindowValueState[V any, W WindowType] struct {
	s    windowStore[W]
	w    W
	name string
	c    codec.Codec[V]
	err  error
}

// WindowValue returns the per-window value state called name of the
// window at hand in ctx. An unsupported type V, or per-window state of
// merging windows, is an error of Err, and the state then stays empty.
func WindowValue[V any, W WindowType](ctx WindowStateHolder[W], name string) *WindowValueState[V, W] {
	s, w, err := ctx.store()
	var c codec.Codec[V]
	if err == nil {
		c, err = codec.For[V]()
	}
	if err != nil {
		err = fmt.Errorf("window state %q: %w", name, err)
	}
	return &WindowValueState[V, W]{s: s, w: w, name: name, c: c, err: err}
}

// Err is the first error of the state.
func (v *WindowValueState[V, W]) Err() error { return v.err }

// Value returns the value and whether there is one.
func (v *WindowValueState[V, W]) Value() (V, bool) {
	var zero V
	if v.err != nil {
		return zero, false
	}
	b, ok := v.s.getState(v.w, v.name)
	if !ok {
		return zero, false
	}
	x, _, err := v.c.Decode(b)
	if err != nil {
		v.err = fmt.Errorf("window state %q: %w", v.name, err)
		return zero, false
	}
	return x, true
}

// Update sets the value.
func (v *WindowValueState[V, W]) Update(x V) {
	if v.err == nil {
		v.s.putState(v.w, v.name, v.c.Append(nil, x))
	}
}

// Clear removes the value.
func (v *WindowValueState[V, W]) Clear() {
	if v.err == nil {
		v.s.removeState(v.w, v.name)
	}
}
