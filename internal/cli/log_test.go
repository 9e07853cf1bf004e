package cli

import (
	"bytes"
	"errors"
	"log/slog"
	"testing"
	"time"
)

// The console logger prints a restart as one line with its attempt and
// cause, other records as "weir: <level>: <message>: key=value", and
// informational records only when verbose.
func TestConsoleLogger(t *testing.T) {
	cause := errors.New(`weir: operator "sink" (subtask 1/2): write /out/.part-0: no space left on device`)
	for _, tt := range []struct {
		name    string
		verbose bool
		log     func(l *slog.Logger)
		want    string
	}{
		{"restart", false, func(l *slog.Logger) {
			l.Warn("job failed, restarting", "generation", 3, "after", time.Second, "cause", cause)
		}, `weir: job restarting (attempt 3) after: operator "sink" (subtask 1/2): write /out/.part-0: no space left on device` + "\n"},
		{"warning with attributes", false, func(l *slog.Logger) {
			l.With("job", "abc").WithGroup("cp").Warn("checkpoint failed", "id", 7, "reason", "disk full\nreally")
		}, "weir: warning: checkpoint failed: job=abc cp.id=7 cp.reason=\"disk full\\nreally\"\n"},
		{"error", false, func(l *slog.Logger) { l.Error("deploy failed", "err", errors.New("no slots")) },
			"weir: error: deploy failed: err=\"no slots\"\n"},
		{"info is quiet by default", false, func(l *slog.Logger) { l.Info("checkpoint completed", "id", 1) }, ""},
		{"info when verbose", true, func(l *slog.Logger) { l.Info("checkpoint completed", "id", 1) },
			"weir: checkpoint completed: id=1\n"},
		{"debug never", true, func(l *slog.Logger) { l.Debug("noise") }, ""},
		{"a restarting message without a cause is a plain line", false, func(l *slog.Logger) { l.Warn("restarting soon") },
			"weir: warning: restarting soon\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			tt.log(NewLogger(&b, tt.verbose))
			if b.String() != tt.want {
				t.Errorf("logged %q, want %q", b.String(), tt.want)
			}
		})
	}
}
