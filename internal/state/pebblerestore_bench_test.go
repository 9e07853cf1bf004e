package state_test

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/state"
)

var rescaleMB = flag.Int("rescale.mb", 100, "MB of keyed Pebble state BenchmarkPebbleRescale restores (10 with -short)")

// BenchmarkPebbleRescale measures restoring Pebble state of -rescale.mb
// MB (values of 100 bytes) from the captures of the old subtasks at
// another parallelism, as the new subtasks of a rescale do after
// downloading the old databases: "replay" puts every owned entry of every
// old database into an empty one (CopyFromPebble, the old way), "clip"
// opens the most-overlapping old database in place, range-deletes what
// it does not own and ingests the others' spans as SST files
// (RestorePebble). One op restores every new subtask, one after another;
// max-ms is the slowest subtask's restore, what a rescale waits for when
// the subtasks restore at once on their TaskManagers.
//
//	go test -run '^$' -bench PebbleRescale -benchtime 3x ./internal/state/
func BenchmarkPebbleRescale(b *testing.B) {
	mb := *rescaleMB
	if testing.Short() {
		mb = min(mb, 10)
	}
	const valueLen = 100
	keys := mb << 20 / valueLen
	for _, sc := range []struct{ from, to int }{{2, 4}, {4, 2}} {
		old := backendsWith(sc.from, func(start, end int) *state.KeyedBackend[string] {
			bk, err := state.OpenPebble[string](start, end, b.TempDir(), nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = bk.Close() })
			return bk
		})
		value := strings.Repeat("v", valueLen)
		for i := 0; i < keys; i++ {
			k := fmt.Sprint("key-", i)
			bk := owner(old, kgOf(k))
			bk.SetCurrentKey(k, kgOf(k))
			v, _ := state.Value[string, string](bk, "v")
			v.Update(value)
		}
		caps := capturePebble(b, old)
		for _, way := range []string{"replay", "clip"} {
			b.Run(fmt.Sprintf("%d->%d/%dMB/%s", sc.from, sc.to, mb, way), func(b *testing.B) {
				var slowest time.Duration
				for b.Loop() {
					b.StopTimer()
					type job struct {
						start, end int
						dir        string
						srcs       []state.PebbleSource
					}
					var jobs []job
					for i := 0; i < sc.to; i++ {
						r := keygroup.RangeFor(maxP, sc.to, i)
						j := job{start: r.Start, end: r.End, dir: b.TempDir()}
						for n, c := range caps {
							if c.KeyGroupEnd < r.Start || c.KeyGroupStart > r.End {
								continue
							}
							c.Dir = filepath.Join(j.dir, fmt.Sprint("restore-", n))
							linkDir(b, caps[n].Dir, c.Dir)
							j.srcs = append(j.srcs, c)
						}
						jobs = append(jobs, j)
					}
					var restored []*state.KeyedBackend[string]
					b.StartTimer()
					for _, j := range jobs {
						t0 := time.Now()
						db := filepath.Join(j.dir, "db")
						var nb *state.KeyedBackend[string]
						var err error
						if way == "replay" {
							if nb, err = state.OpenPebble[string](j.start, j.end, db, nil); err == nil {
								for _, s := range j.srcs {
									if err = nb.CopyFromPebble(s.Dir); err != nil {
										break
									}
								}
							}
						} else {
							nb, err = state.RestorePebble[string](j.start, j.end, db, j.srcs, nil)
						}
						if err != nil {
							b.Fatal(err)
						}
						slowest = max(slowest, time.Since(t0))
						restored = append(restored, nb)
					}
					b.StopTimer()
					for _, nb := range restored {
						if err := nb.Close(); err != nil {
							b.Fatal(err)
						}
					}
					b.StartTimer()
				}
				b.ReportMetric(float64(slowest.Milliseconds()), "max-ms")
			})
		}
	}
}
