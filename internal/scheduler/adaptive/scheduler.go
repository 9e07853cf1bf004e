package adaptive

import (
	"fmt"
	"slices"
	"time"

	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive/allocator"
)

// Scheduler is the adaptive scheduler of one job. It holds the current
// state and is the states' Context: whatever a state asks for becomes an
// action in Ready, in order. Not safe for concurrent use: the JobMaster
// loop owns it.
type Scheduler struct {
	opts     Options
	vertices []allocator.Vertex
	restart  scheduler.RestartStrategy
	pool     allocator.Pool
	local    []allocator.Local
	// previous is where the generation created last put its subtasks'
	// key groups: without a report of local state (local), the next plan
	// keeps subtasks there when their key groups stay (see
	// allocator.Plan.Local).
	previous []allocator.Local
	state    State
	// next is the number of the next generation.
	next int
	// seq numbers timeouts; 0 is never used.
	seq uint64
	// now is the latest time an event carried.
	now      time.Time
	ready    []any
	rescales []Rescaling
	// failure is the latest failure the restart strategy was asked about.
	failure error
}

// New returns the scheduler of a job with the given vertices (their IDs,
// slot-sharing groups, bounds and max parallelism), in state Created. A
// nil restart strategy means scheduler.NoRestart. In reactive mode every
// vertex's upper bound is its max parallelism.
func New(vertices []allocator.Vertex, restart scheduler.RestartStrategy, opts Options) (*Scheduler, error) {
	opts = opts.WithDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	vs := slices.Clone(vertices)
	if opts.Mode == Reactive {
		for i := range vs {
			vs[i].Max = 0
		}
	}
	if err := allocator.Validate(vs); err != nil {
		return nil, fmt.Errorf("adaptive: %w", err)
	}
	if restart == nil {
		restart = scheduler.NoRestart{}
	}
	return &Scheduler{opts: opts, vertices: vs, restart: restart, state: &created{}}, nil
}

// Step applies one event: one of this package's events, or
// scheduler.TaskState, scheduler.Cancel or scheduler.GlobalFailure.
func (s *Scheduler) Step(ev any) {
	if t := eventTime(ev); t.After(s.now) {
		s.now = t
	}
	switch e := ev.(type) {
	case ResourcesChanged:
		s.pool.Set(e.Slots)
		s.local = slices.Clone(e.Local)
	case RequirementsChanged:
		vs, err := withBounds(s.vertices, e.Bounds)
		if err != nil {
			s.ready = append(s.ready, Rejected{Request: e, Err: err})
			return
		}
		s.vertices = vs
	case StopWithSavepoint:
		if _, ok := s.state.(*executing); !ok {
			s.ready = append(s.ready, Rejected{Request: e, Err: fmt.Errorf("adaptive: cannot stop with a savepoint while %s", s.state.Name())})
			return
		}
	}
	s.state = s.state.Handle(s, ev)
}

// Ready returns and clears the actions decided since the last call.
func (s *Scheduler) Ready() []any {
	r := s.ready
	s.ready = nil
	return r
}

// State is the name of the current state.
func (s *Scheduler) State() string { return s.state.Name() }

// Status is the job's status.
func (s *Scheduler) Status() scheduler.JobStatus { return s.state.Status() }

// Parallelism is the parallelism of the generation that runs, by vertex
// (nil when none runs).
func (s *Scheduler) Parallelism() map[int]int {
	switch st := s.state.(type) {
	case *executing:
		return st.graph.Plan.Parallelism
	case *stopWithSavepoint:
		return st.graph.Plan.Parallelism
	}
	return nil
}

// Rescales is the history of rescale decisions, oldest first.
func (s *Scheduler) Rescales() []Rescaling { return slices.Clone(s.rescales) }

// LastFailure is the latest failure the restart strategy decided about
// (nil before any): the cause of the restart when the scheduler enters
// Restarting other than for a rescale.
func (s *Scheduler) LastFailure() error { return s.failure }

// Vertices are the job's vertices with their current bounds.
func (s *Scheduler) Vertices() []allocator.Vertex { return slices.Clone(s.vertices) }

// CheckBounds reports why RequirementsChanged with bounds would be
// rejected (nil: it would be taken): a vertex the job does not have, a
// lower bound below 1 or above the upper one, an upper bound above the
// vertex's max parallelism.
func (s *Scheduler) CheckBounds(bounds map[int]Bounds) error {
	_, err := withBounds(s.vertices, bounds)
	return err
}

// withBounds returns vs with new bounds, or an error naming the first
// that does not fit.
func withBounds(vs []allocator.Vertex, bounds map[int]Bounds) ([]allocator.Vertex, error) {
	out := slices.Clone(vs)
	for id, b := range bounds {
		i := slices.IndexFunc(out, func(v allocator.Vertex) bool { return v.ID == id })
		if i < 0 {
			return nil, fmt.Errorf("adaptive: resource requirements: no vertex %d", id)
		}
		out[i].Min, out[i].Max = b.Min, b.Max
	}
	if err := allocator.Validate(out); err != nil {
		return nil, fmt.Errorf("adaptive: resource requirements: %w", err)
	}
	return out, nil
}

// eventTime is the time an event carries (zero for those without).
func eventTime(ev any) time.Time {
	switch e := ev.(type) {
	case Start:
		return e.Now
	case ResourcesChanged:
		return e.Now
	case RequirementsChanged:
		return e.Now
	case ExecutionGraphCreated:
		return e.Now
	case StopWithSavepoint:
		return e.Now
	case SavepointCompleted:
		return e.Now
	case SavepointFailed:
		return e.Now
	case CheckpointCompleted:
		return e.Now
	case CheckpointFailed:
		return e.Now
	case Timeout:
		return e.Now
	case scheduler.TaskState:
		return e.Now
	case scheduler.GlobalFailure:
		return e.Now
	}
	return time.Time{}
}
