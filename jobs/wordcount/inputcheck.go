package wordcount

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// sniffBytes is how much of a file warnInputs looks at.
const sniffBytes = 8 << 10

// warnInputs logs a warning for every input file (or file of an input
// directory) that is empty or looks binary: the job still runs (an empty
// file is valid input), but a user who gave the wrong file learns why the
// counts are empty or garbage.
func warnInputs(log *slog.Logger, inputs []string) {
	for _, in := range inputs {
		fi, err := os.Stat(in)
		if err != nil {
			continue // Wordcount reports it
		}
		if !fi.IsDir() {
			warnInput(log, in, fi.Size())
			continue
		}
		entries, err := os.ReadDir(in)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if info, err := e.Info(); err == nil && info.Mode().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
				warnInput(log, filepath.Join(in, e.Name()), info.Size())
			}
		}
	}
}

// warnInput checks one file.
func warnInput(log *slog.Logger, path string, size int64) {
	if size == 0 {
		log.Warn(fmt.Sprintf("wordcount: input %s is empty: it has no words to count", path))
		return
	}
	if why := binaryReason(path); why != "" {
		log.Warn(fmt.Sprintf("wordcount: input %s looks binary (%s): its words are likely garbage", path, why))
	}
}

// binaryReason says why the start of the file at path does not look like
// text, or "" when it does (or cannot be read: reading it fails later with
// a clear error).
func binaryReason(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, sniffBytes))
	if err != nil {
		return ""
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return fmt.Sprintf("a NUL byte at offset %d", i)
	}
	// A multi-byte character may be cut at the end of the sample.
	for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.Valid(b); i++ {
		b = b[:len(b)-1]
	}
	if !utf8.Valid(b) {
		return "not UTF-8"
	}
	return ""
}
