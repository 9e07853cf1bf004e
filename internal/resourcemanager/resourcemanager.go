package resourcemanager

import (
	"errors"
	"fmt"
	"slices"

	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// ErrInvalid marks an event the ResourceManager refuses.
var ErrInvalid = errors.New("resourcemanager: invalid event")

// taskManager is a registered TaskManager; owner[i] is the job that holds
// slot i ("" when free).
type taskManager struct {
	id      string
	network network.Capacity
	owner   []string
}

func (tm *taskManager) free() int {
	n := 0
	for _, o := range tm.owner {
		if o == "" {
			n++
		}
	}
	return n
}

// job is a job's declaration and the slots it holds, in the order it got
// them.
type job struct {
	id       string
	min, max int
	held     []slots.ID
}

// ResourceManager is the state machine. The zero value is not usable; call
// New.
type ResourceManager struct {
	// tms and jobs keep their order: registration and first declaration.
	tms   []*taskManager
	jobs  []*job
	ready []any
	// datasets is the table of cluster partitions (partitions.go);
	// pending, by production, the partitions of running jobs, and failed
	// the productions of jobs that did not finish.
	datasets map[string]*dataset
	pending  map[int64]map[string]*dataset
	failed   map[int64]bool
	// quota bounds each TaskManager's cluster partitions; clock orders
	// the datasets' uses (quota.go).
	quota, clock int64
}

// New returns a ResourceManager without TaskManagers or jobs.
func New() *ResourceManager { return &ResourceManager{} }

// Ready returns and clears the decisions taken since the last call.
func (rm *ResourceManager) Ready() []any {
	r := rm.ready
	rm.ready = nil
	return r
}

// Step applies one event. An event it refuses changes nothing and returns
// an error wrapping ErrInvalid.
func (rm *ResourceManager) Step(ev any) error {
	var err error
	switch e := ev.(type) {
	case TaskManagerRegistered:
		err = rm.register(e)
	case TaskManagerLost:
		err = rm.lose(e)
	case DeclareResources:
		err = rm.declare(e)
	case SlotsFreed:
		err = rm.free(e)
	case JobEnded:
		err = rm.end(e)
	case PartitionsReported:
		err = rm.report(e)
	case ReleaseDataset:
		err = rm.release(e)
	case CachingJobStarted:
		err = rm.startCaching(e)
	case CachingJobFinished:
		err = rm.finishCaching(e)
	case CachingJobFailed:
		err = rm.failCaching(e)
	case DatasetsRead:
		err = rm.read(e)
	default:
		err = fmt.Errorf("%w: unknown event %T", ErrInvalid, ev)
	}
	if err != nil {
		return err
	}
	rm.enforceQuota()
	rm.match()
	return nil
}

func (rm *ResourceManager) register(e TaskManagerRegistered) error {
	switch {
	case e.ID == "":
		return fmt.Errorf("%w: a TaskManager without id registered", ErrInvalid)
	case e.Slots <= 0:
		return fmt.Errorf("%w: TaskManager %s registered with %d slots, want at least 1", ErrInvalid, e.ID, e.Slots)
	case rm.taskManager(e.ID) != nil:
		return fmt.Errorf("%w: TaskManager %s registered twice", ErrInvalid, e.ID)
	}
	rm.tms = append(rm.tms, &taskManager{id: e.ID, network: e.Network, owner: make([]string, e.Slots)})
	return nil
}

func (rm *ResourceManager) lose(e TaskManagerLost) error {
	i := slices.IndexFunc(rm.tms, func(tm *taskManager) bool { return tm.id == e.ID })
	if i < 0 {
		return fmt.Errorf("%w: unknown TaskManager %s lost", ErrInvalid, e.ID)
	}
	rm.tms = slices.Delete(rm.tms, i, i+1)
	rm.dropPartitionsOf(e.ID, true)
	for _, j := range rm.jobs {
		n := len(j.held)
		j.held = slices.DeleteFunc(j.held, func(s slots.ID) bool { return s.TaskManager == e.ID })
		if len(j.held) < n {
			rm.ready = append(rm.ready, NotifyLost{Job: j.id, TaskManager: e.ID, Reason: e.Reason})
		}
	}
	return nil
}

func (rm *ResourceManager) declare(e DeclareResources) error {
	switch {
	case e.Job == "":
		return fmt.Errorf("%w: a declaration without job", ErrInvalid)
	case e.Min < 0 || e.Max < 1 || e.Min > e.Max:
		return fmt.Errorf("%w: job %s declared min %d and max %d slots, want 0 <= min <= max and max >= 1", ErrInvalid, e.Job, e.Min, e.Max)
	}
	if j := rm.job(e.Job); j != nil {
		// A lower maximum takes nothing back: the job frees what it no
		// longer uses.
		j.min, j.max = e.Min, e.Max
		return nil
	}
	rm.jobs = append(rm.jobs, &job{id: e.Job, min: e.Min, max: e.Max})
	return nil
}

func (rm *ResourceManager) free(e SlotsFreed) error {
	j := rm.job(e.Job)
	if j == nil {
		return fmt.Errorf("%w: unknown job %s freed slots", ErrInvalid, e.Job)
	}
	for _, s := range e.Slots {
		if !slices.Contains(j.held, s) {
			return fmt.Errorf("%w: job %s freed slot %v, which it does not hold", ErrInvalid, e.Job, s)
		}
	}
	for _, s := range e.Slots {
		j.held = slices.DeleteFunc(j.held, func(h slots.ID) bool { return h == s })
		rm.taskManager(s.TaskManager).owner[s.Index] = ""
	}
	return nil
}

func (rm *ResourceManager) end(e JobEnded) error {
	i := slices.IndexFunc(rm.jobs, func(j *job) bool { return j.id == e.Job })
	if i < 0 {
		return fmt.Errorf("%w: unknown job %s ended", ErrInvalid, e.Job)
	}
	for _, s := range rm.jobs[i].held {
		rm.taskManager(s.TaskManager).owner[s.Index] = ""
	}
	rm.jobs = slices.Delete(rm.jobs, i, i+1)
	return nil
}

// match offers free slots to the jobs that hold fewer than they declared:
// every job up to its minimum first, then up to its maximum (see the
// package doc).
func (rm *ResourceManager) match() {
	offers := make(map[string][]slots.ID)
	for _, want := range []func(*job) int{
		func(j *job) int { return j.min },
		func(j *job) int { return j.max },
	} {
		for _, j := range rm.jobs {
			for len(j.held) < want(j) {
				s, ok := rm.pick()
				if !ok {
					break
				}
				rm.taskManager(s.TaskManager).owner[s.Index] = j.id
				j.held = append(j.held, s)
				offers[j.id] = append(offers[j.id], s)
			}
		}
	}
	for _, j := range rm.jobs {
		if o := offers[j.id]; len(o) > 0 {
			rm.ready = append(rm.ready, OfferSlots{Job: j.id, Slots: o})
		}
	}
}

// pick returns the lowest free slot of the TaskManager with the most free
// slots, the earliest registered among equals.
func (rm *ResourceManager) pick() (slots.ID, bool) {
	var best *taskManager
	bestFree := 0
	for _, tm := range rm.tms {
		if f := tm.free(); f > bestFree {
			best, bestFree = tm, f
		}
	}
	if best == nil {
		return slots.ID{}, false
	}
	return slots.ID{TaskManager: best.id, Index: slices.Index(best.owner, "")}, true
}

func (rm *ResourceManager) taskManager(id string) *taskManager {
	for _, tm := range rm.tms {
		if tm.id == id {
			return tm
		}
	}
	return nil
}

func (rm *ResourceManager) job(id string) *job {
	for _, j := range rm.jobs {
		if j.id == id {
			return j
		}
	}
	return nil
}

// TaskManagers describes the registered TaskManagers in the order they
// registered.
func (rm *ResourceManager) TaskManagers() []TaskManagerInfo {
	out := make([]TaskManagerInfo, len(rm.tms))
	for i, tm := range rm.tms {
		out[i] = TaskManagerInfo{ID: tm.id, Slots: len(tm.owner), Free: tm.free(), Network: tm.network}
	}
	return out
}

// Held returns the slots a job holds, in the order it got them.
func (rm *ResourceManager) Held(job string) []slots.ID {
	if j := rm.job(job); j != nil {
		return slices.Clone(j.held)
	}
	return nil
}
