package weir

import (
	"errors"
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/source"
	"github.com/weir-engine/weir/internal/operator/watermark"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// SplitSource describes a source whose input is divided into splits (files,
// file ranges, partitions, key ranges), each read by one subtask. A split
// value of type S carries its own read position, so a checkpoint stores the
// remaining splits of every subtask and a restore, at any parallelism,
// deals them out again and resumes each where it stopped.
type SplitSource[T, S any] struct {
	// Name is the source's display name.
	Name string
	// Splits returns every split of the input for a job whose source has
	// the given parallelism; subtask i reads splits i, i+p, i+2p, ...
	Splits func(parallelism int) ([]S, error)
	// Read emits up to budget elements of split and advances its position;
	// it reports done once the split is exhausted. It is shared by all
	// subtasks; a reader that holds resources (an open file) uses NewReader
	// instead.
	Read func(split *S, budget int, emit func(T) error) (done bool, err error)
	// NewReader, when set, creates each subtask's reader.
	NewReader func() SplitReader[T, S]
	// Unbounded marks a source whose splits never end.
	Unbounded bool
	// RatePerSecond limits the total rate over all subtasks; 0: no limit.
	RatePerSecond float64
	// Dynamic hands splits out on request (FLIP-27): an enumerator on the
	// JobMaster gives each subtask a new split when it finished its last,
	// so fast subtasks take more of the work. The enumerator checkpoints
	// the splits not handed out yet. Without it splits are dealt out
	// round-robin at the start.
	Dynamic bool
	// NewSourceReader, when set, creates each subtask's reader of all its
	// splits at once (instead of Read or NewReader, which read one split
	// after the other): for splits that never end, such as the partitions
	// of a Kafka topic. RatePerSecond does not apply to it.
	NewSourceReader func(ReaderContext[T]) (SourceReader[T, S], error)
	// NewEnumerator, when set for a Dynamic source with NewSourceReader,
	// creates the split enumerator on the JobMaster (from its snapshot when
	// the job is restored, nil otherwise) instead of one that hands out
	// Splits; it may find new splits while the job runs. Splits is not
	// used then.
	NewEnumerator func(parallelism int, restored []byte) (SplitEnumerator[S], error)
	// RequestInterval is how long a subtask waits before it asks the
	// enumerator again when it had no split for it now (default 1s).
	RequestInterval time.Duration
	// Watermarks, for a source with NewSourceReader, generates a watermark
	// per split inside each subtask (see ReaderOutput); without it elements
	// keep the timestamps their splits give them and no watermark is
	// emitted but the final one of a bounded source.
	Watermarks *WatermarkStrategy[T]
	// Progress, when set for a bounded source read with Read or
	// NewReader, says how far split is through its input and how much it
	// has in all, in a unit of the source's own (records, or bytes of a
	// file): `weir run` in a terminal then shows the job's percentage
	// done, when every source of the job knows its size.
	Progress func(split *S) (done, total int64)

	// Fill, when set beside Read, is Read writing up to len(buf) elements
	// of split into buf instead of calling emit for each: the engine
	// calls it instead of Read when the source's output takes whole
	// batches (the operators chained to it), which saves a call and a
	// copy per element. It returns how many elements it wrote and, as
	// Read does, whether split is exhausted; the elements written before
	// an error are emitted. It must give the elements Read gives. It is
	// shared by all subtasks, as Read is; it cannot be set with NewReader
	// or NewSourceReader.
	Fill func(split *S, buf []T) (n int, done bool, err error)
}

// FromSplits adds a split source. S must be serializable (codec rules) for
// checkpoints.
func FromSplits[T, S any](env *Env, src SplitSource[T, S]) DataStream[T] {
	reader := src.NewSourceReader != nil
	switch {
	case src.Splits == nil && !(src.Dynamic && src.NewEnumerator != nil):
		return invalid[T](env, errors.New("weir: FromSplits: Splits (or, for a Dynamic source, NewEnumerator) must be set"))
	case src.Read == nil && src.NewReader == nil && !reader:
		return invalid[T](env, errors.New("weir: FromSplits: Read, NewReader or NewSourceReader must be set"))
	case src.Fill != nil && (src.Read == nil || src.NewReader != nil || reader):
		return invalid[T](env, errors.New("weir: FromSplits: Fill goes with Read, not with NewReader or NewSourceReader"))
	case !reader && (src.NewEnumerator != nil || src.Watermarks != nil):
		return invalid[T](env, errors.New("weir: FromSplits: NewEnumerator and Watermarks need NewSourceReader"))
	case src.Watermarks != nil && (src.Watermarks.OutOfOrderness < 0 || src.Watermarks.Interval < 0 || src.Watermarks.Idleness < 0):
		return invalid[T](env, fmt.Errorf("weir: FromSplits: negative duration in the watermark strategy %+v", *src.Watermarks))
	case src.RatePerSecond < 0:
		return invalid[T](env, fmt.Errorf("weir: FromSplits: negative rate %v", src.RatePerSecond))
	}
	align, err := alignmentOf(src.Watermarks)
	if err != nil {
		return invalid[T](env, err)
	}
	name := src.Name
	if name == "" {
		name = "Source"
	}
	spec := src.spec()
	s := addSource[T](env, name, !src.Unbounded, 0, func(out any) (any, error) {
		return source.New(spec, out.(op.Output[T])), nil
	})
	if src.Dynamic && s.ok() {
		s.t.Enumerator = source.NewEnumeratorFactory(spec)
	}
	if s.ok() {
		s.t.Alignment = align
	}
	return s
}

// spec is src as the source operators take it: the same fields, with the
// user's readers and enumerator as the operators' interfaces (adapted once
// per subtask, not per element).
func (src SplitSource[T, S]) spec() source.Spec[T, S] {
	sp := source.Spec[T, S]{Splits: src.Splits, Read: src.Read, Unbounded: src.Unbounded, RatePerSecond: src.RatePerSecond,
		Dynamic: src.Dynamic, RequestInterval: src.RequestInterval, Watermarks: (*watermark.Strategy[T])(src.Watermarks),
		Progress: src.Progress, Fill: src.Fill}
	if src.NewReader != nil {
		sp.NewReader = func() source.SplitReader[T, S] { return src.NewReader() }
	}
	if src.NewSourceReader != nil {
		sp.NewSourceReader = func(c source.ReaderContext[T]) (source.Reader[T, S], error) {
			return src.NewSourceReader(ReaderContext[T]{SubtaskIndex: c.SubtaskIndex, Parallelism: c.Parallelism,
				Attempt: c.Attempt, Logger: c.Logger, Output: c.Output})
		}
	}
	if src.NewEnumerator != nil {
		sp.NewEnumerator = func(p int, restored []byte) (source.Enumerator[S], error) { return src.NewEnumerator(p, restored) }
	}
	return sp
}

// SplitReader reads splits for one subtask, keeping what it needs between
// calls (an open file for the current split). The split value alone is the
// position: after a restore, Read gets a split it has never seen.
type SplitReader[T, S any] interface {
	Read(split *S, budget int, emit func(T) error) (done bool, err error)
	Close() error
}

// addSource records a source transformation.
func addSource[T any](env *Env, name string, bounded bool, maxParallelism int, factory graph.Factory) DataStream[T] {
	return derive[T](env, &graph.Transformation{
		Kind: graph.KindSource, Name: name, OutType: typeinfo.New[T](), Factory: factory,
		MaxAllowedParallelism: maxParallelism, Bounded: bounded,
	})
}
