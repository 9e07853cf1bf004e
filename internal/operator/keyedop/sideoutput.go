package keyedop

import (
	"fmt"

	"github.com/weir-engine/weir/internal/op"
)

// SideOutputContext is a context that can emit to side outputs (package
// weir's SideOutputContext); Context is one.
type SideOutputContext interface {
	sideOutput(id string) (out any, ts int64)
	recordErr(err error)
}

func (c *Context[K, R]) sideOutput(id string) (any, int64) {
	return c.op.Context().SideOutputs[id], c.ts
}

func (c *Context[K, R]) recordErr(err error) {
	if c.err == nil {
		c.err = err
	}
}

// EmitSide emits v to the side output id of ctx, with the context's
// timestamp; an id that no stream consumes drops v. An error is the
// context's, returned after the function.
func EmitSide[S any](ctx SideOutputContext, id string, v S) {
	out, ts := ctx.sideOutput(id)
	if out == nil {
		return
	}
	o, ok := out.(op.Output[S])
	if !ok {
		ctx.recordErr(fmt.Errorf("weir: side output %q does not carry %T", id, v))
		return
	}
	if err := o.Collect(ts, v); err != nil {
		ctx.recordErr(err)
	}
}
