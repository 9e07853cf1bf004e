package jobmaster

import (
	"errors"
	"fmt"
	"strings"

	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/taskmanager"
)

// fromLatest is the generation restored from the coordinator's latest
// completed checkpoint, and where that checkpoint is ("": none).
type fromLatest struct {
	generation int
	location   string
}

// latestUnreadable is the error of a restore from the latest completed
// checkpoint at location that failed on err.
func latestUnreadable(location string, err error) error {
	return fmt.Errorf("the latest completed checkpoint %s is unreadable, and an older one or a fresh start would repeat the output its completion committed: %w", location, err)
}

// restoreFailure names the latest completed checkpoint in the failure of
// a subtask that could not restore from it. A restart reads only that
// checkpoint's metadata and file sizes (restoreState); the subtasks check
// the content they read and fail unrecoverably on damage, with an error
// that says "restore from <location>:" (taskmanager's restorer, its text
// crosses processes). Such a failure says what a damaged checkpoint found
// by the JobMaster says.
func (jm *JobMaster) restoreFailure(r taskmanager.Report) taskmanager.Report {
	l := jm.fromLatest
	if l.location == "" || r.Generation != l.generation || r.State != scheduler.ExecFailed ||
		!errors.Is(r.Err, scheduler.ErrUnrecoverable) || !strings.Contains(r.Err.Error(), "restore from "+l.location+":") {
		return r
	}
	r.Err = latestUnreadable(l.location, r.Err)
	return r
}
