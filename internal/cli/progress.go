package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// `weir run` in a terminal: while a bounded job runs, stderr shows one
// progress line, redrawn in place (records, rate, elapsed time, and a
// percentage when the sources know how many records they emit); at the
// end a table of the job's vertices. When stderr is not a terminal
// nothing of this is written, and the output is what it always was.

// Progress is a running job's progress as of one look.
type Progress struct {
	Elapsed time.Duration
	// Records counts the records that crossed a task boundary so far (as
	// RunSummary.Records).
	Records int64
	// SourceRecords counts the records the sources emitted; Total is how
	// many they will emit in all, 0 when not known.
	SourceRecords, Total int64
	// Checkpoints counts the completed checkpoints.
	Checkpoints int
}

// VertexSummary is one task vertex of a finished job, summed over its
// subtasks.
type VertexSummary struct {
	Name                  string
	Parallelism           int
	RecordsIn, RecordsOut int64
}

// RenderProgress is the progress line (without line breaks).
func RenderProgress(p Progress) string {
	var b strings.Builder
	if p.Total > 0 {
		pct := float64(p.SourceRecords) / float64(p.Total) * 100
		fmt.Fprintf(&b, "%5.1f%%  ", min(pct, 100))
	}
	fmt.Fprintf(&b, "%s records", groupDigits(p.Records))
	if secs := p.Elapsed.Seconds(); secs > 0 {
		fmt.Fprintf(&b, "  %s/s", groupDigits(int64(float64(p.Records)/secs)))
	}
	fmt.Fprintf(&b, "  elapsed %v", p.Elapsed.Round(100*time.Millisecond))
	if p.Checkpoints > 0 {
		fmt.Fprintf(&b, "  checkpoints %d", p.Checkpoints)
	}
	return b.String()
}

// RenderSummary is the table of a finished job: a row per vertex with its
// parallelism and records in and out, then the duration and checkpoints.
func RenderSummary(s RunSummary) string {
	var b strings.Builder
	width := len("vertex")
	for _, v := range s.Vertices {
		width = max(width, len(v.Name))
	}
	fmt.Fprintf(&b, "%-*s  %11s  %11s  %11s\n", width, "vertex", "parallelism", "records in", "records out")
	for _, v := range s.Vertices {
		fmt.Fprintf(&b, "%-*s  %11d  %11s  %11s\n", width, v.Name, v.Parallelism, groupDigits(v.RecordsIn), groupDigits(v.RecordsOut))
	}
	fmt.Fprintf(&b, "duration %v, %s\n", s.Duration.Round(time.Millisecond), plural(s.Checkpoints, "checkpoint"))
	return b.String()
}

// groupDigits writes n with thousands separated: 1,234,567.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// terminal is implemented by a writer that knows whether it is a terminal
// (tests inject one).
type terminal interface{ IsTerminal() bool }

// isTerminal reports whether w is a terminal: a character device that is
// not /dev/null (os.File.Stat's mode; golang.org/x/term is not among the
// module's dependencies).
func isTerminal(w io.Writer) bool {
	if t, ok := w.(terminal); ok {
		return t.IsTerminal()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}

// progressLine draws progress lines in place on a terminal.
type progressLine struct{ w io.Writer }

// show replaces the line with p.
func (l progressLine) show(p Progress) { fmt.Fprintf(l.w, "\r\x1b[K%s", RenderProgress(p)) }

// clear erases the line, before anything else is written.
func (l progressLine) clear() { fmt.Fprint(l.w, "\r\x1b[K") }
