package sequence_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/disktest"
	"github.com/weir-engine/weir/jobs/sequence"
)

// A full disk under the output, the checkpoints or the Pebble state fails
// the job, once its restarts are used up, with an error that says "no
// space left on device" and names the path; once space is freed, a job
// resumed from the newest retained checkpoint completes exactly-once.
func TestFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("mounts disks and fills them")
	}
	cases := []struct {
		name string
		size int
		cfg  sequence.Config
		// dirs returns the output, checkpoint and state directories given
		// the small disk.
		dirs func(disk string) (out, checkpoints, state string)
	}{
		{"output", 64 << 10, sequence.Config{Keys: 200, RecordsPerKey: 100, Rate: 40000},
			func(d string) (string, string, string) { return d + "/out", t.TempDir(), "" }},
		{"checkpoints", 64 << 10, sequence.Config{Keys: 8000, RecordsPerKey: 4, Rate: 40000},
			func(d string) (string, string, string) { return t.TempDir(), d + "/chk", "" }},
		{"pebble state", 300 << 10, sequence.Config{Keys: 20000, RecordsPerKey: 4, Rate: 40000},
			func(d string) (string, string, string) { return t.TempDir(), t.TempDir(), d }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			disk, grow := disktest.Small(t, c.size)
			out, checkpoints, state := c.dirs(disk)
			opts := func(extra ...weir.Option) []weir.Option {
				backend := weir.StateBackend{}
				if state != "" {
					backend = weir.StateBackend{Kind: weir.Pebble, LocalDir: state}
				}
				return append([]weir.Option{weir.WithParallelism(2), weir.WithStateBackend(backend),
					weir.WithCheckpointing(weir.CheckpointConfig{Interval: 50 * time.Millisecond, Dir: checkpoints}),
					weir.WithRestartStrategy(weir.FixedDelayRestart(2, 10*time.Millisecond))}, extra...)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := fileJob(t, c.cfg, out, opts()...).Execute(ctx, "sequence")
			if !errors.Is(err, weir.ErrJobFailed) || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), disk) {
				t.Fatalf("err = %v; want the job failed on a full disk, naming a path under %s", err, disk)
			}
			t.Logf("failed after %d restarts: %v", res.Restarts, err)

			grow()
			var resume []weir.Option
			st, err := storage.Open(ctx, checkpoints, storage.Options{})
			if err != nil {
				t.Fatal(err)
			}
			md, loc, err := st.LatestCompleted(ctx, res.JobID)
			switch {
			case errors.Is(err, storage.ErrNoCheckpoint):
				t.Log("no checkpoint completed: resuming from scratch")
			case err != nil:
				t.Fatal(err)
			default:
				t.Logf("resuming from checkpoint %d", md.CheckpointID)
				resume = append(resume, weir.WithRestoreFrom(loc, false))
			}
			if _, err := fileJob(t, c.cfg, out, opts(resume...)...).Execute(ctx, "sequence"); err != nil {
				t.Fatal(err)
			}
			if err := sequence.Verify(c.cfg, committedLines(t, out)); err != nil {
				t.Fatal(err)
			}
		})
	}
}
