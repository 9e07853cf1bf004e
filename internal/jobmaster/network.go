package jobmaster

import (
	"fmt"

	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// sizeChannels sizes the channels of a generation for the network memory
// of the TaskManagers its slot plan uses, or says, before anything of it
// is deployed, that it cannot run there. Every generation is sized anew:
// a restart may run on other TaskManagers than the one before.
func (jm *JobMaster) sizeChannels(plan slots.Plan) (network.Sizing, error) {
	want := jm.opts.Channels
	if want == (network.Sizing{}) {
		want = network.DefaultSizing
	}
	capacity := make(map[string]network.Capacity, len(jm.tms))
	for _, s := range plan.Slots {
		if tm, ok := jm.tms[s.TaskManager]; ok {
			capacity[s.TaskManager] = tm.Network
		}
	}
	sizing, err := network.Size(network.Demand(jm.graph, plan), capacity, want)
	if err != nil {
		// No restart fixes a job too wide for the network memory; the
		// message says only that.
		return want, scheduler.MarkUnrecoverable(fmt.Errorf("jobmaster: %w", err))
	}
	if sizing != want {
		jm.log.Info("network memory is short: channels have fewer buffers", "credit", sizing.Credit, "backlog", sizing.Backlog,
			"wanted credit", want.Credit, "wanted backlog", want.Backlog)
	}
	return sizing, nil
}
