package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// shuffleEvents is the events of one run of BenchmarkKeyByShuffle.
const shuffleEvents = 2_000_000

// BenchmarkKeyByShuffle runs Nexmark q0 at parallelism 2, whose every
// event crosses a keyBy, in one process (`weir run`, the embedded
// mini-cluster: the shuffle stays in memory) and on two TaskManager
// processes of one slot each (`weir run --jobmanager`: half the events
// cross the TCP data plane over loopback). It reports events/s of wall
// time, and the CPU time all the processes spent per event, which the
// load of a shared machine disturbs less.
//
//	go test ./cmd/weir -run xxx -bench KeyByShuffle -benchtime 3x
func BenchmarkKeyByShuffle(b *testing.B) {
	args := []string{"run", "nexmark", "--query", "q0", "--events", strconv.Itoa(shuffleEvents), "--parallelism", "2"}
	b.Run("one-process", func(b *testing.B) {
		var cpu time.Duration
		b.ResetTimer()
		for range b.N {
			p := startWeir(b, args...)
			code, stderr := p.wait()
			if code != 0 {
				b.Fatalf("exit %d: %s", code, stderr)
			}
			cpu += p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()
		}
		report(b, cpu)
	})
	b.Run("two-taskmanagers", func(b *testing.B) {
		c := startCluster(b, b.TempDir())
		procs := []*proc{c.jm, c.startTaskManager(b, "1"), c.startTaskManager(b, "1")}
		before := cpuOf(b, procs)
		var cpu time.Duration
		b.ResetTimer()
		for range b.N {
			p := startWeir(b, append(args, "--jobmanager", c.rest)...)
			code, stderr := p.wait()
			if code != 0 {
				b.Fatalf("exit %d: %s", code, stderr)
			}
			cpu += p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()
		}
		b.StopTimer()
		report(b, cpu+cpuOf(b, procs)-before)
	})
}

func report(b *testing.B, cpu time.Duration) {
	events := float64(shuffleEvents) * float64(b.N)
	b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/events, "cpu-ns/event")
	b.ReportMetric(0, "ns/op")
}

// cpuOf is the CPU time (user and system) the running processes spent
// so far, from /proc.
func cpuOf(b *testing.B, procs []*proc) time.Duration {
	var ticks int64
	for _, p := range procs {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
		if err != nil {
			b.Fatal(err)
		}
		// Fields after the command's ")": state is field 3, utime 14, stime 15.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		for _, i := range []int{11, 12} {
			n, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			ticks += n
		}
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}
