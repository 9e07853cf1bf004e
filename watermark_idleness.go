package weir

import "time"

// WithIdleness returns the strategy with Idleness d (Flink's
// WatermarkStrategy.withIdleness): a split, or a subtask of
// AssignTimestampsAndWatermarks, that receives no element for d is idle
// and no longer holds back event time downstream, until its next element.
//
//	weir.BoundedOutOfOrderness(time.Second, ts).WithIdleness(time.Minute)
func (w WatermarkStrategy[T]) WithIdleness(d time.Duration) WatermarkStrategy[T] {
	w.Idleness = d
	return w
}
