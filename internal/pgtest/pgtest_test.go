package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// psql runs one statement through the server's Unix socket with the
// server's own psql; pgtest itself has no client library.
func psql(t *testing.T, s *Server, sql string) (string, error) {
	t.Helper()
	cmd := exec.Command(filepath.Join(s.bin, "psql"), "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql, s.DSN)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func mustPsql(t *testing.T, s *Server, sql string) string {
	t.Helper()
	out, err := psql(t, s, sql)
	if err != nil {
		t.Fatalf("psql %q: %v: %s", sql, err, out)
	}
	return out
}

func TestStartServes(t *testing.T) {
	start := time.Now()
	s := Start(t)
	t.Logf("server up in %v at %s", time.Since(start), s.DSN)
	if got := mustPsql(t, s, "SHOW max_prepared_transactions"); got != "64" {
		t.Errorf("max_prepared_transactions = %s, want 64", got)
	}
	if got := mustPsql(t, s, "SHOW listen_addresses"); got != "127.0.0.1" {
		t.Errorf("listen_addresses = %s, want 127.0.0.1", got)
	}
}

// TestRestartKeepsData stops or kills the server, starts it again and
// finds committed rows and a prepared transaction still there.
func TestRestartKeepsData(t *testing.T) {
	s := Start(t)
	mustPsql(t, s, "CREATE TABLE t (v int)")
	for i, down := range []struct {
		name string
		stop func() error
	}{
		{"fast", func() error { return s.Stop(Fast) }},
		{"immediate", func() error { return s.Stop(Immediate) }},
		{"kill", s.Kill},
	} {
		t.Run(down.name, func(t *testing.T) {
			mustPsql(t, s, "INSERT INTO t VALUES (1)")
			mustPsql(t, s, "BEGIN; INSERT INTO t VALUES (100); PREPARE TRANSACTION 'p"+down.name+"'")
			if err := down.stop(); err != nil {
				t.Fatal(err)
			}
			if out, err := psql(t, s, "SELECT 1"); err == nil {
				t.Fatalf("server still answers after %s: %s", down.name, out)
			}
			if err := s.Stop(Fast); err != nil { // a no-op on a stopped server
				t.Fatal(err)
			}
			begin := time.Now()
			if err := s.Start(); err != nil {
				t.Fatal(err)
			}
			t.Logf("restart after %s took %v", down.name, time.Since(begin))
			if got, want := mustPsql(t, s, "SELECT count(*) FROM t WHERE v = 1"), string(rune('1'+i)); got != want {
				t.Errorf("committed rows = %s, want %s", got, want)
			}
			if got := mustPsql(t, s, "SELECT count(*) FROM pg_prepared_xacts WHERE gid = 'p"+down.name+"'"); got != "1" {
				t.Errorf("prepared transaction lost: count = %s", got)
			}
		})
	}
}

func TestKillBreaksClients(t *testing.T) {
	s := Start(t)
	cmd := exec.Command(filepath.Join(s.bin, "psql"), "-X", "-c", "SELECT pg_sleep(60)", s.DSN)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the backend runs the query, then kill the server under it.
	deadline := time.Now().Add(10 * time.Second)
	for mustPsql(t, s, "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%'") != "1" {
		if time.Now().After(deadline) {
			t.Fatal("query did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatal("client of a killed server succeeded")
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	mustPsql(t, s, "SELECT 1")
}

func TestCloseRemovesDir(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Dir); !os.IsNotExist(err) {
		t.Errorf("%s still exists after Close: %v", s.Dir, err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestSweepRemovesOrphans(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Pretend the server belongs to a test process that died.
	owner := fmt.Sprintf("999999999 %d", s.Port)
	if err := os.WriteFile(filepath.Join(s.Dir, "owner"), []byte(owner), 0o644); err != nil {
		t.Fatal(err)
	}
	sweep(filepath.Dir(s.Dir), s.bin, s.owner)
	if _, err := os.Stat(s.Dir); !os.IsNotExist(err) {
		t.Errorf("orphaned server %s not removed: %v", s.Dir, err)
	}
}

func TestNotInstalledSaysHowToInstall(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct{ name, override, def string }{
		{"no binaries", "", filepath.Join(empty, "15", "bin")},
		{"bad WEIR_PGBIN", empty, defaultBin},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := findBinIn(tc.override, tc.def, filepath.Join(empty, "*", "bin"))
			if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "scripts/test.sh") {
				t.Fatalf("findBin = %v, want ErrNotInstalled saying to run scripts/test.sh", err)
			}
		})
	}
	t.Setenv("WEIR_PGBIN", empty)
	if _, err := New(); !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("New with WEIR_PGBIN=%s: %v, want ErrNotInstalled", empty, err)
	}
}

func TestFindBinPicksNewestMajor(t *testing.T) {
	root := t.TempDir()
	for _, v := range []string{"9", "16", "13"} {
		dir := filepath.Join(root, v, "bin")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "postgres"), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got, err := findBinIn("", filepath.Join(root, "15", "bin"), filepath.Join(root, "*", "bin"))
	if want := filepath.Join(root, "16", "bin"); err != nil || got != want {
		t.Fatalf("findBin = %q, %v; want %q", got, err, want)
	}
}

func TestStopModes(t *testing.T) {
	s := Start(t)
	if err := s.Stop("sideways"); err == nil {
		t.Error("Stop accepted an unknown mode")
	}
	if err := s.Stop(Smart); err != nil {
		t.Fatal(err)
	}
	if err := s.Kill(); err != nil { // a no-op on a stopped server
		t.Fatal(err)
	}
}
