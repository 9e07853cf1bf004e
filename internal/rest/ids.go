package rest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// isHexID reports whether s is an id in Flink's form: 32 lower-case hex
// characters (job ids, trigger ids, vertex ids).
func isHexID(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// jobIDParam is the job id of the request's path, validated.
func jobIDParam(id string) (string, error) {
	if !isHexID(id) {
		return "", newError(errBadRequest, "invalid job id %q: want 32 lower-case hex characters", id)
	}
	return id, nil
}

// triggerIDParam is a trigger id of a path or a body, validated.
func triggerIDParam(id string) (string, error) {
	if !isHexID(id) {
		return "", newError(errBadRequest, "invalid trigger id %q: want 32 lower-case hex characters", id)
	}
	return id, nil
}

// newTriggerID returns a random trigger id.
func newTriggerID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// vertexID writes Weir's int vertex id in Flink's 32-hex form.
func vertexID(id int) string {
	return fmt.Sprintf("%032x", uint64(id))
}
