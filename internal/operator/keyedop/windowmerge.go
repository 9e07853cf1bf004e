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
func (w *windowOp[K, T, A, O, W]) mergeInto(nw W) (W, error) {
	cover := Window(nw)
	existing := w.scratch[:0]
	for e := range w.contents.Keys() {
		existing = append(existing, e)
	}
	slices.SortFunc(existing, func(a, b W) int { return cmpInt64(Window(a).Start, Window(b).Start) })
	group := existing[:0]
	for _, e := range existing {
		ew := Window(e)
		if ew.Start <= cover.End && ew.End >= cover.Start {
			cover = Window{Start: min(cover.Start, ew.Start), End: max(cover.End, ew.End)}
			group = append(group, e)
		}
	}
	w.scratch = existing
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
	merged := slices.Clone(group)
	if err := w.trigger.OnMerge(w.tctx.at(m), m, merged); err != nil {
		return m, err
	}
	for _, g := range merged {
		if err := w.trigger.Clear(w.tctx.at(g), g); err != nil {
			return m, err
		}
		w.deleteCleanup(g)
		w.clearWindowState(g)
		w.contents.Remove(g)
	}
	w.contents.Put(m, acc)
	w.registerCleanup(m)
	return m, nil
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
