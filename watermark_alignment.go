package weir

import (
	"errors"
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/operator/source"
)

// WithWatermarkAlignment returns the strategy with watermark alignment
// (Flink's WatermarkStrategy.withWatermarkAlignment, FLIP-182): the split
// sources whose strategy names the same group report their watermark
// every updateInterval (0: 1s) to the JobMaster, and a source subtask
// whose watermark runs ahead of the least watermark of the group by more
// than maxAllowedDrift stops reading until the group catches up. A
// SourceReader that implements SplitPauser pauses only the splits that
// run ahead (FLIP-217); other readers pause as a whole when all their
// splits that are not idle do.
//
// Idle subtasks (see WithIdleness) and finished ones do not hold their
// group back. Alignment needs a split source with NewSourceReader and this
// strategy as SplitSource.Watermarks; it does not apply in batch mode.
//
//	ws := weir.BoundedOutOfOrderness(time.Second, ts).
//		WithWatermarkAlignment("clicks", 10*time.Second, time.Second)
func (w WatermarkStrategy[T]) WithWatermarkAlignment(group string, maxAllowedDrift, updateInterval time.Duration) WatermarkStrategy[T] {
	w.AlignmentGroup, w.MaxAllowedDrift, w.AlignmentUpdateInterval = group, maxAllowedDrift, updateInterval
	return w
}

// SplitPauser is implemented by a SourceReader that can stop reading some
// of its splits (Flink's SourceReader.pauseOrResumeSplits): with
// watermark alignment, the splits that run ahead of their group pause
// while the others go on. Split ids are those the reader gave
// ReaderOutput.ForSplit.
type SplitPauser = source.SplitPauser

// alignment checks the alignment settings of a split source's strategy
// and returns them for the graph (nil: no alignment).
func alignmentOf[T any](w *WatermarkStrategy[T]) (*graph.Alignment, error) {
	if w == nil || w.AlignmentGroup == "" {
		if w != nil && (w.MaxAllowedDrift != 0 || w.AlignmentUpdateInterval != 0) {
			return nil, errors.New("weir: FromSplits: MaxAllowedDrift or AlignmentUpdateInterval without AlignmentGroup")
		}
		return nil, nil
	}
	if w.MaxAllowedDrift < 0 || w.AlignmentUpdateInterval < 0 {
		return nil, fmt.Errorf("weir: FromSplits: negative drift %v or update interval %v of alignment group %q",
			w.MaxAllowedDrift, w.AlignmentUpdateInterval, w.AlignmentGroup)
	}
	return &graph.Alignment{Group: w.AlignmentGroup, MaxDrift: w.MaxAllowedDrift}, nil
}
