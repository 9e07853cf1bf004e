package storage_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"pgregory.net/rapid"
)

func shared(name string) storage.SharedFile {
	return storage.SharedFile{Key: "k/" + name, Path: "shared/" + name, Size: 1}
}

func paths(files []storage.SharedFile) []string {
	out := []string{}
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

func TestRegistry(t *testing.T) {
	r := storage.NewSharedStateRegistry()
	a, b, c := shared("a"), shared("b"), shared("c")
	private := storage.SharedFile{Key: "k/p", Path: "MANIFEST-1", Size: 1}
	r.Register(1, []storage.SharedFile{a, b, private})
	r.Register(2, []storage.SharedFile{b, c})
	r.Register(2, []storage.SharedFile{c}) // a second acknowledgement naming c again
	steps := []struct {
		unregister int64
		freed      []string
		left       []string
	}{
		{1, []string{"shared/a"}, []string{"shared/b", "shared/c"}},
		{1, []string{}, []string{"shared/b", "shared/c"}}, // unknown id
		{2, []string{"shared/b", "shared/c"}, []string{}},
	}
	for _, s := range steps {
		if got := paths(r.Unregister(s.unregister)); !reflect.DeepEqual(got, s.freed) {
			t.Fatalf("Unregister(%d) = %v, want %v", s.unregister, got, s.freed)
		}
		if got := paths(r.Files()); !reflect.DeepEqual(got, s.left) {
			t.Fatalf("after Unregister(%d): Files = %v, want %v", s.unregister, got, s.left)
		}
	}
	if ids := r.Checkpoints(); len(ids) != 0 {
		t.Fatalf("Checkpoints = %v after unregistering all", ids)
	}
}

func TestRegisterMetadata(t *testing.T) {
	md := sampleMetadata()
	r := storage.NewSharedStateRegistry()
	r.RegisterMetadata(md)
	want := []string{"shared/count-2_0_000001.sst-0102030405060708"} // the MANIFEST is private
	if got := paths(r.Files()); !reflect.DeepEqual(got, want) || !reflect.DeepEqual(r.Checkpoints(), []int64{42}) {
		t.Fatalf("Files = %v, Checkpoints = %v", got, r.Checkpoints())
	}
}

// registryModel is the naive reference: the shared files of each
// registered checkpoint, and the fate of every file ever written.
type registryModel struct {
	reg       *storage.SharedStateRegistry
	files     map[int64]map[string]bool // registered checkpoint -> paths
	pending   map[int64]bool            // registered but not completed
	completed []int64                   // registered and completed, ascending
	written   map[string]bool           // every shared file ever written
	deleted   map[string]bool           // returned by Unregister and deleted
	orphaned  map[string]bool           // written for a checkpoint lost in a crash
	nextID    int64
	nextFile  int
}

// referenced returns the paths some registered checkpoint references,
// leaving out checkpoint skip.
func (m *registryModel) referenced(skip int64) map[string]bool {
	out := map[string]bool{}
	for id, fs := range m.files {
		if id != skip {
			for p := range fs {
				out[p] = true
			}
		}
	}
	return out
}

// register adds a checkpoint that reuses some files of the registered ones
// and writes some new ones, registering them in one or two calls.
func (m *registryModel) register(t *rapid.T, pending bool) {
	id := m.nextID
	m.nextID++
	candidates := []string{}
	for p := range m.referenced(-1) {
		candidates = append(candidates, p)
	}
	slices.Sort(candidates)
	var files []storage.SharedFile
	if len(candidates) > 0 {
		for _, p := range rapid.SliceOfN(rapid.SampledFrom(candidates), 0, 6).Draw(t, "reused") {
			files = append(files, storage.SharedFile{Key: "k", Path: p, Size: 1})
		}
	}
	for range rapid.IntRange(0, 3).Draw(t, "new") {
		f := shared(fmt.Sprintf("f%d", m.nextFile))
		m.nextFile++
		m.written[f.Path] = true
		files = append(files, f)
	}
	m.files[id] = map[string]bool{}
	for _, f := range files {
		m.files[id][f.Path] = true
	}
	split := rapid.IntRange(0, len(files)).Draw(t, "split") // acknowledgements arrive in parts
	m.reg.Register(id, files[:split])
	m.reg.Register(id, files[split:])
	if pending {
		m.pending[id] = true
	} else {
		m.completed = append(m.completed, id)
	}
}

// unregister unregisters id and checks what the registry frees against the
// reference: exactly the files of id that no other registered checkpoint
// references, none of them deleted before.
func (m *registryModel) unregister(t *rapid.T, id int64) {
	others := m.referenced(id)
	want := []string{}
	for p := range m.files[id] {
		if !others[p] {
			want = append(want, p)
		}
	}
	slices.Sort(want)
	got := paths(m.reg.Unregister(id))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Unregister(%d) freed %v, want %v", id, got, want)
	}
	for _, p := range got {
		if m.deleted[p] {
			t.Fatalf("Unregister(%d) freed %s a second time", id, p)
		}
		m.deleted[p] = true
	}
	delete(m.files, id)
	delete(m.pending, id)
	m.completed = slices.DeleteFunc(m.completed, func(c int64) bool { return c == id })
}

// TestRegistryProperties runs random sequences of checkpoints (completed,
// pending, aborted, subsumed) and restores, and checks after every step
// that nothing a registered checkpoint needs was deleted and that every
// file no checkpoint needs was deleted (or, for files of checkpoints still
// pending at a crash, is known to be orphaned).
func TestRegistryProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := &registryModel{
			reg:   storage.NewSharedStateRegistry(),
			files: map[int64]map[string]bool{}, pending: map[int64]bool{},
			written: map[string]bool{}, deleted: map[string]bool{}, orphaned: map[string]bool{},
			nextID: rapid.Int64Range(0, 1000).Draw(t, "firstID"),
		}
		retain := rapid.IntRange(1, 3).Draw(t, "retain")
		t.Repeat(map[string]func(*rapid.T){
			"complete": func(t *rapid.T) {
				m.register(t, false)
				// Subsume the oldest beyond the number retained.
				for len(m.completed) > retain {
					m.unregister(t, m.completed[0])
				}
			},
			"trigger": func(t *rapid.T) { m.register(t, true) },
			"finish pending": func(t *rapid.T) {
				ids := sortedKeys(m.pending)
				if len(ids) == 0 {
					t.Skip("nothing pending")
				}
				id := rapid.SampledFrom(ids).Draw(t, "pending")
				if rapid.Bool().Draw(t, "abort") {
					m.unregister(t, id)
					return
				}
				delete(m.pending, id)
				m.completed = append(m.completed, id)
				slices.Sort(m.completed)
				for len(m.completed) > retain {
					m.unregister(t, m.completed[0])
				}
			},
			"discard any": func(t *rapid.T) {
				if len(m.completed) == 0 {
					t.Skip("nothing completed")
				}
				m.unregister(t, rapid.SampledFrom(m.completed).Draw(t, "discard"))
			},
			"restore": func(t *rapid.T) {
				// The JobManager restarts: pending checkpoints are
				// lost, the completed ones are read back from storage
				// and registered with a new registry.
				lost := m.referenced(-1)
				for id := range m.pending {
					delete(m.files, id)
				}
				m.pending = map[int64]bool{}
				kept := m.referenced(-1)
				for p := range lost {
					if !kept[p] {
						m.orphaned[p] = true
					}
				}
				m.reg = storage.NewSharedStateRegistry()
				for _, id := range m.completed {
					md := &storage.Metadata{JobID: testJob, CheckpointID: id, Kind: storage.KindCheckpoint,
						Operators: []storage.OperatorState{{UID: "u", Parallelism: 1, MaxParallelism: 1,
							Subtasks: []storage.SubtaskState{{Keyed: []storage.KeyedStateHandle{{}}}}}}}
					for _, p := range sortedKeys(m.files[id]) {
						k := &md.Operators[0].Subtasks[0].Keyed[0]
						k.Shared = append(k.Shared, storage.SharedFile{Key: "k", Path: p, Size: 1})
					}
					m.reg.RegisterMetadata(md)
				}
				// It may keep only the checkpoint it restored from.
				if rapid.Bool().Draw(t, "keepLatestOnly") {
					for len(m.completed) > 1 {
						m.unregister(t, m.completed[0])
					}
				}
			},
			"": func(t *rapid.T) {
				ref := m.referenced(-1)
				if got, want := paths(m.reg.Files()), sortedKeys(ref); !reflect.DeepEqual(got, want) {
					t.Fatalf("registry tracks %v, registered checkpoints reference %v", got, want)
				}
				var ids []int64
				for id := range m.files {
					ids = append(ids, id)
				}
				slices.Sort(ids)
				if got := m.reg.Checkpoints(); !reflect.DeepEqual(got, ids) && len(ids)+len(got) > 0 {
					t.Fatalf("Checkpoints() = %v, want %v", got, ids)
				}
				for p := range m.written {
					n := 0
					for _, in := range []map[string]bool{ref, m.deleted, m.orphaned} {
						if in[p] {
							n++
						}
					}
					if n != 1 {
						t.Fatalf("file %s: referenced %v, deleted %v, orphaned %v", p, ref[p], m.deleted[p], m.orphaned[p])
					}
				}
			},
		})
	})
}

func sortedKeys[K int64 | string](m map[K]bool) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
