// Package watermark holds the watermark strategy as the runtime sees it and
// the operator that assigns timestamps and emits watermarks by it (package
// weir's AssignTimestampsAndWatermarks). The per-split watermarks of a
// split source use the same Strategy (internal/operator/source); both
// announce an idle subtask by Strategy.Idleness.
package watermark

import "time"

// Strategy has the fields of package weir's WatermarkStrategy, which
// converts to it and documents them: how to take event timestamps from
// elements, how far the watermark trails the largest timestamp seen, how
// often it is emitted (or after every element), and after how long a quiet
// split is idle.
type Strategy[T any] struct {
	Timestamp      func(v T) int64
	OutOfOrderness time.Duration
	Interval       time.Duration
	PerElement     bool
	Idleness       time.Duration
	// watermark alignment (split sources only)
	AlignmentGroup          string
	MaxAllowedDrift         time.Duration
	AlignmentUpdateInterval time.Duration
}

// DefaultInterval is how often a watermark is emitted when the strategy
// does not say (Flink's auto-watermark interval).
const DefaultInterval = 200 * time.Millisecond

// DefaultAlignmentUpdateInterval is how often a source with an alignment
// group reports its watermark when the strategy does not say (Flink's
// default).
const DefaultAlignmentUpdateInterval = time.Second
