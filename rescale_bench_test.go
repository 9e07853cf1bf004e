package weir_test

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/minicluster"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
	"github.com/weir-engine/weir/jobs/sequence"
)

// rescaleSizes are the keyed state sizes BenchmarkRescaleDowntime runs:
// 10MB by default, -rescale.sizes=10MB,1GB for the large case.
var rescaleSizes = flag.String("rescale.sizes", "10MB", "comma-separated keyed state sizes of BenchmarkRescaleDowntime (10MB, 100MB, 1GB)")

// rescaleValueSize is the bytes of keyed state per key: a size of state is
// that many keys.
const rescaleValueSize = 16 << 10

// rescaleWait bounds each wait of the benchmark (a checkpoint of 1 GB on
// a loaded machine takes a while).
const rescaleWait = 5 * time.Minute

// BenchmarkRescaleDowntime measures what a rescale costs a running keyed
// job on the session mini-cluster in reactive mode: the wall time from
// the last record the keyed operator processed in the generation before
// the rescale to the first one it processed in the generation after
// (downtime-ms, the median of b.N rescales; max-ms the slowest). Up: a
// third TaskManager joins a job running on two (a rescale right after a
// checkpoint the scheduler triggers). Down: one of three TaskManagers is
// removed (a restart at the lower parallelism from the latest completed
// checkpoint, as Flink's reactive mode does on a TaskManager loss). The
// keyed state is of the given size in incompressible 16 KiB values, heap
// or Pebble (incremental checkpoints, local recovery on). Each iteration
// builds its cluster and fills the state outside the timer.
//
//	go test -run '^$' -bench RescaleDowntime -benchtime 5x .
//	go test -run '^$' -bench RescaleDowntime -benchtime 3x . -rescale.sizes 1GB
func BenchmarkRescaleDowntime(b *testing.B) {
	for _, size := range strings.Split(*rescaleSizes, ",") {
		bytes, err := parseSize(size)
		if err != nil {
			b.Fatal(err)
		}
		for _, backend := range []string{"heap", "pebble"} {
			for _, dir := range []string{"up", "down"} {
				b.Run(size+"/"+backend+"/"+dir, func(b *testing.B) {
					var gaps []time.Duration
					for range b.N {
						gaps = append(gaps, rescaleDowntime(b, bytes, backend == "pebble", dir == "up"))
					}
					slices.Sort(gaps)
					b.ReportMetric(float64(gaps[len(gaps)/2].Microseconds())/1000, "downtime-ms")
					b.ReportMetric(float64(gaps[len(gaps)-1].Microseconds())/1000, "max-ms")
					b.ReportMetric(0, "ns/op")
				})
			}
		}
	}
}

// parseSize reads 10MB, 1GB and the like.
func parseSize(s string) (int64, error) {
	var n int64
	var unit string
	if _, err := fmt.Sscanf(strings.TrimSpace(s), "%d%s", &n, &unit); err != nil {
		return 0, fmt.Errorf("state size %q: %w", s, err)
	}
	switch strings.ToUpper(unit) {
	case "KB":
		return n << 10, nil
	case "MB":
		return n << 20, nil
	case "GB":
		return n << 30, nil
	}
	return 0, fmt.Errorf("state size %q: unit %q is none of KB, MB, GB", s, unit)
}

// rescaleDowntime runs one rescale of a job with keyed state of size
// bytes and returns its downtime.
func rescaleDowntime(b *testing.B, size int64, pebble, up bool) time.Duration {
	b.StopTimer()
	keys := int(size / rescaleValueSize)
	rec := newGenerationRecorder()
	env := weir.NewEnv(weir.WithParallelism(2))
	in := sequence.Source(env, "k", keys, 1<<40, 20000).UID("source")
	filled := weir.Process(weir.KeyBy(in, func(r sequence.Record) string { return r.Key }), &fillState{rec: rec}).
		Name("fill").UID("fill")
	weir.AddSink(filled, func(int) error { return nil }).Name("drop").UID("drop")
	jg, err := weir.JobGraphOf(env)
	if err != nil {
		b.Fatal(err)
	}

	from := 2
	if !up {
		from = 3
	}
	co := minicluster.ClusterOptions{TaskManagers: from, Slots: 1}
	var sb *op.StateBackend
	if pebble {
		// Local recovery is the TaskManagers' setting, the backend the
		// job's.
		co.Task.StateBackend = op.StateBackend{Pebble: true, LocalRecovery: true, LocalDir: b.TempDir()}
		sb = &op.StateBackend{Pebble: true, Incremental: true}
	}
	c, err := minicluster.NewCluster(co)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	// Checkpoints as often as a full one of this size takes to write.
	interval := max(200*time.Millisecond, time.Duration(size/(50<<20))*time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	job := c.Submit(ctx, "rescale", jg, minicluster.JobOptions{
		Scheduler:    jobmaster.SchedulerAdaptive,
		Adaptive:     adaptive.Options{Mode: adaptive.Reactive},
		Restart:      &scheduler.FixedDelay{Attempts: 3},
		Checkpoints:  checkpointsIn(b, interval),
		StateBackend: sb,
	})
	st := awaitStatusWithin(b, rescaleWait, job, fmt.Sprintf("running at %d", from), func(st jobmaster.Status) bool { return executingAt(st, jg, from) })
	gen := st.Generation
	// Every key holds its value, and a checkpoint completed after that.
	rec.awaitFilled(b, keys)
	st = awaitStatusWithin(b, rescaleWait, job, "a checkpoint of the full state", func(s jobmaster.Status) bool {
		return s.Checkpoints.Completed > st.Checkpoints.Completed+1
	})

	b.StartTimer()
	to := from + 1
	if up {
		if _, err := c.AddTaskManager(0); err != nil {
			b.Fatal(err)
		}
	} else {
		to = from - 1
		if err := c.RemoveTaskManager("tm-0"); err != nil {
			b.Fatal(err)
		}
	}
	st = awaitStatusWithin(b, rescaleWait, job, fmt.Sprintf("rescaled to %d", to), func(st jobmaster.Status) bool { return st.Generation > gen && executingAt(st, jg, to) })
	gap := rec.gap(b, gen, st.Generation)
	b.StopTimer()
	cancel()
	if res := job.Wait(); res.Status != scheduler.Canceled {
		b.Fatalf("job ended %s (%v), want CANCELED", res.Status, res.Err)
	}
	b.Logf("%s state, %d -> %d: downtime %v", formatBytes(size), from, to, gap)
	return gap
}

func formatBytes(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%d GiB", n>>30)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// fillState gives each key a value of rescaleValueSize incompressible
// bytes on its first record, and records when each record was processed.
type fillState struct {
	rec        *generationRecorder
	generation int
	value      weir.ValueState[[]byte]
}

func (f *fillState) Open(rc *weir.KeyedRuntimeContext[string]) error {
	f.generation = rc.Attempt
	v, err := weir.GetValueState[[]byte](rc, "value")
	f.value = v
	return err
}

func (f *fillState) ProcessElement(ctx *weir.KeyedContext[string, int], r sequence.Record) error {
	f.rec.processed(f.generation)
	if _, ok := f.value.Value(); ok {
		return nil
	}
	h := fnv.New64a()
	h.Write([]byte(r.Key))
	v := make([]byte, rescaleValueSize)
	rng := rand.NewChaCha8([32]byte{0: byte(h.Sum64()), 1: byte(h.Sum64() >> 8), 2: byte(h.Sum64() >> 16)})
	_, _ = rng.Read(v)
	f.value.Update(v)
	f.rec.filled()
	return nil
}

// generationRecorder records, per generation, when the first and the last
// record were processed, and how many keys were filled.
type generationRecorder struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced at each first record or fill
	spans   map[int]*span
	keys    int
}

type span struct{ first, last time.Time }

func newGenerationRecorder() *generationRecorder {
	return &generationRecorder{changed: make(chan struct{}), spans: make(map[int]*span)}
}

func (r *generationRecorder) processed(generation int) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.spans[generation]
	if s == nil {
		s = &span{first: now}
		r.spans[generation] = s
		r.notify()
	}
	s.last = now
}

func (r *generationRecorder) filled() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys++
	r.notify()
}

func (r *generationRecorder) notify() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// await waits until cond holds (under the lock), for 5 minutes at most.
func (r *generationRecorder) await(b testing.TB, what string, cond func() bool) {
	b.Helper()
	timeout := time.After(rescaleWait)
	for {
		r.mu.Lock()
		ok, changed := cond(), r.changed
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-timeout:
			b.Fatalf("never %s", what)
		}
	}
}

func (r *generationRecorder) awaitFilled(b testing.TB, keys int) {
	r.await(b, fmt.Sprintf("filled %d keys", keys), func() bool { return r.keys >= keys })
}

// gap waits for the first record of generation after and returns the
// time from the last record of generation before to it.
func (r *generationRecorder) gap(b testing.TB, before, after int) time.Duration {
	r.await(b, fmt.Sprintf("processed a record in generation %d", after), func() bool { return r.spans[after] != nil })
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.spans[before]
	if old == nil {
		b.Fatalf("no record processed in generation %d", before)
	}
	return r.spans[after].first.Sub(old.last)
}
