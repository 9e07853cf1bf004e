package api

// JobVertexBackPressure is Flink's JobVertexBackPressureInfo (GET
// /jobs/:jobid/vertices/:vertexid/backpressure). Flink writes the level
// under both names: "backpressure-level" (its first) and
// "backpressureLevel" (since it measures busy and idle time); so does
// Weir. Levels are "ok", "low" and "high"; Status is "ok".
type JobVertexBackPressure struct {
	Status               string                `json:"status"`
	BackPressureLevel    string                `json:"backpressureLevel"`
	BackPressureLevelOld string                `json:"backpressure-level"`
	EndTimestamp         int64                 `json:"end-timestamp"`
	Subtasks             []SubtaskBackPressure `json:"subtasks"`
}

// SubtaskBackPressure is Flink's SubtaskBackPressureInfo: the share of
// the recent time the subtask was back-pressured (Ratio), idle and busy,
// each from 0 to 1.
type SubtaskBackPressure struct {
	Subtask              int     `json:"subtask"`
	AttemptNumber        int     `json:"attempt-number"`
	BackPressureLevel    string  `json:"backpressureLevel"`
	BackPressureLevelOld string  `json:"backpressure-level"`
	Ratio                float64 `json:"ratio"`
	IdleRatio            float64 `json:"idleRatio"`
	BusyRatio            float64 `json:"busyRatio"`
}
