package weir_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
)

// observedSink is the file sink with events a test can await instead of
// sleeping: wrote is closed once one writer wrote writes elements (its part
// file is open then), committed is set once a commit of at least one file
// succeeded (a checkpoint completed with data), and open[i] tells whether
// subtask i's writer has a part file open.
type observedSink struct {
	*file.Sink[int64]
	writes    int64
	wrote     chan struct{}
	wroteOnce sync.Once
	committed atomic.Bool
	open      [8]atomic.Bool
	// afterPrepare counts the writes that came after their writer's first
	// PrepareCommit.
	afterPrepare atomic.Int64
}

func newObservedSink(dir string, writes int64) *observedSink {
	return &observedSink{Sink: file.NewSink(dir, formatInt), writes: writes, wrote: make(chan struct{})}
}

func formatInt(v int64) string { return strconv.FormatInt(v, 10) }

func (s *observedSink) CreateWriter(ctx context.Context, info weir.SinkContext) (weir.SinkWriter[int64, file.Committable], error) {
	w, err := s.Sink.CreateWriter(ctx, info)
	if err != nil {
		return nil, err
	}
	if info.SubtaskIndex >= len(s.open) {
		return nil, fmt.Errorf("observed sink: subtask %d of at most %d", info.SubtaskIndex, len(s.open))
	}
	return &observedWriter{SinkWriter: w, s: s, open: &s.open[info.SubtaskIndex]}, nil
}

func (s *observedSink) CreateCommitter(ctx context.Context, info weir.SinkContext) (weir.Committer[file.Committable], error) {
	c, err := s.Sink.CreateCommitter(ctx, info)
	if err != nil {
		return nil, err
	}
	return observedCommitter{Committer: c, s: s}, nil
}

// observedWriter passes everything on to the file sink's writer, the
// optional interfaces too.
type observedWriter struct {
	weir.SinkWriter[int64, file.Committable]
	s        *observedSink
	open     *atomic.Bool
	n        int64
	prepared bool
}

func (w *observedWriter) Write(ctx context.Context, v int64) error {
	if err := w.SinkWriter.Write(ctx, v); err != nil {
		return err
	}
	if w.prepared {
		w.s.afterPrepare.Add(1)
	}
	w.open.Store(true)
	if w.n++; w.n == w.s.writes {
		w.s.wroteOnce.Do(func() { close(w.s.wrote) })
	}
	return nil
}

func (w *observedWriter) PrepareCommit(ctx context.Context, id int64) ([]file.Committable, error) {
	cs, err := w.SinkWriter.PrepareCommit(ctx, id)
	if err == nil {
		w.open.Store(false)
		w.prepared = true
	}
	return cs, err
}

func (w *observedWriter) Close() error {
	w.open.Store(false)
	return w.SinkWriter.Close()
}

func (w *observedWriter) SnapshotState(id int64) ([]byte, error) {
	return w.SinkWriter.(weir.StatefulSinkWriter).SnapshotState(id)
}

func (w *observedWriter) AllCommitted(ctx context.Context) error {
	return w.SinkWriter.(weir.CleaningSinkWriter).AllCommitted(ctx)
}

type observedCommitter struct {
	weir.Committer[file.Committable]
	s *observedSink
}

func (c observedCommitter) Commit(ctx context.Context, cs []file.Committable) error {
	if err := c.Committer.Commit(ctx, cs); err != nil {
		return err
	}
	if len(cs) > 0 {
		c.s.committed.Store(true)
	}
	return nil
}

// committedInts counts the ints in the committed (visible) files of dir.
func committedInts(t *testing.T, dir string) map[int64]int {
	t.Helper()
	counts := map[int64]int{}
	for _, l := range committedLines(t, dir) {
		v, err := strconv.ParseInt(l, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		counts[v]++
	}
	return counts
}

// committedLines returns the lines of the committed (visible) files of
// dir.
func committedLines(t *testing.T, dir string) []string {
	t.Helper()
	var lines []string
	for _, name := range dirNames(t, dir) {
		if strings.HasPrefix(name, ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.FieldsFunc(string(b), func(r rune) bool { return r == '\n' })...)
	}
	return lines
}

// hiddenFiles lists the hidden (pending) files in dir.
func hiddenFiles(t *testing.T, dir string) []string {
	t.Helper()
	var hidden []string
	for _, name := range dirNames(t, dir) {
		if strings.HasPrefix(name, ".") {
			hidden = append(hidden, name)
		}
	}
	return hidden
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Name()
	}
	slicesSort(names)
	return names
}

// checkEachTimes fails unless counts holds exactly 0..n-1, each want times.
func checkEachTimes(t *testing.T, counts map[int64]int, n int64, want int) {
	t.Helper()
	bad := 0
	for v := range n {
		if counts[v] != want {
			if bad++; bad <= 5 {
				t.Errorf("%d committed %d times, want %d", v, counts[v], want)
			}
		}
	}
	if int64(len(counts)) != n {
		t.Errorf("%d distinct ints committed, want %d", len(counts), n)
	}
	if bad > 5 {
		t.Errorf("... %d ints in all committed a wrong number of times", bad)
	}
}
