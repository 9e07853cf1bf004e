package adaptive

import (
	"maps"
	"time"
)

// rescaleDecision is the rescaling policy's answer.
type rescaleDecision struct {
	// rescale says to rescale now, for reason.
	rescale bool
	reason  string
	// recheck, when not zero, is when to ask again (the cooldown or the
	// maximum delay ends).
	recheck time.Time
}

// decideRescale is the rescaling policy of an Executing job that started
// executing at since and runs at cur, when the slots would run it at next:
//
//   - no change: nothing to do;
//   - within the cooldown after since: ask again when it ends (the slots
//     are judged then, so slots that came and went meanwhile count for
//     nothing);
//   - some vertex grows by at least MinParallelismIncrease, or some vertex
//     must shrink (its bounds were lowered; lost slots are a failure, not
//     a rescale): rescale;
//   - otherwise, with MaxDelay set, rescale once MaxDelay has passed since
//     since, and ask again then.
func decideRescale(o RescaleOptions, cur, next map[int]int, since, now time.Time) rescaleDecision {
	if maps.Equal(cur, next) {
		return rescaleDecision{}
	}
	if end := since.Add(o.Cooldown); now.Before(end) {
		return rescaleDecision{recheck: end}
	}
	for v, n := range next {
		switch {
		case n-cur[v] >= o.MinParallelismIncrease:
			return rescaleDecision{rescale: true, reason: "parallelism can increase"}
		case n < cur[v]:
			return rescaleDecision{rescale: true, reason: "parallelism must decrease"}
		}
	}
	if o.MaxDelay > 0 {
		if end := since.Add(o.MaxDelay); now.Before(end) {
			return rescaleDecision{recheck: end}
		}
		return rescaleDecision{rescale: true, reason: "maximum delay reached"}
	}
	return rescaleDecision{}
}
