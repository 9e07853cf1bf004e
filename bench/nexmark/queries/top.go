package queries

import (
	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/bench/nexmark/reference"
)

// topOf says where a row of a "highest per window" step belongs and how it
// ranks: the start of its window (of reference.WindowSize) and the value
// whose maximum the step keeps. Q5 ranks its rows by count, Q7 by price.
type topOf[R any] struct {
	window, rank func(R) int64
}

// localTop is the local phase of a two-phase maximum per window, as Flink
// plans a global aggregate: it keeps, per window, the rows of its subtask
// with the highest rank and emits them at each watermark, before the
// watermark, with the window's last millisecond as their time, then forgets
// them. A row whose window the watermark has not closed is at least as
// late as the watermark, and so is that time; the global phase (windowTop,
// keyed by window) merges the subtasks' rows, and every row with the
// window's maximum is among some subtask's local maxima. A checkpoint
// stores the rows not emitted yet.
//
// Rows come grouped by window (in time order but for a few, or one window's
// rows after another from a window stage), so the rows of the window of the
// last row are kept apart from the map, which a row of another window only
// is looked up in.
type localTop[R any] struct {
	of      topOf[R]
	top     map[int64][]R // window start -> rows with its highest rank
	start   int64         // the window of rows, if hasRows
	rows    []R
	hasRows bool
	state   weir.ListState[R]
}

// InitializeState restores the rows a checkpoint held.
func (f *localTop[R]) InitializeState(ctx *weir.StateInitializationContext) (err error) {
	if f.state, err = weir.GetOperatorListState[R](ctx, "local-top"); err != nil {
		return err
	}
	f.top, f.rows, f.hasRows = map[int64][]R{}, nil, false
	for _, r := range f.state.Get() {
		f.keep(r)
	}
	return nil
}

// SnapshotState stores the rows not emitted yet.
func (f *localTop[R]) SnapshotState(weir.StateSnapshotContext) error {
	f.park()
	held := []R{}
	for _, rows := range f.top {
		held = append(held, rows...)
	}
	f.state.Update(held)
	return nil
}

// ProcessElement keeps r if it ranks at least as high as its window's best
// so far.
func (f *localTop[R]) ProcessElement(_ *weir.ProcessContext[R], r R) error {
	f.keep(r)
	return nil
}

func (f *localTop[R]) keep(r R) {
	if w := f.of.window(r); !f.hasRows || f.start != w {
		f.park()
		f.start, f.rows, f.hasRows = w, f.top[w], true
	}
	switch top := f.rows; {
	case len(top) == 0 || f.of.rank(r) > f.of.rank(top[0]):
		f.rows = append(top[:0], r)
	case f.of.rank(r) == f.of.rank(top[0]):
		f.rows = append(top, r)
	}
}

// park puts the rows of the last row's window back in the map.
func (f *localTop[R]) park() {
	if f.hasRows {
		f.top[f.start] = f.rows
		f.rows, f.hasRows = nil, false
	}
}

// OnWatermark emits the windows' best rows and forgets them.
func (f *localTop[R]) OnWatermark(ctx *weir.ProcessContext[R], _ int64) error {
	f.park()
	for start, rows := range f.top {
		for _, r := range rows {
			ctx.CollectWithTimestamp(r, start+reference.WindowSize-1)
		}
	}
	clear(f.top)
	return nil
}

// windowTop is the global phase of a two-phase maximum per window: keyed by
// window start, it keeps the rows with the highest rank and emits them when
// the watermark passes the window's end.
type windowTop[R any] struct {
	of  topOf[R]
	top weir.ListState[R]
}

// Open registers the state.
func (f *windowTop[R]) Open(rc *weir.KeyedRuntimeContext[int64]) (err error) {
	f.top, err = weir.GetListState[R](rc, "top")
	return err
}

// ProcessElement keeps r if it ranks at least as high as the best so far.
func (f *windowTop[R]) ProcessElement(ctx *weir.KeyedContext[int64, R], r R) error {
	top := f.top.Get()
	switch {
	case len(top) == 0:
		ctx.TimerService().RegisterEventTimeTimer(ctx.Key() + reference.WindowSize - 1)
		f.top.Add(r)
	case f.of.rank(r) > f.of.rank(top[0]):
		f.top.Update([]R{r})
	case f.of.rank(r) == f.of.rank(top[0]):
		f.top.Add(r)
	}
	return nil
}

// OnTimer emits the window's best rows.
func (f *windowTop[R]) OnTimer(ctx *weir.KeyedContext[int64, R], _ int64) error {
	for _, r := range f.top.Get() {
		ctx.Collect(r)
	}
	f.top.Clear()
	return nil
}

// twoPhaseTop is rows' highest-ranked rows per window: a localTop chained
// to rows' producer, a keyBy on window start and a windowTop, named name+
// "-local-max" and name+"-max".
func twoPhaseTop[R any](rows weir.DataStream[R], of topOf[R], name string) weir.DataStream[R] {
	local := weir.ProcessStream(rows, weir.ProcessFunction[R, R](&localTop[R]{of: of})).Name(name + "-local-max")
	return weir.Process(weir.KeyBy(local, of.window),
		weir.KeyedProcessFunction[int64, R, R](&windowTop[R]{of: of})).Name(name + "-max")
}
