package weir

import (
	"github.com/weir-engine/weir/internal/cluster"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/rest"
)

// jobDirectory serves the REST API of a process's embedded mini-cluster:
// the rest.Dispatcher over the jobs started here, with the TaskManagers
// of their mini-clusters.
type jobDirectory struct {
	*cluster.Directory[*JobClient]
}

func newJobDirectory() *jobDirectory {
	return &jobDirectory{cluster.NewDirectory(func(c *JobClient) rest.JobInfo { return jobInfo(c, clientStatus(c)) })}
}

func clientStatus(c *JobClient) jobmaster.Status { return c.job.Status() }

// TaskManagers implements rest.TaskManagerLister: the TaskManagers of
// the running jobs' mini-clusters.
func (d *jobDirectory) TaskManagers() []rest.TaskManagerInfo {
	return cluster.TaskManagersOf(d.Statuses(clientStatus))
}
