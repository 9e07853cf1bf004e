package main

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// A parallelism whose channels cannot fit the network memory is refused at
// submission with what to change, instead of growing until the kernel
// kills the process (before the network memory was bounded, this command
// passed 4 GB of memory in 11 s).
func TestParallelismBeyondNetworkMemoryFailsFast(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"default network memory", []string{"--parallelism", "1024"},
			"weir: job failed: \"wordcount\": jobmaster: network: insufficient network buffers: the job needs 2,099,200 network buffers " +
				"(36 KiB each, 72.1 GiB) on TaskManager tm-0, one for each of its 1,049,600 input channels and 1,049,600 output subpartitions, " +
				"and tm-0 has 1 GiB (29,127 buffers): lower --parallelism or raise --network-memory (weir.WithNetworkMemory)\n"},
		{"configured network memory", []string{"--parallelism", "8", "--network-memory", "64KiB"},
			"the job needs 144 network buffers (36 KiB each, 5.06 MiB) on TaskManager tm-0, one for each of its 72 input channels " +
				"and 72 output subpartitions, and tm-0 has 64 KiB (1 buffer)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(weirBin, append([]string{"run", "wordcount", "--input", sample}, tt.args...)...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			var ee *exec.ExitError
			if err := cmd.Run(); !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("weir: %v, want exit status 1; stderr %q", err, errb.String())
			}
			if out.Len() != 0 || !strings.Contains(errb.String(), tt.want) {
				t.Fatalf("stdout %q, stderr %q; want no output and %q", out.String(), errb.String(), tt.want)
			}
			// Reported, not asserted: peak memory depends on the machine.
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				t.Logf("peak RSS %d MiB", ru.Maxrss>>10)
			}
		})
	}
}

func TestNetworkMemoryFlag(t *testing.T) {
	r := runWeir(t, "run", "wordcount", "--input", sample, "--network-memory", "lots")
	want := "weir: run: invalid value \"lots\" for --network-memory: want a size such as 64MiB, 512k or 1g\n"
	if r.code != 2 || r.stderr != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
	// A job that fits runs with a configured network memory.
	r = runWeir(t, "run", "wordcount", "--input", sample, "--parallelism", "2", "--network-memory", "1m", "--quiet")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if got, want := sortedLines(r.stdout), expectedLines(t); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stdout (%d lines) differs from %s (%d lines)", len(got), expected, len(want))
	}
}
