package postgres

import (
	"strings"
	"testing"
)

func TestGIDFormat(t *testing.T) {
	long := strings.Repeat("u", 150)
	for _, tc := range []struct {
		name, db, table, uid string
		subtask              int
		ckpt                 int64
		want                 string // "" to check only the round trip and the limit
	}{
		{"plain", "app", "events", "pg-sink", 3, 17, "weir-app.events-pg-sink-3-17"},
		{"schema-qualified", "app", "s.events", "a.b_c", 0, 1, "weir-app.s.events-a.b_c-0-1"},
		{"quote in uid is hashed", "app", "t", "it's", 0, 1, ""},
		{"space in uid is hashed", "app", "t", "my sink", 1, 2, ""},
		{"long uid is hashed", "app", "t", long, 1, 2, ""},
		{"dash in table is hashed", "app", "my-table", "s", 0, 1, ""},
		{"dot in database is hashed", "a.b", "t", "s", 0, 1, ""},
		{"everything at its longest", strings.Repeat("d", 63), strings.Repeat("t", 63) + "." + strings.Repeat("t", 63), long, 1<<31 - 1, 1<<63 - 1, ""},
		{"longest plain parts", strings.Repeat("d", maxDBPart), strings.Repeat("t", maxTblPart), strings.Repeat("u", 57), 1<<31 - 1, 1<<63 - 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := defaultPrefix(tc.db, tc.table, tc.uid)
			if err := checkPrefix(prefix); err != nil {
				t.Errorf("the default prefix is not valid: %v", err)
			}
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

// TestDefaultPrefixesDiffer: different databases, tables and uids, even
// where joining them as text would give the same string, get different
// prefixes; the same ones always the same.
func TestDefaultPrefixesDiffer(t *testing.T) {
	parts := [][3]string{
		{"d", "t-x", "y"}, {"d", "t", "x-y"},
		{"a.b", "c", "u"}, {"a", "b.c", "u"},
		{"d", "t", "u"}, {"d", "t", "u~"}, {"d", "T", "u"}, {"e", "t", "u"},
		{"d", "s.t", "u"}, {"d", "t", "s.u"},
	}
	seen := map[string][3]string{}
	for _, p := range parts {
		prefix := defaultPrefix(p[0], p[1], p[2])
		if prefix != defaultPrefix(p[0], p[1], p[2]) {
			t.Fatalf("default prefix of %v is not stable", p)
		}
		if other, ok := seen[prefix]; ok {
			t.Errorf("%v and %v share the prefix %q", p, other, prefix)
		}
		seen[prefix] = p
	}
}

func TestCheckPrefix(t *testing.T) {
	for _, tc := range []struct {
		prefix string
		want   string // "" for valid
	}{
		{"orders-sink", ""},
		{"weir-app.events-sink~1_a", ""},
		{strings.Repeat("p", MaxTransactionPrefixLen), ""},
		{"", "empty"},
		{strings.Repeat("p", MaxTransactionPrefixLen+1), "more than 168"},
		{"my sink", `' ' at byte 2`},
		{"it's", `'\'' at byte 2`},
		{"é", "at byte 0"},
	} {
		err := checkPrefix(tc.prefix)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("checkPrefix(%q) = %v, want %q", tc.prefix, err, tc.want)
		}
	}
}

// TestGIDPrefixesDoNotOverlap: a prefix that is a string prefix of another
// (with a '-') does not claim the other's transactions.
func TestGIDPrefixesDoNotOverlap(t *testing.T) {
	a, a1 := "a", "a-1"
	for _, tc := range []struct {
		prefix, gid string
		want        bool
	}{
		{a, makeGID(a, 2, 3), true},
		{a, makeGID(a1, 2, 3), false},
		{a1, makeGID(a, 1, 3), false},
		{a, "ab-0-1", false},
		{a, "a-x-1", false},
		{a, "a-1-", false},
		{a, "a--1-2", false},
		{a, "a-1-99999999999999999999", false}, // overflows int64
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
