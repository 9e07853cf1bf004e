package timer

// Timer is one pending timer: the operator wants a callback for Key and
// Namespace when time reaches Timestamp. Two timers with the same three fields
// are the same timer.
type Timer[K comparable, N comparable] struct {
	Timestamp int64
	Key       K
	Namespace N
}
