package weir

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"slices"

	"github.com/weir-engine/weir/internal/graph"
)

// WithCacheDir keeps the caches of Cache in dir beyond the program: a
// cached stream's dataset is named by a fingerprint of its lineage (see
// Env.lineageFingerprint), so a later process that builds the same
// program finds and reads the caches an earlier one wrote, and a change
// upstream of a cache (a transformation added, renamed or given another
// UID, an input file changed in size or modification time) names another
// dataset, computed anew. Env.Close leaves the caches in dir;
// CachedStream.Invalidate, `weir cache drop` and the quota
// (WithCacheQuota) delete them. A cache is persistent only if every
// source upstream of it says what it reads (ReadTextFile does); the
// others stay the Env's, as without this option.
//
// The code of user functions is not part of the fingerprint: after
// changing what a function upstream of a cache computes, change its
// operator's name or UID, or drop the cache.
func WithCacheDir(dir string) Option { return func(o *Options) { o.CacheDir = dir } }

// WithCacheQuota bounds the bytes of the Env's caches (with WithCacheDir:
// of all the caches in the directory): a cache created beyond it evicts
// the least recently used others, or is not kept when it alone is larger.
func WithCacheQuota(bytes int64) Option { return func(o *Options) { o.CacheQuota = bytes } }

// lineageVersion changes when the fingerprint's input changes meaning.
const lineageVersion = "weir-cache-lineage-v1\n"

// setSourceInputs records what source t reads, for fingerprints.
func (e *Env) setSourceInputs(t *graph.Transformation, inputs string) {
	if e.sourceInputs == nil {
		e.sourceInputs = make(map[int]string)
	}
	e.sourceInputs[t.ID] = inputs
}

// lineageFingerprint returns the dataset id of the persistent cache of
// cache node t: a hash of every transformation upstream of it (kind,
// name, UID, element type, how it is partitioned and chained, in the
// shape of the graph, not of the ids the Env happened to give them) and
// of what the sources read. ok is false when a source upstream does not
// say what it reads: its cache cannot outlive the Env.
func (e *Env) lineageFingerprint(t *graph.Transformation) (id string, ok bool, blocker string) {
	h := sha256.New()
	h.Write([]byte(lineageVersion))
	seen := make(map[*graph.Transformation]int)
	var visit func(t *graph.Transformation) bool
	visit = func(t *graph.Transformation) bool {
		if n, done := seen[t]; done {
			fmt.Fprintf(h, "ref %d\n", n)
			return true
		}
		seen[t] = len(seen)
		for _, in := range t.Inputs {
			if !visit(in) {
				return false
			}
		}
		writeTransformation(h, t, len(t.Inputs))
		if t.Kind == graph.KindSource {
			inputs, known := e.sourceInputs[t.ID]
			if !known {
				blocker = t.String()
				return false
			}
			fmt.Fprintf(h, "reads %q\n", inputs)
		}
		return true
	}
	if !visit(t) {
		return "", false, blocker
	}
	return hex.EncodeToString(h.Sum(nil))[:32], true, ""
}

// writeTransformation hashes what identifies t's computation. The
// parallelism is left out: a cache is read at any parallelism.
func writeTransformation(h hash.Hash, t *graph.Transformation, inputs int) {
	typ := ""
	if t.OutType != nil {
		typ = t.OutType.String()
	}
	fmt.Fprintf(h, "t kind=%d name=%q uid=%q type=%q inputs=%d bounded=%v keyed=%v two=%v part=%d side=%q chain=%d\n",
		t.Kind, t.Name, t.UID, typ, inputs, t.Bounded, t.Keyed, t.TwoInput, t.Partitioner.Kind, t.SideTag, t.Chaining)
}

// filesInputs describes files for a fingerprint: absolute path, size and
// modification time of each, sorted.
func filesInputs(files []string) (string, error) {
	files = slices.Clone(files)
	slices.Sort(files)
	files = slices.Compact(files)
	var out []byte
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return "", err
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return "", err
		}
		out = fmt.Appendf(out, "%s size=%d mtime=%d\n", abs, fi.Size(), fi.ModTime().UnixNano())
	}
	return string(out), nil
}
