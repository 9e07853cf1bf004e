package postgres

import (
	"strings"
	"testing"
)

func TestGIDFormat(t *testing.T) {
	job := "0123456789abcdef0123456789abcdef"
	long := strings.Repeat("u", 150)
	for _, tc := range []struct {
		name, job, uid string
		subtask        int
		ckpt           int64
		want           string // "" to check only the round trip and the limit
	}{
		{"plain", job, "pg-sink", 3, 17, "weir-" + job + "-pg-sink-3-17"},
		{"dots and underscores", job, "a.b_c", 0, 1, "weir-" + job + "-a.b_c-0-1"},
		{"quote in uid is hashed", job, "it's", 0, 1, ""},
		{"space in uid is hashed", job, "my sink", 1, 2, ""},
		{"long uid is hashed", job, long, 1, 2, ""},
		{"odd job id is hashed", "job/1", "s", 0, 1, ""},
		{"largest numbers", strings.Repeat("j", 64), strings.Repeat("u", 98), 1<<31 - 1, 1<<63 - 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := gidPrefix(tc.job, tc.uid)
			gid := makeGID(prefix, tc.subtask, tc.ckpt)
			if tc.want != "" && gid != tc.want {
				t.Errorf("gid = %q, want %q", gid, tc.want)
			}
			if err := checkGID(gid); err != nil {
				t.Error(err)
			}
			if strings.ContainsAny(gid, "' \\/") {
				t.Errorf("gid %q holds characters that need quoting", gid)
			}
			sub, ckpt, ok := parseGID(prefix, gid)
			if !ok || sub != tc.subtask || ckpt != tc.ckpt {
				t.Errorf("parseGID(%q) = %d, %d, %v", gid, sub, ckpt, ok)
			}
		})
	}
}

// TestGIDPrefixesDoNotOverlap: a uid that is a prefix of another (with a
// '-') must not claim the other's transactions.
func TestGIDPrefixesDoNotOverlap(t *testing.T) {
	job := "0123456789abcdef0123456789abcdef"
	a, a1 := gidPrefix(job, "a"), gidPrefix(job, "a-1")
	for _, tc := range []struct {
		prefix, gid string
		want        bool
	}{
		{a, makeGID(a, 2, 3), true},
		{a, makeGID(a1, 2, 3), false},
		{a1, makeGID(a, 1, 3), false},
		{a, gidPrefix("ffffffffffffffffffffffffffffffff", "a") + "0-1", false},
		{a, a + "x-1", false},
		{a, a + "1-", false},
		{a, a + "-1-2", false},
		{a, a + "1-99999999999999999999", false}, // overflows int64
	} {
		if _, _, ok := parseGID(tc.prefix, tc.gid); ok != tc.want {
			t.Errorf("parseGID(%q, %q) ok = %v, want %v", tc.prefix, tc.gid, ok, tc.want)
		}
	}
}

func TestQuoteLiteral(t *testing.T) {
	for in, want := range map[string]string{
		"weir-x-1-2": "'weir-x-1-2'",
		"it's":       "'it''s'",
		`a\b`:        `'a\b'`,
	} {
		if got := quoteLiteral(in); got != want {
			t.Errorf("quoteLiteral(%q) = %s, want %s", in, got, want)
		}
	}
}
