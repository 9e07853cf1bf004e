package postgres

import (
	"errors"
	"fmt"
	"strings"

	"github.com/weir-engine/weir/internal/txnid"
)

// Global transaction ids (gids) name prepared transactions:
//
//	<prefix>-<subtask>-<checkpointID>
//
// The prefix is Options.TransactionPrefix, or by default
//
//	weir-<database>.<table>-<operatorUID>
//
// which depends on nothing that changes between runs of a job, so a new run
// (with a new job id) finds what a killed one left prepared. PostgreSQL
// allows gids of at most 199 bytes and requires them unique in the whole
// server (cluster), so the database is part of the default.
//
// In the default, each part appears as it is when it is plain and fits;
// otherwise '~' and 16 hex digits of its SHA-256 stand for it, which no plain
// part can equal. The database part is plain without '.' and '-', the table
// part without '-', so the first '.' and the next '-' end them: two
// different (database, table, uid) never give the same prefix.
//
// The two numbers are parsed from the right of the prefix, and a gid
// belongs to a prefix only when exactly two numbers follow it: prefix "a"
// never claims the gids of prefix "a-1" ("a-1-2-3" has three fields after
// "a-"), and "a-1-2" belongs to "a" (subtask 1, checkpoint 2), not to "a-1".

const (
	gidLimit    = 199             // PostgreSQL's GIDSIZE less the terminating NUL
	numbersRoom = 1 + 10 + 1 + 19 // "-<subtask>-<checkpoint>" at their widest
	// The longest database and table parts of a default prefix; the uid
	// gets what is left, at least 57 bytes, so each part fits even hashed.
	maxDBPart  = 40
	maxTblPart = 64
)

// MaxTransactionPrefixLen is the longest Options.TransactionPrefix, in
// bytes: room is left for "-<subtask>-<checkpointID>" within PostgreSQL's
// 199-byte limit on gids.
const MaxTransactionPrefixLen = gidLimit - numbersRoom

// defaultPrefix is the transaction prefix of a sink without
// Options.TransactionPrefix: stable across runs of the job.
func defaultPrefix(database, table, operatorUID string) string {
	p := "weir-" + gidPart(database, maxDBPart, isNameByte) + "." + gidPart(table, maxTblPart, isTableByte) + "-"
	return p + gidPart(operatorUID, MaxTransactionPrefixLen-len(p), isPrefixByte)
}

// checkPrefix reports a TransactionPrefix that cannot name transactions.
func checkPrefix(p string) error {
	switch {
	case p == "":
		return errors.New("transaction prefix is empty")
	case len(p) > MaxTransactionPrefixLen:
		return fmt.Errorf("transaction prefix %q is %d bytes, more than %d", p, len(p), MaxTransactionPrefixLen)
	}
	for i := 0; i < len(p); i++ {
		if !isPrefixByte(p[i]) {
			return fmt.Errorf("transaction prefix %q has %q at byte %d: use ASCII letters, digits, '.', '_', '-' and '~'", p, p[i], i)
		}
	}
	return nil
}

// makeGID names the transaction of a subtask for a checkpoint.
func makeGID(prefix string, subtask int, checkpointID int64) string {
	return txnid.Name(prefix, subtask, checkpointID)
}

// parseGID reads subtask and checkpoint back from a gid with the prefix;
// ok is false for gids of other prefixes.
func parseGID(prefix, gid string) (subtask int, checkpointID int64, ok bool) {
	return txnid.Parse(prefix, gid)
}

// The bytes a part of a default prefix may hold as it is.
func isNameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}
func isTableByte(b byte) bool  { return isNameByte(b) || b == '.' }
func isPrefixByte(b byte) bool { return isTableByte(b) || b == '-' || b == '~' }

// gidPart returns s if it is plain (plain holds for each byte, and s has
// no '~') and at most max bytes, else '~' and a hash of s.
func gidPart(s string, max int, plain func(byte) bool) string { return txnid.Part(s, max, plain) }

// quoteLiteral quotes s as an SQL string literal. PREPARE TRANSACTION and
// COMMIT PREPARED take a literal, not a parameter. Gids hold only plain
// characters, but quoting stays correct for any text (with
// standard_conforming_strings, on by default since PostgreSQL 9.1, a
// backslash is an ordinary character).
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// checkGID guards the length limit (the prefix rules keep every gid within
// it; this catches a mistake in them before PostgreSQL does).
func checkGID(gid string) error {
	if len(gid) > gidLimit {
		return fmt.Errorf("postgres: transaction id %q is %d bytes, more than PostgreSQL's %d", gid, len(gid), gidLimit)
	}
	return nil
}
