package state

import (
	"bytes"
	"maps"
	"testing"

	"pgregory.net/rapid"

	"github.com/weir-engine/weir/internal/codec"
)

// TestMapCellMatchesMap checks a mapCell against a Go map through puts and
// removes that take it past smallMapMax entries and back, and that its
// encoding decodes, with the codec of map[UK]UV, to the same map.
func TestMapCellMatchesMap(t *testing.T) {
	mc, err := codec.For[map[int16]string]()
	if err != nil {
		t.Fatal(err)
	}
	kc, _ := codec.For[int16]()
	vc, _ := codec.For[string]()
	rapid.Check(t, func(t *rapid.T) {
		c, ref := &mapCell[int16, string]{}, map[int16]string{}
		ukGen := rapid.Int16Range(0, 2*smallMapMax)
		t.Repeat(map[string]func(*rapid.T){
			"put": func(t *rapid.T) {
				uk, uv := ukGen.Draw(t, "uk"), rapid.StringN(0, 3, -1).Draw(t, "uv")
				c.put(uk, uv)
				ref[uk] = uv
			},
			"del": func(t *rapid.T) {
				uk := ukGen.Draw(t, "uk")
				c.del(uk)
				delete(ref, uk)
			},
			"": func(t *rapid.T) {
				if c.len() != len(ref) {
					t.Fatalf("len = %d, want %d", c.len(), len(ref))
				}
				for uk := range int16(2*smallMapMax + 1) {
					got, ok := c.get(uk)
					want, wok := ref[uk]
					if got != want || ok != wok {
						t.Fatalf("get(%d) = %q, %v, want %q, %v", uk, got, ok, want, wok)
					}
				}
				enc := c.appendTo(nil, kc, vc)
				dec, n, err := mc.Decode(enc)
				if err != nil || n != len(enc) || !maps.Equal(dec, ref) {
					t.Fatalf("decoded %v (%d of %d bytes, %v), want %v", dec, n, len(enc), err, ref)
				}
				if len(ref) == 1 {
					// One entry: a single order, so the bytes equal.
					if want := mc.Append(nil, ref); !bytes.Equal(enc, want) {
						t.Fatalf("encoding %x, the map codec's %x", enc, want)
					}
				}
			},
		})
	})
}

// TestMapCellCloneSharesNothing checks that writing to a clone, small or
// past smallMapMax, leaves the original as it was.
func TestMapCellCloneSharesNothing(t *testing.T) {
	for _, n := range []int{1, smallMapMax, smallMapMax + 1} {
		c := &mapCell[int, int]{}
		for i := range n {
			c.put(i, i)
		}
		d := c.clone(1)
		for i := range n {
			d.put(i, -1)
		}
		d.del(0)
		for i := range n {
			if v, ok := c.get(i); !ok || v != i {
				t.Fatalf("%d entries: original get(%d) = %d, %v after writes to its clone", n, i, v, ok)
			}
		}
	}
}
