package file

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// partName identifies a part file: the operator that wrote it, the job
// (its id's first 8 characters), the subtask and attempt, and its number
// within that subtask and attempt. A pending name also carries the root of
// the job's lineage (see lineage); root is empty in names without one.
type partName struct {
	operator string
	job      string
	subtask  int
	attempt  int
	seq      int
	root     string
}

const partPrefix = "part-"

// String is the committed (visible) name; the pending name has a dot
// before it.
func (n partName) String() string {
	return fmt.Sprintf("%s%s-%s-%d-%d-%d", partPrefix, n.operator, n.job, n.subtask, n.attempt, n.seq)
}

// pending is the name of the pending file: the visible name with a dot
// before it and, after a dot, the root of the lineage.
func (n partName) pending() string { return "." + n.String() + "." + n.root }

// parsePending parses the name of a pending part file. Fields are taken
// from the right, since an operator uid may contain dashes. Names without
// a root (written before lineages had one) get their own job as root.
func parsePending(name string) (partName, bool) {
	name, ok := strings.CutPrefix(name, "."+partPrefix)
	if !ok {
		return partName{}, false
	}
	root := ""
	if i := strings.LastIndexByte(name, '.'); i >= 0 && !strings.Contains(name[i:], "-") {
		name, root = name[:i], name[i+1:]
	}
	f := strings.Split(name, "-")
	if len(f) < 5 {
		return partName{}, false
	}
	k := len(f) - 4
	var nums [3]int
	for i := range nums {
		v, err := strconv.Atoi(f[k+1+i])
		if err != nil || v < 0 || strconv.Itoa(v) != f[k+1+i] {
			return partName{}, false
		}
		nums[i] = v
	}
	n := partName{operator: strings.Join(f[:k], "-"), job: f[k], subtask: nums[0], attempt: nums[1], seq: nums[2], root: root}
	if n.root == "" {
		n.root = n.job
	}
	return n, true
}

// shortJob is the part of a job id that names carry (a Weir job id is hex,
// so it has no dash).
func shortJob(id string) string {
	if len(id) > 8 {
		id = id[:8]
	}
	return strings.ReplaceAll(sanitize(id), "-", "_")
}

// sanitize makes an operator uid usable in a file name.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '.' || r == os.PathSeparator {
			return '_'
		}
		return r
	}, s)
}
