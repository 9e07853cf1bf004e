package graph

import "testing"

func TestSubstituteCopiesOnlyWhatLeadsToAReplacement(t *testing.T) {
	src := &Transformation{ID: 1, Kind: KindSource, Name: "src"}
	expensive := &Transformation{ID: 2, Kind: KindOperator, Name: "expensive", Inputs: []*Transformation{src}}
	cached := &Transformation{ID: 3, Kind: KindOperator, Name: "cache", Inputs: []*Transformation{expensive}}
	other := &Transformation{ID: 4, Kind: KindSource, Name: "other"}
	join := &Transformation{ID: 5, Kind: KindOperator, Name: "join", Inputs: []*Transformation{other, cached}, TwoInput: true}
	sink := &Transformation{ID: 6, Kind: KindOperator, Name: "sink", Inputs: []*Transformation{join}}
	reader := &Transformation{ID: 3, Kind: KindSource, Name: "cache source"}

	asked := map[string]int{}
	out := Substitute([]*Transformation{sink, sink}, func(t *Transformation) (*Transformation, bool) {
		asked[t.Name]++
		if t == cached {
			return reader, false
		}
		return t, true
	})
	if out[0] != out[1] {
		t.Fatal("the same sink was copied twice")
	}
	if out[0] == sink || out[0].ID != sink.ID || out[0].Inputs[0] == join {
		t.Fatal("the path to the replacement was not copied")
	}
	j := out[0].Inputs[0]
	if j.Inputs[0] != other || j.Inputs[1] != reader || !j.TwoInput {
		t.Fatalf("copied join has inputs %v, %v", j.Inputs[0], j.Inputs[1])
	}
	if join.Inputs[1] != cached || sink.Inputs[0] != join {
		t.Fatal("the program's transformations were modified")
	}
	if asked["expensive"] != 0 || asked["src"] != 0 {
		t.Fatalf("walked upstream of the replacement: %v", asked)
	}
	for _, n := range []string{"sink", "join", "other", "cache"} {
		if asked[n] != 1 {
			t.Fatalf("asked about %s %d times, want once", n, asked[n])
		}
	}
	ts := Upstream(out[:1])
	if len(ts) != 4 {
		t.Fatalf("upstream of the substituted sink: %v", ts)
	}
}

func TestSubstituteKeepsAnUnchangedGraph(t *testing.T) {
	src := &Transformation{ID: 1, Kind: KindSource}
	sink := &Transformation{ID: 2, Kind: KindOperator, Inputs: []*Transformation{src}}
	out := Substitute([]*Transformation{sink}, func(t *Transformation) (*Transformation, bool) { return t, true })
	if out[0] != sink {
		t.Fatal("an unchanged graph was copied")
	}
}
