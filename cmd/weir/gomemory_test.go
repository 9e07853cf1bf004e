package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// environWithout is the test's environment without the variables named.
func environWithout(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, n := range names {
			keep = keep && name != n
		}
		if keep {
			env = append(env, kv)
		}
	}
	return env
}

// `weir run` sets the Go runtime's GOGC and memory limit from
// --process-memory, else from the memory available to it, and leaves them
// to a GOGC or GOMEMLIMIT of the environment.
func TestRunDerivesGoRuntimeSettings(t *testing.T) {
	for _, c := range []struct {
		name string
		env  []string
		args []string
		want string // regexp of the --verbose line
	}{
		{"available memory", nil, nil,
			`weir: Go runtime: GOGC 200, memory limit [0-9.]+ [MGT]iB \(90% of [0-9.]+ [MGT]iB, the memory available to the process\)`},
		{"configured", nil, []string{"--process-memory", "2g"},
			`weir: Go runtime: GOGC 200, memory limit 1\.80 GiB \(90% of 2 GiB, the configured process memory\)`},
		{"GOGC in the environment", []string{"GOGC=150"}, []string{"--process-memory", "2g"},
			`weir: Go runtime settings left alone: GOGC=150 is set in the environment`},
		{"GOMEMLIMIT in the environment", []string{"GOMEMLIMIT=1GiB"}, nil,
			`weir: Go runtime settings left alone: GOMEMLIMIT=1GiB is set in the environment`},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"run", "wordcount", "--input", sample, "--output", filepath.Join(t.TempDir(), "out"), "--verbose"}, c.args...)
			cmd := exec.Command(weirBin, args...)
			cmd.Env = append(environWithout("GOGC", "GOMEMLIMIT"), c.env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("weir %q: %v\n%s", args, err, stderr.String())
			}
			if !regexp.MustCompile(`(?m)^` + c.want + `$`).MatchString(stderr.String()) {
				t.Errorf("stderr has no line matching %q:\n%s", c.want, stderr.String())
			}
		})
	}
}

// Bad sizes are refused before anything runs, with the flag or key named.
func TestProcessMemoryBadInput(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(conf, []byte("taskmanager.memory.process.size: lots\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"run, not a size", []string{"run", "wordcount", "--input", sample, "--process-memory", "lots"},
			"weir: run: invalid value \"lots\" for --process-memory: want a size such as 64MiB, 512k or 1g\n"},
		{"run, too small", []string{"run", "wordcount", "--input", sample, "--process-memory", "1m"},
			"weir: run: invalid value \"1m\" for --process-memory: 1 MiB is too small: want at least 64 MiB\n"},
		{"run, submitted", []string{"run", "wordcount", "--input", sample, "--process-memory", "1g", "--jobmanager", "127.0.0.1:1"},
			"weir: run: --process-memory configures the embedded mini-cluster: a cluster's JobManager and TaskManagers have their own\n"},
		{"taskmanager, too small", []string{"taskmanager", "--process-memory", "16MiB"},
			"weir: taskmanager: invalid value \"16MiB\" for --process-memory: 16 MiB is too small: want at least 64 MiB\n"},
		{"taskmanager, config", []string{"taskmanager", "--config", conf},
			"weir: config " + conf + ": taskmanager.memory.process.size: \"lots\": want a size such as 64MiB, 512k or 1g\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runWeir(t, c.args...)
			if r.code != 2 || !strings.HasSuffix(r.stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", r.code, r.stderr, c.want)
			}
		})
	}
}

// A TaskManager takes its process memory from Flink's key in its
// configuration file and says what it set before it registers.
func TestTaskManagerProcessMemoryFromConfig(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "tm.yaml")
	if err := os.WriteFile(conf, []byte("taskmanager.memory.process.size: 1536m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(weirBin, "taskmanager", "--config", conf, "--jobmanager", freeAddr(t), "--verbose")
	cmd.Env = environWithout("GOGC", "GOMEMLIMIT")
	p := startCmd(t, cmd)
	const want = "weir: Go runtime: GOGC 200, memory limit 1.35 GiB (90% of 1.50 GiB, the configured process memory)"
	deadline := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				t.Fatalf("taskmanager ended without %q:\n%s", want, p.stderrSoFar())
			}
			if line == want {
				return
			}
		case <-deadline:
			t.Fatalf("no %q in 30s:\n%s", want, p.stderrSoFar())
		}
	}
}
