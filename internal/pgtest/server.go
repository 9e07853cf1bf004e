package pgtest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// StopMode is how Stop shuts a server down (pg_ctl's -m).
type StopMode string

// The shutdown modes of pg_ctl.
const (
	// Smart waits for clients to disconnect.
	Smart StopMode = "smart"
	// Fast disconnects clients, rolls back their open transactions and
	// writes a shutdown checkpoint.
	Fast StopMode = "fast"
	// Immediate quits at once; the next start runs crash recovery.
	Immediate StopMode = "immediate"
)

// Server is a private PostgreSQL server. Its methods are not safe for
// concurrent use.
type Server struct {
	// DSN connects to the database postgres as the superuser postgres.
	DSN string
	// Dir holds the data directory (Dir/data), the server's log
	// (Dir/server.log) and its Unix socket.
	Dir string
	// Port is the TCP port on 127.0.0.1; it stays the same across restarts.
	Port int

	bin   string
	owner owner
}

// Start starts a server for the test and removes it when the test ends.
// It fails the test when PostgreSQL is not installed.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// New starts a server; the caller must Close it. It suits a TestMain that
// shares one server across a package's tests.
func New() (*Server, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	o, err := currentOwner()
	if err != nil {
		return nil, err
	}
	base := baseDir()
	sweep(base, bin, o)
	tmpl, err := template(bin, o, base)
	if err != nil {
		return nil, err
	}
	dir, err := o.mkdir(base, "weir-pgtest-srv-")
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, bin: bin, owner: o}
	if err := copyDir(tmpl, s.dataDir()); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// A free port may be taken by someone else before the server binds
	// it: try a few.
	for attempt := 0; ; attempt++ {
		if s.Port, err = freePort(); err == nil {
			s.DSN = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.Port)
			// The owner file lets a later New clean up after a test
			// process that died without closing its servers.
			owner := fmt.Sprintf("%d %d", os.Getpid(), s.Port)
			if err = os.WriteFile(filepath.Join(dir, "owner"), []byte(owner), 0o644); err != nil {
				os.RemoveAll(dir)
				return nil, fmt.Errorf("pgtest: %w", err)
			}
			if err = s.Start(); err == nil {
				return s, nil
			}
		}
		if attempt == 2 || !strings.Contains(s.log(), "could not bind") {
			os.RemoveAll(dir)
			return nil, err
		}
	}
}

func (s *Server) dataDir() string { return filepath.Join(s.Dir, "data") }
func (s *Server) logFile() string { return filepath.Join(s.Dir, "server.log") }
func (s *Server) pgctl() string   { return filepath.Join(s.bin, "pg_ctl") }

// Start starts the server again after Stop or Kill, keeping its data and
// its port.
func (s *Server) Start() error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_prepared_transactions=64", s.Port, s.Dir)
	err := s.owner.run(s.pgctl(), "-D", s.dataDir(), "-l", s.logFile(), "-w", "-t", "60", "-o", opts, "start")
	if err != nil {
		return fmt.Errorf("%w\nserver.log:\n%s", err, s.log())
	}
	return nil
}

// Stop shuts the server down in the given mode; a stopped server is left
// as it is.
func (s *Server) Stop(mode StopMode) error {
	switch mode {
	case Smart, Fast, Immediate:
	default:
		return fmt.Errorf("pgtest: unknown stop mode %q", mode)
	}
	if pid, err := postmasterPID(s.dataDir()); err != nil || pid == 0 {
		return err
	}
	return s.owner.run(s.pgctl(), "-D", s.dataDir(), "-m", string(mode), "-w", "-t", "60", "stop")
}

// Kill ends every process of the server with SIGKILL, as if its machine
// had died: clients see their connections break, nothing is flushed, and
// the next Start runs crash recovery. A stopped server is left as it is.
func (s *Server) Kill() error {
	pid, err := postmasterPID(s.dataDir())
	if err != nil || pid == 0 {
		return err
	}
	if err := killTree(pid); err != nil {
		return err
	}
	if _, _, exists := procStat(pid); !exists {
		// The lock files stay: the next postmaster sees their pid is gone,
		// and reads in them where the dead server's shared memory is, to
		// free it.
		return nil
	}
	// A zombie postmaster, not yet reaped, would look alive to the next
	// postmaster's check of these lock files: remove them, as an operator
	// would after a crash.
	sock := filepath.Join(s.Dir, fmt.Sprintf(".s.PGSQL.%d", s.Port))
	var errs []error
	for _, f := range []string{filepath.Join(s.dataDir(), "postmaster.pid"), sock + ".lock"} {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			errs = append(errs, fmt.Errorf("pgtest: %w", err))
		}
	}
	return errors.Join(errs...)
}

// Close shuts the server down and removes its directory. It may be called
// more than once.
func (s *Server) Close() error {
	if _, err := os.Stat(s.Dir); os.IsNotExist(err) {
		return nil
	}
	err := s.shutdown()
	if rmErr := os.RemoveAll(s.Dir); rmErr != nil {
		err = errors.Join(err, fmt.Errorf("pgtest: %w", rmErr))
	}
	return err
}

// shutdown ends the server so that it leaves no shared memory behind (a
// killed server leaves segments that only its next start frees).
func (s *Server) shutdown() error {
	pid, err := postmasterPID(s.dataDir())
	if err != nil || pid == 0 {
		return err
	}
	if !alive(pid) { // killed: let a start free what it left
		if err := s.Start(); err != nil {
			return errors.Join(err, s.Kill())
		}
	}
	if err := s.Stop(Immediate); err != nil {
		return errors.Join(err, s.Kill())
	}
	return nil
}

// log returns the end of the server's log, for error messages.
func (s *Server) log() string {
	b, _ := os.ReadFile(s.logFile())
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// sweep stops and removes the servers of test processes that died without
// closing them.
func sweep(base, bin string, o owner) {
	dirs, _ := filepath.Glob(filepath.Join(base, "weir-pgtest-srv-*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, "owner"))
		if err != nil {
			continue // being set up, or not ours
		}
		var pid, port int
		if _, err := fmt.Sscan(string(b), &pid, &port); err != nil || alive(pid) {
			continue
		}
		s := &Server{Dir: dir, Port: port, bin: bin, owner: o}
		_ = s.Close()
	}
}
