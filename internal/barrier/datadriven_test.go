package barrier

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/weir-engine/weir/internal/network/event"
)

// epoch is time zero of the scripts: at=5ms means epoch+5ms.
var epoch = time.Unix(1_700_000_000, 0).UTC()

// TestScripts runs the scripts in testdata/. Commands:
//
//	new channels=N [last=ID]
//	barrier ch=C id=ID [ts=T] [unaligned] [overtook] [timeout=DUR] [at=DUR]
//	trigger id=ID [ts=T] [unaligned] [timeout=DUR] [at=DUR]
//	cancel ch=C id=ID
//	eop ch=C
//	tick at=DUR
//	buffer ch=C
//	snapshot-done id=ID
//	status
//
// Each prints the actions the handler asked for, one a line ("ok" for none);
// at= defaults to the time of the previous command.
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var h *Handler
		now := epoch
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "new" && h == nil {
				d.Fatalf(t, "no handler: start with new")
			}
			if d.HasArg("at") {
				now = epoch.Add(durArg(t, d, "at"))
			}
			switch d.Cmd {
			case "new":
				var n int
				var opts Options
				d.ScanArgs(t, "channels", &n)
				d.MaybeScanArgs(t, "last", &opts.LastCheckpointID)
				h = New(n, opts)
				return "ok"
			case "barrier":
				var ch int
				d.ScanArgs(t, "ch", &ch)
				h.OnBarrier(ch, barrierArgs(t, d), d.HasArg("overtook"), now)
			case "trigger":
				h.OnTrigger(barrierArgs(t, d), now)
			case "cancel":
				var ch int
				var id int64
				d.ScanArgs(t, "ch", &ch)
				d.ScanArgs(t, "id", &id)
				h.OnCancelMarker(ch, id)
			case "eop":
				var ch int
				d.ScanArgs(t, "ch", &ch)
				h.OnEndOfPartition(ch)
			case "tick":
				h.OnTick(now)
			case "buffer":
				var ch int
				d.ScanArgs(t, "ch", &ch)
				if id, ok := h.OnBufferReceived(ch); ok {
					return fmt.Sprintf("persist id=%d", id)
				}
				return "process"
			case "snapshot-done":
				var id int64
				d.ScanArgs(t, "id", &id)
				h.OnSnapshotDone(id)
			case "status":
				return h.Status().String()
			default:
				d.Fatalf(t, "unknown command %q", d.Cmd)
			}
			return formatActions(h.Ready())
		})
	})
}

// barrierArgs reads a barrier's fields from the arguments id, ts,
// unaligned and timeout (a duration of whole milliseconds, the unit of the
// barrier's AlignedTimeoutMillis).
func barrierArgs(t *testing.T, d *datadriven.TestData) event.CheckpointBarrier {
	var b event.CheckpointBarrier
	d.ScanArgs(t, "id", &b.ID)
	d.MaybeScanArgs(t, "ts", &b.Timestamp)
	b.Unaligned = d.HasArg("unaligned")
	if d.HasArg("timeout") {
		v := durArg(t, d, "timeout")
		if v%time.Millisecond != 0 {
			d.Fatalf(t, "timeout %v is not whole milliseconds", v)
		}
		b.AlignedTimeoutMillis = v.Milliseconds()
	}
	return b
}

func durArg(t *testing.T, d *datadriven.TestData, key string) time.Duration {
	var s string
	d.ScanArgs(t, key, &s)
	v, err := time.ParseDuration(s)
	if err != nil {
		d.Fatalf(t, "%s: %v", key, err)
	}
	return v
}

// formatActions prints actions one a line, times relative to epoch.
func formatActions(acts []Action) string {
	if len(acts) == 0 {
		return "ok"
	}
	var b strings.Builder
	for _, a := range acts {
		if st, ok := a.(ScheduleTick); ok {
			fmt.Fprintf(&b, "schedule-tick at=%s\n", st.At.Sub(epoch))
			continue
		}
		b.WriteString(a.String())
		b.WriteByte('\n')
	}
	return b.String()
}
