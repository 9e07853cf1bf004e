package weir

import (
	"context"
	"fmt"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/operator/twophase"
)

// SinkTo ends the stream in a two-phase-commit sink: elements are written
// into the sink's pending transaction, pre-committed at every checkpoint,
// and committed once that checkpoint completed. With checkpoints disabled
// nothing is ever committed except at the final checkpoint of a bounded
// job, so enable them.
func SinkTo[T, C any](s DataStream[T], sink Sink[T, C]) DataStreamSink {
	if err := checkFn(s, "SinkTo", sink); err != nil {
		return DataStreamSink{invalid[struct{}](s.env, err)}
	}
	if _, err := codec.For[C](); err != nil {
		return DataStreamSink{invalid[struct{}](s.env, fmt.Errorf("weir: SinkTo: committables must be serializable: %w", err))}
	}
	env := s.env
	return addSink(s, "Sink", func(any) (any, error) {
		return twophase.New[T, C](sinkOf[T, C]{sink}, func() string { return env.opts.Lineage }), nil
	})
}

// sinkOf adapts a Sink to the operator's: the context converts field for
// field and the writer and committer are the user's values.
type sinkOf[T, C any] struct{ s Sink[T, C] }

func (a sinkOf[T, C]) CreateWriter(ctx context.Context, info twophase.Context) (twophase.Writer[T, C], error) {
	return a.s.CreateWriter(ctx, SinkContext(info))
}

func (a sinkOf[T, C]) CreateCommitter(ctx context.Context, info twophase.Context) (twophase.Committer[C], error) {
	return a.s.CreateCommitter(ctx, SinkContext(info))
}
