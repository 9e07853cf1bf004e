package weir

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// textSplitSize is the size of the byte ranges a text file is split into so
// that several subtasks can read one large file. Tests make it small, so
// that lines cross split boundaries.
var textSplitSize int64 = 8 << 20

// FileSplit is a byte range [Start, End) of a file, read from Offset. A
// split reads the lines that start inside it: it skips a partial first line
// (the previous split reads it) and reads past End to finish its last line.
// Offset is always at a line start once reading began, so a checkpoint
// resumes exactly at the next line.
type FileSplit struct {
	Path       string
	Start, End int64
	Offset     int64
	Started    bool
}

// ReadTextFile is a bounded source of the lines of the given files (a
// directory stands for the regular, non-hidden files in it), without line
// terminators. Files are split into ranges read in parallel; a missing or
// unreadable path is an error before the job starts.
func ReadTextFile(env *Env, paths ...string) DataStream[string] {
	splits, err := textSplits(paths)
	if err != nil {
		return invalid[string](env, fmt.Errorf("weir: ReadTextFile: %w", err))
	}
	s := FromSplits(env, SplitSource[string, FileSplit]{
		Name:      "ReadTextFile",
		Dynamic:   true,
		Splits:    func(int) ([]FileSplit, error) { return splits, nil },
		NewReader: func() SplitReader[string, FileSplit] { return &textReader{} },
		Progress: func(s *FileSplit) (int64, int64) {
			return min(max(s.Offset-s.Start, 0), s.End-s.Start), s.End - s.Start
		},
	})
	if s.ok() && (env.opts.CacheDir != "" || env.cluster.on()) {
		files := make([]string, 0, len(splits))
		for _, sp := range splits {
			files = append(files, sp.Path)
		}
		inputs, err := filesInputs(files)
		if err != nil {
			return invalid[string](env, fmt.Errorf("weir: ReadTextFile: %w", err))
		}
		env.setSourceInputs(s.t, inputs)
	}
	return s
}

func textSplits(paths []string) ([]FileSplit, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no input files")
	}
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(e.Name(), "_") {
				files = append(files, filepath.Join(p, e.Name()))
			}
		}
	}
	slices.Sort(files)
	var splits []FileSplit
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return nil, err
		}
		size := fi.Size()
		for start := int64(0); start < size; start += textSplitSize {
			splits = append(splits, FileSplit{Path: f, Start: start, End: min(start+textSplitSize, size), Offset: start})
		}
	}
	return splits, nil
}

// textReader keeps the file of the split being read open between calls.
type textReader struct {
	file *os.File
	r    *bufio.Reader
	at   FileSplit // the split the open file is positioned for
}

func (t *textReader) Read(s *FileSplit, budget int, emit func(string) error) (bool, error) {
	if t.file == nil || t.at.Path != s.Path || t.at.Start != s.Start || t.at.Offset != s.Offset {
		if err := t.open(s); err != nil {
			return false, err
		}
	}
	for ; budget > 0; budget-- {
		// A line belongs to this split when it starts before End.
		if s.Offset >= s.End {
			t.Close()
			return true, nil
		}
		line, err := t.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			line, err = t.readLong(line)
		}
		s.Offset += int64(len(line))
		t.at.Offset = s.Offset
		if len(line) > 0 {
			if err := emit(string(trimEOL(line))); err != nil {
				return false, err
			}
		}
		if err == io.EOF {
			t.Close()
			return true, nil
		}
		if err != nil {
			return false, fmt.Errorf("read %s: %w", s.Path, err)
		}
	}
	return false, nil
}

// readLong finishes a line longer than the reader's buffer.
func (t *textReader) readLong(first []byte) ([]byte, error) {
	buf := append([]byte(nil), first...)
	for {
		more, err := t.r.ReadSlice('\n')
		buf = append(buf, more...)
		if err != bufio.ErrBufferFull {
			return buf, err
		}
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}

// open positions a reader at the split's offset. A split that has not
// started yet begins at Start: if that is inside a line, the partial line
// belongs to the previous split and is skipped.
func (t *textReader) open(s *FileSplit) error {
	t.Close()
	f, err := os.Open(s.Path)
	if err != nil {
		return err
	}
	t.file = f
	pos := s.Offset
	skip := !s.Started && s.Start > 0
	if skip {
		// Back up one byte: if it is a newline, the split starts with a
		// whole line.
		pos = s.Start - 1
	}
	if _, err := f.Seek(pos, io.SeekStart); err != nil {
		return fmt.Errorf("seek %s: %w", s.Path, err)
	}
	t.r = bufio.NewReaderSize(f, 64<<10)
	if skip {
		skipped, err := t.r.ReadSlice('\n')
		for err == bufio.ErrBufferFull {
			pos += int64(len(skipped))
			skipped, err = t.r.ReadSlice('\n')
		}
		pos += int64(len(skipped))
		if err != nil && err != io.EOF {
			return fmt.Errorf("read %s: %w", s.Path, err)
		}
		s.Offset = pos
	}
	s.Started = true
	t.at = *s
	return nil
}

func (t *textReader) Close() error {
	if t.file != nil {
		t.file.Close()
	}
	t.file, t.r = nil, nil
	return nil
}
