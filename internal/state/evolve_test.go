package state

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/codec"
)

// acctV1 and acctV2 are one state struct before and after an evolution:
// Note removed, Currency added, the others reordered.
type acctV1 struct {
	Owner   string
	Balance int64
	Note    string
	Limits  []int
}

type acctV2 struct {
	Limits   []int
	Currency string
	Balance  int64
	Owner    string
}

// acctChanged changes Balance's type.
type acctChanged struct {
	Owner   string
	Balance string
}

const evoGroups = 8

func evoKey(i int) (string, int) { k := fmt.Sprintf("k%d", i); return k, keyGroupOf(k, evoGroups) }

// writeV1 fills a backend with value, list and map state of acctV1 and
// returns the sections of all key groups.
func writeV1(t *testing.T, kind string) map[int][]byte {
	t.Helper()
	b := newTestBackend[string](t, kind, 0, evoGroups-1)
	defer b.Close()
	fillV1(t, b)
	return sections(t, b)
}

// fillV1 writes the acctV1 states of the keys in b's key groups.
func fillV1(t *testing.T, b *KeyedBackend[string]) {
	t.Helper()
	start, end := b.KeyGroupRange()
	for i := range 20 {
		k, kg := evoKey(i)
		if kg < start || kg > end {
			continue
		}
		b.SetCurrentKey(k, kg)
		v, _ := Value[string, acctV1](b, "acct")
		v.Update(acctV1{Owner: k, Balance: int64(i), Note: "x", Limits: []int{i}})
		l, _ := List[string, acctV1](b, "history")
		l.AddAll([]acctV1{{Owner: k, Balance: 1}, {Owner: k, Balance: 2, Note: "y"}})
		m, _ := Map[string, int, acctV1](b, "byDay")
		m.Put(i, acctV1{Owner: k, Balance: int64(10 * i)})
	}
	mustNoErr(t, b)
}

func sections(t *testing.T, b *KeyedBackend[string]) map[int][]byte {
	t.Helper()
	out := map[int][]byte{}
	s, e := b.KeyGroupRange()
	for kg := s; kg <= e; kg++ {
		sec, err := b.SnapshotKeyGroup(nil, kg)
		if err != nil {
			t.Fatal(err)
		}
		out[kg] = sec
	}
	return out
}

// restoreInto restores the sections a backend owns; register runs before
// (early) or after the restore.
func restoreAll(b *KeyedBackend[string], secs map[int][]byte) error {
	s, e := b.KeyGroupRange()
	for kg := s; kg <= e; kg++ {
		if err := b.RestoreKeyGroup(kg, secs[kg]); err != nil {
			return err
		}
	}
	return nil
}

func TestStateEvolvesAcrossSnapshot(t *testing.T) {
	for _, kind := range []string{"heap", "pebble"} {
		for _, early := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/register-early=%v", kind, early), func(t *testing.T) {
				secs := writeV1(t, kind)
				// Restore at parallelism 2, onto the other backend kind too.
				for _, r := range [][2]int{{0, 3}, {4, evoGroups - 1}} {
					b := newTestBackend[string](t, kind, r[0], r[1])
					defer b.Close()
					register := func() {
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
					if early {
						register()
					}
					if err := restoreAll(b, secs); err != nil {
						t.Fatal(err)
					}
					if !early {
						register()
					}
					checkV2(t, b)
				}
			})
		}
	}
}

func checkV2(t *testing.T, b *KeyedBackend[string]) {
	t.Helper()
	seen := 0
	for i := range 20 {
		k, kg := evoKey(i)
		if s, e := b.KeyGroupRange(); kg < s || kg > e {
			continue
		}
		seen++
		b.SetCurrentKey(k, kg)
		v, _ := Value[string, acctV2](b, "acct")
		got, ok := v.Value()
		want := acctV2{Owner: k, Balance: int64(i), Limits: []int{i}}
		if !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("acct %s = %+v, %v; want %+v", k, got, ok, want)
		}
		l, _ := List[string, acctV2](b, "history")
		if got, want := l.Get(), []acctV2{{Owner: k, Balance: 1}, {Owner: k, Balance: 2}}; !reflect.DeepEqual(got, want) {
			t.Fatalf("history %s = %+v; want %+v", k, got, want)
		}
		m, _ := Map[string, int, acctV2](b, "byDay")
		if got, want := maps.Collect(m.All()), map[int]acctV2{i: {Owner: k, Balance: int64(10 * i)}}; !reflect.DeepEqual(got, want) {
			t.Fatalf("byDay %s = %+v; want %+v", k, got, want)
		}
	}
	if seen == 0 {
		t.Fatal("no key in this backend's key groups")
	}
	mustNoErr(t, b)
}

// TestPendingStateKeepsSchema: a state restored but not registered is
// snapshotted again with its old schema, so a later job still evolves it.
func TestPendingStateKeepsSchema(t *testing.T) {
	secs := writeV1(t, "heap")
	mid := NewKeyedBackend[string](0, evoGroups-1)
	if err := restoreAll(mid, secs); err != nil {
		t.Fatal(err)
	}
	again := sections(t, mid)
	b := NewKeyedBackend[string](0, evoGroups-1)
	if err := restoreAll(b, again); err != nil {
		t.Fatal(err)
	}
	checkV2(t, b)
}

// TestSectionWithoutSchemasReadsPositionally: a section of format 1 (no
// schema entries) is read as before, into the same types.
func TestSectionWithoutSchemasReadsPositionally(t *testing.T) {
	secs := writeV1(t, "heap")
	for kg, sec := range secs {
		secs[kg] = stripSchemas(t, sec)
	}
	b := NewKeyedBackend[string](0, evoGroups-1)
	if err := restoreAll(b, secs); err != nil {
		t.Fatal(err)
	}
	k, kg := evoKey(3)
	b.SetCurrentKey(k, kg)
	v, _ := Value[string, acctV1](b, "acct")
	if got, _ := v.Value(); !reflect.DeepEqual(got, acctV1{Owner: k, Balance: 3, Note: "x", Limits: []int{3}}) {
		t.Fatalf("got %+v", got)
	}
	mustNoErr(t, b)
}

func stripSchemas(t *testing.T, sec []byte) []byte {
	t.Helper()
	n, rest, err := uvarint(sec)
	if err != nil {
		t.Fatal(err)
	}
	payloads := map[string][]byte{}
	for range n {
		var name, p []byte
		if name, rest, err = chunk(rest); err != nil {
			t.Fatal(err)
		}
		if p, rest, err = chunk(rest); err != nil {
			t.Fatal(err)
		}
		if _, ok := isSchemaEntry(string(name)); !ok {
			payloads[string(name)] = p
		}
	}
	if len(payloads) == int(n) {
		t.Fatal("section had no schema entries")
	}
	return appendPayloads(nil, payloads, nil, nil, 0)
}

func TestChangedFieldTypeIsRefused(t *testing.T) {
	for _, early := range []bool{true, false} {
		secs := writeV1(t, "heap")
		b := NewKeyedBackend[string](0, evoGroups-1)
		var err error
		if early {
			_, _ = Value[string, acctChanged](b, "acct")
			err = restoreAll(b, secs)
		} else {
			if err = restoreAll(b, secs); err == nil {
				_, err = Value[string, acctChanged](b, "acct")
			}
		}
		var se *codec.SchemaError
		if !errors.As(err, &se) || se.Field != "Balance" || !strings.Contains(err.Error(), `state "acct"`) ||
			!strings.Contains(err.Error(), "field Balance (value.Balance) changed type from int64 to string") {
			t.Fatalf("early=%v: err = %v", early, err)
		}
	}
}
