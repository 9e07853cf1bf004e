package checkpoint

// taskTable tracks, per task, what the coordinator heard about its end:
// EndOfData (and when) and FINISHED; and, per pipelined region, whether all
// of its tasks got that far, which is what the end-of-data triggers look
// at. Tasks are addressed by flat number (see index).
//
// "When" is not a time but a checkpoint id floor: eodFloor[t] is the id the
// next checkpoint would get at the moment t reported EndOfData, so
// checkpoint id was triggered after t's EndOfData exactly when
// id >= eodFloor[t]. That is all the ordering the rules need.
type taskTable struct {
	finished []bool
	eod      []bool
	eodFloor []int64

	regionOf []int32
	regions  []regionState

	// done counts tasks that reached EndOfData or finished; running those
	// that have not finished.
	done, running int

	// candidates are regions whose every task reached EndOfData or
	// finished and which still have running tasks: they want a checkpoint
	// triggered after their last EndOfData. Pruned lazily.
	candidates []int32
}

type regionState struct {
	size, done, running int
	// floor is the highest eodFloor of the region's tasks.
	floor     int64
	candidate bool
}

func newTaskTable(ix *index) *taskTable {
	t := &taskTable{}
	t.regionOf, _ = regionsOf(ix)
	t.reset(ix.total, nil)
	return t
}

// reset forgets everything but the regions and marks the given tasks
// finished (a restore).
func (t *taskTable) reset(total int, finished []int) {
	t.finished = make([]bool, total)
	t.eod = make([]bool, total)
	t.eodFloor = make([]int64, total)
	t.done, t.running = 0, total
	t.candidates = t.candidates[:0]
	nregions := 0
	for _, r := range t.regionOf {
		nregions = max(nregions, int(r)+1)
	}
	t.regions = make([]regionState, nregions)
	for _, r := range t.regionOf {
		t.regions[r].size++
		t.regions[r].running++
	}
	for _, f := range finished {
		t.finish(f)
	}
}

// endOfData records that task f emitted EndOfData when the next checkpoint
// id was floor. It reports false when that was known (or f finished).
func (t *taskTable) endOfData(f int, floor int64) bool {
	if t.eod[f] || t.finished[f] {
		return false
	}
	t.eod[f], t.eodFloor[f] = true, floor
	r := &t.regions[t.regionOf[f]]
	r.floor = max(r.floor, floor)
	r.done++
	t.done++
	t.maybeCandidate(t.regionOf[f])
	return true
}

// finish records that task f finished; false when that was known.
func (t *taskTable) finish(f int) bool {
	if t.finished[f] {
		return false
	}
	t.finished[f] = true
	r := &t.regions[t.regionOf[f]]
	r.running--
	t.running--
	if !t.eod[f] {
		r.done++
		t.done++
	}
	t.maybeCandidate(t.regionOf[f])
	return true
}

func (t *taskTable) maybeCandidate(ri int32) {
	r := &t.regions[ri]
	if !r.candidate && r.done == r.size && r.running > 0 {
		r.candidate = true
		t.candidates = append(t.candidates, ri)
	}
}

// endOfDataBefore reports whether task f emitted EndOfData before
// checkpoint id was triggered.
func (t *taskTable) endOfDataBefore(f int, id int64) bool {
	return t.eod[f] && t.eodFloor[f] <= id
}

// anyFinished reports whether some task finished.
func (t *taskTable) anyFinished() bool { return t.running < len(t.finished) }

// allDone reports whether every task reached EndOfData or finished while
// some still run: the moment for the job's final checkpoint.
func (t *taskTable) allDone() bool { return t.done == len(t.finished) && t.running > 0 }

// uncoveredFloor returns the highest floor among candidate regions that no
// completed checkpoint with id >= floor covers yet (0 if there is none). A
// region leaves the candidates for good once covered, or once none of its
// tasks runs: completions are not undone, only a reset starts over.
func (t *taskTable) uncoveredFloor(completed int64) int64 {
	var floor int64
	keep := t.candidates[:0]
	for _, ri := range t.candidates {
		r := &t.regions[ri]
		if r.running == 0 || r.floor <= completed {
			r.candidate = false
			continue
		}
		keep = append(keep, ri)
		floor = max(floor, r.floor)
	}
	t.candidates = keep
	return floor
}
