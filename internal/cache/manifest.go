package cache

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A persistent registry (Options.Persistent) keeps, beside the partition
// files of each complete dataset, a manifest named <id>.dataset.json that
// lists them. The manifest is written after every partition was synced,
// to a temporary file that is synced and renamed over the final name, and
// the directory is synced, so that a crash leaves either no manifest (the
// dataset does not exist; its files are orphans) or a whole one. A
// manifest's modification time is the dataset's last use (LRU eviction).

// manifestSuffix ends the name of a manifest.
const manifestSuffix = ".dataset.json"

// manifestVersion is the format of the manifests written.
const manifestVersion = 1

// manifest is the JSON form of a complete dataset. Partition file names
// are relative to the directory, so that the directory may move.
type manifest struct {
	Version    int                 `json:"version"`
	ID         string              `json:"id"`
	Name       string              `json:"name"`
	Created    time.Time           `json:"created"`
	Partitions []manifestPartition `json:"partitions"`
}

type manifestPartition struct {
	Data    string `json:"data"`
	Index   string `json:"index"`
	Records int64  `json:"records"`
	Bytes   int64  `json:"bytes"`
}

func manifestPath(dir, id string) string { return filepath.Join(dir, id+manifestSuffix) }

// validID reports whether id can name a dataset: 32 lower-case hex
// characters (so that it cannot escape the directory).
func validID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for _, c := range id {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// writeManifest records d, whose partition files are in dir, crash-safely.
func writeManifest(dir string, d *Dataset) error {
	m := manifest{Version: manifestVersion, ID: d.ID, Name: d.Name, Created: d.Created}
	for _, p := range d.Partitions {
		m.Partitions = append(m.Partitions, manifestPartition{
			Data: filepath.Base(p.Data), Index: filepath.Base(p.Index), Records: p.Records, Bytes: p.Bytes,
		})
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := writeSynced(dir, d.ID+manifestSuffix, b); err != nil {
		return fmt.Errorf("manifest of %s: %w", d.ID, err)
	}
	return nil
}

// writeSynced writes b to dir/name crash-safely: a synced temporary file
// renamed into place, then the directory synced.
func writeSynced(dir, name string, b []byte) error {
	tmp, err := os.CreateTemp(dir, "."+name+"-*.tmp")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), filepath.Join(dir, name))
	}
	if werr != nil {
		_ = os.Remove(tmp.Name())
		return werr
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readManifest returns the dataset id recorded in dir, with its last use;
// os.ErrNotExist when there is none.
func readManifest(dir, id string) (*Dataset, error) {
	path := manifestPath(dir, id)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	if m.Version != manifestVersion || m.ID != id || len(m.Partitions) == 0 {
		return nil, fmt.Errorf("manifest %s: version %d, id %q, %d partitions: not a dataset manifest of this version",
			path, m.Version, m.ID, len(m.Partitions))
	}
	d := &Dataset{ID: m.ID, Name: m.Name, Created: m.Created, LastUsed: fi.ModTime()}
	for _, p := range m.Partitions {
		if p.Data != filepath.Base(p.Data) || p.Index != filepath.Base(p.Index) {
			return nil, fmt.Errorf("manifest %s: partition file %q outside the directory", path, p.Data)
		}
		d.Partitions = append(d.Partitions, Partition{
			Data: filepath.Join(dir, p.Data), Index: filepath.Join(dir, p.Index), Records: p.Records, Bytes: p.Bytes,
		})
	}
	return d, nil
}

// ListDir returns the datasets recorded in the cache directory dir, most
// recently used first. A damaged manifest is reported in the error and
// skipped; a directory that does not exist holds none.
func ListDir(dir string) ([]*Dataset, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cache: list %s: %w", dir, err)
	}
	var out []*Dataset
	var errs []error
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), manifestSuffix)
		if !ok || !validID(id) {
			continue
		}
		d, err := readManifest(dir, id)
		if errors.Is(err, os.ErrNotExist) {
			continue // dropped meanwhile
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b *Dataset) int { return b.LastUsed.Compare(a.LastUsed) })
	if err := errors.Join(errs...); err != nil {
		return out, fmt.Errorf("cache: list %s: %w", dir, err)
	}
	return out, nil
}

// DropDir deletes dataset id of the cache directory dir: its manifest
// first (so that no reader finds a manifest without files), then its
// files. It reports whether there was such a dataset.
func DropDir(dir, id string) (bool, error) {
	if !validID(id) {
		return false, fmt.Errorf("cache: %q is not a dataset id (32 hexadecimal characters)", id)
	}
	d, err := readManifest(dir, id)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		// A damaged manifest: remove it; its files become orphans.
		if rerr := os.Remove(manifestPath(dir, id)); rerr != nil {
			return false, fmt.Errorf("cache: drop %s: %w", id, rerr)
		}
		return true, nil
	}
	if err := os.Remove(manifestPath(dir, id)); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("cache: drop %s: %w", id, err)
	}
	if err := removeDataset(d); err != nil {
		return true, fmt.Errorf("cache: drop %s: %w", id, err)
	}
	return true, nil
}

// touch records a use of dataset id in dir (its manifest's time).
func touch(dir, id string) {
	now := time.Now()
	_ = os.Chtimes(manifestPath(dir, id), now, now)
}
