package async

// entry is one element of the queue: a request for a record, or a
// watermark. Only the task's goroutine touches its fields but outcome,
// which the request's goroutine hands over through the inbox.
type entry[T, R any] struct {
	seq int64
	// ts and in are the record; wm is set for a watermark entry.
	ts   int64
	in   T
	isWM bool
	wm   int64
	// done is set when the outcome was taken in; results are emitted then.
	done    bool
	results []R
	// seg is the unordered queue's segment of the entry.
	seg *segment[T, R]
	req *request[T, R]
}

// queue holds entries until they may be emitted. add and complete return,
// through emit, the entries ready to leave, in the order they must.
type queue[T, R any] interface {
	add(e *entry[T, R], emit func(*entry[T, R]) error) error
	complete(e *entry[T, R], emit func(*entry[T, R]) error) error
	// len counts the entries held, watermarks included.
	len() int
}

// ordered emits entries in the order they were added.
type ordered[T, R any] struct {
	items []*entry[T, R]
}

func (q *ordered[T, R]) len() int { return len(q.items) }

func (q *ordered[T, R]) add(e *entry[T, R], emit func(*entry[T, R]) error) error {
	q.items = append(q.items, e)
	return q.drain(emit)
}

func (q *ordered[T, R]) complete(e *entry[T, R], emit func(*entry[T, R]) error) error {
	return q.drain(emit)
}

func (q *ordered[T, R]) drain(emit func(*entry[T, R]) error) error {
	for len(q.items) > 0 && (q.items[0].done || q.items[0].isWM) {
		e := q.items[0]
		q.items[0] = nil
		q.items = q.items[1:]
		if err := emit(e); err != nil {
			return err
		}
	}
	return nil
}

// segment is the records between two watermarks of the unordered queue.
type segment[T, R any] struct {
	open  int            // records not completed
	ready []*entry[T, R] // completed records waiting for earlier segments
	// closing is the watermark that ends the segment, when one came.
	closing *entry[T, R]
}

// unordered emits a record as soon as it completed and every segment
// before its own is empty; a watermark once its segment is.
type unordered[T, R any] struct {
	segs []*segment[T, R]
	n    int
}

func (q *unordered[T, R]) len() int { return q.n }

func (q *unordered[T, R]) add(e *entry[T, R], emit func(*entry[T, R]) error) error {
	q.n++
	last := len(q.segs) - 1
	if last < 0 || q.segs[last].closing != nil {
		q.segs = append(q.segs, &segment[T, R]{})
		last++
	}
	s := q.segs[last]
	if e.isWM {
		s.closing = e
		return q.advance(emit)
	}
	e.seg = s
	s.open++
	return nil
}

func (q *unordered[T, R]) complete(e *entry[T, R], emit func(*entry[T, R]) error) error {
	s := e.seg
	e.seg = nil
	s.open--
	if s != q.segs[0] {
		s.ready = append(s.ready, e)
		return nil
	}
	q.n--
	if err := emit(e); err != nil {
		return err
	}
	return q.advance(emit)
}

// advance emits what the head segments hold once they are complete.
func (q *unordered[T, R]) advance(emit func(*entry[T, R]) error) error {
	for len(q.segs) > 0 {
		s := q.segs[0]
		for _, r := range s.ready {
			q.n--
			if err := emit(r); err != nil {
				return err
			}
		}
		s.ready = nil
		if s.open > 0 || s.closing == nil {
			return nil
		}
		q.n--
		q.segs[0] = nil
		q.segs = q.segs[1:]
		if err := emit(s.closing); err != nil {
			return err
		}
	}
	return nil
}
