package kafka

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Transactional ids name the exactly-once writers' transactions:
//
//	<prefix>-<subtask>-<n>
//
// n counts checkpoints: a writer's transaction after checkpoint c is n =
// c+1, and the first one of a writer restored from checkpoint R (or of a
// fresh start, R = 0) is R+1. Checkpoint ids grow along a job's history,
// so a subtask never names two transactions alike within one run, and
// every transaction a restored checkpoint R holds as a committable has
// n <= R while everything written after R (by the failed run, or by the
// restored one) has n > R. Recovery rests on that split (see txn_abort.go).
//
// The numbers are parsed from the right: prefix "a" never claims the ids of
// prefix "a-1" ("a-1-2-3" has three numbers after "a-").

// maxTxnPrefixLen is the longest TransactionalIDPrefix: ids stay readable
// in broker logs and tools.
const maxTxnPrefixLen = 200

// checkTxnPrefix reports a prefix that cannot name transactions.
func checkTxnPrefix(p string) error {
	if len(p) > maxTxnPrefixLen {
		return fmt.Errorf("transactional.id.prefix %q is %d bytes, more than %d", p, len(p), maxTxnPrefixLen)
	}
	for i := 0; i < len(p); i++ {
		if p[i] <= ' ' || p[i] > '~' {
			return fmt.Errorf("transactional.id.prefix %q has %q at byte %d: use printable ASCII without spaces", p, p[i], i)
		}
	}
	return nil
}

// defaultTxnPrefix is the prefix of a sink without TransactionalIDPrefix:
// weir-<topic>-<uid>, stable across runs of the job (it holds no job id),
// and distinct for sinks that write one topic under their own uids. A uid
// that is long or has other bytes than letters, digits, '.', '_' and '-'
// is replaced by '~' and 16 hex digits of its SHA-256.
func defaultTxnPrefix(topic, operatorUID string) (string, error) {
	if operatorUID == "" {
		// Two sinks of one job writing the topic would share ids.
		return "", errors.New("the sink needs a stable operator uid (set one with UID) or a TransactionalIDPrefix")
	}
	p := "weir-"
	if topic != "" {
		p += topic + "-"
	}
	return p + plainOrHash(operatorUID, 64), nil
}

func plainOrHash(s string, max int) string {
	ok := len(s) <= max
	for i := 0; ok && i < len(s); i++ {
		b := s[i]
		ok = b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '.' || b == '_' || b == '-'
	}
	if ok {
		return s
	}
	h := sha256.Sum256([]byte(s))
	return "~" + hex.EncodeToString(h[:8])
}

// txnID names the transaction n of a subtask.
func txnID(prefix string, subtask int, n int64) string {
	return prefix + "-" + strconv.Itoa(subtask) + "-" + strconv.FormatInt(n, 10)
}

// parseTxnID reads subtask and n back from an id of the prefix; ok is
// false for ids of other prefixes.
func parseTxnID(prefix, id string) (subtask int, n int64, ok bool) {
	rest, found := strings.CutPrefix(id, prefix+"-")
	if !found {
		return 0, 0, false
	}
	sub, num, found := strings.Cut(rest, "-")
	if !found || !allDigits(sub) || !allDigits(num) {
		return 0, 0, false
	}
	s, err1 := strconv.Atoi(sub)
	c, err2 := strconv.ParseInt(num, 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return s, c, true
}

func allDigits(s string) bool {
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
