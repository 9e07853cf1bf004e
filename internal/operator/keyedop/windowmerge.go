package keyedop

import (
	"fmt"
	"slices"
)

// mergeInto merges the new window nw of the current key with the windows
// of the key it overlaps or touches (Flink's TimeWindow.intersects) and
// returns the window the element goes to: nw, an existing window that
// covers it, or their cover, which then holds the merged accumulators and
// the timers of its own, the merged windows' timers and per-window state
// cleared (Flink's MergingWindowSet and merging WindowOperator). The
// windows of a key are the keys of its contents, disjoint with gaps.
//
// This runs per element: a key usually has one window, which the element
// extends, so the common case collects without sorting and writes the
// cover before removing the merged windows (the key's map of windows then
// never becomes empty, which would free it and allocate it again).
func (w *windowOp[K, T, A, O, W]) mergeInto(nw W) (W, error) {
	group, cover := w.overlapping(Window(nw))
	m := W(cover)
	if len(group) == 0 || (len(group) == 1 && group[0] == m) {
		return m, nil
	}
	if w.isWindowLate(m) {
		return m, fmt.Errorf("weir: merging made window [%d, %d) end before the watermark %d", cover.Start, cover.End, w.watermark())
	}
	acc, _ := w.contents.Get(group[0])
	for _, g := range group[1:] {
		b, _ := w.contents.Get(g)
		var err error
		if acc, err = w.fns.Merge(acc, b); err != nil {
			return m, err
		}
	}
	if err := w.trigger.OnMerge(w.tctx.at(m), m, group); err != nil {
		return m, err
	}
	// m is none of group: one window of group equal to the cover returned
	// above, and two or more disjoint ones cover more than each.
	w.contents.Put(m, acc)
	for _, g := range group {
		if err := w.trigger.Clear(w.tctx.at(g), g); err != nil {
			return m, err
		}
		w.deleteCleanup(g)
		w.clearWindowState(g)
		w.contents.Remove(g)
	}
	w.registerCleanup(m)
	return m, nil
}

// overlapping returns the windows of the current key that cover overlaps
// or touches, in start order, and the cover of them all and cover. The
// slice is w.scratch, valid until the next call.
func (w *windowOp[K, T, A, O, W]) overlapping(cover Window) ([]W, Window) {
	existing := w.scratch[:0]
	for e := range w.contents.Keys() {
		existing = append(existing, e)
	}
	w.scratch = existing
	if len(existing) > 1 {
		slices.SortFunc(existing, func(a, b W) int { return cmpInt64(Window(a).Start, Window(b).Start) })
	}
	group := existing[:0]
	for _, e := range existing {
		ew := Window(e)
		if ew.Start <= cover.End && ew.End >= cover.Start {
			cover = Window{Start: min(cover.Start, ew.Start), End: max(cover.End, ew.End)}
			group = append(group, e)
		}
	}
	return group, cover
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
