package typeinfo_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/typeinfo"
)

type rec struct {
	Key string
	N   int
}

// sink collects what a reader delivers.
type sink struct {
	got []rec
	ts  []int64
	wms []int64
}

func (s *sink) ProcessElement(ts int64, v rec) error {
	s.got, s.ts = append(s.got, v), append(s.ts, ts)
	return nil
}

// drain reads every buffer of every channel of g into one sink per channel.
func drain(t *testing.T, g *network.Gate, info typeinfo.Info) []*sink {
	t.Helper()
	sinks := make([]*sink, g.NumChannels())
	readers := make([]network.Reader, g.NumChannels())
	for i := range sinks {
		sinks[i] = &sink{}
		r, err := info.NewReader(sinks[i], func(err error) error { return err })
		if err != nil {
			t.Fatal(err)
		}
		readers[i] = r
	}
	for {
		it, ch, ok := g.Poll()
		if !ok {
			return sinks
		}
		if it.Event != nil {
			continue
		}
		onWatermark := func(wm int64) error { sinks[ch].wms = append(sinks[ch].wms, wm); return nil }
		onStatus := func(bool) error { t.Error("unexpected watermark status"); return nil }
		if _, err := readers[ch].Deliver(it.Buf, onWatermark, onStatus); err != nil {
			t.Fatal(err)
		}
		g.Recycle(ch, it.Buf)
	}
}

func TestWriterPartitioners(t *testing.T) {
	hash := func(r rec) uint32 { return uint32(len(r.Key)) * 2654435761 }
	tests := []struct {
		name  string
		p     graph.Partitioner
		check func(t *testing.T, sinks []*sink)
	}{
		{"rebalance", graph.Partitioner{Kind: graph.Rebalance}, func(t *testing.T, sinks []*sink) {
			for i, s := range sinks {
				if len(s.got) != 4 {
					t.Errorf("channel %d got %d records, want 4 (round-robin)", i, len(s.got))
				}
			}
		}},
		{"broadcast", graph.Partitioner{Kind: graph.Broadcast}, func(t *testing.T, sinks []*sink) {
			for i, s := range sinks {
				if len(s.got) != 12 {
					t.Errorf("channel %d got %d records, want all 12", i, len(s.got))
				}
			}
		}},
		{"hash", graph.Partitioner{Kind: graph.Hash, KeyHash: hash}, func(t *testing.T, sinks []*sink) {
			for i, s := range sinks {
				for _, r := range s.got {
					if want := keygroup.OperatorIndex(128, 3, keygroup.Of(hash(r), 128)); want != i {
						t.Errorf("%v went to channel %d, its key group belongs to %d", r, i, want)
					}
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := typeinfo.New[rec]()
			part, err := network.NewResultPartition(network.PartitionID{Job: "j"}, network.PartitionOptions{Subpartitions: 3, Backlog: 16})
			if err != nil {
				t.Fatal(err)
			}
			g := network.NewGate(3, 16)
			for i := 0; i < 3; i++ {
				network.ConnectLocal(part.Subpartition(i), g.Channel(i))
			}
			w, err := info.NewWriter(part, tt.p, 128, 0, 64)
			if err != nil {
				t.Fatal(err)
			}
			out := w.(op.Output[rec])
			for i := 0; i < 12; i++ {
				ts := op.NoTimestamp
				if i%2 == 0 {
					ts = int64(i * 1000)
				}
				if err := out.Collect(ts, rec{Key: strings.Repeat("k", i), N: i}); err != nil {
					t.Fatal(err)
				}
			}
			if err := out.EmitWatermark(42); err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			sinks := drain(t, g, info)
			total := 0
			for _, s := range sinks {
				total += len(s.got)
				for j, r := range s.got {
					want := op.NoTimestamp
					if r.N%2 == 0 {
						want = int64(r.N * 1000)
					}
					if s.ts[j] != want || r.Key != strings.Repeat("k", r.N) {
						t.Fatalf("record %v ts %d did not round-trip", r, s.ts[j])
					}
				}
				if !slices.Equal(s.wms, []int64{42}) {
					t.Errorf("watermarks = %v, want [42] on every channel", s.wms)
				}
			}
			if w.RecordsOut() != 12 {
				t.Errorf("RecordsOut = %d", w.RecordsOut())
			}
			tt.check(t, sinks)
		})
	}
}

type noCodec struct{ F func() }

func TestCheckEdgesNamesTheOperators(t *testing.T) {
	bad := typeinfo.New[noCodec]()
	if bad.Err() == nil {
		t.Fatal("a func field has a codec")
	}
	src := &graph.Transformation{ID: 1, Kind: graph.KindSource, Name: "src", Parallelism: 1, OutType: bad, Factory: func(any) (any, error) { return nil, nil }}
	sink := &graph.Transformation{ID: 2, Kind: graph.KindOperator, Name: "sink", Parallelism: 2, OutType: bad, Inputs: []*graph.Transformation{src}, Factory: func(any) (any, error) { return nil, nil }}
	sg, err := graph.Translate([]*graph.Transformation{src, sink}, graph.Config{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	err = typeinfo.CheckEdges(graph.BuildJobGraph(sg))
	if err == nil || !strings.Contains(err.Error(), "src") || !strings.Contains(err.Error(), "sink") {
		t.Fatalf("err = %v", err)
	}
	// Chained, the same type never crosses the network and is fine.
	sink.Parallelism = 1
	sg, _ = graph.Translate([]*graph.Transformation{src, sink}, graph.Config{Parallelism: 1})
	if err := typeinfo.CheckEdges(graph.BuildJobGraph(sg)); err != nil {
		t.Fatal(err)
	}
}
