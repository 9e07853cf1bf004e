package state

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble"
	"github.com/weir-engine/weir/internal/codec"
)

// capturesV1 fills Pebble backends owning ranges with acctV1 state and
// returns their captures (Pebble checkpoints, as a checkpoint stores them)
// as restore sources.
func capturesV1(t *testing.T, ranges [][2]int, edit func(b *KeyedBackend[string])) []PebbleSource {
	t.Helper()
	var out []PebbleSource
	for i, r := range ranges {
		b := newTestBackend[string](t, "pebble", r[0], r[1])
		fillV1(t, b)
		if edit != nil {
			edit(b)
		}
		dir := filepath.Join(t.TempDir(), fmt.Sprint("cp", i))
		if _, err := b.Capture(dir); err != nil {
			t.Fatal(err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		// Not released: the directory stands for a checkpoint's files.
		out = append(out, PebbleSource{Dir: dir, KeyGroupStart: r[0], KeyGroupEnd: r[1]})
	}
	return out
}

// restoreFiles restores a Pebble backend owning [start, end] from private
// copies of the captures, as a restore from a retained checkpoint does: in
// place when one capture has exactly the range, else clipped and ingested.
func restoreFiles(t *testing.T, start, end int, caps []PebbleSource) *KeyedBackend[string] {
	t.Helper()
	work := t.TempDir()
	srcs := make([]PebbleSource, len(caps))
	for i, c := range caps {
		srcs[i] = c
		srcs[i].Dir = filepath.Join(work, fmt.Sprint("restore-", i))
		linkDir(t, c.Dir, srcs[i].Dir)
	}
	b, err := RestorePebble[string](start, end, filepath.Join(work, "db"), srcs, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func registerV2(t *testing.T, b *KeyedBackend[string]) {
	t.Helper()
	if _, err := Value[string, acctV2](b, "acct"); err != nil {
		t.Fatal(err)
	}
	if _, err := List[string, acctV2](b, "history"); err != nil {
		t.Fatal(err)
	}
	if _, err := Map[string, int, acctV2](b, "byDay"); err != nil {
		t.Fatal(err)
	}
}

// The state in a Pebble checkpoint's files evolves when a job registers
// it with a struct that lost, gained and reordered fields: value, list
// and map state, restored in place and at other parallelisms (clipped and
// ingested databases). What the restored backend captures next is in the
// new layout: its files restore again, and a savepoint's sections of them
// restore onto the heap.
func TestPebbleFilesEvolve(t *testing.T) {
	caps := capturesV1(t, [][2]int{{0, 3}, {4, evoGroups - 1}}, nil)
	for _, tt := range []struct {
		name  string
		start int
		end   int
	}{
		{"in place", 0, 3},
		{"scale in", 0, evoGroups - 1},
		{"scale out", 2, 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := restoreFiles(t, tt.start, tt.end, caps)
			registerV2(t, b)
			checkV2(t, b)

			again := capturesOf(t, b)
			c := restoreFiles(t, tt.start, tt.end, again)
			registerV2(t, c)
			checkV2(t, c)

			h := NewKeyedBackend[string](tt.start, tt.end)
			if err := restoreAll(h, captureSections(t, c)); err != nil {
				t.Fatal(err)
			}
			registerV2(t, h)
			checkV2(t, h)
		})
	}
}

// capturesOf captures b as a restore source.
func capturesOf(t *testing.T, b *KeyedBackend[string]) []PebbleSource {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cp")
	c, err := b.Capture(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, e := c.KeyGroupRange()
	return []PebbleSource{{Dir: dir, KeyGroupStart: s, KeyGroupEnd: e}}
}

// captureSections captures b and returns the sections a savepoint writes.
func captureSections(t *testing.T, b *KeyedBackend[string]) map[int][]byte {
	t.Helper()
	c, err := b.Capture(filepath.Join(t.TempDir(), "cp"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	out := map[int][]byte{}
	s, e := c.KeyGroupRange()
	for kg := s; kg <= e; kg++ {
		if out[kg], err = c.Section(nil, kg); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// A state restored in the files but not registered by the job keeps its
// old layout there, and the schema recorded with it: a savepoint of the
// files writes that schema, so a later job still evolves the state.
func TestPebbleUnregisteredStateKeepsSchema(t *testing.T) {
	caps := capturesV1(t, [][2]int{{0, evoGroups - 1}}, nil)
	mid := restoreFiles(t, 0, evoGroups-1, caps) // registers nothing
	b := NewKeyedBackend[string](0, evoGroups-1)
	if err := restoreAll(b, captureSections(t, mid)); err != nil {
		t.Fatal(err)
	}
	registerV2(t, b)
	checkV2(t, b)
}

// A changed field type is refused at registration with an error naming
// the state and the field, and the checkpoint's files are left as they
// were: the same files restore into the evolved struct afterwards.
func TestPebbleChangedFieldTypeIsRefused(t *testing.T) {
	caps := capturesV1(t, [][2]int{{0, evoGroups - 1}}, nil)
	b := restoreFiles(t, 0, evoGroups-1, caps)
	_, err := Value[string, acctChanged](b, "acct")
	var se *codec.SchemaError
	if !errors.As(err, &se) || se.Field != "Balance" || !strings.Contains(err.Error(), `state "acct"`) ||
		!strings.Contains(err.Error(), "field Balance (value.Balance) changed type from int64 to string") {
		t.Fatalf("err = %v", err)
	}
	if !errors.Is(b.Err(), codec.ErrSchemaChanged) {
		t.Fatalf("backend error %v, want the schema change", b.Err())
	}
	ok := restoreFiles(t, 0, evoGroups-1, caps)
	registerV2(t, ok)
	checkV2(t, ok)
}

// Files written before schemas were recorded have no schema entries:
// their values are read as the registered type, positionally, as before.
func TestPebbleFilesWithoutSchemasReadPositionally(t *testing.T) {
	caps := capturesV1(t, [][2]int{{0, evoGroups - 1}}, func(b *KeyedBackend[string]) {
		if err := b.kv.writeBack(); err != nil {
			t.Fatal(err)
		}
		n := 0
		err := scanPrefix(b.kv.db, nil, func(k, _ []byte) error {
			_, name, _, err := splitKey(k)
			if _, ok := isSchemaEntry(name); ok && err == nil {
				n++
				err = b.kv.db.Delete(k, pebble.NoSync)
			}
			return err
		})
		if err != nil || n != 3*evoGroups {
			t.Fatalf("deleted %d schema entries (%v), want %d", n, err, 3*evoGroups)
		}
	})
	b := restoreFiles(t, 0, evoGroups-1, caps)
	k, kg := evoKey(3)
	b.SetCurrentKey(k, kg)
	v, _ := Value[string, acctV1](b, "acct")
	if got, _ := v.Value(); !reflect.DeepEqual(got, acctV1{Owner: k, Balance: 3, Note: "x", Limits: []int{3}}) {
		t.Fatalf("got %+v", got)
	}
	mustNoErr(t, b)
}

// A TTL state's stamped values evolve in the files too: the struct inside
// the stamp is transcoded, the stamp kept.
func TestPebbleTTLStateEvolves(t *testing.T) {
	now := time.UnixMilli(1_000_000)
	ttl := WithTTL(TTLConfig{TTL: time.Hour})
	k, kg := evoKey(4)
	caps := capturesV1(t, [][2]int{{0, evoGroups - 1}}, func(b *KeyedBackend[string]) {
		b.SetClock(func() time.Time { return now })
		b.SetCurrentKey(k, kg)
		v, err := Value[string, acctV1](b, "ttl", ttl)
		if err != nil {
			t.Fatal(err)
		}
		v.Update(acctV1{Owner: k, Balance: 7, Note: "gone"})
	})
	b := restoreFiles(t, 0, evoGroups-1, caps)
	b.SetClock(func() time.Time { return now.Add(59 * time.Minute) })
	b.SetCurrentKey(k, kg)
	v, err := Value[string, acctV2](b, "ttl", ttl)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := v.Value(); !ok || !reflect.DeepEqual(got, acctV2{Owner: k, Balance: 7}) {
		t.Fatalf("got %+v, %v", got, ok)
	}
	// The stamp came through: an hour after the write the value expired.
	b.SetClock(func() time.Time { return now.Add(time.Hour) })
	if got, ok := v.Value(); ok {
		t.Fatalf("expired value %+v still read", got)
	}
	mustNoErr(t, b)
}
