package txnid_test

import (
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/txnid"
)

func TestNameAndParse(t *testing.T) {
	if got := txnid.Name("weir-t-sink", 3, 17); got != "weir-t-sink-3-17" {
		t.Fatalf("Name = %q", got)
	}
	tests := []struct {
		prefix, name string
		sub          int
		n            int64
		ok           bool
	}{
		{"a", "a-1-2", 1, 2, true},
		{"a-1", "a-1-2", 0, 0, false}, // "a-1-2" is subtask 1 of "a"
		{"a", "a-1-2-3", 0, 0, false}, // three numbers: prefix "a-1"
		{"a-1", "a-1-2-3", 2, 3, true},
		{"a", "a-x-2", 0, 0, false},
		{"a", "a-1-", 0, 0, false},
		{"a", "b-1-2", 0, 0, false},
		{"a", "a-1-99999999999999999999", 0, 0, false}, // out of range
	}
	for _, tt := range tests {
		sub, n, ok := txnid.Parse(tt.prefix, tt.name)
		if sub != tt.sub || n != tt.n || ok != tt.ok {
			t.Errorf("Parse(%q, %q) = %d, %d, %v; want %d, %d, %v", tt.prefix, tt.name, sub, n, ok, tt.sub, tt.n, tt.ok)
		}
	}
}

func TestPart(t *testing.T) {
	plain := func(b byte) bool { return b >= 'a' && b <= 'z' }
	tests := []struct {
		s      string
		max    int
		hashed bool
	}{
		{"sink", 10, false},
		{"sink", 3, true},  // too long
		{"Sink", 10, true}, // not plain
		{"", 10, true},     // empty
		{"a~b", 10, true},  // '~' marks hashes
	}
	for _, tt := range tests {
		got := txnid.Part(tt.s, tt.max, plain)
		if hashed := strings.HasPrefix(got, "~"); hashed != tt.hashed || (!hashed && got != tt.s) || (hashed && len(got) != txnid.HashedLen) {
			t.Errorf("Part(%q, %d) = %q, hashed %v", tt.s, tt.max, got, tt.hashed)
		}
	}
	if txnid.Part("Sink", 10, plain) == txnid.Part("sink!", 10, plain) {
		t.Error("two different parts hash alike")
	}
}
