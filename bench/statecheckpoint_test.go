package main_test

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// stateMB is the keyed state the checkpoint benchmark builds, in MB:
// WEIR_BENCH_STATE_MB, default 128 (the figure is for 1024).
func stateMB() int {
	if n, err := strconv.Atoi(os.Getenv("WEIR_BENCH_STATE_MB")); err == nil && n > 0 {
		return n
	}
	return 128
}

// entry is one key's state: a 1 KB incompressible payload.
type entry struct {
	Key     int64
	Payload string
}

const (
	payloadBytes = 1024
	hotKeys      = 1000
	updates      = 12000
)

// BenchmarkStateCheckpoint: a keyed job loads stateMB of state (one 1 KB
// value per key), then for about six seconds keeps updating 1,000 hot
// keys while checkpoints run every second. checkpoint-s, state-MB and
// uploaded-MB are those of the last checkpoint, taken when the job ended
// (FLIP-147's final checkpoint), when little state had changed since the
// one before; total-uploaded-MB is what all checkpoints of the job wrote.
// Whether the last incremental checkpoint is small depends on whether
// Pebble compacted in between (a compaction rewrites files); the total is
// the steadier figure. The heap backend and
// full Pebble checkpoints write all of the state each time; incremental
// Pebble checkpoints upload only the SST files written since the last
// completed checkpoint.
func BenchmarkStateCheckpoint(b *testing.B) {
	keys := int64(stateMB()) << 20 / payloadBytes
	for _, bc := range []struct {
		name    string
		backend weir.StateBackend
	}{
		{"heap", weir.StateBackend{}},
		{"pebble-full", weir.StateBackend{Kind: weir.Pebble}},
		{"pebble-incremental", weir.StateBackend{Kind: weir.Pebble, Incremental: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var dur, jobTime time.Duration
			var size, uploaded, total, checkpoints int64
			for range b.N {
				bc.backend.LocalDir = b.TempDir()
				env := weir.NewEnv(weir.WithParallelism(2), weir.WithStateBackend(bc.backend),
					weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Second, Dir: b.TempDir()}))
				src := weir.Generate(env, weir.Generator[entry]{Count: keys + updates, Fn: func(i int64) (entry, error) {
					k := i
					if i >= keys {
						k = i % hotKeys
						time.Sleep(time.Millisecond) // the update phase: a trickle
					}
					return entry{Key: k, Payload: payload(i)}, nil
				}}).UID("load")
				weir.AddSinkWith(latestEntries(src), weir.SinkFunction[entry](&entrySink{}))
				jobStart := time.Now()
				res, err := env.Execute(context.Background(), "state-checkpoint")
				if err != nil {
					b.Fatal(err)
				}
				jobTime += time.Since(jobStart)
				if res.Checkpoints.Completed < 2 {
					b.Fatalf("%d checkpoints completed", res.Checkpoints.Completed)
				}
				checkRestoredState(b, bc.backend, res.Checkpoints.Latest, keys)
				dur += res.Checkpoints.LatestDuration
				size += res.Checkpoints.LatestSize
				uploaded += res.Checkpoints.LatestUploaded
				total += res.Checkpoints.UploadedTotal
				checkpoints += int64(res.Checkpoints.Completed)
			}
			n := float64(b.N)
			b.ReportMetric(dur.Seconds()/n, "checkpoint-s")
			b.ReportMetric(float64(size)/n/(1<<20), "state-MB")
			b.ReportMetric(float64(uploaded)/n/(1<<20), "uploaded-MB")
			b.ReportMetric(float64(total)/n/(1<<20), "total-uploaded-MB")
			b.ReportMetric(float64(checkpoints)/n, "checkpoints")
			b.ReportMetric(jobTime.Seconds()/n, "job-s")
		})
	}
}

// payload returns 1 KB of pseudo-random letters for record i: Pebble's
// compression cannot shrink it much.
func payload(i int64) string {
	r := rand.New(rand.NewPCG(uint64(i), 7))
	buf := make([]byte, payloadBytes)
	for j := range buf {
		buf[j] = byte('a' + r.IntN(26))
	}
	return string(buf)
}

type entrySink struct{}

func (entrySink) Invoke(entry) error { return nil }

// latestEntries keeps each key's latest entry in keyed state (uid
// "latest"). A probe, an entry without a payload, leaves the state as it
// is and emits it, so a job restored from a checkpoint can read it back.
func latestEntries(src weir.DataStream[entry]) weir.DataStream[entry] {
	return weir.Reduce(weir.KeyBy(src, func(e entry) int64 { return e.Key }), func(old, e entry) (entry, error) {
		if e.Payload == "" {
			return old, nil
		}
		return e, nil
	}).UID("latest")
}

// probeStride spaces the cold keys checkRestoredState reads back.
const probeStride = 997

// checkRestoredState restores a job from the checkpoint at loc on the
// same backend and reads back the state of every hot key and of every
// probeStride-th key: each must hold the payload of its last update, or of
// its load when no update touched it. A key whose state was lost echoes
// the probe (an empty payload) and fails the check.
func checkRestoredState(b *testing.B, backend weir.StateBackend, loc string, keys int64) {
	b.Helper()
	var probes []int64
	for k := range keys {
		if k < hotKeys || k%probeStride == 0 {
			probes = append(probes, k)
		}
	}
	backend.LocalDir = b.TempDir()
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithStateBackend(backend), weir.WithRestoreFrom(loc, true))
	src := weir.Generate(env, weir.Generator[entry]{Count: int64(len(probes)), Fn: func(i int64) (entry, error) {
		return entry{Key: probes[i]}, nil
	}}).UID("probe")
	weir.AddSinkWith(latestEntries(src), weir.SinkFunction[entry](&restoredSink{keys: keys}))
	res, err := env.Execute(context.Background(), "state-checkpoint-restore")
	if err != nil {
		b.Fatalf("restore from %s: %v", loc, err)
	}
	if got, bad := res.Accumulators["probed"], res.Accumulators["wrong"]; got != int64(len(probes)) || bad != 0 {
		b.Fatalf("restored state: %d of %d probed keys read back, %d of them wrong", got, len(probes), bad)
	}
}

// lastWrite is the record number whose payload key k holds after the
// benchmark's keys+updates records: its last update, or its load.
func lastWrite(k, keys int64) int64 {
	if k >= hotKeys {
		return k
	}
	last := keys + updates - 1
	return last - ((last-k)%hotKeys+hotKeys)%hotKeys
}

// restoredSink checks each probed key's restored entry against lastWrite,
// counting the probes in "probed" and the mismatches in "wrong".
type restoredSink struct {
	keys          int64
	probed, wrong *weir.Counter
}

func (s *restoredSink) Open(rc *weir.RuntimeContext) error {
	s.probed, s.wrong = rc.Counter("probed"), rc.Counter("wrong")
	return nil
}

func (s *restoredSink) Invoke(e entry) error {
	s.probed.Add(1)
	if e.Payload != payload(lastWrite(e.Key, s.keys)) {
		s.wrong.Add(1)
	}
	return nil
}
