package task_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/task"
)

// ackJournal is a Responder that writes each acknowledgement into the
// task's journal (it runs on the task's goroutine) and hands the id to the
// test.
type ackJournal struct {
	j     *journal
	acked chan int64
}

func (r *ackJournal) Acknowledge(s *task.Snapshot) {
	s.Release()
	r.j.add("ack(%d)", s.CheckpointID)
	r.acked <- s.CheckpointID
}
func (r *ackJournal) Decline(id int64, err error) { r.j.add("decline(%d): %v", id, err) }
func (r *ackJournal) EndOfData()                  { r.j.add("endOfData") }

// A stop-with-savepoint without drain is synchronous: after the snapshot
// the source emits nothing, the task waits for the savepoint's outcome;
// completed, the operators are notified (a sink commits), closed without
// finishing, and the task ends; aborted, the job goes on as before.
func TestStopWithSavepointIsSynchronous(t *testing.T) {
	opens := []string{"b.open", "a.open", "src.open"}
	cases := []struct {
		name     string
		complete bool
		want     []string
	}{
		{"completed", true, append(slices.Clone(opens),
			"ack(1)", "a.notifyComplete(1)", "b.notifyComplete(1)",
			"src.close", "a.close", "b.close")},
		{"aborted", false, append(slices.Clone(opens),
			"ack(1)", "a.notifyAborted(1)", "b.notifyAborted(1)",
			"a.element(1)", "b.element(1)", "a.element(2)", "b.element(2)",
			"a.watermark(max)", "b.watermark(max)",
			"src.finish", "a.endInput(0)", "a.finish", "b.element(100)", "b.endInput(0)", "b.finish",
			"endOfData", "src.close", "a.close", "b.close")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := &journal{}
			jg := chainGraph(t, j, 2, 0, 0)
			resp := &ackJournal{j: j, acked: make(chan int64, 1)}
			tk := task.New(task.Descriptor{JobID: "j", Graph: jg, Vertex: jg.Vertices[0], Network: network.NewRegistry(),
				Checkpointing: true, NoFinalCheckpoint: true, Checkpoints: resp}, task.Config{})
			// Queued before the task runs, the trigger is its first action:
			// the savepoint is taken before the source emitted anything.
			if !tk.TriggerCheckpoint(network.CheckpointBarrier{ID: 1, Savepoint: true, Terminate: true}) {
				t.Fatal("trigger refused")
			}
			done := make(chan error, 1)
			go func() { done <- tk.Run(context.Background(), nil) }()
			if id := <-resp.acked; id != 1 {
				t.Fatalf("acknowledged %d, want 1", id)
			}
			if c.complete {
				tk.NotifyCheckpointComplete(1)
			} else {
				tk.NotifyCheckpointAborted(1)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(j.calls, c.want) {
				t.Fatalf("lifecycle:\n got %s\nwant %s", strings.Join(j.calls, " "), strings.Join(c.want, " "))
			}
		})
	}
}
