// The JSON bodies of Weir's REST API that the dashboard reads: a mirror of
// internal/rest/api (Flink's field names). Fields another version of the
// server may lack are optional, and the pages show "–" for them.

export interface ClusterOverview {
  taskmanagers: number;
  "slots-total": number;
  "slots-available": number;
  "jobs-running": number;
  "jobs-finished": number;
  "jobs-cancelled": number;
  "jobs-failed": number;
  "flink-version"?: string;
}

export interface DashboardConfiguration {
  "refresh-interval": number;
  "flink-version"?: string;
  "flink-revision"?: string;
  features?: { "web-submit"?: boolean; "web-cancel"?: boolean; "web-rescale"?: boolean };
}

export interface JobOverview {
  jid: string;
  name: string;
  state: string;
  "start-time": number;
  "end-time": number;
  duration: number;
  tasks?: Record<string, number>;
}

export interface IOMetrics {
  "read-records"?: number;
  "write-records"?: number;
  "read-bytes"?: number;
  "write-bytes"?: number;
}

export interface VertexDetails {
  id: string;
  name: string;
  parallelism: number;
  maxParallelism?: number;
  status: string;
  "start-time"?: number;
  duration?: number;
  tasks?: Record<string, number>;
  metrics?: IOMetrics;
}

export interface JobDetails {
  jid: string;
  name: string;
  state: string;
  isStoppable?: boolean;
  "job-type"?: string;
  "start-time": number;
  "end-time": number;
  duration: number;
  maxParallelism?: number;
  now?: number;
  timestamps?: Record<string, number>;
  vertices: VertexDetails[];
  /** Weir's, for a job on the adaptive scheduler: its state ("Executing"). */
  "scheduler-state"?: string;
  /** Weir's, for a job on the adaptive scheduler: its rescales, oldest first. */
  rescales?: Rescale[];
}

/**
 * Rescale is one rescale of a job on the adaptive scheduler: each vertex's
 * parallelism before and after by vertex id, why, when (epoch ms) and how
 * long it took (ms from the decision to the new generation executing; -1
 * while in progress).
 */
export interface Rescale {
  from: Record<string, number>;
  to: Record<string, number>;
  reason: string;
  timestamp: number;
  duration: number;
}

export interface PlanInput {
  num: number;
  id: string;
  ship_strategy: string;
  exchange?: string;
}

export interface PlanNode {
  id: string;
  parallelism: number;
  description: string;
  inputs?: PlanInput[];
}

export interface JobPlan {
  plan: { jid: string; name: string; nodes: PlanNode[] };
}

export interface AggregatedMetric {
  id: string;
  min?: number;
  max?: number;
  avg?: number;
  sum?: number;
}

export interface Metric {
  id: string;
  value?: string;
}

/** Flink's JobVertexBackPressureInfo; levels are ok, low and high. */
export interface BackPressure {
  status?: string;
  backpressureLevel?: string;
  "end-timestamp"?: number;
  subtasks?: { subtask: number; backpressureLevel?: string; ratio?: number; busyRatio?: number; idleRatio?: number }[];
}

export interface StatsSummary {
  min: number;
  max: number;
  avg: number;
  p50?: number;
  p99?: number;
}

export interface CheckpointStatistics {
  "@class"?: string;
  id: number;
  status: string;
  is_savepoint: boolean;
  checkpoint_type?: string;
  trigger_timestamp?: number;
  latest_ack_timestamp?: number;
  checkpointed_size?: number;
  state_size?: number;
  end_to_end_duration?: number;
  alignment_buffered?: number;
  processed_data?: number;
  persisted_data?: number;
  num_subtasks?: number;
  num_acknowledged_subtasks?: number;
  external_path?: string;
  discarded?: boolean;
  failure_timestamp?: number;
  failure_message?: string;
}

export interface RestoredCheckpoint {
  id: number;
  restore_timestamp: number;
  is_savepoint: boolean;
  external_path: string;
}

export interface CheckpointingStatistics {
  counts: { restored: number; total: number; in_progress: number; completed: number; failed: number };
  summary?: Partial<Record<"checkpointed_size" | "state_size" | "end_to_end_duration" | "alignment_buffered" | "processed_data" | "persisted_data", StatsSummary>>;
  latest: {
    completed: CheckpointStatistics | null;
    savepoint: CheckpointStatistics | null;
    failed: CheckpointStatistics | null;
    restored: RestoredCheckpoint | null;
  };
  history: CheckpointStatistics[];
}

export interface CheckpointConfig {
  mode: string;
  interval: number;
  timeout: number;
  min_pause: number;
  max_concurrent: number;
  state_backend?: string;
  checkpoint_storage?: string;
  unaligned_checkpoints?: boolean;
  tolerable_failed_checkpoints?: number;
}

export interface RootException {
  exceptionName: string;
  stacktrace: string;
  timestamp: number;
  taskName: string | null;
  endpoint: string | null;
  taskManagerId: string | null;
}

export interface JobExceptions {
  "root-exception": string | null;
  timestamp: number | null;
  exceptionHistory?: { entries: RootException[]; truncated: boolean };
}

export interface JobConfig {
  jid: string;
  name: string;
  "execution-config"?: { "execution-mode"?: string; "restart-strategy"?: string; "job-parallelism"?: number };
}

export interface TaskManagerInfo {
  id: string;
  path: string;
  dataPort?: number;
  timeSinceLastHeartbeat?: number;
  slotsNumber: number;
  freeSlots: number;
  totalResource?: { networkMemory?: number };
  hardware?: { cpuCores?: number; physicalMemory?: number };
}

/** Flink's JobResourceRequirementsBody: per vertex id, bounds of its parallelism. */
export type ResourceRequirements = Record<string, { parallelism: { lowerBound: number; upperBound: number } }>;

export interface TriggerResponse {
  "request-id": string;
}

export interface OperationResult {
  status: { id: string };
  operation: { location?: string; "failure-cause"?: { class?: string; message?: string; "stack-trace"?: string } } | null;
}

export interface JobSubmission {
  job: string;
  args?: string[];
  options: {
    parallelism?: number;
    checkpointInterval?: string;
    fromSavepoint?: string;
  };
}

/** Flink's ClusterDataSetListResponseBody (GET /datasets): the cached intermediate results. */
export interface DataSets {
  dataSets: { id: string; isComplete: boolean }[];
}
