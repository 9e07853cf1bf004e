package taskmanager

import (
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/task"
)

// The counters and load of a Report on the wire (rpcpb.TaskMetrics), both
// ways, in one place.

// metricsMessage is the TaskMetrics of r.
func (r Report) metricsMessage() *rpcpb.TaskMetrics {
	return &rpcpb.TaskMetrics{RecordsIn: r.RecordsIn, RecordsOut: r.RecordsOut, LastSnapshot: r.LastSnapshot,
		BusyTimeMsPerSecond: r.Load.BusyTimeMsPerSecond, IdleTimeMsPerSecond: r.Load.IdleTimeMsPerSecond,
		BackPressuredTimeMsPerSecond: r.Load.BackPressuredTimeMsPerSecond, CurrentInputWatermark: r.InputWatermark,
		SourceEmitted: r.SourceEmitted, SourceTotal: r.SourceTotal}
}

// ReportOf is the report of state change ts with the counters m carries.
// The records' rates are not on the wire: the JobMaster computes them
// from consecutive reports.
func ReportOf(ts scheduler.TaskState, m *rpcpb.TaskMetrics) Report {
	return Report{TaskState: ts, RecordsIn: m.GetRecordsIn(), RecordsOut: m.GetRecordsOut(), LastSnapshot: m.GetLastSnapshot(),
		Load: task.Load{BusyTimeMsPerSecond: m.GetBusyTimeMsPerSecond(), IdleTimeMsPerSecond: m.GetIdleTimeMsPerSecond(),
			BackPressuredTimeMsPerSecond: m.GetBackPressuredTimeMsPerSecond()},
		InputWatermark: m.GetCurrentInputWatermark(), SourceEmitted: m.GetSourceEmitted(), SourceTotal: m.GetSourceTotal()}
}
