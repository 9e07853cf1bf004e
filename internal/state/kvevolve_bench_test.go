package state

import (
	"flag"
	"fmt"
	"path/filepath"
	"testing"
)

var migrateEntries = flag.Int("migrate.entries", 200_000, "value-state entries BenchmarkPebbleMigrate restores (20000 with -short)")

// BenchmarkPebbleMigrate measures registering a state restored from a
// Pebble capture of -migrate.entries acctV1 values over 128 key groups:
// "same" registers acctV1 (the schemas are compared, one point read per
// key group), "evolved" registers acctV2, which rewrites every entry
// (migrateKV). One op opens a private copy of the capture and registers.
//
//	go test -run '^$' -bench PebbleMigrate -benchtime 5x ./internal/state/
func BenchmarkPebbleMigrate(b *testing.B) {
	n := *migrateEntries
	if testing.Short() {
		n = min(n, 20_000)
	}
	const groups = 128
	src := newTestBackend[string](b, "pebble", 0, groups-1)
	v, _ := Value[string, acctV1](src, "acct")
	for i := range n {
		k := fmt.Sprint("key-", i)
		src.SetCurrentKey(k, keyGroupOf(k, groups))
		v.Update(acctV1{Owner: k, Balance: int64(i), Note: "note", Limits: []int{i, i}})
	}
	cp := filepath.Join(b.TempDir(), "cp")
	if _, err := src.Capture(cp); err != nil {
		b.Fatal(err)
	}
	if err := src.Close(); err != nil {
		b.Fatal(err)
	}
	for _, way := range []string{"same", "evolved"} {
		b.Run(fmt.Sprintf("%d/%s", n, way), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				dir := filepath.Join(b.TempDir(), "db")
				linkDir(b, cp, dir)
				bk, err := OpenPebble[string](0, groups-1, dir, nil)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if way == "same" {
					_, err = Value[string, acctV1](bk, "acct")
				} else {
					_, err = Value[string, acctV2](bk, "acct")
				}
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				if err := bk.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}
