// Package txnid names the transactions of exactly-once sinks that live
// outside Weir (PostgreSQL's prepared transactions, Kafka's transactional
// ids): <prefix>-<subtask>-<n>, where the prefix is stable across runs of a
// job so that a new run finds what a killed one left, and n is a number the
// sink chooses (a checkpoint id). It also makes the parts of a default
// prefix safe: a part that is not plain is replaced by a hash.
package txnid

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// HashedLen is the length of a hashed part: '~' and 16 hex digits.
const HashedLen = 1 + 2*hashedBytes

const hashedBytes = 8 // of SHA-256

// Name names transaction n of a subtask.
func Name(prefix string, subtask int, n int64) string {
	return prefix + "-" + strconv.Itoa(subtask) + "-" + strconv.FormatInt(n, 10)
}

// Parse reads subtask and n back from a name with the prefix; ok is false
// for names of other prefixes. The numbers are read from the right of the
// prefix and a name belongs to it only when exactly two numbers follow:
// prefix "a" never claims the names of prefix "a-1" ("a-1-2-3" has three
// fields after "a-"), and "a-1-2" belongs to "a", not to "a-1".
func Parse(prefix, name string) (subtask int, n int64, ok bool) {
	rest, found := strings.CutPrefix(name, prefix+"-")
	if !found {
		return 0, 0, false
	}
	sub, num, found := strings.Cut(rest, "-")
	if !found || !digits(sub) || !digits(num) {
		return 0, 0, false
	}
	s, err1 := strconv.Atoi(sub)
	c, err2 := strconv.ParseInt(num, 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return s, c, true
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Part returns s when it is plain (not empty, plain holds for each byte,
// no '~') and at most max bytes, else '~' and 16 hex digits of its
// SHA-256, which no plain part can equal.
func Part(s string, max int, plain func(byte) bool) string {
	ok := s != "" && len(s) <= max && !strings.Contains(s, "~")
	for i := 0; ok && i < len(s); i++ {
		ok = plain(s[i])
	}
	if ok {
		return s
	}
	h := sha256.Sum256([]byte(s))
	return "~" + hex.EncodeToString(h[:hashedBytes])
}
