// Package memsize reads and writes amounts of memory as people type them:
// "64MiB", "1g", "512 kb". As in Flink's MemorySize, every unit is binary
// (k = KiB = 1024 bytes, m = MiB, g = GiB, t = TiB), whether it is spelt
// "m", "mb" or "mib", and a number without a unit is bytes.
package memsize

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Binary units.
const (
	KiB int64 = 1 << (10 * (iota + 1))
	MiB
	GiB
	TiB
)

var units = []struct {
	names []string
	size  int64
}{
	{[]string{"", "b", "byte", "bytes"}, 1},
	{[]string{"k", "kb", "kib"}, KiB},
	{[]string{"m", "mb", "mib"}, MiB},
	{[]string{"g", "gb", "gib"}, GiB},
	{[]string{"t", "tb", "tib"}, TiB},
}

// ErrSyntax is returned for a string that is not a positive size.
var ErrSyntax = errors.New("want a size such as 64MiB, 512k or 1g")

// Parse reads a positive whole number of bytes with an optional unit.
func Parse(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil || n <= 0 {
		return 0, ErrSyntax
	}
	unit := strings.ToLower(strings.TrimSpace(t[i:]))
	for _, u := range units {
		for _, name := range u.names {
			if unit != name {
				continue
			}
			if n > (1<<63-1)/u.size {
				return 0, fmt.Errorf("%s is too large", s)
			}
			return n * u.size, nil
		}
	}
	return 0, ErrSyntax
}

// Format writes n bytes in the largest binary unit that keeps at least one
// whole unit, with two decimals below 10 units and one above, so that a
// figure just above a round one does not read as it: "64 MiB", "1.01 GiB",
// "72.1 GiB", "36 KiB", "100 B".
func Format(n int64) string {
	names := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	size := int64(1)
	i := 0
	for i+1 < len(names) && n >= size*1024 {
		size *= 1024
		i++
	}
	if n%size == 0 {
		return fmt.Sprintf("%d %s", n/size, names[i])
	}
	v := float64(n) / float64(size)
	prec := 1
	if v < 10 {
		prec = 2
	}
	return fmt.Sprintf("%s %s", strconv.FormatFloat(v, 'f', prec, 64), names[i])
}
