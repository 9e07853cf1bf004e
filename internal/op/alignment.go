package op

// Watermark alignment (FLIP-182): a source whose watermark strategy has an
// alignment group reports its watermark to the JobMaster every update
// interval, and the answer says how far it may run before it pauses.

// AlignmentReport is a source subtask's watermark as it reports it.
type AlignmentReport struct {
	// Watermark is the subtask's current watermark.
	Watermark int64
	// Idle: no split of the subtask holds its watermark back (all idle, or
	// none); Finished: its input ended.
	Idle, Finished bool
}

// WatermarkAligner reports a source subtask's watermark to its alignment
// group's coordinator on the JobMaster. The reply, the greatest watermark
// the subtask may run to, runs on the subtask's goroutine (through its
// mailbox); it never comes when the JobMaster is gone.
type WatermarkAligner interface {
	ReportWatermark(r AlignmentReport, reply func(maxAllowed int64))
}
