package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestRenderProgress(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    Progress
		want string
	}{
		{"start", Progress{}, "0 records  elapsed 0s"},
		{"rate", Progress{Elapsed: 2 * time.Second, Records: 1234567}, "1,234,567 records  617,283/s  elapsed 2s"},
		{"percentage", Progress{Elapsed: 1500 * time.Millisecond, Records: 300, SourceRecords: 250, Total: 1000}, " 25.0%  300 records  200/s  elapsed 1.5s"},
		{"over the total", Progress{Elapsed: time.Second, SourceRecords: 1001, Total: 1000}, "100.0%  0 records  0/s  elapsed 1s"},
		{"checkpoints", Progress{Elapsed: 3 * time.Second, Records: 999, Checkpoints: 2}, "999 records  333/s  elapsed 3s  checkpoints 2"},
	} {
		if got := RenderProgress(tt.p); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestRenderSummary(t *testing.T) {
	for _, tt := range []struct {
		name string
		s    RunSummary
		want string
	}{
		{"no vertices", RunSummary{Duration: time.Second}, "vertex  parallelism   records in  records out\nduration 1s, 0 checkpoints\n"},
		{"two vertices", RunSummary{Duration: 1234 * time.Microsecond, Checkpoints: 1, Vertices: []VertexSummary{
			{Name: "read -> tokenize", Parallelism: 2, RecordsOut: 1500},
			{Name: "count", Parallelism: 12, RecordsIn: 1500, RecordsOut: 7},
		}}, "" +
			"vertex            parallelism   records in  records out\n" +
			"read -> tokenize            2            0        1,500\n" +
			"count                      12        1,500            7\n" +
			"duration 1ms, 1 checkpoint\n"},
	} {
		if got := RenderSummary(tt.s); got != tt.want {
			t.Errorf("%s:\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}

// fakeTerminal is stderr as a terminal.
type fakeTerminal struct{ bytes.Buffer }

func (*fakeTerminal) IsTerminal() bool { return true }

// On a terminal, run draws the progress lines the runner reports in place,
// erases them and prints the summary table before the summary line; not on
// a terminal (or --quiet) the runner gets no progress callback and stderr
// is the summary line alone, as before.
func TestRunProgressOnTerminal(t *testing.T) {
	sum := RunSummary{JobID: "j", Duration: time.Second, Records: 5, Checkpoints: 1,
		Vertices: []VertexSummary{{Name: "count", Parallelism: 1, RecordsIn: 5}}}
	line := "job wordcount j finished in 1s, 5 records exchanged between tasks\n"
	for _, tt := range []struct {
		name  string
		tty   bool
		args  []string
		want  string
		calls bool
	}{
		{"terminal", true, nil, "\r\x1b[K5 records  5/s  elapsed 1s\r\x1b[K" + RenderSummary(sum) + line, true},
		{"terminal, quiet", true, []string{"--quiet"}, "", false},
		{"not a terminal", false, nil, line, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake()
			f.result = func(_ context.Context, req RunRequest) (RunSummary, error) {
				if (req.Progress != nil) != tt.calls {
					t.Errorf("progress callback set: %v, want %v", req.Progress != nil, tt.calls)
				}
				if req.Progress != nil {
					req.Progress(Progress{Elapsed: time.Second, Records: 5})
				}
				return sum, nil
			}
			var out bytes.Buffer
			var stderr interface {
				String() string
				Write([]byte) (int, error)
			} = &bytes.Buffer{}
			if tt.tty {
				stderr = &fakeTerminal{}
			}
			code := Run(context.Background(), append([]string{"weir", "run", "wordcount"}, tt.args...), &out, stderr, f)
			if code != ExitOK || stderr.String() != tt.want {
				t.Errorf("exit %d, stderr\n%q\nwant\n%q", code, stderr.String(), tt.want)
			}
		})
	}
}

// Neither a buffer, a regular file nor /dev/null (a character device) is
// a terminal; the injected one is.
func TestIsTerminal(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, tt := range []struct {
		name string
		w    io.Writer
		want bool
	}{
		{"buffer", &bytes.Buffer{}, false},
		{"file", file, false},
		{"/dev/null", null, false},
		{"injected", &fakeTerminal{}, true},
	} {
		if got := isTerminal(tt.w); got != tt.want {
			t.Errorf("%s: isTerminal %v, want %v", tt.name, got, tt.want)
		}
	}
}
