package task_test

import (
	"encoding/binary"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/task"
)

func TestLoadBetween(t *testing.T) {
	at := time.Unix(100, 0)
	for _, tc := range []struct {
		name      string
		prev, cur task.MetricsSample
		want      task.Load
	}{
		{"busy", task.MetricsSample{At: at}, task.MetricsSample{At: at.Add(2 * time.Second), RecordsIn: 100, RecordsOut: 50},
			task.Load{BusyTimeMsPerSecond: 1000, RecordsInPerSecond: 50, RecordsOutPerSecond: 25}},
		{"idle and back-pressured", task.MetricsSample{At: at, Idle: time.Second, BackPressured: time.Second},
			task.MetricsSample{At: at.Add(time.Second), Idle: time.Second + 250*time.Millisecond, BackPressured: time.Second + 500*time.Millisecond},
			task.Load{BusyTimeMsPerSecond: 250, IdleTimeMsPerSecond: 250, BackPressuredTimeMsPerSecond: 500}},
		{"no time between", task.MetricsSample{At: at}, task.MetricsSample{At: at, RecordsIn: 5}, task.Load{}},
		{"another attempt", task.MetricsSample{At: at, Idle: time.Second}, task.MetricsSample{At: at.Add(time.Second)}, task.Load{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := task.LoadBetween(tc.prev, tc.cur); got != tc.want {
				t.Fatalf("LoadBetween = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// A source whose output has no credit waits back-pressured, never idle,
// and the wait shows while it lasts.
func TestBackPressuredSourceMeasuresBackPressure(t *testing.T) {
	var polls atomic.Int64
	polled := make(chan struct{}, network.DefaultBacklog+1)
	jg := pipeline(t, func(out any) (any, error) {
		return &bigSource{out: out.(op.Output[string]), polls: &polls, polled: polled}, nil
	}, notRun)
	tk := start(t, task.Descriptor{JobID: "j", Graph: jg, Vertex: jg.Vertices[0], Network: network.NewRegistry()})
	for range network.DefaultBacklog {
		<-polled
	}
	first := tk.Metrics.Sample()
	for s := first; s.BackPressured <= first.BackPressured; s = tk.Metrics.Sample() {
		runtime.Gosched()
		if s.Idle != 0 {
			t.Fatalf("a back-pressured source was idle for %v", s.Idle)
		}
	}
	if s := tk.Metrics.Sample(); s.Idle != 0 || s.RecordsOut != network.DefaultBacklog || s.InputWatermark != op.MinWatermark {
		t.Fatalf("sample %+v: want no idle time, %d records out, no input watermark", s, network.DefaultBacklog)
	}
}

// A task waiting for input is idle, not back-pressured, and its input
// watermark is the one its channel delivered.
func TestWaitingSinkIsIdle(t *testing.T) {
	tokens, stop := make(chan struct{}), make(chan struct{})
	got := make(chan string)
	jg := pipeline(t, notRun, func(any) (any, error) { return &gatedSink{tokens: tokens, stop: stop, got: got}, nil })
	net := network.NewRegistry()
	producer, err := network.NewResultPartition(network.PartitionID{Job: "j", Vertex: jg.Vertices[0].ID},
		network.PartitionOptions{Subpartitions: 1, Backlog: network.DefaultBacklog})
	if err != nil {
		t.Fatal(err)
	}
	if err := net.RegisterPartition(producer); err != nil {
		t.Fatal(err)
	}
	tk := start(t, task.Descriptor{JobID: "j", Graph: jg, Vertex: jg.Vertices[1], Network: net})
	t.Cleanup(func() { close(stop) })
	buf := binary.LittleEndian.AppendUint64(append(frame(t, "r1"), network.TagWatermark), 42)
	buf = append(buf, frame(t, "r2")...)
	if _, err := producer.Subpartition(0).Add(network.Item{Buf: buf}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"r1", "r2"} {
		if v := <-got; v != want {
			t.Fatalf("record %q, want %q", v, want)
		}
		tokens <- struct{}{}
	}
	first := tk.Metrics.Sample()
	if first.InputWatermark != 42 {
		t.Fatalf("input watermark %d, want 42", first.InputWatermark)
	}
	for s := first; s.Idle <= first.Idle; s = tk.Metrics.Sample() {
		runtime.Gosched()
		if s.BackPressured != 0 {
			t.Fatalf("a sink without input was back-pressured for %v", s.BackPressured)
		}
	}
}
