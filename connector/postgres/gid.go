package postgres

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Global transaction ids (gids) name prepared transactions:
//
//	weir-<jobID>-<operatorUID>-<subtask>-<checkpointID>
//
// PostgreSQL allows at most 199 bytes. The job id (32 hex digits from the
// runtime) and the operator uid appear as they are when they consist of
// letters, digits, '.', '_' and '-' and fit; otherwise '~' and 16 hex digits
// of their SHA-256 stand for them, which no plain part can equal. The two
// numbers are parsed from the right, so a '-' in the uid is harmless: the
// prefix of uid "a" never claims the gids of uid "a-1", because after it
// come three fields, not two.

const (
	gidLimit    = 199 // PostgreSQL's GIDSIZE less the terminating NUL
	maxJobPart  = 64
	numbersRoom = 1 + 10 + 1 + 19 // "<subtask>-<checkpoint>" at their widest, and a '-'
)

// gidPrefix is the prefix shared by every gid of one sink operator of one
// job: recovery lists prepared transactions by it.
func gidPrefix(jobID, operatorUID string) string {
	job := gidPart(jobID, maxJobPart)
	budget := gidLimit - len("weir-") - len(job) - 1 - numbersRoom
	return "weir-" + job + "-" + gidPart(operatorUID, budget) + "-"
}

// makeGID names the transaction of a subtask for a checkpoint.
func makeGID(prefix string, subtask int, checkpointID int64) string {
	return prefix + strconv.Itoa(subtask) + "-" + strconv.FormatInt(checkpointID, 10)
}

// parseGID reads subtask and checkpoint back from a gid with the prefix;
// ok is false for gids of other jobs or operators.
func parseGID(prefix, gid string) (subtask int, checkpointID int64, ok bool) {
	rest, found := strings.CutPrefix(gid, prefix)
	if !found {
		return 0, 0, false
	}
	sub, ckpt, found := strings.Cut(rest, "-")
	if !found || !digits(sub) || !digits(ckpt) {
		return 0, 0, false
	}
	s, err1 := strconv.Atoi(sub)
	c, err2 := strconv.ParseInt(ckpt, 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return s, c, true
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// gidPart returns s if it is plain and at most max bytes, else a hash.
func gidPart(s string, max int) string {
	plain := s != "" && len(s) <= max
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	h := sha256.Sum256([]byte(s))
	return "~" + hex.EncodeToString(h[:8])
}

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
