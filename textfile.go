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

	"github.com/weir-engine/weir/internal/op"
)

// textSplitSize is the size of the byte ranges a text file is split into so
// that several subtasks can read one large file.
const textSplitSize = 8 << 20

// fileSplit is a byte range of a file. A split reads the lines that start
// inside it: it skips a partial first line (the previous split reads it) and
// reads past its end to finish its last line.
type fileSplit struct {
	path       string
	start, end int64
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
	return addSource[string](env, "ReadTextFile", true, 0, func(out any) (any, error) {
		return &textSource{splits: splits, out: out.(op.Output[string])}, nil
	})
}

func textSplits(paths []string) ([]fileSplit, error) {
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
	var splits []fileSplit
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return nil, err
		}
		size := fi.Size()
		for start := int64(0); start < size; start += textSplitSize {
			splits = append(splits, fileSplit{path: f, start: start, end: min(start+textSplitSize, size)})
		}
	}
	return splits, nil
}

type textSource struct {
	op.Base
	splits []fileSplit
	out    op.Output[string]
	next   int // index of the next split of this subtask
	inc    int
	file   *os.File
	r      *bufio.Reader
	pos    int64 // offset of the next byte r returns
	end    int64
}

func (s *textSource) Open(ctx *op.Context) error {
	s.next, s.inc = ctx.SubtaskIndex, ctx.Parallelism
	return nil
}

func (s *textSource) Available() <-chan struct{} { return nil }

func (s *textSource) PollNext() (op.Status, error) {
	for n := 0; n < sourceBatch; n++ {
		if s.r == nil {
			if s.next >= len(s.splits) {
				return op.EndOfInput, nil
			}
			if err := s.openSplit(s.splits[s.next]); err != nil {
				return 0, err
			}
			s.next += s.inc
		}
		// A line belongs to this split when it starts before end.
		if s.pos >= s.end {
			s.closeFile()
			continue
		}
		line, err := s.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			var long []byte
			long, err = s.readLong(line)
			line = long
		}
		s.pos += int64(len(line))
		if len(line) > 0 {
			if err := s.out.Collect(op.NoTimestamp, string(trimEOL(line))); err != nil {
				return 0, err
			}
		}
		if err == io.EOF {
			s.closeFile()
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("read %s: %w", s.file.Name(), err)
		}
	}
	return op.MoreAvailable, nil
}

// readLong finishes a line longer than the reader's buffer.
func (s *textSource) readLong(first []byte) ([]byte, error) {
	buf := append([]byte(nil), first...)
	for {
		more, err := s.r.ReadSlice('\n')
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

func (s *textSource) openSplit(sp fileSplit) error {
	f, err := os.Open(sp.path)
	if err != nil {
		return err
	}
	s.file, s.end = f, sp.end
	start := sp.start
	if start > 0 {
		// Back up one byte: if it is a newline, the split starts with a
		// whole line; otherwise the partial line belongs to the previous
		// split and is skipped.
		start--
	}
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return fmt.Errorf("seek %s: %w", sp.path, err)
	}
	s.r = bufio.NewReaderSize(f, 64<<10)
	s.pos = start
	if sp.start > 0 {
		skipped, err := s.r.ReadSlice('\n')
		for err == bufio.ErrBufferFull {
			s.pos += int64(len(skipped))
			skipped, err = s.r.ReadSlice('\n')
		}
		s.pos += int64(len(skipped))
		if err != nil && err != io.EOF {
			return fmt.Errorf("read %s: %w", sp.path, err)
		}
	}
	return nil
}

func (s *textSource) closeFile() {
	if s.file != nil {
		s.file.Close()
	}
	s.file, s.r = nil, nil
}

func (s *textSource) Close() error {
	s.closeFile()
	return nil
}
