package event

import (
	"testing"
	"time"
)

func TestAlignedTimeout(t *testing.T) {
	for _, tc := range []struct {
		millis int64
		want   time.Duration
	}{
		{0, 0},
		{1, time.Millisecond},
		{250, 250 * time.Millisecond},
	} {
		if got := (CheckpointBarrier{AlignedTimeoutMillis: tc.millis}).AlignedTimeout(); got != tc.want {
			t.Errorf("AlignedTimeoutMillis %d: AlignedTimeout() = %v, want %v", tc.millis, got, tc.want)
		}
	}
}
