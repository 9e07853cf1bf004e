package cluster

import (
	"github.com/weir-engine/weir/internal/minicluster"
	"github.com/weir-engine/weir/internal/rest"
)

// datasets serves /datasets on the JobManager from the ResourceManager's
// table of cluster partitions: every dataset it tracks, complete or not
// (a TaskManager holding part of it was lost), and DELETE releases one,
// its holders deleting their files.
type datasets struct{ c *minicluster.Cluster }

var (
	_ rest.Datasets           = datasets{}
	_ rest.IncompleteDatasets = datasets{}
)

func (d datasets) ids(complete bool) []string {
	var out []string
	for _, ds := range d.c.Datasets() {
		if ds.Complete() == complete {
			out = append(out, ds.ID)
		}
	}
	return out
}

// DatasetIDs implements rest.Datasets.
func (d datasets) DatasetIDs() ([]string, error) { return d.ids(true), nil }

// IncompleteDatasetIDs implements rest.IncompleteDatasets.
func (d datasets) IncompleteDatasetIDs() ([]string, error) { return d.ids(false), nil }

// DropDataset implements rest.Datasets.
func (d datasets) DropDataset(id string) (bool, error) { return d.c.ReleaseDataset(id) }
