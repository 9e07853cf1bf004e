package rest

import "testing"

func TestBackPressureLevel(t *testing.T) {
	for _, tc := range []struct {
		ratio float64
		want  string
	}{{0, "ok"}, {0.1, "ok"}, {0.11, "low"}, {0.5, "low"}, {0.51, "high"}, {1, "high"}} {
		if got := backPressureLevel(tc.ratio); got != tc.want {
			t.Errorf("backPressureLevel(%v) = %q, want %q", tc.ratio, got, tc.want)
		}
	}
}
