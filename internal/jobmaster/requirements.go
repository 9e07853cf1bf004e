package jobmaster

import (
	"errors"
	"fmt"

	"github.com/weir-engine/weir/internal/scheduler/adaptive"
)

// FLIP-291: a running job's per-vertex parallelism bounds, read and set
// at runtime (GET/PUT /jobs/:jobid/resource-requirements). The adaptive
// scheduler takes new bounds as RequirementsChanged: it rescales when
// the slots it holds no longer fit them (an upper bound lowered below
// the parallelism it runs at) or when more slots could now be used.

// ErrNotAdaptive refuses resource requirements of a job on the default
// scheduler, whose parallelism is fixed.
var ErrNotAdaptive = errors.New("jobmaster: resource requirements need the adaptive scheduler (jobmanager.scheduler: adaptive)")

// RequirementsRequest sets the parallelism bounds of vertices by vertex
// id. Reply receives nil once the scheduler took them, or why it refused
// them (then nothing changed); it must have room for one value.
type RequirementsRequest struct {
	Bounds map[int]adaptive.Bounds
	Reply  chan error
}

// UpdateRequirements queues r; it may be called from any goroutine.
func (jm *JobMaster) UpdateRequirements(r RequirementsRequest) { jm.events.Push(r) }

// updateRequirements hands r's bounds to the adaptive scheduler.
func (jm *JobMaster) updateRequirements(r RequirementsRequest) {
	if jm.ada == nil {
		r.Reply <- ErrNotAdaptive
		return
	}
	if err := jm.ada.s.CheckBounds(r.Bounds); err != nil {
		r.Reply <- fmt.Errorf("jobmaster: %w", err)
		return
	}
	jm.log.Info("resource requirements changed", "bounds", r.Bounds)
	jm.sched.Step(adaptive.RequirementsChanged{Bounds: r.Bounds, Now: jm.now()})
	r.Reply <- nil
}

// requirements are the adaptive scheduler's bounds by vertex, an upper
// bound of 0 (none: reactive mode) shown as the vertex's max parallelism.
func (a *adaptiveScheduler) requirements() map[int]adaptive.Bounds {
	out := make(map[int]adaptive.Bounds)
	for _, v := range a.s.Vertices() {
		hi := v.Max
		if hi <= 0 {
			hi = v.MaxParallelism
		}
		out[v.ID] = adaptive.Bounds{Min: v.Min, Max: hi}
	}
	return out
}
