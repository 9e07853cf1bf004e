package cache

import "errors"

// Registries are several registries seen as one (an Env's own and its
// cache directory's), as the REST API lists and deletes datasets.
type Registries []*Registry

// DatasetIDs returns the ids of the complete datasets of every registry.
func (rs Registries) DatasetIDs() ([]string, error) {
	var ids []string
	var errs []error
	for _, r := range rs {
		ds, err := r.Datasets()
		errs = append(errs, err)
		for _, d := range ds {
			ids = append(ids, d.ID)
		}
	}
	return ids, errors.Join(errs...)
}

// DropDataset deletes dataset id from whichever registry holds it and
// reports whether one did.
func (rs Registries) DropDataset(id string) (bool, error) {
	for _, r := range rs {
		if _, ok := r.Lookup(id); ok {
			return true, r.Release(id)
		}
	}
	return false, nil
}
