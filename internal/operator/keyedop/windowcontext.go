package keyedop

import (
	"errors"

	"github.com/weir-engine/weir/internal/op"
)

// WindowContext is what a window process function sees of the firing at
// hand: the key, the window, the clocks, per-window state (WindowValue)
// and the outputs (package weir's WindowContext).
type WindowContext[K comparable, O any, W WindowType] struct {
	ops     windowOps[W]
	ctx     *op.Context
	out     op.Output[O]
	merging bool
	key     K
	w       W
	err     error
}

// errMergingWindowState refuses per-window state of merging windows, as
// Flink does.
var errMergingWindowState = errors.New("per-window state is not supported for merging (session) windows")

// Key is the key of the firing window.
func (c *WindowContext[K, O, W]) Key() K { return c.key }

// Window is the firing window.
func (c *WindowContext[K, O, W]) Window() W { return c.w }

// CurrentWatermark is the operator's event time in milliseconds.
func (c *WindowContext[K, O, W]) CurrentWatermark() int64 { return c.ops.watermark() }

// CurrentProcessingTime is the wall clock in milliseconds.
func (c *WindowContext[K, O, W]) CurrentProcessingTime() int64 { return c.ops.now() }

// Collect emits v with the window's max timestamp.
func (c *WindowContext[K, O, W]) Collect(v O) {
	if c.err == nil {
		c.err = c.out.Collect(MaxTimestamp(c.w), v)
	}
}

func (c *WindowContext[K, O, W]) store() (windowStore[W], W, error) {
	if c.merging {
		return nil, c.w, errMergingWindowState
	}
	return c.ops, c.w, nil
}

func (c *WindowContext[K, O, W]) sideOutput(id string) (any, int64) {
	return c.ctx.SideOutputs[id], MaxTimestamp(c.w)
}

func (c *WindowContext[K, O, W]) recordErr(err error) {
	if c.err == nil {
		c.err = err
	}
}
