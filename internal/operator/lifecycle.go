package operator

import "github.com/weir-engine/weir/internal/op"

// Hooks is the lifecycle of a user function as the operator that runs it
// sees it: package weir implements it over the function's optional Opener,
// Finisher and Closer.
type Hooks interface {
	Open(ctx *op.Context) error
	Finish() error
	Close() error
}

// UDF gives an operator the lifecycle of its user function; nil Hooks (a
// plain func) have none. Operators embed it.
type UDF struct{ Hooks Hooks }

// Open opens the user function.
func (u *UDF) Open(ctx *op.Context) error {
	if u.Hooks == nil {
		return nil
	}
	return u.Hooks.Open(ctx)
}

// Finish finishes the user function.
func (u *UDF) Finish() error {
	if u.Hooks == nil {
		return nil
	}
	return u.Hooks.Finish()
}

// Close closes the user function.
func (u *UDF) Close() error {
	if u.Hooks == nil {
		return nil
	}
	return u.Hooks.Close()
}

// chainBinding is what a Chainable operator keeps from Bind.
type chainBinding struct {
	attr    func(error) error
	forward func(int64) error
}

// Bind implements op.Chainable.
func (c *chainBinding) Bind(attr func(error) error, forward func(int64) error) {
	c.attr, c.forward = attr, forward
}

// EmitWatermark passes a watermark on, for a chained operator called
// directly as its predecessor's output.
func (c *chainBinding) EmitWatermark(wm int64) error {
	if err := c.forward(wm); err != nil {
		return c.attr(err)
	}
	return nil
}
