package pgtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// postmasterPID reads the pid of a running server from its data directory;
// 0 if the lock file is absent.
func postmasterPID(dataDir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("pgtest: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("pgtest: bad postmaster.pid in %s: %q", dataDir, line)
	}
	return pid, nil
}

// procStat returns the state letter and parent pid of a process; ok is
// false when the process does not exist.
func procStat(pid int) (state byte, ppid int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	// pid (comm) state ppid ...; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	return f[0][0], ppid, true
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	state, _, ok := procStat(pid)
	return ok && state != 'Z' && state != 'X'
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		c, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if _, ppid, ok := procStat(c); ok && ppid == pid {
			out = append(out, c)
		}
	}
	return out
}

// killTree SIGKILLs a postmaster and all its backends, as a crash of the
// machine would end them, and waits until they are gone. The postmaster is
// stopped first so that it cannot fork while its children are listed.
func killTree(pid int) error {
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		if err == syscall.ESRCH {
			return nil
		}
		return fmt.Errorf("pgtest: stop postmaster %d: %w", pid, err)
	}
	victims := append(children(pid), pid)
	for _, p := range victims {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range victims {
		for alive(p) {
			if time.Now().After(deadline) {
				return fmt.Errorf("pgtest: server process %d survived SIGKILL", p)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return nil
}
