package nexmark

import (
	"io"

	"github.com/weir-engine/weir"
)

// CountInto ends s in the job's counting stages, which print the report
// line of query over events to out.
func CountInto[R any](s weir.DataStream[R], query string, events int64, out io.Writer) {
	countInto(s, &report{Query: query, Events: events, Out: out})
}
