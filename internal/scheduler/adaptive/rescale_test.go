package adaptive

import (
	"testing"
	"time"
)

func TestDecideRescale(t *testing.T) {
	since := time.Unix(1000, 0)
	o := RescaleOptions{MinParallelismIncrease: 2, Cooldown: 30 * time.Second, MaxDelay: 5 * time.Minute}
	tests := []struct {
		name      string
		o         RescaleOptions
		cur, next map[int]int
		at        time.Duration
		want      rescaleDecision
	}{
		{"no change", o, map[int]int{0: 2}, map[int]int{0: 2}, time.Hour, rescaleDecision{}},
		{"in the cooldown", o, map[int]int{0: 2}, map[int]int{0: 8}, 10 * time.Second, rescaleDecision{recheck: since.Add(30 * time.Second)}},
		{"cooldown ends exactly", o, map[int]int{0: 2}, map[int]int{0: 4}, 30 * time.Second, rescaleDecision{rescale: true, reason: "parallelism can increase"}},
		{"increase below the minimum", o, map[int]int{0: 2}, map[int]int{0: 3}, time.Minute, rescaleDecision{recheck: since.Add(5 * time.Minute)}},
		{"one vertex reaches the minimum", o, map[int]int{0: 2, 1: 1}, map[int]int{0: 3, 1: 3}, time.Minute, rescaleDecision{rescale: true, reason: "parallelism can increase"}},
		{"max delay reached", o, map[int]int{0: 2}, map[int]int{0: 3}, 5 * time.Minute, rescaleDecision{rescale: true, reason: "maximum delay reached"}},
		{"no max delay: never forced", RescaleOptions{MinParallelismIncrease: 2, Cooldown: 30 * time.Second}, map[int]int{0: 2}, map[int]int{0: 3}, time.Hour, rescaleDecision{}},
		{"a decrease", o, map[int]int{0: 4}, map[int]int{0: 3}, time.Minute, rescaleDecision{rescale: true, reason: "parallelism must decrease"}},
		{"a decrease waits for the cooldown too", o, map[int]int{0: 4}, map[int]int{0: 3}, time.Second, rescaleDecision{recheck: since.Add(30 * time.Second)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decideRescale(tt.o, tt.cur, tt.next, since, since.Add(tt.at)); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
