package jobmaster

import (
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// sizeNetwork sizes the job's channels for the network memory of the
// TaskManagers its slot plan uses, or says, before anything is deployed,
// that the job cannot run there. The plan is the one the scheduler will
// make: slots.Allocate is deterministic in the requests and free slots.
// When there are not enough slots it returns want, and the scheduler fails
// the job for that as it starts.
func sizeNetwork(jg *graph.JobGraph, reqs []slots.Request, free []slots.ID, tms map[string]TaskManager, want network.Sizing) (network.Sizing, error) {
	plan, err := slots.Allocate(reqs, free)
	if err != nil {
		return want, nil
	}
	capacity := make(map[string]network.Capacity, len(tms))
	for id, tm := range tms {
		capacity[id] = tm.NetworkCapacity()
	}
	return network.Size(network.Demand(jg, plan), capacity, want)
}
