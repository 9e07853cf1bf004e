package cache

import (
	"slices"
)

// enforceQuota evicts least recently used datasets until the datasets fit
// Options.Quota, sparing keep (the one just created) unless it alone is
// larger than the quota.
func (r *Registry) enforceQuota(keep string) {
	if r.opts.Quota <= 0 {
		return
	}
	ds, err := r.Datasets()
	if err != nil {
		r.opts.Logger.Warn("cache quota: some datasets cannot be listed", "error", err)
	}
	var total int64
	for _, d := range ds {
		total += d.Bytes()
	}
	// Oldest use first; the kept dataset last.
	slices.SortStableFunc(ds, func(a, b *Dataset) int {
		switch {
		case a.ID == keep:
			return 1
		case b.ID == keep:
			return -1
		}
		return a.LastUsed.Compare(b.LastUsed)
	})
	for _, d := range ds {
		if total <= r.opts.Quota {
			return
		}
		reason := "least recently used"
		if d.ID == keep {
			reason = "larger than the quota by itself"
		}
		if err := r.Release(d.ID); err != nil {
			r.opts.Logger.Warn("cache quota: eviction failed", "dataset", d.ID, "error", err)
			continue
		}
		total -= d.Bytes()
		r.opts.Logger.Info("cache evicted to keep within the quota", "dataset", d.ID, "name", d.Name,
			"bytes", d.Bytes(), "quota", r.opts.Quota, "reason", reason)
	}
}
