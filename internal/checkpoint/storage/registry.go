package storage

import (
	"slices"
	"strings"
)

// SharedStateRegistry decides when a shared file of an incremental backend
// may be deleted: when no snapshot it knows of references it any more. It
// counts references by the file's Path (names are unique: WriteShared adds
// a random suffix) and does no I/O: Unregister returns the files to delete
// and the caller deletes them (Storage.DeleteShared), so the logic is
// tested without a store. It is not safe for concurrent use; the
// checkpoint coordinator owns it.
//
// What the caller must do:
//
//   - Register every retained completed checkpoint, and every pending one
//     as soon as its references are known (acknowledgements may arrive per
//     subtask: Register adds to what a checkpoint already holds).
//   - Unregister a checkpoint when it is subsumed, discarded or aborted,
//     and delete the files Unregister returns.
//   - On restore, build a new registry and register every checkpoint that
//     is retained (at least the restored one), before any Unregister.
//   - Let backends reuse only shared files of a checkpoint that is still
//     registered (in Flink's terms: of the last checkpoint they were told
//     completed). A file is returned by Unregister the moment its last
//     registered reference goes, and is not tracked after that: a later
//     Register of the same path would count it as a new file the caller
//     has already deleted.
type SharedStateRegistry struct {
	files       map[string]*sharedEntry // by Path
	checkpoints map[int64]map[string]struct{}
}

type sharedEntry struct {
	file SharedFile
	refs int // number of registered checkpoints referencing the file
}

// NewSharedStateRegistry returns an empty registry.
func NewSharedStateRegistry() *SharedStateRegistry {
	return &SharedStateRegistry{files: map[string]*sharedEntry{}, checkpoints: map[int64]map[string]struct{}{}}
}

// Register records that checkpoint id references files. Files outside the
// job's shared directory (see SharedFile.IsShared) belong to the snapshot
// directory and are ignored. Registering the same file for the same
// checkpoint twice counts once.
func (r *SharedStateRegistry) Register(id int64, files []SharedFile) {
	refs := r.checkpoints[id]
	if refs == nil {
		refs = map[string]struct{}{}
		r.checkpoints[id] = refs
	}
	for _, f := range files {
		if !f.IsShared() {
			continue
		}
		if _, ok := refs[f.Path]; ok {
			continue
		}
		refs[f.Path] = struct{}{}
		e := r.files[f.Path]
		if e == nil {
			e = &sharedEntry{file: f}
			r.files[f.Path] = e
		}
		e.refs++
	}
}

// RegisterMetadata registers the shared files of md under its checkpoint
// id: what a restore calls for each retained checkpoint.
func (r *SharedStateRegistry) RegisterMetadata(md *Metadata) {
	r.Register(md.CheckpointID, md.SharedFiles())
}

// Unregister forgets checkpoint id and returns the shared files that no
// registered checkpoint references any more, sorted by Path. The caller
// deletes them. Unregistering an unknown id returns nothing.
func (r *SharedStateRegistry) Unregister(id int64) []SharedFile {
	refs, ok := r.checkpoints[id]
	if !ok {
		return nil
	}
	delete(r.checkpoints, id)
	var unused []SharedFile
	for p := range refs {
		e := r.files[p]
		if e.refs--; e.refs == 0 {
			delete(r.files, p)
			unused = append(unused, e.file)
		}
	}
	slices.SortFunc(unused, func(a, b SharedFile) int { return strings.Compare(a.Path, b.Path) })
	return unused
}

// Has reports whether a registered checkpoint references the shared file
// at path.
func (r *SharedStateRegistry) Has(path string) bool {
	_, ok := r.files[path]
	return ok
}

// Checkpoints returns the ids of the registered checkpoints, ascending.
func (r *SharedStateRegistry) Checkpoints() []int64 {
	ids := make([]int64, 0, len(r.checkpoints))
	for id := range r.checkpoints {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Files returns every shared file some registered checkpoint references,
// sorted by Path.
func (r *SharedStateRegistry) Files() []SharedFile {
	out := make([]SharedFile, 0, len(r.files))
	for _, e := range r.files {
		out = append(out, e.file)
	}
	slices.SortFunc(out, func(a, b SharedFile) int { return strings.Compare(a.Path, b.Path) })
	return out
}
