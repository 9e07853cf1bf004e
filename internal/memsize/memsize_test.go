package memsize_test

import (
	"errors"
	"testing"

	"github.com/weir-engine/weir/internal/memsize"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
	}{
		{"1", 1},
		{"4096", 4096},
		{"100b", 100},
		{"64MiB", 64 << 20},
		{"64mb", 64 << 20},
		{"64 m", 64 << 20},
		{"512k", 512 << 10},
		{"1g", 1 << 30},
		{"1GiB", 1 << 30},
		{" 2 TB ", 2 << 40},
	} {
		got, err := memsize.Parse(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "0", "-1", "MiB", "1.5g", "64 MiBs", "1 pb", "9223372036854775807k"} {
		if got, err := memsize.Parse(bad); err == nil {
			t.Errorf("Parse(%q) = %d, want an error", bad, got)
		} else if bad != "9223372036854775807k" && !errors.Is(err, memsize.ErrSyntax) {
			t.Errorf("Parse(%q): %v, want ErrSyntax", bad, err)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{
		{100, "100 B"},
		{1023, "1023 B"},
		{36 << 10, "36 KiB"},
		{64 << 20, "64 MiB"},
		{3 << 29, "1.50 GiB"},
		{29524 * 36 << 10, "1.01 GiB"},
		{1 << 30, "1 GiB"},
		{2099200 * 36 << 10, "72.1 GiB"},
	} {
		if got := memsize.Format(tt.n); got != tt.want {
			t.Errorf("Format(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
