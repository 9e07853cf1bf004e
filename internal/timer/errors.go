package timer

import "errors"

// ErrReentrantAdvance is returned when AdvanceWatermark or
// AdvanceProcessingTime is called from inside a fire callback.
var ErrReentrantAdvance = errors.New("timer: advance called from a fire callback")
