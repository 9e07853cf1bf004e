package kafka

import (
	"errors"
	"fmt"

	"github.com/weir-engine/weir/internal/txnid"
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
	return txnid.Part(s, max, func(b byte) bool {
		return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '.' || b == '_' || b == '-'
	})
}

// txnID names the transaction n of a subtask.
func txnID(prefix string, subtask int, n int64) string { return txnid.Name(prefix, subtask, n) }

// parseTxnID reads subtask and n back from an id of the prefix; ok is
// false for ids of other prefixes.
func parseTxnID(prefix, id string) (subtask int, n int64, ok bool) { return txnid.Parse(prefix, id) }
