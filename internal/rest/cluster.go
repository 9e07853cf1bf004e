package rest

import (
	"net/http"
	"runtime"
	"slices"
	"strconv"

	"github.com/weir-engine/weir/internal/rest/api"
)

// The endpoints of the cluster: the dashboard's configuration, the
// JobManager's, and the TaskManagers.

// dashboardConfig is GET /config.
func (s *Server) dashboardConfig(*http.Request) (int, any, error) {
	now := s.opts.Clock.Now()
	zone, offset := now.Zone()
	return http.StatusOK, api.DashboardConfiguration{
		RefreshInterval: 3000, TimezoneName: zone, TimezoneOffset: int64(offset) * 1000,
		FlinkVersion: "weir", FlinkRevision: s.commit,
		Features: api.DashboardFeatures{WebSubmit: s.submits(), WebCancel: true},
	}, nil
}

// submits says whether the Dispatcher accepts jobs (POST /jobs): the
// dashboard then shows its submit form.
func (s *Server) submits() bool {
	_, ok := s.d.(Submitter)
	return ok
}

// jobManagerConfig is GET /jobmanager/config: the options of the REST
// server, under Flink's keys where Flink has them.
func (s *Server) jobManagerConfig(r *http.Request) (int, any, error) {
	out := []api.ConfigEntry{
		{Key: "rest.address", Value: r.Host},
		{Key: "rest.server.max-content-length", Value: strconv.FormatInt(s.opts.MaxBodyBytes, 10)},
		{Key: "web.checkpoints.history", Value: "10"},
		{Key: "web.refresh-interval", Value: "3000"},
	}
	return http.StatusOK, out, nil
}

// taskManagers is GET /taskmanagers.
func (s *Server) taskManagers(*http.Request) (int, any, error) {
	out := api.TaskManagers{TaskManagers: []api.TaskManagerInfo{}}
	for _, tm := range s.listTaskManagers() {
		out.TaskManagers = append(out.TaskManagers, taskManagerInfo(tm))
	}
	return http.StatusOK, out, nil
}

// taskManager is GET /taskmanagers/:taskmanagerid.
func (s *Server) taskManager(r *http.Request) (int, any, error) {
	id := r.PathValue("taskmanagerid")
	tms := s.listTaskManagers()
	i := slices.IndexFunc(tms, func(tm TaskManagerInfo) bool { return tm.ID == id })
	if i < 0 {
		return 0, nil, newError(errNotFound, "taskmanager %q not found", id)
	}
	tm := tms[i]
	out := api.TaskManagerDetails{TaskManagerInfo: taskManagerInfo(tm), AllocatedSlots: []api.SlotInfo{}}
	for _, job := range tm.Jobs {
		out.AllocatedSlots = append(out.AllocatedSlots, api.SlotInfo{JobID: job, Resource: api.Resource{ExtendedResources: map[string]float64{}}})
	}
	return http.StatusOK, out, nil
}

// listTaskManagers asks the Dispatcher for its TaskManagers, if it knows.
func (s *Server) listTaskManagers() []TaskManagerInfo {
	if l, ok := s.d.(TaskManagerLister); ok {
		return l.TaskManagers()
	}
	return nil
}

// taskManagerInfo is tm in Flink's words. Weir sizes only a
// TaskManager's network memory; the other resources are 0 and, as the
// TaskManagers of the embedded cluster live in this process, the hardware
// is this machine's CPUs.
func taskManagerInfo(tm TaskManagerInfo) api.TaskManagerInfo {
	const mib = 1 << 20
	total := api.Resource{NetworkMemory: tm.NetworkMemory / mib, ExtendedResources: map[string]float64{}}
	free := total
	if tm.Slots > 0 {
		free.NetworkMemory = total.NetworkMemory * int64(tm.Free) / int64(tm.Slots)
	}
	return api.TaskManagerInfo{
		ID: tm.ID, Path: tm.ID, DataPort: -1, JmxPort: -1,
		SlotsNumber: tm.Slots, FreeSlots: tm.Free, TotalResource: total, FreeResource: free,
		Hardware: api.HardwareDescription{CPUCores: runtime.NumCPU()},
	}
}
