package wordcount

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weir-engine/weir"
)

// An empty input and a binary one each get a warning that names the file;
// text, including UTF-8 cut in the middle of a character by the sample
// size, gets none.
func TestInputWarnings(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	long := bytes.Repeat([]byte("é"), sniffBytes) // the sample ends inside a character
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "inner.bin"), []byte("\x7fELF\x00\x01"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		path string
		want string // "" for no warning
	}{
		{"empty", write("empty.txt", nil), "is empty"},
		{"nul byte", write("a.out", []byte("\x7fELF\x02\x01\x01\x00\x00")), "looks binary (a NUL byte at offset 7)"},
		{"latin-1", write("latin1.txt", []byte("caf\xe9 cr\xe8me")), "looks binary (not UTF-8)"},
		{"text", write("words.txt", []byte("hello world\n")), ""},
		{"long utf-8", write("long.txt", long), ""},
		{"directory of a binary", sub, "inner.bin looks binary"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			env := weir.NewEnv(weir.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			if err := Wordcount(env, []string{tt.path}, ""); err != nil {
				t.Fatal(err)
			}
			got := logs.String()
			switch {
			case tt.want == "" && got != "":
				t.Errorf("logged %q, want nothing", got)
			case tt.want != "" && (!strings.Contains(got, tt.want) || !strings.Contains(got, "level=WARN") || strings.Count(got, "\n") != 1):
				t.Errorf("logged %q, want one warning containing %q", got, tt.want)
			}
		})
	}
}
