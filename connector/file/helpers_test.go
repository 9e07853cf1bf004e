package file_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
	"go.uber.org/goleak"
)

// The Example runs a job, whose goroutines must all end.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const jobA = "aaaaaaaa00000000aaaaaaaa00000000"

// info is the context of subtask i of the sink "sink" in attempt a of job.
func info(job string, subtask, attempt int) weir.SinkContext {
	return weir.SinkContext{JobID: job, OperatorUID: "sink", SubtaskIndex: subtask, Parallelism: 2, AttemptNumber: attempt}
}

func newWriter(t *testing.T, dir string, ci weir.SinkContext) weir.SinkWriter[string, file.Committable] {
	t.Helper()
	w, err := file.NewSink(dir, strings.ToUpper).CreateWriter(context.Background(), ci)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// write writes lines and pre-commits them for checkpoint id.
func write(t *testing.T, w weir.SinkWriter[string, file.Committable], id int64, lines ...string) []file.Committable {
	t.Helper()
	ctx := context.Background()
	for _, l := range lines {
		if err := w.Write(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(ctx, false); err != nil {
		t.Fatal(err)
	}
	cs, err := w.PrepareCommit(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// writerState is the state w checkpoints (w must be stateful).
func writerState(t *testing.T, w weir.SinkWriter[string, file.Committable], id int64) []byte {
	t.Helper()
	sw, ok := w.(weir.StatefulSinkWriter)
	if !ok {
		t.Fatalf("%T is not a weir.StatefulSinkWriter", w)
	}
	b, err := sw.SnapshotState(id)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func commit(t *testing.T, cs ...file.Committable) {
	t.Helper()
	c, err := file.NewSink("unused", strings.ToUpper).CreateCommitter(context.Background(), weir.SinkContext{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Commit(context.Background(), cs); err != nil {
		t.Fatal(err)
	}
}

// names lists the names in dir, sorted.
func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ns []string
	for _, e := range es {
		ns = append(ns, e.Name())
	}
	slices.Sort(ns)
	return ns
}

// touch creates a pending file, as a writer that died would leave it.
func touch(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("PARTIAL"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
