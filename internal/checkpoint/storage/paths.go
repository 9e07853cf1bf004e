package storage

import (
	"fmt"
	"strconv"
	"strings"
)

// Names in the directory layout (see docs/format/checkpoint.md).
const (
	// MetadataFile is the name of the file that makes a snapshot
	// directory a complete snapshot.
	MetadataFile = "_metadata"

	checkpointDirPrefix = "chk-"
	savepointDirPrefix  = "savepoint-"
	sharedDir           = "shared"
	taskOwnedDir        = "taskowned"
	sharedPrefix        = sharedDir + "/"
	taskOwnedPrefix     = taskOwnedDir + "/"

	// maxSegment bounds one path segment; 255 is the common file-name
	// limit of local file systems.
	maxSegment = 255
)

// checkSegment reports whether s is safe as one path segment on every
// backend: 1 to 255 bytes of [A-Za-z0-9._-], not starting with a dot (dot
// files are this package's temporary files, and "." and ".." must never
// appear).
func checkSegment(s string) error {
	if s == "" {
		return fmt.Errorf("empty name")
	}
	if len(s) > maxSegment {
		return fmt.Errorf("name of %d bytes is longer than %d", len(s), maxSegment)
	}
	if s[0] == '.' {
		return fmt.Errorf("name %q starts with a dot", s)
	}
	for i := 0; i < len(s); i++ {
		if !segmentByte(s[i]) {
			return fmt.Errorf("name %q has byte %q; use only letters, digits, '.', '_' and '-'", s, s[i])
		}
	}
	return nil
}

func segmentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// sanitize maps s onto a safe segment prefix of at most n bytes, for file
// names derived from caller-chosen keys.
func sanitize(s string, n int) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < n; i++ {
		c := s[i]
		if !segmentByte(c) {
			c = '_'
		}
		if b.Len() == 0 && c == '.' {
			c = '_'
		}
		b.WriteByte(c)
	}
	if b.Len() == 0 {
		return "x"
	}
	return b.String()
}

// checkStreamPath checks the Path of a StreamHandle: a file of the snapshot
// directory, or a task-owned file of the job.
func checkStreamPath(p string) error {
	if rest, ok := strings.CutPrefix(p, taskOwnedPrefix); ok {
		return checkSegment(rest)
	}
	return checkSegment(p)
}

// checkSharedPath checks the Path of a SharedFile: a file of the job's
// shared directory, or a file of the snapshot directory.
func checkSharedPath(p string) error {
	if rest, ok := strings.CutPrefix(p, sharedPrefix); ok {
		return checkSegment(rest)
	}
	return checkSegment(p)
}

// outsideDir reports whether a validated handle path points outside the
// snapshot directory.
func outsideDir(p string) bool { return strings.Contains(p, "/") }

// checkpointDirName is the directory name of checkpoint id.
func checkpointDirName(id int64) string {
	return checkpointDirPrefix + strconv.FormatInt(id, 10)
}

// parseCheckpointDirName returns the id of a "chk-<id>" name.
func parseCheckpointDirName(name string) (int64, bool) {
	digits, ok := strings.CutPrefix(name, checkpointDirPrefix)
	if !ok || digits == "" || (len(digits) > 1 && digits[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	id, err := strconv.ParseInt(digits, 10, 64)
	return id, err == nil
}

// isSnapshotDirName reports whether name is a checkpoint or savepoint
// directory name, the only directories Discard deletes.
func isSnapshotDirName(name string) bool {
	if _, ok := parseCheckpointDirName(name); ok {
		return true
	}
	rest, ok := strings.CutPrefix(name, savepointDirPrefix)
	return ok && rest != "" && checkSegment(name) == nil
}

// joinKey joins slash-separated key parts, skipping empty ones.
func joinKey(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		p = strings.Trim(p, "/")
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('/')
		}
		b.WriteString(p)
	}
	return b.String()
}

// splitKey returns the parent and the last segment of a slash-separated
// key.
func splitKey(key string) (parent, base string) {
	key = strings.TrimRight(key, "/")
	i := strings.LastIndexByte(key, '/')
	if i < 0 {
		return "", key
	}
	return key[:i], key[i+1:]
}
