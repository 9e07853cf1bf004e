package taskmanager_test

import (
	"errors"
	"testing"

	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/taskmanager"
)

// A producer whose consumer went away (its gate released) fails with
// network.ErrReleased, marked a consequence: the consumer's own failure is
// the job's root cause (see scheduler.RootCause). The consumer here is
// cancelled; one that fails releases its gate the same way.
func TestReleasedChannelFailsTheProducerAsAConsequence(t *testing.T) {
	tm, _ := newTM(t, plenty)
	j := sourceToSink(t, sourceSpec{n: 1 << 40}) // sends until it fails
	sink, rSink := deployment(j, 0, 1)
	src, rSrc := deployment(j, 0, 0)
	// The consumer first, as the JobMaster deploys.
	for _, d := range []taskmanager.Deployment{sink, src} {
		if err := tm.Submit(d); err != nil {
			t.Fatal(err)
		}
	}
	rSink.expect(t, scheduler.ExecRunning)
	rSrc.expect(t, scheduler.ExecRunning)
	tm.Cancel("job", 0, sink.ID)
	rSink.expect(t, scheduler.ExecCanceled)
	end := rSrc.expect(t, scheduler.ExecFailed)
	if !errors.Is(end.Err, network.ErrReleased) || !scheduler.IsConsequence(end.Err) {
		t.Fatalf("producer failed with %v, want network.ErrReleased marked a consequence", end.Err)
	}
}
