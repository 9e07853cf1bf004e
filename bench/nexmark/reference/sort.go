package reference

import "slices"

// sortByTimeThen sorts rows by time first and cmp second. Generated streams
// are usually already in time order with many rows per millisecond, so when
// rows arrive sorted by time it only sorts each run of equal times, which
// keeps q1's sort of a million rows cheap; otherwise it sorts the whole slice.
func sortByTimeThen[T any](rows []T, time func(T) int64, cmp func(a, b T) int) {
	if !slices.IsSortedFunc(rows, func(a, b T) int { return compareInt(time(a), time(b)) }) {
		slices.SortFunc(rows, cmp)
		return
	}
	for lo := 0; lo < len(rows); {
		hi := lo + 1
		for hi < len(rows) && time(rows[hi]) == time(rows[lo]) {
			hi++
		}
		if hi-lo > 1 {
			slices.SortFunc(rows[lo:hi], cmp)
		}
		lo = hi
	}
}

// compareInt is cmp.Compare for int64 without the NaN handling the generic
// version carries.
func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
