package weir

// SetTextSplitSize sets the size of text file splits until the returned
// function restores it, so that tests see lines cross split boundaries.
func SetTextSplitSize(n int64) (restore func()) {
	old := textSplitSize
	textSplitSize = n
	return func() { textSplitSize = old }
}
