package main

import (
	"bufio"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// proc is a `weir` process started in the background whose stderr lines a
// test can await: with --verbose, "checkpoint completed" lines are the
// event stream to wait on instead of sleeping.
type proc struct {
	cmd   *exec.Cmd
	lines chan string // stderr, line by line; closed at EOF

	mu     sync.Mutex
	stderr strings.Builder // everything read from stderr so far
	done   chan struct{}   // closed when stderr hit EOF
}

// startWeir starts the weir binary with args.
func startWeir(t testing.TB, args ...string) *proc {
	t.Helper()
	return startWeirBin(t, weirBin, args...)
}

// startWeirBin starts the binary bin, a weir of other jobs, with args.
func startWeirBin(t testing.TB, bin string, args ...string) *proc {
	t.Helper()
	return startCmd(t, exec.Command(bin, args...))
}

// startCmd starts cmd, a weir process prepared by the caller.
func startCmd(t testing.TB, cmd *exec.Cmd) *proc {
	t.Helper()
	p := &proc{cmd: cmd, lines: make(chan string, 1024), done: make(chan struct{})}
	errPipe, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); <-p.done })
	go func() {
		defer close(p.done)
		defer close(p.lines)
		sc := bufio.NewScanner(errPipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.stderr.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			select {
			case p.lines <- sc.Text():
			default: // nobody waits on lines now; stderr keeps them
			}
		}
	}()
	return p
}

// checkpointDone matches the --verbose line of a completed checkpoint.
var checkpointDone = regexp.MustCompile(`^weir: checkpoint completed: .*kind=checkpoint location=(\S+)`)

// awaitCheckpoints waits until n more checkpoints completed and returns
// the last one's location, or "" if the process ended first.
func (p *proc) awaitCheckpoints(n int) string {
	var loc string
	for n > 0 {
		line, ok := <-p.lines
		if !ok {
			return ""
		}
		if m := checkpointDone.FindStringSubmatch(line); m != nil {
			loc, n = m[1], n-1
		}
	}
	return loc
}

// stderrSoFar is what the process wrote to stderr until now.
func (p *proc) stderrSoFar() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// wait waits for the process and returns its exit code and stderr.
func (p *proc) wait() (int, string) {
	<-p.done
	_ = p.cmd.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd.ProcessState.ExitCode(), p.stderr.String()
}
