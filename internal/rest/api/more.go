package api

// The bodies of the paths beyond jobs and checkpoints: the dashboard's
// and the JobManager's configuration, a job's plan and configuration, its
// vertices and their metrics, and the TaskManagers.

// DashboardConfiguration is Flink's DashboardConfiguration (GET /config).
type DashboardConfiguration struct {
	RefreshInterval int64             `json:"refresh-interval"`
	TimezoneName    string            `json:"timezone-name"`
	TimezoneOffset  int64             `json:"timezone-offset"`
	FlinkVersion    string            `json:"flink-version"`
	FlinkRevision   string            `json:"flink-revision"`
	Features        DashboardFeatures `json:"features"`
}

// DashboardFeatures is Flink's DashboardConfiguration.Features.
type DashboardFeatures struct {
	WebSubmit  bool `json:"web-submit"`
	WebCancel  bool `json:"web-cancel"`
	WebRescale bool `json:"web-rescale"`
	WebHistory bool `json:"web-history"`
}

// ConfigEntry is one entry of Flink's ClusterConfigurationInfo (GET
// /jobmanager/config), a list of them.
type ConfigEntry struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// JobConfig is Flink's JobConfigInfo (GET /jobs/:jobid/config).
type JobConfig struct {
	JID             string          `json:"jid"`
	Name            string          `json:"name"`
	ExecutionConfig ExecutionConfig `json:"execution-config"`
}

// ExecutionConfig is Flink's JobConfigInfo.ExecutionConfigInfo.
type ExecutionConfig struct {
	ExecutionMode   string            `json:"execution-mode"`
	RestartStrategy string            `json:"restart-strategy"`
	JobParallelism  int               `json:"job-parallelism"`
	ObjectReuseMode bool              `json:"object-reuse-mode"`
	UserConfig      map[string]string `json:"user-config"`
}

// JobPlan is Flink's JobPlanInfo (GET /jobs/:jobid/plan).
type JobPlan struct {
	Plan Plan `json:"plan"`
}

// Plan is the job graph of a JobPlan.
type Plan struct {
	JID   string     `json:"jid"`
	Name  string     `json:"name"`
	Type  string     `json:"type"`
	Nodes []PlanNode `json:"nodes"`
}

// PlanNode is a vertex of a Plan.
type PlanNode struct {
	ID                  string            `json:"id"`
	Parallelism         int               `json:"parallelism"`
	Operator            string            `json:"operator"`
	OperatorStrategy    string            `json:"operator_strategy"`
	Description         string            `json:"description"`
	Inputs              []PlanInput       `json:"inputs,omitempty"`
	OptimizerProperties map[string]string `json:"optimizer_properties"`
}

// PlanInput is an input edge of a PlanNode: the producing vertex and how
// records are distributed (FORWARD, HASH, REBALANCE, ...).
type PlanInput struct {
	Num          int    `json:"num"`
	ID           string `json:"id"`
	ShipStrategy string `json:"ship_strategy"`
	Exchange     string `json:"exchange"`
}

// JobVertexDetails is Flink's JobVertexDetailsInfo (GET
// /jobs/:jobid/vertices/:vertexid).
type JobVertexDetails struct {
	ID             string                  `json:"id"`
	Name           string                  `json:"name"`
	MaxParallelism int                     `json:"maxParallelism"`
	Parallelism    int                     `json:"parallelism"`
	Now            int64                   `json:"now"`
	Subtasks       []SubtaskAttemptDetails `json:"subtasks"`
}

// SubtaskAttemptDetails is Flink's SubtaskExecutionAttemptDetailsInfo.
type SubtaskAttemptDetails struct {
	Subtask        int              `json:"subtask"`
	Status         string           `json:"status"`
	Attempt        int              `json:"attempt"`
	Endpoint       string           `json:"endpoint"`
	StartTime      int64            `json:"start-time"`
	EndTime        int64            `json:"end-time"`
	Duration       int64            `json:"duration"`
	Metrics        IOMetrics        `json:"metrics"`
	TaskManagerID  string           `json:"taskmanager-id"`
	StatusDuration map[string]int64 `json:"status-duration"`
}

// Metric is one entry of Flink's MetricCollectionResponseBody: the id
// alone when listing, with its value (as a string) when asked for by
// ?get=.
type Metric struct {
	ID    string `json:"id"`
	Value string `json:"value,omitempty"`
}

// AggregatedMetric is one entry of Flink's AggregatedMetricsResponseBody
// (GET .../subtasks/metrics?get=...): a metric over the subtasks.
type AggregatedMetric struct {
	ID  string   `json:"id"`
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
	Avg *float64 `json:"avg,omitempty"`
	Sum *float64 `json:"sum,omitempty"`
}

// JobAccumulators is Flink's JobAccumulatorsInfo (GET
// /jobs/:jobid/accumulators).
type JobAccumulators struct {
	JobAccumulators                []struct{}          `json:"job-accumulators"`
	UserTaskAccumulators           []UserAccumulator   `json:"user-task-accumulators"`
	SerializedUserTaskAccumulators map[string]struct{} `json:"serialized-user-task-accumulators"`
}

// UserAccumulator is one of Flink's UserTaskAccumulator.
type UserAccumulator struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Value string `json:"value"`
}

// TaskManagers is Flink's TaskManagersInfo (GET /taskmanagers).
type TaskManagers struct {
	TaskManagers []TaskManagerInfo `json:"taskmanagers"`
}

// TaskManagerInfo is Flink's TaskManagerInfo, without the memory
// configuration Weir does not have: resources it does not size are 0.
type TaskManagerInfo struct {
	ID                     string              `json:"id"`
	Path                   string              `json:"path"`
	DataPort               int                 `json:"dataPort"`
	JmxPort                int                 `json:"jmxPort"`
	TimeSinceLastHeartbeat int64               `json:"timeSinceLastHeartbeat"`
	SlotsNumber            int                 `json:"slotsNumber"`
	FreeSlots              int                 `json:"freeSlots"`
	TotalResource          Resource            `json:"totalResource"`
	FreeResource           Resource            `json:"freeResource"`
	Hardware               HardwareDescription `json:"hardware"`
}

// Resource is Flink's ResourceProfileInfo; memory in MiB.
type Resource struct {
	CPUCores          float64            `json:"cpuCores"`
	TaskHeapMemory    int64              `json:"taskHeapMemory"`
	TaskOffHeapMemory int64              `json:"taskOffHeapMemory"`
	ManagedMemory     int64              `json:"managedMemory"`
	NetworkMemory     int64              `json:"networkMemory"`
	ExtendedResources map[string]float64 `json:"extendedResources"`
}

// HardwareDescription is Flink's HardwareDescription; bytes.
type HardwareDescription struct {
	CPUCores       int   `json:"cpuCores"`
	PhysicalMemory int64 `json:"physicalMemory"`
	FreeMemory     int64 `json:"freeMemory"`
	ManagedMemory  int64 `json:"managedMemory"`
}

// TaskManagerDetails is Flink's TaskManagerDetailsInfo (GET
// /taskmanagers/:taskmanagerid), without its JVM metrics.
type TaskManagerDetails struct {
	TaskManagerInfo
	AllocatedSlots []SlotInfo `json:"allocatedSlots"`
}

// SlotInfo is Flink's SlotInfo: a slot the job occupies.
type SlotInfo struct {
	JobID    string   `json:"jobId"`
	Resource Resource `json:"resource"`
}
